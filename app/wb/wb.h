/* wb.h - what the parts of lazaret-workbench share (internal to it): the
 * workbench's state and one function list per file.
 *   workbench.c  start-up: options, theme, screen, loop, teardown
 *   wb-tabs.c    tabs and their coordinator connections, frames from them
 *   wb-esc.c     the escalation queue, the request view, decisions
 *   wb-input.c   keys: the prefix table, dialogs, the tab's program
 *   wb-draw.c    the screen: layout, bars, panel, dialogs; messages
 *   wb-review*.c the review view (prefix R) and the panel's review counts
 *   wb-audit.c, wb-egress.c (wb-egroup.c), wb-status.c, wb-help.c, wb-tour.c:
 *                the Audit list in words, the Egress list by destination, the
 *                status line's gauges, the key help in context, the first
 *                start's tour (each with its own header)
 * See workbench.c for the theory of operation.
 */
#ifndef LZ_WB_H
#define LZ_WB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <curses.h>
#include <panel.h>
#include <uv.h>

#include "config.h"
#include "editform.h"
#include "err.h"
#include "esc-ctl.h"
#include "netreq.h"
#include "newtab.h"
#include "reqprompt.h"
#include "sidelist.h"
#include "statusline.h"
#include "tabbar.h"
#include "term-draw.h"
#include "textview.h"
#include "theme.h"
#include "wb-conn.h"
#include "wb-keys.h"
#include "wb-layout.h"
#include "wb-mouse.h"
#include "wb-state.h"
#include "wb-tab.h"
#include "widget.h"

#define WB_TERM_NAME	"xterm-256color"	/* what libvterm answers to */
#define WB_MAX_KEYS	512			/* keys handled per read burst */
#define WB_RETRIES	3			/* coordinator tearing down as we came */
#define WB_SEARCH_MAX	256			/* bytes of a scrollback search */
#define WB_WHEEL_LINES	3			/* lines a wheel notch scrolls, like tmux */
#define WB_SAMPLE_KEYS	64			/* keys of a discarded reply kept for the audit */
#define WB_PANEL_HINTS	"panel: a/Enter open the request  d deny  e edit  q stop its domain  Esc back"
#define WB_REVIEW_STATUS_HINTS	"review: keys go to the view; q or Esc goes back to the tab"
#define WB_EGRESS_HINTS	"egress: Enter/o once  r run  p profile (open the request)  d deny  b blocked only  Esc back"

/* A waiting escalation. */
struct wb_esc {
	struct wb_conn *conn;
	uint32_t session, ticket;
	char key[24];		/* sidelist id */
	struct esc_ctl_prompt p;
	bool waited;		/* it waited before this workbench attached (ESC_LIST) */
};

struct wb;
struct wb_conn;
struct wb_audit_row;
struct wb_egroup;
struct proto_header;

/* What the tab manager (wb-tabs.c) tells the parts above it, without naming
 * them: wb-frames.c's wb_frames_hooks, set by main. */
struct wb_hooks {
	/* A frame from a coordinator; payload valid during the call. */
	void (*frame)(struct wb_conn *, const struct proto_header *, const uint8_t *p, void *wb);
	/* A connection is ready / gone: the views subscribe / drop what came from it. */
	void (*conn_up)(struct wb *, struct wb_conn *);
	void (*conn_gone)(struct wb *, struct wb_conn *);
	/* A tab is gone; was_active: it was the one shown. */
	void (*tab_gone)(struct wb *, bool was_active);
	/* The side panel's counter saw a new agent commit (tips: the new tips). */
	void (*agent_moved)(struct wb *, const char *profile, const char *workspace,
	    const char *tips);
};

