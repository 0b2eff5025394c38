/* wb-layout.c - rectangles of the workbench (see wb-layout.h). */
#include <string.h>

#include "wb-layout.h"

static struct wb_layout_rect
rect(int y, int x, int h, int w)
{
	if (h <= 0 || w <= 0)
		return (struct wb_layout_rect){ 0, 0, 0, 0 };
	return (struct wb_layout_rect){ y, x, h, w };
}

void
wb_layout_compute(int lines, int cols, bool panel, struct wb_layout *out)
{
	int top = 0, bottom, pw;

	memset(out, 0, sizeof(*out));
	lines = lines > 0 ? lines : 0;
	cols = cols > 0 ? cols : 0;
	out->too_small = lines < WB_LAYOUT_MIN_ROWS || cols < WB_LAYOUT_MIN_COLS;
	if (lines == 0 || cols == 0)
		return;
	bottom = lines;
	/* The status line goes first: it is where the prefix state shows. */
	if (lines >= 2) {
		out->status = rect(lines - 1, 0, 1, cols);
		bottom = lines - 1;
	}
	if (lines >= 3) {
		out->tabbar = rect(0, 0, 1, cols);
		top = 1;
	}
	out->term = rect(top, 0, bottom - top, cols);
	if (!panel || out->too_small)
		return;
	if (cols >= WB_LAYOUT_SIDE_COLS) {
		pw = cols / 3;
		pw = pw < WB_LAYOUT_PANEL_MIN ? WB_LAYOUT_PANEL_MIN : pw > WB_LAYOUT_PANEL_MAX ? WB_LAYOUT_PANEL_MAX : pw;
		out->term.w = cols - pw;
		out->panel = rect(top, cols - pw, bottom - top, pw);
		return;
	}
	pw = cols < 50 ? cols : WB_LAYOUT_PANEL_MIN;
	out->panel = rect(top, cols - pw, bottom - top, pw);
	out->panel_overlay = true;
}

bool
wb_layout_contains(const struct wb_layout_rect *r, int y, int x)
{
	return r->h > 0 && r->w > 0 && y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w;
}
