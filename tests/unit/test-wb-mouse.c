/* test-wb-mouse.c - SGR mouse reports out of the workbench's key bursts:
 * whole reports become events in order, anything else stays keys, and what
 * is not a report (cut, too long, out of range) is never taken for one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "wb/core/wb-mouse.h"

/* keys of s (bytes), parsed; returns the key count left. */
static size_t
parse(const char *s, int *keys, struct wb_mouse *evs, size_t max, size_t *n_evs)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++)
		keys[i] = (unsigned char)s[i];
	return wb_mouse_parse(keys, n, evs, max, n_evs);
}

static void
test_wb_mouse_folds_sgr_reports_in_order(void **state)
{
	int keys[64];
	struct wb_mouse ev[8];
	size_t n, ne;

	(void)state;
	n = parse("a\033[<0;5;3Mb\033[<0;5;3m\033[<65;120;40M", keys, ev, 8, &ne);
	assert_int_equal(n, 5);
	assert_int_equal(keys[0], 'a');
	assert_int_equal(keys[1], WB_MOUSE_KEY);
	assert_int_equal(keys[2], 'b');
	assert_int_equal(keys[3], WB_MOUSE_KEY);
	assert_int_equal(keys[4], WB_MOUSE_KEY);
	assert_int_equal(ne, 3);
	assert_int_equal(ev[0].b, 0);
	assert_int_equal(ev[0].x, 4);
	assert_int_equal(ev[0].y, 2);
	assert_false(ev[0].release);
	assert_true(wb_mouse_is_press(&ev[0]));
	assert_true(ev[1].release);
	assert_false(wb_mouse_is_press(&ev[1]));
	assert_int_equal(wb_mouse_button(&ev[2]), WB_MOUSE_WHEEL + 1);
	assert_int_equal(ev[2].x, 119);
	assert_int_equal(ev[2].y, 39);
	assert_false(wb_mouse_is_press(&ev[2]));
}

static void
test_wb_mouse_takes_the_rest_ncurses_left(void **state)
{
	int keys[32] = { WB_MOUSE_KEY, '2', ';', '1', ';', '1', 'M', 'x', WB_MOUSE_KEY };
	struct wb_mouse ev[4];
	size_t n, ne;

	(void)state;
	n = wb_mouse_parse(keys, 9, ev, 4, &ne);
	/* the report, then x; a lone KEY_MOUSE is dropped, never typed */
	assert_int_equal(n, 2);
	assert_int_equal(keys[0], WB_MOUSE_KEY);
	assert_int_equal(keys[1], 'x');
	assert_int_equal(ne, 1);
	assert_int_equal(wb_mouse_button(&ev[0]), 2);
	assert_int_equal(ev[0].x, 0);
}

static void
test_wb_mouse_leaves_what_is_no_report(void **state)
{
	static const char *const not[] = {
		"\033[<0;5;3",		/* cut by the end of the read */
		"\033[<0;5M",		/* two numbers */
		"\033[<0;0;3M",		/* columns count from 1 */
		"\033[<0;10000;3M",	/* beyond WB_MOUSE_COORD_MAX */
		"\033[<0;00005;3M",	/* five digits */
		"\033[<256;5;3M",	/* no such button code */
		"\033[<0;5;3X",
		"\033[<;5;3M",
		"\033[0;5;3M",
		"\033<0;5;3M",
	};
	int keys[64];
	struct wb_mouse ev[4];
	size_t n, ne;

	(void)state;
	for (size_t i = 0; i < sizeof not / sizeof not[0]; i++) {
		n = parse(not[i], keys, ev, 4, &ne);
		assert_int_equal(ne, 0);
		assert_int_equal(n, strlen(not[i]));
		for (size_t k = 0; k < n; k++)
			assert_int_equal(keys[k], (unsigned char)not[i][k]);
	}
	/* no room for more events: the rest stay keys */
	n = parse("\033[<0;1;1M\033[<0;1;1M", keys, ev, 1, &ne);
	assert_int_equal(ne, 1);
	assert_int_equal(n, 1 + 9);
}

static void
test_wb_mouse_from_curses_events(void **state)
{
	struct wb_mouse m;

	(void)state;
	assert_true(wb_mouse_from_curses(BUTTON1_PRESSED, 3, 0, &m));
	assert_true(wb_mouse_is_press(&m));
	assert_int_equal(m.b, 0);
	assert_int_equal(m.x, 3);
	assert_true(wb_mouse_from_curses(BUTTON1_RELEASED, 3, 0, &m));
	assert_true(m.release);
	assert_true(wb_mouse_from_curses(BUTTON4_PRESSED, 1, 1, &m));
	assert_int_equal(wb_mouse_button(&m), WB_MOUSE_WHEEL);
	assert_true(wb_mouse_from_curses(BUTTON5_PRESSED | BUTTON_CTRL, 1, 1, &m));
	assert_int_equal(wb_mouse_button(&m), WB_MOUSE_WHEEL + 1);
	assert_int_equal(m.b & WB_MOUSE_CTRL, WB_MOUSE_CTRL);
	assert_true(wb_mouse_from_curses(BUTTON3_CLICKED, 1, 1, &m));
	assert_int_equal(wb_mouse_button(&m), 2);
	assert_false(wb_mouse_from_curses(0, 1, 1, &m));
	assert_false(wb_mouse_from_curses(BUTTON1_PRESSED, -1, 1, &m));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wb_mouse_folds_sgr_reports_in_order),
		cmocka_unit_test(test_wb_mouse_takes_the_rest_ncurses_left),
		cmocka_unit_test(test_wb_mouse_leaves_what_is_no_report),
		cmocka_unit_test(test_wb_mouse_from_curses_events),
	};

	return cmocka_run_group_tests_name("wb-mouse", tests, NULL, NULL);
}
