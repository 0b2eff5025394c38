/* wb-netreq.c - network requests in the workbench (issue 13): destinations
 * the agent tried outside the policy, held by the router while a human
 * decides. Every domain's coordinator is followed (NETREQ_LIST, FOLLOW); a
 * pending request marks its tab like an escalation (the session's tab, or
 * every tab of the domain when the router could not tell) and heads the
 * side panel's Egress list of the active tab's domain.
 *
 * Deciding. On the focused Egress list, d denies (for the run: no more
 * prompts) and Enter, a, o, r, p open the detail view (scope once, once,
 * run, profile): the destination, its attempts, and for run and profile
 * the grants it can save (exact, *.parent, the /24, any port) each with what
 * it also allows (grant.h). Approving there takes reqview's chord, as an
 * escalation does: the view arms after REQVIEW_ARM_MS of quiet, then a, the
 * 3-character code shown, Enter; changing scope or grant draws a new code
 * and disarms. A broad grant takes the chord a second time (a new code)
 * before it is sent with NETREQ_BROAD_OK; the coordinator asking again
 * (NEED_BROAD) does the same. What looks like a terminal's reply is
 * swallowed and reported (SUSPECT), never a key. Typing in a tab can reach
 * none of this: only the focused panel and the view take these keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netreq-text.h"
#include "reqview.h"
#include "strv.h"
#include "wb-netreq-text.h"
#include "netctl-text.h"
#include "wb.h"
#include "xmalloc.h"

#define WB_NETREQ_MAX		512	/* requests kept over every domain */
#define WB_NETREQ_WHO		"workbench"

struct wb_netreq {
	struct wb_conn *conn;
	struct netreq_item it;
	bool deciding;		/* DECIDE sent, RESULT or ERROR not yet back */
	char key[24];		/* sidelist id */
};

struct wb_netview {
	struct wb_conn *conn;
	uint32_t id;
	uint32_t scope;
	size_t sel, n;
	struct grant_candidate c[WB_NETREQ_CANDIDATES];
	struct reqview_confirm confirm;
	bool broad_stage;	/* the second confirmation of a broad grant */
	char broad[NETREQ_WHY_MAX + NETREQ_PREVIEW_MAX + 32];	/* the coordinator's why */
	bool sent;
	struct textview *tv;
};

static struct wb_netreq *
wb_netreq_find(struct wb *wb, struct wb_conn *conn, uint32_t id)
{
	for (size_t i = 0; i < wb->n_nreqs; i++)
		if (wb->nreqs[i]->conn == conn && wb->nreqs[i]->it.id == id)
			return wb->nreqs[i];
	return NULL;
}

/* conn answered LIST (true: it did, remove it from the wait) */
static bool
wb_netreq_listed(struct wb *wb, struct wb_conn *conn)
{
	for (size_t i = 0; i < wb->n_nlist_wait; i++)
		if (wb->nlist_wait[i] == conn) {
			wb->nlist_wait[i] = wb->nlist_wait[--wb->n_nlist_wait];
			return true;
		}
	return false;
}

/* Sent before the tabs' requests on a new connection: its answer (ITEMs and
 * a SUMMARY, or an ERROR from a coordinator without network requests) comes
 * first, so an ERROR then is the LIST's, never a tab's. */
void
wb_netreq_subscribe(struct wb *wb, struct wb_conn *conn)
{
	struct proto_buf b = { 0 };

	netreq_encode_list(&b, NETREQ_FOLLOW);
	wb_conn_send(conn, &b);
	wb->nlist_wait = xreallocarray(wb->nlist_wait, wb->n_nlist_wait + 1, sizeof *wb->nlist_wait);
	wb->nlist_wait[wb->n_nlist_wait++] = conn;
}

void
wb_netreq_summary_frame(struct wb *wb, struct wb_conn *conn)
{
	(void)wb_netreq_listed(wb, conn);
}

void
wb_netreq_mark(struct wb *wb)
{
	for (size_t i = 0; i < wb->n_nreqs; i++) {
		struct wb_netreq *r = wb->nreqs[i];
		struct wb_tab *tab;

		if (r->it.state != NETREQ_PENDING)
			continue;
		if (r->it.session != 0 && (tab = wb_tabs_find(wb, r->conn, r->it.session)) != NULL) {
			tab->alerts++;
			continue;
		}
		/* The router could not tell which shell: every tab of the domain. */
		for (size_t k = 0; k < wb->n_tabs; k++)
			if (wb->tabs[k]->conn == r->conn)
				wb->tabs[k]->alerts++;
	}
}

