/* wb-frames.c - the top of the workbench's traffic: frames from the
 * coordinators routed to the tabs and the views, and what a view must hear
 * when a connection comes up or goes, or a tab goes. wb-tabs.c reaches this
 * only through wb->hooks (wb_frames_hooks, set by main), so the tab manager
 * names no view. */
#include <stdlib.h>
#include <string.h>

#include "esc-ctl.h"
#include "netreq.h"
#include "proto.h"
#include "sidelist.h"
#include "term.h"
#include "term-snap.h"
#include "wb.h"
#include "wb-egress.h"
#include "wb-audit.h"
#include "wb-status.h"
#include "wb-conn.h"
#include "wb-tab.h"
#include "xmalloc.h"

static void
wb_frames_snapshot(struct wb *wb, struct wb_tab *tab, const uint8_t *p, size_t len)
{
	struct term_snap *snap = NULL;
	struct term *t = NULL;
	lz_err_t err = LZ_ERR_INIT;
	char *ansi;
	size_t n;

	if (term_snap_decode(p, len, &snap, &err) < 0 ||
	    term_new(snap->rows, snap->cols, (size_t)wb->cfg->wb_history, &t, &err) < 0) {
		wb_ui_message(wb, "tab %s: screen snapshot: %s", tab->profile, err.msg);
		lz_err_clear(&err);
		term_snap_free(snap);
		return;
	}
	term_set_replies(t, false);	/* as wb_tab_new */
	/* Replay at the coordinator's size, then fit ours (libvterm reflows none). */
	ansi = term_snap_to_ansi(snap, &n);
	term_feed(t, ansi, n);
	free(ansi);
	term_snap_free(snap);
	n = 0;
	(void)term_output(t, &n);
	term_output_consume(t, n);
	term_free(tab->t);
	tab->t = t;
	wb_tabs_fit(wb, tab);
	term_dirty_all(t);
	wb->dirty = true;
}

