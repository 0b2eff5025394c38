/* test-elide.c - long names lose their middle, never the domain that receives them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elide.h"

#define MARK "\xe2\x80\xa6"

/* Columns: ASCII bytes, the mark one. */
static size_t
cols(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static char *
long_name(void)
{
	/* 238 characters, as in the attack: api.github.com. + a's + .evil.test */
	static char buf[256];
	size_t pre = strlen("api.github.com."), post = strlen(".evil.test");

	memcpy(buf, "api.github.com.", pre);
	memset(buf + pre, 'a', 238 - pre - post);
	memcpy(buf + 238 - post, ".evil.test", post + 1);
	return buf;
}

static void
test_elide_tail_is_the_registrable_domain(void **state)
{
	(void)state;
	assert_int_equal(lz_elide_tail("a.b.evil.test", 13), strlen("evil.test"));
	assert_int_equal(lz_elide_tail("api.github.com", 14), strlen("github.com"));
	assert_int_equal(lz_elide_tail("a.x.co.uk", 9), strlen("x.co.uk"));
	assert_int_equal(lz_elide_tail("me.github.io", 12), strlen("me.github.io"));
	assert_int_equal(lz_elide_tail("Deep.EVIL.Test.", 15), strlen("EVIL.Test."));
	assert_int_equal(lz_elide_tail("localhost", 9), strlen("localhost"));
}

static void
test_elide_name_fits_is_unchanged(void **state)
{
	char *e = lz_elide_name("api.github.com", 14);

	(void)state;
	assert_string_equal(e, "api.github.com");
	free(e);
}

static void
test_elide_name_keeps_start_and_registrable_end(void **state)
{
	const char *n = long_name();

	(void)state;
	for (size_t c = 12; c <= 120; c++) {
		char *e = lz_elide_name(n, c);

		assert_int_equal(cols(e), c);
		assert_non_null(strstr(e, MARK));
		assert_true(strlen(e) >= strlen(".evil.test"));
		assert_string_equal(e + strlen(e) - strlen("evil.test"), "evil.test");
		if (c >= 40)
			assert_memory_equal(e, "api.github.com", 14);
		free(e);
	}
}

static void
test_elide_name_shape_of_the_issue(void **state)
{
	char *e = lz_elide_name(long_name(), 32);

	(void)state;
	assert_string_equal(e, "api.github.com.a" MARK "aaaaa.evil.test");
	free(e);
}

static void
test_elide_name_tiny_budget_keeps_the_end(void **state)
{
	char *e = lz_elide_name(long_name(), 6);

	(void)state;
	assert_string_equal(e, MARK ".test");
	free(e);
	e = lz_elide_name(long_name(), 0);
	assert_string_equal(e, "");
	free(e);
}

static void
test_elide_line_cuts_the_name_not_the_line_end(void **state)
{
	char line[400], *e;

	(void)state;
	snprintf(line, sizeof line, "? dns A %s x1 29s", long_name());
	e = lz_elide_line(line, strlen(line), strlen(line) - 40);
	assert_non_null(e);
	assert_int_equal(cols(e), 40);
	assert_memory_equal(e, "? dns A api.github", 18);
	assert_non_null(strstr(e, MARK "aa.evil.test x1 29s"));
	free(e);
}

static void
test_elide_line_two_names_share_the_cut(void **state)
{
	char line[700], *e;

	(void)state;
	snprintf(line, sizeof line, "{\"dest\":\"dns A %s\",\"name\":\"%s\"}", long_name(), long_name());
	e = lz_elide_line(line, strlen(line), strlen(line) - 60);
	assert_non_null(e);
	assert_int_equal(cols(e), 60);
	assert_non_null(strstr(e, "evil.test\",\"name\":\""));
	assert_non_null(strstr(e, "evil.test\"}"));
	free(e);
}

static void
test_elide_line_without_names_is_null(void **state)
{
	const char *s = "16:32:43 session.start {\"id\":1,\"command\":\"bash -l\"} and more words";

	(void)state;
	assert_null(lz_elide_line(s, strlen(s), 10));
	assert_null(lz_elide_line("a.b", 3, 0));
}

static void
test_elide_line_never_below_the_domain(void **state)
{
	const char *s = "deny sub.domain.evil.test";
	char *e = lz_elide_line(s, strlen(s), 100);

	(void)state;
	assert_non_null(e);
	assert_string_equal(e, "deny s" MARK "evil.test");
	free(e);
}

static void
test_elide_line_prefix_gives_way_to_the_domain(void **state)
{
	char line[400], *e;

	(void)state;
	snprintf(line, sizeof line, "16:40:42 network request 1 waits: dns A %s", long_name());
	e = lz_elide_line(line, strlen(line), strlen(line) - 38);
	assert_non_null(e);
	assert_int_equal(cols(e), 38);
	assert_memory_equal(e, "16:40:42", 8);
	assert_string_equal(e + strlen(e) - strlen(MARK "evil.test"), MARK "evil.test");
	free(e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elide_tail_is_the_registrable_domain),
		cmocka_unit_test(test_elide_name_fits_is_unchanged),
		cmocka_unit_test(test_elide_name_keeps_start_and_registrable_end),
		cmocka_unit_test(test_elide_name_shape_of_the_issue),
		cmocka_unit_test(test_elide_name_tiny_budget_keeps_the_end),
		cmocka_unit_test(test_elide_line_cuts_the_name_not_the_line_end),
		cmocka_unit_test(test_elide_line_two_names_share_the_cut),
		cmocka_unit_test(test_elide_line_without_names_is_null),
		cmocka_unit_test(test_elide_line_never_below_the_domain),
		cmocka_unit_test(test_elide_line_prefix_gives_way_to_the_domain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
