/* test-widgets.c - the workbench widgets drawn on a real ncurses screen
 * (newterm on /dev/null, xterm-256color, 80x24) and read back cell by cell
 * from the windows and from curscr, i.e. what the user's terminal shows:
 * the palette, widget_put, the tab bar, the status line, the text view, the
 * whole cockpit and every widget at odd sizes. The fixture is widgettest.c;
 * the lists, the request prompt and the forms have files of their own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <panel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "diffview.h"
#include "editform.h"
#include "newtab.h"
#include "reqprompt.h"
#include "reqview.h"
#include "sidelist.h"
#include "statusline.h"
#include "strv.h"
#include "tabbar.h"
#include "term-draw.h"
#include "textview.h"
#include "wb/core/wb-keys.h"
#include "wb/core/wb-layout.h"
#include "widget.h"
#include "widgettest.h"

static void
test_widget_palette_follows_the_theme(void **state)
{
	struct wt_fixture *f = *state;
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
	struct wt_fixture *f = *state;
	WINDOW *w = newwin(3, 20, 0, 0);
	size_t used;

	/* Two-column CJK: 5 columns hold two of them, not two and a half. */
	assert_int_equal(widget_put(w, 0, 0, "\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2", 9, 5, NULL, 0, &used), 4);
	assert_int_equal(used, 6);
	assert_string_equal(wt_row(w, 0), "\xe6\xbc\xa2\xe5\xad\x97");
	/* With an ellipsis the cut is marked, still by width. */
	assert_int_equal(widget_puts(w, 1, 0, "abcdefghij", 5, NULL), 5);
	assert_string_equal(wt_row(w, 1), "abcd\xe2\x80\xa6");
	assert_int_equal(widget_puts(w, 2, 0, "\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2", 5, NULL), 5);
	assert_string_equal(wt_row(w, 2), "\xe6\xbc\xa2\xe5\xad\x97\xe2\x80\xa6");
	assert_int_equal(widget_width("a\xe6\xbc\xa2" "e\xcc\x81"), 4);
	/* What fits is not cut. */
	assert_int_equal(widget_puts(w, 1, 0, "12345", 5, NULL), 5);
	assert_string_equal(wt_row(w, 1), "12345");
	/* A combining mark stays in its base's cell. */
	widget_put(w, 0, 0, "e\xcc\x81x", 4, 10, NULL, 0, NULL);
	assert_int_equal(wt_cell(w, 0, 0).wch[0], L'e');
	assert_int_equal(wt_cell(w, 0, 0).wch[1], 0x301);
	assert_int_equal(wt_cell(w, 0, 1).wch[0], L'x');
	(void)f;
	delwin(w);
}

static void
test_widget_put_makes_control_characters_visible(void **state)
{
	WINDOW *w = newwin(2, 60, 0, 0);
	const char *s = "a\x1b[31mb\nc\rd\te\x01\x7f\xff\xe2\x80\xae\xc2\x9b";
	struct wt_got g;

	(void)state;
	assert_int_equal(widget_put(w, 0, 0, s, strlen(s), 60, NULL, 0, NULL), widget_width(s));
	assert_string_equal(wt_row(w, 0), "a^[[31mb\\nc\\rd\\te^A^?\\xff<U+202E><U+009B>");
	/* The stand-ins are reversed, the text around them is not. */
	assert_false(wt_cell(w, 0, 0).attr & A_REVERSE);
	assert_true(wt_cell(w, 0, 1).attr & A_REVERSE);
	assert_true(wt_cell(w, 0, 2).attr & A_REVERSE);
	assert_false(wt_cell(w, 0, 3).attr & A_REVERSE);
	g = wt_cell(w, 0, wt_col_of(w, 0, "\\n"));
	assert_true(g.attr & A_REVERSE);
	/* A stand-in is not split either: "^[" does not fit in 2 after "ab". */
	assert_int_equal(widget_put(w, 1, 0, "ab\x1b", 3, 3, NULL, 0, NULL), 2);
	assert_string_equal(wt_row(w, 1), "ab");
	delwin(w);
}

