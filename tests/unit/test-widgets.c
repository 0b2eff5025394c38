/* test-widgets.c - the workbench widgets drawn on a real ncurses screen
 * (newterm on /dev/null, xterm-256color, 80x24) and read back cell by cell
 * from the windows and from curscr, i.e. what the user's terminal shows. */
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
#include <sys/stat.h>
#include <unistd.h>

#include "diffview.h"
#include "editform.h"
#include "newtab.h"
#include "pathcomp.h"
#include "reqprompt.h"
#include "reqview.h"
#include "shellwords.h"
#include "sidelist.h"
#include "statusline.h"
#include "strv.h"
#include "tabbar.h"
#include "term-draw.h"
#include "textview.h"
#include "wb/wb-keys.h"
#include "wb/wb-layout.h"
#include "widget.h"

/* The panel library allocates the stdscr pseudo-panel of a SCREEN once and
 * frees it only in ncurses builds with --disable-leaks (not Debian's).
 * Windows leaked by a widget are still caught: newwin is not suppressed. */
const char *__lsan_default_suppressions(void);
const char *
__lsan_default_suppressions(void)
{
	return "leak:new_panel\n";
}

struct fixture {
	FILE *out, *in;
	SCREEN *scr;
	struct term_draw *d;
	struct widget_palette pal;
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

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

static int
teardown(void **state)
{
	struct fixture *f = *state;

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
static char *
text_at(WINDOW *win, int y, int x, int n)
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
static char *
row(WINDOW *win, int y)
{
	char *s = text_at(win, y, 0, getmaxx(win));
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
	return s;
}

/* Row y of win from column x to its end, trailing blanks trimmed. */
static char *
at(WINDOW *win, int y, int x)
{
	char *s = text_at(win, y, x, getmaxx(win) - x);
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
	return s;
}

/* at() inside a framed box: its right edge (a light or heavy line) and
 * the blanks before it trimmed too. */
static char *
in_box(WINDOW *win, int y, int x)
{
	char *s = at(win, y, x);
	size_t n = strlen(s);

	if (n >= 3 && (strcmp(s + n - 3, "\xe2\x94\x82") == 0 || strcmp(s + n - 3, "\xe2\x94\x83") == 0))
		s[n -= 3] = '\0';
	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
	return s;
}

struct got {
	wchar_t wch[CCHARW_MAX + 1];
	attr_t attr;
	int pair;
};

static struct got
cell(WINDOW *win, int y, int x)
{
	struct got g;
	cchar_t cc;
	short sp;

	memset(&g, 0, sizeof(g));
	assert_int_equal(mvwin_wch(win, y, x, &cc), OK);
	assert_int_equal(getcchar(&cc, g.wch, &g.attr, &sp, &g.pair), OK);
	return g;
}

/* Column of needle in row y of win, -1 when absent (by characters). */
static int
col_of(WINDOW *win, int y, const char *needle)
{
	const char *r = row(win, y), *p = strstr(r, needle);

	if (p == NULL)
		return -1;
	return (int)mbstowcs(NULL, strndupa(r, (size_t)(p - r)), 0);
}

/* A vector of copies of the arguments up to NULL. */
static char **
strv(const char *first, ...)
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
static void
show(void)
{
	wnoutrefresh(stdscr);
	update_panels();
	doupdate();
}

static void
test_widget_palette_follows_the_theme(void **state)
{
	struct fixture *f = *state;
	struct widget_palette pal;
	struct theme *th = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int fg, bg;

	assert_int_equal(theme_load("themes/light.yaml", &th, &err), 0);
	widget_palette_init(&pal, th, f->d);
	/* #005f87 is palette entry 24 exactly on a 256-colour terminal. */
	assert_int_equal(extended_pair_content(pal.style[THEME_TAB_ACTIVE].pair, &fg, &bg), OK);
	assert_int_equal(fg, 231);
	assert_int_equal(bg, 24);
	assert_true(pal.style[THEME_TAB_ACTIVE].attr & A_BOLD);
	assert_true(pal.style[THEME_PANEL_TITLE].attr & A_UNDERLINE);
	assert_int_equal(extended_pair_content(pal.style[THEME_BORDER].pair, &fg, &bg), OK);
	assert_int_equal(fg, 244);
	assert_int_equal(bg, -1);
	theme_free(th);
	/* The default theme: its status line is black on white. */
	assert_int_equal(extended_pair_content(f->pal.style[THEME_STATUS].pair, &fg, &bg), OK);
	assert_int_equal(fg, COLOR_BLACK);
	assert_int_equal(bg, COLOR_WHITE);
	/* Without colours: attributes only, pair 0 everywhere. */
	widget_palette_mono(&pal);
	assert_int_equal(pal.style[THEME_TAB_ACTIVE].pair, 0);
	assert_true(pal.style[THEME_TAB_ACTIVE].attr & A_BOLD);
}

/* Last of all: deleting a second SCREEN clears ncurses' globals (stdscr,
 * SP) even when it is not the current one, so no test may follow. */
static void
test_widget_palette_on_eight_colours_makes_bright_bold(void **state)
{
	FILE *o = fopen("/dev/null", "w"), *i = fopen("/dev/null", "r");
	SCREEN *scr8 = newterm("xterm", o, i);
	struct widget_palette pal;
	struct theme *th = NULL;
	lz_err_t err = LZ_ERR_INIT;
	struct term_draw *d8;
	int fg, bg;

	(void)state;
	assert_non_null(scr8);
	set_term(scr8);
	start_color();
	d8 = term_draw_new();
	assert_int_equal(theme_load("themes/high-contrast.yaml", &th, &err), 0);
	widget_palette_init(&pal, th, d8);
	assert_int_equal(extended_pair_content(pal.style[THEME_TAB_INACTIVE].pair, &fg, &bg), OK);
	assert_int_equal(fg, COLOR_WHITE);
	assert_int_equal(bg, COLOR_BLACK);
	assert_true(pal.style[THEME_TAB_INACTIVE].attr & A_BOLD);
	assert_false(pal.style[THEME_TAB_ACTIVE].attr & A_BLINK);
	assert_true(pal.style[THEME_TAB_ALERT].attr & A_BLINK);
	theme_free(th);
	term_draw_free(d8);
	endwin();
	delscreen(scr8);
	fclose(o);
	fclose(i);
}

static void
test_widget_keys_keep_function_keys_apart_from_characters(void **state)
{
	(void)state;
	assert_int_equal(widget_key_from_wch(KEY_CODE_YES, KEY_UP), WIDGET_KEY_FN(KEY_UP));
	assert_int_equal(widget_key_from_wch(OK, KEY_UP), KEY_UP);	/* U+0103, a character */
	assert_int_not_equal(widget_key_from_wch(OK, KEY_UP), widget_key_from_wch(KEY_CODE_YES, KEY_UP));
	assert_int_equal(widget_key_from_wch(OK, L'a'), 'a');
	assert_int_equal(widget_key_from_wch(ERR, 0), WIDGET_KEY_NONE);
	assert_int_equal(widget_key_from_wch(OK, 0x110000), WIDGET_KEY_NONE);
	assert_true(widget_key_is_enter('\r'));
	assert_true(widget_key_is_enter(WIDGET_KEY_FN(KEY_ENTER)));
	assert_false(widget_key_is_enter(KEY_ENTER));
	assert_true(widget_key_is_backspace(127));
	assert_true(widget_key_is_backspace(WIDGET_KEY_FN(KEY_BACKSPACE)));
}

static void
test_widget_put_cuts_by_display_width_never_inside_a_character(void **state)
{
	struct fixture *f = *state;
	WINDOW *w = newwin(3, 20, 0, 0);
	size_t used;

	/* Two-column CJK: 5 columns hold two of them, not two and a half. */
	assert_int_equal(widget_put(w, 0, 0, "\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2", 9, 5, NULL, 0, &used), 4);
	assert_int_equal(used, 6);
	assert_string_equal(row(w, 0), "\xe6\xbc\xa2\xe5\xad\x97");
	/* With an ellipsis the cut is marked, still by width. */
	assert_int_equal(widget_puts(w, 1, 0, "abcdefghij", 5, NULL), 5);
	assert_string_equal(row(w, 1), "abcd\xe2\x80\xa6");
	assert_int_equal(widget_puts(w, 2, 0, "\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2", 5, NULL), 5);
	assert_string_equal(row(w, 2), "\xe6\xbc\xa2\xe5\xad\x97\xe2\x80\xa6");
	assert_int_equal(widget_width("a\xe6\xbc\xa2" "e\xcc\x81"), 4);
	/* What fits is not cut. */
	assert_int_equal(widget_puts(w, 1, 0, "12345", 5, NULL), 5);
	assert_string_equal(row(w, 1), "12345");
	/* A combining mark stays in its base's cell. */
	widget_put(w, 0, 0, "e\xcc\x81x", 4, 10, NULL, 0, NULL);
	assert_int_equal(cell(w, 0, 0).wch[0], L'e');
	assert_int_equal(cell(w, 0, 0).wch[1], 0x301);
	assert_int_equal(cell(w, 0, 1).wch[0], L'x');
	(void)f;
	delwin(w);
}

static void
test_widget_put_makes_control_characters_visible(void **state)
{
	WINDOW *w = newwin(2, 60, 0, 0);
	const char *s = "a\x1b[31mb\nc\rd\te\x01\x7f\xff\xe2\x80\xae\xc2\x9b";
	struct got g;

	(void)state;
	assert_int_equal(widget_put(w, 0, 0, s, strlen(s), 60, NULL, 0, NULL), widget_width(s));
	assert_string_equal(row(w, 0), "a^[[31mb\\nc\\rd\\te^A^?\\xff<U+202E><U+009B>");
	/* The stand-ins are reversed, the text around them is not. */
	assert_false(cell(w, 0, 0).attr & A_REVERSE);
	assert_true(cell(w, 0, 1).attr & A_REVERSE);
	assert_true(cell(w, 0, 2).attr & A_REVERSE);
	assert_false(cell(w, 0, 3).attr & A_REVERSE);
	g = cell(w, 0, col_of(w, 0, "\\n"));
	assert_true(g.attr & A_REVERSE);
	/* A stand-in is not split either: "^[" does not fit in 2 after "ab". */
	assert_int_equal(widget_put(w, 1, 0, "ab\x1b", 3, 3, NULL, 0, NULL), 2);
	assert_string_equal(row(w, 1), "ab");
	delwin(w);
}

static void
test_tabbar_shows_profile_workspace_state_and_alert(void **state)
{
	struct fixture *f = *state;
	struct tabbar *tb = tabbar_new();
	const struct tabbar_tab tabs[] = {
		{ "web", "/home/u/src/proj/", "running", false },
		{ "ml", "/data/model", "exited 1", true },
		{ "shell", "/", NULL, false },
	};
	int a, m;

	tabbar_set(tb, tabs, 3, 0);
	tabbar_draw(tb, stdscr, 0, 0, 80, &f->pal);
	assert_string_equal(row(stdscr, 0), " 0:web proj running   !1:ml model exited 1   2:shell /");
	/* Active tab in the active style, the waiting one in the alert style. */
	a = col_of(stdscr, 0, "0:web");
	m = col_of(stdscr, 0, "!1:ml");
	assert_int_equal(cell(stdscr, 0, a).pair, f->pal.style[THEME_TAB_ACTIVE].pair);
	assert_true(cell(stdscr, 0, a).attr & A_BOLD);
	assert_int_equal(cell(stdscr, 0, a - 1).pair, f->pal.style[THEME_TAB_ACTIVE].pair);
	assert_int_equal(cell(stdscr, 0, m + 2).pair, f->pal.style[THEME_TAB_ALERT].pair);
	assert_int_not_equal(f->pal.style[THEME_TAB_ALERT].pair, f->pal.style[THEME_TAB_ACTIVE].pair);
	assert_int_equal(cell(stdscr, 0, col_of(stdscr, 0, "2:shell")).pair, f->pal.style[THEME_TAB_INACTIVE].pair);
	assert_int_equal(tabbar_hit(tb, a), 0);
	assert_int_equal(tabbar_hit(tb, m), 1);
	assert_int_equal(tabbar_hit(tb, 79), -1);
	/* The active waiting tab keeps its mark in the alert style. */
	tabbar_set(tb, tabs, 3, 1);
	tabbar_draw(tb, stdscr, 0, 0, 80, &f->pal);
	m = col_of(stdscr, 0, "!1:ml");
	assert_int_equal(cell(stdscr, 0, m).pair, f->pal.style[THEME_TAB_ALERT].pair);
	assert_int_equal(cell(stdscr, 0, m + 1).pair, f->pal.style[THEME_TAB_ACTIVE].pair);
	assert_int_equal(tabbar_active(tb), 1);
	assert_int_equal(tabbar_handle_key(tb, WIDGET_KEY_FN(KEY_RIGHT)), TABBAR_NEXT);
	assert_int_equal(tabbar_handle_key(tb, WIDGET_KEY_FN(KEY_LEFT)), TABBAR_PREV);
	assert_int_equal(tabbar_handle_key(tb, 'z'), TABBAR_NONE);
	tabbar_free(tb);
}

static void
test_tabbar_scrolls_to_keep_the_active_tab_whole(void **state)
{
	struct fixture *f = *state;
	struct tabbar *tb = tabbar_new();
	struct tabbar_tab tabs[12];
	char *r;

	for (int i = 0; i < 12; i++)
		tabs[i] = (struct tabbar_tab){ "profile", "/w/workspace", "running", false };
	tabs[11].profile = "\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97";
	tabbar_set(tb, tabs, 12, 0);
	tabbar_draw(tb, stdscr, 0, 0, 80, &f->pal);
	r = row(stdscr, 0);
	assert_non_null(strstr(r, " 0:profile workspace running "));
	assert_null(strstr(r, "11:"));
	assert_int_equal((int)(strlen(r) - strlen(strrchr(r, '>'))), 79);
	tabbar_set(tb, tabs, 12, 11);
	tabbar_draw(tb, stdscr, 0, 0, 80, &f->pal);
	r = row(stdscr, 0);
	assert_true(r[0] == '<');
	assert_null(strstr(r, " 0:profile"));
	/* The long CJK title is cut at TABBAR_TITLE_MAX columns, by width. */
	assert_non_null(strstr(r, "11:\xe6\xbc\xa2\xe5\xad\x97"));
	assert_non_null(strstr(r, "\xe2\x80\xa6"));
	assert_int_equal(tabbar_hit(tb, col_of(stdscr, 0, "11:")), 11);
	tabbar_free(tb);
}

/* The mouse: which list and item a row shows; the wheel scrolls a list's view. */
static void
test_sidelist_hit_and_wheel(void **state)
{
	struct fixture *f = *state;
	struct sidelist *sl = sidelist_new();
	const struct sidelist_item q[] = { { "r1", "req one", true }, { "r2", "req two", true } };
	enum sidelist_list which;
	long index;
	char line[32];
	int x = 40;

	sidelist_set(sl, SIDELIST_QUEUE, q, 2);
	for (int i = 0; i < 30; i++) {
		struct sidelist_item it = { NULL, line, false };

		snprintf(line, sizeof line, "event %02d", i);
		sidelist_append(sl, SIDELIST_AUDIT, &it);
	}
	assert_false(sidelist_hit(sl, 1, &which, &index));	/* nothing drawn yet */
	sidelist_draw(sl, stdscr, 1, x, 21, 40, &f->pal);
	assert_true(sidelist_hit(sl, 1, &which, &index));
	assert_int_equal(which, SIDELIST_QUEUE);
	assert_int_equal(index, -1);	/* the title */
	assert_true(sidelist_hit(sl, 3, &which, &index));
	assert_int_equal(index, 1);
	assert_true(sidelist_hit(sl, 4, &which, &index));
	assert_int_equal(index, -1);	/* the queue's bottom edge */
	/* the audit box (rows 5..19, items 6..18) follows its newest line:
	 * rows 6..18 show events 17..29 */
	assert_string_equal(in_box(stdscr, 9, x + 2), "event 20");
	assert_true(sidelist_hit(sl, 9, &which, &index));
	assert_int_equal(which, SIDELIST_AUDIT);
	assert_int_equal(index, 20);
	assert_true(sidelist_hit(sl, 19, &which, &index));
	assert_int_equal(index, -1);	/* its bottom edge, not event 30 */
	sidelist_scroll(sl, SIDELIST_AUDIT, -3);
	sidelist_draw(sl, stdscr, 1, x, 21, 40, &f->pal);
	assert_string_equal(in_box(stdscr, 9, x + 2), "event 17");
	assert_true(sidelist_hit(sl, 9, &which, &index));
	assert_int_equal(index, 17);
	sidelist_scroll(sl, SIDELIST_AUDIT, -100);
	sidelist_draw(sl, stdscr, 1, x, 21, 40, &f->pal);
	assert_string_equal(in_box(stdscr, 9, x + 2), "event 03");
	sidelist_scroll(sl, SIDELIST_AUDIT, 100);
	sidelist_draw(sl, stdscr, 1, x, 21, 40, &f->pal);
	assert_string_equal(in_box(stdscr, 9, x + 2), "event 20");
	/* the empty lists: one row each */
	assert_true(sidelist_hit(sl, 20, &which, &index));
	assert_int_equal(which, SIDELIST_EGRESS);
	assert_true(sidelist_hit(sl, 21, &which, &index));
	assert_int_equal(which, SIDELIST_REVIEW);
	assert_false(sidelist_hit(sl, 22, &which, &index));
	sidelist_free(sl);
}

static void
test_sidelist_shows_three_titled_lists_and_the_selection(void **state)
{
	struct fixture *f = *state;
	struct sidelist *sl = sidelist_new();
	const struct sidelist_item q[] = {
		{ "r1", "3f2a web: make test", true },
		{ "r2", "9c01 web: npm install", true },
	};
	const struct sidelist_item au[] = {
		{ NULL, "12:01 approved make test", false },
	};
	int x = 40;

	sidelist_set(sl, SIDELIST_QUEUE, q, 2);
	sidelist_set(sl, SIDELIST_AUDIT, au, 1);
	sidelist_draw(sl, stdscr, 1, x, 21, 40, &f->pal);
	/* Framed boxes sized by content: the queue's two items (rows 1..4),
	 * the audit box with the rows left over (5..19), the empty lists a
	 * line each, their title on a rule. */
	assert_string_equal(text_at(stdscr, 1, x + 2, 15), "Escalations (2)");
	assert_int_equal(cell(stdscr, 1, x).wch[0], 0x250c);
	assert_int_equal(cell(stdscr, 1, x + 39).wch[0], 0x2510);
	assert_int_equal(cell(stdscr, 4, x).wch[0], 0x2514);
	assert_int_equal(cell(stdscr, 2, x).wch[0], 0x2502);
	assert_string_equal(in_box(stdscr, 2, x + 2), "3f2a web: make test");
	assert_string_equal(in_box(stdscr, 3, x + 2), "9c01 web: npm install");
	assert_string_equal(text_at(stdscr, 5, x + 2, 9), "Audit (1)");
	assert_string_equal(in_box(stdscr, 6, x + 2), "12:01 approved make test");
	assert_int_equal(cell(stdscr, 19, x).wch[0], 0x2514);
	assert_string_equal(text_at(stdscr, 20, x + 2, 10), "Egress (0)");
	assert_int_equal(cell(stdscr, 20, x).wch[0], 0x2500);
	assert_int_equal(cell(stdscr, 20, x + 39).wch[0], 0x2500);
	assert_string_equal(text_at(stdscr, 21, x + 2, 10), "Review (0)");
	assert_int_equal(cell(stdscr, 1, x).pair, f->pal.style[THEME_BORDER].pair);
	/* Unfocused: waiting items in the alert style, no selection bar. */
	assert_int_equal(cell(stdscr, 2, x + 2).pair, f->pal.style[THEME_TAB_ALERT].pair);
	sidelist_set_focus(sl, true);
	assert_int_equal(sidelist_handle_key(sl, WIDGET_KEY_FN(KEY_DOWN)), SIDELIST_NONE);
	sidelist_draw(sl, stdscr, 1, x, 21, 40, &f->pal);
	assert_int_equal(cell(stdscr, 3, x + 2).pair, f->pal.style[THEME_PANEL_SELECTED].pair);
	assert_int_equal(cell(stdscr, 2, x + 2).pair, f->pal.style[THEME_TAB_ALERT].pair);
	assert_true(cell(stdscr, 1, x + 2).attr & A_REVERSE);	/* focused list's title */
	/* Focus shows in the frame: heavy, bold, in the panel.focus style; the
	 * box keeps its size (spare rows stay the Audit list's). */
	assert_int_equal(cell(stdscr, 1, x).wch[0], 0x250f);
	assert_int_equal(cell(stdscr, 4, x).wch[0], 0x2517);
	assert_true(cell(stdscr, 1, x).attr & A_BOLD);
	assert_int_equal(cell(stdscr, 1, x).pair, f->pal.style[THEME_PANEL_FOCUS].pair);
	assert_string_equal(text_at(stdscr, 5, x + 2, 9), "Audit (1)");
	assert_string_equal(sidelist_selected_id(sl, SIDELIST_QUEUE), "r2");
	/* a only opens the request: the list never approves. */
	assert_int_equal(sidelist_handle_key(sl, 'a'), SIDELIST_OPEN);
	assert_int_equal(sidelist_handle_key(sl, 'D'), SIDELIST_DENY);
	assert_int_equal(sidelist_handle_key(sl, 'e'), SIDELIST_EDIT);
	assert_int_equal(sidelist_handle_key(sl, 'q'), SIDELIST_QUIT);
	assert_int_equal(sidelist_handle_key(sl, '\r'), SIDELIST_OPEN);
	assert_int_equal(sidelist_handle_key(sl, WIDGET_KEY_ESC), SIDELIST_UNFOCUS);
	/* The queue changes under the selection: it stays on r2. */
	sidelist_set(sl, SIDELIST_QUEUE, &q[1], 1);
	assert_string_equal(sidelist_selected_id(sl, SIDELIST_QUEUE), "r2");
	sidelist_set(sl, SIDELIST_QUEUE, NULL, 0);
	assert_null(sidelist_selected_id(sl, SIDELIST_QUEUE));
	assert_int_equal(sidelist_selected(sl, SIDELIST_QUEUE), -1);
	assert_int_equal(sidelist_handle_key(sl, 'a'), SIDELIST_NONE);
	/* Tab moves to the audit list, where a/d/e do nothing. */
	assert_int_equal(sidelist_handle_key(sl, WIDGET_KEY_TAB), SIDELIST_NONE);
	assert_int_equal(sidelist_current(sl), SIDELIST_AUDIT);
	assert_int_equal(sidelist_handle_key(sl, 'a'), SIDELIST_NONE);
	assert_int_equal(sidelist_handle_key(sl, WIDGET_KEY_FN(KEY_BTAB)), SIDELIST_NONE);
	assert_int_equal(sidelist_current(sl), SIDELIST_QUEUE);
	sidelist_free(sl);
}

static void
test_sidelist_empty_lists_take_one_row_each(void **state)
{
	struct fixture *f = *state;
	struct sidelist *sl = sidelist_new();
	const struct sidelist_item rv[] = {
		{ NULL, "0 default:ws 3 unreviewed, 2 flags", true },
		{ NULL, "1 web:site 0 unreviewed, 0 flags", false },
	};

	erase();
	sidelist_set(sl, SIDELIST_REVIEW, rv, 2);
	sidelist_draw(sl, stdscr, 0, 0, 24, 40, &f->pal);
	/* The three empty lists a row each, the review box the rest. */
	assert_string_equal(text_at(stdscr, 0, 2, 15), "Escalations (0)");
	assert_string_equal(text_at(stdscr, 1, 2, 9), "Audit (0)");
	assert_string_equal(text_at(stdscr, 2, 2, 10), "Egress (0)");
	assert_string_equal(text_at(stdscr, 3, 2, 10), "Review (2)");
	assert_string_equal(in_box(stdscr, 4, 2), "0 default:ws 3 unreviewed, 2 flags");
	assert_string_equal(in_box(stdscr, 5, 2), "1 web:site 0 unreviewed, 0 flags");
	assert_int_equal(cell(stdscr, 4, 2).pair, f->pal.style[THEME_TAB_ALERT].pair);
	assert_int_equal(cell(stdscr, 23, 0).wch[0], 0x2514);
	sidelist_free(sl);
}

/* The owner's loop: feed the stream from line *next while the view wants. */
static size_t
dv_pump(struct diffview *dv, size_t *next, size_t total)
{
	char line[64];
	size_t fed = 0;

	while (*next < total && diffview_wants(dv)) {
		if (*next == 0)
			snprintf(line, sizeof line, "diff --git a/x b/x\n");
		else if (*next == 1)
			snprintf(line, sizeof line, "@@ -0,0 +1,%zu @@\n", total - 2);
		else
			snprintf(line, sizeof line, "+line %zu\n", *next - 1);
		diffview_feed(dv, line, strlen(line));
		(*next)++;
		fed++;
	}
	if (*next == total)
		diffview_eof(dv, true);
	return fed;
}

static void
test_diffview_reads_only_what_the_screen_needs(void **state)
{
	struct fixture *f = *state;
	struct diffview *dv = diffview_new();
	size_t next = 0, total = 10002, skip = 99;
	char pos[128];

	erase();
	diffview_draw(dv, stdscr, 0, 0, 20, 80, &f->pal);
	/* The screen and DIFFVIEW_AHEAD lines, then the reader is told to wait. */
	assert_int_equal(dv_pump(dv, &next, total), 20 + DIFFVIEW_AHEAD);
	assert_false(diffview_wants(dv));
	diffview_draw(dv, stdscr, 0, 0, 20, 80, &f->pal);
	assert_string_equal(at(stdscr, 0, 0), "diff --git a/x b/x");
	assert_string_equal(at(stdscr, 2, 0), "+line 1");
	assert_int_equal(cell(stdscr, 2, 0).pair, f->pal.style[THEME_DIFF_ADD].pair);
	assert_int_equal(cell(stdscr, 1, 0).pair, f->pal.style[THEME_DIFF_HUNK].pair);
	assert_true(cell(stdscr, 0, 0).attr & A_BOLD);
	/* A page down reads a page more. */
	assert_true(diffview_handle_key(dv, WIDGET_KEY_FN(KEY_NPAGE)));
	assert_int_equal(dv_pump(dv, &next, total), 19);
	/* G reads to the end, keeping only the last DIFFVIEW_WINDOW lines. */
	assert_true(diffview_handle_key(dv, 'G'));
	dv_pump(dv, &next, total);
	assert_true(diffview_at_eof(dv));
	diffview_draw(dv, stdscr, 0, 0, 20, 80, &f->pal);
	assert_string_equal(at(stdscr, 19, 0), "+line 10000");
	diffview_position(dv, pos, sizeof pos);
	assert_string_equal(pos, "lines 9983-10002 of 10002");
	assert_false(diffview_needs_restart(dv, &skip));
	/* g goes above the window: the stream must start again, from 0. */
	assert_true(diffview_handle_key(dv, 'g'));
	assert_true(diffview_needs_restart(dv, &skip));
	assert_int_equal(skip, 0);
	diffview_restart(dv, skip);
	next = 0;
	dv_pump(dv, &next, total);
	assert_int_equal(next, 20 + DIFFVIEW_AHEAD);
	diffview_draw(dv, stdscr, 0, 0, 20, 80, &f->pal);
	assert_string_equal(at(stdscr, 2, 0), "+line 1");
	/* A search reads on until it finds its line, which goes to the top. */
	diffview_search(dv, "line 5000");
	assert_true(diffview_wants(dv));
	dv_pump(dv, &next, total);
	diffview_draw(dv, stdscr, 0, 0, 20, 80, &f->pal);
	assert_string_equal(at(stdscr, 0, 0), "+line 5000");
	assert_true(next < total);
	diffview_free(dv);
}

static void
test_diffview_cuts_long_lines_and_shows_controls(void **state)
{
	struct fixture *f = *state;
	struct diffview *dv = diffview_new();
	char *big = malloc(100000);

	erase();
	memset(big, 'x', 100000);
	big[0] = '+';
	diffview_feed(dv, "diff --git a/x b/x\n@@ -1 +1 @@\n-\told\x1b[2J\n", 41);
	diffview_feed(dv, big, 100000);
	diffview_feed(dv, "\n+end\n", 6);
	diffview_eof(dv, true);
	diffview_draw(dv, stdscr, 0, 0, 10, 80, &f->pal);
	/* Tabs expanded; the agent's ESC is shown, never sent. */
	assert_string_equal(text_at(stdscr, 2, 0, 13), "-       old^[");
	assert_int_equal(cell(stdscr, 2, 0).pair, f->pal.style[THEME_DIFF_DEL].pair);
	assert_string_equal(at(stdscr, 4, 0), "+end");
	free(big);
	diffview_free(dv);
}

static void
test_sidelist_scrolls_logs_and_keeps_the_newest(void **state)
{
	struct fixture *f = *state;
	struct sidelist *sl = sidelist_new();
	char text[64];

	erase();
	for (int i = 0; i < SIDELIST_LOG_MAX + 20; i++) {
		snprintf(text, sizeof(text), "egress %d", i);
		sidelist_append(sl, SIDELIST_EGRESS, &(struct sidelist_item){ NULL, text, false });
	}
	assert_int_equal(sidelist_count(sl, SIDELIST_EGRESS), SIDELIST_LOG_MAX);
	/* The selection followed the tail: the newest line is shown. */
	assert_int_equal(sidelist_selected(sl, SIDELIST_EGRESS), SIDELIST_LOG_MAX - 1);
	sidelist_set_current(sl, SIDELIST_EGRESS);
	sidelist_set_focus(sl, true);
	sidelist_draw(sl, stdscr, 0, 0, 21, 40, &f->pal);
	/* Egress box rows 2..19, items 3..18; Review on row 20 */
	assert_string_equal(in_box(stdscr, 18, 2), "egress 519");
	assert_string_equal(text_at(stdscr, 2, 2, 12), "Egress (500)");
	assert_string_equal(text_at(stdscr, 2, 37, 1), "^");
	assert_int_equal(cell(stdscr, 18, 2).pair, f->pal.style[THEME_PANEL_SELECTED].pair);
	sidelist_handle_key(sl, WIDGET_KEY_FN(KEY_HOME));
	sidelist_draw(sl, stdscr, 0, 0, 21, 40, &f->pal);
	assert_string_equal(in_box(stdscr, 3, 2), "egress 20");
	assert_string_equal(text_at(stdscr, 2, 37, 1), "v");
	sidelist_handle_key(sl, WIDGET_KEY_FN(KEY_NPAGE));
	assert_int_equal(sidelist_selected(sl, SIDELIST_EGRESS), 15);
	/* Fewer than 6 rows: only the current list, with its title. */
	werase(stdscr);
	sidelist_draw(sl, stdscr, 0, 0, 4, 40, &f->pal);
	assert_string_equal(text_at(stdscr, 0, 1, 12), "Egress (500)");
	assert_null(strstr(row(stdscr, 1), "Escalations"));
	assert_string_equal(row(stdscr, 4), "");
	sidelist_free(sl);
}

/* / in a list: the selection goes to the item holding the text as it is
 * typed, n/N go on, Esc while typing drops the search, and while typing
 * the list's own keys (d, q, Esc) are the query's. */
static void
test_sidelist_search_moves_the_selection(void **state)
{
	struct fixture *f = *state;
	struct sidelist *sl = sidelist_new();
	const struct sidelist_item au[] = {
		{ "1", "07:01 session  you     started session 1", false },
		{ "2", "07:02 request  agent   asked to run make test", false },
		{ "3", "07:03 decision you     denied curl evil.example", true },
		{ "4", "07:04 request  agent   asked to run make all", false },
	};

	erase();
	sidelist_set(sl, SIDELIST_AUDIT, au, 4);
	sidelist_select(sl, SIDELIST_AUDIT, 0);
	sidelist_set_current(sl, SIDELIST_AUDIT);
	sidelist_set_focus(sl, true);
	assert_int_equal(sidelist_handle_key(sl, '/'), SIDELIST_NONE);
	assert_true(sidelist_searching(sl));
	for (const char *k = "MAKE"; *k != '\0'; k++)
		assert_int_equal(sidelist_handle_key(sl, *k), SIDELIST_NONE);
	assert_string_equal(sidelist_selected_id(sl, SIDELIST_AUDIT), "2");
	sidelist_draw(sl, stdscr, 0, 0, 20, 50, &f->pal);
	assert_non_null(strstr(row(stdscr, 17), "/MAKE_"));	/* on the box's bottom edge */
	assert_int_equal(sidelist_handle_key(sl, '\r'), SIDELIST_NONE);
	assert_false(sidelist_searching(sl));
	assert_int_equal(sidelist_handle_key(sl, 'n'), SIDELIST_NONE);
	assert_string_equal(sidelist_selected_id(sl, SIDELIST_AUDIT), "4");
	assert_int_equal(sidelist_handle_key(sl, 'n'), SIDELIST_NONE);	/* wraps */
	assert_string_equal(sidelist_selected_id(sl, SIDELIST_AUDIT), "2");
	assert_int_equal(sidelist_handle_key(sl, 'N'), SIDELIST_NONE);
	assert_string_equal(sidelist_selected_id(sl, SIDELIST_AUDIT), "4");
	/* typing takes d, q and Esc: no deny, no quit, no unfocus */
	assert_int_equal(sidelist_handle_key(sl, '/'), SIDELIST_NONE);
	for (const char *k = "dq evil"; *k != '\0'; k++)
		sidelist_handle_key(sl, *k);
	assert_true(sidelist_searching(sl));
	sidelist_handle_key(sl, WIDGET_KEY_FN(KEY_BACKSPACE));
	for (size_t i = 0; i < 7; i++)
		sidelist_handle_key(sl, 127);
	for (const char *k = "evil"; *k != '\0'; k++)
		sidelist_handle_key(sl, *k);
	assert_string_equal(sidelist_selected_id(sl, SIDELIST_AUDIT), "3");
	assert_int_equal(sidelist_handle_key(sl, WIDGET_KEY_ESC), SIDELIST_NONE);
	assert_false(sidelist_searching(sl));
	assert_int_equal(sidelist_handle_key(sl, WIDGET_KEY_ESC), SIDELIST_UNFOCUS);
	/* nothing holds it: said on the edge, the selection stays */
	sidelist_handle_key(sl, '/');
	sidelist_handle_key(sl, 'z');
	sidelist_handle_key(sl, '\r');
	assert_string_equal(sidelist_selected_id(sl, SIDELIST_AUDIT), "3");
	sidelist_draw(sl, stdscr, 0, 0, 20, 50, &f->pal);
	assert_non_null(strstr(row(stdscr, 17), "/z (none)"));
	sidelist_free(sl);
}

/* Keys to a prompt from time t on, one ms apart; the last action. */
static enum reqprompt_action
reqprompt_keys(struct reqprompt *p, const char *keys, uint64_t *t)
{
	enum reqprompt_action a = REQPROMPT_NONE;

	for (; *keys != '\0'; keys++)
		a = reqprompt_key_at(p, (unsigned char)*keys, ++*t);
	return a;
}

static void
test_reqprompt_shows_the_command_first_then_the_justification(void **state)
{
	struct fixture *f = *state;
	char **argv = strv("make", "test", "FOO=\x1b[31m red", "a\nb", NULL);
	struct reqview_request req = {
		.request_id = "3f2a9c0112345678", .profile = "web",
		.justification = "run the test suite on the host", .cwd = "/workspace", .argv = argv,
	};
	struct reqprompt *p;
	WINDOW *w;
	char *cmd, **back = NULL, chord[8];
	lz_err_t err = LZ_ERR_INIT;
	uint64_t t = 1000;
	int y, x;

	mvaddstr(12, 0, "shell output under the prompt");
	p = reqprompt_new(&req, LINES, COLS);
	reqprompt_restart(p, NULL, NULL, t);
	reqprompt_draw(p, &f->pal);
	show();
	w = reqprompt_window(p);
	assert_int_equal(getmaxx(w), 76);
	y = getbegy(w);
	x = getbegx(w);
	/* What the terminal shows, read from curscr: the command first, whole. */
	assert_non_null(strstr(row(curscr, y), "Host escalation request"));
	assert_non_null(strstr(row(curscr, y + 1), "Command, 4 words:"));
	assert_non_null(strstr(row(curscr, y + 2), "  make test $'FOO=\\x1b[31m red' $'a\\nb'"));
	assert_non_null(strstr(row(curscr, y + 3), "Justification (the agent's words):"));
	assert_non_null(strstr(row(curscr, y + 4), "  | run the test suite on the host"));
	assert_non_null(strstr(row(curscr, y + 5), "Request 3f2a9c0112345678"));
	assert_non_null(strstr(row(curscr, y + 6), "Profile web"));
	assert_non_null(strstr(row(curscr, y + 7), "Directory /workspace"));
	/* Not armed yet: the action row says so. */
	assert_non_null(strstr(row(curscr, y + 9), "read the request"));
	assert_true(cell(curscr, y + 2, col_of(curscr, y + 2, "make")).attr & A_BOLD);
	/* The prompt covers what was under it, border and all. */
	assert_int_equal(cell(curscr, y, x).wch[0], 0x250c);
	assert_null(strstr(row(curscr, 12), "shell output"));
	/* Keys before it arms are discarded, and keep it disarmed. */
	assert_int_equal(reqprompt_keys(p, "d", &t), REQPROMPT_NONE);
	assert_int_equal(reqprompt_last(p), REQVIEW_EARLY);
	t += REQVIEW_ARM_MS;
	assert_int_equal(reqprompt_arm_in(p, t), 0);
	reqprompt_draw(p, &f->pal);
	show();
	snprintf(chord, sizeof chord, "%c%c%c", reqprompt_code(p)[0] - 32 * (reqprompt_code(p)[0] >= 'a'),
		 reqprompt_code(p)[1] - 32 * (reqprompt_code(p)[1] >= 'a'), reqprompt_code(p)[2] - 32 * (reqprompt_code(p)[2] >= 'a'));
	assert_non_null(strstr(row(curscr, y + 9), "Enter: approve & run"));
	assert_int_equal(cell(curscr, y + 9, col_of(curscr, y + 9, chord)).pair, f->pal.style[THEME_PROMPT].pair);
	/* a alone, Enter alone: nothing. a, the code, Enter: approve. */
	assert_int_equal(reqprompt_keys(p, "a\r", &t), REQPROMPT_NONE);
	snprintf(chord, sizeof chord, "a%s\r", reqprompt_code(p));
	assert_int_equal(reqprompt_keys(p, chord, &t), REQPROMPT_APPROVE);
	assert_int_equal(reqprompt_keys(p, "D", &t), REQPROMPT_DENY);
	assert_int_equal(reqprompt_keys(p, "e", &t), REQPROMPT_EDIT);
	assert_int_equal(reqprompt_keys(p, "Q", &t), REQPROMPT_NONE);
	assert_int_equal(reqprompt_keys(p, "y", &t), REQPROMPT_QUIT);
	assert_int_equal(reqprompt_key_at(p, WIDGET_KEY_ESC, ++t), REQPROMPT_NONE);
	assert_int_equal(reqprompt_last(p), REQVIEW_CLOSE);
	/* A terminal's reply (ESC P folded to Alt-P) is reported, not obeyed. */
	assert_int_equal(reqprompt_key_at(p, 'P' | WIDGET_KEY_META, ++t), REQPROMPT_NONE);
	assert_int_equal(reqprompt_last(p), REQVIEW_REPLY);
	/* [E]dit starts from a string that splits back into the same argv. */
	cmd = reqprompt_command(p);
	assert_int_equal(lz_shellwords_split(cmd, strlen(cmd), &back, &err), 0);
	assert_int_equal(lz_strv_len(back), 4);
	assert_string_equal(back[2], argv[2]);
	assert_string_equal(back[3], argv[3]);
	lz_strv_free(back);
	free(cmd);
	/* An edit shown again: its own title, verb and a new code. */
	reqprompt_restart(p, "make check", "run the edited command", t);
	reqprompt_draw(p, &f->pal);
	show();
	w = reqprompt_window(p);
	assert_non_null(strstr(row(w, 0), "your edit"));
	assert_non_null(strstr(row(w, 1), "Command, 2 words:"));
	assert_non_null(strstr(row(w, 2), "  make check"));
	t += REQVIEW_ARM_MS;
	snprintf(chord, sizeof chord, "a%s\r", reqprompt_code(p));
	assert_int_equal(reqprompt_keys(p, chord, &t), REQPROMPT_APPROVE);
	cmd = reqprompt_command(p);
	assert_string_equal(cmd, "make check");
	free(cmd);
	reqprompt_free(p);
	lz_strv_free(argv);
	show();
	/* Gone: the screen under it shows again. */
	assert_non_null(strstr(row(curscr, 12), "shell output"));
	erase();
}

static void
test_reqprompt_splits_a_command_line_or_shows_why_not(void **state)
{
	struct fixture *f = *state;
	struct reqview_request req = { .request_id = "id", .profile = "web", .justification = "j",
				      .command = "grep -r 'a b' \"$HOME\"", .note = "not on the list" };
	struct reqprompt *p = reqprompt_new(&req, LINES, COLS);
	WINDOW *w = reqprompt_window(p);
	uint64_t t = 5000;
	char *cmd;

	reqprompt_draw(p, &f->pal);
	assert_non_null(strstr(row(w, 1), "Command, 4 words:"));
	assert_non_null(strstr(row(w, 2), "  grep -r 'a b' '$HOME'"));
	assert_non_null(strstr(row(w, 7), "Note: not on the list"));
	assert_int_equal(cell(w, 7, 3).pair, f->pal.style[THEME_TAB_ALERT].pair);
	/* [E]dit gets the line as the agent wrote it. */
	cmd = reqprompt_command(p);
	assert_string_equal(cmd, req.command);
	free(cmd);
	reqprompt_free(p);
	req.command = "echo 'unterminated\x1b";
	p = reqprompt_new(&req, LINES, COLS);
	reqprompt_restart(p, NULL, NULL, t);
	w = reqprompt_window(p);
	reqprompt_draw(p, &f->pal);
	assert_non_null(strstr(row(w, 1), "does not split into words, cannot run"));
	assert_int_equal(cell(w, 1, 3).pair, f->pal.style[THEME_TAB_ALERT].pair);
	assert_non_null(strstr(row(w, 3), "  echo 'unterminated\\x1b"));
	/* Nothing to approve: a is refused, d denies. */
	t += REQVIEW_ARM_MS;
	assert_int_equal(reqprompt_keys(p, "a", &t), REQPROMPT_NONE);
	assert_int_equal(reqprompt_last(p), REQVIEW_UNSEEN);
	assert_int_equal(reqprompt_keys(p, "d", &t), REQPROMPT_DENY);
	reqprompt_free(p);
}

static void
test_reqprompt_wraps_long_words_and_approves_only_what_was_seen(void **state)
{
	struct fixture *f = *state;
	char **argv = NULL;
	char longword[301], chord[8];
	struct reqview_request req = { .request_id = "id", .profile = "p", .justification = "j" };
	struct reqprompt *p;
	WINDOW *w;
	char all[8192] = "", flat[8192] = "", rows[64][128], *joined;
	uint64_t t = 1000;
	int y;

	memset(longword, 'x', 300);
	longword[300] = '\0';
	longword[150] = '\x1b';
	lz_strv_push(&argv, longword);
	for (int i = 0; i < 200; i++)
		lz_strv_pushf(&argv, "arg%d", i);
	req.argv = argv;
	p = reqprompt_new(&req, LINES, COLS);
	reqprompt_restart(p, NULL, NULL, t);
	reqprompt_draw(p, &f->pal);
	w = reqprompt_window(p);
	assert_int_equal(getmaxy(w), 24);
	assert_non_null(strstr(row(w, 1), "Command, 201 words:"));
	assert_true(reqprompt_rows(p) > 20);
	assert_non_null(strstr(row(w, 21), "rows 1-20 of"));
	assert_non_null(strstr(row(w, 21), "(scroll to the end to approve)"));
	/* Not all of the command on screen yet: a is refused. */
	t += REQVIEW_ARM_MS;
	assert_int_equal(reqprompt_keys(p, "a", &t), REQPROMPT_NONE);
	assert_int_equal(reqprompt_last(p), REQVIEW_UNSEEN);
	/* Scroll through it: every byte is on some row, nothing lost. */
	for (y = 1; y <= 20; y++)
		snprintf(rows[y - 1], sizeof rows[0], "%s", text_at(w, y, 2, 72));
	reqprompt_key_at(p, WIDGET_KEY_FN(KEY_END), ++t);
	assert_true(reqprompt_scroll(p) > 0 && reqprompt_scroll(p) <= 20);
	reqprompt_draw(p, &f->pal);
	for (y = 1; y <= 20; y++)
		snprintf(rows[reqprompt_scroll(p) + y - 1], sizeof rows[0], "%s", text_at(w, y, 2, 72));
	for (y = 1; y < reqprompt_rows(p) && strncmp(rows[y], "Justification", 13) != 0; y++) {
		assert_memory_equal(rows[y], "  ", 2);
		for (char *c = rows[y]; *c != '\0'; c++)
			if (*c != ' ')
				strncat(all, c, 1);
	}
	joined = reqview_command(argv);
	for (char *c = joined; *c != '\0'; c++)
		if (*c != ' ')
			strncat(flat, c, 1);
	assert_string_equal(all, flat);
	assert_int_equal(strncmp(all, "$'", 2), 0);
	assert_int_equal(strspn(all + 2, "x"), 150);
	assert_int_equal(strncmp(all + 152, "\\x1b", 4), 0);
	free(joined);
	assert_non_null(strstr(row(w, 21), "rows "));
	assert_null(strstr(row(w, 21), "to approve"));
	snprintf(chord, sizeof chord, "a%s\r", reqprompt_code(p));
	assert_int_equal(reqprompt_keys(p, chord, &t), REQPROMPT_APPROVE);
	reqprompt_key_at(p, WIDGET_KEY_FN(KEY_DOWN), ++t);
	assert_int_equal(reqprompt_scroll(p), reqprompt_rows(p) - 20);
	reqprompt_key_at(p, WIDGET_KEY_FN(KEY_UP), ++t);
	assert_int_equal(reqprompt_scroll(p), reqprompt_rows(p) - 21);
	reqprompt_key_at(p, WIDGET_KEY_FN(KEY_PPAGE), ++t);
	assert_int_equal(reqprompt_scroll(p), reqprompt_rows(p) - 40 > 0 ? reqprompt_rows(p) - 40 : 0);
	/* A smaller screen re-wraps and re-centres. */
	reqprompt_resize(p, 10, 40);
	w = reqprompt_window(p);
	assert_int_equal(getmaxy(w), 10);
	assert_int_equal(getmaxx(w), 36);
	reqprompt_draw(p, &f->pal);
	assert_non_null(strstr(row(w, 8), "Enter"));
	reqprompt_free(p);
	lz_strv_free(argv);
}

static void
feed(struct editform *ef, const char *keys)
{
	for (const char *k = keys; *k != '\0'; k++)
		editform_handle_key(ef, (unsigned char)*k);
}

static void
test_editform_edits_the_command_in_place(void **state)
{
	struct fixture *f = *state;
	struct editform *ef = NULL;
	lz_err_t err = LZ_ERR_INIT;
	WINDOW *w;
	char *s;

	assert_int_equal(editform_new("Edit command", "make test", 4096, LINES, COLS, &ef, &err), 0);
	editform_draw(ef, &f->pal);
	show();
	w = editform_window(ef);
	assert_non_null(strstr(row(curscr, getbegy(w)), "Edit command"));
	assert_non_null(strstr(row(curscr, getbegy(w) + 2), "make test"));
	assert_non_null(strstr(row(curscr, getbegy(w) + 4), "Enter: accept  Esc: cancel"));
	/* Typed at the end, Backspace, Home then typed at the start. */
	feed(ef, " -j4");
	editform_handle_key(ef, 127);
	feed(ef, "2");
	editform_handle_key(ef, WIDGET_KEY_FN(KEY_HOME));
	feed(ef, "nice ");
	editform_handle_key(ef, 0xe9);
	s = editform_text(ef);
	assert_string_equal(s, "nice \xc3\xa9make test -j2");
	free(s);
	/* Control characters are not typed in. */
	editform_handle_key(ef, 0x1b | 0);
	editform_handle_key(ef, 7);
	editform_handle_key(ef, 0x9b);
	editform_handle_key(ef, WIDGET_KEY_FN(KEY_BACKSPACE));	/* deletes the é */
	show();
	assert_non_null(strstr(row(curscr, getbegy(w) + 2), "nice make test -j2"));
	editform_handle_key(ef, WIDGET_KEY_FN(KEY_END));
	editform_handle_key(ef, WIDGET_KEY_FN(KEY_LEFT));
	editform_handle_key(ef, WIDGET_KEY_FN(KEY_LEFT));
	editform_handle_key(ef, 11);	/* C-k */
	assert_int_equal(editform_handle_key(ef, '\r'), EDITFORM_ACCEPT);
	s = editform_text(ef);
	assert_string_equal(s, "nice make test -");
	free(s);
	editform_handle_key(ef, 21);	/* C-u */
	s = editform_text(ef);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(editform_handle_key(ef, WIDGET_KEY_ESC), EDITFORM_CANCEL);
	editform_free(ef);
}

static void
test_editform_long_text_scrolls_and_survives_resize(void **state)
{
	struct fixture *f = *state;
	struct editform *ef = NULL;
	lz_err_t err = LZ_ERR_INIT;
	char text[301], *s;
	WINDOW *w;

	memset(text, 'a', 300);
	text[300] = '\0';
	text[0] = 'S';
	assert_int_equal(editform_new("Edit", text, 4096, LINES, COLS, &ef, &err), 0);
	editform_draw(ef, &f->pal);
	show();
	w = editform_window(ef);
	/* The cursor is at the end: the field shows the text's tail. */
	assert_null(strchr(row(curscr, getbegy(w) + 2), 'S'));
	feed(ef, "Z");
	editform_resize(ef, 12, 50);
	editform_draw(ef, &f->pal);
	s = editform_text(ef);
	assert_int_equal(strlen(s), 301);
	assert_int_equal(s[0], 'S');
	assert_int_equal(s[300], 'Z');
	free(s);
	assert_int_equal(getmaxx(editform_window(ef)), 46);
	editform_free(ef);
	/* What cannot be edited faithfully is refused with the reason. */
	assert_int_equal(editform_new("Edit", "rm \x1b[2J", 4096, LINES, COLS, &ef, &err), -1);
	assert_null(ef);
	assert_non_null(strstr(err.msg, "control character"));
	lz_err_clear(&err);
	assert_int_equal(editform_new("Edit", "a\xff", 4096, LINES, COLS, &ef, &err), -1);
	assert_non_null(strstr(err.msg, "not UTF-8"));
	lz_err_clear(&err);
	assert_int_equal(editform_new("Edit", text, 10, LINES, COLS, &ef, &err), -1);
	assert_non_null(strstr(err.msg, "too long"));
	lz_err_clear(&err);
	/* The field stops at max characters. */
	assert_int_equal(editform_new("Edit", "make test", 12, LINES, COLS, &ef, &err), 0);
	feed(ef, " -j8 x");
	s = editform_text(ef);
	assert_string_equal(s, "make test -j");
	free(s);
	editform_free(ef);
}

static void
test_newtab_picks_a_profile_and_a_workspace(void **state)
{
	struct fixture *f = *state;
	char **profiles = strv("default", "web", "ml", NULL);
	struct newtab *nt = NULL;
	lz_err_t err = LZ_ERR_INIT;
	WINDOW *w;
	char *ws;
	int y;

	assert_int_equal(newtab_new(profiles, "web", "/home/u/proj", LINES, COLS, &nt, &err), 0);
	newtab_draw(nt, &f->pal);
	show();
	w = newtab_window(nt);
	y = getbegy(w);
	assert_non_null(strstr(row(curscr, y), "New sandbox tab"));
	assert_non_null(strstr(row(curscr, y + 1), "Profile"));
	assert_non_null(strstr(row(curscr, y + 2), "  default"));
	assert_non_null(strstr(row(curscr, y + 3), "> web"));
	assert_non_null(strstr(row(curscr, y + 4), "  ml"));
	assert_non_null(strstr(row(curscr, y + 6), "Workspace"));
	assert_non_null(strstr(row(curscr, y + 7), "/home/u/proj"));
	assert_string_equal(newtab_profile(nt), "web");
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_FN(KEY_DOWN)), NEWTAB_NONE);
	assert_string_equal(newtab_profile(nt), "ml");
	newtab_handle_key(nt, WIDGET_KEY_FN(KEY_DOWN));
	assert_string_equal(newtab_profile(nt), "ml");
	newtab_handle_key(nt, 'k');
	newtab_handle_key(nt, 'k');
	assert_string_equal(newtab_profile(nt), "default");
	newtab_draw(nt, &f->pal);
	show();
	assert_non_null(strstr(row(curscr, y + 2), "> default"));
	/* Tab to the path; typing there does not move the menu. */
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_TAB), NEWTAB_NONE);
	assert_int_equal(newtab_focus(nt), NEWTAB_FOCUS_WORKSPACE);
	newtab_handle_key(nt, 21);	/* C-u */
	for (const char *k = "/srv/k"; *k != '\0'; k++)
		newtab_handle_key(nt, *k);
	assert_string_equal(newtab_profile(nt), "default");
	newtab_resize(nt, 20, 60);
	ws = newtab_workspace(nt);
	assert_string_equal(ws, "/srv/k");
	free(ws);
	assert_string_equal(newtab_profile(nt), "default");
	assert_int_equal(newtab_handle_key(nt, '\r'), NEWTAB_ACCEPT);
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_ESC), NEWTAB_CANCEL);
	newtab_free(nt);
	lz_strv_free(profiles);
}

