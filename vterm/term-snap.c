/* term-snap.c - snapshot encode/decode and ANSI rendering (see term-snap.h).
 *
 * Wire format, version 1, little-endian:
 *   "LZVT" u8 version u8 flags u8 cursor_shape u8 mouse
 *   u16 rows u16 cols u16 cursor_row u16 cursor_col u16 title_len u32 n_sb
 *   title bytes, then n_sb lines (u16 ncells, cells), then rows*cols cells.
 * A cell is one byte: bits 0-2 nchars (0..6), bit 3 width 2, bit 4 "same
 * pen as the previous cell of this line"; unless bit 4: u16 attrs, fg[4],
 * bg[4]; then nchars LEB128 code points. A line of ASCII costs ~2 bytes a
 * cell.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "term-sb.h"
#include "term-snap.h"
#include "xmalloc.h"

#define SNAP_MAGIC	"LZVT"
#define SNAP_HDR_LEN	22
#define CELL_NCHARS	0x07u
#define CELL_WIDE	0x08u
#define CELL_SAMEPEN	0x10u
#define CELL_CONT	((uint32_t)-1)	/* right half of a wide char */

#define F_ALT		0x01u
#define F_REVERSE	0x02u
#define F_CURSOR_VIS	0x04u
#define F_CURSOR_BLINK	0x08u
#define F_MODES_SHIFT	4		/* TERM_MODE_* in bits 4-7 */
#define F_ALL		0xffu

struct snap_buf {
	uint8_t *p;
	size_t len, cap;
};

