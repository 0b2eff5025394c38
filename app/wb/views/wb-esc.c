/* wb-esc.c - escalations in the workbench: the queue in the side panel,
 * the request view (reqprompt.c on reqview.c) and the edit form, the
 * decisions sent back to the coordinator, the panel's audit history. */
#include <stdio.h>
#include <wchar.h>
#include <stdlib.h>
#include <string.h>

#include "esc-payload.h"
#include "proto.h"
#include "reqview.h"
#include "shellwords.h"
#include "strv.h"
#include "wb.h"
#include "wb-egress.h"
#include "wb-audit.h"
#include "wb-status.h"
#include "xmalloc.h"

static void
wb_esc_free(struct wb_esc *e)
{
	if (e == NULL)
		return;
	esc_ctl_prompt_clear(&e->p);
	free(e);
}

/* The queue's line for e: the words as the request view shows them (padding
 * and invisible characters visible) and their count. The line may be cut:
 * the queue only opens the request view, where the whole of it is. */
static char *
wb_esc_shown(const struct wb_esc *e)
{
	lz_err_t err = LZ_ERR_INIT;
	char **argv = NULL, *joined, *out;
	size_t n;

	if (lz_shellwords_split(e->p.command, strlen(e->p.command), &argv, &err) < 0) {
		lz_err_clear(&err);
		joined = reqview_word(e->p.command);
		out = xasprintf("(does not split) %s", joined);
		free(joined);
		return out;
	}
	n = lz_strv_len(argv);
	joined = reqview_command(argv);
	out = xasprintf("%s [%zu word%s]", joined, n, n == 1 ? "" : "s");
	free(joined);
	lz_strv_free(argv);
	return out;
}

void
wb_esc_changed(struct wb *wb)
{
	struct sidelist_item *items = xcalloc(wb->n_escs + 1, sizeof *items);
	char **texts = xcalloc(wb->n_escs + 1, sizeof *texts), *shown;
	size_t i, k;

	for (i = 0; i < wb->n_tabs; i++)
		wb->tabs[i]->alerts = 0;
	for (i = 0; i < wb->n_escs; i++) {
		struct wb_esc *e = wb->escs[i];
		struct wb_tab *tab = wb_tabs_find(wb, e->conn, e->session);

		if (tab != NULL)
			tab->alerts++;
		for (k = 0; tab != NULL && k < wb->n_tabs; k++)
			if (wb->tabs[k] == tab)
				break;
		shown = wb_esc_shown(e);
		texts[i] = tab != NULL ? xasprintf("tab %zu %s: %s", k, e->p.profile, shown) :
		    xasprintf("%s: %s", e->p.profile, shown);
		free(shown);
		items[i].id = e->key;
		items[i].text = texts[i];
		items[i].alert = true;
	}
	wb_netreq_mark(wb);
	sidelist_set(wb->side, SIDELIST_QUEUE, items, wb->n_escs);
	for (i = 0; i < wb->n_escs; i++)
		free(texts[i]);
	free(texts);
	free(items);
	wb->dirty = true;
}

void
wb_esc_remove(struct wb *wb, struct wb_esc *e)
{
	size_t i;

	for (i = 0; i < wb->n_escs; i++)
		if (wb->escs[i] == e) {
			memmove(&wb->escs[i], &wb->escs[i + 1],
			    (wb->n_escs - i - 1) * sizeof *wb->escs);
			wb->n_escs--;
			break;
		}
	if (wb->quit_esc == e) {
		wb->quit_esc = NULL;
		statusline_message(wb->status, NULL, 0);
	}
	if (wb->prompt_esc == e) {
		wb->prompt_edited = false;
		reqprompt_free(wb->prompt);
		wb->prompt = NULL;
		editform_free(wb->edit);
		wb->edit = NULL;
		wb->prompt_esc = NULL;
		wb->redraw_all = true;
	}
	wb_esc_free(e);
	wb_esc_changed(wb);
}

/* e goes without the user's decision: a dialog open on it leaves a notice
 * that takes the keys typed for it (wb-gone.c). */