static char *
field_after(struct newtab *nt, const char *typed)
{
	newtab_handle_key(nt, 21);	/* C-u */
	for (const char *k = typed; *k != '\0'; k++)
		newtab_handle_key(nt, (unsigned char)*k);
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_TAB), NEWTAB_NONE);
	return newtab_workspace(nt);
}

static void
test_newtab_expands_tilde_and_completes_directories(void **state)
{
	char tmpl[] = "/tmp/lz-pathcomp-XXXXXX", p[256], *ws, *old_home = NULL;
	char **profiles = strv("default", NULL);
	const char *dirs[] = { "alpha", "project-one", "project-two", ".hidden", "alpha/inner" };
	struct newtab *nt = NULL;
	lz_err_t err = LZ_ERR_INIT;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmpl, dirs[i]);
		assert_int_equal(mkdir(p, 0700), 0);
	}
	/* A file is not a workspace: never offered. */
	snprintf(p, sizeof(p), "%s/alphabet.txt", tmpl);
	assert_non_null(fp = fopen(p, "w"));
	fclose(fp);
	if (getenv("HOME") != NULL)
		old_home = strdup(getenv("HOME"));
	setenv("HOME", tmpl, 1);

	assert_int_equal(newtab_new(profiles, NULL, "", LINES, COLS, &nt, &err), 0);
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_TAB), NEWTAB_NONE);
	assert_int_equal(newtab_focus(nt), NEWTAB_FOCUS_WORKSPACE);
	/* ~ alone and ~/ expand; ~user is left as typed. */
	newtab_handle_key(nt, '~');
	ws = newtab_workspace(nt);
	assert_string_equal(ws, tmpl);
	free(ws);
	/* Unique: fills in with '/' (the file alphabet.txt does not count). */
	ws = field_after(nt, "~/al");
	snprintf(p, sizeof(p), "%s/alpha/", tmpl);
	assert_string_equal(ws, p);
	free(ws);
	/* And again one level down: the field now holds the expanded path. */
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_TAB), NEWTAB_NONE);
	ws = newtab_workspace(nt);
	snprintf(p, sizeof(p), "%s/alpha/inner/", tmpl);
	assert_string_equal(ws, p);
	free(ws);
	/* Several: the longest common prefix, no '/'. */
	snprintf(p, sizeof(p), "%s/pr", tmpl);
	ws = field_after(nt, p);
	snprintf(p, sizeof(p), "%s/project-", tmpl);
	assert_string_equal(ws, p);
	free(ws);
	/* Hidden only when asked for; no match leaves the text. */
	snprintf(p, sizeof(p), "%s/.h", tmpl);
	ws = field_after(nt, p);
	snprintf(p, sizeof(p), "%s/.hidden/", tmpl);
	assert_string_equal(ws, p);
	free(ws);
	snprintf(p, sizeof(p), "%s/zz", tmpl);
	ws = field_after(nt, p);
	assert_string_equal(ws, p);
	free(ws);
	ws = pathcomp_expand("~nosuchuser/x");
	assert_string_equal(ws, "~nosuchuser/x");
	free(ws);
	ws = pathcomp_expand("a/~");
	assert_string_equal(ws, "a/~");
	free(ws);
	/* Shift-Tab goes back to the menu. */
	newtab_handle_key(nt, WIDGET_KEY_FN(KEY_BTAB));
	assert_int_equal(newtab_focus(nt), NEWTAB_FOCUS_PROFILE);
	newtab_free(nt);
	lz_strv_free(profiles);

	if (old_home != NULL)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");
	free(old_home);
	for (size_t i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
		snprintf(p, sizeof(p), "%s/%s", tmpl, dirs[i]);
		rmdir(p);
	}
	snprintf(p, sizeof(p), "%s/alphabet.txt", tmpl);
	unlink(p);
	assert_int_equal(rmdir(tmpl), 0);
}

