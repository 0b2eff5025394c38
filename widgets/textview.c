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
	char foot[96];
	int pg = page(tv);

	dim.attr |= A_DIM;
	for (int y = 0; y < tv->h; y++)
		widget_fill(tv->win, y, 0, tv->w, item);
	widget_box(tv->win, &pal->style[THEME_BORDER]);
	snprintf(foot, sizeof(foot), " %s ", tv->title);
	widget_puts(tv->win, 0, 2, foot, tv->w - 4, &pal->style[THEME_PROMPT]);
	for (int r = 0; r < pg && tv->scroll + r < tv->n; r++)
		widget_puts(tv->win, 1 + r, 2, tv->text[tv->scroll + r], tv->w - 4, item);
	if (tv->n > pg)
		snprintf(foot, sizeof(foot), "lines %d-%d of %d, Up/Down to scroll, q to close", tv->scroll + 1,
			 tv->scroll + pg, tv->n);
	else
		snprintf(foot, sizeof(foot), "q to close");
	if (tv->h >= 3)
		widget_puts(tv->win, tv->h - 2, 2, foot, tv->w - 4, &dim);
}

enum textview_action
textview_handle_key(struct textview *tv, int key)
{
	int pg = page(tv);

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
