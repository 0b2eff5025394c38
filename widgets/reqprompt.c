/* reqprompt.c - the request view dialog (see reqprompt.h).
 *
 * The body is reqview's lines, laid out once per size and per command; the
 * window height follows them, up to the screen's. The decision is reqview's
 * state machine; this file adds scrolling and "the whole command has been
 * on screen" (seen_to: the lowest body row shown so far).
 */
#include <panel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reqprompt.h"
#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

#define REQPROMPT_MAX_W	100
#define REQPROMPT_VERB	"approve & run"

struct reqprompt {
	char *id, *profile, *justification, *cwd, *note;
	char **argv;		/* as the request had it, or NULL */
	char *command;		/* the request's command line (or the edit), or NULL */
	bool edited;
	const char *verb;
	struct reqview *view;
	struct reqview_confirm confirm;
	enum reqview_decision last;
	WINDOW *win;
	PANEL *panel;
	int h, w;
	int scroll;
	int seen_to;		/* body rows [0, seen_to) have been on screen */
};

uint64_t
reqprompt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int
body_height(const struct reqprompt *p)
{
	return p->h >= 5 ? p->h - 4 : 0;
}

/* Has every row of the command been on screen? Then a may start the chord. */
static void
update_seen(struct reqprompt *p)
{
	int end = p->scroll + body_height(p);

	if (end > p->seen_to)
		p->seen_to = end;
	reqview_confirm_set_seen(&p->confirm, !p->view->split_failed &&
				 (size_t)p->seen_to >= p->view->command_end);
}

static void
layout(struct reqprompt *p, int lines, int cols)
{
	struct reqview_request r = {
		.request_id = p->id, .profile = p->profile, .justification = p->justification,
		.cwd = p->cwd, .note = p->note, .argv = p->command == NULL ? p->argv : NULL,
		.command = p->command,
	};

	p->w = cols - 4 < REQPROMPT_MAX_W ? cols - 4 : REQPROMPT_MAX_W;
	if (p->w < 24)
		p->w = cols > 0 ? cols : 1;
	reqview_free(p->view);
	p->view = reqview_new(&r, p->w - 4, 0);
	p->h = (int)p->view->n + 4;
	widget_overlay_free(&p->win, &p->panel);
	p->win = widget_overlay_new(&p->h, &p->w, lines, cols, &p->panel);
	if (p->scroll > (int)p->view->n - body_height(p))
		p->scroll = (int)p->view->n - body_height(p);
	if (p->scroll < 0)
		p->scroll = 0;
	p->seen_to = 0;
	update_seen(p);
}

struct reqprompt *
reqprompt_new(const struct reqview_request *req, int lines, int cols)
{
	struct reqprompt *p = xcalloc(1, sizeof(*p));
	char *const none[] = { NULL };

	p->id = xstrdup(req->request_id != NULL ? req->request_id : "");
	p->profile = xstrdup(req->profile != NULL ? req->profile : "");
	p->justification = xstrdup(req->justification != NULL ? req->justification : "");
	p->cwd = req->cwd != NULL ? xstrdup(req->cwd) : NULL;
	p->note = req->note != NULL ? xstrdup(req->note) : NULL;
	if (req->argv != NULL)
		p->argv = lz_strv_dup(req->argv);
	else if (req->command != NULL)
		p->command = xstrdup(req->command);
	else
		p->argv = lz_strv_dup(none);
	p->verb = REQPROMPT_VERB;
	reqview_confirm_start(&p->confirm, reqprompt_now_ms());
	layout(p, lines, cols);
	return p;
}

void
reqprompt_free(struct reqprompt *p)
{
	if (p == NULL)
		return;
	widget_overlay_free(&p->win, &p->panel);
	reqview_free(p->view);
	free(p->id);
	free(p->profile);
	free(p->justification);
	free(p->cwd);
	free(p->note);
	lz_strv_free(p->argv);
	free(p->command);
	free(p);
}

void
reqprompt_resize(struct reqprompt *p, int lines, int cols)
{
	layout(p, lines, cols);
}

void
reqprompt_restart(struct reqprompt *p, const char *command, const char *verb, uint64_t now_ms)
{
	if (command != NULL) {
		free(p->command);
		p->command = xstrdup(command);
		p->edited = true;
		p->scroll = 0;
	}
	if (verb != NULL)
		p->verb = verb;
	reqview_confirm_start(&p->confirm, now_ms);
	p->last = REQVIEW_NONE;
	layout(p, LINES, COLS);
}

/* The action row: reqview's hint, the code in the prompt style. */
static void
draw_actions(const struct reqprompt *p, int y, const struct widget_palette *pal)
{
	const struct widget_style *key = &pal->style[THEME_PROMPT];
	const struct widget_style *txt = &pal->style[THEME_PANEL_ITEM];
	char *hint = reqview_confirm_hint(&p->confirm, p->verb), upper[REQVIEW_CODE_LEN + 1], *at;
	int x = 2, right = p->w - 2;
	size_t off = 0;

	for (size_t i = 0; i <= REQVIEW_CODE_LEN; i++)
		upper[i] = (char)(p->confirm.code[i] >= 'a' && p->confirm.code[i] <= 'z' ?
				  p->confirm.code[i] - 'a' + 'A' : p->confirm.code[i]);
	at = p->view->split_failed ? NULL : strstr(hint, upper);
	if (at != NULL) {
		off = (size_t)(at - hint);
		x += widget_put(p->win, y, x, hint, off, right - x, txt, 0, NULL);
		x += widget_put(p->win, y, x, at, REQVIEW_CODE_LEN, right - x, key, 0, NULL);
		off += REQVIEW_CODE_LEN;
	}
	widget_put(p->win, y, x, hint + off, strlen(hint + off), right - x, txt, WIDGET_PUT_ELLIPSIS, NULL);
	free(hint);
}