static void
test_newtab_needs_profiles_and_a_path(void **state)
{
	struct fixture *f = *state;
	char *none[] = { NULL }, **one = strv("solo", NULL);
	struct newtab *nt = (struct newtab *)1;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(newtab_new(none, NULL, NULL, LINES, COLS, &nt, &err), -1);
	assert_null(nt);
	assert_non_null(strstr(err.msg, "profiles:"));
	lz_err_clear(&err);
	assert_int_equal(newtab_new(one, "absent", NULL, LINES, COLS, &nt, &err), 0);
	assert_string_equal(newtab_profile(nt), "solo");
	/* Enter with no path goes to the path field instead of opening. */
	assert_int_equal(newtab_handle_key(nt, '\r'), NEWTAB_NONE);
	assert_int_equal(newtab_focus(nt), NEWTAB_FOCUS_WORKSPACE);
	newtab_handle_key(nt, '.');
	assert_int_equal(newtab_handle_key(nt, '\r'), NEWTAB_ACCEPT);
	/* Too small to hold menu and field: says so, still cancels. */
	newtab_resize(nt, 5, 30);
	newtab_draw(nt, &f->pal);
	assert_non_null(strstr(row(newtab_window(nt), 1), "screen too small"));
	assert_int_equal(newtab_handle_key(nt, '\r'), NEWTAB_NONE);
	assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_ESC), NEWTAB_CANCEL);
	newtab_resize(nt, 24, 80);
	assert_string_equal(newtab_profile(nt), "solo");
	newtab_free(nt);
	lz_strv_free(one);
}

