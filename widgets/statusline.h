/* statusline.h - the bottom row: state on the left ("[web:proj] PREFIX"),
 * key hints in the middle, an optional clock on the right. A message
 * ("request 3f2a denied") replaces the hints until it expires or a key
 * dismisses it. When the row is short the hints are cut first, then the
 * clock goes, then the state is cut; all by display width.
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
/* Draw row y of win, columns [x, x + width), at time now (clock, expiry). */
void statusline_draw(struct statusline *, WINDOW *win, int y, int x, int width, time_t now,
		     const struct widget_palette *);
/* Any key dismisses a message; the key itself still goes where it would. */
enum statusline_action statusline_handle_key(struct statusline *, int key);

#endif
