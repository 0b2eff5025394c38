/* term-fast.h - plain lines that only pass through on their way to the
 * scrollback, found and cut into rows without libvterm.
 *
 * A `cat` of a big file scrolls most of its lines off the top before the
 * screen is drawn again; libvterm 0.1.4 memmoves the whole screen for each
 * of them. term.c asks term_fast_plan() which whole lines of a run of plain
 * lines (printable ASCII, each ended by CR LF) can go straight into the
 * scrollback ring, and term_fast_rows() cuts them into the rows libvterm
 * would push. Pure functions, no state.
 */
#ifndef LZ_TERM_FAST_H
#define LZ_TERM_FAST_H

#include <stdbool.h>
#include <stddef.h>

struct term_fast_plan {
	size_t skip_end;	/* p[0, skip_end): lines only the scrollback sees */
	size_t run_end;		/* p[skip_end, run_end): lines libvterm must see */
	size_t skip_rows;	/* rows the skipped lines fill */
};

/* Plan the run of plain lines at p[0, len) on a screen rows x cols with
 * autowrap on: the lines after skip_end fill at least rows - 1 rows and hold
 * the run's last non-empty line, the skipped ones at least rows rows. False
 * (with run_end still set, 0 when no line) when there is nothing to skip. */
bool term_fast_plan(const unsigned char *p, size_t len, int rows, int cols,
    struct term_fast_plan *out);

/* Bytes of p[0, len) before the first that is not printable ASCII
 * (0x20..0x7e). */
size_t term_fast_plain_span(const unsigned char *p, size_t len);
/* Rows the plain lines p[0, len) fill at cols columns. */
size_t term_fast_count(const unsigned char *p, size_t len, int cols);

/* Called once per row the plain lines fill, with the row's text: the row
 * is an erased cell (the pen's) with text[i] in chars[0] of column i < n. */
typedef void (*term_fast_row_cb)(void *arg, const unsigned char *text, size_t n);
/* Call row once per row the plain lines p[0, len) fill, wrapped at cols
 * like libvterm (a line of exactly cols characters fills one row). */
void term_fast_rows(const unsigned char *p, size_t len, int cols, term_fast_row_cb row,
    void *arg);

#endif