static void
test_statusline_shows_state_hints_message_and_clock(void **state)
{
	struct fixture *f = *state;
	struct statusline *sl = statusline_new();
	time_t now = 1700000000;
	struct tm tm;
	char hhmm[8], *r;

	localtime_r(&now, &tm);
	strftime(hhmm, sizeof(hhmm), "%H:%M", &tm);
	statusline_set_state(sl, "[web:proj]");
	statusline_set_hints(sl, "C-a: c new n next s panel d detach ? help");
	statusline_set_clock(sl, true);
	statusline_draw(sl, stdscr, 23, 0, 80, now, &f->pal);
	r = row(stdscr, 23);
	assert_int_equal(strncmp(r, "[web:proj] C-a: c new n next s panel d detach ? help", 52), 0);
	assert_string_equal(r + 75, hhmm);
	assert_int_equal(cell(stdscr, 23, 0).pair, f->pal.style[THEME_STATUS].pair);
	assert_int_equal(cell(stdscr, 23, 60).pair, f->pal.style[THEME_STATUS].pair);
	assert_true(cell(stdscr, 23, 0).attr & A_BOLD);
	/* A message replaces the hints until it expires. */
	statusline_message(sl, "request 3f2a denied", now + 5);
	statusline_draw(sl, stdscr, 23, 0, 80, now, &f->pal);
	assert_int_equal(strncmp(row(stdscr, 23), "[web:proj] request 3f2a denied ", 31), 0);
	statusline_draw(sl, stdscr, 23, 0, 80, now + 5, &f->pal);
	assert_non_null(strstr(row(stdscr, 23), "c new"));
	/* ... or a key takes it away. */
	statusline_message(sl, "hello", 0);
	assert_int_equal(statusline_handle_key(sl, 'x'), STATUSLINE_DISMISSED);
	assert_int_equal(statusline_handle_key(sl, 'x'), STATUSLINE_NONE);
	/* Narrow: hints cut with an ellipsis, the clock kept. */
	werase(stdscr);
	statusline_draw(sl, stdscr, 23, 0, 30, now, &f->pal);
	r = row(stdscr, 23);
	assert_int_equal(strncmp(r, "[web:proj] C-a: c new n\xe2\x80\xa6", 26), 0);
	assert_non_null(strstr(r, hhmm));
	/* Narrower than state and clock: the clock goes. */
	werase(stdscr);
	statusline_draw(sl, stdscr, 23, 0, 12, now, &f->pal);
	assert_string_equal(row(stdscr, 23), "[web:proj]");
	statusline_free(sl);
}

