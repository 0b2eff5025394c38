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
	struct widget_search se;	/* / in this list */
	bool missed;		/* the query is in no item */
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

/* The title on a section's top edge: " Title (n) " after the corner, in
 * the frame's style; "^v" near the right corner when more is above/below. */
static void
draw_title(struct sidelist *sl, enum sidelist_list which, WINDOW *win, int y, int x, int w,
	   const struct widget_style *tst)
{
	struct sl_list *l = &sl->list[which];
	char head[64];
	int hw;

	snprintf(head, sizeof(head), " %s (%zu) ", list_title[which], l->n);
	hw = widget_width(head);
	if (w < 4)
		return;
	widget_puts(win, y, x + 1, head, w - 2, tst);
	/* More below or above: say so at the title's end. */
	if (l->rows > 0 && (l->top > 0 || l->top + (size_t)l->rows < l->n)) {
		const char *more = l->top > 0 && l->top + (size_t)l->rows < l->n ? "^v" :
		    l->top > 0 ? "^" : "v";
		int mw = (int)strlen(more);

		if (w > mw + 3 + hw)
			widget_put(win, y, x + w - mw - 2, more, (size_t)mw, mw, tst, 0, NULL);
	}
}

/* One section in (y, x, h, w): a frame with the title on its top edge and
 * the items inside; h 1 (an empty list) is the top edge alone. framed
 * false (a very short panel): the title row and the items, no frame. */
static void
draw_list(struct sidelist *sl, enum sidelist_list which, WINDOW *win, int y, int x, int h, int w,
	  const struct widget_palette *pal, bool framed)
{
	struct sl_list *l = &sl->list[which];
	bool focus = sl->focused && which == sl->current;
	struct widget_style fst = pal->style[focus ? THEME_PANEL_FOCUS : THEME_BORDER];
	struct widget_style tst = pal->style[focus ? THEME_PANEL_FOCUS : THEME_PANEL_TITLE];
	const struct widget_style *item = &pal->style[THEME_PANEL_ITEM];
	int rows, ix, iw, iy;

	if (h <= 0 || w <= 0)
		return;
	l->y = y;
	l->h = h;
	if (focus)
		tst.attr |= A_REVERSE;
	for (int r = 0; r < h; r++)
		widget_fill(win, y + r, x, w, item);
	if (framed) {
		widget_frame(win, y, x, h, w, focus, &fst);
		rows = h - 2 > 0 ? h - 2 : h == 2 ? 1 : 0;
		ix = x + 1;
		iw = w - 2;
	} else {
		widget_fill(win, y, x, w, &tst);
		rows = h - 1;
		ix = x;
		iw = w;
	}
	iy = y + 1;
	l->rows = rows;
	if (rows > 0) {
		if (l->sel < l->top)
			l->top = l->sel;
		if (l->sel >= l->top + (size_t)rows)
			l->top = l->sel - (size_t)rows + 1;
		if (l->top > 0 && l->top + (size_t)rows > l->n)	/* grown box: fill it */
			l->top = l->n > (size_t)rows ? l->n - (size_t)rows : 0;
	}
	draw_title(sl, which, win, y, framed ? x : x - 1, framed ? w : w + 1, &tst);
	if (l->se.typing || l->se.q[0] != '\0') {
		/* the search on the bottom edge (the title's row in a one-row box) */
		char *q = xasprintf(" /%s%s%s ", l->se.q, l->se.typing ? "_" : "",
		    l->missed ? " (none)" : "");
		int qy = framed && h >= 3 ? y + h - 1 : y, qw = widget_width(q);

		if (qw < w - 4)
			widget_puts(win, qy, x + w - 2 - qw, q, qw, &tst);
		free(q);
	}
	for (int r = 0; r < rows; r++) {
		size_t i = l->top + (size_t)r;
		const struct widget_style *st = item;

		if (i >= l->n)
			continue;
		if (focus && i == l->sel)
			st = &pal->style[THEME_PANEL_SELECTED];
		else if (l->items[i].alert)
			st = &pal->style[THEME_TAB_ALERT];
		widget_fill(win, iy + r, ix, iw, st);
		widget_puts(win, iy + r, ix + 1, l->items[i].text, iw - 1, st);
	}
}

