/* test-term-sb.c - scrollback: lines scrolled off are kept, bounded, viewable. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "term.h"
#include "term-sb.h"

static struct term *
mk(int rows, int cols, size_t sb)
{
	struct term *t = NULL;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(term_new(rows, cols, sb, &t, &err), 0);
	return t;
}

static void
feed_lines(struct term *t, int from, int to)
{
	char buf[64];

	for (int i = from; i < to; i++) {
		int n = snprintf(buf, sizeof(buf), "line %d\r\n", i);

		term_feed(t, buf, (size_t)n);
	}
}

static void
assert_row(struct term *t, int row, const char *want)
{
	char buf[512];

	term_view_text(t, row, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void
test_term_sb_holds_lines_scrolled_off_the_top(void **state)
{
	struct term *t = mk(5, 20, 100);
	const struct term_sb *sb = term_scrollback(t);
	VTermScreenCell c;

	(void)state;
	feed_lines(t, 0, 20);
	/* Rows show lines 16..19 and the empty prompt row: 0..15 scrolled off. */
	assert_int_equal(term_sb_count(sb), 16);
	assert_int_equal(term_sb_line_len(sb, 0), 7);	/* "line 15", trailing blanks not stored */
	assert_true(term_sb_cell(sb, 0, 5, &c));
	assert_int_equal(c.chars[0], '1');
	assert_true(term_sb_cell(sb, 0, 6, &c));
	assert_int_equal(c.chars[0], '5');
	assert_false(term_sb_cell(sb, 0, 7, &c));
	assert_true(term_sb_cell(sb, 15, 5, &c));
	assert_int_equal(c.chars[0], '0');
	assert_int_equal(term_sb_line_len(sb, 16), -1);
	assert_false(term_sb_cell(sb, 16, 0, &c));
	assert_row(t, 0, "line 16");
	term_free(t);
}

static void
test_term_sb_keeps_colours_attributes_wide_and_combining_chars(void **state)
{
	struct term *t = mk(3, 20, 100);
	const struct term_sb *sb = term_scrollback(t);
	VTermScreenCell c;
	const char *in = "\x1b[1;4;38;5;200;48;2;1;2;3mB\x1b[m\xe6\xbc\xa2\r\n"
	    "e\xcc\x81\x1b[7mR\x1b[m\r\n\r\n\r\n";

	(void)state;
	term_feed(t, in, strlen(in));
	assert_int_equal(term_sb_count(sb), 2);
	assert_true(term_sb_cell(sb, 1, 0, &c));	/* packed line */
	assert_int_equal(c.chars[0], 'B');
	assert_int_equal(c.chars[1], 0);
	assert_int_equal(c.attrs.bold, 1);
	assert_int_equal(c.attrs.underline, VTERM_UNDERLINE_SINGLE);
	assert_int_equal(c.fg.indexed.idx, 200);
	assert_true(VTERM_COLOR_IS_RGB(&c.bg));
	assert_int_equal(c.bg.rgb.blue, 3);
	assert_true(term_sb_cell(sb, 1, 1, &c));
	assert_int_equal(c.chars[0], 0x6f22);
	assert_int_equal(c.width, 2);
	assert_true(term_sb_cell(sb, 0, 0, &c));	/* line with a combining mark */
	assert_int_equal(c.chars[0], 'e');
	assert_int_equal(c.chars[1], 0x301);
	assert_true(term_sb_cell(sb, 0, 1, &c));
	assert_int_equal(c.attrs.reverse, 1);
	/* Popped back on grow, the cells come back the same. */
	{
		lz_err_t err = LZ_ERR_INIT;
		VTermScreenCell s;

		assert_int_equal(term_resize(t, 5, 20, &err), 0);
		assert_int_equal(term_sb_count(sb), 0);
		assert_true(term_cell(t, 0, 0, &s));
		assert_int_equal(s.chars[0], 'B');
		assert_int_equal(s.fg.indexed.idx, 200);
		assert_true(term_cell(t, 1, 0, &s));
		assert_int_equal(s.chars[1], 0x301);
	}
	term_free(t);
}

