/* term-view.c - what a drawer reads of one terminal: the dirty row range in
 * view coordinates, the cells, and the scrollback pushes that keep a
 * scrolled-back view on the same lines while output goes on. term.c (the
 * libvterm callbacks) and term-feed.c (the fast path) both write through here,
 * so neither calls the other back. */
#include <string.h>

#include "term.h"
#include "term-priv.h"
#include "term-sb.h"

/* Widen the dirty range by rows [start, end) of the screen (view coordinates
 * follow the scroll offset). */
void
term_dirty_rows(struct term *t, int start, int end)
{
	long s = (long)start + (long)t->offset, e = (long)end + (long)t->offset;

	if (s < 0)
		s = 0;
	if (e > t->rows)
		e = t->rows;
	if (s >= e)
		return;
	if (t->dirty_start == t->dirty_end) {
		t->dirty_start = (int)s;
		t->dirty_end = (int)e;
		return;
	}
	if (s < t->dirty_start)
		t->dirty_start = (int)s;
	if (e > t->dirty_end)
		t->dirty_end = (int)e;
}

bool
term_dirty(const struct term *t, int *start, int *end)
{
	if (t->dirty_start >= t->dirty_end)
		return false;
	*start = t->dirty_start;
	*end = t->dirty_end;
	return true;
}

void
term_dirty_clear(struct term *t)
{
	t->dirty_start = t->dirty_end = 0;
}

void
term_dirty_all(struct term *t)
{
	t->dirty_start = 0;
	t->dirty_end = t->rows;
}

/* Keep a scrolled-back view on the same lines while output goes on. */
static void
sb_after_push(struct term *t, bool dropped)
{
	if (t->offset > 0) {
		if (!dropped)
			t->offset++;
		else
			term_dirty_all(t);
	}
}

void
term_sb_pushed(void *user, int cols, const VTermScreenCell *cells)
{
	struct term *t = user;

	sb_after_push(t, term_sb_push(t->sb, cols, cells, &t->blank));
}

void
term_sb_pushed_text(struct term *t, const unsigned char *text, size_t n,
    const VTermScreenCell *tmpl)
{
	sb_after_push(t, term_sb_push_text(t->sb, t->cols, text, n, tmpl, &t->blank));
}

bool
term_cell(const struct term *t, int row, int col, VTermScreenCell *out)
{
	memset(out, 0, sizeof(*out));
	if (row < 0 || row >= t->rows || col < 0 || col >= t->cols)
		return false;
	return vterm_screen_get_cell(t->vs, (VTermPos){ .row = row, .col = col }, out) != 0;
}
