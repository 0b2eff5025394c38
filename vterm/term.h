/* term.h - one embedded terminal: a pure state machine around libvterm 0.1.4.
 *
 * Bytes go in with term_feed(); what comes out is polled, never pushed:
 *   - a dirty row range in view coordinates (term_dirty/term_dirty_clear),
 *   - events as a bit set (term_events_take): title, bell, cursor, alt screen,
 *   - replies the terminal owes the PTY (DA, DSR answers) and key encodings
 *     (term_output/term_output_consume).
 * No fds, no curses, no allocation per byte. The bytes pass the scanner in
 * term-scan.c on their way to libvterm (term-feed.c; runs of plain lines
 * that only scroll through go to the scrollback without libvterm, with
 * the same result, term-fast.c); the scrollback ring lives in
 * term-sb.c, cell helpers in term-cell.c, snapshots in term-snap.c, ncurses
 * drawing in term-draw.c.
 *
 * The view is the screen seen through a scroll offset: with offset k > 0 the
 * top k view rows show the newest k scrollback lines (newest at the bottom).
 * Note: include ncurses' own <term.h> as <ncursesw/term.h>; -Ivterm shadows it.
 */
#ifndef LZ_TERM_H
#define LZ_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vterm.h>

#include "err.h"
#include "term-cell.h"	/* term_attrs_pack, term_utf8_put */

struct term;
struct term_sb;

#define TERM_MAX_ROWS	1000	/* bounds for sizes from outside (resize, snapshot) */
#define TERM_MAX_COLS	1000
#define TERM_MIN_COLS	2	/* libvterm 0.1.4 crashes on a wide char in 1 column */
#define TERM_SB_DEFAULT	2000	/* scrollback lines, like tmux's history-limit */
#define TERM_TITLE_MAX	1024	/* longer titles are cut */
#define TERM_HOLD_MAX	(256u << 10)	/* bytes term_feed_later holds at most */

/* Event bits returned by term_events_take(). */
#define TERM_EV_TITLE		0x01u	/* term_title() changed */
#define TERM_EV_BELL		0x02u
#define TERM_EV_CURSOR		0x04u	/* position, visibility, shape or blink */
#define TERM_EV_ALTSCREEN	0x08u	/* term_altscreen() flipped */
#define TERM_EV_RESIZE		0x10u
#define TERM_EV_MODE		0x20u	/* reverse video or mouse mode changed */

/* Keyboard modes set by the application, from term_modes(). */
#define TERM_MODE_APPCURSOR	0x01u	/* DECCKM: arrows send ESC O A */
#define TERM_MODE_APPKEYPAD	0x02u	/* DECKPAM */
#define TERM_MODE_BRACKETPASTE	0x04u	/* ?2004 */
#define TERM_MODE_FOCUS		0x08u	/* ?1004 focus reports */

struct term_cursor {
	int row, col;		/* screen coordinates */
	bool visible;
	bool blink;
	int shape;		/* VTERM_PROP_CURSORSHAPE_* */
};

/* A terminal of rows x cols keeping up to sb_lines of scrollback (0: none). */
int term_new(int rows, int cols, size_t sb_lines, struct term **out, lz_err_t *err);
void term_free(struct term *);

/* Feed bytes from the PTY (or a snapshot replay); damage is flushed. */
void term_feed(struct term *, const char *buf, size_t len);
/* Bytes from the PTY, fed later: held (after any held before, in order)
 * until term_flush, the next term_feed, a resize or a snapshot, or until
 * TERM_HOLD_MAX bytes are held. A burst fed in big pieces costs a fraction
 * of one fed per read (the fast path below skips more). Whatever reads the
 * screen, cursor, modes or scrollback calls term_flush first. */
void term_feed_later(struct term *, const char *buf, size_t len);
/* Feed what is held; false when nothing was (the buffer is freed then). */
bool term_flush(struct term *);

/* Plain lines that scroll off go straight to the scrollback (on by
 * default; the screen and scrollback are the same either way). Off: every
 * byte goes through libvterm, for tests comparing the two. */
void term_set_fast(struct term *, bool on);
/* Rows the fast path put into the scrollback without libvterm, so far. */
unsigned long term_fast_skipped(const struct term *);

/* True when the bytes fed so far end between sequences: no escape sequence,
 * control string or UTF-8 character is half-way. A snapshot taken then
 * replays exactly; one taken mid-sequence may garble the next cells. */
bool term_idle(const struct term *);

/* Resize; content is kept (libvterm moves lines to/from scrollback). */
int term_resize(struct term *, int rows, int cols, lz_err_t *err);
void term_size(const struct term *, int *rows, int *cols);

