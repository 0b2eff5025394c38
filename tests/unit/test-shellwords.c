/* test-shellwords.c - POSIX shell-words splitting and the metacharacter scan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

/* Split s and compare with the NULL-terminated expected words. */
static void
assert_split(const char *s, const char *const *want)
{
	lz_err_t err = LZ_ERR_INIT;
	char **v = NULL;
	size_t i;

	if (lz_shellwords_split(s, strlen(s), &v, &err) < 0)
		fail_msg("split(%s): %s", s, err.msg);
	for (i = 0; want[i] != NULL; i++) {
		assert_non_null(v[i]);
		assert_string_equal(v[i], want[i]);
	}
	assert_null(v[i]);
	lz_strv_free(v);
}

static void
assert_split_fails(const char *s, size_t len, const char *msg_part)
{
	lz_err_t err = LZ_ERR_INIT;
	char **v = NULL;

	assert_int_equal(lz_shellwords_split(s, len, &v, &err), -1);
	assert_null(v);
	assert_non_null(err.msg);
	if (strstr(err.msg, msg_part) == NULL)
		fail_msg("message '%s' lacks '%s'", err.msg, msg_part);
	lz_err_clear(&err);
}

static void
test_sw_splits_on_blanks(void **state)
{
	(void)state;
	assert_split("make test", (const char *[]){ "make", "test", NULL });
	assert_split("  make\t\ttest  -j4 ", (const char *[]){ "make", "test", "-j4", NULL });
	assert_split("", (const char *[]){ NULL });
	assert_split("   \t ", (const char *[]){ NULL });
}

static void
test_sw_single_quotes_are_literal(void **state)
{
	(void)state;
	assert_split("echo 'a  b' 'x\\y' '$(id)'",
	    (const char *[]){ "echo", "a  b", "x\\y", "$(id)", NULL });
	assert_split("a''b ''", (const char *[]){ "ab", "", NULL });
}

static void
test_sw_double_quotes_honour_four_escapes(void **state)
{
	(void)state;
	assert_split("echo \"a \\\"b\\\" \\\\ \\$x \\` \\n\"",
	    (const char *[]){ "echo", "a \"b\" \\ $x ` \\n", NULL });
	assert_split("\"line\\\ncont\"", (const char *[]){ "linecont", NULL });
	assert_split("\"\"", (const char *[]){ "", NULL });
}

static void
test_sw_backslash_outside_quotes_quotes_next(void **state)
{
	(void)state;
	assert_split("a\\ b c\\'d \\\"", (const char *[]){ "a b", "c'd", "\"", NULL });
	assert_split("a\\\nb \\\n c", (const char *[]){ "ab", "c", NULL });
}

static void
test_sw_mixed_quoting_joins_one_word(void **state)
{
	(void)state;
	assert_split("pre'mid'\"dq\"post x", (const char *[]){ "premiddqpost", "x", NULL });
}

static void
test_sw_operators_stay_literal(void **state)
{
	(void)state;
	assert_split("a;b c|d $HOME *", (const char *[]){ "a;b", "c|d", "$HOME", "*", NULL });
}

static void
test_sw_rejects_unterminated_quotes(void **state)
{
	(void)state;
	assert_split_fails("echo 'abc", 9, "unterminated single quote");
	assert_split_fails("echo \"abc", 9, "unterminated double quote");
	assert_split_fails("echo \"a\\\"", 9, "unterminated double quote");
	assert_split_fails("echo \\", 6, "trailing backslash");
}

static void
test_sw_rejects_nul_and_caps(void **state)
{
	char *big;
	size_t i, n;

	(void)state;
	assert_split_fails("a\0b", 3, "NUL");
	big = xmalloc(LZ_SHELLWORDS_MAX_LEN + 2);
	memset(big, 'a', LZ_SHELLWORDS_MAX_LEN + 1);
	big[LZ_SHELLWORDS_MAX_LEN + 1] = '\0';
	assert_split_fails(big, LZ_SHELLWORDS_MAX_LEN + 1, "at most");
	/* exactly MAX_WORDS words pass, one more fails */
	for (i = 0, n = 0; n < LZ_SHELLWORDS_MAX_WORDS; n++) {
		big[i++] = 'w';
		big[i++] = ' ';
	}
	{
		lz_err_t err = LZ_ERR_INIT;
		char **v = NULL;

		assert_int_equal(lz_shellwords_split(big, i, &v, &err), 0);
		assert_int_equal(lz_strv_len(v), LZ_SHELLWORDS_MAX_WORDS);
		lz_strv_free(v);
	}
	big[i++] = 'w';
	assert_split_fails(big, i, "more than 1024 words");
	free(big);
}

