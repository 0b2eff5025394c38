/* test-wb-layout.c - workbench rectangles at 80x24, wide, narrow and tiny
 * screens, and invariants over every size up to 300x120. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "term.h"
#include "wb/core/wb-layout.h"

static void
assert_rect(const struct wb_layout_rect *r, int y, int x, int h, int w)
{
	assert_int_equal(r->y, y);
	assert_int_equal(r->x, x);
	assert_int_equal(r->h, h);
	assert_int_equal(r->w, w);
}

static void
test_wb_layout_80x24_panel_is_an_overlay(void **state)
{
	struct wb_layout l;

	(void)state;
	wb_layout_compute(24, 80, false, &l);
	assert_rect(&l.tabbar, 0, 0, 1, 80);
	assert_rect(&l.term, 1, 0, 22, 80);
	assert_rect(&l.status, 23, 0, 1, 80);
	assert_rect(&l.panel, 0, 0, 0, 0);
	assert_false(l.too_small);
	/* Showing the panel does not change the terminal's size. */
	wb_layout_compute(24, 80, true, &l);
	assert_rect(&l.term, 1, 0, 22, 80);
	assert_rect(&l.panel, 1, 40, 22, 40);
	assert_true(l.panel_overlay);
}

static void
test_wb_layout_wide_screen_puts_the_panel_beside(void **state)
{
	struct wb_layout l;

	(void)state;
	wb_layout_compute(50, 200, true, &l);
	assert_false(l.panel_overlay);
	assert_rect(&l.term, 1, 0, 48, 140);
	assert_rect(&l.panel, 1, 140, 48, 60);
	wb_layout_compute(40, 120, true, &l);
	assert_rect(&l.term, 1, 0, 38, 80);
	assert_rect(&l.panel, 1, 80, 38, 40);
	/* At the threshold: 40 columns, the terminal keeps 60. */
	wb_layout_compute(30, WB_LAYOUT_SIDE_COLS, true, &l);
	assert_false(l.panel_overlay);
	assert_rect(&l.term, 1, 0, 28, 60);
	assert_rect(&l.panel, 1, 60, 28, 40);
	wb_layout_compute(30, WB_LAYOUT_SIDE_COLS - 1, true, &l);
	assert_true(l.panel_overlay);
	assert_int_equal(l.term.w, WB_LAYOUT_SIDE_COLS - 1);
	wb_layout_compute(30, 45, true, &l);
	assert_rect(&l.panel, 1, 0, 28, 45);
}

static void
test_wb_layout_tiny_screens_degrade(void **state)
{
	struct wb_layout l;

	(void)state;
	wb_layout_compute(0, 0, true, &l);
	assert_true(l.too_small);
	assert_int_equal(l.term.h, 0);
	wb_layout_compute(-5, 80, true, &l);
	assert_true(l.too_small);
	assert_int_equal(l.term.w, 0);
	wb_layout_compute(1, 80, true, &l);
	assert_true(l.too_small);
	assert_rect(&l.term, 0, 0, 1, 80);
	assert_int_equal(l.status.h, 0);
	assert_int_equal(l.tabbar.h, 0);
	assert_int_equal(l.panel.w, 0);
	wb_layout_compute(2, 80, false, &l);
	assert_rect(&l.term, 0, 0, 1, 80);
	assert_rect(&l.status, 1, 0, 1, 80);
	assert_int_equal(l.tabbar.h, 0);
	wb_layout_compute(3, 10, true, &l);
	assert_false(l.too_small);
	assert_rect(&l.term, 1, 0, 1, 10);
	wb_layout_compute(3, 9, false, &l);
	assert_true(l.too_small);
}

static bool
overlap(const struct wb_layout_rect *a, const struct wb_layout_rect *b)
{
	if (a->h == 0 || a->w == 0 || b->h == 0 || b->w == 0)
		return false;
	return a->y < b->y + b->h && b->y < a->y + a->h && a->x < b->x + b->w && b->x < a->x + a->w;
}

static void
assert_inside(const struct wb_layout_rect *r, int lines, int cols)
{
	assert_true(r->h >= 0 && r->w >= 0);
	if (r->h == 0 || r->w == 0)
		return;
	assert_true(r->y >= 0 && r->x >= 0);
	assert_true(r->y + r->h <= lines);
	assert_true(r->x + r->w <= cols);
}

static void
test_wb_layout_every_size_fits_without_overlap(void **state)
{
	struct wb_layout l;

	(void)state;
	for (int lines = 0; lines <= 120; lines++)
		for (int cols = 0; cols <= 300; cols++)
			for (int panel = 0; panel < 2; panel++) {
				int cells;

				wb_layout_compute(lines, cols, panel, &l);
				assert_inside(&l.tabbar, lines, cols);
				assert_inside(&l.term, lines, cols);
				assert_inside(&l.panel, lines, cols);
				assert_inside(&l.status, lines, cols);
				assert_false(overlap(&l.term, &l.tabbar));
				assert_false(overlap(&l.term, &l.status));
				assert_false(overlap(&l.panel, &l.tabbar));
				assert_false(overlap(&l.panel, &l.status));
				assert_true(l.panel_overlay || !overlap(&l.panel, &l.term));
				if (l.too_small)
					continue;
				/* Usable: a terminal libvterm accepts, every cell used once. */
				assert_true(l.term.h >= 1 && l.term.w >= TERM_MIN_COLS);
				assert_true(l.term.w >= 10);
				cells = l.tabbar.h * l.tabbar.w + l.term.h * l.term.w + l.status.h * l.status.w +
					(l.panel_overlay ? 0 : l.panel.h * l.panel.w);
				assert_int_equal(cells, lines * cols);
				assert_int_equal(l.panel.w > 0, panel);
				assert_true(wb_layout_contains(&l.term, l.term.y, l.term.x));
				assert_false(wb_layout_contains(&l.term, l.status.y, 0));
			}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wb_layout_80x24_panel_is_an_overlay),
		cmocka_unit_test(test_wb_layout_wide_screen_puts_the_panel_beside),
		cmocka_unit_test(test_wb_layout_tiny_screens_degrade),
		cmocka_unit_test(test_wb_layout_every_size_fits_without_overlap),
	};

	return cmocka_run_group_tests_name("wb-layout", tests, NULL, NULL);
}
