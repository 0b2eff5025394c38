/* test-widgets-lists.c - the side panel's lists (sidelist.c: titles,
 * selection, the mouse, logs, search) and the diff view (diffview.c) on a
 * real ncurses screen. The fixture is widgettest.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <panel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffview.h"
#include "sidelist.h"
#include "widget.h"
#include "widgettest.h"

/* The mouse: which list and item a row shows; the wheel scrolls a list's view. */
static void
test_sidelist_hit_and_wheel(void **state)
{
	struct wt_fixture *f = *state;
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
	assert_string_equal(wt_in_box(stdscr, 9, x + 2), "event 20");
	assert_true(sidelist_hit(sl, 9, &which, &index));
	assert_int_equal(which, SIDELIST_AUDIT);
	assert_int_equal(index, 20);
	assert_true(sidelist_hit(sl, 19, &which, &index));
	assert_int_equal(index, -1);	/* its bottom edge, not event 30 */
	sidelist_scroll(sl, SIDELIST_AUDIT, -3);
	sidelist_draw(sl, stdscr, 1, x, 21, 40, &f->pal);
	assert_string_equal(wt_in_box(stdscr, 9, x + 2), "event 17");
	assert_true(sidelist_hit(sl, 9, &which, &index));
	assert_int_equal(index, 17);
	sidelist_scroll(sl, SIDELIST_AUDIT, -100);
	sidelist_draw(sl, stdscr, 1, x, 21, 40, &f->pal);
	assert_string_equal(wt_in_box(stdscr, 9, x + 2), "event 03");
	sidelist_scroll(sl, SIDELIST_AUDIT, 100);
	sidelist_draw(sl, stdscr, 1, x, 21, 40, &f->pal);
	assert_string_equal(wt_in_box(stdscr, 9, x + 2), "event 20");
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
	struct wt_fixture *f = *state;
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
	assert_string_equal(wt_text_at(stdscr, 1, x + 2, 15), "Escalations (2)");
	assert_int_equal(wt_cell(stdscr, 1, x).wch[0], 0x250c);
	assert_int_equal(wt_cell(stdscr, 1, x + 39).wch[0], 0x2510);
	assert_int_equal(wt_cell(stdscr, 4, x).wch[0], 0x2514);
	assert_int_equal(wt_cell(stdscr, 2, x).wch[0], 0x2502);
	assert_string_equal(wt_in_box(stdscr, 2, x + 2), "3f2a web: make test");
	assert_string_equal(wt_in_box(stdscr, 3, x + 2), "9c01 web: npm install");
	assert_string_equal(wt_text_at(stdscr, 5, x + 2, 9), "Audit (1)");
	assert_string_equal(wt_in_box(stdscr, 6, x + 2), "12:01 approved make test");
	assert_int_equal(wt_cell(stdscr, 19, x).wch[0], 0x2514);
	assert_string_equal(wt_text_at(stdscr, 20, x + 2, 10), "Egress (0)");
	assert_int_equal(wt_cell(stdscr, 20, x).wch[0], 0x2500);
	assert_int_equal(wt_cell(stdscr, 20, x + 39).wch[0], 0x2500);
	assert_string_equal(wt_text_at(stdscr, 21, x + 2, 10), "Review (0)");
	assert_int_equal(wt_cell(stdscr, 1, x).pair, f->pal.style[THEME_BORDER].pair);
	/* Unfocused: waiting items in the alert style, no selection bar. */
	assert_int_equal(wt_cell(stdscr, 2, x + 2).pair, f->pal.style[THEME_TAB_ALERT].pair);
	sidelist_set_focus(sl, true);
	assert_int_equal(sidelist_handle_key(sl, WIDGET_KEY_FN(KEY_DOWN)), SIDELIST_NONE);
	sidelist_draw(sl, stdscr, 1, x, 21, 40, &f->pal);
	assert_int_equal(wt_cell(stdscr, 3, x + 2).pair, f->pal.style[THEME_PANEL_SELECTED].pair);
	assert_int_equal(wt_cell(stdscr, 2, x + 2).pair, f->pal.style[THEME_TAB_ALERT].pair);
	assert_true(wt_cell(stdscr, 1, x + 2).attr & A_REVERSE);	/* focused list's title */
	/* Focus shows in the frame: heavy, bold, in the panel.focus style; the
	 * box keeps its size (spare rows stay the Audit list's). */
	assert_int_equal(wt_cell(stdscr, 1, x).wch[0], 0x250f);
	assert_int_equal(wt_cell(stdscr, 4, x).wch[0], 0x2517);
	assert_true(wt_cell(stdscr, 1, x).attr & A_BOLD);
	assert_int_equal(wt_cell(stdscr, 1, x).pair, f->pal.style[THEME_PANEL_FOCUS].pair);
	assert_string_equal(wt_text_at(stdscr, 5, x + 2, 9), "Audit (1)");
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
	struct wt_fixture *f = *state;
	struct sidelist *sl = sidelist_new();
	const struct sidelist_item rv[] = {
		{ NULL, "0 default:ws 3 unreviewed, 2 flags", true },
		{ NULL, "1 web:site 0 unreviewed, 0 flags", false },
	};

	erase();
	sidelist_set(sl, SIDELIST_REVIEW, rv, 2);
	sidelist_draw(sl, stdscr, 0, 0, 24, 40, &f->pal);
	/* The three empty lists a row each, the review box the rest. */
	assert_string_equal(wt_text_at(stdscr, 0, 2, 15), "Escalations (0)");
	assert_string_equal(wt_text_at(stdscr, 1, 2, 9), "Audit (0)");
	assert_string_equal(wt_text_at(stdscr, 2, 2, 10), "Egress (0)");
	assert_string_equal(wt_text_at(stdscr, 3, 2, 10), "Review (2)");
	assert_string_equal(wt_in_box(stdscr, 4, 2), "0 default:ws 3 unreviewed, 2 flags");
	assert_string_equal(wt_in_box(stdscr, 5, 2), "1 web:site 0 unreviewed, 0 flags");
	assert_int_equal(wt_cell(stdscr, 4, 2).pair, f->pal.style[THEME_TAB_ALERT].pair);
	assert_int_equal(wt_cell(stdscr, 23, 0).wch[0], 0x2514);
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
	struct wt_fixture *f = *state;
	struct diffview *dv = diffview_new();
	size_t next = 0, total = 10002, skip = 99;
	char pos[128];

	erase();
	diffview_draw(dv, stdscr, 0, 0, 20, 80, &f->pal);
	/* The screen and DIFFVIEW_AHEAD lines, then the reader is told to wait. */
	assert_int_equal(dv_pump(dv, &next, total), 20 + DIFFVIEW_AHEAD);
	assert_false(diffview_wants(dv));
	diffview_draw(dv, stdscr, 0, 0, 20, 80, &f->pal);
	assert_string_equal(wt_at(stdscr, 0, 0), "diff --git a/x b/x");
	assert_string_equal(wt_at(stdscr, 2, 0), "+line 1");
	assert_int_equal(wt_cell(stdscr, 2, 0).pair, f->pal.style[THEME_DIFF_ADD].pair);
	assert_int_equal(wt_cell(stdscr, 1, 0).pair, f->pal.style[THEME_DIFF_HUNK].pair);
	assert_true(wt_cell(stdscr, 0, 0).attr & A_BOLD);
	/* A page down reads a page more. */
	assert_true(diffview_handle_key(dv, WIDGET_KEY_FN(KEY_NPAGE)));
	assert_int_equal(dv_pump(dv, &next, total), 19);
	/* G reads to the end, keeping only the last DIFFVIEW_WINDOW lines. */
	assert_true(diffview_handle_key(dv, 'G'));
	dv_pump(dv, &next, total);
	assert_true(diffview_at_eof(dv));
	diffview_draw(dv, stdscr, 0, 0, 20, 80, &f->pal);
	assert_string_equal(wt_at(stdscr, 19, 0), "+line 10000");
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
	assert_string_equal(wt_at(stdscr, 2, 0), "+line 1");
	/* A search reads on until it finds its line, which goes to the top. */
	diffview_search(dv, "line 5000");
	assert_true(diffview_wants(dv));
	dv_pump(dv, &next, total);
	diffview_draw(dv, stdscr, 0, 0, 20, 80, &f->pal);
	assert_string_equal(wt_at(stdscr, 0, 0), "+line 5000");
	assert_true(next < total);
	diffview_free(dv);
}