void
wb_esc_gone(struct wb *wb, struct wb_esc *e, const char *why)
{
	bool open = wb->prompt_esc == e && (wb->prompt != NULL || wb->edit != NULL);
	char rid[16];

	open = open || wb->quit_esc == e;
	snprintf(rid, sizeof rid, "%.8s", e->p.request_id);
	wb_esc_remove(wb, e);
	if (open)
		wb_gone_open(wb, "Request closed", "Request %s %s while it was open.", rid, why);
}

static struct wb_esc *
wb_esc_by_key(struct wb *wb, const char *key)
{
	size_t i;

	for (i = 0; key != NULL && i < wb->n_escs; i++)
		if (strcmp(wb->escs[i]->key, key) == 0)
			return wb->escs[i];
	return NULL;
}

/* The request A/D/E act on: the queue's selection, else the active tab's. */
struct wb_esc *
wb_esc_focused(struct wb *wb)
{
	struct wb_esc *e = wb_esc_by_key(wb, sidelist_selected_id(wb->side, SIDELIST_QUEUE));
	struct wb_tab *tab = wb_tabs_active(wb);
	size_t i;

	if (wb->prompt_esc != NULL)
		return wb->prompt_esc;
	if (e != NULL && sidelist_focused(wb->side))
		return e;
	for (i = 0; tab != NULL && i < wb->n_escs; i++)
		if (wb->escs[i]->conn == tab->conn && wb->escs[i]->session == tab->id)
			return wb->escs[i];
	return e;
}

/* Ask the active tab's coordinator for its audit trail (the panel's history)
 * and its egress log. */
void
wb_esc_audit_request(struct wb *wb)
{
	struct wb_tab *tab = wb_tabs_active(wb);

	if (tab == NULL || tab->conn == NULL || wb_conn_state(tab->conn) != WB_CONN_READY)
		return;
	wb_audit_request(wb);
	wb_egress_request(wb, tab);
	wb_status_request(wb);
}

void
wb_esc_decide(struct wb *wb, struct wb_esc *e, enum esc_ctl_action action, const char *command)
{
	struct esc_ctl_decision d = { e->ticket, action, (char *)(command != NULL ? command : "") };
	struct proto_buf b = { 0 };

	esc_ctl_encode_decision(&b, &d);
	wb_conn_send(e->conn, &b);
	/* The user stops the domain: its tabs close as their sessions end. */
	for (size_t i = 0; action == ESC_CTL_QUIT && i < wb->n_tabs; i++)
		if (wb->tabs[i]->conn == e->conn)
			wb->tabs[i]->quitting = true;
	wb_ui_log(wb, action != ESC_CTL_APPROVE && action != ESC_CTL_EDIT, "%s %s: %s",
	    esc_ctl_action_name(action), e->p.request_id,
	    action == ESC_CTL_EDIT ? command : e->p.command);
	wb_ui_message(wb, "request %.8s: %s", e->p.request_id, esc_ctl_action_name(action));
	wb_esc_remove(wb, e);
	wb_esc_audit_request(wb);
	/* What the user types next goes to the tab, never to the queue. */
	wb_ui_focus_tab(wb);
}

/* Redraw when the request view arms (its keys wait until then). */
static void
wb_esc_arm_cb(uv_timer_t *t)
{
	struct wb *wb = t->data;

	wb->dirty = true;
	wb_esc_arm(wb);
}

void
wb_esc_arm(struct wb *wb)
{
	uint64_t left;

	if (wb->prompt == NULL || (left = reqprompt_arm_in(wb->prompt, reqprompt_now_ms())) == 0) {
		uv_timer_stop(&wb->arm);
		return;
	}
	wb->arm.data = wb;
	uv_timer_start(&wb->arm, wb_esc_arm_cb, left + 1, 0);
}

