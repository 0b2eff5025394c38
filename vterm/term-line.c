/* term-line.c - is the cursor on an input line (see term.h,
 * term_input_line)? The cursor row's cells as text, left of the cursor and
 * from it on, judged by tabstate_input_line (tabstate.h): the workbench's
 * tabs and the coordinator's screens say "waiting for input" alike. */
#include <string.h>

#include "tabstate.h"
#include "term.h"

#define TERM_LINE_MAX	2048	/* bytes of a cursor row looked at */

bool
term_input_line(const struct term *t)
{
	struct term_cursor cur;
	VTermScreenCell cell;
	char half[2][TERM_LINE_MAX];
	size_t n[2] = { 0, 0 };
	int rows, cols, col;

	term_cursor(t, &cur);
	term_size(t, &rows, &cols);
	if (cur.row < 0 || cur.row >= rows || cur.col < 0)
		return false;
	for (col = 0; col < cols; col++) {
		int h = col < cur.col ? 0 : 1;
		char u[8];
		size_t k;

		if (!term_cell(t, cur.row, col, &cell))
			break;
		k = term_utf8_put(cell.chars[0] != 0 ? cell.chars[0] : ' ', u);
		if (n[h] + k + 1 > TERM_LINE_MAX)
			break;
		memcpy(half[h] + n[h], u, k);
		n[h] += k;
		if (cell.width > 1)
			col += cell.width - 1;
	}
	half[0][n[0]] = '\0';
	half[1][n[1]] = '\0';
	return tabstate_input_line(half[0], half[1], cur.visible);
}
