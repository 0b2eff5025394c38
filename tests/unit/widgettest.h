/* widgettest.h - the fixture the workbench widgets' unit tests share
 * (test-widgets.c, test-widgets-lists.c, test-widgets-reqprompt.c,
 * test-widgets-forms.c): a real ncurses screen (newterm on /dev/null,
 * xterm-256color, 80x24) read back cell by cell from the windows and from
 * curscr. widgettest.c is linked into every unit test, like testutil.c. */
#ifndef LZ_WIDGETTEST_H
#define LZ_WIDGETTEST_H

#include <stdio.h>
#include <wchar.h>
#include <curses.h>

#include "term-draw.h"
#include "widget.h"

/* The cmocka state of a widget test group. */
struct wt_fixture {
	FILE *out, *in;
	SCREEN *scr;
	struct term_draw *d;
	struct widget_palette pal;
};

/* cmocka group setup and teardown: the screen, its palette; then gone. */
int wt_setup(void **state);
int wt_teardown(void **state);

/* Row y of win from column x, as UTF-8, n columns at most (a static
 * buffer, overwritten by the next call of these four). */
char *wt_text_at(WINDOW *win, int y, int x, int n);
/* The whole row, trailing blanks trimmed. */
char *wt_row(WINDOW *win, int y);
/* Row y of win from column x to its end, trailing blanks trimmed. */
char *wt_at(WINDOW *win, int y, int x);
/* wt_at() inside a framed box: its right edge and the blanks before it
 * trimmed too. */
char *wt_in_box(WINDOW *win, int y, int x);

/* One cell: its characters, attributes and colour pair. */
struct wt_got {
	wchar_t wch[CCHARW_MAX + 1];
	attr_t attr;
	int pair;
};

struct wt_got wt_cell(WINDOW *win, int y, int x);
/* Column of needle in row y of win, -1 when absent (by characters). */
int wt_col_of(WINDOW *win, int y, const char *needle);
/* A vector of copies of the arguments up to NULL. */
char **wt_strv(const char *first, ...);
/* Show panels and windows as the terminal would; curscr then holds it. */
void wt_show(void);

#endif