/* The request view for e; command (may be NULL): an edit to confirm. */
static void
wb_esc_show(struct wb *wb, struct wb_esc *e, const char *command)
{
	struct reqview_request r;

	reqprompt_free(wb->prompt);
	editform_free(wb->edit);
	wb->edit = NULL;
	memset(&r, 0, sizeof r);
	r.request_id = e->p.request_id;
	r.profile = e->p.profile;
	r.justification = e->p.justification;
	r.cwd = e->p.cwd;
	r.note = e->p.reason[0] != '\0' ? e->p.reason : NULL;
	r.command = e->p.command;
	wb->prompt = reqprompt_new(&r, LINES, COLS);
	wb->prompt_edited = command != NULL;
	if (command != NULL)
		reqprompt_restart(wb->prompt, command, "run the edited command", reqprompt_now_ms());
	wb->prompt_esc = e;
	wb_ui_focus_tab(wb);
	wb_keys_cancel(wb->keys);
	wb_esc_arm(wb);
	wb->redraw_all = true;
}

void
wb_esc_open_prompt(struct wb *wb, struct wb_esc *e)
{
	wb_esc_show(wb, e, NULL);
}

void
wb_esc_edit(struct wb *wb, struct wb_esc *e, const char *command)
{
	lz_err_t err = LZ_ERR_INIT;

	reqprompt_free(wb->prompt);
	wb->prompt = NULL;
	editform_free(wb->edit);
	wb->edit = NULL;
	wb_ui_focus_tab(wb);
	if (editform_new("edit the command, Enter shows it to confirm", command != NULL ? command :
	    e->p.command, ESC_COMMAND_MAX, LINES, COLS, &wb->edit, &err) < 0) {
		wb_ui_message(wb, "cannot edit: %s", err.msg);
		lz_err_clear(&err);
		wb->prompt_esc = NULL;
		return;
	}
	reqview_confirm_start(&wb->edit_filter, reqprompt_now_ms());
	wb->prompt_esc = e;
	wb->redraw_all = true;
}

void
wb_esc_report(struct wb *wb, struct wb_esc *e, const char *what, const char *sample)
{
	struct proto_suspect s = { e->session, e->p.request_id, (char *)what, (char *)sample };
	struct proto_buf b = { 0 };

	(void)wb;
	proto_encode_suspect(&b, &s);
	wb_conn_send(e->conn, &b);
}

/* Keys that came while the request view was up and looked like a terminal's
 * reply, not a human: never a decision; recorded here and in the audit. */
static void
wb_esc_suspicious(struct wb *wb, struct wb_esc *e)
{
	char *sample = wb_ui_burst_sample(wb);

	wb_ui_log(wb, true, "request %.8s: terminal reply discarded: %s", e->p.request_id, sample);
	wb_ui_message(wb, "request %.8s: input that looks like a terminal reply was discarded",
	    e->p.request_id);
	wb_esc_report(wb, e, "terminal-reply", sample);
	free(sample);
}

/* The notice of who-needs-me (wb-need.c) for e: it waited unseen, or no
 * tab shows its session (a headless run's). */
static void
wb_esc_notify(struct wb *wb, const struct wb_esc *e)
{
	const struct anchor *a = wb_conn_anchor(e->conn);
	struct wb_tab *tab = wb_tabs_find(wb, e->conn, e->session);
	char *title = xasprintf("%s:%s", a->profile, wb_tabs_base(a->workspace));
	long no = -1;

	for (size_t i = 0; tab != NULL && i < wb->n_tabs; i++)
		if (wb->tabs[i] == tab)
			no = (long)i;
	wb_need_notify(wb, no, "approval", a->profile, a->workspace,
	    tab != NULL && tab->title != NULL ? tab->title : title);
	free(title);
}