static void
test_term_sb_scrolling_back_shows_old_lines(void **state)
{
	struct term *t = mk(5, 20, 100);
	int s, e;

	(void)state;
	feed_lines(t, 0, 20);
	term_dirty_clear(t);
	assert_int_equal(term_scroll(t, 2), 2);
	assert_true(term_dirty(t, &s, &e));
	assert_int_equal(s, 0);
	assert_int_equal(e, 5);
	assert_row(t, 0, "line 14");
	assert_row(t, 1, "line 15");
	assert_row(t, 2, "line 16");
	assert_row(t, 4, "line 18");
	/* Clamped at the oldest line, then back to live. */
	assert_int_equal(term_scroll(t, 1000), 16);
	assert_row(t, 0, "line 0");
	assert_int_equal(term_scroll(t, -3), 13);
	assert_row(t, 0, "line 3");
	term_scroll_reset(t);
	assert_int_equal(term_scroll_offset(t), 0);
	assert_row(t, 0, "line 16");
	assert_int_equal(term_scroll(t, -5), 0);
	term_free(t);
}

static void
test_term_sb_scrolled_view_stays_put_while_output_continues(void **state)
{
	struct term *t = mk(5, 20, 100);

	(void)state;
	feed_lines(t, 0, 20);
	term_scroll(t, 3);
	assert_row(t, 0, "line 13");
	feed_lines(t, 20, 22);
	assert_int_equal(term_scroll_offset(t), 5);
	assert_row(t, 0, "line 13");
	term_scroll_reset(t);
	assert_row(t, 0, "line 18");
	term_free(t);
}

static void
test_term_sb_is_bounded_and_drops_the_oldest(void **state)
{
	struct term *t = mk(5, 20, 10);
	const struct term_sb *sb = term_scrollback(t);

	(void)state;
	feed_lines(t, 0, 1000);
	assert_int_equal(term_sb_count(sb), 10);
	assert_int_equal(term_sb_max(sb), 10);
	term_scroll(t, 100);
	assert_row(t, 0, "line 986");
	assert_row(t, 9 - 5, "line 990");
	term_free(t);
}

static void
test_term_sb_lines_come_back_when_the_screen_grows(void **state)
{
	struct term *t = mk(5, 20, 100);
	const struct term_sb *sb = term_scrollback(t);
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	feed_lines(t, 0, 20);
	assert_int_equal(term_sb_count(sb), 16);
	assert_int_equal(term_resize(t, 10, 20, &err), 0);
	assert_int_equal(term_sb_count(sb), 11);
	assert_row(t, 0, "line 11");
	assert_row(t, 8, "line 19");
	term_free(t);
}

static void
test_term_sb_alt_screen_output_stays_out_of_scrollback(void **state)
{
	struct term *t = mk(5, 20, 100);
	const struct term_sb *sb = term_scrollback(t);

	(void)state;
	feed_lines(t, 0, 8);
	assert_int_equal(term_sb_count(sb), 4);
	term_feed(t, "\x1b[?1049h", 8);
	feed_lines(t, 100, 140);
	assert_int_equal(term_sb_count(sb), 4);
	term_feed(t, "\x1b[?1049l", 8);
	assert_row(t, 0, "line 4");
	term_free(t);
}