struct wb {
	const struct wb_hooks *hooks;
	uv_loop_t *loop;
	struct cfg *cfg;
	struct wb_keys *keys;
	struct theme *theme;
	char *theme_warning;
	struct term_draw *draw;
	unsigned draw_gen;
	struct widget_palette pal;
	struct tabbar *tabbar;
	struct sidelist *side;
	struct wb_egroup *egroup;	/* the Egress list's events by destination (wb-egress.c) */
	bool egress_stale;		/* rebuild the list before the next frame */
	bool egress_blocked;		/* b: only the blocked destinations */
	struct wb_netreq **nreqs;	/* network requests of every domain (wb-netreq.c) */
	size_t n_nreqs;
	struct wb_conn **nlist_wait;	/* NETREQ_LIST sent, not answered yet */
	size_t n_nlist_wait;
	struct wb_netview *netview;	/* a network request's detail view */
	uv_timer_t narm;		/* redraws it when it arms */
	struct textview *gone;		/* a dialog closed under the user (wb-gone.c) */
	char *gone_title, *gone_text;
	bool gone_armed;		/* Esc puts it away */
	uint64_t gone_quiet;		/* the last key at it (reqprompt_now_ms) */
	uv_timer_t gone_arm;		/* redraws it when it arms */
	struct statusline *status;
	char *hints;			/* the status line's key hints for the tab */
	struct newtab *newtab;
	struct textview *help;
	struct reqprompt *prompt;
	struct editform *edit;
	struct wb_esc *prompt_esc;	/* what prompt/edit decide on */
	bool prompt_edited;		/* the prompt shows an edit: approving runs it */
	struct wb_esc *quit_esc;	/* the panel's q asks whether to stop its domain */
	struct wb_tab *close_ask;	/* x on a running tab asks y/n first */
	bool search_typing;		/* scrollback: / is reading the text to find */
	char search[WB_SEARCH_MAX];	/* what / looks for (n, N again) */
	long search_at;			/* history line of the last match, -1: none */
	char *exit_why;			/* the last tab went without the user: why */
	struct reqview_confirm edit_filter;	/* drops terminal replies at the edit form */
	uv_timer_t arm;			/* redraws the prompt when it arms */
	const int *burst;		/* the keys of this read, while they are handled */
	size_t burst_n, burst_i;	/* how many, and which one is being handled */
	bool mouse;			/* workbench.mouse / --mouse: clicks and the wheel */
	bool prefix_given;		/* by option or environment: a reload keeps it */
	const struct wb_mouse *mevs;	/* the mouse reports of this read, in order */
	size_t mevs_n, mevs_i;
	WINDOW *termwin, *sidewin;
	PANEL *termpanel, *sidepanel;
	struct wb_layout lay;
	bool panel_shown;		/* what the layout has (wb_draw_relayout decides) */
	bool panel_want;		/* the user's choice when wide; kept across detach */
	bool panel_overlay;		/* narrow: the user opened it over the tab */
	bool relayout;			/* lay out again before the next frame (wb_ui_panel) */
	bool marks_stale;		/* the tabs' marks to count again before the next
					 * frame (wb_esc_changed): a network request came or went */
	struct wb_tab **tabs;
	size_t n_tabs, active;
	struct wb_conn **conns;
	size_t n_conns;
	struct wb_esc **escs;
	size_t n_escs;
	uint32_t n_tickets_seen;
	uv_poll_t in;
	uv_signal_t sig_winch, sig_term, sig_hup;
	uv_signal_t sig_detach;		/* WB_STATE_DETACH_SIG: another attach -d took over */
	uv_prepare_t prep;
	uv_timer_t tick;
	uv_timer_t need_tick;		/* who needs me (wb-need.c) */
	uv_timer_t frame;		/* a draw put off to the next frame */
	uint64_t drawn_at;		/* uv_now of the last draw from prep */
	bool redraw_all, dirty;
	char *state_path;
	struct wb_state_tab *kept;	/* detached tabs not restored (-w): saved along */
	size_t n_kept;
	char *cwd;
	const char *mode;
	/* Without `attach`, a restore that leaves no live tab falls back to one
	 * new tab for these (cleared once any tab runs). */
	bool fallback;
	const char *def_profile, *def_workspace;
	bool quit, detached, started;
	struct wb_review *review;	/* the review view, when open */
	struct wb_review_count *rcount;	/* the panel's unreviewed commits per tab */
	struct wb_dash *dash;		/* the dashboard (wb-dash.c), once opened */
	struct cfg **old_cfgs;		/* replaced by a reload, kept for jobs running (wb-cmd.c) */
	size_t n_old_cfgs;
	struct wb_conn *status_conn;	/* whose status the status line shows (wb-status.c) */
	unsigned status_ticks;		/* since it was last asked */
	bool backdrop;			/* a dialog is open: the tab and the panel are hidden */
	struct wb_audit_row *audit;	/* the active domain's audit trail (wb-audit.c) */
	size_t n_audit, n_audit_shown;
	char *audit_verify;		/* the trail's verify verdict, NULL: asked */
	struct textview *audit_view;	/* wb->help when it shows an audit row */
	long long audit_view_seq;
	bool audit_stale;		/* new rows were written: ask again on the next tick */
	struct textview *tour_view;	/* wb->help when it shows the first start's tour */
};

