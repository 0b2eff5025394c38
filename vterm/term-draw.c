/* term-draw.c - libvterm cells to ncurses cells (see term-draw.h).
 *
 * Theory of operation: each dirty view row is turned into one cchar_t array
 * (libvterm's right halves of wide chars are skipped, ncurses lays the wide
 * char over two columns itself) and written with one mvwadd_wchnstr, which
 * neither wraps nor scrolls. ncurses then sends the terminal only what
 * changed at doupdate(). Colour pairs live in an open-addressing table.
 */
#include <limits.h>
#include <string.h>
#include <wchar.h>

#include "term-draw.h"
#include "xmalloc.h"

#define PAIR_TABLE_MAX	(1u << 17)
#define CELL_CONT	((uint32_t)-1)

struct pair_ent {
	int fg, bg;
	int pair;		/* 0: empty slot */
};

struct term_draw {
	int colors;		/* COLORS at creation */
	int max_pairs;		/* usable pairs 1..max_pairs-1 */
	bool direct;		/* terminal takes 24-bit colour numbers */
	bool defaults;		/* -1 works (use_default_colors succeeded) */
	struct pair_ent *tab;
	size_t tab_size;	/* power of two, > 2 * max_pairs or PAIR_TABLE_MAX */
	size_t used;
	int next_pair;
	unsigned generation;
	cchar_t *line;
	int line_cap;
};