/* Dirty view rows [*start, *end); false when nothing is dirty. */
bool term_dirty(const struct term *, int *start, int *end);
void term_dirty_clear(struct term *);
/* Mark every view row dirty (after a full redraw request, a pair reset...). */
void term_dirty_all(struct term *);

/* Events since the last call, as TERM_EV_* bits; clears them. */
unsigned term_events_take(struct term *);
/* Bells since term_new (the bit says "at least one"). */
unsigned long term_bell_count(const struct term *);

/* Current title ("" before any), owned by the term. */
const char *term_title(const struct term *);
void term_cursor(const struct term *, struct term_cursor *out);
/* Is the cursor on an input line: visible, after some text, nothing but
 * blanks or a box border right of it (tabstate_input_line; term-line.c)? */
bool term_input_line(const struct term *);
bool term_altscreen(const struct term *);
bool term_reverse(const struct term *);
int term_mouse(const struct term *);	/* VTERM_PROP_MOUSE_* */
/* TERM_MODE_* bits. libvterm 0.1.4 has no getter, so this encodes probe
 * keys and looks at the bytes (then drops them; nothing is queued). */
unsigned term_modes(struct term *);

/* Pending bytes for the PTY; consume what was written. */
const char *term_output(const struct term *, size_t *len);
void term_output_consume(struct term *, size_t n);
/* When false, replies generated by term_feed (DA, DSR...) are dropped and
 * only key encodings are queued: for a client whose PTY answers elsewhere. */
void term_set_replies(struct term *, bool on);

/* Encode a key or a character for the PTY (queued in term_output). */
void term_key(struct term *, VTermKey key, VTermModifier mod);
void term_key_char(struct term *, uint32_t c, VTermModifier mod);
void term_paste(struct term *, const char *buf, size_t len);
/* A mouse event at screen (row, col) for the program, queued in
 * term_output in the mode and encoding it asked for (X10, UTF-8, SGR...):
 * nothing when it asked for none. button 1..3, 4/5 the wheel; 0 a move. */
void term_mouse_report(struct term *, int row, int col, int button, bool pressed, VTermModifier mod);

/* Screen cell at (row, col), zero-filled past the first 0 in chars.
 * Returns false outside the screen. */
bool term_cell(const struct term *, int row, int col, VTermScreenCell *out);
/* Cell at a view row (scrollback-aware); blank past a short line. */
bool term_view_cell(const struct term *, int row, int col, VTermScreenCell *out);

/* UTF-8 text of a view row, trailing blanks trimmed, NUL-terminated and cut
 * to fit size; returns the length written. */
size_t term_view_text(const struct term *, int row, char *buf, size_t size);

/* History lines: the scrollback, oldest first, then the screen's rows;
 * term_lines() of them. The view's top row shows line term_view_top(). */
size_t term_lines(const struct term *);
size_t term_view_top(const struct term *);
/* UTF-8 text of history line line, as term_view_text. */
size_t term_line_text(const struct term *, size_t line, char *buf, size_t size);
/* Cell col of history line line (see term_lines); false past the end. */
bool term_line_cell(const struct term *, size_t line, int col, VTermScreenCell *out);

/* term-url.c. Longest text read back whole: a logical line, a URL. */
#define TERM_URL_MAX	8192
/* Line line's text with the rows it wrapped onto (a row wraps when its last
 * column is used), from its first row *first to its last *last. */
size_t term_wrapped_text(const struct term *, size_t line, char *buf, size_t size, size_t *first,
    size_t *last);
/* The newest URL (http:// or https://) starting at or above line from, whole
 * across rows; its first row, or -1 when none is there. */
long term_find_url(const struct term *, size_t from, char *url, size_t size);
/* The first line from from (included) towards older (or newer) lines,
 * wrapping round, whose text holds needle; -1 when none does. */
long term_find(const struct term *, const char *needle, size_t from, bool older);
/* Scroll so that line is the view's top row (clamped to the live screen). */
void term_scroll_to(struct term *, size_t line);

/* Scrollback seen through the view. */
const struct term_sb *term_scrollback(const struct term *);
/* Scroll the view back (delta > 0) or forward; clamped. Returns new offset. */
size_t term_scroll(struct term *, long delta);
size_t term_scroll_offset(const struct term *);
/* Jump back to the live screen. */
void term_scroll_reset(struct term *);

/* Default colours (with their DEFAULT type bits) for blank cells. */
void term_default_colors(const struct term *, VTermColor *fg, VTermColor *bg);
/* A blank cell as libvterm would erase it with the default pen. */
void term_blank_cell(const struct term *, VTermScreenCell *out);

/* The libvterm screen, for code that needs a colour conversion. */
VTermScreen *term_vterm_screen(const struct term *);

#endif
