/* wb-layout.h - where the workbench's parts go on a screen of any size.
 *
 * Top row the tab bar, bottom row the status line, the terminal between.
 * The side panel, when shown, sits on the right:
 *   - from WB_LAYOUT_SIDE_COLS columns: beside the terminal, a third of the
 *     width (WB_LAYOUT_PANEL_MIN..WB_LAYOUT_PANEL_MAX columns); the terminal
 *     gets the rest, so its PTY is resized;
 *   - narrower (80x24): an overlay over the terminal's right part,
 *     WB_LAYOUT_PANEL_MIN columns (the whole width below 50): the terminal
 *     keeps its full size and nothing is resized when it comes and goes.
 * Tiny screens lose the tab bar (below 3 rows), then the status line (below
 * 2 rows); below WB_LAYOUT_MIN_ROWS x WB_LAYOUT_MIN_COLS the layout says
 * too_small, the terminal rectangle still being inside the screen.
 */
#ifndef LZ_WB_LAYOUT_H
#define LZ_WB_LAYOUT_H

#include <stdbool.h>

#define WB_LAYOUT_SIDE_COLS	100	/* from here the panel goes beside the terminal */
#define WB_LAYOUT_PANEL_MIN	40
#define WB_LAYOUT_PANEL_MAX	60
#define WB_LAYOUT_MIN_ROWS	3	/* tab bar, one terminal row, status line */
#define WB_LAYOUT_MIN_COLS	10

struct wb_layout_rect {
	int y, x, h, w;		/* h or w 0: not shown */
};

struct wb_layout {
	struct wb_layout_rect tabbar, term, panel, status;
	bool panel_overlay;	/* the panel covers part of the terminal */
	bool too_small;		/* say so instead of drawing the parts */
};

/* Rectangles for a lines x cols screen (negative counts as 0). */
void wb_layout_compute(int lines, int cols, bool panel, struct wb_layout *out);
/* Rectangle r contains (y, x). */
bool wb_layout_contains(const struct wb_layout_rect *r, int y, int x);

#endif
