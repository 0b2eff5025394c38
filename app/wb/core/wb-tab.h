/* wb-tab.h - one workbench tab: (profile, workspace, session) on its
 * domain's coordinator connection, with the embedded terminal the session's
 * bytes are fed into, and the translation of keys read by ncurses back into
 * what the program in the PTY expects.
 */
#ifndef LZ_WB_TAB_H
#define LZ_WB_TAB_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "tabstate.h"
#include "term.h"

#define WB_NEED_FLASH_MS	700	/* a background tab's title flashes this long */

struct wb_conn;

enum wb_tab_state {
	WB_TAB_STARTING,	/* connecting, or NEW_SESSION/ATTACH sent */
	WB_TAB_RUNNING,
	WB_TAB_EXITED,
	WB_TAB_FAILED,
};

struct wb_tab {
	char *profile;
	char *workspace;	/* canonical */
	char *mode;		/* "isolated" or "direct" */
	struct wb_conn *conn;	/* shared with the domain's other tabs */
	uint32_t id;		/* session id, 0 before SESSION */
	bool attach;		/* re-attach to id instead of a new session */
	int retries;		/* the coordinator was tearing down as we came */
	enum wb_tab_state state;
	int status;		/* exit status once EXITED */
	char *error;		/* FAILED: why */
	struct term *t;
	bool scrolling;		/* scrollback mode (prefix [) */
	bool quitting;		/* its domain stopped by the user: close at exit */
	unsigned alerts;	/* escalations waiting */
	char state_text[32];
	struct tabstate ts;	/* who needs me (wb-need.c) */
	unsigned long bells_seen;	/* term_bell_count when last looked */
	uint64_t flash_until;	/* uv_now: the title flashes until then; 0 none */
	char *title;		/* the user's name for it (prefix ,); NULL: none */
	bool front;		/* the active tab (as of wb_need_update): the user sees it */
	uint64_t seen_ms;	/* uv_now when it was last the active tab */
	/* Broker refusals (wb-egress.c), wall clock ms: the newest seen (from
	 * the tab's start: older ones are history, not news), and the last of
	 * the burst going on (0: none yet). */
	uint64_t refused_seen_ms, refused_burst_ms;
};

/* The wall clock in ms (an egress event's time_ms is one). */
uint64_t wb_tab_wall_ms(void);
/* A tab with a rows x cols terminal keeping history lines of scrollback. */
int wb_tab_new(const char *profile, const char *workspace, const char *mode, int rows, int cols,
    size_t history, struct wb_tab **out, lz_err_t *err);
void wb_tab_free(struct wb_tab *);
/* "running", "input", "approval", "starting", "exited 1", "limit", "scroll"
 * (tabstate words; kept in state_text). As tmux flags only windows not
 * shown, the active tab reads "running" while it waits for input. */
const char *wb_tab_state_name(struct wb_tab *);

/* Encode a widget.h key (ncurses function keys, Alt, control characters,
 * Unicode) for the PTY into t's output, honouring the application's cursor
 * and keypad modes (libvterm's keyboard encoder). false: nothing to send. */
bool wb_tab_encode_key(struct term *t, int key);
/* Its mark in the tab bar (tabstate_mark): "!" approval, "?" input (not on
 * the active tab, where the prompt is in sight), or "". */
const char *wb_tab_mark(const struct wb_tab *);

/* The key and modifiers a terminfo key capability stands for: kLFT5 is Left
 * with Ctrl (user_caps(5) suffixes 2..8; no suffix is Shift), kf25 is F1 with
 * Ctrl when value (the terminal's string, or NULL) carries xterm's ";5".
 * wb_tab_encode_key maps the codes ncurses gives these at run time. */
bool wb_tab_cap_key(const char *name, const char *value, VTermKey *key, VTermModifier *mod);

#endif