size_t
wb_netreq_panel(struct wb *wb, struct sidelist_item *items, char **texts, size_t max)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	uint64_t now = wb_tab_wall_ms();
	size_t n = 0;

	/* Pending first (oldest first), then the decided ones, newest first. */
	for (int pass = 0; pass < 2 && tab != NULL; pass++)
		for (size_t k = 0; k < wb->n_nreqs && n < max; k++) {
			size_t i = pass == 0 ? k : wb->n_nreqs - 1 - k;
			struct wb_netreq *r = wb->nreqs[i];

			if (r->conn != tab->conn || (r->it.state == NETREQ_PENDING) != (pass == 0))
				continue;
			texts[n] = wb_netreq_line(&r->it, now);
			items[n].id = r->key;
			items[n].text = texts[n];
			items[n].alert = r->it.state == NETREQ_PENDING || r->it.state == NETREQ_DENIED;
			n++;
		}
	return n;
}

bool
wb_netreq_pending(const struct wb *wb)
{
	for (size_t i = 0; i < wb->n_nreqs; i++)
		if (wb->nreqs[i]->it.state == NETREQ_PENDING)
			return true;
	return false;
}

bool
wb_netreq_panel_pending(struct wb *wb)
{
	struct wb_tab *tab = wb_tabs_active(wb);

	for (size_t i = 0; tab != NULL && i < wb->n_nreqs; i++)
		if (wb->nreqs[i]->conn == tab->conn && wb->nreqs[i]->it.state == NETREQ_PENDING)
			return true;
	return false;
}

static void
wb_netreq_changed(struct wb *wb)
{
	wb->marks_stale = true;	/* the tabs' marks, escalations and these: at the next frame */
	wb->egress_stale = true;	/* the Egress list too (wb-egress.c, before the frame) */
	wb->dirty = true;
}

/* The view: its lines, the action row for the confirmation's state. */
static const char *
wb_netreq_verb(const struct wb_netview *v)
{
	if (v->broad_stage)
		return "CONFIRM the broad grant";
	switch (v->scope) {
	case NETREQ_SCOPE_RUN: return "allow for this run";
	case NETREQ_SCOPE_PROFILE: return "allow for the profile";
	default: return "allow once";
	}
}

static void
wb_netreq_view_build(struct wb *wb)
{
	struct wb_netview *v = wb->netview;
	struct wb_netreq *r = wb_netreq_find(wb, v->conn, v->id);
	char **lines, *hint, title[64], code[REQVIEW_CODE_LEN + 1];

	if (r == NULL)
		return;
	lines = wb_netreq_detail(&r->it, v->c, v->n, v->sel, v->scope, wb_tab_wall_ms());
	if (v->broad_stage) {
		lz_strv_push(&lines, "");
		lz_strv_pushf(&lines, "BROAD: %s", v->broad[0] != '\0' ? v->broad :
		    v->c[v->sel].reach.why_broad);
		lz_strv_push(&lines, "Approve a second time (a new code) to grant it, Esc not to.");
	}
	lz_strv_push(&lines, "");
	if (v->sent) {
		hint = xstrdup("(sent; waiting for the coordinator)");
	} else if (v->confirm.state == REQVIEW_READY) {
		for (size_t i = 0; i <= REQVIEW_CODE_LEN; i++)
			code[i] = (char)(v->confirm.code[i] >= 'a' && v->confirm.code[i] <= 'z' ?
			    v->confirm.code[i] - 'a' + 'A' : v->confirm.code[i]);
		hint = xasprintf("a %s Enter: %s   o/r/p: once/run/profile%s   d: deny   Esc: later",
		    code, wb_netreq_verb(v), v->scope != NETREQ_SCOPE_ONCE && v->n > 1 ?
		    "   Up/Down: grant" : "");
	} else
		hint = reqview_confirm_hint(&v->confirm, wb_netreq_verb(v));
	lz_strv_push(&lines, hint);
	free(hint);
	snprintf(title, sizeof title, "Network request %u", v->id);
	textview_free(v->tv);
	v->tv = textview_new(title, lines, LINES, COLS);
	lz_strv_free(lines);
	wb->redraw_all = true;
}

