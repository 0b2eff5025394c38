/* test-egress.c - allow_egress entries: CIDRs, domain names, ports, guards. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "egress.h"

static void
round_trip(const char *in, const char *want)
{
	struct egress_entry e, again;
	lz_err_t err = LZ_ERR_INIT;
	char *out;

	if (egress_entry_parse(in, &e, &err) < 0)
		fail_msg("'%s': %s", in, err.msg);
	out = egress_entry_format(&e);
	assert_string_equal(out, want);
	assert_int_equal(egress_entry_parse(out, &again, &err), 0);
	assert_true(egress_entry_equal(&e, &again));
	free(out);
}

static void
rejects(const char *in, const char *msg)
{
	struct egress_entry e;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(egress_entry_parse(in, &e, &err), -1);
	assert_int_equal(err.code, LZ_EINVAL);
	if (strstr(err.msg, msg) == NULL)
		fail_msg("'%s': message '%s' lacks '%s'", in, err.msg, msg);
	lz_err_clear(&err);
}

static void
test_egress_cidrs_and_ports_round_trip(void **state)
{
	(void)state;
	round_trip("10.0.0.0/8", "10.0.0.0/8");
	round_trip("10.0.0.0/8:5432", "10.0.0.0/8:5432");
	round_trip("10.0.2.2:443,22,443", "10.0.2.2/32:22,443");
	round_trip("fd00::/8", "fd00::/8");
	round_trip("2001:db8::1", "2001:db8::1/128");
	round_trip("[2001:DB8::/32]:443,8443", "[2001:db8::/32]:443,8443");
	round_trip("0.0.0.0/0", "0.0.0.0/0");
}

static void
test_egress_domains_round_trip(void **state)
{
	(void)state;
	round_trip("API.Anthropic.com", "api.anthropic.com");
	round_trip("github.com:22,443", "github.com:22,443");
	round_trip("*.npmjs.org", "*.npmjs.org");
	round_trip("registry.npmjs.org.", "registry.npmjs.org");
	round_trip("_srv.example.com:53", "_srv.example.com:53");
}

static void
test_egress_rejects_bad_entries_with_the_reason(void **state)
{
	(void)state;
	rejects("", "empty entry");
	rejects("10.0.0.1/8", "host bits set; did you mean '10.0.0.0/8'");
	rejects("10.0.0.0/33", "prefix length must be a number from 0 to 32");
	rejects("10.0.0.0/08", "prefix length");
	rejects("10.0.0.300", "not a valid IPv4 address");
	rejects("300.1.1.1/8", "is not an IPv4 address");
	rejects("github.com:0", "ports must be numbers from 1 to 65535");
	rejects("github.com:65536", "ports must be numbers");
	rejects("github.com:", "no port after ':'");
	rejects("github.com:22,", "empty port after ','");
	rejects("github.com:22,,80", "ports must be numbers");
	rejects("github.com:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "more than 16 ports");
	rejects("git*hub.com", "'*' is only allowed as a whole first part");
	rejects("*.*.com", "'*' is only allowed");
	rejects("*.", "is not a CIDR or a domain name");
	rejects("bad..name", "1 to 63 characters");
	rejects("-bad.com", "cannot start or end with '-'");
	rejects("bad-.com", "cannot start or end");
	rejects("sp ace.com", "a space, a control or a non-ASCII character at offset 2");
	rejects("a\x01b.com", "control or a non-ASCII character at offset 1");
	rejects("localhost", "a domain name has a dot");
	rejects("[10.0.0.1]:80", "brackets are for IPv6");
	rejects("[fd00::1", "expected '[IPv6/prefix]:ports'");
	rejects("fd00::zz", "is not an IPv6 address");
}

static void
test_egress_wildcard_matches_below_only(void **state)
{
	struct egress_entry w, x;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(egress_entry_parse("*.npmjs.org", &w, &err), 0);
	assert_int_equal(egress_entry_parse("npmjs.org", &x, &err), 0);
	assert_true(egress_domain_match(&w, "registry.npmjs.org"));
	assert_true(egress_domain_match(&w, "a.b.npmjs.org"));
	assert_false(egress_domain_match(&w, "npmjs.org"));
	assert_false(egress_domain_match(&w, "evilnpmjs.org"));
	assert_false(egress_domain_match(&w, "npmjs.org.evil.com"));
	assert_true(egress_domain_match(&x, "npmjs.org"));
	assert_int_equal(egress_entry_rules(&x), 0);
	assert_int_equal(egress_entry_parse("10.0.0.0/8", &x, &err), 0);
	assert_int_equal(egress_entry_rules(&x), 1);
	assert_int_equal(egress_entry_parse("10.0.0.0/8:22,443,8443", &x, &err), 0);
	assert_int_equal(egress_entry_rules(&x), 6);
	assert_false(egress_domain_match(&x, "www.npmjs.org"));
}

static void
test_egress_guards_open_only_when_listed_exactly(void **state)
{
	struct egress_entry e;
	lz_err_t err = LZ_ERR_INIT;
	static const uint8_t md[4] = { 169, 254, 169, 254 }, gw[4] = { 10, 0, 2, 2 },
	    other[4] = { 10, 0, 2, 15 };

	(void)state;
	assert_non_null(egress_addr_guard(AF_INET, md));
	assert_non_null(egress_addr_guard(AF_INET, gw));
	assert_null(egress_addr_guard(AF_INET, other));
	assert_int_equal(egress_entry_parse("10.0.0.0/8", &e, &err), 0);
	assert_null(egress_entry_guard(&e));	/* covers 10.0.2.2, does not open it */
	assert_int_equal(egress_entry_parse("10.0.2.2:8080", &e, &err), 0);
	assert_non_null(egress_entry_guard(&e));
	assert_int_equal(egress_entry_parse("169.254.169.254", &e, &err), 0);
	assert_non_null(egress_entry_guard(&e));
	assert_int_equal(egress_entry_parse("fd00:ec2::254", &e, &err), 0);
	assert_non_null(egress_entry_guard(&e));
	assert_int_equal(egress_entry_parse("example.com", &e, &err), 0);
	assert_null(egress_entry_guard(&e));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_egress_cidrs_and_ports_round_trip),
		cmocka_unit_test(test_egress_domains_round_trip),
		cmocka_unit_test(test_egress_rejects_bad_entries_with_the_reason),
		cmocka_unit_test(test_egress_wildcard_matches_below_only),
		cmocka_unit_test(test_egress_guards_open_only_when_listed_exactly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
