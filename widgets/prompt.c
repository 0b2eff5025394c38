/* prompt.c - the escalation prompt dialog (see prompt.h).
 *
 * The body is laid out into rows once per size (prompt_new/prompt_resize):
 * each row is a byte range of one field, measured with widget_put(NULL...)
 * so that drawing it later shows exactly those bytes, nothing split. The
 * window height follows the rows, up to the screen's.
 */
#include <panel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prompt.h"
#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

#define PROMPT_MAX_W	100
#define PROMPT_LABEL_W	10

struct prow {
	const char *label;	/* first row of a field, else NULL */
	int word;		/* argv index of a word row, else -1 */
	bool alert;		/* note or error: the alert style */
	const char *s;
	size_t off, len;
};

struct prompt {
	char *id, *profile, *justification, *cwd, *note;
	char **argv;
	char *command;		/* as the request had it, or NULL */
	char *split_error;	/* the command did not split: why */
	WINDOW *win;
	PANEL *panel;
	int h, w;
	int label_w;		/* columns before the text */
	struct prow *rows;
	size_t nrows, cap;
	bool adding_alert;	/* rows being laid out get the alert style */
	int scroll;
};

static void
add_row(struct prompt *p, const char *label, int word, const char *s, size_t off, size_t len)
{
	if (p->nrows == p->cap) {
		p->cap = p->cap == 0 ? 16 : 2 * p->cap;
		p->rows = xreallocarray(p->rows, p->cap, sizeof(*p->rows));
	}
	p->rows[p->nrows++] = (struct prow){ .label = label, .word = word, .s = s, .off = off, .len = len,
					     .alert = p->adding_alert };
}

/* Rows for s wrapped at width columns; at least one row. */
static void
add_wrapped(struct prompt *p, const char *label, int word, const char *s, int width)
{
	size_t len = strlen(s), off = 0, used;

	if (len == 0 || width <= 0) {
		add_row(p, label, word, s, 0, 0);
		return;
	}
	while (off < len) {
		widget_put(NULL, 0, 0, s + off, len - off, width, NULL, 0, &used);
		if (used == 0)
			used = len - off;	/* narrower than one visible form: cut when drawn */
		add_row(p, off == 0 ? label : NULL, word, s, off, used);
		off += used;
	}
}

static int
body_height(const struct prompt *p)
{
	return p->h >= 5 ? p->h - 4 : 0;
}

static void
layout(struct prompt *p, int lines, int cols)
{
	int iw;

	p->w = cols - 4 < PROMPT_MAX_W ? cols - 4 : PROMPT_MAX_W;
	if (p->w < 24)
		p->w = cols > 0 ? cols : 1;
	iw = p->w - 4;
	p->label_w = iw >= PROMPT_LABEL_W + 16 ? PROMPT_LABEL_W : 0;
	p->nrows = 0;
	add_wrapped(p, "Request", -1, p->id, iw - p->label_w);
	add_wrapped(p, "Profile", -1, p->profile, iw - p->label_w);
	if (p->cwd != NULL)
		add_wrapped(p, "Cwd", -1, p->cwd, iw - p->label_w);
	add_wrapped(p, "Why", -1, p->justification, iw - p->label_w);
	p->adding_alert = true;
	if (p->note != NULL)
		add_wrapped(p, "Note", -1, p->note, iw - p->label_w);
	p->adding_alert = false;
	add_row(p, "Command", -1, "", 0, 0);
	if (p->split_error != NULL) {
		p->adding_alert = true;
		add_wrapped(p, "Error", -1, p->split_error, iw - p->label_w);
		p->adding_alert = false;
		add_wrapped(p, NULL, -1, p->command, iw - p->label_w);
	}
	for (size_t i = 0; p->argv[i] != NULL; i++)
		add_wrapped(p, NULL, (int)i, p->argv[i], iw - p->label_w);
	p->h = (int)p->nrows + 4;
	widget_overlay_free(&p->win, &p->panel);
	p->win = widget_overlay_new(&p->h, &p->w, lines, cols, &p->panel);
	if (p->scroll > (int)p->nrows - body_height(p))
		p->scroll = (int)p->nrows - body_height(p);
	if (p->scroll < 0)
		p->scroll = 0;
}

struct prompt *
prompt_new(const struct prompt_request *req, int lines, int cols)
{
	struct prompt *p = xcalloc(1, sizeof(*p));
	char *const none[] = { NULL };

	p->id = xstrdup(req->request_id != NULL ? req->request_id : "");
	p->profile = xstrdup(req->profile != NULL ? req->profile : "");
	p->justification = xstrdup(req->justification != NULL ? req->justification : "");
	p->cwd = req->cwd != NULL ? xstrdup(req->cwd) : NULL;
	p->note = req->note != NULL ? xstrdup(req->note) : NULL;
	if (req->argv != NULL) {
		p->argv = lz_strv_dup(req->argv);
	} else if (req->command != NULL) {
		lz_err_t err = LZ_ERR_INIT;

		p->command = xstrdup(req->command);
		if (lz_shellwords_split(p->command, strlen(p->command), &p->argv, &err) < 0) {
			p->split_error = lz_steal_ptr(&err.msg);
			p->argv = lz_strv_dup(none);
		}
	} else {
		p->argv = lz_strv_dup(none);
	}
	layout(p, lines, cols);
	return p;
}

