/* term-snap.h - a terminal's screen as bytes, and back (attach: spec DESIGN
 * "Sessions and PTYs": a client that attaches gets the current screen first).
 *
 * A snapshot holds the cells of the visible screen (chars, width, attributes,
 * colours), the cursor, the modes we can observe (alt screen, reverse video,
 * mouse, cursor shape/blink/visibility, cursor keys/keypad/bracketed paste/
 * focus reports), the title, the size and the newest
 * scrollback lines. term_snap_encode() makes a compact little-endian byte
 * string; term_snap_decode() checks every length before it allocates or
 * copies, so it may be fed anything. term_snap_to_ansi() renders a snapshot
 * as escape sequences a fresh VTerm or a real terminal replays.
 *
 * Limits of libvterm 0.1.4: while the alt screen is active only its cells
 * can be read, so the main screen under it is not in the snapshot (after
 * the app leaves the alt screen the replayed main screen is blank; its
 * scrollback is kept). The mouse encoding (?1006 SGR), margins, tab stops,
 * charsets and the saved cursor cannot be read back either.
 */
#ifndef LZ_TERM_SNAP_H
#define LZ_TERM_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "term.h"

#define TERM_SNAP_VERSION	1
#define TERM_SNAP_SB_MAX	100000	/* scrollback lines accepted on decode */

struct term_snap_line {
	int ncells;
	VTermScreenCell *cells;
};

struct term_snap {
	int rows, cols;
	struct term_cursor cursor;
	bool altscreen;
	bool reverse;
	int mouse;			/* VTERM_PROP_MOUSE_* */
	unsigned modes;			/* TERM_MODE_* */
	char *title;			/* never NULL */
	size_t n_sb;			/* scrollback lines, oldest first */
	struct term_snap_line *sb;
	VTermScreenCell *cells;		/* rows * cols, row-major */
};

/* Snapshot of t's screen with at most sb_max scrollback lines (newest). */
struct term_snap *term_snap_take(struct term *t, size_t sb_max);
void term_snap_free(struct term_snap *);

/* Encode into a new buffer (*buf, *len), freed by the caller. */
void term_snap_encode(const struct term_snap *, uint8_t **buf, size_t *len);
/* Decode; rejects truncated, oversized or malformed input with a message. */
int term_snap_decode(const uint8_t *buf, size_t len, struct term_snap **out, lz_err_t *err);

/* ANSI/VT byte stream reproducing the snapshot on a fresh terminal of the
 * same size; NUL-terminated, *len without the NUL; freed by the caller. */
char *term_snap_to_ansi(const struct term_snap *, size_t *len);

/* Same content (cells, scrollback, cursor, modes, title, size). */
bool term_snap_equal(const struct term_snap *, const struct term_snap *);
bool term_snap_cell_equal(const VTermScreenCell *, const VTermScreenCell *);

#endif