/* wb-ui.c: called by every part, calls none back */
void wb_ui_message(struct wb *wb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wb_ui_log(struct wb *wb, bool alert, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Show or hide the side panel: beside the tab from WB_LAYOUT_SIDE_COLS
 * columns (remembered), over it when narrower (until hidden or resized);
 * laid out before the next frame (wb->relayout). */
void wb_ui_panel(struct wb *wb, bool show);
/* Keys go to the tab again: the side panel loses focus. */
void wb_ui_focus_tab(struct wb *wb);
/* The rest of this read from the key being handled, as the bytes a terminal
 * sent (Alt-x is ESC x), control characters escaped; caller frees. */
char *wb_ui_burst_sample(const struct wb *wb);

/* wb-draw.c */
void wb_draw_relayout(struct wb *wb);
void wb_draw(struct wb *wb);
/* Output floods are drawn at most once per frame, not once per read. */
#define WB_FRAME_MS 16
void wb_draw_prepare_cb(uv_prepare_t *h);
void wb_draw_frame_cb(uv_timer_t *t);
void wb_draw_tick_cb(uv_timer_t *t);

/* wb-frames.c */
extern const struct wb_hooks wb_frames_hooks;

/* wb-tabs.c */
/* Put tab on its domain's connection and ask for its session. */
int wb_tabs_connect(struct wb *wb, struct wb_tab *tab, lz_err_t *err);
/* The tab's program ended: the tab stays with its last screen and status
 * until closed (tmux's remain-on-exit). */
void wb_tabs_exited(struct wb *wb, struct wb_tab *tab, int status, bool limit);
void wb_tabs_send_resize(struct wb_tab *tab);
const char *wb_tabs_base(const char *path);
struct wb_tab *wb_tabs_active(struct wb *wb);
struct wb_tab *wb_tabs_find(struct wb *wb, struct wb_conn *conn, uint32_t id);
bool wb_tabs_exists(struct wb *wb, struct wb_tab *tab);
void wb_tabs_flush_output(struct wb_tab *tab);
void wb_tabs_fail(struct wb *wb, struct wb_tab *tab, const char *why);
void wb_tabs_conn_drop(struct wb *wb, struct wb_conn *conn);
void wb_tabs_remove(struct wb *wb, struct wb_tab *tab);
void wb_tabs_save(struct wb *wb);
struct wb_tab *wb_tabs_restore(struct wb *wb, const struct wb_state_tab *saved, lz_err_t *err);
struct wb_tab *wb_tabs_add(struct wb *wb, const char *profile, const char *workspace, const char *mode, uint32_t attach_id, lz_err_t *err);
void wb_tabs_fit(struct wb *wb, struct wb_tab *tab);
void wb_tabs_close(struct wb *wb, struct wb_tab *tab);
/* Prefix x: an ended tab closes; a running one asks first (tmux's kill-pane). */
void wb_tabs_close_ask(struct wb *wb, struct wb_tab *tab);
void wb_tabs_close_key(struct wb *wb, int key);

/* wb-netreq.c: the Egress list, the active tab's domain's network requests
 * and egress log, live */
#define WB_EGRESS_NOTE	"no events yet (or network: none)"

/* wb-netreq.c: network requests (issue 13), see there */
#define WB_NETREQ_SHOWN	64	/* of the active domain, atop the Egress list */
void wb_netreq_subscribe(struct wb *wb, struct wb_conn *conn);
/* Add the pending requests to their tabs' marks (after wb_esc_changed zeroed them). */
void wb_netreq_mark(struct wb *wb);
/* The active domain's requests as list items (texts[i] to free); how many. */
size_t wb_netreq_panel(struct wb *wb, struct sidelist_item *items, char **texts, size_t max);
bool wb_netreq_pending(const struct wb *wb);
/* One is pending on the active tab's domain (it heads the Egress list). */
bool wb_netreq_panel_pending(struct wb *wb);
void wb_netreq_item_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len);
void wb_netreq_summary_frame(struct wb *wb, struct wb_conn *conn);
void wb_netreq_result_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len);
/* An ERROR that answers a decision of ours: shown, true. */
bool wb_netreq_error(struct wb *wb, struct wb_conn *conn, const struct proto_error *e);
void wb_netreq_conn_drop(struct wb *wb, struct wb_conn *conn);
/* The focused Egress list's keys on a pending request: d denies, Enter a o
 * r p open the view; false: not ours. */
bool wb_netreq_side_key(struct wb *wb, int key);
/* A click: the selected pending request's view; false: none selected. */
bool wb_netreq_open_selected(struct wb *wb);
void wb_netreq_view_key(struct wb *wb, int key);
void wb_netreq_view_draw(struct wb *wb);
void wb_netreq_view_resize(struct wb *wb);
void wb_netreq_view_close(struct wb *wb);
void wb_netreq_tick(struct wb *wb);
void wb_netreq_free(struct wb *wb);

/* wb-gone.c: the notice left by a dialog that closed without the user's
 * key; it takes every key until it has armed and the user presses Esc. */
