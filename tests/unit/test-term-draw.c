/* test-term-draw.c - libvterm cells drawn on a real ncurses screen, read back
 * with mvwin_wch: characters, wide and combining chars, attributes, pairs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "term-draw.h"

struct fixture {
	FILE *out, *in;
	SCREEN *scr;
	WINDOW *win;
	struct term_draw *d;
	struct term *t;
};

static int
open_screen(struct fixture *f, const char *termname, int rows, int cols)
{
	lz_err_t err = LZ_ERR_INIT;

	f->out = fopen("/dev/null", "w");
	f->in = fopen("/dev/null", "r");
	if (f->out == NULL || f->in == NULL)
		return -1;
	f->scr = newterm(termname, f->out, f->in);
	if (f->scr == NULL)
		return -1;
	set_term(f->scr);
	start_color();
	f->d = term_draw_new();
	f->win = newwin(rows, cols, 0, 0);
	return term_new(rows, cols, 100, &f->t, &err);
}

static void
close_screen(struct fixture *f)
{
	term_free(f->t);
	term_draw_free(f->d);
	delwin(f->win);
	endwin();
	delscreen(f->scr);
	fclose(f->out);
	fclose(f->in);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	setlocale(LC_ALL, "C.UTF-8");
	if (open_screen(f, "xterm-256color", 10, 40) < 0)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	close_screen(*state);
	free(*state);
	return 0;
}

struct got {
	wchar_t wch[CCHARW_MAX + 1];
	attr_t attr;
	int pair, fg, bg;
};

static struct got
read_cell(WINDOW *win, int y, int x)
{
	struct got g;
	cchar_t cc;
	short sp;

	memset(&g, 0, sizeof(g));
	assert_int_equal(mvwin_wch(win, y, x, &cc), OK);
	assert_int_equal(getcchar(&cc, g.wch, &g.attr, &sp, &g.pair), OK);
	assert_int_equal(extended_pair_content(g.pair, &g.fg, &g.bg), OK);
	return g;
}

static void
draw(struct fixture *f, const char *s)
{
	term_feed(f->t, s, strlen(s));
	term_draw(f->d, f->t, f->win);
}

static void
test_term_draw_text_lands_in_the_window(void **state)
{
	struct fixture *f = *state;
	struct got g;

	draw(f, "hello\r\n  world");
	assert_int_equal(read_cell(f->win, 0, 0).wch[0], L'h');
	assert_int_equal(read_cell(f->win, 0, 4).wch[0], L'o');
	g = read_cell(f->win, 1, 2);
	assert_int_equal(g.wch[0], L'w');
	assert_int_equal(g.pair, 0);	/* default colours: the terminal's own */
	assert_int_equal(g.fg, -1);
	assert_int_equal(g.bg, -1);
	assert_int_equal(read_cell(f->win, 1, 0).wch[0], L' ');
}

static void
test_term_draw_attributes_map_to_curses_attrs(void **state)
{
	struct fixture *f = *state;

	draw(f, "\x1b[1mB\x1b[0;4mU\x1b[0;7mR\x1b[0;3mI\x1b[0;5mK\x1b[0mN");
	assert_true(read_cell(f->win, 0, 0).attr & A_BOLD);
	assert_true(read_cell(f->win, 0, 1).attr & A_UNDERLINE);
	assert_true(read_cell(f->win, 0, 2).attr & A_REVERSE);
	assert_true(read_cell(f->win, 0, 3).attr & A_ITALIC);
	assert_true(read_cell(f->win, 0, 4).attr & A_BLINK);
	assert_int_equal(read_cell(f->win, 0, 5).attr & (A_BOLD | A_UNDERLINE | A_REVERSE | A_ITALIC | A_BLINK), 0);
	assert_false(read_cell(f->win, 0, 0).attr & A_UNDERLINE);
	/* DECSCNM reverse video flips every cell. */
	draw(f, "\x1b[?5h");
	assert_true(read_cell(f->win, 0, 5).attr & A_REVERSE);
	assert_false(read_cell(f->win, 0, 2).attr & A_REVERSE);
}

