/* term-priv.h - struct term, shared by term.c (the terminal) and
 * term-feed.c (feeding it, with the plain-line fast path). Private to vterm/.
 */
#ifndef LZ_TERM_PRIV_H
#define LZ_TERM_PRIV_H

#include "term-scan.h"	/* and term.h before this header: it is term.c's own */

struct term {
	VTerm *vt;
	VTermScreen *vs;
	VTermState *st;
	int rows, cols;
	struct term_sb *sb;
	size_t offset;			/* view scrolled back by this many lines */
	int dirty_start, dirty_end;	/* view rows; start == end: clean */
	unsigned events;
	unsigned long bells;
	struct term_cursor cursor;
	bool alt, reverse;
	int mouse;
	char title[TERM_TITLE_MAX + 1];
	char *out;
	size_t out_len, out_cap;
	bool replies;			/* keep replies made while feeding */
	bool in_key;			/* output now is a key encoding */
	struct term_scan scan;		/* what libvterm has been given */
	VTermScreenCell blank;
	bool fast;			/* plain lines may bypass libvterm */
	unsigned long pushes;		/* sb_pushline calls from libvterm */
	int sb_skip;			/* libvterm pushes already made by fast_run */
	unsigned long skipped;		/* rows fast_run pushed itself */
	VTermScreenCell *row;		/* scratch row for fast_run */
	int row_cap;
	char *paint;			/* bytes fast_paint feeds */
	size_t paint_len, paint_cap;
	char *held;			/* term_feed_later's bytes, not fed yet */
	size_t held_len, held_cap;
};

/* Widen the dirty row range by screen rows [start, end) (term-view.c). */
void term_dirty_rows(struct term *t, int start, int end);
/* Push a row to the scrollback as libvterm's sb_pushline does, keeping a
 * scrolled-back view on its lines (user: the struct term). */
void term_sb_pushed(void *user, int cols, const VTermScreenCell *cells);
/* The same for a row of t->cols cells of tmpl holding text (term_sb_push_text). */
void term_sb_pushed_text(struct term *t, const unsigned char *text, size_t n,
    const VTermScreenCell *tmpl);

#endif
