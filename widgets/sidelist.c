/* sidelist.c - the scrolling lists of the side panel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sidelist.h"
#include "xmalloc.h"

struct sl_item {
	char *id;
	char *text;
	bool alert;
};

struct sl_list {
	struct sl_item *items;
	size_t n, cap;
	size_t sel, top;
	int rows;		/* item rows at the last draw, for PgUp/PgDn */
	int y, h;		/* where the last draw put it (h 0: not drawn) */
};

struct sidelist {
	struct sl_list list[SIDELIST_N];
	enum sidelist_list current;
	bool focused;
};

static const char *const list_title[SIDELIST_N] = {
	[SIDELIST_QUEUE] = "Escalations",
	[SIDELIST_AUDIT] = "Audit",
	[SIDELIST_EGRESS] = "Egress",
	[SIDELIST_REVIEW] = "Review",
};

struct sidelist *
sidelist_new(void)
{
	struct sidelist *sl = xcalloc(1, sizeof(*sl));

	for (int i = 0; i < SIDELIST_N; i++)
		sl->list[i].rows = 10;
	return sl;
}

static void
item_clear(struct sl_item *it)
{
	free(it->id);
	free(it->text);
}

static void
list_clear(struct sl_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		item_clear(&l->items[i]);
	l->n = 0;
}

void
sidelist_free(struct sidelist *sl)
{
	if (sl == NULL)
		return;
	for (int i = 0; i < SIDELIST_N; i++) {
		list_clear(&sl->list[i]);
		free(sl->list[i].items);
	}
	free(sl);
}

static void
item_copy(struct sl_item *dst, const struct sidelist_item *src)
{
	dst->id = src->id != NULL ? xstrdup(src->id) : NULL;
	dst->text = xstrdup(src->text != NULL ? src->text : "");
	dst->alert = src->alert;
}

static void
list_reserve(struct sl_list *l, size_t n)
{
	if (n <= l->cap)
		return;
	l->cap = n < 16 ? 16 : n;
	l->items = xreallocarray(l->items, l->cap, sizeof(*l->items));
}

void
sidelist_set(struct sidelist *sl, enum sidelist_list which, const struct sidelist_item *items, size_t n)
{
	struct sl_list *l = &sl->list[which];
	_cleanup_free_ char *keep = NULL;
	size_t sel = l->sel;
	/* On the last item: follow new ones like tail -f; scrolled back: stay. */
	bool follow = l->n == 0 || l->sel == l->n - 1;

	if (l->n > 0 && l->items[l->sel].id != NULL)
		keep = xstrdup(l->items[l->sel].id);
	else if (follow)
		sel = n > 0 ? n - 1 : 0;
	list_clear(l);
	list_reserve(l, n);
	for (size_t i = 0; i < n; i++) {
		item_copy(&l->items[i], &items[i]);
		if (keep != NULL && l->items[i].id != NULL && strcmp(keep, l->items[i].id) == 0)
			sel = i;
	}
	l->n = n;
	l->sel = n == 0 ? 0 : sel < n ? sel : n - 1;
	if (l->top > l->sel)
		l->top = l->sel;
}

void
sidelist_append(struct sidelist *sl, enum sidelist_list which, const struct sidelist_item *item)
{
	struct sl_list *l = &sl->list[which];
	bool follow = l->n == 0 || l->sel == l->n - 1;

	if (l->n == SIDELIST_LOG_MAX) {
		item_clear(&l->items[0]);
		memmove(&l->items[0], &l->items[1], (l->n - 1) * sizeof(*l->items));
		l->n--;
		if (l->sel > 0)
			l->sel--;
		if (l->top > 0)
			l->top--;
	}
	if (l->n == l->cap)
		list_reserve(l, l->cap == 0 ? 16 : 2 * l->cap);
	item_copy(&l->items[l->n++], item);
	if (follow)
		l->sel = l->n - 1;
}

size_t
sidelist_count(const struct sidelist *sl, enum sidelist_list which)
{
	return sl->list[which].n;
}

void
sidelist_set_focus(struct sidelist *sl, bool focused)
{
	sl->focused = focused;
}