static const struct widget_style *
line_style(enum reqview_kind k, const struct widget_palette *pal, struct widget_style *tmp)
{
	*tmp = pal->style[THEME_PANEL_ITEM];
	switch (k) {
	case REQVIEW_TITLE:
		return &pal->style[THEME_PANEL_TITLE];
	case REQVIEW_COMMAND:
		tmp->attr |= A_BOLD;
		return tmp;
	case REQVIEW_WHY:
	case REQVIEW_MORE:
		tmp->attr |= A_DIM;
		return tmp;
	case REQVIEW_ALERT:
		return &pal->style[THEME_TAB_ALERT];
	case REQVIEW_FIELD:
		break;
	}
	return tmp;
}

void
reqprompt_draw(struct reqprompt *p, const struct widget_palette *pal)
{
	const struct widget_style *item = &pal->style[THEME_PANEL_ITEM];
	struct widget_style tmp;
	int bh = body_height(p), iw = p->w - 4;

	for (int y = 0; y < p->h; y++)
		widget_fill(p->win, y, 0, p->w, item);
	widget_box(p->win, &pal->style[THEME_BORDER]);
	widget_puts(p->win, 0, 2, p->edited ? " Host escalation request: your edit " : " Host escalation request ",
		    p->w - 4, &pal->style[THEME_PROMPT]);
	for (int r = 0; r < bh && p->scroll + r < (int)p->view->n; r++) {
		const struct reqview_line *l = &p->view->lines[p->scroll + r];

		widget_put(p->win, 1 + r, 2, l->text, strlen(l->text), iw, line_style(l->kind, pal, &tmp), 0,
			   NULL);
	}
	if (bh > 0 && (int)p->view->n > bh) {
		char more[96];
		struct widget_style dim = *item;

		dim.attr |= A_DIM;
		snprintf(more, sizeof(more), "rows %d-%d of %zu, Up/Down%s", p->scroll + 1, p->scroll + bh,
			 p->view->n, p->confirm.seen ? "" : " (scroll to the end to approve)");
		widget_puts(p->win, p->h - 3, 2, more, iw, &dim);
	}
	if (p->h >= 3)
		draw_actions(p, p->h - 2, pal);
}

enum reqprompt_action
reqprompt_key_at(struct reqprompt *p, int key, uint64_t now_ms)
{
	int bh = body_height(p), max = (int)p->view->n - bh;
	bool scrolled = true;

	p->last = REQVIEW_NONE;
	switch (key) {
	case WIDGET_KEY_FN(KEY_UP):
		p->scroll--;
		break;
	case WIDGET_KEY_FN(KEY_DOWN):
		p->scroll++;
		break;
	case WIDGET_KEY_FN(KEY_PPAGE):
		p->scroll -= bh > 1 ? bh - 1 : 1;
		break;
	case WIDGET_KEY_FN(KEY_NPAGE):
		p->scroll += bh > 1 ? bh - 1 : 1;
		break;
	case WIDGET_KEY_FN(KEY_HOME):
		p->scroll = 0;
		break;
	case WIDGET_KEY_FN(KEY_END):
		p->scroll = max;
		break;
	default:
		scrolled = false;
		break;
	}
	if (scrolled) {
		if (p->scroll > max)
			p->scroll = max;
		if (p->scroll < 0)
			p->scroll = 0;
		update_seen(p);
		return REQPROMPT_NONE;
	}
	p->last = reqview_confirm_key(&p->confirm, key, now_ms);
	switch (p->last) {
	case REQVIEW_APPROVE:
		return p->view->split_failed ? REQPROMPT_NONE : REQPROMPT_APPROVE;
	case REQVIEW_DENY:
		return REQPROMPT_DENY;
	case REQVIEW_EDIT:
		return REQPROMPT_EDIT;
	case REQVIEW_QUIT:
		return REQPROMPT_QUIT;
	case REQVIEW_NONE:
	case REQVIEW_CLOSE:
	case REQVIEW_EARLY:
	case REQVIEW_REPLY:
	case REQVIEW_UNSEEN:
	case REQVIEW_WRONG:
		break;
	}
	return REQPROMPT_NONE;
}

enum reqprompt_action
reqprompt_handle_key(struct reqprompt *p, int key)
{
	return reqprompt_key_at(p, key, reqprompt_now_ms());
}

enum reqview_decision
reqprompt_last(const struct reqprompt *p)
{
	return p->last;
}

uint64_t
reqprompt_arm_in(struct reqprompt *p, uint64_t now_ms)
{
	return reqview_confirm_arm_in(&p->confirm, now_ms);
}

const char *
reqprompt_code(const struct reqprompt *p)
{
	return p->confirm.code;
}

char *
reqprompt_command(const struct reqprompt *p)
{
	return p->command != NULL ? xstrdup(p->command) : lz_shellwords_join(p->argv);
}

int
reqprompt_rows(const struct reqprompt *p)
{
	return (int)p->view->n;
}

int
reqprompt_scroll(const struct reqprompt *p)
{
	return p->scroll;
}

WINDOW *
reqprompt_window(const struct reqprompt *p)
{
	return p->win;
}
