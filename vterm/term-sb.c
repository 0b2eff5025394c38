/* term-sb.c - scrollback ring (see term-sb.h).
 *
 * Theory of operation: `lines` is a circular array of max slots; `head` is
 * the slot the next push writes, `count` how many are live. Line idx (0 =
 * newest) sits at slot (head - 1 - idx) mod max. A slot keeps its buffer
 * after a pop or an overwrite and only grows, so steady-state pushes copy
 * cells and never call malloc.
 */
#include <string.h>

#include "term-sb.h"
#include "xmalloc.h"

struct term_sb_line {
	VTermScreenCell *cells;
	int n;			/* stored cells */
	int cap;		/* allocated cells */
};

struct term_sb {
	struct term_sb_line *lines;
	size_t max;
	size_t head;
	size_t count;
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
		free(sb->lines[i].cells);
	free(sb->lines);
	free(sb);
}

static bool
cell_is_blank(const VTermScreenCell *c, const VTermScreenCell *blank)
{
	const VTermScreenCellAttrs *a = &c->attrs, *b = &blank->attrs;

	/* Field by field: the bit-field struct has padding libvterm leaves as is. */
	return c->chars[0] == 0 && c->width == 1 && a->bold == b->bold &&
	    a->underline == b->underline && a->italic == b->italic && a->blink == b->blink &&
	    a->reverse == b->reverse && a->strike == b->strike && a->font == b->font &&
	    a->dwl == b->dwl && a->dhl == b->dhl &&
	    vterm_color_is_equal(&c->fg, &blank->fg) &&
	    vterm_color_is_equal(&c->bg, &blank->bg);
}

bool
term_sb_push(struct term_sb *sb, int cols, const VTermScreenCell *cells,
    const VTermScreenCell *blank)
{
	struct term_sb_line *l;
	bool dropped = false;
	int n = cols;

	if (sb->max == 0)
		return true;
	while (n > 0 && cell_is_blank(&cells[n - 1], blank))
		n--;
	l = &sb->lines[sb->head];
	if (n > l->cap) {
		l->cells = xreallocarray(l->cells, (size_t)n, sizeof(*l->cells));
		l->cap = n;
	}
	if (n > 0)
		memcpy(l->cells, cells, (size_t)n * sizeof(*cells));
	l->n = n;
	sb->head = (sb->head + 1) % sb->max;
	if (sb->count < sb->max)
		sb->count++;
	else
		dropped = true;
	return dropped;
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
	if (n > 0)
		memcpy(cells, l->cells, (size_t)n * sizeof(*cells));
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

const VTermScreenCell *
term_sb_line(const struct term_sb *sb, size_t idx, int *ncells)
{
	const struct term_sb_line *l;

	if (idx >= sb->count)
		return NULL;
	l = &sb->lines[(sb->head + sb->max - 1 - idx) % sb->max];
	*ncells = l->n;
	return l->cells;
}

void
term_sb_clear(struct term_sb *sb)
{
	sb->head = 0;
	sb->count = 0;
}