bool
sidelist_focused(const struct sidelist *sl)
{
	return sl->focused;
}

void
sidelist_set_current(struct sidelist *sl, enum sidelist_list which)
{
	sl->current = which;
}

enum sidelist_list
sidelist_current(const struct sidelist *sl)
{
	return sl->current;
}

int
sidelist_selected(const struct sidelist *sl, enum sidelist_list which)
{
	return sl->list[which].n == 0 ? -1 : (int)sl->list[which].sel;
}

void
sidelist_select(struct sidelist *sl, enum sidelist_list which, size_t index)
{
	struct sl_list *l = &sl->list[which];

	if (l->n > 0)
		l->sel = index < l->n ? index : l->n - 1;
}

const char *
sidelist_selected_id(const struct sidelist *sl, enum sidelist_list which)
{
	const struct sl_list *l = &sl->list[which];

	return l->n == 0 ? NULL : l->items[l->sel].id;
}

/* Title row and the item rows of one list in (y, x, h, w). */
static void
draw_list(struct sidelist *sl, enum sidelist_list which, WINDOW *win, int y, int x, int h, int w,
	  const struct widget_palette *pal)
{
	struct sl_list *l = &sl->list[which];
	struct widget_style title = pal->style[THEME_PANEL_TITLE];
	const struct widget_style *item = &pal->style[THEME_PANEL_ITEM];
	char head[64];
	int rows = h - 1;

	if (h <= 0 || w <= 0)
		return;
	l->y = y;
	l->h = h;
	if (sl->focused && which == sl->current)
		title.attr |= A_REVERSE;
	snprintf(head, sizeof(head), "%s (%zu)", list_title[which], l->n);
	widget_fill(win, y, x, w, &title);
	widget_puts(win, y, x, head, w, &title);
	if (rows <= 0)
		return;
	l->rows = rows;
	if (l->sel < l->top)
		l->top = l->sel;
	if (l->sel >= l->top + (size_t)rows)
		l->top = l->sel - (size_t)rows + 1;
	for (int r = 0; r < rows; r++) {
		size_t i = l->top + (size_t)r;
		const struct widget_style *st = item;

		widget_fill(win, y + 1 + r, x, w, item);
		if (i >= l->n) {
			if (l->n == 0 && r == 0) {
				struct widget_style dim = *item;

				dim.attr |= A_DIM;
				widget_puts(win, y + 1, x + 1, "(none)", w - 1, &dim);
			}
			continue;
		}
		if (sl->focused && which == sl->current && i == l->sel)
			st = &pal->style[THEME_PANEL_SELECTED];
		else if (l->items[i].alert)
			st = &pal->style[THEME_TAB_ALERT];
		widget_fill(win, y + 1 + r, x, w, st);
		widget_puts(win, y + 1 + r, x + 1, l->items[i].text, w - 1, st);
	}
	/* More below or above: say so at the title's end. */
	if (l->top > 0 || l->top + (size_t)rows < l->n) {
		const char *more = l->top > 0 && l->top + (size_t)rows < l->n ? "^v" : l->top > 0 ? "^" : "v";
		int mw = (int)strlen(more);

		if (w > mw + 1 + widget_width(head))
			widget_put(win, y, x + w - mw, more, (size_t)mw, mw, &title, 0, NULL);
	}
}

void
sidelist_draw(struct sidelist *sl, WINDOW *win, int y, int x, int h, int w, const struct widget_palette *pal)
{
	struct widget_style border = pal->style[sl->focused ? THEME_PROMPT : THEME_BORDER];
	int cy = y;

	if (h <= 0 || w <= 0)
		return;
	for (int i = 0; i < SIDELIST_N; i++)
		sl->list[i].h = 0;
	if (sl->focused)
		border.attr |= A_BOLD;
	widget_vline(win, y, x, h, sl->focused, &border);
	x++;
	w--;
	if (h < 6) {
		draw_list(sl, sl->current, win, y, x, h, w, pal);
		return;
	}
	{
		/* Review (when it has lines): at the bottom, at most a quarter. */
		size_t nr = sl->list[SIDELIST_REVIEW].n;
		int rh = nr > 0 ? 1 + (int)nr : 0, n = SIDELIST_N - 1;

		if (rh > h / 4)
			rh = h / 4;
		for (int i = 0; i < n; i++) {
			/* The queue gets the odd row: it is what needs a decision. */
			int lh = (h - rh) / n + (i < (h - rh) % n ? 1 : 0);

			draw_list(sl, (enum sidelist_list)i, win, cy, x, lh, w, pal);
			cy += lh;
		}
		if (rh > 0)
			draw_list(sl, SIDELIST_REVIEW, win, cy, x, rh, w, pal);
	}
}

