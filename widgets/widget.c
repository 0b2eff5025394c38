/* widget.c - keys, theme styles and width-aware text shared by the widgets.
 *
 * Text is decoded with lz_shellwords_utf8 (the same decoder the policy uses,
 * so what the prompt shows is what the policy saw), measured with wcwidth and
 * drawn cell by cell: a base character and its combining marks go into one
 * cchar_t, so a mark is never separated from its base and a wide character
 * never straddles the edge.
 */
#include <langinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "elide.h"
#include "shellwords.h"
#include "term-draw.h"
#include "widget.h"
#include "xmalloc.h"

int
widget_key_from_wch(int rc, wint_t wch)
{
	if (rc == KEY_CODE_YES)
		return WIDGET_KEY_FN((int)wch);
	if (rc == OK && wch <= 0x10ffff)
		return (int)wch;
	return WIDGET_KEY_NONE;
}

bool
widget_key_is_enter(int key)
{
	return key == '\r' || key == '\n' || key == WIDGET_KEY_FN(KEY_ENTER);
}

bool
widget_key_is_backspace(int key)
{
	return key == 127 || key == 8 || key == WIDGET_KEY_FN(KEY_BACKSPACE);
}

static attr_t
theme_attrs(unsigned a)
{
	attr_t r = A_NORMAL;

	if (a & THEME_ATTR_BOLD)
		r |= A_BOLD;
	if (a & THEME_ATTR_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & THEME_ATTR_REVERSE)
		r |= A_REVERSE;
	if (a & THEME_ATTR_ITALIC)
		r |= A_ITALIC;
	if (a & THEME_ATTR_DIM)
		r |= A_DIM;
	if (a & THEME_ATTR_BLINK)
		r |= A_BLINK;
	return r;
}

static int
theme_color(struct term_draw *d, int c, bool *bright)
{
	if (c == THEME_COLOR_DEFAULT)
		return -1;
	if (THEME_IS_RGB(c))
		return term_draw_rgb_color(d, (uint8_t)(c >> 16), (uint8_t)(c >> 8), (uint8_t)c);
	if (c >= 8 && c < 16 && COLORS < 16)
		*bright = true;
	return term_draw_index_color(d, c);
}

void
widget_palette_init(struct widget_palette *p, const struct theme *th, struct term_draw *d)
{
	struct theme *own = NULL;
	int i;

	if (th == NULL)
		th = own = theme_default();
	for (i = 0; i < THEME_N_ELEMS; i++) {
		const struct theme_style *ts = &th->style[i];
		bool bright = false;
		int fg, bg;

		p->style[i].attr = theme_attrs(ts->attrs);
		p->style[i].pair = 0;
		if (d == NULL || !has_colors())
			continue;
		fg = theme_color(d, ts->fg, &bright);
		bg = theme_color(d, ts->bg, &(bool){ false });
		if (bright)
			p->style[i].attr |= A_BOLD;	/* bright on 8 colours */
		if (fg != -1 || bg != -1)
			p->style[i].pair = term_draw_pair(d, fg, bg);
	}
	theme_free(own);
}

void
widget_palette_mono(struct widget_palette *p)
{
	widget_palette_init(p, NULL, NULL);
}

/* One thing to draw: a character (with its width), a combining mark (width
 * 0), or a visible stand-in for something that must not reach the terminal. */
struct tok {
	size_t len;		/* bytes of s */
	uint32_t cp;
	int width;
	bool combining;
	char vis[16];		/* non-empty: draw this in reverse instead */
};

static bool
invisible_format(uint32_t c)
{
	return c == 0xad || c == 0x34f || c == 0x61c || c == 0x180e ||
	       (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2060 && c <= 0x206f) || c == 0xfeff ||
	       (c >= 0xfff9 && c <= 0xfffb) || (c >= 0xe0000 && c <= 0xe007f);
}

