/* test-term-url.c - wrapped lines and URLs read back whole from the history. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "term.h"

static struct term *
mk(int rows, int cols)
{
	struct term *t = NULL;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(term_new(rows, cols, 100, &t, &err), 0);
	return t;
}

static void
put(struct term *t, const char *s)
{
	term_feed(t, s, strlen(s));
}

/* A long line wrapped by the terminal itself reads back as one line. */
static void
test_term_url_wrapped_line_is_whole(void **state)
{
	struct term *t = mk(6, 10);
	char buf[256];
	size_t first, last;

	(void)state;
	put(t, "$ echo\r\n0123456789abcdefghijKLMNO\r\nnext\r\n");
	/* From its middle row too: the line starts on row 1. */
	assert_int_equal(term_wrapped_text(t, 2, buf, sizeof(buf), &first, &last), 25);
	assert_string_equal(buf, "0123456789abcdefghijKLMNO");
	assert_int_equal(first, 1);
	assert_int_equal(last, 3);
	assert_int_equal(term_wrapped_text(t, 4, buf, sizeof(buf), &first, &last), 4);
	assert_string_equal(buf, "next");
	assert_int_equal(first, 4);
	assert_int_equal(last, 4);
	/* A line that ends one column short does not join the next. */
	put(t, "012345678\r\nzz\r\n");
	term_wrapped_text(t, term_lines(t) - 3, buf, sizeof(buf), &first, &last);
	assert_string_equal(buf, "012345678");
	term_free(t);
}

/* A login URL longer than the row, wrapped by the terminal, found whole. */
static void
test_term_url_autowrapped_url_is_whole(void **state)
{
	struct term *t = mk(8, 20);
	const char *u = "https://claude.example/oauth/authorize?code=true&state=AbC-123_x";
	char url[TERM_URL_MAX + 1];

	(void)state;
	put(t, "Browser didn't open? Use the url below:\r\n\r\n");
	put(t, u);
	put(t, "\r\n\r\nPaste code here >");
	assert_true(term_find_url(t, term_lines(t) - 1, url, sizeof(url)) >= 0);
	assert_string_equal(url, u);
	term_free(t);
}

/* A URL the program broke itself, a column short of the edge, with padding. */
static void
test_term_url_program_broken_url_is_whole(void **state)
{
	struct term *t = mk(8, 20);
	char url[TERM_URL_MAX + 1];

	(void)state;
	put(t, " https://a.example/\r\n abcdefghijklmnopq\r\n rst&x=1\r\n\r\n Paste code here >");
	assert_true(term_find_url(t, term_lines(t) - 1, url, sizeof(url)) >= 0);
	assert_string_equal(url, "https://a.example/abcdefghijklmnopqrst&x=1");
	/* A next row with words in it is text, not the URL going on. */
	put(t, "\r\n See https://b.example/path\r\n and more\r\n");
	assert_true(term_find_url(t, term_lines(t) - 1, url, sizeof(url)) >= 0);
	assert_string_equal(url, "https://b.example/path");
	term_free(t);
}

/* The newest URL first; from an older line, the one above it. Punctuation around is dropped. */
static void
test_term_url_newest_first_and_trimmed(void **state)
{
	struct term *t = mk(10, 60);
	char url[TERM_URL_MAX + 1];
	long at;

	(void)state;
	put(t, "docs (https://en.example/wiki/Foo_(bar)).\r\n");
	put(t, "then see 'http://127.0.0.1:8080/x?y=1', then.\r\n");
	at = term_find_url(t, term_lines(t) - 1, url, sizeof(url));
	assert_int_equal(at, 1);
	assert_string_equal(url, "http://127.0.0.1:8080/x?y=1");
	at = term_find_url(t, (size_t)at - 1, url, sizeof(url));
	assert_int_equal(at, 0);
	assert_string_equal(url, "https://en.example/wiki/Foo_(bar)");
	assert_int_equal(term_find_url(t, 0, url, 3), -1);	/* no room: nothing half */
	term_free(t);
}

/* Rows gone to the scrollback still join; no URL at all is -1. */
static void
test_term_url_in_scrollback_and_none(void **state)
{
	struct term *t = mk(4, 16);
	char url[TERM_URL_MAX + 1];

	(void)state;
	assert_int_equal(term_find_url(t, 3, url, sizeof(url)), -1);
	put(t, "https://s.example/0123456789abcdef\r\n");
	for (int i = 0; i < 10; i++)
		put(t, "x\r\n");
	assert_true(term_find_url(t, term_lines(t) - 1, url, sizeof(url)) >= 0);
	assert_string_equal(url, "https://s.example/0123456789abcdef");
	term_free(t);
	t = mk(4, 16);
	put(t, "http only, no link: http:/x https\r\n");
	assert_int_equal(term_find_url(t, term_lines(t) - 1, url, sizeof(url)), -1);
	term_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term_url_wrapped_line_is_whole),
		cmocka_unit_test(test_term_url_autowrapped_url_is_whole),
		cmocka_unit_test(test_term_url_program_broken_url_is_whole),
		cmocka_unit_test(test_term_url_newest_first_and_trimmed),
		cmocka_unit_test(test_term_url_in_scrollback_and_none),
	};

	return cmocka_run_group_tests_name("term-url", tests, NULL, NULL);
}