void
wb_esc_prompt_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct wb_esc *e = xcalloc(1, sizeof *e);
	lz_err_t err = LZ_ERR_INIT;
	size_t i;

	if (esc_ctl_decode_prompt(p, len, &e->p, &err) < 0) {
		wb_ui_message(wb, "bad escalation from the coordinator: %s", err.msg);
		lz_err_clear(&err);
		free(e);
		return;
	}
	/* Shown again (a tab attached, the domain's list): once is enough. */
	for (i = 0; i < wb->n_escs; i++)
		if (wb->escs[i]->conn == conn && wb->escs[i]->ticket == e->p.ticket) {
			wb->escs[i]->session = e->p.session;
			esc_ctl_prompt_clear(&e->p);
			free(e);
			wb_esc_changed(wb);
			return;
		}
	e->waited = wb_conn_esc_replay(conn);
	e->conn = conn;
	e->session = e->p.session;
	e->ticket = e->p.ticket;
	snprintf(e->key, sizeof e->key, "%p", (void *)e);
	wb->escs = xreallocarray(wb->escs, wb->n_escs + 1, sizeof *wb->escs);
	wb->escs[wb->n_escs++] = e;
	wb_ui_log(wb, true, "request %.8s waits: %s", e->p.request_id, e->p.command);
	/* A tab's request notifies through its tab's state; one of no tab here. */
	if (!e->waited && wb_tabs_find(wb, conn, e->session) == NULL)
		wb_esc_notify(wb, e);
	wb_esc_changed(wb);
	wb_esc_audit_request(wb);
	if (!wb->panel_shown)
		wb_ui_panel(wb, true);
	beep();
}

/* Nothing else on screen takes the keys (a dialog, a view). */
static bool
wb_esc_screen_free(const struct wb *wb)
{
	return wb->prompt == NULL && wb->edit == NULL && wb->netview == NULL &&
	    wb->gone == NULL && wb->newtab == NULL && wb->help == NULL && wb->review == NULL &&
	    wb->close_ask == NULL && wb->quit_esc == NULL;
}

void
wb_esc_replayed(struct wb *wb, struct wb_conn *conn)
{
	size_t i;

	for (i = 0; i < wb->n_escs; i++)
		if (wb->escs[i]->conn == conn && wb->escs[i]->waited) {
			wb_ui_log(wb, true, "request %.8s waited while no one was attached",
			    wb->escs[i]->p.request_id);
			wb_esc_notify(wb, wb->escs[i]);
			if (wb_esc_screen_free(wb))
				wb_esc_open_prompt(wb, wb->escs[i]);
			return;
		}
}

void
wb_esc_withdrawn(struct wb *wb, struct wb_conn *conn, uint32_t ticket)
{
	size_t i;

	for (i = 0; i < wb->n_escs; i++)
		if (wb->escs[i]->conn == conn && wb->escs[i]->ticket == ticket) {
			wb_ui_log(wb, false, "request %.8s withdrawn", wb->escs[i]->p.request_id);
			wb_esc_gone(wb, wb->escs[i], "was withdrawn (expired, or decided elsewhere)");
			return;
		}
}

void
wb_esc_prompt_key(struct wb *wb, int key)
{
	struct wb_esc *e = wb->prompt_esc;
	char *cmd;

	switch (reqprompt_handle_key(wb->prompt, key)) {
	case REQPROMPT_APPROVE:
		if (wb->prompt_edited) {
			cmd = reqprompt_command(wb->prompt);
			wb_esc_decide(wb, e, ESC_CTL_EDIT, cmd);
			free(cmd);
		} else
			wb_esc_decide(wb, e, ESC_CTL_APPROVE, NULL);
		break;
	case REQPROMPT_DENY:
		wb_esc_decide(wb, e, ESC_CTL_DENY, NULL);
		break;
	case REQPROMPT_QUIT:
		wb_esc_decide(wb, e, ESC_CTL_QUIT, NULL);
		break;
	case REQPROMPT_EDIT:
		cmd = reqprompt_command(wb->prompt);
		wb_esc_edit(wb, e, cmd);
		free(cmd);
		break;
	case REQPROMPT_NONE:
		switch (reqprompt_last(wb->prompt)) {
		case REQVIEW_CLOSE:
			reqprompt_free(wb->prompt);
			wb->prompt = NULL;
			wb->prompt_esc = NULL;
			wb_ui_focus_tab(wb);
			break;
		case REQVIEW_REPLY:
			wb_esc_suspicious(wb, e);
			break;
		case REQVIEW_UNSEEN:
			wb_ui_message(wb, "scroll down first: approving needs the whole command seen");
			break;
		case REQVIEW_WRONG:
			wb_ui_message(wb, "not the code: a new code is shown");
			break;
		case REQVIEW_NONE:
		case REQVIEW_APPROVE:
		case REQVIEW_DENY:
		case REQVIEW_EDIT:
		case REQVIEW_QUIT:
		case REQVIEW_EARLY:
			break;
		}
		break;
	}
	wb_esc_arm(wb);
	wb->redraw_all = true;
}