static void
test_tabbar_shows_profile_workspace_state_and_alert(void **state)
{
	struct wt_fixture *f = *state;
	struct tabbar *tb = tabbar_new();
	const struct tabbar_tab tabs[] = {
		{ "web", "/home/u/src/proj/", "running", false },
		{ "ml", "/data/model", "exited 1", true },
		{ "shell", "/", NULL, false },
	};
	int a, m;

	tabbar_set(tb, tabs, 3, 0);
	tabbar_draw(tb, stdscr, 0, 0, 80, &f->pal);
	assert_string_equal(wt_row(stdscr, 0), " 0:web proj running   !1:ml model exited 1   2:shell /");
	/* Active tab in the active style, the waiting one in the alert style. */
	a = wt_col_of(stdscr, 0, "0:web");
	m = wt_col_of(stdscr, 0, "!1:ml");
	assert_int_equal(wt_cell(stdscr, 0, a).pair, f->pal.style[THEME_TAB_ACTIVE].pair);
	assert_true(wt_cell(stdscr, 0, a).attr & A_BOLD);
	assert_int_equal(wt_cell(stdscr, 0, a - 1).pair, f->pal.style[THEME_TAB_ACTIVE].pair);
	assert_int_equal(wt_cell(stdscr, 0, m + 2).pair, f->pal.style[THEME_TAB_ALERT].pair);
	assert_int_not_equal(f->pal.style[THEME_TAB_ALERT].pair, f->pal.style[THEME_TAB_ACTIVE].pair);
	assert_int_equal(wt_cell(stdscr, 0, wt_col_of(stdscr, 0, "2:shell")).pair, f->pal.style[THEME_TAB_INACTIVE].pair);
	assert_int_equal(tabbar_hit(tb, a), 0);
	assert_int_equal(tabbar_hit(tb, m), 1);
	assert_int_equal(tabbar_hit(tb, 79), -1);
	/* The active waiting tab keeps its mark in the alert style. */
	tabbar_set(tb, tabs, 3, 1);
	tabbar_draw(tb, stdscr, 0, 0, 80, &f->pal);
	m = wt_col_of(stdscr, 0, "!1:ml");
	assert_int_equal(wt_cell(stdscr, 0, m).pair, f->pal.style[THEME_TAB_ALERT].pair);
	assert_int_equal(wt_cell(stdscr, 0, m + 1).pair, f->pal.style[THEME_TAB_ACTIVE].pair);
	assert_int_equal(tabbar_active(tb), 1);
	assert_int_equal(tabbar_handle_key(tb, WIDGET_KEY_FN(KEY_RIGHT)), TABBAR_NEXT);
	assert_int_equal(tabbar_handle_key(tb, WIDGET_KEY_FN(KEY_LEFT)), TABBAR_PREV);
	assert_int_equal(tabbar_handle_key(tb, 'z'), TABBAR_NONE);
	tabbar_free(tb);
}

static void
test_tabbar_scrolls_to_keep_the_active_tab_whole(void **state)
{
	struct wt_fixture *f = *state;
	struct tabbar *tb = tabbar_new();
	struct tabbar_tab tabs[12];
	char *r;

	for (int i = 0; i < 12; i++)
		tabs[i] = (struct tabbar_tab){ "profile", "/w/workspace", "running", false };
	tabs[11].profile = "\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97\xe6\xbc\xa2\xe5\xad\x97";
	tabbar_set(tb, tabs, 12, 0);
	tabbar_draw(tb, stdscr, 0, 0, 80, &f->pal);
	r = wt_row(stdscr, 0);
	assert_non_null(strstr(r, " 0:profile workspace running "));
	assert_null(strstr(r, "11:"));
	assert_int_equal((int)(strlen(r) - strlen(strrchr(r, '>'))), 79);
	tabbar_set(tb, tabs, 12, 11);
	tabbar_draw(tb, stdscr, 0, 0, 80, &f->pal);
	r = wt_row(stdscr, 0);
	assert_true(r[0] == '<');
	assert_null(strstr(r, " 0:profile"));
	/* The long CJK title is cut at TABBAR_TITLE_MAX columns, by width. */
	assert_non_null(strstr(r, "11:\xe6\xbc\xa2\xe5\xad\x97"));
	assert_non_null(strstr(r, "\xe2\x80\xa6"));
	assert_int_equal(tabbar_hit(tb, wt_col_of(stdscr, 0, "11:")), 11);
	tabbar_free(tb);
}