static void
wb_netreq_arm_cb(uv_timer_t *t)
{
	struct wb *wb = t->data;
	struct wb_netview *v = wb->netview;
	uint64_t left;

	if (v == NULL)
		return;
	if ((left = reqview_confirm_arm_in(&v->confirm, reqprompt_now_ms())) > 0) {
		uv_timer_start(&wb->narm, wb_netreq_arm_cb, left + 1, 0);
		return;
	}
	wb_netreq_view_build(wb);
	wb->dirty = true;
}

/* (Re)start the timer that redraws the view when it arms. */
static void
wb_netreq_arm(struct wb *wb)
{
	uint64_t left = reqview_confirm_arm_in(&wb->netview->confirm, reqprompt_now_ms());

	wb->narm.data = wb;
	if (left == 0)
		uv_timer_stop(&wb->narm);
	else
		uv_timer_start(&wb->narm, wb_netreq_arm_cb, left + 1, 0);
}

/* Show the view again: a fresh code, disarmed (a changed grant is read first). */
static void
wb_netreq_view_restart(struct wb *wb)
{
	reqview_confirm_start(&wb->netview->confirm, reqprompt_now_ms());
	wb_netreq_arm(wb);
	wb_netreq_view_build(wb);
}

/* Tell the coordinator the view of the request is open (held past
 * network.ask_timeout while it is) or closed. */
static void
wb_netreq_hold(struct wb *wb, struct wb_conn *conn, uint32_t id, bool on)
{
	struct wb_netreq *r = wb_netreq_find(wb, conn, id);
	struct proto_buf b = { 0 };

	if (r == NULL || r->it.state != NETREQ_PENDING)
		return;
	netreq_encode_hold(&b, id, on);
	wb_conn_send(conn, &b);
}

void
wb_netreq_view_close(struct wb *wb)
{
	if (wb->netview == NULL)
		return;
	wb_netreq_hold(wb, wb->netview->conn, wb->netview->id, false);
	uv_timer_stop(&wb->narm);
	textview_free(wb->netview->tv);
	free(wb->netview);
	wb->netview = NULL;
	wb->redraw_all = true;
}

/* The view's request went without the user's decision at it (expired,
 * decided elsewhere, its coordinator gone): a notice takes its keys. */
static void
wb_netreq_view_lost(struct wb *wb, uint32_t id, const char *why)
{
	bool sent = wb->netview->sent;

	wb_netreq_view_close(wb);
	if (!sent)
		wb_gone_open(wb, "Network request closed", "Network request %u %s while its view "
		    "was open.", id, why);
}

static void
wb_netreq_open(struct wb *wb, struct wb_netreq *r, uint32_t scope)
{
	struct wb_netview *v;

	wb_netreq_view_close(wb);
	v = xcalloc(1, sizeof *v);
	v->conn = r->conn;
	v->id = r->it.id;
	v->scope = scope;
	v->n = wb_netreq_candidates(&r->it, v->c);
	wb->netview = v;
	wb_netreq_hold(wb, v->conn, v->id, true);
	wb_ui_focus_tab(wb);
	wb_keys_cancel(wb->keys);
	wb_netreq_view_restart(wb);
}

static void
wb_netreq_send(struct wb *wb, struct wb_netreq *r, uint32_t scope, const char *widen, uint32_t flags)
{
	struct netreq_decision d = { .id = r->it.id, .scope = scope, .flags = flags };
	struct proto_buf b = { 0 };
	char dst[320];

	snprintf(d.widen, sizeof d.widen, "%s", widen != NULL ? widen : "");
	snprintf(d.who, sizeof d.who, "%s", WB_NETREQ_WHO);
	netreq_encode_decision(&b, &d);
	wb_conn_send(r->conn, &b);
	r->deciding = true;
	netreq_text_dest(&r->it, dst, sizeof dst);
	wb_ui_log(wb, scope == NETREQ_SCOPE_DENY, "network request %u: %s %s%s%s", r->it.id,
	    netreq_scope_name(scope), dst, widen != NULL && widen[0] != '\0' ? " as " : "",
	    widen != NULL ? widen : "");
}