/* The right part: network mode and gauges in their theme styles, the
 * gauges going first when the row is short, then the mode. */
static void
test_statusline_shows_network_and_gauges(void **state)
{
	struct fixture *f = *state;
	struct statusline *sl = statusline_new();
	const struct statusline_gauge g[] = { { "mem", 500 }, { "pid", 950 }, { "dsk", -1 } };
	char bar[64], *r;
	int c;

	statusline_gauge_bar(0, true, bar, sizeof bar);
	assert_string_equal(bar, "    ");
	statusline_gauge_bar(500, true, bar, sizeof bar);
	assert_string_equal(bar, "\u2588\u2588  ");
	statusline_gauge_bar(1, true, bar, sizeof bar);	/* above zero shows */
	assert_string_equal(bar, "\u2581   ");
	statusline_gauge_bar(1000, false, bar, sizeof bar);
	assert_string_equal(bar, "####");
	statusline_gauge_bar(300, false, bar, sizeof bar);
	assert_string_equal(bar, "#:..");
	werase(stdscr);
	statusline_set_state(sl, "[web:proj]");
	statusline_set_hints(sl, "C-a: c new ? help");
	statusline_set_info(sl, "net:sidecar", g, 3);
	statusline_draw(sl, stdscr, 23, 0, 80, 0, &f->pal);
	r = row(stdscr, 23);
	assert_int_equal(strncmp(r, "[web:proj] C-a: c new ? help", 28), 0);
	/* dsk has no bound: not drawn */
	assert_non_null(strstr(r, "net:sidecar mem \u2588\u2588   pid \u2588\u2588\u2588\u2587"));
	assert_null(strstr(r, "dsk"));
	c = col_of(stdscr, 23, "pid") + 4;
	assert_int_equal(cell(stdscr, 23, c).pair, f->pal.style[THEME_GAUGE_FULL].pair);
	c = col_of(stdscr, 23, "mem") + 4;
	assert_int_equal(cell(stdscr, 23, c).pair, f->pal.style[THEME_GAUGE_OK].pair);
	/* short: the gauges go, the mode stays */
	werase(stdscr);
	statusline_draw(sl, stdscr, 23, 0, 30, 0, &f->pal);
	r = row(stdscr, 23);
	assert_non_null(strstr(r, "net:sidecar"));
	assert_null(strstr(r, "mem"));
	assert_int_equal(strncmp(r, "[web:proj]", 10), 0);
	statusline_free(sl);
}

