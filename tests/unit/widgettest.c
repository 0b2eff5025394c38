/* widgettest.c - the fixture of the workbench widgets' unit tests
 * (widgettest.h): a real ncurses screen, read back cell by cell. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <panel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "strv.h"
#include "term-draw.h"
#include "widget.h"
#include "widgettest.h"

/* The panel library allocates the stdscr pseudo-panel of a SCREEN once and
 * frees it only in ncurses builds with --disable-leaks (not Debian's).
 * Windows leaked by a widget are still caught: newwin is not suppressed.
 * Linked into every unit test; only the widget tests make panels. */
const char *__lsan_default_suppressions(void);
const char *
__lsan_default_suppressions(void)
{
	return "leak:new_panel\n";
}

int
wt_setup(void **state)
{
	struct wt_fixture *f = calloc(1, sizeof(*f));

	if (setlocale(LC_ALL, "C.UTF-8") == NULL)
		return -1;
	f->out = fopen("/dev/null", "w");
	f->in = fopen("/dev/null", "r");
	if (f->out == NULL || f->in == NULL)
		return -1;
	f->scr = newterm("xterm-256color", f->out, f->in);
	if (f->scr == NULL)
		return -1;
	set_term(f->scr);
	resize_term(24, 80);
	start_color();
	f->d = term_draw_new();
	widget_palette_init(&f->pal, NULL, f->d);
	*state = f;
	return 0;
}

int
wt_teardown(void **state)
{
	struct wt_fixture *f = *state;

	term_draw_free(f->d);
	set_term(f->scr);
	endwin();
	delscreen(f->scr);
	fclose(f->out);
	fclose(f->in);
	free(f);
	return 0;
}

/* Row y of win from column x, as UTF-8, n columns at most. */
char *
wt_text_at(WINDOW *win, int y, int x, int n)
{
	static char buf[4096];
	wchar_t w[1024];

	memset(w, 0, sizeof(w));
	if (mvwinnwstr(win, y, x, w, n) == ERR)
		return strcpy(buf, "<ERR>");
	if (wcstombs(buf, w, sizeof(buf)) == (size_t)-1)
		return strcpy(buf, "<bad>");
	return buf;
}

/* The whole row, trailing blanks trimmed. */
char *
wt_row(WINDOW *win, int y)
{
	char *s = wt_text_at(win, y, 0, getmaxx(win));
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
	return s;
}

/* Row y of win from column x to its end, trailing blanks trimmed. */
char *
wt_at(WINDOW *win, int y, int x)
{
	char *s = wt_text_at(win, y, x, getmaxx(win) - x);
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
	return s;
}

/* wt_at() inside a framed box: its right edge (a light or heavy line) and
 * the blanks before it trimmed too. */
char *
wt_in_box(WINDOW *win, int y, int x)
{
	char *s = wt_at(win, y, x);
	size_t n = strlen(s);

	if (n >= 3 && (strcmp(s + n - 3, "\xe2\x94\x82") == 0 || strcmp(s + n - 3, "\xe2\x94\x83") == 0))
		s[n -= 3] = '\0';
	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
	return s;
}

struct wt_got
wt_cell(WINDOW *win, int y, int x)
{
	struct wt_got g;
	cchar_t cc;
	short sp;

	memset(&g, 0, sizeof(g));
	assert_int_equal(mvwin_wch(win, y, x, &cc), OK);
	assert_int_equal(getcchar(&cc, g.wch, &g.attr, &sp, &g.pair), OK);
	return g;
}

/* Column of needle in row y of win, -1 when absent (by characters). */
int
wt_col_of(WINDOW *win, int y, const char *needle)
{
	const char *r = wt_row(win, y), *p = strstr(r, needle);

	if (p == NULL)
		return -1;
	return (int)mbstowcs(NULL, strndupa(r, (size_t)(p - r)), 0);
}

/* A vector of copies of the arguments up to NULL. */
char **
wt_strv(const char *first, ...)
{
	char **v = NULL;
	va_list ap;

	va_start(ap, first);
	for (const char *a = first; a != NULL; a = va_arg(ap, const char *))
		lz_strv_push(&v, a);
	va_end(ap);
	return v;
}

/* Show panels and windows as the terminal would; curscr then holds it. */
void
wt_show(void)
{
	wnoutrefresh(stdscr);
	update_panels();
	doupdate();
}


