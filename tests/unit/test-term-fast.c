/* test-term-fast.c - the plain-line fast path of term.c against libvterm
 * alone: same screen, cursor, scrollback, scroll offset and replies. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/term-diff.h"

static struct term *
mk(int rows, int cols, size_t sb, bool fast)
{
	struct term *t = NULL;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(term_new(rows, cols, sb, &t, &err), 0);
	term_set_fast(t, fast);
	return t;
}

static void
feed_both(struct term *a, struct term *b, const char *s, size_t n)
{
	term_feed(a, s, n);
	term_feed(b, s, n);
}

static char *
plain_lines(size_t n, int width, size_t *len)
{
	struct tdiff_buf b = { 0 };
	char line[512];

	for (size_t i = 0; i < n; i++) {
		int w = (int)(i % (size_t)(width + 1));

		for (int c = 0; c < w; c++)
			line[c] = (char)('a' + (i + (size_t)c) % 26);
		tdiff_put(&b, line, (size_t)w);
		tdiff_put(&b, "\r\n", 2);
	}
	*len = b.len;
	return b.b;
}

/* The case the path exists for: a long cat, lines of every length up to two
 * screen widths (exact-width ones included), coloured, after a prompt. */
static void
test_term_fast_cat_matches_libvterm(void **state)
{
	struct term *fast = mk(22, 80, TERM_SB_DEFAULT, true), *slow = mk(22, 80, TERM_SB_DEFAULT, false);
	size_t len;
	char *text = plain_lines(3000, 170, &len);
	char row[256];

	(void)state;
	feed_both(fast, slow, "$ \x1b[32mcat\x1b[0m big\r\n\x1b[1;33m", 27);
	feed_both(fast, slow, text, len);
	feed_both(fast, slow, "\x1b[0m$ ", 6);
	assert_null(tdiff_compare(fast, slow));
	assert_true(term_fast_skipped(fast) > 2000);
	assert_int_equal(term_fast_skipped(slow), 0);
	/* and what the user reads: the last line above the prompt */
	term_view_text(fast, 20, row, sizeof(row));
	assert_true(strlen(row) > 0);
	term_free(fast);
	term_free(slow);
	free(text);
}

/* Chunks cut anywhere (mid line, between CR and LF), a view scrolled back
 * while output goes on, a ring smaller than the output. */
static void
test_term_fast_chunks_and_scrolled_view(void **state)
{
	struct term *fast = mk(10, 33, 50, true), *slow = mk(10, 33, 50, false);
	size_t len, off = 0, step = 1;
	char *text = plain_lines(2000, 70, &len);

	(void)state;
	feed_both(fast, slow, text, 700);
	term_scroll(fast, 7);
	term_scroll(slow, 7);
	for (off = 700; off < len; off += step, step = step * 7 % 4093 + 1)
		feed_both(fast, slow, text + off, step < len - off ? step : len - off);
	assert_null(tdiff_compare(fast, slow));
	assert_true(term_fast_skipped(fast) > 0);
	assert_true(term_scroll_offset(fast) > 0);
	term_free(fast);
	term_free(slow);
	free(text);
}

/* Whatever makes plain ASCII print otherwise keeps the slow path: a
 * scroll region, autowrap off, insert mode, line drawing in GL. */
static void
test_term_fast_modes_take_the_slow_path(void **state)
{
	static const char *const pre[] = {
		"\x1b[2;8r\x1b[8;1H", "\x1b[?7l", "\x1b[4h", "\x1b(0", "\x0e\x1b)0", "\x1bN",
		"\x1b[?1049h", "\x1b[?69h\x1b[2;20s",
	};
	size_t len;
	char *text = plain_lines(600, 100, &len);

	(void)state;
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		struct term *fast = mk(10, 40, 300, true), *slow = mk(10, 40, 300, false);

		feed_both(fast, slow, "\x1b[10;1H", 8);
		feed_both(fast, slow, pre[i], strlen(pre[i]));
		feed_both(fast, slow, text, len);
		assert_null(tdiff_compare(fast, slow));
		term_free(fast);
		term_free(slow);
	}
	free(text);
}

/* After a run, libvterm still knows where it printed the last character: a
 * combining mark sent right after that cell (cursor moved there) lands the
 * same way, and REP repeats the same character. */
static void
test_term_fast_last_character_kept(void **state)
{
	static const char *const after[] = { "\x1b[22;4H\xcc\x81", "\x1b[3b", "\x1b[21;4H\xcc\x81" };
	size_t len;
	char *text = plain_lines(400, 60, &len);

	(void)state;
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
		struct term *fast = mk(22, 80, 100, true), *slow = mk(22, 80, 100, false);

		feed_both(fast, slow, "\x1b[22;1H", 8);
		feed_both(fast, slow, text, len);
		feed_both(fast, slow, "abc\r\n", 5);
		feed_both(fast, slow, text, len);
		feed_both(fast, slow, "xyz\r\n", 5);
		feed_both(fast, slow, after[i], strlen(after[i]));
		assert_null(tdiff_compare(fast, slow));
		assert_true(term_fast_skipped(fast) > 0);
		term_free(fast);
		term_free(slow);
	}
	free(text);
}

/* A wide character filling the last column leaves libvterm 0.1.4 a pending
 * wrap that CR LF do not clear and the next character takes: no fast path
 * until an ASCII character was printed (found by fuzz-term-fast). */
static void
test_term_fast_pending_wrap_after_a_wide_char(void **state)
{
	struct term *fast = mk(5, 2, 100, true), *slow = mk(5, 2, 100, false);
	const char *s = "\xe4\xb8\x96\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\nx\r\n";

	(void)state;
	feed_both(fast, slow, "\x1b[5;1H", 6);
	feed_both(fast, slow, s, strlen(s));
	assert_null(tdiff_compare(fast, slow));
	term_free(fast);
	term_free(slow);
}

/* Random streams of everything (tests/fuzz/term-diff.h), fixed seeds. */
static void
test_term_fast_random_streams_match_libvterm(void **state)
{
	unsigned long total = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct tdiff_src s = { .rng = seed * 0x9e3779b97f4a7c15ull };
		unsigned long skipped = 0;
		const char *why = tdiff_run(&s, 60, &skipped);

		if (why != NULL)
			fail_msg("seed %llu: %s", (unsigned long long)seed, why);
		total += skipped;
	}
	assert_true(total > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term_fast_cat_matches_libvterm),
		cmocka_unit_test(test_term_fast_chunks_and_scrolled_view),
		cmocka_unit_test(test_term_fast_modes_take_the_slow_path),
		cmocka_unit_test(test_term_fast_last_character_kept),
		cmocka_unit_test(test_term_fast_pending_wrap_after_a_wide_char),
		cmocka_unit_test(test_term_fast_random_streams_match_libvterm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
