/* test-pktline.c - a push's commands as the broker reads them, the ref
 * patterns, and the refusal git prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pktline.h"

#define Z40 "0000000000000000000000000000000000000000"
#define A40 "1111111111111111111111111111111111111111"

static size_t
pkt(char *out, const char *s, size_t n)
{
	sprintf(out, "%04zx", n + 4);
	memcpy(out + 4, s, n);
	return n + 4;
}

static void
test_pktline_reads_commands_and_capabilities(void **state)
{
	char buf[512];
	const char first[] = A40 " " Z40 " refs/heads/lazaret/x\0report-status side-band-64k\n";
	size_t l = pkt(buf, first, sizeof first - 1), n, used;
	struct pktline_cmd c[PKTLINE_MAX_CMDS];
	bool sb;
	const char *why;

	(void)state;
	l += pkt(buf + l, Z40 " " A40 " refs/heads/main\n", 98);
	assert_int_equal(pktline_commands((uint8_t *)buf, l, c, &n, &used, &sb, &why), 0);
	memcpy(buf + l, "0000PACK", 8);
	assert_int_equal(pktline_commands((uint8_t *)buf, l + 8, c, &n, &used, &sb, &why), 1);
	assert_int_equal(n, 2);
	assert_int_equal(used, l + 4);
	assert_true(sb);
	assert_string_equal(c[0].ref, "refs/heads/lazaret/x");
	assert_true(c[0].is_delete);
	assert_string_equal(c[1].ref, "refs/heads/main");
	assert_true(c[1].is_create);
}

static void
test_pktline_refuses_malformed(void **state)
{
	static const char *const bad[] = { "zzzz", "0003", "0000", "0009shallow",
	    "000dpush-cert\n" };
	struct pktline_cmd c[PKTLINE_MAX_CMDS];
	size_t n, used;
	bool sb;
	const char *why;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(pktline_commands((const uint8_t *)bad[i], strlen(bad[i]), c, &n,
		    &used, &sb, &why), -1);
		assert_non_null(why);
	}
}

static void
test_pktline_ref_patterns(void **state)
{
	char *p[] = { (char *)"refs/heads/lazaret/*", (char *)"refs/tags/v1", NULL };

	(void)state;
	assert_true(pktline_ref_allowed("refs/heads/lazaret/agent-x", p, 2));
	assert_true(pktline_ref_allowed("refs/heads/lazaret/a/b", p, 2));
	assert_true(pktline_ref_allowed("refs/tags/v1", p, 2));
	assert_false(pktline_ref_allowed("refs/heads/lazaret/", p, 2));
	assert_false(pktline_ref_allowed("refs/heads/lazaretx", p, 2));
	assert_false(pktline_ref_allowed("refs/heads/main", p, 2));
	assert_false(pktline_ref_allowed("refs/heads/lazaret/../main", p, 2));
	assert_false(pktline_ref_allowed("refs/tags/v1x", p, 2));
}

static void
test_pktline_refusal_is_a_report(void **state)
{
	struct pktline_cmd c = { .ref = "refs/heads/main" };
	const char *why[1] = { "no" };
	uint8_t out[512];
	size_t n = pktline_refusal(&c, 1, why, false, out, sizeof out);

	(void)state;
	assert_int_equal(n, 14 + 26 + 4);
	assert_memory_equal(out, "000eunpack ok\n001ang refs/heads/main no\n0000", n);
	assert_int_equal(pktline_refusal(&c, 1, why, false, out, 10), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pktline_reads_commands_and_capabilities),
		cmocka_unit_test(test_pktline_refuses_malformed),
		cmocka_unit_test(test_pktline_ref_patterns),
		cmocka_unit_test(test_pktline_refusal_is_a_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