void
wb_esc_edit_key(struct wb *wb, int key)
{
	struct wb_esc *e = wb->prompt_esc;
	enum reqview_decision d;
	char *cmd;

	/* A terminal's reply never becomes part of a command: reqview's reply
	 * filter, its decisions unused (what the form makes is shown again and
	 * takes the code, so keys typed ahead run nothing). */
	d = reqview_confirm_key(&wb->edit_filter, key, reqprompt_now_ms());
	if (d == REQVIEW_REPLY)
		wb_esc_suspicious(wb, e);
	if (d == REQVIEW_REPLY || (wb->edit_filter.reply != 0 && key != WIDGET_KEY_ESC))
		return;
	switch (editform_handle_key(wb->edit, key)) {
	case EDITFORM_ACCEPT:
		/* What runs is shown again, and takes the code like an approval. */
		cmd = editform_text(wb->edit);
		wb_esc_show(wb, e, cmd);
		free(cmd);
		break;
	case EDITFORM_CANCEL:
		editform_free(wb->edit);
		wb->edit = NULL;
		wb->prompt_esc = NULL;
		wb_ui_focus_tab(wb);
		break;
	case EDITFORM_NONE:
		break;
	}
	wb->redraw_all = true;
}

/* The side panel's q asked "stop this domain?": y stops it, anything else not. */
void
wb_esc_quit_key(struct wb *wb, int key)
{
	struct wb_esc *e = wb->quit_esc;

	wb->quit_esc = NULL;
	statusline_message(wb->status, NULL, 0);
	wb_ui_focus_tab(wb);
	if (e == NULL)
		return;
	if (key == 'y' || key == 'Y')
		wb_esc_decide(wb, e, ESC_CTL_QUIT, NULL);
	else
		wb_ui_message(wb, "not stopped");
}

void
wb_esc_side_key(struct wb *wb, int key)
{
	struct wb_esc *e;
	char *m;

	/* a search being typed takes every key, before the lists' own */
	if (!sidelist_searching(wb->side) &&
	    ((sidelist_current(wb->side) == SIDELIST_EGRESS && wb_netreq_side_key(wb, key)) ||
	    wb_egress_side_key(wb, key) || wb_audit_side_key(wb, key))) {
		wb->dirty = true;
		return;
	}
	switch (sidelist_handle_key(wb->side, key)) {
	case SIDELIST_OPEN:
		/* The panel never approves: a and Enter open the request view. */
		if ((e = wb_esc_focused(wb)) != NULL)
			wb_esc_open_prompt(wb, e);
		break;
	case SIDELIST_DENY:
		if ((e = wb_esc_focused(wb)) != NULL)
			wb_esc_decide(wb, e, ESC_CTL_DENY, NULL);
		break;
	case SIDELIST_EDIT:
		if ((e = wb_esc_focused(wb)) != NULL)
			wb_esc_edit(wb, e, NULL);
		break;
	case SIDELIST_QUIT:
		if ((e = wb_esc_focused(wb)) == NULL)
			break;
		wb->quit_esc = e;
		m = xasprintf("stop the %s sandbox? y: yes, any other key: no", e->p.profile);
		statusline_message(wb->status, m, 0);
		free(m);
		break;
	case SIDELIST_UNFOCUS:
		wb_ui_focus_tab(wb);
		break;
	case SIDELIST_NONE:
		break;
	}
	wb->dirty = true;
}