bool
sidelist_hit(const struct sidelist *sl, int row, enum sidelist_list *which, long *index)
{
	for (int i = 0; i < SIDELIST_N; i++) {
		const struct sl_list *l = &sl->list[i];
		size_t at;

		if (l->h <= 0 || row < l->y || row >= l->y + l->h)
			continue;
		*which = (enum sidelist_list)i;
		*index = -1;
		at = l->top + (size_t)(row - l->y - 1);
		if (row > l->y && at < l->n)
			*index = (long)at;
		return true;
	}
	return false;
}

void
sidelist_scroll(struct sidelist *sl, enum sidelist_list which, long delta)
{
	struct sl_list *l = &sl->list[which];
	size_t rows = l->rows > 0 ? (size_t)l->rows : 1, last = l->n > rows ? l->n - rows : 0;
	long top = (long)l->top + delta;

	l->top = top < 0 ? 0 : (size_t)top > last ? last : (size_t)top;
	/* The selection is kept in view (the draw would move the view to it). */
	if (l->sel < l->top)
		l->sel = l->top;
	if (l->n > 0 && l->sel >= l->top + rows)
		l->sel = l->top + rows - 1;
}

static void
move_sel(struct sl_list *l, long delta)
{
	long s = (long)l->sel + delta;

	if (l->n == 0)
		return;
	if (s < 0)
		s = 0;
	if (s >= (long)l->n)
		s = (long)l->n - 1;
	l->sel = (size_t)s;
}

enum sidelist_action
sidelist_handle_key(struct sidelist *sl, int key)
{
	struct sl_list *l = &sl->list[sl->current];
	bool queue = sl->current == SIDELIST_QUEUE && l->n > 0;

	switch (key) {
	case 'k':
	case WIDGET_KEY_FN(KEY_UP):
		move_sel(l, -1);
		break;
	case 'j':
	case WIDGET_KEY_FN(KEY_DOWN):
		move_sel(l, 1);
		break;
	case WIDGET_KEY_FN(KEY_PPAGE):
		move_sel(l, -(long)(l->rows > 1 ? l->rows - 1 : 1));
		break;
	case WIDGET_KEY_FN(KEY_NPAGE):
		move_sel(l, l->rows > 1 ? l->rows - 1 : 1);
		break;
	case 'g':
	case WIDGET_KEY_FN(KEY_HOME):
		move_sel(l, -(long)l->n);
		break;
	case 'G':
	case WIDGET_KEY_FN(KEY_END):
		move_sel(l, (long)l->n);
		break;
	case WIDGET_KEY_TAB:
		sl->current = (enum sidelist_list)((sl->current + 1) % SIDELIST_N);
		break;
	case WIDGET_KEY_FN(KEY_BTAB):
		sl->current = (enum sidelist_list)((sl->current + SIDELIST_N - 1) % SIDELIST_N);
		break;
	case 'a':
	case 'A':
		return queue ? SIDELIST_OPEN : SIDELIST_NONE;
	case 'q':
	case 'Q':
		return queue ? SIDELIST_QUIT : SIDELIST_NONE;
	case 'd':
	case 'D':
		return queue ? SIDELIST_DENY : SIDELIST_NONE;
	case 'e':
	case 'E':
		return queue ? SIDELIST_EDIT : SIDELIST_NONE;
	case WIDGET_KEY_ESC:
		return SIDELIST_UNFOCUS;
	default:
		if (widget_key_is_enter(key) && queue)
			return SIDELIST_OPEN;
		break;
	}
	return SIDELIST_NONE;
}