static void
test_term_draw_colours_map_to_pairs(void **state)
{
	struct fixture *f = *state;
	struct got a, b, c, e, x;

	draw(f, "\x1b[31;42mA\x1b[0;38;5;200;48;5;17mB\x1b[0;38;2;255;0;0mC\x1b[0;34mD\x1b[0;34mE\x1b[0;93mX");
	a = read_cell(f->win, 0, 0);
	assert_int_equal(a.fg, 1);
	assert_int_equal(a.bg, 2);
	b = read_cell(f->win, 0, 1);
	assert_int_equal(b.fg, 200);
	assert_int_equal(b.bg, 17);
	/* No direct colour on xterm-256color: pure red is palette 196. */
	c = read_cell(f->win, 0, 2);
	assert_int_equal(c.fg, 196);
	assert_int_equal(c.bg, -1);
	/* One pair per (fg, bg): D and E share it. */
	e = read_cell(f->win, 0, 4);
	assert_int_equal(e.pair, read_cell(f->win, 0, 3).pair);
	assert_int_equal(e.fg, 4);
	assert_int_not_equal(e.pair, a.pair);
	x = read_cell(f->win, 0, 5);
	assert_int_equal(x.fg, 11);
	assert_int_equal(term_draw_pair(f->d, 1, 2), a.pair);
}

static void
test_term_draw_wide_and_combining_chars(void **state)
{
	struct fixture *f = *state;
	struct got g;

	draw(f, "a\xe6\xbc\xa2" "b\r\ne\xcc\x81x");
	assert_int_equal(read_cell(f->win, 0, 0).wch[0], L'a');
	g = read_cell(f->win, 0, 1);
	assert_int_equal(g.wch[0], 0x6f22);
	/* The wide char covers columns 1-2; b is in column 3, not 2. */
	assert_int_equal(read_cell(f->win, 0, 3).wch[0], L'b');
	g = read_cell(f->win, 1, 0);
	assert_int_equal(g.wch[0], L'e');
	assert_int_equal(g.wch[1], 0x301);
	assert_int_equal(read_cell(f->win, 1, 1).wch[0], L'x');
}

static void
test_term_draw_redraws_only_dirty_rows(void **state)
{
	struct fixture *f = *state;

	draw(f, "row zero\r\nrow one");
	/* Scribble over row 0 behind the term's back; it is not dirty again. */
	mvwaddstr(f->win, 0, 0, "ZZZ");
	assert_int_equal(term_draw(f->d, f->t, f->win), 0);
	term_feed(f->t, "\x1b[4;1Hrow three", 14);
	assert_int_equal(term_draw(f->d, f->t, f->win), 1);
	assert_int_equal(read_cell(f->win, 0, 0).wch[0], L'Z');
	assert_int_equal(read_cell(f->win, 3, 4).wch[0], L't');
	/* A full redraw request repaints it. */
	term_dirty_all(f->t);
	assert_int_equal(term_draw(f->d, f->t, f->win), 10);
	assert_int_equal(read_cell(f->win, 0, 0).wch[0], L'r');
}

static void
test_term_draw_shows_scrollback_when_scrolled(void **state)
{
	struct fixture *f = *state;
	char line[32];

	for (int i = 0; i < 25; i++) {
		snprintf(line, sizeof(line), "out %02d\r\n", i);
		term_feed(f->t, line, strlen(line));
	}
	term_draw(f->d, f->t, f->win);
	assert_int_equal(read_cell(f->win, 0, 5).wch[0], L'6');	/* "out 16" */
	term_scroll(f->t, 3);
	term_draw(f->d, f->t, f->win);
	assert_int_equal(read_cell(f->win, 0, 4).wch[0], L'1');	/* "out 13" */
	assert_int_equal(read_cell(f->win, 0, 5).wch[0], L'3');
	assert_int_equal(term_draw_cursor(f->t, f->win), 0);
	term_scroll_reset(f->t);
	term_draw(f->d, f->t, f->win);
	assert_int_equal(read_cell(f->win, 0, 5).wch[0], L'6');
}

static void
test_term_draw_cursor_follows_term(void **state)
{
	struct fixture *f = *state;

	draw(f, "\x1b[5;7H");
	assert_int_equal(term_draw_cursor(f->t, f->win), 1);
	assert_int_equal(getcury(f->win), 4);
	assert_int_equal(getcurx(f->win), 6);
	draw(f, "\x1b[?25l");
	assert_int_equal(term_draw_cursor(f->t, f->win), 0);
}

