/* wb-esc.c - escalations in the workbench: the queue in the side panel,
 * the request view (prompt.c on reqview.c) and the edit form, the
 * decisions sent back to the coordinator, the panel's audit history. */
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "strv.h"
#include "wb.h"
#include "xmalloc.h"

static void
wb_esc_free(struct wb_esc *e)
{
	if (e == NULL)
		return;
	esc_ctl_prompt_clear(&e->p);
	free(e);
}

void
wb_esc_changed(struct wb *wb)
{
	struct sidelist_item *items = xcalloc(wb->n_escs + 1, sizeof *items);
	char **texts = xcalloc(wb->n_escs + 1, sizeof *texts);
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
		texts[i] = tab != NULL ? xasprintf("tab %zu %s: %s", k, e->p.profile, e->p.command) :
		    xasprintf("%s: %s", e->p.profile, e->p.command);
		items[i].id = e->key;
		items[i].text = texts[i];
		items[i].alert = true;
	}
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
	if (wb->prompt_esc == e) {
		prompt_free(wb->prompt);
		wb->prompt = NULL;
		editform_free(wb->edit);
		wb->edit = NULL;
		wb->prompt_esc = NULL;
		wb->redraw_all = true;
	}
	wb_esc_free(e);
	wb_esc_changed(wb);
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

/* Ask the active tab's coordinator for its audit trail (the panel's history). */
void
wb_esc_audit_request(struct wb *wb)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	struct proto_buf b = { 0 };

	if (tab == NULL || tab->conn == NULL || wb_conn_state(tab->conn) != WB_CONN_READY)
		return;
	esc_ctl_encode_audit_req(&b, 0);
	wb_conn_send(tab->conn, &b);
}

/* The audit text ("seq ts kind actor {detail}" lines) as short panel lines. */
void
wb_esc_audit_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct sidelist_item *items = NULL;
	struct wb_tab *tab = wb_tabs_active(wb);
	lz_err_t err = LZ_ERR_INIT;
	char *text = NULL, *line, *next, **lines = NULL;
	size_t n = 0, i;
	uint32_t code;

	if (esc_ctl_decode_audit(p, len, &code, &text, &err) < 0) {
		lz_err_clear(&err);
		return;
	}
	if (tab == NULL || tab->conn != conn || code != 0)
		goto out;
	for (line = text; line != NULL && *line != '\0'; line = next) {
		char seq[16], ts[32], kind[32];
		const char *detail;

		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (sscanf(line, "%15s %31s %31s", seq, ts, kind) != 3 || strlen(ts) < 19)
			continue;
		detail = strchr(line, '{');
		lz_strv_pushf(&lines, "%.8s %s %s", ts + 11, kind + (strncmp(kind, "esc.", 4) == 0 ?
		    4 : 0), detail != NULL ? detail : "");
		n++;
	}
	items = xcalloc(n + 1, sizeof *items);
	for (i = 0; i < n; i++) {
		items[i].text = lines[i];
		items[i].alert = strstr(lines[i], "\"deny\"") != NULL ||
		    strstr(lines[i], "rejected") != NULL;
	}
	sidelist_set(wb->side, SIDELIST_AUDIT, items, n);
	if (n > 0)
		sidelist_select(wb->side, SIDELIST_AUDIT, n - 1);
	wb->dirty = true;
out:
	free(items);
	lz_strv_free(lines);
	free(text);
}

void
wb_esc_decide(struct wb *wb, struct wb_esc *e, enum esc_ctl_action action, const char *command)
{
	struct esc_ctl_decision d = { e->ticket, action, (char *)(command != NULL ? command : "") };
	struct proto_buf b = { 0 };

	esc_ctl_encode_decision(&b, &d);
	wb_conn_send(e->conn, &b);
	wb_draw_log(wb, action != ESC_CTL_APPROVE && action != ESC_CTL_EDIT, "%s %s: %s",
	    esc_ctl_action_name(action), e->p.request_id,
	    action == ESC_CTL_EDIT ? command : e->p.command);
	wb_draw_message(wb, "request %.8s: %s", e->p.request_id, esc_ctl_action_name(action));
	wb_esc_remove(wb, e);
	wb_esc_audit_request(wb);
}

void
wb_esc_open_prompt(struct wb *wb, struct wb_esc *e)
{
	struct prompt_request r;

	prompt_free(wb->prompt);
	memset(&r, 0, sizeof r);
	r.request_id = e->p.request_id;
	r.profile = e->p.profile;
	r.justification = e->p.justification;
	r.cwd = e->p.cwd;
	r.note = e->p.reason[0] != '\0' ? e->p.reason : NULL;
	r.command = e->p.command;
	wb->prompt = prompt_new(&r, LINES, COLS);
	wb->prompt_esc = e;
	wb->dirty = true;
}

