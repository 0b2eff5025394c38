/* wb-mouse.h - mouse reports from the outer terminal, as tmux reads them.
 *
 * With workbench.mouse on, the workbench asks the outer terminal for
 * xterm's button reports (?1000) in the SGR encoding (?1006), which has no
 * column limit: ESC [ < b ; x ; y M (press) or m (release), b the button
 * code (0..2 buttons, 64/65 wheel up/down, +4 Shift, +8 Alt, +16 Ctrl, +32
 * motion), x and y from 1. ncurses decodes them itself when the terminfo
 * entry says SGR (xterm-256color); under screen or tmux-256color the bytes
 * come as characters. wb_mouse_parse() takes the keys of one read either way
 * and replaces each report by WB_MOUSE_KEY, its event in order in evs, so a
 * report never reaches a tab, a dialog or the request view as typed text.
 * A report cut by the end of a read is left as keys.
 */
#ifndef LZ_WB_MOUSE_H
#define LZ_WB_MOUSE_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "widget.h"

#define WB_MOUSE_KEY		WIDGET_KEY_FN(KEY_MOUSE)	/* a report: the next event */
#define WB_MOUSE_COORD_MAX	9999	/* larger coordinates are no report */
#define WB_MOUSE_ON		"\033[?1000h\033[?1006h"	/* what tmux sends for mouse on */
#define WB_MOUSE_OFF		"\033[?1006l\033[?1000l"

#define WB_MOUSE_SHIFT		4
#define WB_MOUSE_ALT		8
#define WB_MOUSE_CTRL		16
#define WB_MOUSE_MOTION		32
#define WB_MOUSE_WHEEL		64	/* 64 up, 65 down */

struct wb_mouse {
	int b;			/* SGR button code, modifiers included */
	int x, y;		/* screen column and row from 0 */
	bool release;		/* 'm': a button went up */
};

/* The button without modifiers: 0..2, WB_MOUSE_WHEEL (+1 down), or 3 (none). */
int wb_mouse_button(const struct wb_mouse *m);
bool wb_mouse_is_press(const struct wb_mouse *m);	/* a button 0..2 went down */

/* Fold the SGR reports in keys[0..n) (ESC [ < ... M/m, or KEY_MOUSE and the
 * rest when ncurses could not decode it) into WB_MOUSE_KEY, their events
 * appended to evs (at most max_evs; more stay keys). Returns the new count
 * of keys; *n_evs gets the events. */
size_t wb_mouse_parse(int *keys, size_t n, struct wb_mouse *evs, size_t max_evs, size_t *n_evs);

/* An event decoded by ncurses (getmouse) as an SGR report; false: nothing
 * a workbench uses (a click-count event of a button it did not see go down). */
bool wb_mouse_from_curses(unsigned long bstate, int x, int y, struct wb_mouse *out);

#endif