static void
wb_netreq_approve(struct wb *wb)
{
	struct wb_netview *v = wb->netview;
	struct wb_netreq *r = wb_netreq_find(wb, v->conn, v->id);
	const struct grant_candidate *c = v->n > 0 ? &v->c[v->sel] : NULL;
	bool grant = v->scope != NETREQ_SCOPE_ONCE && c != NULL;

	if (r == NULL || r->it.state != NETREQ_PENDING) {
		wb_netreq_view_lost(wb, v->id, r == NULL ? "went away" :
		    r->it.state == NETREQ_EXPIRED ? "expired" : "was decided elsewhere");
		return;
	}
	if (grant && c->reach.broad && !v->broad_stage) {
		v->broad_stage = true;
		wb_ui_message(wb, "network request %u: a broad grant: approve it a second time", v->id);
		wb_netreq_view_restart(wb);
		return;
	}
	/* The exact destination is what the coordinator grants without a widen. */
	wb_netreq_send(wb, r, v->scope, grant && c->how != GRANT_EXACT ? c->entry : "",
	    v->broad_stage ? NETREQ_BROAD_OK : 0);
	v->sent = true;
	wb_netreq_view_build(wb);
}

/* Keys typed at the view: as the request view's, through reqview's machine. */
void
wb_netreq_view_key(struct wb *wb, int key)
{
	struct wb_netview *v = wb->netview;
	struct wb_netreq *r = wb_netreq_find(wb, v->conn, v->id);
	uint64_t now = reqprompt_now_ms();
	struct proto_suspect s = { 0 };
	struct proto_buf b = { 0 };
	char rid[24];

	wb->dirty = true;
	if (r == NULL) {
		wb_netreq_view_lost(wb, v->id, "went away");
		return;
	}
	if (v->sent && key == WIDGET_KEY_ESC) {
		wb_netreq_view_close(wb);
		return;
	}
	if (v->sent)
		return;
	if (v->confirm.state == REQVIEW_READY) {
		uint32_t scope = key == 'o' ? NETREQ_SCOPE_ONCE : key == 'r' ? NETREQ_SCOPE_RUN :
		    key == 'p' ? NETREQ_SCOPE_PROFILE : 0;
		bool up = key == WIDGET_KEY_FN(KEY_UP) || key == 'k';
		bool down = key == WIDGET_KEY_FN(KEY_DOWN) || key == 'j';

		if (scope != 0 || ((up || down) && v->scope != NETREQ_SCOPE_ONCE && v->n > 1)) {
			if (scope != 0)
				v->scope = scope;
			else
				v->sel = (v->sel + (up ? v->n - 1 : 1)) % v->n;
			v->broad_stage = false;
			v->broad[0] = '\0';
			wb_netreq_view_restart(wb);
			return;
		}
		if (key == 'q' || key == 'Q') {
			wb_netreq_view_close(wb);	/* (the request waits, as after Esc) */
			return;
		}
		if (key == 'e' || key == 'E')
			return;	/* no edit here: the scope and grant keys say what is granted */
	}
	switch (reqview_confirm_key(&v->confirm, key, now)) {
	case REQVIEW_APPROVE:
		wb_netreq_approve(wb);
		return;
	case REQVIEW_DENY:
		wb_netreq_send(wb, r, NETREQ_SCOPE_DENY, "", 0);
		wb_netreq_view_close(wb);
		return;
	case REQVIEW_CLOSE:
		wb_netreq_view_close(wb);
		return;
	case REQVIEW_REPLY:
		/* As at the request view: shown, and audited by the coordinator. */
		snprintf(rid, sizeof rid, "net-%u", r->it.id);
		s.session = r->it.session;
		s.request_id = rid;
		s.what = (char *)"terminal-reply";
		s.sample = wb_ui_burst_sample(wb);
		proto_encode_suspect(&b, &s);
		wb_conn_send(r->conn, &b);
		wb_ui_log(wb, true, "network request %u: terminal reply discarded: %s", r->it.id, s.sample);
		free(s.sample);
		wb_ui_message(wb, "network request %u: input that looks like a terminal reply was "
		    "discarded", r->it.id);
		break;
	case REQVIEW_WRONG:
		wb_ui_message(wb, "not the code: a new code is shown");
		break;
	case REQVIEW_UNSEEN:
	case REQVIEW_EDIT:
	case REQVIEW_QUIT:
	case REQVIEW_EARLY:
	case REQVIEW_NONE:
		break;
	}
	wb_netreq_arm(wb);	/* a reply or a key typed early disarmed it */
	wb_netreq_view_build(wb);
}

