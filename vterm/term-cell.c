/* term-cell.c - cell attributes packed and unpacked, UTF-8 out (see
 * term-cell.h). */
#include "term-cell.h"

unsigned
term_attrs_pack(const VTermScreenCellAttrs *a)
{
	return (unsigned)a->bold | (unsigned)a->underline << 1 | (unsigned)a->italic << 3 |
	    (unsigned)a->blink << 4 | (unsigned)a->reverse << 5 | (unsigned)a->strike << 6 |
	    (unsigned)a->font << 7 | (unsigned)a->dwl << 11 | (unsigned)a->dhl << 12;
}

int
term_attrs_unpack(unsigned v, VTermScreenCellAttrs *a)
{
	if (v >> 14 != 0 || ((v >> 7) & 0xf) > 9 || ((v >> 12) & 3) == 3)
		return -1;
	a->bold = v & 1;
	a->underline = (v >> 1) & 3;
	a->italic = (v >> 3) & 1;
	a->blink = (v >> 4) & 1;
	a->reverse = (v >> 5) & 1;
	a->strike = (v >> 6) & 1;
	a->font = (v >> 7) & 0xf;
	a->dwl = (v >> 11) & 1;
	a->dhl = (v >> 12) & 3;
	return 0;
}

size_t
term_utf8_put(uint32_t c, char *o)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | (c >> 6));
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | (c >> 12));
		o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c > 0x10ffff)
		return term_utf8_put(0xfffd, o);
	o[0] = (char)(0xf0 | (c >> 18));
	o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}
