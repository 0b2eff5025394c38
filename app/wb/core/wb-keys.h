/* wb-keys.h - the workbench's key table, like tmux's prefix table.
 *
 * Every binding is "prefix, then a key": wb_keys_feed() takes each key the
 * user types and says what to do with it: pass it on (to the focused tab or
 * widget), wait (the prefix was pressed), or run an action. The prefix is C-a
 * by default; pressing it twice sends it through (WB_KEYS_SEND_PREFIX).
 *
 * Key names (wb_keys_parse_key): a character ("c", "?", "é"), a modifier
 * and a character ("C-a", "^A", "M-x", "C-M-b"), or a named key: Tab, BTab,
 * Enter, Escape, Space, BSpace, Up, Down, Left, Right, Home, End, PgUp,
 * PgDn, IC, DC, F1..F12 (with M- too). C- exists for letters and @ [ \ ] ^ _
 * ? and Space, as on a terminal. Keys are widget.h's encoding: the loop turns
 * ESC followed by a key in the same read into that key | WIDGET_KEY_META.
 *
 * Defaults: c new-tab, n next-tab, p previous-tab, 0..9 select-tab N,
 * x close-tab, d detach, s toggle-panel, Tab focus-panel, [ scrollback,
 * r request (the request view: approving is only there), D deny (d is
 * detach, as in tmux), e/E edit, R review (the tab's agent branch: diff,
 * merge, discard), t timeline (what the tab's agent did), ? help; a sends
 * the prefix, as in screen; N and M-n next-waiting (the next tab that needs
 * the user: input or approval, like tmux's M-n for alerts), w dashboard
 * (every domain; tmux's w lists the windows), , rename-tab and :
 * command-prompt (as in tmux).
 */
#ifndef LZ_WB_KEYS_H
#define LZ_WB_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "widget.h"

enum wb_keys_action {
	WB_KEYS_PASS,		/* not ours: the key goes to the focused tab or widget */
	WB_KEYS_PREFIX,		/* the prefix: the next key is looked up */
	WB_KEYS_UNBOUND,	/* prefix then a key bound to nothing (swallowed) */
	WB_KEYS_NEW_TAB,
	WB_KEYS_NEXT_TAB,
	WB_KEYS_PREV_TAB,
	WB_KEYS_SELECT_TAB,	/* arg: tab number */
	WB_KEYS_CLOSE_TAB,
	WB_KEYS_DETACH,
	WB_KEYS_TOGGLE_PANEL,
	WB_KEYS_FOCUS_PANEL,
	WB_KEYS_SCROLLBACK,
	WB_KEYS_REQUEST,	/* open the request view of the escalation selected in the
				 * queue, or the active tab's (approving is there) */
	WB_KEYS_DENY,
	WB_KEYS_EDIT,
	WB_KEYS_HELP,
	WB_KEYS_SEND_PREFIX,	/* send the prefix key itself to the tab */
	WB_KEYS_REVIEW,		/* the review view of the tab's agent branch */
	WB_KEYS_COPY_URL,	/* the newest URL of the tab to the outer clipboard */
	WB_KEYS_NEXT_WAITING,	/* the next tab that needs the user (wb-need.c) */
	WB_KEYS_DASHBOARD,	/* every domain of the user, one row each (wb-dash.c) */
	WB_KEYS_RENAME_TAB,	/* name the active tab */
	WB_KEYS_COMMAND,	/* a command line: source-file, rename-tab, ... */
	WB_KEYS_TIMELINE,	/* what the tab's agent did this session, in order */
	WB_KEYS_N_ACTIONS
};

#define WB_KEYS_NAME_MAX	32	/* longest key name with its NUL */
#define WB_KEYS_SELECT_MAX	999	/* highest tab number of select-tab */

struct wb_keys_binding {
	int key;
	enum wb_keys_action action;
	int arg;
};

struct wb_keys;

/* The default table with prefix C-a. */
struct wb_keys *wb_keys_new(void);
void wb_keys_free(struct wb_keys *);

/* Key name -> key (see above). */
int wb_keys_parse_key(const char *name, int *key, lz_err_t *err);
/* Key -> name, the spelling parse accepts ("C-a", "M-x", "Tab", "F5"). */
void wb_keys_key_name(int key, char buf[WB_KEYS_NAME_MAX]);

int wb_keys_set_prefix(struct wb_keys *, const char *name, lz_err_t *err);
int wb_keys_prefix(const struct wb_keys *);

/* Bind key name to a command: an action name ("new-tab", "detach") or
 * "select-tab N". Replaces the key's binding. */
int wb_keys_bind(struct wb_keys *, const char *key, const char *command, lz_err_t *err);
int wb_keys_unbind(struct wb_keys *, const char *key, lz_err_t *err);

/* What key does after the prefix; *arg gets select-tab's number. The
 * prefix itself, unless bound, is WB_KEYS_SEND_PREFIX. */
enum wb_keys_action wb_keys_lookup(const struct wb_keys *, int key, int *arg);
/* The prefix state machine: feed every key typed. */
enum wb_keys_action wb_keys_feed(struct wb_keys *, int key, int *arg);
/* The prefix was pressed and the next key is awaited. */
bool wb_keys_pending(const struct wb_keys *);
/* Forget a pressed prefix (focus moved to a dialog...). */
void wb_keys_cancel(struct wb_keys *);

/* Keys read in one burst (one read of the tty): ESC followed by another
 * key becomes that key | WIDGET_KEY_META, as terminals send Alt; a lone or
 * trailing ESC stays ESC. Folds in place, returns the new count. */
size_t wb_keys_fold_meta(int *keys, size_t n);

/* "new-tab" ... (NULL for PASS/PREFIX/UNBOUND). */
const char *wb_keys_action_name(enum wb_keys_action);
/* One line on what it does. */
const char *wb_keys_action_help(enum wb_keys_action);

/* Bindings in table order, for help screens; NULL past the end. */
const struct wb_keys_binding *wb_keys_binding(const struct wb_keys *, size_t i);
/* Status line hints for acts (NULL, n 0: a default set), each as
 * "C-a c new" with the first key bound to it; caller frees. */
char *wb_keys_hints(const struct wb_keys *, const enum wb_keys_action *acts, size_t n);
/* Help lines "C-a c     new-tab         open a new sandbox tab"; free with
 * lz_strv_free. */
char **wb_keys_help(const struct wb_keys *);

#endif