static void
test_term_sb_pop_pads_with_blank_and_empty_ring_refuses(void **state)
{
	struct term_sb *sb = term_sb_new(3);
	VTermScreenCell line[6], out[8], blank;

	(void)state;
	memset(&blank, 0, sizeof(blank));
	blank.width = 1;
	vterm_color_indexed(&blank.bg, 0);
	blank.bg.type |= VTERM_COLOR_DEFAULT_BG;
	for (int i = 0; i < 6; i++)
		line[i] = blank;
	line[0].chars[0] = 'x';
	line[1].chars[0] = 'y';
	assert_false(term_sb_pop(sb, 8, out, &blank));
	term_sb_push(sb, 6, line, &blank);
	assert_int_equal(term_sb_count(sb), 1);
	assert_true(term_sb_pop(sb, 8, out, &blank));
	assert_int_equal(out[0].chars[0], 'x');
	assert_int_equal(out[1].chars[0], 'y');
	for (int i = 2; i < 8; i++)
		assert_memory_equal(&out[i], &blank, sizeof(blank));
	assert_int_equal(term_sb_count(sb), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(term_sb_push(sb, 6, line, &blank), i >= 3);
	term_sb_clear(sb);
	assert_int_equal(term_sb_count(sb), 0);
	term_sb_free(sb);
	term_sb_free(NULL);
}

static void
test_term_sb_zero_size_keeps_nothing(void **state)
{
	struct term *t = mk(5, 20, 0);

	(void)state;
	feed_lines(t, 0, 20);
	assert_int_equal(term_sb_count(term_scrollback(t)), 0);
	assert_int_equal(term_scroll(t, 5), 0);
	term_free(t);
}

/* A row pushed as text is stored as the same row of cells pushed whole:
 * on a blank pen the trailing cells are trimmed, on a coloured one kept. */
static void
test_term_sb_text_row_is_the_row_of_cells(void **state)
{
	struct term_sb *a = term_sb_new(4), *b = term_sb_new(4);
	VTermScreenCell blank, pen, row[10], x, y;
	const unsigned char text[] = "ab c";

	(void)state;
	memset(&blank, 0, sizeof(blank));
	blank.width = 1;
	pen = blank;
	pen.attrs.bold = 1;
	vterm_color_indexed(&pen.bg, 4);
	for (int k = 0; k < 2; k++) {
		const VTermScreenCell *tmpl = k == 0 ? &blank : &pen;

		for (int c = 0; c < 10; c++) {
			row[c] = *tmpl;
			row[c].chars[0] = c < 4 ? text[c] : 0;
		}
		term_sb_push(a, 10, row, &blank);
		term_sb_push_text(b, 10, text, 4, tmpl, &blank);
		assert_int_equal(term_sb_line_len(a, 0), term_sb_line_len(b, 0));
		assert_int_equal(term_sb_line_len(b, 0), k == 0 ? 4 : 10);
		for (int c = 0; c < term_sb_line_len(a, 0); c++) {
			assert_true(term_sb_cell(a, 0, c, &x));
			assert_true(term_sb_cell(b, 0, c, &y));
			assert_int_equal(x.chars[0], y.chars[0]);
			assert_int_equal(x.attrs.bold, y.attrs.bold);
			assert_true(vterm_color_is_equal(&x.bg, &y.bg));
		}
	}
	term_sb_free(a);
	term_sb_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term_sb_holds_lines_scrolled_off_the_top),
		cmocka_unit_test(test_term_sb_keeps_colours_attributes_wide_and_combining_chars),
		cmocka_unit_test(test_term_sb_scrolling_back_shows_old_lines),
		cmocka_unit_test(test_term_sb_scrolled_view_stays_put_while_output_continues),
		cmocka_unit_test(test_term_sb_is_bounded_and_drops_the_oldest),
		cmocka_unit_test(test_term_sb_lines_come_back_when_the_screen_grows),
		cmocka_unit_test(test_term_sb_alt_screen_output_stays_out_of_scrollback),
		cmocka_unit_test(test_term_sb_pop_pads_with_blank_and_empty_ring_refuses),
		cmocka_unit_test(test_term_sb_zero_size_keeps_nothing),
		cmocka_unit_test(test_term_sb_text_row_is_the_row_of_cells),
	};

	return cmocka_run_group_tests_name("term-sb", tests, NULL, NULL);
}