static void
test_textview_shows_the_key_help_and_scrolls(void **state)
{
	struct fixture *f = *state;
	struct wb_keys *k = wb_keys_new();
	lz_err_t err = LZ_ERR_INIT;
	char **help, name[16], cmd[32];
	int n;

	/* More lines than the screen: F1..F10 select tabs too (0-9 fold into one line). */
	for (int i = 1; i <= 10; i++) {
		snprintf(name, sizeof name, "F%d", i);
		snprintf(cmd, sizeof cmd, "select-tab %d", i - 1);
		assert_int_equal(wb_keys_bind(k, name, cmd, &err), 0);
	}
	help = wb_keys_help(k);
	n = (int)lz_strv_len(help);
	struct textview *tv = textview_new("Keys", help, LINES, COLS);
	WINDOW *w = textview_window(tv);

	textview_searchable(tv);
	textview_draw(tv, &f->pal);
	show();
	assert_int_equal(getmaxy(w), 24);
	assert_non_null(strstr(row(curscr, 0), " Keys "));
	assert_non_null(strstr(row(curscr, 1), "C-a c        new-tab        open a new sandbox tab"));
	assert_non_null(strstr(row(curscr, 22), "Up/Down to scroll, / search, q to close"));
	textview_handle_key(tv, WIDGET_KEY_FN(KEY_END));
	assert_int_equal(textview_scroll(tv), n - 21);
	textview_draw(tv, &f->pal);
	show();
	assert_non_null(strstr(row(curscr, 21), "C-a C-a      send-prefix"));
	assert_int_equal(textview_handle_key(tv, 'j'), TEXTVIEW_NONE);
	assert_int_equal(textview_scroll(tv), n - 21);
	textview_handle_key(tv, WIDGET_KEY_FN(KEY_HOME));
	assert_int_equal(textview_scroll(tv), 0);
	/* / finds as typed: the page goes to the line; Esc drops it, q closes
	 * only once no search is typed. */
	for (const char *q = "/COPY-URL"; *q != '\0'; q++)
		assert_int_equal(textview_handle_key(tv, *q), TEXTVIEW_NONE);
	textview_draw(tv, &f->pal);
	show();
	assert_non_null(strstr(row(curscr, 22), "/COPY-URL"));
	assert_int_equal(textview_handle_key(tv, '\r'), TEXTVIEW_NONE);	/* kept */
	textview_draw(tv, &f->pal);
	show();
	for (int y = 1; y < 22; y++)	/* the line found is highlighted, the others not */
		assert_int_equal(cell(curscr, y, 3).pair == f->pal.style[THEME_PANEL_SELECTED].pair,
		    strstr(row(curscr, y), "copy-url") != NULL);
	assert_int_equal(textview_handle_key(tv, 'n'), TEXTVIEW_NONE);	/* the only one: stays */
	assert_int_equal(textview_handle_key(tv, '/'), TEXTVIEW_NONE);
	assert_int_equal(textview_handle_key(tv, 'q'), TEXTVIEW_NONE);	/* typed, not closing */
	assert_int_equal(textview_handle_key(tv, WIDGET_KEY_ESC), TEXTVIEW_NONE);
	textview_handle_key(tv, WIDGET_KEY_FN(KEY_HOME));
	/* On a tall screen everything fits and nothing scrolls. */
	assert_int_equal(resize_term(50, 100), OK);
	textview_resize(tv, 50, 100);
	textview_handle_key(tv, WIDGET_KEY_FN(KEY_END));
	assert_int_equal(textview_scroll(tv), 0);
	assert_int_equal(getmaxy(textview_window(tv)), n + 3);
	assert_int_equal(resize_term(24, 80), OK);
	assert_int_equal(textview_handle_key(tv, 'q'), TEXTVIEW_CLOSE);
	assert_int_equal(textview_handle_key(tv, WIDGET_KEY_ESC), TEXTVIEW_CLOSE);
	textview_free(tv);
	lz_strv_free(help);
	wb_keys_free(k);
}

