/* tabbar.h - the workbench's top row: one title per sandbox tab.
 *
 * A title reads " 2:web proj running " (number, profile, workspace base
 * name, state); a tab that needs the user gets its mark before its number
 * ("!" approval, "?" input: tabstate.h; "!" for alert without a mark) and
 * the alert style; a flashing one is drawn reversed; the active tab the
 * active style. When the titles do not fit, the row scrolls so the active tab is always whole, with "<" or ">"
 * at an edge that hides tabs. Titles are cut by display width.
 */
#ifndef LZ_TABBAR_H
#define LZ_TABBAR_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "widget.h"

#define TABBAR_TITLE_MAX	32	/* columns of one title, the rest is cut */

struct tabbar_tab {
	const char *profile;
	const char *workspace;	/* path; its last component is shown */
	const char *state;	/* "running", "exited 1", ... (may be NULL) */
	bool alert;		/* an escalation waits */
	const char *mark;	/* who needs me (tabstate_mark: "!", "?"); NULL/"": "!" if alert */
	bool flash;		/* drawn reversed: a background tab just started to need the user */
};

enum tabbar_action {
	TABBAR_NONE,
	TABBAR_PREV,		/* select the tab before the active one */
	TABBAR_NEXT,
};

struct tabbar;

struct tabbar *tabbar_new(void);
void tabbar_free(struct tabbar *);
/* Replace the tabs (copied); active is clamped to the tabs there are. */
void tabbar_set(struct tabbar *, const struct tabbar_tab *tabs, size_t n, size_t active);
size_t tabbar_active(const struct tabbar *);
/* Draw into row y of win, columns [x, x + width). */
void tabbar_draw(struct tabbar *, WINDOW *win, int y, int x, int width, const struct widget_palette *);
/* Index of the tab drawn at column col (a mouse click), or -1. */
int tabbar_hit(const struct tabbar *, int col);
/* Left/Right when the bar has focus. */
enum tabbar_action tabbar_handle_key(struct tabbar *, int key);

#endif