void wb_gone_open(struct wb *wb, const char *title, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void wb_gone_key(struct wb *wb, int key);
void wb_gone_close(struct wb *wb);
void wb_gone_draw(struct wb *wb);
void wb_gone_resize(struct wb *wb);

/* wb-esc.c */
void wb_esc_changed(struct wb *wb);
void wb_esc_remove(struct wb *wb, struct wb_esc *e);
/* e goes without the user's decision (withdrawn, its coordinator gone). */
void wb_esc_gone(struct wb *wb, struct wb_esc *e, const char *why);
struct wb_esc *wb_esc_focused(struct wb *wb);
void wb_esc_audit_request(struct wb *wb);
void wb_esc_decide(struct wb *wb, struct wb_esc *e, enum esc_ctl_action action, const char *command);
void wb_esc_open_prompt(struct wb *wb, struct wb_esc *e);
/* The edit form on command (NULL: the request's); Enter shows the edit in
 * the request view, where running it takes the code. */
void wb_esc_edit(struct wb *wb, struct wb_esc *e, const char *command);
/* (Re)start the timer that redraws the request view when it arms. */
void wb_esc_arm(struct wb *wb);
void wb_esc_quit_key(struct wb *wb, int key);
/* Record on e's coordinator that something not human was typed at its
 * request view (what: "terminal-reply"; sample: the keys, shown). */
void wb_esc_report(struct wb *wb, struct wb_esc *e, const char *what, const char *sample);
void wb_esc_prompt_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len);
void wb_esc_withdrawn(struct wb *wb, struct wb_conn *conn, uint32_t ticket);
/* conn's ESC_LIST was answered: what waited before we came is shown first. */
void wb_esc_replayed(struct wb *wb, struct wb_conn *conn);
void wb_esc_prompt_key(struct wb *wb, int key);
void wb_esc_edit_key(struct wb *wb, int key);
void wb_esc_side_key(struct wb *wb, int key);

/* wb-review-ui.c: the review view of the tab's agent branch (prefix R) */
void wb_review_open(struct wb *wb, struct wb_tab *tab);
void wb_review_close(struct wb *wb);
void wb_review_key(struct wb *wb, int key);
void wb_review_draw(struct wb *wb);
void wb_review_resize(struct wb *wb);
/* The review counter saw (profile, workspace)'s agent tip ("tip head")
 * move: an open, idle review of it that shows an older tip reloads. */
void wb_review_agent_moved(struct wb *wb, const char *profile, const char *workspace,
    const char *tips);

/* wb-review-count.c: the side panel's Review list, per tab the agent
 * commits not on the user's branch and the surface flags, computed on the
 * threadpool every few seconds (only when a branch moved) and now. */
void wb_review_count_start(struct wb *wb);
void wb_review_count_refresh(struct wb *wb);
void wb_review_count_stop(struct wb *wb);

/* wb-need.c: who needs me (tabstate.h) for every tab, the jump to the next
 * one, the flash and workbench.bell / workbench.notify */
void wb_need_start(struct wb *wb);
/* Look at every tab now; a background one that starts to need the user
 * flashes and notifies (once per change). */
void wb_need_update(struct wb *wb);
bool wb_need_flashing(const struct wb *wb, const struct wb_tab *tab);
/* Prefix N (and M-n): the next tab, after the active one, that needs the
 * user, to select; -1: none (said on the status line). */
long wb_need_next(struct wb *wb);
/* The bell (workbench.bell) and workbench.notify for tab_no (-1: none) in
 * state, with the names in LAZARET_TAB_* of its environment. */
void wb_need_notify(struct wb *wb, long tab_no, const char *state, const char *profile,
    const char *workspace, const char *title);

/* wb-dash.c: every domain of the user, `lazaret ls`'s columns (prefix w) */
void wb_dash_open(struct wb *wb);
void wb_dash_close(struct wb *wb);
bool wb_dash_shown(const struct wb *wb);
/* A key at the dashboard: the tab to select (its domain's, or a new one), or -1. */
long wb_dash_key(struct wb *wb, int key);
void wb_dash_draw(struct wb *wb);
void wb_dash_free(struct wb *wb);

/* wb-cmd.c: prefix w (the dashboard), , (rename the tab), : (a command
 * line: source-file, rename-tab), and the configuration reloaded (SIGHUP) */
void wb_cmd_action(struct wb *wb, enum wb_keys_action a);
/* A line is being typed on the status line (rename, command): keys go to it. */
bool wb_cmd_shown(const struct wb *wb);
void wb_cmd_key(struct wb *wb, int key);
/* Read the configuration again (file NULL: the one in use); -1 keeps the old. */
int wb_cmd_reload(struct wb *wb, const char *file, lz_err_t *err);
/* SIGHUP: reload while the terminal is there, else detach (it hung up). */
void wb_cmd_sighup(struct wb *wb);

/* wb-input.c */
void wb_input_select(struct wb *wb, size_t i);
void wb_input_cb(uv_poll_t *h, int status, int events);
/* Ask the outer terminal for mouse reports (on) or stop (off). */
void wb_input_mouse_mode(struct wb *wb, bool on);

#endif