void
wb_netreq_view_draw(struct wb *wb)
{
	if (wb->netview != NULL && wb->netview->tv != NULL)
		textview_draw(wb->netview->tv, &wb->pal);
}

void
wb_netreq_view_resize(struct wb *wb)
{
	if (wb->netview != NULL && wb->netview->tv != NULL)
		textview_resize(wb->netview->tv, LINES, COLS);
}

/* The request the Egress list's selection is, of the active tab's domain. */
static struct wb_netreq *
wb_netreq_selected(struct wb *wb)
{
	const char *id = sidelist_selected_id(wb->side, SIDELIST_EGRESS);

	for (size_t i = 0; id != NULL && i < wb->n_nreqs; i++)
		if (strcmp(wb->nreqs[i]->key, id) == 0)
			return wb->nreqs[i];
	return NULL;
}

bool
wb_netreq_open_selected(struct wb *wb)
{
	struct wb_netreq *r = wb_netreq_selected(wb);

	if (r == NULL || r->it.state != NETREQ_PENDING)
		return false;
	wb_netreq_open(wb, r, NETREQ_SCOPE_ONCE);
	return true;
}

bool
wb_netreq_side_key(struct wb *wb, int key)
{
	struct wb_netreq *r = wb_netreq_selected(wb);
	uint32_t scope;

	if (r == NULL || r->it.state != NETREQ_PENDING)
		return false;
	if (key == 'd' || key == 'D') {
		wb_netreq_send(wb, r, NETREQ_SCOPE_DENY, "", 0);
		wb_ui_focus_tab(wb);
		return true;
	}
	scope = key == 'r' ? NETREQ_SCOPE_RUN : key == 'p' ? NETREQ_SCOPE_PROFILE :
	    key == 'o' || key == 'a' || widget_key_is_enter(key) ? NETREQ_SCOPE_ONCE : 0;
	if (scope == 0)
		return false;
	/* Never a decision from the list: the view, where approving takes its code. */
	wb_netreq_open(wb, r, scope);
	return true;
}

static void
wb_netreq_drop(struct wb *wb, size_t i)
{
	struct wb_netreq *r = wb->nreqs[i];

	if (wb->netview != NULL && wb->netview->conn == r->conn && wb->netview->id == r->it.id)
		wb_netreq_view_lost(wb, r->it.id, "went away (its coordinator or the list's bound)");
	free(r);
	memmove(&wb->nreqs[i], &wb->nreqs[i + 1], (wb->n_nreqs - i - 1) * sizeof *wb->nreqs);
	wb->n_nreqs--;
}

void
wb_netreq_conn_drop(struct wb *wb, struct wb_conn *conn)
{
	(void)wb_netreq_listed(wb, conn);
	for (size_t i = 0; i < wb->n_nreqs;)
		if (wb->nreqs[i]->conn == conn)
			wb_netreq_drop(wb, i);
		else
			i++;
}