static void
buf_put(struct snap_buf *b, const void *data, size_t n)
{
	if (n == 0)
		return;
	if (n > b->cap - b->len) {
		size_t cap = b->cap > 0 ? b->cap : 4096;

		while (cap - b->len < n)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void
buf_u8(struct snap_buf *b, unsigned v)
{
	uint8_t x = (uint8_t)v;

	buf_put(b, &x, 1);
}

static void
buf_u16(struct snap_buf *b, unsigned v)
{
	uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	buf_put(b, x, 2);
}

static void
buf_u32(struct snap_buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	buf_put(b, x, 4);
}

static void
buf_varint(struct snap_buf *b, uint32_t v)
{
	do {
		buf_u8(b, (v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
}

static void __attribute__((format(printf, 2, 3)))
buf_printf(struct snap_buf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	LZ_ASSERT(n >= 0 && (size_t)n < sizeof(tmp));
	buf_put(b, tmp, (size_t)n);
}

/* Cells with indexed colours carry junk in the unused union bytes. */
static void
color_normalize(VTermColor *c)
{
	if (VTERM_COLOR_IS_INDEXED(c)) {
		c->rgb.green = 0;
		c->rgb.blue = 0;
	}
}

static void
cell_normalize(VTermScreenCell *c)
{
	int i;

	for (i = 0; i < VTERM_MAX_CHARS_PER_CELL && c->chars[i] != 0; i++)
		;
	for (; i < VTERM_MAX_CHARS_PER_CELL; i++)
		c->chars[i] = 0;
	color_normalize(&c->fg);
	color_normalize(&c->bg);
}

struct term_snap *
term_snap_take(struct term *t, size_t sb_max)
{
	const struct term_sb *sb = term_scrollback(t);
	struct term_snap *s = xcalloc(1, sizeof(*s));
	size_t n_sb;

	term_flush(t);
	n_sb = term_sb_count(sb);

	term_size(t, &s->rows, &s->cols);
	term_cursor(t, &s->cursor);
	s->altscreen = term_altscreen(t);
	s->reverse = term_reverse(t);
	s->mouse = term_mouse(t);
	s->modes = term_modes(t);
	s->title = xstrdup(term_title(t));
	if (n_sb > sb_max)
		n_sb = sb_max;
	if (n_sb > TERM_SNAP_SB_MAX)
		n_sb = TERM_SNAP_SB_MAX;
	s->n_sb = n_sb;
	s->sb = xcalloc(n_sb, sizeof(*s->sb));
	for (size_t i = 0; i < n_sb; i++) {
		struct term_snap_line *l = &s->sb[i];

		l->ncells = term_sb_line_len(sb, n_sb - 1 - i);
		l->cells = xcalloc((size_t)l->ncells, sizeof(*l->cells));
		for (int c = 0; c < l->ncells; c++) {
			term_sb_cell(sb, n_sb - 1 - i, c, &l->cells[c]);
			cell_normalize(&l->cells[c]);
		}
	}
	s->cells = xcalloc((size_t)s->rows * (size_t)s->cols, sizeof(*s->cells));
	for (int r = 0; r < s->rows; r++)
		for (int c = 0; c < s->cols; c++) {
			VTermScreenCell *cell = &s->cells[(size_t)r * (size_t)s->cols + (size_t)c];

			term_cell(t, r, c, cell);
			cell_normalize(cell);
		}
	return s;
}

void
term_snap_free(struct term_snap *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n_sb; i++)
		free(s->sb[i].cells);
	free(s->sb);
	free(s->cells);
	free(s->title);
	free(s);
}

static void
color_put(struct snap_buf *b, const VTermColor *c)
{
	buf_u8(b, c->type);
	if (VTERM_COLOR_IS_INDEXED(c)) {
		buf_u8(b, c->indexed.idx);
		buf_u16(b, 0);
	} else {
		buf_u8(b, c->rgb.red);
		buf_u8(b, c->rgb.green);
		buf_u8(b, c->rgb.blue);
	}
}

static bool
pen_equal(const VTermScreenCell *a, const VTermScreenCell *b)
{
	return term_attrs_pack(&a->attrs) == term_attrs_pack(&b->attrs) &&
	    vterm_color_is_equal(&a->fg, &b->fg) && vterm_color_is_equal(&a->bg, &b->bg);
}

static void
line_put(struct snap_buf *b, const VTermScreenCell *cells, int n)
{
	for (int i = 0; i < n; i++) {
		const VTermScreenCell *c = &cells[i];
		unsigned nch = 0, flags;

		while (nch < VTERM_MAX_CHARS_PER_CELL && c->chars[nch] != 0)
			nch++;
		flags = nch | (c->width == 2 ? CELL_WIDE : 0);
		if (i > 0 && pen_equal(c, &cells[i - 1]))
			flags |= CELL_SAMEPEN;
		buf_u8(b, flags);
		if (!(flags & CELL_SAMEPEN)) {
			buf_u16(b, term_attrs_pack(&c->attrs));
			color_put(b, &c->fg);
			color_put(b, &c->bg);
		}
		for (unsigned k = 0; k < nch; k++)
			buf_varint(b, c->chars[k]);
	}
}

void
term_snap_encode(const struct term_snap *s, uint8_t **out, size_t *len)
{
	struct snap_buf b = { NULL, 0, 0 };
	size_t tlen = strlen(s->title);
	unsigned flags = 0;

	if (tlen > TERM_TITLE_MAX)
		tlen = TERM_TITLE_MAX;
	flags |= s->altscreen ? F_ALT : 0;
	flags |= s->reverse ? F_REVERSE : 0;
	flags |= s->cursor.visible ? F_CURSOR_VIS : 0;
	flags |= s->cursor.blink ? F_CURSOR_BLINK : 0;
	flags |= (s->modes & 0xfu) << F_MODES_SHIFT;
	buf_put(&b, SNAP_MAGIC, 4);
	buf_u8(&b, TERM_SNAP_VERSION);
	buf_u8(&b, flags);
	buf_u8(&b, (unsigned)s->cursor.shape);
	buf_u8(&b, (unsigned)s->mouse);
	buf_u16(&b, (unsigned)s->rows);
	buf_u16(&b, (unsigned)s->cols);
	buf_u16(&b, (unsigned)s->cursor.row);
	buf_u16(&b, (unsigned)s->cursor.col);
	buf_u16(&b, (unsigned)tlen);
	buf_u32(&b, (uint32_t)s->n_sb);
	buf_put(&b, s->title, tlen);
	for (size_t i = 0; i < s->n_sb; i++) {
		buf_u16(&b, (unsigned)s->sb[i].ncells);
		line_put(&b, s->sb[i].cells, s->sb[i].ncells);
	}
	for (int r = 0; r < s->rows; r++)
		line_put(&b, &s->cells[(size_t)r * (size_t)s->cols], s->cols);
	*out = b.p;
	*len = b.len;
}

struct snap_rd {
	const uint8_t *p;
	size_t len, off;
};

static int
rd_u8(struct snap_rd *r, unsigned *v)
{
	if (r->len - r->off < 1)
		return -1;
	*v = r->p[r->off++];
	return 0;
}

static int
rd_u16(struct snap_rd *r, unsigned *v)
{
	if (r->len - r->off < 2)
		return -1;
	*v = (unsigned)r->p[r->off] | (unsigned)r->p[r->off + 1] << 8;
	r->off += 2;
	return 0;
}

static int
rd_varint(struct snap_rd *r, uint32_t *v)
{
	uint64_t x = 0;
	unsigned b;

	for (int shift = 0; shift < 35; shift += 7) {
		if (rd_u8(r, &b) < 0)
			return -1;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (x > UINT32_MAX)
				return -1;
			*v = (uint32_t)x;
			return 0;
		}
	}
	return -1;
}

static int
rd_color(struct snap_rd *r, VTermColor *c)
{
	unsigned type, a, b, d;

	if (rd_u8(r, &type) < 0 || rd_u8(r, &a) < 0 || rd_u8(r, &b) < 0 || rd_u8(r, &d) < 0)
		return -1;
	if (type & ~(unsigned)(VTERM_COLOR_TYPE_MASK | VTERM_COLOR_DEFAULT_MASK))
		return -1;
	if (type & VTERM_COLOR_INDEXED) {
		if (b != 0 || d != 0)
			return -1;
		vterm_color_indexed(c, (uint8_t)a);
	} else
		vterm_color_rgb(c, (uint8_t)a, (uint8_t)b, (uint8_t)d);
	c->type = (uint8_t)type;
	return 0;
}

/* One line of n cells; "at cell %d: why" goes to *why. */
static int
rd_line(struct snap_rd *r, VTermScreenCell *cells, int n, const char **why)
{
	for (int i = 0; i < n; i++) {
		VTermScreenCell *c = &cells[i];
		unsigned flags, attrs, nch;

		memset(c, 0, sizeof(*c));
		if (rd_u8(r, &flags) < 0)
			return *why = "truncated", -1;
		nch = flags & CELL_NCHARS;
		if ((flags & ~(CELL_NCHARS | CELL_WIDE | CELL_SAMEPEN)) || nch > VTERM_MAX_CHARS_PER_CELL)
			return *why = "bad cell flags", -1;
		c->width = (flags & CELL_WIDE) ? 2 : 1;
		if (flags & CELL_SAMEPEN) {
			if (i == 0)
				return *why = "first cell of a line reuses a pen", -1;
			c->attrs = cells[i - 1].attrs;
			c->fg = cells[i - 1].fg;
			c->bg = cells[i - 1].bg;
		} else {
			if (rd_u16(r, &attrs) < 0 || rd_color(r, &c->fg) < 0 || rd_color(r, &c->bg) < 0)
				return *why = "truncated or bad pen", -1;
			if (term_attrs_unpack(attrs, &c->attrs) < 0)
				return *why = "bad attributes", -1;
		}
		for (unsigned k = 0; k < nch; k++) {
			uint32_t ch;

			if (rd_varint(r, &ch) < 0)
				return *why = "truncated character", -1;
			/* libvterm keeps what it decoded, even beyond U+10FFFF;
			 * rendering replaces such values, so they are harmless. */
			if (ch == 0 || (ch == CELL_CONT && k > 0))
				return *why = "bad character", -1;
			c->chars[k] = ch;
		}
	}
	return 0;
}

int
term_snap_decode(const uint8_t *buf, size_t len, struct term_snap **out, lz_err_t *err)
{
	struct snap_rd r = { buf, len, SNAP_HDR_LEN };
	struct term_snap *s = NULL;
	unsigned version, flags, shape, mouse, rows, cols, crow, ccol, tlen, ncells;
	uint32_t n_sb;
	const char *why = NULL;
	size_t i = 0;

	*out = NULL;
	if (len < SNAP_HDR_LEN)
		return lz_err_set(err, LZ_EINVAL, "terminal snapshot: truncated header (%zu bytes)", len);
	if (memcmp(buf, SNAP_MAGIC, 4) != 0)
		return lz_err_set(err, LZ_EINVAL, "terminal snapshot: bad magic");
	version = buf[4];
	if (version != TERM_SNAP_VERSION)
		return lz_err_set(err, LZ_EINVAL, "terminal snapshot: version %u not supported (want %d)",
		    version, TERM_SNAP_VERSION);
	flags = buf[5];
	shape = buf[6];
	mouse = buf[7];
	rows = (unsigned)buf[8] | (unsigned)buf[9] << 8;
	cols = (unsigned)buf[10] | (unsigned)buf[11] << 8;
	crow = (unsigned)buf[12] | (unsigned)buf[13] << 8;
	ccol = (unsigned)buf[14] | (unsigned)buf[15] << 8;
	tlen = (unsigned)buf[16] | (unsigned)buf[17] << 8;
	n_sb = (uint32_t)buf[18] | (uint32_t)buf[19] << 8 | (uint32_t)buf[20] << 16 | (uint32_t)buf[21] << 24;
	if (flags & ~F_ALL || shape >= VTERM_N_PROP_CURSORSHAPES || mouse >= VTERM_N_PROP_MOUSES)
		return lz_err_set(err, LZ_EINVAL, "terminal snapshot: bad modes");
	if (rows < 1 || rows > TERM_MAX_ROWS || cols < TERM_MIN_COLS || cols > TERM_MAX_COLS)
		return lz_err_set(err, LZ_EINVAL, "terminal snapshot: size %ux%u out of range", rows, cols);
	if (crow >= rows || ccol > cols)
		return lz_err_set(err, LZ_EINVAL, "terminal snapshot: cursor %u,%u outside %ux%u", crow, ccol, rows, cols);
	if (tlen > TERM_TITLE_MAX || tlen > len - r.off)
		return lz_err_set(err, LZ_EINVAL, "terminal snapshot: title length %u too long", tlen);
	if (memchr(buf + r.off, '\0', tlen) != NULL)
		return lz_err_set(err, LZ_EINVAL, "terminal snapshot: NUL in title");
	/* Every line costs >= 2 bytes and every cell >= 1: no allocation beyond the input. */
	if (n_sb > TERM_SNAP_SB_MAX || n_sb > (len - r.off - tlen) / 2)
		return lz_err_set(err, LZ_EINVAL, "terminal snapshot: %u scrollback lines do not fit", (unsigned)n_sb);
	if ((size_t)rows * cols > len - r.off - tlen - 2 * (size_t)n_sb)
		return lz_err_set(err, LZ_EINVAL, "terminal snapshot: truncated screen");
	s = xcalloc(1, sizeof(*s));
	s->rows = (int)rows;
	s->cols = (int)cols;
	s->cursor.row = (int)crow;
	s->cursor.col = (int)ccol;
	s->cursor.shape = (int)shape;
	s->cursor.visible = flags & F_CURSOR_VIS;
	s->cursor.blink = flags & F_CURSOR_BLINK;
	s->altscreen = flags & F_ALT;
	s->reverse = flags & F_REVERSE;
	s->mouse = (int)mouse;
	s->modes = flags >> F_MODES_SHIFT;
	s->title = xstrndup((const char *)buf + r.off, tlen);
	r.off += tlen;
	s->sb = xcalloc(n_sb, sizeof(*s->sb));
	for (i = 0; i < n_sb; i++, s->n_sb++) {
		if (rd_u16(&r, &ncells) < 0) {
			why = "truncated";
			goto bad_line;
		}
		if (ncells > TERM_MAX_COLS || ncells > len - r.off) {
			why = "too many cells";
			goto bad_line;
		}
		s->sb[i].ncells = (int)ncells;
		s->sb[i].cells = xcalloc(ncells, sizeof(VTermScreenCell));
		if (rd_line(&r, s->sb[i].cells, (int)ncells, &why) < 0)
			goto bad_line;
	}
	s->cells = xcalloc((size_t)rows * cols, sizeof(*s->cells));
	for (i = 0; i < rows; i++)
		if (rd_line(&r, &s->cells[i * cols], (int)cols, &why) < 0) {
			lz_err_set(err, LZ_EINVAL, "terminal snapshot: screen row %zu: %s", i, why);
			goto fail;
		}
	if (r.off != len) {
		lz_err_set(err, LZ_EINVAL, "terminal snapshot: %zu trailing bytes", len - r.off);
		goto fail;
	}
	*out = s;
	return 0;
bad_line:
	s->n_sb++;	/* the line being read owns its cells */
	lz_err_set(err, LZ_EINVAL, "terminal snapshot: scrollback line %zu: %s", i, why);
fail:
	term_snap_free(s);
	return -1;
}

bool
term_snap_cell_equal(const VTermScreenCell *a, const VTermScreenCell *b)
{
	for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL; i++) {
		if (a->chars[i] != b->chars[i])
			return false;
		if (a->chars[i] == 0)
			break;
	}
	return a->width == b->width && pen_equal(a, b);
}

static bool
line_equal(const VTermScreenCell *a, const VTermScreenCell *b, int n)
{
	for (int i = 0; i < n; i++)
		if (!term_snap_cell_equal(&a[i], &b[i]))
			return false;
	return true;
}

bool
term_snap_equal(const struct term_snap *a, const struct term_snap *b)
{
	if (a->rows != b->rows || a->cols != b->cols || a->altscreen != b->altscreen ||
	    a->reverse != b->reverse || a->mouse != b->mouse || a->n_sb != b->n_sb ||
	    a->modes != b->modes ||
	    a->cursor.row != b->cursor.row || a->cursor.col != b->cursor.col ||
	    a->cursor.visible != b->cursor.visible || a->cursor.blink != b->cursor.blink ||
	    a->cursor.shape != b->cursor.shape || strcmp(a->title, b->title) != 0)
		return false;
	for (size_t i = 0; i < a->n_sb; i++)
		if (a->sb[i].ncells != b->sb[i].ncells ||
		    !line_equal(a->sb[i].cells, b->sb[i].cells, a->sb[i].ncells))
			return false;
	return line_equal(a->cells, b->cells, a->rows * a->cols);
}

/* ---- ANSI rendering ---- */

static void
ansi_color(struct snap_buf *b, const VTermColor *c, bool fg)
{
	if (fg ? VTERM_COLOR_IS_DEFAULT_FG(c) : VTERM_COLOR_IS_DEFAULT_BG(c))
		buf_printf(b, ";%d", fg ? 39 : 49);
	else if (VTERM_COLOR_IS_INDEXED(c)) {
		if (c->indexed.idx < 8)
			buf_printf(b, ";%d", (fg ? 30 : 40) + c->indexed.idx);
		else if (c->indexed.idx < 16)
			buf_printf(b, ";%d", (fg ? 90 : 100) + c->indexed.idx - 8);
		else
			buf_printf(b, ";%d;5;%d", fg ? 38 : 48, c->indexed.idx);
	} else
		buf_printf(b, ";%d;2;%d;%d;%d", fg ? 38 : 48, c->rgb.red, c->rgb.green, c->rgb.blue);
}

static void
ansi_pen(struct snap_buf *b, const VTermScreenCell *c)
{
	static const char *const ul[] = { "", ";4", ";21", ";4:3" };

	buf_put(b, "\x1b[0", 3);
	if (c->attrs.bold)
		buf_put(b, ";1", 2);
	if (c->attrs.italic)
		buf_put(b, ";3", 2);
	buf_put(b, ul[c->attrs.underline], strlen(ul[c->attrs.underline]));
	if (c->attrs.blink)
		buf_put(b, ";5", 2);
	if (c->attrs.reverse)
		buf_put(b, ";7", 2);
	if (c->attrs.strike)
		buf_put(b, ";9", 2);
	if (c->attrs.font)
		buf_printf(b, ";%d", 10 + c->attrs.font);
	ansi_color(b, &c->fg, true);
	ansi_color(b, &c->bg, false);
	buf_u8(b, 'm');
}

static void
ansi_utf8(struct snap_buf *b, uint32_t c)
{
	char o[4];

	if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || c < 0x20 || (c >= 0x7f && c < 0xa0))
		c = 0xfffd;	/* never replay a control */
	buf_put(b, o, term_utf8_put(c, o));
}

/* One line, at most cols cells. Empty default cells are skipped with CUF so
 * they stay empty; erased cells with a colour are redone with ECH. */
static void
ansi_line(struct snap_buf *b, const VTermScreenCell *cells, int n, int cols)
{
	const VTermScreenCell *pen = NULL;
	int skip = 0;

	if (n > cols)
		n = cols;
	if (n > 0 && cells[0].attrs.dwl)
		buf_put(b, cells[0].attrs.dhl == 1 ? "\x1b#3" : cells[0].attrs.dhl == 2 ? "\x1b#4" : "\x1b#6", 3);
	for (int i = 0; i < n; i++) {
		const VTermScreenCell *c = &cells[i];
		int run = 1;

		if (c->chars[0] == CELL_CONT)
			continue;
		if (c->chars[0] == 0 && VTERM_COLOR_IS_DEFAULT_FG(&c->fg) && VTERM_COLOR_IS_DEFAULT_BG(&c->bg)) {
			skip++;
			continue;
		}
		if (skip > 0) {
			buf_printf(b, "\x1b[%dC", skip);
			skip = 0;
		}
		if (pen == NULL || !pen_equal(pen, c)) {
			ansi_pen(b, c);
			pen = c;
		}
		if (c->chars[0] == 0) {
			while (i + run < n && cells[i + run].chars[0] == 0 && pen_equal(c, &cells[i + run]))
				run++;
			buf_printf(b, "\x1b[%dX\x1b[%dC", run, run);
			i += run - 1;
			continue;
		}
		if (c->width == 2 && i + 1 >= cols)
			continue;	/* a wide char cannot start in the last column */
		for (int k = 0; k < VTERM_MAX_CHARS_PER_CELL && c->chars[k] != 0; k++)
			ansi_utf8(b, c->chars[k]);
	}
}

char *
term_snap_to_ansi(const struct term_snap *s, size_t *len)
{
	struct snap_buf b = { NULL, 0, 0 };
	static const char *const mouse[] = { "", "\x1b[?1000h", "\x1b[?1002h", "\x1b[?1003h" };
	int shape;

	buf_put(&b, "\x1b" "c\x1b[H", 5);
	for (size_t i = 0; i < s->n_sb; i++) {
		ansi_line(&b, s->sb[i].cells, s->sb[i].ncells, s->cols);
		buf_put(&b, "\x1b[m\r\n", 5);
	}
	for (int r = 0; r < s->rows; r++) {
		if (!s->altscreen)
			ansi_line(&b, &s->cells[(size_t)r * (size_t)s->cols], s->cols, s->cols);
		if (r < s->rows - 1)
			buf_put(&b, "\x1b[m\r\n", 5);
	}
	if (s->altscreen) {
		buf_put(&b, "\x1b[m\x1b[?1049h\x1b[H\x1b[2J", 18);
		for (int r = 0; r < s->rows; r++) {
			buf_printf(&b, "\x1b[%d;1H", r + 1);
			ansi_line(&b, &s->cells[(size_t)r * (size_t)s->cols], s->cols, s->cols);
		}
	}
	buf_put(&b, "\x1b[m", 3);
	if (s->reverse)
		buf_put(&b, "\x1b[?5h", 5);
	if (s->modes & TERM_MODE_APPCURSOR)
		buf_put(&b, "\x1b[?1h", 5);
	if (s->modes & TERM_MODE_APPKEYPAD)
		buf_put(&b, "\x1b=", 2);
	if (s->modes & TERM_MODE_BRACKETPASTE)
		buf_put(&b, "\x1b[?2004h", 8);
	if (s->modes & TERM_MODE_FOCUS)
		buf_put(&b, "\x1b[?1004h", 8);
	if (s->mouse > 0 && s->mouse < VTERM_N_PROP_MOUSES)
		buf_put(&b, mouse[s->mouse], strlen(mouse[s->mouse]));
	if (s->title[0] != '\0') {
		buf_put(&b, "\x1b]2;", 4);
		for (const char *p = s->title; *p != '\0'; p++)
			if ((unsigned char)*p >= 0x20 && *p != 0x7f)
				buf_put(&b, p, 1);
		buf_put(&b, "\x1b\\", 2);
	}
	/* DECSCUSR: 1/2 block, 3/4 underline, 5/6 bar; odd blinks. */
	shape = s->cursor.shape >= 1 && s->cursor.shape <= 3 ? s->cursor.shape : 1;
	buf_printf(&b, "\x1b[%d q", shape * 2 - (s->cursor.blink ? 1 : 0));
	buf_printf(&b, "\x1b[%d;%dH", s->cursor.row + 1, s->cursor.col + 1);
	buf_put(&b, s->cursor.visible ? "\x1b[?25h" : "\x1b[?25l", 6);
	buf_u8(&b, '\0');
	*len = b.len - 1;
	return (char *)b.p;
}
