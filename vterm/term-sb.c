/* term-sb.c - scrollback ring (see term-sb.h).
 *
 * Theory of operation: `lines` is a circular array of max slots; `head` is
 * the slot the next push writes, `count` how many are live. Line idx (0 =
 * newest) sits at slot (head - 1 - idx) mod max. A slot keeps its buffer
 * after a pop or an overwrite and only grows, so steady-state pushes copy
 * cells and never call malloc. Cells are packed to 16 bytes (first char,
 * colours, attributes, width); a line with a combining mark anywhere keeps
 * libvterm's full 40-byte cells instead, so nothing is lost; a row of plain
 * text in one pen (term_sb_push_text: a `cat`) is its bytes and the pen.
 */
#include <string.h>

#include "term-cell.h"
#include "term-sb.h"
#include "xmalloc.h"

struct term_sb_packed {
	uint32_t ch;
	VTermColor fg, bg;
	uint16_t attrs;		/* term_attrs_pack() */
	uint8_t width;
	uint8_t pad;
};

enum term_sb_kind {
	TERM_SB_PACKED,		/* buf: struct term_sb_packed cells */
	TERM_SB_FULL,		/* buf: VTermScreenCell (combining marks) */
	TERM_SB_TEXT,		/* buf: text_n characters, each cell pen */
};

struct term_sb_line {
	void *buf;
	size_t cap;		/* bytes allocated */
	int n;			/* stored cells */
	enum term_sb_kind kind;
	int text_n;		/* TEXT: cells holding a character */
	struct term_sb_packed pen;	/* TEXT: every cell but its character */
};

struct term_sb {
	struct term_sb_line *lines;
	size_t max;
	size_t head;
	size_t count;
	/* term_sb_push_text's last pen: the rows of a run share one. */
	VTermScreenCell pen_tmpl, pen_blank;
	struct term_sb_packed pen;
	bool pen_is_blank, pen_set;
};

struct term_sb *
term_sb_new(size_t max_lines)
{
	struct term_sb *sb = xcalloc(1, sizeof(*sb));

	sb->max = max_lines;
	if (max_lines > 0)
		sb->lines = xcalloc(max_lines, sizeof(*sb->lines));
	return sb;
}

void
term_sb_free(struct term_sb *sb)
{
	if (sb == NULL)
		return;
	for (size_t i = 0; i < sb->max; i++)
		free(sb->lines[i].buf);
	free(sb->lines);
	free(sb);
}

static bool
cell_is_blank(const VTermScreenCell *c, const VTermScreenCell *blank)
{
	/* Field by field: the bit-field struct has padding libvterm leaves as is. */
	return c->chars[0] == 0 && c->width == 1 &&
	    term_attrs_pack(&c->attrs) == term_attrs_pack(&blank->attrs) &&
	    vterm_color_is_equal(&c->fg, &blank->fg) &&
	    vterm_color_is_equal(&c->bg, &blank->bg);
}

/* The slot the next push writes, with room for need bytes. */
static struct term_sb_line *
sb_slot(struct term_sb *sb, size_t need)
{
	struct term_sb_line *l = &sb->lines[sb->head];

	if (need > l->cap) {
		l->buf = xrealloc(l->buf, need);
		l->cap = need;
	}
	return l;
}

/* The slot holds n cells now: make it the newest line. True when the
 * oldest line was dropped for it. */
static bool
sb_commit(struct term_sb *sb, struct term_sb_line *l, int n, enum term_sb_kind kind)
{
	l->n = n;
	l->kind = kind;
	sb->head = (sb->head + 1) % sb->max;
	if (sb->count < sb->max) {
		sb->count++;
		return false;
	}
	return true;
}

static void
cell_pack(const VTermScreenCell *c, struct term_sb_packed *p)
{
	p->ch = c->chars[0];
	p->fg = c->fg;
	p->bg = c->bg;
	p->attrs = (uint16_t)term_attrs_pack(&c->attrs);
	p->width = (uint8_t)c->width;
	p->pad = 0;
}

