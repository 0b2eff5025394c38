/* widget.h - what every workbench widget shares: the key encoding fed to
 * X_handle_key(), theme styles resolved to curses attributes and pairs, and
 * text drawn by display width with hostile characters made visible.
 *
 * Widgets take data and return actions; they never read input or touch
 * sockets: the workbench loop reads a key (wget_wch), turns it into an int
 * with widget_key_from_wch() and feeds it to the focused widget.
 */
#ifndef LZ_WIDGET_H
#define LZ_WIDGET_H

#include <curses.h>
#include <panel.h>
#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

#include "theme.h"

struct term_draw;

/* A key is a Unicode code point (control characters included: 27 is Esc, 9
 * Tab, 13 Enter) or WIDGET_KEY_FN(KEY_UP) for an ncurses function key; Alt
 * adds WIDGET_KEY_META. The FN bit keeps KEY_* (257..511) apart from the
 * characters with the same numbers (U+0101..U+01FF). */
#define WIDGET_KEY_FN(k)	(0x1000000 | (k))
#define WIDGET_KEY_META		0x2000000
#define WIDGET_KEY_IS_FN(k)	(((k) & 0x1000000) != 0)
#define WIDGET_KEY_ESC		27
#define WIDGET_KEY_TAB		9
#define WIDGET_KEY_NONE		(-1)

/* The key for what wget_wch returned (rc, wch); WIDGET_KEY_NONE on ERR. */
int widget_key_from_wch(int rc, wint_t wch);
/* Enter in any of its spellings (CR, LF, KEY_ENTER). */
bool widget_key_is_enter(int key);
/* Backspace in any of its spellings (DEL, ^H, KEY_BACKSPACE). */
bool widget_key_is_backspace(int key);

struct widget_style {
	attr_t attr;
	int pair;		/* extended pair number, 0 = terminal default */
};

/* One style per theme element, valid for the SCREEN it was made on. */
struct widget_palette {
	struct widget_style style[THEME_N_ELEMS];
};

/* Resolve theme (NULL: the embedded default) for the current SCREEN. Colours
 * come from d (term_draw_pair and its approximations); with d NULL or no
 * colours only the attributes are kept. Call again when
 * term_draw_generation() changes. */
void widget_palette_init(struct widget_palette *, const struct theme *, struct term_draw *d);
/* Attributes only (no colour pairs): for tests and monochrome terminals. */
void widget_palette_mono(struct widget_palette *);

#define WIDGET_PUT_ELLIPSIS	0x01u	/* when cut, end with an ellipsis; a long host
					 * name in s loses its middle first (elide.h) */
#define WIDGET_PUT_ELIDED	0x02u	/* (internal: s is already elided) */

/* Draw s[0..len) at (y, x) in at most maxcols columns with style st (NULL:
 * plain). Control characters, bytes that are not UTF-8 and invisible format
 * characters (bidi overrides, zero-width space...) are drawn visibly in
 * reverse video: ^[ for ESC, \n, \r, \t, ^A, ^?, \xff, <U+202E>. Nothing is
 * split: a character or visible form that does not fit ends the text. With
 * win NULL only measures. *used (may be NULL) gets the bytes shown. Returns
 * the columns used. */
int widget_put(WINDOW *win, int y, int x, const char *s, size_t len, int maxcols,
	       const struct widget_style *st, unsigned flags, size_t *used);
/* widget_put of a NUL-terminated string, cut with an ellipsis. */
int widget_puts(WINDOW *win, int y, int x, const char *s, int maxcols, const struct widget_style *st);
/* Columns s takes when drawn by widget_put. */
int widget_width(const char *s);
/* A border of box-drawing characters around win, in style st (windows of
 * at least 3x3; smaller ones get none). */
void widget_box(WINDOW *win, const struct widget_style *st);
/* A vertical line of n rows at (y, x), heavy when asked (UTF-8 only). */
void widget_vline(WINDOW *win, int y, int x, int n, bool heavy, const struct widget_style *st);
/* A frame around the rectangle (y, x, h, w) of win (h >= 2, w >= 2): box
 * lines, heavy when asked (UTF-8 only; ACS lines otherwise). h 1 draws the
 * top edge alone, a horizontal line. The inside is not touched. */
void widget_frame(WINDOW *win, int y, int x, int h, int w, bool heavy, const struct widget_style *st);
/* A horizontal line of n columns at (y, x). */
void widget_hline(WINDOW *win, int y, int x, int n, bool heavy, const struct widget_style *st);
/* The locale's character set is UTF-8. Otherwise (LANG=C, POSIX: `su -`)
 * lines are the terminal's ACS line drawing, which needs no Unicode. */
bool widget_utf8(void);
/* A dialog window: *h x *w, clamped to the lines x cols screen (at least
 * 1x1; *h and *w get what was made), centred, on a new panel on top. */
WINDOW *widget_overlay_new(int *h, int *w, int lines, int cols, PANEL **panel);
/* Remove a dialog's panel and window (its subwindows must be gone) and
 * clear both pointers; NULLs are fine. */
void widget_overlay_free(WINDOW **win, PANEL **panel);
/* s contains q, ASCII letters compared without case (a list's / search). */
bool widget_match(const char *s, const char *q);

/* A search being typed (/ in a list or a text view): the query, edited by
 * widget_search_key. */
#define WIDGET_SEARCH_MAX	128
struct widget_search {
	bool typing;		/* / was pressed: keys edit the query */
	char q[WIDGET_SEARCH_MAX];
};
enum widget_search_action {
	WIDGET_SEARCH_NONE,	/* not a search key */
	WIDGET_SEARCH_EDITED,	/* the query changed or typing started */
	WIDGET_SEARCH_DONE,	/* Enter: look for the query */
	WIDGET_SEARCH_CANCEL,	/* Esc while typing: no search */
};
/* / starts typing; while typing, characters and Backspace edit, Enter ends,
 * Esc cancels (every key is taken). */
enum widget_search_action widget_search_key(struct widget_search *, int key);

/* n blanks in style st from (y, x). */
void widget_fill(WINDOW *win, int y, int x, int n, const struct widget_style *st);

#endif