void
wb_netreq_item_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct netreq_item it;
	struct wb_netreq *r;
	lz_err_t err = LZ_ERR_INIT;
	bool was_pending, fresh = false;
	char dst[320];

	(void)wb_netreq_listed(wb, conn);
	if (netreq_decode_item(p, len, &it, &err) < 0) {
		wb_ui_message(wb, "bad network request from the coordinator: %s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if ((r = wb_netreq_find(wb, conn, it.id)) == NULL) {
		if (wb->n_nreqs == WB_NETREQ_MAX) {
			size_t drop = 0;

			/* Bounded: the oldest decided one goes, else the oldest. */
			for (size_t i = 0; i < wb->n_nreqs; i++)
				if (wb->nreqs[i]->it.state != NETREQ_PENDING) {
					drop = i;
					break;
				}
			wb_netreq_drop(wb, drop);
		}
		r = xcalloc(1, sizeof *r);
		r->conn = conn;
		snprintf(r->key, sizeof r->key, "n%p", (void *)r);
		wb->nreqs = xreallocarray(wb->nreqs, wb->n_nreqs + 1, sizeof *wb->nreqs);
		wb->nreqs[wb->n_nreqs++] = r;
		fresh = true;
	}
	was_pending = !fresh && r->it.state == NETREQ_PENDING;
	r->it = it;
	netreq_text_dest(&it, dst, sizeof dst);
	if (it.state == NETREQ_PENDING && fresh) {
		bool first = true;

		for (size_t i = 0; i < wb->n_nreqs; i++)
			if (wb->nreqs[i] != r && wb->nreqs[i]->conn == conn &&
			    wb->nreqs[i]->it.state == NETREQ_PENDING)
				first = false;
		const char *name = it.kind != NETREQ_KIND_DNS ? it.name : "";	/* (a query's is in dst) */

		wb_ui_log(wb, true, "network request %u waits: %s%s%s", it.id, name,
		    name[0] != '\0' ? " " : "", dst);
		wb->audit_stale = true;	/* its net.request row, in words, soon */
		if (!wb->panel_shown)
			wb_ui_panel(wb, true);
		if (first)
			beep();	/* once, not once per destination of a flood */
	} else if (it.state != NETREQ_PENDING && (was_pending || fresh)) {
		r->deciding = false;
		if (was_pending)
			wb_ui_log(wb, it.state != NETREQ_APPROVED, "network request %u %s%s%s%s%s", it.id,
			    netreq_state_name(it.state), it.who[0] != '\0' ? " by " : "", it.who,
			    it.grant[0] != '\0' ? ": " : "", it.grant);
		if (wb->netview != NULL && wb->netview->conn == conn && wb->netview->id == it.id) {
			char why[sizeof it.who + 32];

			if (it.state == NETREQ_EXPIRED)
				snprintf(why, sizeof why, "expired");
			else
				snprintf(why, sizeof why, "was %s%s%s", netreq_state_name(it.state),
				    it.who[0] != '\0' ? " by " : "", it.who);
			wb_ui_message(wb, "network request %u: %s", it.id, why);
			wb_netreq_view_lost(wb, it.id, why);
		}
	}
	wb_netreq_changed(wb);
}

void
wb_netreq_result_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct netreq_result res;
	struct wb_netview *v = wb->netview;
	struct wb_netreq *r;
	lz_err_t err = LZ_ERR_INIT;

	if (netreq_decode_result(p, len, &res, &err) < 0) {
		wb_ui_message(wb, "bad network decision result: %s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if ((r = wb_netreq_find(wb, conn, res.id)) != NULL)
		r->deciding = false;
	if (res.status == NETREQ_NEED_BROAD && v != NULL && v->conn == conn && v->id == res.id) {
		/* The coordinator judged it broad: the second confirmation, as ours. */
		snprintf(v->broad, sizeof v->broad, "%s; this also allows %s", res.broad, res.preview);
		v->broad_stage = true;
		v->sent = false;
		wb_netreq_view_restart(wb);
		return;
	}
	if (res.status != NETREQ_APPLIED)
		return;
	wb_ui_message(wb, "network request %u: %s%s%s", res.id, netreq_scope_name(res.scope),
	    res.grant[0] != '\0' ? ": " : "", res.grant);
	if (v != NULL && v->conn == conn && v->id == res.id)
		wb_netreq_view_close(wb);
}

bool
wb_netreq_error(struct wb *wb, struct wb_conn *conn, const struct proto_error *e)
{
	/* A coordinator that has no network requests (older, or no sidecar). */
	if (wb_netreq_listed(wb, conn))
		return true;
	for (size_t i = 0; i < wb->n_nreqs; i++) {
		struct wb_netreq *r = wb->nreqs[i];

		if (r->conn != conn || !r->deciding)
			continue;
		r->deciding = false;
		wb_ui_message(wb, "network request %u: %s", r->it.id, e->text);
		if (wb->netview != NULL && wb->netview->conn == conn && wb->netview->id == r->it.id) {
			wb->netview->sent = false;
			wb_netreq_view_restart(wb);
		}
		return true;
	}
	return false;
}

void
wb_netreq_tick(struct wb *wb)
{
	/* The countdowns of pending requests. */
	if (wb_netreq_pending(wb)) {
		wb->egress_stale = true;
		wb->dirty = true;
	}
	if (wb->netview != NULL && !wb->netview->sent)
		wb_netreq_view_build(wb);
}

void
wb_netreq_free(struct wb *wb)
{
	wb_netreq_view_close(wb);
	for (size_t i = 0; i < wb->n_nreqs; i++)
		free(wb->nreqs[i]);
	free(wb->nreqs);
	wb->nreqs = NULL;
	wb->n_nreqs = 0;
	free(wb->nlist_wait);
}