static void
test_statusline_shows_state_hints_message_and_clock(void **state)
{
	struct wt_fixture *f = *state;
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
	r = wt_row(stdscr, 23);
	assert_int_equal(strncmp(r, "[web:proj] C-a: c new n next s panel d detach ? help", 52), 0);
	assert_string_equal(r + 75, hhmm);
	assert_int_equal(wt_cell(stdscr, 23, 0).pair, f->pal.style[THEME_STATUS].pair);
	assert_int_equal(wt_cell(stdscr, 23, 60).pair, f->pal.style[THEME_STATUS].pair);
	assert_true(wt_cell(stdscr, 23, 0).attr & A_BOLD);
	/* A message replaces the hints until it expires. */
	statusline_message(sl, "request 3f2a denied", now + 5);
	statusline_draw(sl, stdscr, 23, 0, 80, now, &f->pal);
	assert_int_equal(strncmp(wt_row(stdscr, 23), "[web:proj] request 3f2a denied ", 31), 0);
	statusline_draw(sl, stdscr, 23, 0, 80, now + 5, &f->pal);
	assert_non_null(strstr(wt_row(stdscr, 23), "c new"));
	/* ... or a key takes it away. */
	statusline_message(sl, "hello", 0);
	assert_int_equal(statusline_handle_key(sl, 'x'), STATUSLINE_DISMISSED);
	assert_int_equal(statusline_handle_key(sl, 'x'), STATUSLINE_NONE);
	/* Narrow: hints cut with an ellipsis, the clock kept. */
	werase(stdscr);
	statusline_draw(sl, stdscr, 23, 0, 30, now, &f->pal);
	r = wt_row(stdscr, 23);
	assert_int_equal(strncmp(r, "[web:proj] C-a: c new n\xe2\x80\xa6", 26), 0);
	assert_non_null(strstr(r, hhmm));
	/* Narrower than state and clock: the clock goes. */
	werase(stdscr);
	statusline_draw(sl, stdscr, 23, 0, 12, now, &f->pal);
	assert_string_equal(wt_row(stdscr, 23), "[web:proj]");
	statusline_free(sl);
}

/* The right part: network mode and gauges in their theme styles, the
 * gauges going first when the row is short, then the mode. */
static void
test_statusline_shows_network_and_gauges(void **state)
{
	struct wt_fixture *f = *state;
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
	r = wt_row(stdscr, 23);
	assert_int_equal(strncmp(r, "[web:proj] C-a: c new ? help", 28), 0);
	/* dsk has no bound: not drawn */
	assert_non_null(strstr(r, "net:sidecar mem \u2588\u2588   pid \u2588\u2588\u2588\u2587"));
	assert_null(strstr(r, "dsk"));
	c = wt_col_of(stdscr, 23, "pid") + 4;
	assert_int_equal(wt_cell(stdscr, 23, c).pair, f->pal.style[THEME_GAUGE_FULL].pair);
	c = wt_col_of(stdscr, 23, "mem") + 4;
	assert_int_equal(wt_cell(stdscr, 23, c).pair, f->pal.style[THEME_GAUGE_OK].pair);
	/* short: the gauges go, the mode stays */
	werase(stdscr);
	statusline_draw(sl, stdscr, 23, 0, 30, 0, &f->pal);
	r = wt_row(stdscr, 23);
	assert_non_null(strstr(r, "net:sidecar"));
	assert_null(strstr(r, "mem"));
	assert_int_equal(strncmp(r, "[web:proj]", 10), 0);
	statusline_free(sl);
}

