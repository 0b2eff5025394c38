/* term-cell.h - cell helpers shared by the terminal, its scrollback ring and
 * snapshots: attributes packed to 14 bits and back, code points to UTF-8.
 * Pure functions; their own module so term-sb.c needs nothing of term.h.
 */
#ifndef LZ_TERM_CELL_H
#define LZ_TERM_CELL_H

#include <stddef.h>
#include <stdint.h>

#include <vterm.h>

/* Cell attributes as 14 bits and back (unpack: -1 on bits out of range). */
unsigned term_attrs_pack(const VTermScreenCellAttrs *);
int term_attrs_unpack(unsigned v, VTermScreenCellAttrs *);

/* UTF-8 of code point c into o[4] (U+FFFD beyond U+10FFFF); bytes written. */
size_t term_utf8_put(uint32_t c, char *o);

#endif
