/* tabbar.c - tab titles in one row, scrolled to keep the active tab whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tabbar.h"
#include "xmalloc.h"

struct tabbar_entry {
	char *title;		/* without the padding blanks */
	bool alert;
	bool flash;
	size_t mark_len;	/* bytes of the mark that starts the title */
	int width;		/* columns, padding included */
	int start, end;		/* columns drawn at the last draw, start = -1 when hidden */
};

struct tabbar {
	struct tabbar_entry *tabs;
	size_t n;
	size_t active;
	int x0;			/* window column of the last draw */
};

struct tabbar *
tabbar_new(void)
{
	return xcalloc(1, sizeof(struct tabbar));
}

static void
clear_tabs(struct tabbar *tb)
{
	for (size_t i = 0; i < tb->n; i++)
		free(tb->tabs[i].title);
	free(tb->tabs);
	tb->tabs = NULL;
	tb->n = 0;
}

void
tabbar_free(struct tabbar *tb)
{
	if (tb == NULL)
		return;
	clear_tabs(tb);
	free(tb);
}

/* Last path component of a workspace, "/" for the root. */
static char *
base_name(const char *path)
{
	size_t len = strlen(path);
	const char *b;

	while (len > 1 && path[len - 1] == '/')
		len--;
	b = memrchr(path, '/', len);
	if (b == NULL || len == 1)
		return xstrndup(path, len);
	return xstrndup(b + 1, len - (size_t)(b + 1 - path));
}

void
tabbar_set(struct tabbar *tb, const struct tabbar_tab *tabs, size_t n, size_t active)
{
	clear_tabs(tb);
	tb->tabs = xcalloc(n > 0 ? n : 1, sizeof(*tb->tabs));
	tb->n = n;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *ws = base_name(tabs[i].workspace != NULL ? tabs[i].workspace : "");
		const char *st = tabs[i].state != NULL ? tabs[i].state : "";
		const char *mark = tabs[i].mark != NULL && *tabs[i].mark != '\0' ? tabs[i].mark :
		    tabs[i].alert ? "!" : "";
		int w;

		tb->tabs[i].title = xasprintf("%s%zu:%s%s%s%s%s", mark, i,
					      tabs[i].profile != NULL ? tabs[i].profile : "",
					      *ws != '\0' ? " " : "", ws, *st != '\0' ? " " : "", st);
		tb->tabs[i].alert = tabs[i].alert || *mark != '\0';
		tb->tabs[i].flash = tabs[i].flash;
		tb->tabs[i].mark_len = strlen(mark);
		w = widget_width(tb->tabs[i].title);
		tb->tabs[i].width = (w < TABBAR_TITLE_MAX ? w : TABBAR_TITLE_MAX) + 2;
		tb->tabs[i].start = -1;
	}
	tb->active = n == 0 ? 0 : active < n ? active : n - 1;
}

size_t
tabbar_active(const struct tabbar *tb)
{
	return tb->active;
}

/* Columns tabs [first, last] take, one blank between neighbours. */
static int
span(const struct tabbar *tb, size_t first, size_t last)
{
	int w = 0;

	for (size_t i = first; i <= last; i++)
		w += tb->tabs[i].width + (i > first ? 1 : 0);
	return w;
}

static void
draw_tab(const struct tabbar *tb, size_t i, WINDOW *win, int y, int col, int avail,
	 const struct widget_palette *pal)
{
	const struct tabbar_entry *e = &tb->tabs[i];
	const struct widget_style *st;
	struct widget_style bold, flash;
	int w = e->width < avail ? e->width : avail, used;

	if (i == tb->active)
		st = &pal->style[THEME_TAB_ACTIVE];
	else if (e->alert)
		st = &pal->style[THEME_TAB_ALERT];
	else
		st = &pal->style[THEME_TAB_INACTIVE];
	if (e->flash) {
		flash = *st;
		flash.attr |= A_REVERSE | A_BOLD;
		st = &flash;
	}
	widget_fill(win, y, col, w, st);
	used = 0;
	if (e->alert && e->mark_len > 0) {
		/* The mark keeps the alert style on the active tab too. */
		bold = pal->style[THEME_TAB_ALERT];
		bold.attr |= A_BOLD;
		used = widget_put(win, y, col + 1, e->title, e->mark_len, w - 2, &bold, 0, NULL);
	}
	widget_put(win, y, col + 1 + used, e->title + e->mark_len * (used > 0),
		   strlen(e->title + e->mark_len * (used > 0)), w - 2 - used, st,
		   WIDGET_PUT_ELLIPSIS, NULL);
}

void
tabbar_draw(struct tabbar *tb, WINDOW *win, int y, int x, int width, const struct widget_palette *pal)
{
	const struct widget_style *bg = &pal->style[THEME_TAB_INACTIVE];
	size_t first = 0, i;
	int col, left;

	tb->x0 = x;
	for (i = 0; i < tb->n; i++)
		tb->tabs[i].start = tb->tabs[i].end = -1;
	if (width <= 0)
		return;
	widget_fill(win, y, x, width, bg);
	if (tb->n == 0)
		return;
	/* Scroll right until the active tab fits after a "<" marker. */
	while (first < tb->active && (first > 0 ? 2 : 0) + span(tb, first, tb->active) > width - 1)
		first++;
	col = 0;
	if (first > 0) {
		widget_put(win, y, x, "<", 1, 1, bg, 0, NULL);
		col = 2;
	}
	for (i = first; i < tb->n; i++) {
		left = width - col;
		if (tb->tabs[i].width > left - (i + 1 < tb->n ? 2 : 0) && i != first) {
			widget_put(win, y, x + width - 1, ">", 1, 1, bg, 0, NULL);
			break;
		}
		draw_tab(tb, i, win, y, x + col, left, pal);
		tb->tabs[i].start = col;
		tb->tabs[i].end = col + (tb->tabs[i].width < left ? tb->tabs[i].width : left);
		col = tb->tabs[i].end + 1;
		if (col >= width)
			break;
	}
}

int
tabbar_hit(const struct tabbar *tb, int col)
{
	col -= tb->x0;
	for (size_t i = 0; i < tb->n; i++)
		if (tb->tabs[i].start >= 0 && col >= tb->tabs[i].start && col < tb->tabs[i].end)
			return (int)i;
	return -1;
}

enum tabbar_action
tabbar_handle_key(struct tabbar *tb, int key)
{
	if (tb->n == 0)
		return TABBAR_NONE;
	if (key == WIDGET_KEY_FN(KEY_LEFT) || key == 'h')
		return TABBAR_PREV;
	if (key == WIDGET_KEY_FN(KEY_RIGHT) || key == 'l')
		return TABBAR_NEXT;
	return TABBAR_NONE;
}
