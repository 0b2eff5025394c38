/* textview.c - scrolling text in a dialog (see textview.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "textview.h"
#include "xmalloc.h"

struct textview {
	char *title;
	char **text;
	int n;
	WINDOW *win;
	PANEL *panel;
	int h, w, scroll;
	struct widget_search se;
	bool searchable;	/* / searches (the footer says so) */
	int match;		/* the line the last search found, -1: none */
	bool missed;		/* the last search found nothing */
};

static int
page(const struct textview *tv)
{
	return tv->h > 3 ? tv->h - 3 : 0;	/* border, footer */
}

static void
clamp(struct textview *tv)
{
	if (tv->scroll > tv->n - page(tv))
		tv->scroll = tv->n - page(tv);
	if (tv->scroll < 0)
		tv->scroll = 0;
}

static void
place(struct textview *tv, int lines, int cols)
{
	int widest = widget_width(tv->title) + 4;

	for (int i = 0; i < tv->n; i++) {
		int w = widget_width(tv->text[i]);

		widest = w > widest ? w : widest;
	}
	tv->w = widest + 4 < cols - 4 ? widest + 4 : cols - 4;
	if (tv->w < 24)
		tv->w = cols;
	tv->h = tv->n + 3;
	widget_overlay_free(&tv->win, &tv->panel);
	tv->win = widget_overlay_new(&tv->h, &tv->w, lines, cols, &tv->panel);
	clamp(tv);
}

struct textview *
textview_new(const char *title, char *const *text, int lines, int cols)
{
	struct textview *tv = xcalloc(1, sizeof(*tv));
	char *const none[] = { NULL };

	tv->title = xstrdup(title);
	tv->text = lz_strv_dup(text != NULL ? text : none);
	tv->n = (int)lz_strv_len(tv->text);
	tv->match = -1;
	place(tv, lines, cols);
	return tv;
}

void
textview_free(struct textview *tv)
{
	if (tv == NULL)
		return;
	widget_overlay_free(&tv->win, &tv->panel);
	lz_strv_free(tv->text);
	free(tv->title);
	free(tv);
}

void
textview_resize(struct textview *tv, int lines, int cols)
{
	place(tv, lines, cols);
}

void
textview_draw(struct textview *tv, const struct widget_palette *pal)
{
	const struct widget_style *item = &pal->style[THEME_PANEL_ITEM];
	struct widget_style dim = *item;
	char foot[WIDGET_SEARCH_MAX + 96];
	int pg = page(tv);

	dim.attr |= A_DIM;
	for (int y = 0; y < tv->h; y++)
		widget_fill(tv->win, y, 0, tv->w, item);
	widget_box(tv->win, &pal->style[THEME_BORDER]);
	snprintf(foot, sizeof(foot), " %s ", tv->title);
	widget_puts(tv->win, 0, 2, foot, tv->w - 4, &pal->style[THEME_PROMPT]);
	for (int r = 0; r < pg && tv->scroll + r < tv->n; r++) {
		const struct widget_style *st = tv->scroll + r == tv->match ?
		    &pal->style[THEME_PANEL_SELECTED] : item;

		if (st != item)
			widget_fill(tv->win, 1 + r, 1, tv->w - 2, st);
		widget_puts(tv->win, 1 + r, 2, tv->text[tv->scroll + r], tv->w - 4, st);
	}
	if (!tv->searchable && tv->n > pg)
		snprintf(foot, sizeof(foot), "lines %d-%d of %d, Up/Down to scroll, q to close",
			 tv->scroll + 1, tv->scroll + pg, tv->n);
	else if (!tv->searchable)
		snprintf(foot, sizeof(foot), "q to close");
	else if (tv->se.typing)
		snprintf(foot, sizeof(foot), "/%s", tv->se.q);
	else if (tv->missed)
		snprintf(foot, sizeof(foot), "not found: %s  (/ to search again, q to close)", tv->se.q);
	else if (tv->n > pg)
		snprintf(foot, sizeof(foot), "lines %d-%d of %d, Up/Down to scroll, / search%s, q to close",
			 tv->scroll + 1, tv->scroll + pg, tv->n, tv->se.q[0] != '\0' ? " n/N next" : "");
	else
		snprintf(foot, sizeof(foot), "/ search%s, q to close", tv->se.q[0] != '\0' ? " n/N next" : "");
	if (tv->h >= 3)
		widget_puts(tv->win, tv->h - 2, 2, foot, tv->w - 4, &dim);
}

/* The next line holding the query from line from on in direction dir
 * (wrapping), shown at the top of the page; -1: none. */
static int
find(struct textview *tv, int from, int dir)
{
	for (int k = 0; k < tv->n; k++) {
		int i = ((from + dir * k) % tv->n + tv->n) % tv->n;

		if (widget_match(tv->text[i], tv->se.q))
			return i;
	}
	return -1;
}

static void
search(struct textview *tv, int from, int dir)
{
	tv->match = tv->se.q[0] != '\0' && tv->n > 0 ? find(tv, from, dir) : -1;
	tv->missed = tv->se.q[0] != '\0' && tv->match < 0;
	if (tv->match >= 0 && (tv->match < tv->scroll || tv->match >= tv->scroll + page(tv)))
		tv->scroll = tv->match;
}

enum textview_action
textview_handle_key(struct textview *tv, int key)
{
	int pg = page(tv);

	switch (tv->searchable ? widget_search_key(&tv->se, key) : WIDGET_SEARCH_NONE) {
	case WIDGET_SEARCH_EDITED:
		/* as typed: the first line from the top of the page that holds it */
		if (tv->se.typing)
			search(tv, tv->scroll, 1);
		return TEXTVIEW_NONE;
	case WIDGET_SEARCH_DONE:
		search(tv, tv->match >= 0 ? tv->match : tv->scroll, 1);
		clamp(tv);
		return TEXTVIEW_NONE;
	case WIDGET_SEARCH_CANCEL:
		tv->match = -1;
		tv->missed = false;
		return TEXTVIEW_NONE;
	case WIDGET_SEARCH_NONE:
		break;
	}
	if ((key == 'n' || key == 'N') && tv->se.q[0] != '\0') {
		search(tv, (tv->match >= 0 ? tv->match : tv->scroll) + (key == 'n' ? 1 : -1),
		    key == 'n' ? 1 : -1);
		clamp(tv);
		return TEXTVIEW_NONE;
	}
	if (key == 'q' || key == WIDGET_KEY_ESC || widget_key_is_enter(key))
		return TEXTVIEW_CLOSE;
	switch (key) {
	case 'k':
	case WIDGET_KEY_FN(KEY_UP):
		tv->scroll--;
		break;
	case 'j':
	case WIDGET_KEY_FN(KEY_DOWN):
		tv->scroll++;
		break;
	case WIDGET_KEY_FN(KEY_PPAGE):
		tv->scroll -= pg > 1 ? pg - 1 : 1;
		break;
	case ' ':
	case WIDGET_KEY_FN(KEY_NPAGE):
		tv->scroll += pg > 1 ? pg - 1 : 1;
		break;
	case WIDGET_KEY_FN(KEY_HOME):
		tv->scroll = 0;
		break;
	case WIDGET_KEY_FN(KEY_END):
		tv->scroll = tv->n;
		break;
	default:
		break;
	}
	clamp(tv);
	return TEXTVIEW_NONE;
}

void
textview_searchable(struct textview *tv)
{
	tv->searchable = true;
}

int
textview_scroll(const struct textview *tv)
{
	return tv->scroll;
}

WINDOW *
textview_window(const struct textview *tv)
{
	return tv->win;
}
