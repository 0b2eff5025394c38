/* term-sb.h - scrollback ring: the lines libvterm scrolls off the top.
 *
 * A bounded ring of lines, each a trimmed copy of its cells: 16 bytes a cell
 * (40 for lines holding combining marks). When full, the oldest line's
 * buffer is reused for the newest, so a long `cat` allocates nothing once
 * the ring has filled. Index 0 is the newest line.
 */
#ifndef LZ_TERM_SB_H
#define LZ_TERM_SB_H

#include <stdbool.h>
#include <stddef.h>

#include <vterm.h>

struct term_sb;

/* A ring of at most max_lines lines (0 keeps nothing). */
struct term_sb *term_sb_new(size_t max_lines);
void term_sb_free(struct term_sb *);

/* Push a line of cols cells; trailing cells equal to blank are not stored.
 * Returns true when the oldest line was dropped to make room. */
bool term_sb_push(struct term_sb *, int cols, const VTermScreenCell *cells,
    const VTermScreenCell *blank);
/* Push the row term_sb_push would store for cols cells of tmpl (an erased
 * cell: no character, width 1) whose first n (<= cols) hold text[i] (no
 * NUL) in chars[0], without building it. */
bool term_sb_push_text(struct term_sb *, int cols, const unsigned char *text, size_t n,
    const VTermScreenCell *tmpl, const VTermScreenCell *blank);
/* Pop the newest line into cells[cols], padded with blank; false if empty. */
bool term_sb_pop(struct term_sb *, int cols, VTermScreenCell *cells,
    const VTermScreenCell *blank);

size_t term_sb_count(const struct term_sb *);
size_t term_sb_max(const struct term_sb *);
/* Stored cells of line idx (0 = newest; trailing blanks are not stored),
 * -1 when idx >= count. */
int term_sb_line_len(const struct term_sb *, size_t idx);
/* Cell col of line idx into *out; false past the stored cells. */
bool term_sb_cell(const struct term_sb *, size_t idx, int col, VTermScreenCell *out);
void term_sb_clear(struct term_sb *);

#endif