/* The cockpit at 80x24: tab bar, a real embedded terminal, the side panel
 * as an overlay, the status line, then the prompt over everything. */
static void
test_workbench_screen_at_80x24(void **state)
{
	struct fixture *f = *state;
	struct wb_layout l;
	struct wb_keys *k = wb_keys_new();
	struct tabbar *tb = tabbar_new();
	struct sidelist *sl = sidelist_new();
	struct statusline *st = statusline_new();
	const struct tabbar_tab tabs[] = { { "web", "/src/proj", "running", true }, { "ml", "/m", "running", false } };
	const struct sidelist_item q = { "r1", "3f2a web: make test", true };
	char **argv = strv("make", "test", NULL);
	struct reqview_request req = { .request_id = "3f2a", .profile = "web", .justification = "tests",
				       .note = "not on the auto-approve list", .argv = argv };
	lz_err_t err = LZ_ERR_INIT;
	struct term *t = NULL;
	WINDOW *tw, *pw;
	PANEL *pp;
	struct reqprompt *p;
	char *hints;

	erase();
	wb_layout_compute(LINES, COLS, true, &l);
	assert_true(l.panel_overlay);
	tw = newwin(l.term.h, l.term.w, l.term.y, l.term.x);
	pw = newwin(l.panel.h, l.panel.w, l.panel.y, l.panel.x);
	pp = new_panel(pw);
	assert_int_equal(term_new(l.term.h, l.term.w, 100, &t, &err), 0);
	term_feed(t, "$ make test\r\nok 1 - sandbox says hello", 38);
	term_draw(f->d, t, tw);
	tabbar_set(tb, tabs, 2, 1);
	tabbar_draw(tb, stdscr, l.tabbar.y, l.tabbar.x, l.tabbar.w, &f->pal);
	sidelist_set(sl, SIDELIST_QUEUE, &q, 1);
	sidelist_draw(sl, pw, 0, 0, l.panel.h, l.panel.w, &f->pal);
	hints = wb_keys_hints(k, NULL, 0);
	statusline_set_state(st, "[ml:m]");
	statusline_set_hints(st, hints);
	statusline_draw(st, stdscr, l.status.y, l.status.x, l.status.w, 0, &f->pal);
	wnoutrefresh(stdscr);
	wnoutrefresh(tw);
	update_panels();
	doupdate();
	assert_string_equal(row(curscr, 0), " !0:web proj running   1:ml m running");
	assert_string_equal(text_at(curscr, 1, 0, 11), "$ make test");
	assert_string_equal(text_at(curscr, 2, 0, 25), "ok 1 - sandbox says hello");
	assert_string_equal(text_at(curscr, 1, 42, 15), "Escalations (1)");
	assert_string_equal(text_at(curscr, 2, 42, 19), "3f2a web: make test");
	assert_string_equal(row(curscr, 23), "[ml:m] C-a: c new n next s panel Tab focus d detach ? help");
	/* The escalation prompt on top of all of it. */
	p = reqprompt_new(&req, LINES, COLS);
	reqprompt_draw(p, &f->pal);
	update_panels();
	doupdate();
	assert_non_null(strstr(row(curscr, getbegy(reqprompt_window(p))), "Host escalation request"));
	assert_non_null(strstr(row(curscr, getbegy(reqprompt_window(p)) + 1), "Command, 2 words:"));
	assert_non_null(strstr(row(curscr, getbegy(reqprompt_window(p)) + 2), "  make test"));
	assert_non_null(strstr(row(curscr, getbegy(reqprompt_window(p)) + 7), "Note: not on the auto-approve list"));
	assert_int_equal(cell(curscr, getbegy(reqprompt_window(p)) + 7, col_of(curscr, getbegy(reqprompt_window(p)) + 7, "not on")).pair,
			 f->pal.style[THEME_TAB_ALERT].pair);
	reqprompt_free(p);
	update_panels();
	doupdate();
	assert_string_equal(text_at(curscr, 2, 42, 19), "3f2a web: make test");
	free(hints);
	term_free(t);
	del_panel(pp);
	delwin(pw);
	delwin(tw);
	statusline_free(st);
	sidelist_free(sl);
	tabbar_free(tb);
	wb_keys_free(k);
	lz_strv_free(argv);
}