static void
test_sw_scan_flags_each_metacharacter(void **state)
{
	static const struct { const char *s; unsigned flag; } cases[] = {
		{ "make; id", LZ_SW_SEMICOLON }, { "make | sh", LZ_SW_PIPE },
		{ "make &", LZ_SW_AMP }, { "echo $(id)", LZ_SW_SUBST },
		{ "echo `id`", LZ_SW_BACKTICK }, { "make > f", LZ_SW_GT },
		{ "make < f", LZ_SW_LT }, { "make\nid", LZ_SW_NEWLINE },
		{ "make\rid", LZ_SW_CR }, { "make te\\st", LZ_SW_BACKSLASH },
		{ "make\ttest", LZ_SW_CONTROL }, { "make \x1b[2J", LZ_SW_CONTROL },
		{ "make \x7f", LZ_SW_CONTROL }, { "make \xc2\x9b", LZ_SW_C1 },
		{ "make \xff", LZ_SW_BADUTF8 }, { "make \xc0\xaf", LZ_SW_BADUTF8 },
		{ "make \xed\xa0\x80", LZ_SW_BADUTF8 }, { "make \xe2\x82", LZ_SW_BADUTF8 },
		{ "'a;b'", LZ_SW_SEMICOLON },	/* quoted or not: the raw text counts */
		{ "make test \xe2\x80\xae", LZ_SW_FORMAT },	/* U+202E right-to-left override */
		{ "make te\xe2\x80\x8bst", LZ_SW_FORMAT },	/* U+200B zero-width space */
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unsigned f = lz_shellwords_scan(cases[i].s, strlen(cases[i].s));

		if (f != cases[i].flag)
			fail_msg("scan(%s) = %#x, want %#x", cases[i].s, f, cases[i].flag);
	}
	assert_int_equal(lz_shellwords_scan("a\0b", 3), LZ_SW_CONTROL);
	assert_string_equal(lz_shellwords_meta_name(LZ_SW_NEWLINE | LZ_SW_BADUTF8), "a newline");
}

static void
test_sw_scan_passes_plain_requests(void **state)
{
	static const char *ok[] = {
		"make test", "cargo test --release -p foo", "echo $HOME", "ls ~/x",
		"npm run 'build all'", "grep -r \"é ü 日本\" src", "a=b c#d {x} *.c",
	};

	(void)state;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		assert_int_equal(lz_shellwords_scan(ok[i], strlen(ok[i])), 0);
}

static void
test_sw_join_round_trips(void **state)
{
	static const char *const vecs[][6] = {
		{ "make", "test", NULL },
		{ "echo", "a b", "", "it's", NULL },
		{ "x", "it's \"q\" $y", "\\", "\n", NULL },
		{ "semi;colon", "tab\there", "*", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
		lz_err_t err = LZ_ERR_INIT;
		char *s = lz_shellwords_join((char *const *)vecs[i]);
		char **v = NULL;
		size_t k;

		assert_int_equal(lz_shellwords_split(s, strlen(s), &v, &err), 0);
		for (k = 0; vecs[i][k] != NULL; k++)
			assert_string_equal(v[k], vecs[i][k]);
		assert_null(v[k]);
		lz_strv_free(v);
		free(s);
	}
	{
		char *s = lz_shellwords_join((char *const *)vecs[0]);

		assert_string_equal(s, "make test");	/* plain words stay bare */
		free(s);
		s = lz_shellwords_join((char *const *)(const char *[]){ "it's", NULL });
		assert_string_equal(s, "\"it's\"");	/* no backslash when avoidable */
		free(s);
	}
}

static void
test_sw_visible_shows_every_byte(void **state)
{
	static const struct { const char *in; const char *out; } cases[] = {
		{ "make test", "make test" },
		{ "a\nb\rc\td\\e", "a\\nb\\rc\\td\\\\e" },
		{ "\x1b[2J\x7f", "\\x1b[2J\\x7f" },
		{ "caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5" },
		{ "x\xc2\x9by", "x\\u009by" },
		{ "rm -rf \xe2\x80\xae/ fdp", "rm -rf \\u202e/ fdp" },
		{ "\xff\xc0\xaf", "\\xff\\xc0\\xaf" },
		{ "", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *v = lz_shellwords_visible(cases[i].in, strlen(cases[i].in));

		assert_string_equal(v, cases[i].out);
		free(v);
	}
	{
		char *v = lz_shellwords_visible("a\0b", 3);

		assert_string_equal(v, "a\\x00b");
		free(v);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sw_splits_on_blanks),
		cmocka_unit_test(test_sw_single_quotes_are_literal),
		cmocka_unit_test(test_sw_double_quotes_honour_four_escapes),
		cmocka_unit_test(test_sw_backslash_outside_quotes_quotes_next),
		cmocka_unit_test(test_sw_mixed_quoting_joins_one_word),
		cmocka_unit_test(test_sw_operators_stay_literal),
		cmocka_unit_test(test_sw_rejects_unterminated_quotes),
		cmocka_unit_test(test_sw_rejects_nul_and_caps),
		cmocka_unit_test(test_sw_scan_flags_each_metacharacter),
		cmocka_unit_test(test_sw_scan_passes_plain_requests),
		cmocka_unit_test(test_sw_join_round_trips),
		cmocka_unit_test(test_sw_visible_shows_every_byte),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