/* Rows for each section of a panel h rows high, by content: an empty list
 * one row (its title on a line), a list with items its items and a frame,
 * sharing what there is a row at a time in panel order (the queue first:
 * it is what needs a decision); rows nobody needs go to the Audit list,
 * else the Egress list, else the first list with items. */
static void
share_rows(const struct sidelist *sl, int h, int out[SIDELIST_N])
{
	int want[SIDELIST_N], used = 0, give;
	bool more = true;

	for (int i = 0; i < SIDELIST_N; i++) {
		size_t n = sl->list[i].n;

		want[i] = n == 0 ? 1 : n > 1000 ? 1002 : (int)n + 2;
		out[i] = n == 0 ? 1 : 3 < want[i] ? 3 : want[i];
		used += out[i];
	}
	/* Too short for even that: shrink the boxes from the bottom up. */
	for (int i = SIDELIST_N - 1; i >= 0 && used > h; i--)
		while (out[i] > 1 && used > h) {
			out[i]--;
			used--;
		}
	while (used < h && more) {
		more = false;
		for (int i = 0; i < SIDELIST_N && used < h; i++)
			if (out[i] < want[i]) {
				out[i]++;
				used++;
				more = true;
			}
	}
	give = h - used;
	if (give > 0) {
		/* the logs grow: spare rows are theirs (a short list keeps its
		 * size when focused, never a big empty box) */
		int to = sl->list[SIDELIST_AUDIT].n > 0 ? SIDELIST_AUDIT :
		    sl->list[SIDELIST_EGRESS].n > 0 ? SIDELIST_EGRESS : -1;

		for (int i = 0; to < 0 && i < SIDELIST_N; i++)
			if (sl->list[i].n > 0)
				to = i;

		if (to >= 0)
			out[to] += give;
	}
}

void
sidelist_draw(struct sidelist *sl, WINDOW *win, int y, int x, int h, int w, const struct widget_palette *pal)
{
	int rows[SIDELIST_N], cy = y;

	if (h <= 0 || w <= 0)
		return;
	for (int i = 0; i < SIDELIST_N; i++)
		sl->list[i].h = 0;
	for (int r = 0; r < h; r++)
		widget_fill(win, y + r, x, w, &pal->style[THEME_PANEL_ITEM]);
	if (h < 6 || w < 8) {
		draw_list(sl, sl->current, win, y, x, h, w, pal, false);
		return;
	}
	share_rows(sl, h, rows);
	for (int i = 0; i < SIDELIST_N && cy < y + h; i++) {
		int lh = rows[i] < y + h - cy ? rows[i] : y + h - cy;

		draw_list(sl, (enum sidelist_list)i, win, cy, x, lh, w, pal, true);
		cy += lh;
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
		if (row > l->y && row <= l->y + l->rows && at < l->n)
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

/* The selection to the next item holding the query, from index from on in
 * direction dir (wrapping); missed when none. */
static void
find_item(struct sl_list *l, size_t from, int dir)
{
	l->missed = l->se.q[0] != '\0';
	for (size_t k = 0; l->n > 0 && k < l->n; k++) {
		size_t i = dir > 0 ? (from + k) % l->n : (from % l->n + l->n - k) % l->n;

		if (widget_match(l->items[i].text, l->se.q)) {
			l->sel = i;
			l->missed = false;
			return;
		}
	}
}

bool
sidelist_searching(const struct sidelist *sl)
{
	return sl->list[sl->current].se.typing;
}

enum sidelist_action
sidelist_handle_key(struct sidelist *sl, int key)
{
	struct sl_list *l = &sl->list[sl->current];
	bool queue = sl->current == SIDELIST_QUEUE && l->n > 0;

	switch (widget_search_key(&l->se, key)) {
	case WIDGET_SEARCH_EDITED:
		if (l->se.typing)	/* as typed: from the selection on */
			find_item(l, l->sel, 1);
		return SIDELIST_NONE;
	case WIDGET_SEARCH_DONE:
		return SIDELIST_NONE;
	case WIDGET_SEARCH_CANCEL:
		l->missed = false;
		return SIDELIST_NONE;
	case WIDGET_SEARCH_NONE:
		break;
	}
	if ((key == 'n' || key == 'N') && l->se.q[0] != '\0' && l->n > 0) {
		find_item(l, key == 'n' ? (l->sel + 1) % l->n : (l->sel + l->n - 1) % l->n,
		    key == 'n' ? 1 : -1);
		return SIDELIST_NONE;
	}
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