void
prompt_free(struct prompt *p)
{
	if (p == NULL)
		return;
	widget_overlay_free(&p->win, &p->panel);
	free(p->rows);
	free(p->id);
	free(p->profile);
	free(p->justification);
	free(p->cwd);
	free(p->note);
	lz_strv_free(p->argv);
	free(p->command);
	free(p->split_error);
	free(p);
}

void
prompt_resize(struct prompt *p, int lines, int cols)
{
	layout(p, lines, cols);
}

static void
draw_actions(const struct prompt *p, int y, const struct widget_palette *pal)
{
	static const char *const act[][2] = {
		{ "A", "pprove & run" }, { "D", "eny" }, { "E", "dit" }, { "Q", "uit" },
	};
	const struct widget_style *key = &pal->style[THEME_PROMPT];
	const struct widget_style *txt = &pal->style[THEME_PANEL_ITEM];
	int x = 2, right = p->w - 2;

	for (size_t i = 0; i < sizeof(act) / sizeof(act[0]) && x < right; i++) {
		x += widget_put(p->win, y, x, "[", 1, right - x, txt, 0, NULL);
		x += widget_put(p->win, y, x, act[i][0], 1, right - x, key, 0, NULL);
		x += widget_put(p->win, y, x, "]", 1, right - x, txt, 0, NULL);
		x += widget_put(p->win, y, x, act[i][1], strlen(act[i][1]), right - x, txt, 0, NULL);
		x += 3;
	}
}

void
prompt_draw(struct prompt *p, const struct widget_palette *pal)
{
	const struct widget_style *item = &pal->style[THEME_PANEL_ITEM];
	const struct widget_style *label = &pal->style[THEME_PANEL_TITLE];
	const struct widget_style *alert = &pal->style[THEME_TAB_ALERT];
	struct widget_style word = *item;
	int bh = body_height(p), iw = p->w - 4;
	char num[16], words[32];

	word.attr |= A_UNDERLINE;
	for (int y = 0; y < p->h; y++)
		widget_fill(p->win, y, 0, p->w, item);
	widget_box(p->win, &pal->style[THEME_BORDER]);
	widget_puts(p->win, 0, 2, " Host escalation request ", p->w - 4, &pal->style[THEME_PROMPT]);
	for (int r = 0; r < bh && p->scroll + r < (int)p->nrows; r++) {
		const struct prow *row = &p->rows[p->scroll + r];
		int y = 1 + r, x = 2;

		if (row->label != NULL && p->label_w > 0)
			widget_puts(p->win, y, x, row->label, p->label_w - 1, label);
		if (row->word >= 0 && row->off == 0 && p->label_w > 0) {
			snprintf(num, sizeof(num), "%8d", row->word);	/* PROMPT_LABEL_W - 2 */
			widget_puts(p->win, y, x, num, p->label_w - 1, label);
		}
		if (row->label != NULL && row->word < 0 && strcmp(row->label, "Command") == 0) {
			size_t n = lz_strv_len(p->argv);

			snprintf(words, sizeof(words), "%zu word%s", n, n == 1 ? "" : "s");
			widget_puts(p->win, y, x + p->label_w, p->split_error != NULL ? "does not split into words" : words,
				    iw - p->label_w, item);
			continue;
		}
		widget_put(p->win, y, x + p->label_w, row->s + row->off, row->len, iw - p->label_w,
			   row->word >= 0 ? &word : row->alert ? alert : item, 0, NULL);
	}
	if (bh > 0 && (int)p->nrows > bh) {
		char more[80];
		struct widget_style dim = *item;

		dim.attr |= A_DIM;
		snprintf(more, sizeof(more), "rows %d-%d of %zu, Up/Down to scroll", p->scroll + 1,
			 p->scroll + bh, p->nrows);
		widget_puts(p->win, p->h - 3, 2, more, iw, &dim);
	}
	if (p->h >= 3)
		draw_actions(p, p->h - 2, pal);
}

enum prompt_action
prompt_handle_key(struct prompt *p, int key)
{
	int bh = body_height(p), max = (int)p->nrows - bh;

	switch (key) {
	case 'a':
	case 'A':
		return PROMPT_APPROVE;
	case 'd':
	case 'D':
		return PROMPT_DENY;
	case 'e':
	case 'E':
		return PROMPT_EDIT;
	case 'q':
	case 'Q':
		return PROMPT_QUIT;
	case 'k':
	case WIDGET_KEY_FN(KEY_UP):
		p->scroll--;
		break;
	case 'j':
	case WIDGET_KEY_FN(KEY_DOWN):
		p->scroll++;
		break;
	case WIDGET_KEY_FN(KEY_PPAGE):
		p->scroll -= bh > 1 ? bh - 1 : 1;
		break;
	case WIDGET_KEY_FN(KEY_NPAGE):
	case ' ':
		p->scroll += bh > 1 ? bh - 1 : 1;
		break;
	case WIDGET_KEY_FN(KEY_HOME):
		p->scroll = 0;
		break;
	case WIDGET_KEY_FN(KEY_END):
		p->scroll = max;
		break;
	default:
		break;
	}
	if (p->scroll > max)
		p->scroll = max;
	if (p->scroll < 0)
		p->scroll = 0;
	return PROMPT_NONE;
}

char *
prompt_command(const struct prompt *p)
{
	return p->command != NULL ? xstrdup(p->command) : lz_shellwords_join(p->argv);
}

int
prompt_rows(const struct prompt *p)
{
	return (int)p->nrows;
}

int
prompt_scroll(const struct prompt *p)
{
	return p->scroll;
}

WINDOW *
prompt_window(const struct prompt *p)
{
	return p->win;
}
