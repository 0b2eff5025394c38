/* statusline.h - the bottom row: state on the left ("[web:proj] PREFIX"),
 * key hints in the middle, then on the right the domain's network mode and
 * small gauges of its limits' use (memory, pids, disk), and an optional
 * clock:
 *   [default:web] C-a: c new n next ? help   net:sidecar mem ██▍  pid ▂    dsk      07:45
 * (a gauge is 4 cells of eighth blocks on its own background)
 * A message ("request 3f2a denied") replaces the hints until it expires or
 * a key dismisses it. When the row is short the hints are cut first, then
 * the gauges go, then the network mode (a message that does not fit
 * beside them sends them away first), then the clock, then the state is
 * cut; all by display width.
 */
#ifndef LZ_STATUSLINE_H
#define LZ_STATUSLINE_H

#include <curses.h>
#include <stdbool.h>
#include <time.h>

#include "widget.h"

enum statusline_action {
	STATUSLINE_NONE,
	STATUSLINE_DISMISSED,	/* a message was showing and the key took it away */
};

struct statusline;

struct statusline *statusline_new(void);
void statusline_free(struct statusline *);
/* Copies of the texts; NULL clears. */
void statusline_set_state(struct statusline *, const char *state);
void statusline_set_hints(struct statusline *, const char *hints);
/* Show msg instead of the hints until time until (0: until a key). */
void statusline_message(struct statusline *, const char *msg, time_t until);
void statusline_set_clock(struct statusline *, bool on);

#define STATUSLINE_GAUGES	3
#define STATUSLINE_GAUGE_CELLS	4	/* a bar of 4 cells, in eighths in UTF-8 */
/* One gauge: a label and how much of its bound is used. */
struct statusline_gauge {
	const char *label;	/* "mem"; NULL: no gauge */
	int permille;		/* 0..1000; -1: unknown or no bound (not drawn) */
};
/* The network mode ("net:sidecar"; NULL: none shown) and up to
 * STATUSLINE_GAUGES gauges (copied). */
void statusline_set_info(struct statusline *, const char *net,
			 const struct statusline_gauge *g, size_t n);
/* The gauge's bar as drawn: STATUSLINE_GAUGE_CELLS cells of eighth blocks
 * (utf8) or '#' and '.'; buf gets NUL-terminated text. */
void statusline_gauge_bar(int permille, bool utf8, char *buf, size_t size);
/* Draw row y of win, columns [x, x + width), at time now (clock, expiry). */
void statusline_draw(struct statusline *, WINDOW *win, int y, int x, int width, time_t now,
		     const struct widget_palette *);
/* Any key dismisses a message; the key itself still goes where it would. */
enum statusline_action statusline_handle_key(struct statusline *, int key);

#endif
