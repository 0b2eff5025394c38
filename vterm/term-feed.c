/* term-feed.c - bytes into the terminal (see term.h), held back on request
 * and fed in big pieces, and the fast path for plain lines that scroll off
 * (term-fast.h does the planning and the rows).
 *
 * Theory of operation: fast_feed looks for a CR LF followed by a run of plain
 * lines long enough to scroll more than a screen. It feeds libvterm up to
 * that LF and watches the LF scroll a full-screen region (libvterm pushes its
 * top row, the cursor stays at column 0 of the bottom row: margins are the
 * whole screen, the bottom row is freshly erased with the current pen). Then
 * it pushes the screen's other rows and the skipped lines' rows to the
 * scrollback itself, and feeds libvterm the run's last lines, which scroll
 * the whole screen again: libvterm's pushes of the old rows are dropped
 * (sb_skip). Screen and scrollback end as libvterm alone leaves them; the
 * differential tests (tests/fuzz/term-diff.h) hold it to that.
 */
#include <stdio.h>
#include <string.h>

#include "term.h"
#include "term-fast.h"
#include "term-priv.h"
#include "term-sb.h"
#include "xmalloc.h"

#define TERM_FAST_TRIES	64	/* lines a run may take to reach the bottom row */

void
term_set_fast(struct term *t, bool on)
{
	t->fast = on;
}

unsigned long
term_fast_skipped(const struct term *t)
{
	return t->skipped;
}

static void
feed(struct term *t, const unsigned char *p, size_t len)
{
	if (len > 0)
		term_scan_feed(&t->scan, p, len);
}

/* 1 when the cursor sits at column 0 of the bottom row of the primary
 * screen, libvterm's size is ours and plain ASCII prints as itself; -1 when
 * all of that holds but the cursor is on a row above; 0 otherwise. */
static int
fast_ready(struct term *t)
{
	VTermPos pos;
	int rows, cols;

	vterm_get_size(t->vt, &rows, &cols);
	vterm_state_get_cursorpos(t->st, &pos);
	if (t->alt || rows != t->rows || cols != t->cols || !term_scan_plain(&t->scan) || pos.col != 0)
		return 0;
	return pos.row == rows - 1 ? 1 : pos.row >= 0 && pos.row < rows - 1 ? -1 : 0;
}

/* Rows fast_run pushes to the scrollback itself: the first drop of them
 * are not stored, the ring being too small to keep them. */
struct fast_push {
	struct term *t;
	const VTermScreenCell *tmpl;	/* the erased cell of the run's pen */
	size_t drop;
};

static void
fast_push_row(void *arg, const unsigned char *text, size_t n)
{
	struct fast_push *fp = arg;

	if (fp->drop > 0)
		fp->drop--;
	else
		term_sb_pushed_text(fp->t, text, n, fp->tmpl);
}

/* Of n rows about to go to the scrollback in a row, those the ring would
 * overwrite before the run ends. A scrolled-back view ends the same: its
 * offset grows until the ring is full either way, and it is redrawn. */
static size_t
fast_drop(const struct term *t, size_t n)
{
	size_t max = term_sb_max(t->sb);

	return n > max ? n - max : 0;
}

struct paint {
	struct fast_push *fp;
	size_t push, i;		/* rows pushed, of which push go to the scrollback */
};

static void
paint_put(struct term *t, const char *s, size_t n)
{
	if (t->paint_len + n > t->paint_cap) {
		t->paint_cap = (t->paint_len + n) * 2;
		t->paint = xrealloc(t->paint, t->paint_cap);
	}
	memcpy(t->paint + t->paint_len, s, n);
	t->paint_len += n;
}

/* A row of the run: into the scrollback, or, for the last rows - 1, drawn
 * on screen row i + 1 of the screen the last LF will scroll. */
static void
paint_row(void *arg, const unsigned char *text, size_t n)
{
	struct paint *pt = arg;
	struct term *t = pt->fp->t;
	char cup[32];

	if (pt->i++ < pt->push) {
		fast_push_row(pt->fp, text, n);
		return;
	}
	if (n == 0)
		return;
	paint_put(t, cup, (size_t)snprintf(cup, sizeof cup, "\x1b[%zu;1H", pt->i - pt->push + 1));
	paint_put(t, (const char *)text, n);
}

/* The whole run (rows rows), its last line not empty: every row but the
 * last rows - 1 goes to the scrollback; those are drawn on an erased screen
 * one row lower (no scrolling: ED and CUP, the region being the whole
 * screen), the last one on the bottom row as libvterm would have left it
 * (same last character, same position for a combining mark), and a CR LF
 * scrolls once (libvterm's push of the erased top row dropped). */
static void
fast_paint(struct term *t, const unsigned char *run, const struct term_fast_plan *pl,
    size_t rows, struct fast_push *fp)
{
	struct paint pt = { .fp = fp, .push = rows - (size_t)(t->rows - 1) };

	t->paint_len = 0;
	paint_put(t, "\x1b[2J", 4);
	term_fast_rows(run, pl->run_end, t->cols, paint_row, &pt);
	paint_put(t, "\r\n", 2);
	t->skipped += pt.push;
	t->sb_skip = 1;
	feed(t, (const unsigned char *)t->paint, t->paint_len);
	t->sb_skip = 0;
}