void
wb_esc_edit(struct wb *wb, struct wb_esc *e)
{
	lz_err_t err = LZ_ERR_INIT;

	editform_free(wb->edit);
	wb->edit = NULL;
	if (editform_new("edit the command, Enter runs it", e->p.command, 4096, LINES, COLS,
	    &wb->edit, &err) < 0) {
		wb_draw_message(wb, "cannot edit: %s", err.msg);
		lz_err_clear(&err);
		return;
	}
	wb->prompt_esc = e;
	wb->dirty = true;
}

void
wb_esc_prompt_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct wb_esc *e = xcalloc(1, sizeof *e);
	lz_err_t err = LZ_ERR_INIT;

	if (esc_ctl_decode_prompt(p, len, &e->p, &err) < 0) {
		wb_draw_message(wb, "bad escalation from the coordinator: %s", err.msg);
		lz_err_clear(&err);
		free(e);
		return;
	}
	e->conn = conn;
	e->session = e->p.session;
	e->ticket = e->p.ticket;
	snprintf(e->key, sizeof e->key, "%p", (void *)e);
	wb->escs = xreallocarray(wb->escs, wb->n_escs + 1, sizeof *wb->escs);
	wb->escs[wb->n_escs++] = e;
	wb_draw_log(wb, true, "request %.8s waits: %s", e->p.request_id, e->p.command);
	wb_esc_changed(wb);
	wb_esc_audit_request(wb);
	if (!wb->panel_shown) {
		wb->panel_shown = true;
		wb_draw_relayout(wb);
	}
	beep();
}

void
wb_esc_withdrawn(struct wb *wb, struct wb_conn *conn, uint32_t ticket)
{
	size_t i;

	for (i = 0; i < wb->n_escs; i++)
		if (wb->escs[i]->conn == conn && wb->escs[i]->ticket == ticket) {
			wb_draw_log(wb, false, "request %.8s withdrawn", wb->escs[i]->p.request_id);
			wb_esc_remove(wb, wb->escs[i]);
			return;
		}
}

void
wb_esc_prompt_key(struct wb *wb, int key)
{
	struct wb_esc *e = wb->prompt_esc;

	switch (prompt_handle_key(wb->prompt, key)) {
	case PROMPT_APPROVE:
		wb_esc_decide(wb, e, ESC_CTL_APPROVE, NULL);
		break;
	case PROMPT_DENY:
		wb_esc_decide(wb, e, ESC_CTL_DENY, NULL);
		break;
	case PROMPT_QUIT:
		wb_esc_decide(wb, e, ESC_CTL_QUIT, NULL);
		break;
	case PROMPT_EDIT:
		prompt_free(wb->prompt);
		wb->prompt = NULL;
		wb_esc_edit(wb, e);
		break;
	case PROMPT_NONE:
		if (key == WIDGET_KEY_ESC) {
			prompt_free(wb->prompt);
			wb->prompt = NULL;
			wb->prompt_esc = NULL;
		}
		break;
	}
	wb->redraw_all = true;
}

void
wb_esc_edit_key(struct wb *wb, int key)
{
	char *cmd;

	switch (editform_handle_key(wb->edit, key)) {
	case EDITFORM_ACCEPT:
		cmd = editform_text(wb->edit);
		wb_esc_decide(wb, wb->prompt_esc, ESC_CTL_EDIT, cmd);
		free(cmd);
		break;
	case EDITFORM_CANCEL:
		editform_free(wb->edit);
		wb->edit = NULL;
		wb->prompt_esc = NULL;
		break;
	case EDITFORM_NONE:
		break;
	}
	wb->redraw_all = true;
}

void
wb_esc_side_key(struct wb *wb, int key)
{
	struct wb_esc *e;

	switch (sidelist_handle_key(wb->side, key)) {
	case SIDELIST_APPROVE:
		if ((e = wb_esc_focused(wb)) != NULL)
			wb_esc_decide(wb, e, ESC_CTL_APPROVE, NULL);
		break;
	case SIDELIST_DENY:
		if ((e = wb_esc_focused(wb)) != NULL)
			wb_esc_decide(wb, e, ESC_CTL_DENY, NULL);
		break;
	case SIDELIST_EDIT:
		if ((e = wb_esc_focused(wb)) != NULL)
			wb_esc_edit(wb, e);
		break;
	case SIDELIST_OPEN:
		if ((e = wb_esc_focused(wb)) != NULL)
			wb_esc_open_prompt(wb, e);
		break;
	case SIDELIST_UNFOCUS:
		sidelist_set_focus(wb->side, false);
		break;
	case SIDELIST_NONE:
		if (key == 'q' || key == 'Q') {
			if ((e = wb_esc_focused(wb)) != NULL)
				wb_esc_decide(wb, e, ESC_CTL_QUIT, NULL);
		}
		break;
	}
	wb->dirty = true;
}