/* xterm's default 16 colours, for approximation only. */
static const uint8_t ansi_rgb[16][3] = {
	{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
	{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 }, { 229, 229, 229 },
	{ 127, 127, 127 }, { 255, 0, 0 }, { 0, 255, 0 }, { 255, 255, 0 },
	{ 92, 92, 255 }, { 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 },
};
static const uint8_t cube_level[6] = { 0, 95, 135, 175, 215, 255 };

static long
dist2(int r1, int g1, int b1, int r2, int g2, int b2)
{
	long dr = r1 - r2, dg = g1 - g2, db = b1 - b2;

	return dr * dr + dg * dg + db * db;
}

static int
cube_index(int v)
{
	if (v < 48)
		return 0;
	if (v < 115)
		return 1;
	return (v - 35) / 40;
}

int
term_draw_rgb_to_256(uint8_t r, uint8_t g, uint8_t b)
{
	int ri = cube_index(r), gi = cube_index(g), bi = cube_index(b);
	int avg = (r + g + b) / 3, gray = avg > 238 ? 23 : avg < 3 ? 0 : (avg - 3) / 10;
	int gv = 8 + 10 * gray;
	long dc = dist2(r, g, b, cube_level[ri], cube_level[gi], cube_level[bi]);
	long dg = dist2(r, g, b, gv, gv, gv);

	return dg < dc ? 232 + gray : 16 + 36 * ri + 6 * gi + bi;
}

int
term_draw_rgb_to_ansi(uint8_t r, uint8_t g, uint8_t b, int n)
{
	int best = 0;
	long bd = LONG_MAX;

	if (n > 16)
		n = 16;
	for (int i = 0; i < n; i++) {
		long d = dist2(r, g, b, ansi_rgb[i][0], ansi_rgb[i][1], ansi_rgb[i][2]);

		if (d < bd) {
			bd = d;
			best = i;
		}
	}
	return best;
}

struct term_draw *
term_draw_new(void)
{
	struct term_draw *d = xcalloc(1, sizeof(*d));

	d->colors = has_colors() ? COLORS : 0;
	d->max_pairs = has_colors() ? COLOR_PAIRS : 0;
	d->direct = d->colors >= 0x1000000 || tigetflag("RGB") > 0;
	d->defaults = d->colors > 0 && use_default_colors() == OK;
	d->tab_size = 64;
	while (d->tab_size < PAIR_TABLE_MAX && d->tab_size < 2 * (size_t)d->max_pairs)
		d->tab_size *= 2;
	d->tab = xcalloc(d->tab_size, sizeof(*d->tab));
	d->next_pair = 1;
	return d;
}

void
term_draw_free(struct term_draw *d)
{
	if (d == NULL)
		return;
	free(d->tab);
	free(d->line);
	free(d);
}

unsigned
term_draw_generation(const struct term_draw *d)
{
	return d->generation;
}

static void
pair_reset(struct term_draw *d)
{
	memset(d->tab, 0, d->tab_size * sizeof(*d->tab));
	d->used = 0;
	d->next_pair = 1;
	d->generation++;
}

int
term_draw_pair(struct term_draw *d, int fg, int bg)
{
	size_t mask = d->tab_size - 1, i;
	int pair;

	if (d->max_pairs <= 1)
		return 0;
	if (!d->defaults) {
		fg = fg < 0 ? COLOR_WHITE : fg;
		bg = bg < 0 ? COLOR_BLACK : bg;
	} else if (fg < 0 && bg < 0)
		return 0;	/* pair 0 is the terminal's own colours */
	i = ((size_t)(unsigned)fg * 2654435761u ^ (size_t)(unsigned)bg * 40503u) & mask;
	for (; d->tab[i].pair != 0; i = (i + 1) & mask)
		if (d->tab[i].fg == fg && d->tab[i].bg == bg)
			return d->tab[i].pair;
	/* Full: start over (callers see the generation change and redraw). */
	if (d->next_pair >= d->max_pairs || d->used + 1 > d->tab_size / 2) {
		pair_reset(d);
		return term_draw_pair(d, fg, bg);
	}
	pair = d->next_pair++;
	if (init_extended_pair(pair, fg, bg) == ERR)
		return 0;
	d->tab[i] = (struct pair_ent){ fg, bg, pair };
	d->used++;
	return pair;
}

/* xterm palette entry idx as RGB (16..231 cube, 232..255 gray ramp). */
static void
palette_rgb(int idx, uint8_t rgb[3])
{
	if (idx < 16) {
		memcpy(rgb, ansi_rgb[idx], 3);
	} else if (idx < 232) {
		rgb[0] = cube_level[(idx - 16) / 36];
		rgb[1] = cube_level[(idx - 16) / 6 % 6];
		rgb[2] = cube_level[(idx - 16) % 6];
	} else
		rgb[0] = rgb[1] = rgb[2] = (uint8_t)(8 + 10 * (idx - 232));
}

int
term_draw_rgb_color(const struct term_draw *d, uint8_t r, uint8_t g, uint8_t b)
{
	if (d->colors <= 0)
		return -1;
	if (d->direct)
		return (r << 16) | (g << 8) | b;
	if (d->colors >= 256)
		return term_draw_rgb_to_256(r, g, b);
	return term_draw_rgb_to_ansi(r, g, b, d->colors);
}

int
term_draw_index_color(const struct term_draw *d, int idx)
{
	uint8_t rgb[3];

	if (d->colors <= 0 || idx < 0 || idx > 255)
		return -1;
	if (idx < d->colors && !d->direct)
		return idx;
	if (idx < 16 && !d->direct)
		return idx - 8;	/* bright on 8 colours: callers add bold */
	palette_rgb(idx, rgb);
	return term_draw_rgb_color(d, rgb[0], rgb[1], rgb[2]);
}

int
term_draw_color(const struct term_draw *d, const struct term *t, const VTermColor *c, bool fg)
{
	VTermColor rgb = *c;

	if (fg ? VTERM_COLOR_IS_DEFAULT_FG(c) : VTERM_COLOR_IS_DEFAULT_BG(c))
		return -1;
	if (VTERM_COLOR_IS_INDEXED(c) && !d->direct)
		return term_draw_index_color(d, c->indexed.idx);
	/* The term's own palette, which an application may have changed. */
	if (VTERM_COLOR_IS_INDEXED(c))
		vterm_screen_convert_color_to_rgb(term_vterm_screen(t), &rgb);
	return term_draw_rgb_color(d, rgb.rgb.red, rgb.rgb.green, rgb.rgb.blue);
}

static void
put_cell(struct term_draw *d, const struct term *t, const VTermScreenCell *c, cchar_t *out, bool *pad)
{
	wchar_t wch[CCHARW_MAX + 1];
	attr_t attr = A_NORMAL;
	int k = 0, w, pair;

	if (c->chars[0] == 0)
		wch[k++] = L' ';
	for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && c->chars[i] != 0 && k < CCHARW_MAX; i++)
		wch[k++] = (wchar_t)c->chars[i];
	wch[k] = L'\0';
	w = wcwidth(wch[0]);
	/* Disagreeing width tables must not shift the rest of the row. */
	if (w < 0 || (w == 2 && c->width != 2)) {
		wch[0] = L'?';
		wch[1] = L'\0';
		w = 1;
	}
	*pad = c->width == 2 && w != 2;
	if (c->attrs.bold)
		attr |= A_BOLD;
	if (c->attrs.underline)
		attr |= A_UNDERLINE;
	if (c->attrs.italic)
		attr |= A_ITALIC;
	if (c->attrs.blink)
		attr |= A_BLINK;
	if (c->attrs.reverse)	/* libvterm already folds DECSCNM in */
		attr |= A_REVERSE;
	if (d->colors > 0 && d->colors < 16 && !d->direct && VTERM_COLOR_IS_INDEXED(&c->fg) &&
	    !VTERM_COLOR_IS_DEFAULT_FG(&c->fg) && c->fg.indexed.idx >= 8 && c->fg.indexed.idx < 16)
		attr |= A_BOLD;
	pair = term_draw_pair(d, term_draw_color(d, t, &c->fg, true), term_draw_color(d, t, &c->bg, false));
	setcchar(out, wch, attr, pair <= SHRT_MAX ? (short)pair : 0, &pair);
}