static void
next_tok(const unsigned char *p, size_t avail, struct tok *t)
{
	uint32_t c = 0;
	int w;

	memset(t, 0, sizeof(*t));
	t->len = lz_shellwords_utf8(p, avail, &c);
	if (t->len == 0) {
		t->len = 1;
		snprintf(t->vis, sizeof(t->vis), "\\x%02x", p[0]);
		goto vis;
	}
	t->cp = c;
	if (c == '\n' || c == '\r' || c == '\t') {
		snprintf(t->vis, sizeof(t->vis), "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
		goto vis;
	}
	if (c < 0x20 || c == 0x7f) {
		snprintf(t->vis, sizeof(t->vis), "^%c", (char)(c ^ 0x40));
		goto vis;
	}
	if ((c >= 0x80 && c <= 0x9f) || invisible_format(c))
		goto ucs;
	w = wcwidth((wchar_t)c);
	if (w < 0)
		goto ucs;
	t->width = w;
	t->combining = w == 0;
	return;
ucs:
	snprintf(t->vis, sizeof(t->vis), "<U+%04X>", (unsigned)c);
vis:
	t->width = (int)strlen(t->vis);
}

/* Cell being built: base plus combining marks, drawn when the next base comes. */
struct cell {
	wchar_t wch[CCHARW_MAX + 1];
	int n;
	int y, x;
	attr_t attr;
};

static void
cell_flush(WINDOW *win, struct cell *c, int pair)
{
	cchar_t cc;

	if (win == NULL || c->n == 0)
		goto out;
	c->wch[c->n] = L'\0';
	if (setcchar(&cc, c->wch, c->attr, 0, &pair) == OK)
		mvwadd_wch(win, c->y, c->x, &cc);
out:
	c->n = 0;
}

static void
cell_start(WINDOW *win, struct cell *c, int pair, int y, int x, wchar_t wc, attr_t attr)
{
	cell_flush(win, c, pair);
	c->wch[0] = wc;
	c->n = 1;
	c->y = y;
	c->x = x;
	c->attr = attr;
}

static int
ellipsis_width(void)
{
	return wcwidth(0x2026) == 1 ? 1 : 0;
}

int
widget_put(WINDOW *win, int y, int x, const char *s, size_t len, int maxcols,
	   const struct widget_style *st, unsigned flags, size_t *used)
{
	const unsigned char *p = (const unsigned char *)s;
	attr_t attr = st != NULL ? st->attr : A_NORMAL;
	int pair = st != NULL ? st->pair : 0;
	struct cell cell = { .n = 0 };
	size_t off = 0;
	int col = 0, limit = maxcols, full;
	bool cut = false;
	char *elided;
	struct tok t;

	if (maxcols <= 0)
		goto out;
	if ((flags & WIDGET_PUT_ELLIPSIS) && ellipsis_width() == 1 &&
	    (full = widget_put(NULL, 0, 0, s, len, INT32_MAX, NULL, 0, NULL)) > maxcols) {
		/* A long name loses its middle, never the domain at its end (elide.h). */
		if (!(flags & WIDGET_PUT_ELIDED) && used == NULL &&
		    (elided = lz_elide_line(s, len, (size_t)(full - maxcols))) != NULL) {
			col = widget_put(win, y, x, elided, strlen(elided), maxcols, st,
			    flags | WIDGET_PUT_ELIDED, NULL);
			free(elided);
			return col;
		}
		limit = maxcols - 1;
		cut = true;
	}
	while (off < len) {
		next_tok(p + off, len - off, &t);
		if (t.combining && cell.n > 0) {
			/* Marks past what a cell holds are dropped, not drawn apart. */
			if (cell.n < CCHARW_MAX)
				cell.wch[cell.n++] = (wchar_t)t.cp;
			off += t.len;
			continue;
		}
		if (t.combining) {
			snprintf(t.vis, sizeof(t.vis), "<U+%04X>", (unsigned)t.cp);
			t.width = (int)strlen(t.vis);
		}
		if (col + t.width > limit)
			break;
		if (t.vis[0] != '\0') {
			for (int i = 0; t.vis[i] != '\0'; i++)
				cell_start(win, &cell, pair, y, x + col + i, (wchar_t)t.vis[i], attr | A_REVERSE);
		} else {
			cell_start(win, &cell, pair, y, x + col, (wchar_t)t.cp, attr);
		}
		col += t.width;
		off += t.len;
	}
	if (off < len && cut) {
		cell_start(win, &cell, pair, y, x + col, (wchar_t)0x2026, attr);
		col++;
	}
	cell_flush(win, &cell, pair);
out:
	if (used != NULL)
		*used = off;
	return col;
}

int
widget_puts(WINDOW *win, int y, int x, const char *s, int maxcols, const struct widget_style *st)
{
	return widget_put(win, y, x, s, strlen(s), maxcols, st, WIDGET_PUT_ELLIPSIS, NULL);
}

int
widget_width(const char *s)
{
	return widget_put(NULL, 0, 0, s, strlen(s), INT32_MAX, NULL, 0, NULL);
}

void
widget_fill(WINDOW *win, int y, int x, int n, const struct widget_style *st)
{
	cchar_t cc;
	int pair = st != NULL ? st->pair : 0;

	if (n <= 0 || setcchar(&cc, L" ", st != NULL ? st->attr : A_NORMAL, 0, &pair) != OK)
		return;
	mvwhline_set(win, y, x, &cc, n);
}

bool
widget_match(const char *s, const char *q)
{
	size_t n = strlen(q);

	if (n == 0)
		return true;
	for (; *s != '\0'; s++)
		if (strncasecmp(s, q, n) == 0)
			return true;
	return false;
}

enum widget_search_action
widget_search_key(struct widget_search *se, int key)
{
	size_t n = strlen(se->q);

	if (!se->typing) {
		if (key != '/')
			return WIDGET_SEARCH_NONE;
		se->typing = true;
		se->q[0] = '\0';
		return WIDGET_SEARCH_EDITED;
	}
	if (widget_key_is_enter(key)) {
		se->typing = false;
		return WIDGET_SEARCH_DONE;
	}
	if (key == WIDGET_KEY_ESC) {
		se->typing = false;
		se->q[0] = '\0';
		return WIDGET_SEARCH_CANCEL;
	}
	if (widget_key_is_backspace(key)) {
		/* a whole UTF-8 character goes */
		while (n > 0 && ((unsigned char)se->q[--n] & 0xc0) == 0x80)
			;
		se->q[n] = '\0';
		return WIDGET_SEARCH_EDITED;
	}
	if (!WIDGET_KEY_IS_FN(key) && !(key & WIDGET_KEY_META) && key >= 0x20 && key != 0x7f) {
		char u[8];
		int len = wctomb(u, (wchar_t)key);

		if (len > 0 && n + (size_t)len < sizeof se->q) {
			memcpy(se->q + n, u, (size_t)len);
			se->q[n + (size_t)len] = '\0';
		}
	}
	return WIDGET_SEARCH_EDITED;
}

bool
widget_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs != NULL && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

/* ACS line drawing (VT100 alternate character set) with st's colour. */
static chtype
acs(chtype c, const struct widget_style *st)
{
	return c | (st->attr & ~A_COLOR) | (st->pair > 0 && st->pair < 256 ? COLOR_PAIR(st->pair) : 0);
}

void
widget_vline(WINDOW *win, int y, int x, int n, bool heavy, const struct widget_style *st)
{
	cchar_t vl;
	int pair = st->pair;

	if (!widget_utf8())
		mvwvline(win, y, x, acs(ACS_VLINE, st), n);
	else if (setcchar(&vl, heavy ? L"\x2503" : L"\x2502", st->attr, 0, &pair) == OK)
		mvwvline_set(win, y, x, &vl, n);
}

void
widget_box(WINDOW *win, const struct widget_style *st)
{
	static const wchar_t *const ch[6] = { L"\x2502", L"\x2500", L"\x250c", L"\x2510", L"\x2514", L"\x2518" };
	cchar_t c[6];
	int pair = st->pair;

	if (getmaxy(win) < 3 || getmaxx(win) < 3)
		return;
	if (!widget_utf8()) {
		wborder(win, acs(ACS_VLINE, st), acs(ACS_VLINE, st), acs(ACS_HLINE, st),
		    acs(ACS_HLINE, st), acs(ACS_ULCORNER, st), acs(ACS_URCORNER, st),
		    acs(ACS_LLCORNER, st), acs(ACS_LRCORNER, st));
		return;
	}
	for (int i = 0; i < 6; i++)
		setcchar(&c[i], ch[i], st->attr, 0, &pair);
	wborder_set(win, &c[0], &c[0], &c[1], &c[1], &c[2], &c[3], &c[4], &c[5]);
}

/* One box-drawing character: light or heavy Unicode, or its ACS stand-in. */
static void
frame_ch(WINDOW *win, int y, int x, int i, bool heavy, const struct widget_style *st)
{
	/* | - top-left top-right bottom-left bottom-right */
	static const wchar_t *const light[6] = { L"\x2502", L"\x2500", L"\x250c", L"\x2510", L"\x2514", L"\x2518" };
	static const wchar_t *const bold[6] = { L"\x2503", L"\x2501", L"\x250f", L"\x2513", L"\x2517", L"\x251b" };
	chtype a = i == 0 ? ACS_VLINE : i == 1 ? ACS_HLINE : i == 2 ? ACS_ULCORNER :
	    i == 3 ? ACS_URCORNER : i == 4 ? ACS_LLCORNER : ACS_LRCORNER;
	cchar_t c;
	int pair = st->pair;

	if (!widget_utf8())
		mvwaddch(win, y, x, acs(a, st));
	else if (setcchar(&c, heavy ? bold[i] : light[i], st->attr, 0, &pair) == OK)
		mvwadd_wch(win, y, x, &c);
}

void
widget_hline(WINDOW *win, int y, int x, int n, bool heavy, const struct widget_style *st)
{
	cchar_t hl;
	int pair = st->pair;

	if (n <= 0)
		return;
	if (!widget_utf8())
		mvwhline(win, y, x, acs(ACS_HLINE, st), n);
	else if (setcchar(&hl, heavy ? L"\x2501" : L"\x2500", st->attr, 0, &pair) == OK)
		mvwhline_set(win, y, x, &hl, n);
}

void
widget_frame(WINDOW *win, int y, int x, int h, int w, bool heavy, const struct widget_style *st)
{
	if (h <= 0 || w <= 0)
		return;
	widget_hline(win, y, x, w, heavy, st);
	if (h == 1 || w < 2)
		return;
	frame_ch(win, y, x, 2, heavy, st);
	frame_ch(win, y, x + w - 1, 3, heavy, st);
	for (int r = y + 1; r < y + h - 1; r++) {
		frame_ch(win, r, x, 0, heavy, st);
		frame_ch(win, r, x + w - 1, 0, heavy, st);
	}
	widget_hline(win, y + h - 1, x, w, heavy, st);
	frame_ch(win, y + h - 1, x, 4, heavy, st);
	frame_ch(win, y + h - 1, x + w - 1, 5, heavy, st);
}

WINDOW *
widget_overlay_new(int *h, int *w, int lines, int cols, PANEL **panel)
{
	WINDOW *win;

	*h = *h < lines ? *h : lines;
	*w = *w < cols ? *w : cols;
	*h = *h > 0 ? *h : 1;
	*w = *w > 0 ? *w : 1;
	win = newwin(*h, *w, lines > *h ? (lines - *h) / 2 : 0, cols > *w ? (cols - *w) / 2 : 0);
	LZ_ASSERT(win != NULL);
	*panel = new_panel(win);
	LZ_ASSERT(*panel != NULL);
	return win;
}

void
widget_overlay_free(WINDOW **win, PANEL **panel)
{
	if (*panel != NULL)
		del_panel(*panel);
	if (*win != NULL)
		delwin(*win);
	*panel = NULL;
	*win = NULL;
}