static void
wb_frames_session(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct wb_tab *tab = wb_conn_answered(conn);
	struct proto_session s;
	lz_err_t err = LZ_ERR_INIT;

	if (proto_decode_session(p, len, &s, &err) < 0) {
		wb_ui_message(wb, "bad SESSION: %s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if (tab == NULL || !wb_tabs_exists(wb, tab)) {
		/* The tab was closed before the answer came: end the session. */
		struct proto_buf b = { 0 };

		proto_encode_kill(&b, s.id);
		wb_conn_send(conn, &b);
		return;
	}
	tab->id = s.id;
	tab->state = WB_TAB_RUNNING;
	tabstate_started(&tab->ts, uv_now(wb->loop));
	wb->fallback = false;
	wb_ui_log(wb, false, "session %u %s %s:%s", s.id, tab->attach ? "attached" : "started",
	    tab->profile, wb_tabs_base(tab->workspace));
	if (tab->attach)
		wb_tabs_fit(wb, tab);
	/* The size the coordinator has may not be ours (attach from elsewhere). */
	wb_tabs_send_resize(tab);
	wb_tabs_save(wb);
	if (tab == wb_tabs_active(wb))
		wb_esc_audit_request(wb);
	wb->dirty = true;
}

static void
wb_frames_error(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct proto_error e;
	struct wb_tab *tab;
	lz_err_t err = LZ_ERR_INIT;

	if (proto_decode_error(p, len, &e, &err) < 0) {
		wb_ui_message(wb, "bad ERROR: %s", err.msg);
		lz_err_clear(&err);
		return;
	}
	/* The LIST's refusal, or a network decision's (not what a session request gets). */
	if (e.code != PROTO_E_START && e.code != PROTO_E_NO_SESSION && e.code != PROTO_E_SHUTDOWN &&
	    e.code != PROTO_E_MODE && e.code != PROTO_E_VERSION && wb_netreq_error(wb, conn, &e)) {
		proto_error_clear(&e);
		return;
	}
	/* Errors to a request come in order; others (DATA to a gone session) are news. */
	if (wb_conn_expecting(conn)) {
		tab = wb_conn_answered(conn);
		if (tab != NULL && wb_tabs_exists(wb, tab)) {
			if (tab->attach && e.code == PROTO_E_NO_SESSION) {
				wb_ui_message(wb, "%s:%s: session %u is gone", tab->profile,
				    wb_tabs_base(tab->workspace), tab->id);
				free(wb->exit_why);
				wb->exit_why = xasprintf("%s:%s: session %u is gone (ended while "
				    "detached)", tab->profile, tab->workspace, tab->id);
				wb_tabs_remove(wb, tab);
			} else if (e.code == PROTO_E_SHUTDOWN && tab->retries++ < WB_RETRIES) {
				/* It was tearing down as we came: start a new one. */
				tab->conn = NULL;
				wb_tabs_conn_drop(wb, conn);
				if (wb_tabs_connect(wb, tab, &err) < 0) {
					wb_tabs_fail(wb, tab, err.msg);
					lz_err_clear(&err);
				}
			} else
				wb_tabs_fail(wb, tab, e.text);
		}
	} else if (e.code != PROTO_E_UNKNOWN_TYPE)
		wb_ui_message(wb, "coordinator: %s", e.text);
	/* else an older coordinator that does not audit SUSPECT: the panel's log has it */
	proto_error_clear(&e);
}

/* A handler: the payload p (len bytes) of a frame from conn. A payload that
 * does not decode is dropped, as is a type without a row (OK to what we did
 * not ask, and what newer coordinators send): news, not an error to show. */
typedef void (*wb_frame_fn)(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len);

#define WB_F_ESC_AUDIT	0x1	/* then ask again for the escalations' audit rows */

struct wb_frame {
	uint16_t type;
	wb_frame_fn fn;
	unsigned flags;
};

static void
wb_f_snapshot(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	lz_err_t err = LZ_ERR_INIT;
	const uint8_t *snap;
	size_t snap_len;
	struct wb_tab *tab;
	uint32_t id;

	if (proto_decode_snapshot(p, len, &id, &snap, &snap_len, &err) == 0 &&
	    (tab = wb_tabs_find(wb, conn, id)) != NULL)
		wb_frames_snapshot(wb, tab, snap, snap_len);
	lz_err_clear(&err);
}

static void
wb_f_data(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	lz_err_t err = LZ_ERR_INIT;
	struct proto_data d;
	struct wb_tab *tab;

	if (proto_decode_data(p, len, &d, &err) < 0 ||
	    (tab = wb_tabs_find(wb, conn, d.id)) == NULL) {
		lz_err_clear(&err);
		return;
	}
	/* Fed when drawn (wb_draw) or read (wb_input_cb): a burst in
	 * big pieces, not one per frame. */
	term_feed_later(tab->t, (const char *)d.data, d.len);
	tabstate_output(&tab->ts, uv_now(wb->loop));
	if (tab == wb_tabs_active(wb))
		wb->dirty = true;
}

static void
wb_f_exit(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	lz_err_t err = LZ_ERR_INIT;
	struct proto_exit e;
	struct wb_tab *tab;
	bool limit;

	if (proto_decode_exit(p, len, &e, &err) < 0 ||
	    (tab = wb_tabs_find(wb, conn, e.id)) == NULL) {
		lz_err_clear(&err);
		return;
	}
	limit = (e.flags & PROTO_EXIT_LIMIT) != 0;
	wb_ui_log(wb, e.status != 0 || limit, "session %u exited %d%s %s:%s", e.id,
	    e.status, limit ? " (limit)" : "", tab->profile, wb_tabs_base(tab->workspace));
	if (limit)
		wb_ui_message(wb, "%s: the sandbox was stopped at a limit (lazaret status "
		    "says which)", tab->profile);
	else
		wb_ui_message(wb, "%s: session exited with status %d", tab->profile, e.status);
	if (tab->quitting) {
		tab->state = WB_TAB_EXITED;
		wb_tabs_remove(wb, tab);
	} else
		wb_tabs_exited(wb, tab, e.status, limit);
}

static void
wb_f_withdrawn(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	lz_err_t err = LZ_ERR_INIT;
	uint32_t id;

	if (proto_decode_u32(p, len, &id, &err) == 0)
		wb_esc_withdrawn(wb, conn, id);
	lz_err_clear(&err);
}

static void
wb_f_ok(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	(void)p;
	(void)len;
	/* The first OK after conn_up answers its ESC_LIST (sent first). */
	if (wb_conn_esc_replay(conn)) {
		wb_conn_set_esc_replay(conn, false);
		wb_esc_replayed(wb, conn);
	}
}

static void
wb_f_netreq_summary(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	(void)p;
	(void)len;
	wb_netreq_summary_frame(wb, conn);
}

/* Each frame a coordinator sends the workbench, and who hears it (as the
 * coordinator's coord_frames[], git's commands[]). */
static const struct wb_frame wb_frames[] = {
	{ PROTO_SESSION,	wb_frames_session,	0 },
	{ PROTO_SNAPSHOT,	wb_f_snapshot,		0 },
	{ PROTO_DATA,		wb_f_data,		0 },
	{ PROTO_SESSION_EXIT,	wb_f_exit,		0 },
	{ PROTO_ERROR,		wb_frames_error,	0 },
	{ ESC_CTL_PROMPT,	wb_esc_prompt_frame,	0 },
	{ ESC_CTL_WITHDRAWN,	wb_f_withdrawn,		WB_F_ESC_AUDIT },
	{ ESC_CTL_AUDIT,	wb_audit_frame,		0 },
	{ PROTO_STATUS,		wb_status_frame,	0 },
	{ PROTO_OK,		wb_f_ok,		0 },
	{ NETCTL_EVENT,		wb_egress_frame,	0 },
	{ NETREQ_ITEM,		wb_netreq_item_frame,	0 },
	{ NETREQ_SUMMARY,	wb_f_netreq_summary,	0 },
	{ NETREQ_RESULT,	wb_netreq_result_frame,	0 },
};

/* The connection's frame callback (wb_frames_hooks.frame). */
static void
wb_frames_cb(struct wb_conn *conn, const struct proto_header *h, const uint8_t *p,
    void *arg)
{
	struct wb *wb = arg;
	size_t i;

	for (i = 0; i < sizeof wb_frames / sizeof wb_frames[0]; i++)
		if (wb_frames[i].type == h->type) {
			wb_frames[i].fn(wb, conn, p, h->length);
			if (wb_frames[i].flags & WB_F_ESC_AUDIT)
				wb_esc_audit_request(wb);
			return;
		}
}

static void
wb_frames_conn_up(struct wb *wb, struct wb_conn *conn)
{
	struct proto_buf b = { 0 };

	/* Every escalation of the domain, whichever session asked (a headless
	 * `lazaret run -T` too), before anything else that is answered OK. */
	esc_ctl_encode_list(&b, ESC_CTL_LIST_FOLLOW);
	wb_conn_send(conn, &b);
	wb_conn_set_esc_replay(conn, true);
	wb_netreq_subscribe(wb, conn);
}

/* conn is gone: its requests and prompts go with it. */
static void
wb_frames_conn_gone(struct wb *wb, struct wb_conn *conn)
{
	size_t i;

	for (i = 0; i < wb->n_escs;)
		if (wb->escs[i]->conn == conn)
			wb_esc_gone(wb, wb->escs[i], "went away with its coordinator");
		else
			i++;
	wb_netreq_conn_drop(wb, conn);
	if (wb->status_conn == conn)
		wb_status_clear(wb);
	wb_esc_changed(wb);
}

static void
wb_frames_tab_gone(struct wb *wb, bool was_active)
{
	wb_esc_changed(wb);
	if (was_active) {
		/* The panel's history was the gone tab's domain's (after [Q]uit, its last). */
		sidelist_set(wb->side, SIDELIST_AUDIT, NULL, 0);
		wb_esc_audit_request(wb);
	}
}

/* An agent commit: an open review reloads; the import is a new audit row
 * (the Audit list and the timeline ask again on the next tick). */
static void
wb_frames_agent_moved(struct wb *wb, const char *profile, const char *workspace, const char *tips)
{
	wb->audit_stale = true;
	wb_review_agent_moved(wb, profile, workspace, tips);
}

const struct wb_hooks wb_frames_hooks = {
	.frame = wb_frames_cb,
	.conn_up = wb_frames_conn_up,
	.conn_gone = wb_frames_conn_gone,
	.tab_gone = wb_frames_tab_gone,
	.agent_moved = wb_frames_agent_moved,
};