/* Every dialog and bar at every screen size from 1x1 to 90x30: nothing
 * drawn outside its window, no crash, the actions still answer. */
static void
test_widgets_survive_tiny_and_odd_screens(void **state)
{
	struct fixture *f = *state;
	char **argv = strv("make", "test", "\xe6\xbc\xa2\xe5\xad\x97\x1b", NULL);
	char **profiles = strv("default", "web", NULL);
	struct reqview_request rreq = { .request_id = "id", .profile = "web", .justification = "why", .argv = argv };
	const struct tabbar_tab tabs[] = { { "web", "/w/p", "running", true }, { "ml", "/m", NULL, false } };
	const struct sidelist_item item = { "r", "\xe6\xbc\xa2\xe5\xad\x97 request", true };
	struct tabbar *tb = tabbar_new();
	struct sidelist *sl = sidelist_new();
	struct statusline *st = statusline_new();
	lz_err_t err = LZ_ERR_INIT;

	tabbar_set(tb, tabs, 2, 1);
	sidelist_set(sl, SIDELIST_QUEUE, &item, 1);
	statusline_set_state(st, "[web]");
	statusline_set_hints(st, "C-a: c new");
	statusline_set_clock(st, true);
	for (int lines = 1; lines <= 30; lines += 1)
		for (int cols = 1; cols <= 90; cols += lines < 8 ? 1 : 7) {
			struct reqprompt *rp;
			struct editform *ef = NULL;
			struct newtab *nt = NULL;

			assert_int_equal(resize_term(lines, cols), OK);
			erase();
			tabbar_draw(tb, stdscr, 0, 0, cols, &f->pal);
			sidelist_draw(sl, stdscr, 0, 0, lines, cols, &f->pal);
			statusline_draw(st, stdscr, lines - 1, 0, cols, 0, &f->pal);
			rp = reqprompt_new(&rreq, lines, cols);
			assert_true(getmaxy(reqprompt_window(rp)) <= lines && getmaxx(reqprompt_window(rp)) <= cols);
			reqprompt_draw(rp, &f->pal);
			reqprompt_restart(rp, NULL, NULL, 0);
			assert_int_equal(reqprompt_key_at(rp, WIDGET_KEY_FN(KEY_NPAGE), 1), REQPROMPT_NONE);
			assert_int_equal(reqprompt_key_at(rp, 'd', 1000), REQPROMPT_DENY);
			reqprompt_free(rp);
			assert_int_equal(editform_new("Edit", "make test", 100, lines, cols, &ef, &err), 0);
			editform_draw(ef, &f->pal);
			editform_handle_key(ef, 'x');
			assert_int_equal(editform_handle_key(ef, '\r'), EDITFORM_ACCEPT);
			assert_int_equal(newtab_new(profiles, NULL, "/w", lines, cols, &nt, &err), 0);
			newtab_draw(nt, &f->pal);
			newtab_handle_key(nt, WIDGET_KEY_FN(KEY_DOWN));
			assert_int_equal(newtab_handle_key(nt, WIDGET_KEY_ESC), NEWTAB_CANCEL);
			show();
			newtab_free(nt);
			editform_free(ef);
		}
	assert_int_equal(resize_term(24, 80), OK);
	tabbar_free(tb);
	sidelist_free(sl);
	statusline_free(st);
	lz_strv_free(argv);
	lz_strv_free(profiles);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_widget_palette_follows_the_theme),
		cmocka_unit_test(test_statusline_shows_network_and_gauges),
		cmocka_unit_test(test_sidelist_search_moves_the_selection),
		cmocka_unit_test(test_widget_keys_keep_function_keys_apart_from_characters),
		cmocka_unit_test(test_widget_put_cuts_by_display_width_never_inside_a_character),
		cmocka_unit_test(test_widget_put_makes_control_characters_visible),
		cmocka_unit_test(test_tabbar_shows_profile_workspace_state_and_alert),
		cmocka_unit_test(test_tabbar_scrolls_to_keep_the_active_tab_whole),
		cmocka_unit_test(test_sidelist_shows_three_titled_lists_and_the_selection),
		cmocka_unit_test(test_sidelist_empty_lists_take_one_row_each),
		cmocka_unit_test(test_diffview_reads_only_what_the_screen_needs),
		cmocka_unit_test(test_diffview_cuts_long_lines_and_shows_controls),
		cmocka_unit_test(test_sidelist_hit_and_wheel),
		cmocka_unit_test(test_sidelist_scrolls_logs_and_keeps_the_newest),
		cmocka_unit_test(test_reqprompt_shows_the_command_first_then_the_justification),
		cmocka_unit_test(test_reqprompt_splits_a_command_line_or_shows_why_not),
		cmocka_unit_test(test_reqprompt_wraps_long_words_and_approves_only_what_was_seen),
		cmocka_unit_test(test_editform_edits_the_command_in_place),
		cmocka_unit_test(test_editform_long_text_scrolls_and_survives_resize),
		cmocka_unit_test(test_newtab_picks_a_profile_and_a_workspace),
		cmocka_unit_test(test_newtab_needs_profiles_and_a_path),
		cmocka_unit_test(test_newtab_expands_tilde_and_completes_directories),
		cmocka_unit_test(test_statusline_shows_state_hints_message_and_clock),
		cmocka_unit_test(test_textview_shows_the_key_help_and_scrolls),
		cmocka_unit_test(test_workbench_screen_at_80x24),
		cmocka_unit_test(test_widgets_survive_tiny_and_odd_screens),
		cmocka_unit_test(test_widget_palette_on_eight_colours_makes_bright_bold),
	};

	return cmocka_run_group_tests_name("widgets", tests, setup, teardown);
}