static void
test_textview_shows_the_key_help_and_scrolls(void **state)
{
	struct wt_fixture *f = *state;
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
	wt_show();
	assert_int_equal(getmaxy(w), 24);
	assert_non_null(strstr(wt_row(curscr, 0), " Keys "));
	assert_non_null(strstr(wt_row(curscr, 1), "C-a c        new-tab        open a new sandbox tab"));
	assert_non_null(strstr(wt_row(curscr, 22), "Up/Down to scroll, / search, q to close"));
	textview_handle_key(tv, WIDGET_KEY_FN(KEY_END));
	assert_int_equal(textview_scroll(tv), n - 21);
	textview_draw(tv, &f->pal);
	wt_show();
	assert_non_null(strstr(wt_row(curscr, 21), "C-a C-a      send-prefix"));
	assert_int_equal(textview_handle_key(tv, 'j'), TEXTVIEW_NONE);
	assert_int_equal(textview_scroll(tv), n - 21);
	textview_handle_key(tv, WIDGET_KEY_FN(KEY_HOME));
	assert_int_equal(textview_scroll(tv), 0);
	/* / finds as typed: the page goes to the line; Esc drops it, q closes
	 * only once no search is typed. */
	for (const char *q = "/COPY-URL"; *q != '\0'; q++)
		assert_int_equal(textview_handle_key(tv, *q), TEXTVIEW_NONE);
	textview_draw(tv, &f->pal);
	wt_show();
	assert_non_null(strstr(wt_row(curscr, 22), "/COPY-URL"));
	assert_int_equal(textview_handle_key(tv, '\r'), TEXTVIEW_NONE);	/* kept */
	textview_draw(tv, &f->pal);
	wt_show();
	for (int y = 1; y < 22; y++)	/* the line found is highlighted, the others not */
		assert_int_equal(wt_cell(curscr, y, 3).pair == f->pal.style[THEME_PANEL_SELECTED].pair,
		    strstr(wt_row(curscr, y), "copy-url") != NULL);
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
	struct wt_fixture *f = *state;
	struct wb_layout l;
	struct wb_keys *k = wb_keys_new();
	struct tabbar *tb = tabbar_new();
	struct sidelist *sl = sidelist_new();
	struct statusline *st = statusline_new();
	const struct tabbar_tab tabs[] = { { "web", "/src/proj", "running", true }, { "ml", "/m", "running", false } };
	const struct sidelist_item q = { "r1", "3f2a web: make test", true };
	char **argv = wt_strv("make", "test", NULL);
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
	assert_string_equal(wt_row(curscr, 0), " !0:web proj running   1:ml m running");
	assert_string_equal(wt_text_at(curscr, 1, 0, 11), "$ make test");
	assert_string_equal(wt_text_at(curscr, 2, 0, 25), "ok 1 - sandbox says hello");
	assert_string_equal(wt_text_at(curscr, 1, 42, 15), "Escalations (1)");
	assert_string_equal(wt_text_at(curscr, 2, 42, 19), "3f2a web: make test");
	assert_string_equal(wt_row(curscr, 23), "[ml:m] C-a: c new n next s panel Tab focus d detach ? help");
	/* The escalation prompt on top of all of it. */
	p = reqprompt_new(&req, LINES, COLS);
	reqprompt_draw(p, &f->pal);
	update_panels();
	doupdate();
	assert_non_null(strstr(wt_row(curscr, getbegy(reqprompt_window(p))), "Host escalation request"));
	assert_non_null(strstr(wt_row(curscr, getbegy(reqprompt_window(p)) + 1), "Command, 2 words:"));
	assert_non_null(strstr(wt_row(curscr, getbegy(reqprompt_window(p)) + 2), "  make test"));
	assert_non_null(strstr(wt_row(curscr, getbegy(reqprompt_window(p)) + 7), "Note: not on the auto-approve list"));
	assert_int_equal(wt_cell(curscr, getbegy(reqprompt_window(p)) + 7, wt_col_of(curscr, getbegy(reqprompt_window(p)) + 7, "not on")).pair,
			 f->pal.style[THEME_TAB_ALERT].pair);
	reqprompt_free(p);
	update_panels();
	doupdate();
	assert_string_equal(wt_text_at(curscr, 2, 42, 19), "3f2a web: make test");
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
	struct wt_fixture *f = *state;
	char **argv = wt_strv("make", "test", "\xe6\xbc\xa2\xe5\xad\x97\x1b", NULL);
	char **profiles = wt_strv("default", "web", NULL);
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
			wt_show();
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
		cmocka_unit_test(test_widget_keys_keep_function_keys_apart_from_characters),
		cmocka_unit_test(test_widget_put_cuts_by_display_width_never_inside_a_character),
		cmocka_unit_test(test_widget_put_makes_control_characters_visible),
		cmocka_unit_test(test_tabbar_shows_profile_workspace_state_and_alert),
		cmocka_unit_test(test_tabbar_scrolls_to_keep_the_active_tab_whole),
		cmocka_unit_test(test_statusline_shows_state_hints_message_and_clock),
		cmocka_unit_test(test_textview_shows_the_key_help_and_scrolls),
		cmocka_unit_test(test_workbench_screen_at_80x24),
		cmocka_unit_test(test_widgets_survive_tiny_and_odd_screens),
		cmocka_unit_test(test_widget_palette_on_eight_colours_makes_bright_bold),
	};

	return cmocka_run_group_tests_name("widgets", tests, wt_setup, wt_teardown);
}