int
term_draw(struct term_draw *d, struct term *t, WINDOW *win)
{
	int rows, cols, start, end, wrows, wcols, drawn = 0;
	unsigned gen = d->generation;
	bool retried = false;
	VTermScreenCell c;

	term_size(t, &rows, &cols);
	getmaxyx(win, wrows, wcols);
	if (!term_dirty(t, &start, &end))
		return 0;
	if (d->line_cap < 2 * cols + 1) {
		d->line_cap = 2 * cols + 1;
		d->line = xreallocarray(d->line, (size_t)d->line_cap, sizeof(*d->line));
	}
again:
	for (int row = start; row < end && row < wrows; row++) {
		int n = 0;

		for (int col = 0; col < cols && col < wcols; col++) {
			bool pad;

			term_view_cell(t, row, col, &c);
			if (c.chars[0] == CELL_CONT)
				continue;
			put_cell(d, t, &c, &d->line[n++], &pad);
			if (pad)
				setcchar(&d->line[n++], L" ", A_NORMAL, 0, NULL);
		}
		memset(&d->line[n], 0, sizeof(d->line[n]));
		mvwadd_wchnstr(win, row, 0, d->line, n);
		if (cols < wcols) {
			wmove(win, row, cols);
			wclrtoeol(win);
		}
		drawn++;
	}
	if (gen != d->generation && !retried) {
		/* Pairs restarted mid-frame: what was drawn before may be stale. */
		retried = true;
		gen = d->generation;
		start = 0;
		end = rows;
		drawn = 0;
		goto again;
	}
	term_dirty_clear(t);
	return drawn;
}

int
term_draw_cursor(const struct term *t, WINDOW *win)
{
	struct term_cursor cur;
	int vis;

	term_cursor(t, &cur);
	vis = cur.visible && term_scroll_offset(t) == 0;
	if (vis)
		wmove(win, cur.row, cur.col);
	curs_set(vis);
	return vis;
}