static void
test_term_draw_rgb_approximation_picks_nearest_palette_entry(void **state)
{
	(void)state;
	assert_int_equal(term_draw_rgb_to_256(0, 0, 0), 16);
	assert_int_equal(term_draw_rgb_to_256(255, 255, 255), 231);
	assert_int_equal(term_draw_rgb_to_256(255, 0, 0), 196);
	assert_int_equal(term_draw_rgb_to_256(0, 95, 135), 16 + 6 * 1 + 2);
	assert_int_equal(term_draw_rgb_to_256(128, 128, 128), 244);	/* gray ramp */
	assert_int_equal(term_draw_rgb_to_256(250, 128, 10), 208);
	assert_int_equal(term_draw_rgb_to_ansi(200, 10, 10, 8), 1);
	assert_int_equal(term_draw_rgb_to_ansi(250, 250, 250, 16), 15);
	assert_int_equal(term_draw_rgb_to_ansi(250, 250, 250, 8), 7);
}

static void
test_term_draw_eight_colour_terminal_approximates(void **state)
{
	struct fixture e = { 0 };
	struct fixture *f = *state;
	struct got g;

	assert_int_equal(open_screen(&e, "xterm", 5, 20), 0);
	assert_int_equal(COLORS, 8);
	draw(&e, "\x1b[91mR\x1b[0;38;5;46mG\x1b[0;38;2;0;0;230mB");
	g = read_cell(e.win, 0, 0);
	assert_int_equal(g.fg, 1);
	assert_true(g.attr & A_BOLD);	/* bright red on 8 colours */
	assert_int_equal(read_cell(e.win, 0, 1).fg, 2);
	assert_int_equal(read_cell(e.win, 0, 2).fg, 4);
	close_screen(&e);
	set_term(f->scr);
}

static void
test_term_draw_pair_cache_restarts_when_pairs_run_out(void **state)
{
	struct fixture e = { 0 };
	struct fixture *f = *state;
	int p, fg, bg;

	assert_int_equal(open_screen(&e, "xterm", 5, 20), 0);
	assert_int_equal(COLOR_PAIRS, 64);
	for (int i = 0; i < 100; i++) {
		p = term_draw_pair(e.d, i % 8, (i / 8) % 8 == i % 8 ? -1 : (i / 8) % 8);
		assert_true(p > 0 && p < COLOR_PAIRS);
	}
	/* 63 usable pairs for 64 combinations: one restart. */
	assert_int_equal(term_draw_generation(e.d), 1);
	p = term_draw_pair(e.d, 3, 5);
	assert_int_equal(extended_pair_content(p, &fg, &bg), OK);
	assert_int_equal(fg, 3);
	assert_int_equal(bg, 5);
	close_screen(&e);
	set_term(f->scr);
}

static void
test_term_draw_many_pairs_stay_distinct(void **state)
{
	struct fixture *f = *state;
	int seen[256];

	for (int i = 0; i < 256; i++) {
		seen[i] = term_draw_pair(f->d, i, (i * 7) % 256);
		assert_true(seen[i] > 0);
		for (int j = 0; j < i; j++)
			assert_int_not_equal(seen[i], seen[j]);
	}
	for (int i = 0; i < 256; i++)
		assert_int_equal(term_draw_pair(f->d, i, (i * 7) % 256), seen[i]);
	assert_int_equal(term_draw_generation(f->d), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_term_draw_text_lands_in_the_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_term_draw_attributes_map_to_curses_attrs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_term_draw_colours_map_to_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_term_draw_wide_and_combining_chars, setup, teardown),
		cmocka_unit_test_setup_teardown(test_term_draw_redraws_only_dirty_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_term_draw_shows_scrollback_when_scrolled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_term_draw_cursor_follows_term, setup, teardown),
		cmocka_unit_test(test_term_draw_rgb_approximation_picks_nearest_palette_entry),
		cmocka_unit_test_setup_teardown(test_term_draw_eight_colour_terminal_approximates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_term_draw_pair_cache_restarts_when_pairs_run_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_term_draw_many_pairs_stay_distinct, setup, teardown),
	};

	return cmocka_run_group_tests_name("term-draw", tests, NULL, NULL);
}