/* p[0, cr] ends in the CR of a CR LF, and pl plans the plain lines after
 * the LF. Feed up to the LF, and when that LF is seen to scroll a
 * full-screen region (libvterm pushed the top row, the cursor stayed on the
 * bottom row: the region is the whole screen and the bottom row is freshly
 * erased with the current pen), push the rows libvterm would push, skip the
 * planned lines and feed the rest of the run. Returns the bytes consumed;
 * *again is set when the cursor was above the bottom row (a cat on a fresh
 * screen): only the LF is fed then, so the next line may try again. */
static size_t
fast_run(struct term *t, const unsigned char *p, size_t cr, const struct term_fast_plan *pl,
    bool *again)
{
	const unsigned char *run = p + cr + 2;
	struct fast_push fp = { .t = t };
	unsigned long pushes;
	VTermScreenCell tmpl;
	size_t rows = 0;
	bool paint;
	int ready;

	feed(t, p, cr + 1);
	ready = fast_ready(t);
	*again = ready < 0;
	if (ready < 0) {
		feed(t, p + cr + 1, 1);
		return cr + 2;
	}
	if (ready == 0) {
		feed(t, p + cr + 1, 1 + pl->run_end);
		return cr + 2 + pl->run_end;
	}
	pushes = t->pushes;
	feed(t, p + cr + 1, 1);
	term_cell(t, t->rows - 1, 0, &tmpl);
	if (fast_ready(t) != 1 || t->pushes != pushes + 1 ||
	    tmpl.chars[0] != 0 || tmpl.width != 1 || tmpl.attrs.dwl || tmpl.attrs.dhl) {
		feed(t, run, pl->run_end);
		return cr + 2 + pl->run_end;
	}
	fp.tmpl = &tmpl;
	paint = pl->run_end >= 3 && run[pl->run_end - 3] != '\n';
	if (paint)
		rows = term_fast_count(run, pl->run_end, t->cols);
	/* The screen's rows above the cursor, then the run's: a ring smaller
	 * than that keeps only the last ones. */
	fp.drop = fast_drop(t, (size_t)(t->rows - 1) +
	    (paint ? rows - (size_t)(t->rows - 1) : pl->skip_rows));
	if (t->row_cap < t->cols) {
		t->row = xrealloc(t->row, (size_t)t->cols * sizeof(*t->row));
		t->row_cap = t->cols;
	}
	/* The screen's rows above the cursor scroll off first; libvterm pushes
	 * them again when it scrolls through the rest of the run: dropped. */
	for (int r = 0; r < t->rows - 1; r++) {
		if (fp.drop > 0) {
			fp.drop--;
			continue;
		}
		for (int c = 0; c < t->cols; c++)
			term_cell(t, r, c, &t->row[c]);
		term_sb_pushed(t, t->cols, t->row);
	}
	if (paint) {
		fast_paint(t, run, pl, rows, &fp);
		return cr + 2 + pl->run_end;
	}
	term_fast_rows(run, pl->skip_end, t->cols, fast_push_row, &fp);
	t->skipped += pl->skip_rows;
	t->sb_skip = t->rows - 1;
	feed(t, run + pl->skip_end, pl->run_end - pl->skip_end);
	t->sb_skip = 0;		/* the plan makes libvterm push them all */
	return cr + 2 + pl->run_end;
}

/* Feed buf, letting runs of plain lines that scroll off bypass libvterm
 * (see term-fast.h); the screen and scrollback end up as libvterm alone
 * would leave them. */
static void
fast_feed(struct term *t, const unsigned char *p, size_t len)
{
	size_t done = 0, from = 1;
	struct term_fast_plan pl;
	int tries = 0;		/* lines fed one by one towards the bottom row */
	bool again;

	while (from < len) {
		const unsigned char *lf = memchr(p + from, '\n', len - from);
		size_t i;

		if (lf == NULL)
			break;
		i = (size_t)(lf - p);
		from = i + 1;
		if (p[i - 1] != '\r')
			continue;
		if (!term_fast_plan(p + i + 1, len - i - 1, t->rows, t->cols, &pl) ||
		    tries > TERM_FAST_TRIES) {
			/* A shorter run after a later CR LF of this run fails too. */
			from = i + 1 + pl.run_end;
			tries = 0;
			continue;
		}
		done += fast_run(t, p + done, i - 1 - done, &pl, &again);
		tries = again ? tries + 1 : 0;
		from = done + 1;
	}
	feed(t, p + done, len - done);
}

static void
feed_now(struct term *t, const char *buf, size_t len)
{
	if (len == 0)
		return;
	if (t->fast && len > (size_t)t->rows * 4)
		fast_feed(t, (const unsigned char *)buf, len);
	else
		feed(t, (const unsigned char *)buf, len);
	vterm_screen_flush_damage(t->vs);
}

void
term_feed(struct term *t, const char *buf, size_t len)
{
	term_flush(t);
	feed_now(t, buf, len);
}

void
term_feed_later(struct term *t, const char *buf, size_t len)
{
	size_t need = t->held_len + len;

	if (need > t->held_cap) {
		t->held_cap = need > TERM_HOLD_MAX ? need : TERM_HOLD_MAX;
		t->held = xrealloc(t->held, t->held_cap);
	}
	memcpy(t->held + t->held_len, buf, len);
	t->held_len = need;
	if (t->held_len >= TERM_HOLD_MAX)
		term_flush(t);
}

bool
term_flush(struct term *t)
{
	size_t len = t->held_len;

	if (len == 0) {
		/* Output paused: give the buffer back. */
		free(t->held);
		t->held = NULL;
		t->held_cap = 0;
		return false;
	}
	t->held_len = 0;
	feed_now(t, t->held, len);
	return true;
}