bool
term_sb_push(struct term_sb *sb, int cols, const VTermScreenCell *cells,
    const VTermScreenCell *blank)
{
	struct term_sb_line *l;
	bool full = false;
	int n = cols;

	if (sb->max == 0)
		return true;
	while (n > 0 && cell_is_blank(&cells[n - 1], blank))
		n--;
	for (int i = 0; i < n && !full; i++)
		full = cells[i].chars[0] != 0 && cells[i].chars[1] != 0;
	l = sb_slot(sb, (size_t)n * (full ? sizeof(VTermScreenCell) : sizeof(struct term_sb_packed)));
	if (full)
		memcpy(l->buf, cells, (size_t)n * sizeof(VTermScreenCell));
	else
		for (int i = 0; i < n; i++)
			cell_pack(&cells[i], &((struct term_sb_packed *)l->buf)[i]);
	return sb_commit(sb, l, n, full ? TERM_SB_FULL : TERM_SB_PACKED);
}

bool
term_sb_push_text(struct term_sb *sb, int cols, const unsigned char *text, size_t n,
    const VTermScreenCell *tmpl, const VTermScreenCell *blank)
{
	struct term_sb_line *l;

	if (sb->max == 0)
		return true;
	if (!sb->pen_set || memcmp(tmpl, &sb->pen_tmpl, sizeof(*tmpl)) != 0 ||
	    memcmp(blank, &sb->pen_blank, sizeof(*blank)) != 0) {
		sb->pen_tmpl = *tmpl;
		sb->pen_blank = *blank;
		cell_pack(tmpl, &sb->pen);
		sb->pen_is_blank = cell_is_blank(tmpl, blank);
		sb->pen_set = true;
	}
	l = sb_slot(sb, n);
	if (n > 0)
		memcpy(l->buf, text, n);
	l->text_n = (int)n;
	l->pen = sb->pen;
	/* What term_sb_push keeps of the row: the text, then tmpl's cells
	 * unless they are blank. */
	return sb_commit(sb, l, sb->pen_is_blank ? (int)n : cols, TERM_SB_TEXT);
}

static void
line_cell(const struct term_sb_line *l, int col, VTermScreenCell *out)
{
	const struct term_sb_packed *p;

	if (l->kind == TERM_SB_FULL) {
		*out = ((const VTermScreenCell *)l->buf)[col];
		return;
	}
	p = l->kind == TERM_SB_TEXT ? &l->pen : &((const struct term_sb_packed *)l->buf)[col];
	memset(out, 0, sizeof(*out));
	out->chars[0] = p->ch;
	out->fg = p->fg;
	out->bg = p->bg;
	out->width = (char)p->width;
	term_attrs_unpack(p->attrs, &out->attrs);
	if (l->kind == TERM_SB_TEXT && col < l->text_n)
		out->chars[0] = ((const unsigned char *)l->buf)[col];
}

bool
term_sb_pop(struct term_sb *sb, int cols, VTermScreenCell *cells,
    const VTermScreenCell *blank)
{
	struct term_sb_line *l;
	int n;

	if (sb->count == 0)
		return false;
	sb->head = (sb->head + sb->max - 1) % sb->max;
	sb->count--;
	l = &sb->lines[sb->head];
	n = l->n < cols ? l->n : cols;
	for (int i = 0; i < n; i++)
		line_cell(l, i, &cells[i]);
	/* A wide char cut at the new right edge would leave half a glyph. */
	if (n > 0 && n == cols && cells[n - 1].width == 2)
		cells[n - 1] = *blank;
	for (int i = n; i < cols; i++)
		cells[i] = *blank;
	return true;
}

size_t
term_sb_count(const struct term_sb *sb)
{
	return sb->count;
}

size_t
term_sb_max(const struct term_sb *sb)
{
	return sb->max;
}

static const struct term_sb_line *
line_at(const struct term_sb *sb, size_t idx)
{
	if (idx >= sb->count)
		return NULL;
	return &sb->lines[(sb->head + sb->max - 1 - idx) % sb->max];
}

int
term_sb_line_len(const struct term_sb *sb, size_t idx)
{
	const struct term_sb_line *l = line_at(sb, idx);

	return l != NULL ? l->n : -1;
}

bool
term_sb_cell(const struct term_sb *sb, size_t idx, int col, VTermScreenCell *out)
{
	const struct term_sb_line *l = line_at(sb, idx);

	if (l == NULL || col < 0 || col >= l->n)
		return false;
	line_cell(l, col, out);
	return true;
}

void
term_sb_clear(struct term_sb *sb)
{
	sb->head = 0;
	sb->count = 0;
}