static void
test_diffview_cuts_long_lines_and_shows_controls(void **state)
{
	struct wt_fixture *f = *state;
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
	assert_string_equal(wt_text_at(stdscr, 2, 0, 13), "-       old^[");
	assert_int_equal(wt_cell(stdscr, 2, 0).pair, f->pal.style[THEME_DIFF_DEL].pair);
	assert_string_equal(wt_at(stdscr, 4, 0), "+end");
	free(big);
	diffview_free(dv);
}

static void
test_sidelist_scrolls_logs_and_keeps_the_newest(void **state)
{
	struct wt_fixture *f = *state;
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
	assert_string_equal(wt_in_box(stdscr, 18, 2), "egress 519");
	assert_string_equal(wt_text_at(stdscr, 2, 2, 12), "Egress (500)");
	assert_string_equal(wt_text_at(stdscr, 2, 37, 1), "^");
	assert_int_equal(wt_cell(stdscr, 18, 2).pair, f->pal.style[THEME_PANEL_SELECTED].pair);
	sidelist_handle_key(sl, WIDGET_KEY_FN(KEY_HOME));
	sidelist_draw(sl, stdscr, 0, 0, 21, 40, &f->pal);
	assert_string_equal(wt_in_box(stdscr, 3, 2), "egress 20");
	assert_string_equal(wt_text_at(stdscr, 2, 37, 1), "v");
	sidelist_handle_key(sl, WIDGET_KEY_FN(KEY_NPAGE));
	assert_int_equal(sidelist_selected(sl, SIDELIST_EGRESS), 15);
	/* Fewer than 6 rows: only the current list, with its title. */
	werase(stdscr);
	sidelist_draw(sl, stdscr, 0, 0, 4, 40, &f->pal);
	assert_string_equal(wt_text_at(stdscr, 0, 1, 12), "Egress (500)");
	assert_null(strstr(wt_row(stdscr, 1), "Escalations"));
	assert_string_equal(wt_row(stdscr, 4), "");
	sidelist_free(sl);
}

/* / in a list: the selection goes to the item holding the text as it is
 * typed, n/N go on, Esc while typing drops the search, and while typing
 * the list's own keys (d, q, Esc) are the query's. */
static void
test_sidelist_search_moves_the_selection(void **state)
{
	struct wt_fixture *f = *state;
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
	assert_non_null(strstr(wt_row(stdscr, 17), "/MAKE_"));	/* on the box's bottom edge */
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
	assert_non_null(strstr(wt_row(stdscr, 17), "/z (none)"));
	sidelist_free(sl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sidelist_search_moves_the_selection),
		cmocka_unit_test(test_sidelist_shows_three_titled_lists_and_the_selection),
		cmocka_unit_test(test_sidelist_empty_lists_take_one_row_each),
		cmocka_unit_test(test_diffview_reads_only_what_the_screen_needs),
		cmocka_unit_test(test_diffview_cuts_long_lines_and_shows_controls),
		cmocka_unit_test(test_sidelist_hit_and_wheel),
		cmocka_unit_test(test_sidelist_scrolls_logs_and_keeps_the_newest),
	};

	return cmocka_run_group_tests_name("widgets-lists", tests, wt_setup, wt_teardown);
}
