/* test-cli.c - the pure parts of the command line: "did you mean"
 * (cli-suggest.c) and aligned listings (cli-table.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/cli-suggest.h"
#include "cli/cli-table.h"

static const char *const cmds[] = {
	"run", "status", "ls", "stop", "audit", "image", "doctor", "config", "domain",
};
#define N_CMDS (sizeof cmds / sizeof cmds[0])

static void
test_cli_distance_counts_swaps_as_one(void **state)
{
	(void)state;
	assert_int_equal(lz_suggest_distance("status", "status"), 0);
	assert_int_equal(lz_suggest_distance("stauts", "status"), 1);	/* swap */
	assert_int_equal(lz_suggest_distance("statu", "status"), 1);	/* missing */
	assert_int_equal(lz_suggest_distance("statuss", "status"), 1);	/* extra */
	assert_int_equal(lz_suggest_distance("stopp", "stop"), 1);
	assert_int_equal(lz_suggest_distance("", "ls"), 2);
	assert_int_equal(lz_suggest_distance("kitten", "sitting"), 3);
}

static void
test_cli_suggest_picks_the_closest(void **state)
{
	const char **s;

	(void)state;
	s = cli_suggest("stauts", cmds, N_CMDS);
	assert_non_null(s);
	assert_string_equal(s[0], "status");
	assert_null(s[1]);
	free(s);
	s = cli_suggest("st", cmds, N_CMDS);	/* a prefix: both, in table order */
	assert_non_null(s);
	assert_string_equal(s[0], "status");
	assert_string_equal(s[1], "stop");
	assert_null(s[2]);
	free(s);
	s = cli_suggest("rn", cmds, N_CMDS);
	assert_non_null(s);
	assert_string_equal(s[0], "run");
	free(s);
	s = cli_suggest("docter", cmds, N_CMDS);
	assert_non_null(s);
	assert_string_equal(s[0], "doctor");
	free(s);
}

static void
test_cli_suggest_nothing_when_far(void **state)
{
	(void)state;
	assert_null(cli_suggest("frobnicate", cmds, N_CMDS));
	assert_null(cli_suggest("x", cmds, N_CMDS));	/* 2 edits of a 1-letter word */
	assert_null(cli_suggest("", cmds, N_CMDS));
	assert_null(cli_suggest("status", cmds, 0));
}

/* The table printed into a string. */
static char *
table_text(const struct cli_table *t, unsigned right)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	cli_table_print(t, f, right);
	fclose(f);
	return buf;
}

static void
test_cli_table_aligns_columns(void **state)
{
	static const char *const hdr[] = { "DOMAIN", "N", "UPTIME", "WORKSPACE", NULL };
	struct cli_table *t = cli_table_new(hdr);
	char *s;

	(void)state;
	cli_table_add_tsv(t, "abc\t2\t5s\t/home/u/my repo");
	cli_table_add_tsv(t, "abcdef0123\t12\t1h02m\t/w\textra\tcells");
	cli_table_add_tsv(t, "dead\t-\tstale");	/* short row: '-' fills */
	s = table_text(t, 1u << 1 | 1u << 2);
	assert_string_equal(s,
	    "DOMAIN       N  UPTIME  WORKSPACE\n"
	    "abc          2      5s  /home/u/my repo\n"
	    "abcdef0123  12   1h02m  /w\textra\tcells\n"
	    "dead         -   stale  -\n");
	free(s);
	cli_table_free(t);
	cli_table_free(NULL);
}

static void
test_cli_table_duration_has_units(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(cli_table_duration(0, b, sizeof b), "0s");
	assert_string_equal(cli_table_duration(59, b, sizeof b), "59s");
	assert_string_equal(cli_table_duration(60, b, sizeof b), "1m00s");
	assert_string_equal(cli_table_duration(3599, b, sizeof b), "59m59s");
	assert_string_equal(cli_table_duration(3600 + 5 * 60 + 9, b, sizeof b), "1h05m");
	assert_string_equal(cli_table_duration(2 * 86400 + 4 * 3600 + 1, b, sizeof b), "2d04h");
	assert_string_equal(cli_table_duration(-5, b, sizeof b), "0s");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_distance_counts_swaps_as_one),
		cmocka_unit_test(test_cli_suggest_picks_the_closest),
		cmocka_unit_test(test_cli_suggest_nothing_when_far),
		cmocka_unit_test(test_cli_table_aligns_columns),
		cmocka_unit_test(test_cli_table_duration_has_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
