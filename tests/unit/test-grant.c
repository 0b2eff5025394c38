/* test-grant.c - a grant's reach said before it is saved, broad grants, widenings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "grant.h"

static struct grant_reach
preview(const char *entry, const struct grant_dest *d)
{
	struct grant_reach r;
	lz_err_t err = LZ_ERR_INIT;

	if (grant_preview(entry, d, &r, &err) < 0)
		fail_msg("'%s': %s", entry, err.msg);
	return r;
}

static struct grant_dest
dest(const char *name, const char *addr, uint16_t port)
{
	struct grant_dest d = { .name = name, .port = port };

	if (addr != NULL) {
		d.family = strchr(addr, ':') ? AF_INET6 : AF_INET;
		assert_int_equal(inet_pton(d.family, addr, d.addr), 1);
	}
	return d;
}

static void
test_grant_exact_name_is_only_that_name(void **state)
{
	struct grant_dest d = dest("api.github.com", "140.82.112.5", 443);
	struct grant_reach r = preview("api.github.com:443", &d);

	(void)state;
	assert_string_equal(r.text, "only api.github.com, port 443");
	assert_false(r.broad);
	assert_string_equal(r.why_broad, "");
	assert_true(r.covers);
	/* An exact name on any port is not broad: one host. */
	r = preview("api.github.com", NULL);
	assert_string_equal(r.text, "only api.github.com, any port");
	assert_false(r.broad);
	r = preview("example.com:443,8443", NULL);
	assert_string_equal(r.text, "only example.com, ports 443, 8443");
}

static void
test_grant_wildcard_says_subdomains_not_the_parent(void **state)
{
	struct grant_reach r = preview("*.githubusercontent.com:443", NULL);

	(void)state;
	assert_string_equal(r.text, "every subdomain of githubusercontent.com (not "
	    "githubusercontent.com itself), port 443");
	assert_false(r.broad);
}

static void
test_grant_tld_wildcard_is_broad(void **state)
{
	struct grant_reach r = preview("*.com", NULL);

	(void)state;
	assert_string_equal(r.text, "every name under the top-level domain .com, any port");
	assert_true(r.broad);
	assert_string_equal(r.why_broad, "a wildcard on a top-level domain; any port on a "
	    "wildcard");
	r = preview("*.com:443", NULL);
	assert_true(r.broad);
	assert_string_equal(r.why_broad, "a wildcard on a top-level domain");
	/* "*.x:y" that is not even an entry still fails. */
	assert_int_equal(grant_preview("*.c$m", NULL, &r, NULL), -1);
}

static void
test_grant_public_suffix_wildcard_is_broad(void **state)
{
	struct grant_reach r = preview("*.co.uk:443", NULL);

	(void)state;
	assert_true(r.broad);
	assert_string_equal(r.text, "every name under the public suffix .co.uk (anyone can "
	    "register there), port 443");
	assert_true(preview("*.com.au:443", NULL).broad);
	assert_true(preview("*.github.io:443", NULL).broad);
	/* A parent of a shared-hosting suffix reaches it too. */
	r = preview("*.amazonaws.com:443", NULL);
	assert_true(r.broad);
	assert_string_equal(r.why_broad, "covers s3.amazonaws.com, where anyone can publish");
	assert_string_equal(r.text, "every subdomain of amazonaws.com (not amazonaws.com "
	    "itself), port 443");
	/* Three labels under a ccTLD, or a long second level: an ordinary domain. */
	assert_false(preview("*.bbc.co.uk:443", NULL).broad);
	assert_false(preview("*.example.uk:443", NULL).broad);
	assert_false(preview("*.company.de:443", NULL).broad);
	assert_true(grant_public_suffix("uk"));
	assert_false(grant_public_suffix("example.com"));
}

static void
test_grant_cidr_counts_addresses_besides_the_destination(void **state)
{
	struct grant_dest d = dest(NULL, "140.82.112.3", 443);
	struct grant_reach r = preview("140.82.112.0/20:443", &d);

	(void)state;
	assert_string_equal(r.text, "4096 addresses in 140.82.112.0/20 (4095 besides "
	    "140.82.112.3), port 443");
	assert_false(r.broad);
	assert_true(r.covers);
	/* A destination outside: no "besides", and the grant does not cover it. */
	d = dest(NULL, "10.1.2.3", 443);
	r = preview("140.82.112.0/20:443", &d);
	assert_string_equal(r.text, "4096 addresses in 140.82.112.0/20, port 443");
	assert_false(r.covers);
	r = preview("140.82.112.3:443", NULL);
	assert_string_equal(r.text, "only 140.82.112.3, port 443");
	assert_false(r.broad);
	/* One address on any port is one host, not broad. */
	assert_false(preview("140.82.112.3", NULL).broad);
}

static void
test_grant_cidr_wider_than_16_is_broad(void **state)
{
	struct grant_reach r = preview("10.0.0.0/8:443", NULL);

	(void)state;
	assert_true(r.broad);
	assert_string_equal(r.why_broad, "an IPv4 CIDR wider than /16");
	assert_string_equal(r.text, "16777216 addresses in 10.0.0.0/8, port 443");
	assert_false(preview("10.1.0.0/16:443", NULL).broad);
	r = preview("0.0.0.0/0:443", NULL);
	assert_string_equal(r.text, "every IPv4 address (0.0.0.0/0), port 443");
	assert_true(r.broad);
	/* Any port on a range: broad even when narrow. */
	r = preview("10.1.2.0/24", NULL);
	assert_true(r.broad);
	assert_string_equal(r.why_broad, "any port on a range of addresses");
}

static void
test_grant_ipv6_counts_as_powers_of_two(void **state)
{
	struct grant_dest d = dest(NULL, "2001:db8::7", 443);
	struct grant_reach r = preview("[2001:db8::/48]:443", &d);

	(void)state;
	assert_string_equal(r.text, "2^80 addresses in 2001:db8::/48 (2^80 - 1 besides "
	    "2001:db8::7), port 443");
	assert_false(r.broad);
	r = preview("[2001:db8::/32]:443", NULL);
	assert_true(r.broad);
	assert_string_equal(r.why_broad, "an IPv6 CIDR wider than /48");
	r = preview("[2001:db8::/120]:443", NULL);
	assert_string_equal(r.text, "256 addresses in 2001:db8::/120, port 443");
	assert_string_equal(preview("[2001:db8::1]:443", NULL).text, "only 2001:db8::1, port 443");
}

static void
test_grant_guarded_range_is_broad(void **state)
{
	struct grant_reach r = preview("169.254.169.254:80", NULL);

	(void)state;
	assert_true(r.broad);
	assert_string_equal(r.why_broad, "opens link-local and cloud metadata");
}

static void
test_grant_rejects_bad_entries_and_presets(void **state)
{
	struct grant_reach r;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(grant_preview("*.exa mple.com", NULL, &r, &err), -1);
	assert_non_null(err.msg);
	lz_err_clear(&err);
	assert_int_equal(grant_preview("@npm", NULL, &r, &err), -1);
	assert_string_equal(err.msg, "'@npm' is a preset, not one entry");
	lz_err_clear(&err);
}

static void
test_grant_port_mismatch_does_not_cover(void **state)
{
	struct grant_dest d = dest("api.github.com", NULL, 22);

	(void)state;
	assert_false(preview("api.github.com:443", &d).covers);
	assert_true(preview("api.github.com", &d).covers);
	assert_false(preview("*.api.github.com", &d).covers);
	assert_true(preview("*.github.com:22", &d).covers);
	/* DNS names come in any case, maybe with the final dot. */
	d = dest("API.GitHub.com.", NULL, 22);
	assert_true(preview("*.github.com:22", &d).covers);
	/* A name entry cannot be checked against a bare address. */
	d = dest(NULL, "1.2.3.4", 22);
	assert_false(preview("api.github.com", &d).covers);
}

static void
test_grant_candidates_for_a_named_destination(void **state)
{
	struct grant_dest d = dest("objects.githubusercontent.com", "185.199.108.133", 443);
	struct grant_candidate c[GRANT_HOW_N];
	size_t n = grant_candidates(&d, c, GRANT_HOW_N);

	(void)state;
	assert_int_equal(n, 4);
	assert_int_equal(c[0].how, GRANT_EXACT);
	assert_string_equal(c[0].entry, "objects.githubusercontent.com:443");
	assert_string_equal(c[0].reach.text, "only objects.githubusercontent.com, port 443");
	assert_int_equal(c[1].how, GRANT_SUBDOMAINS);
	assert_string_equal(c[1].entry, "*.githubusercontent.com:443");
	assert_false(c[1].reach.broad);
	assert_int_equal(c[2].how, GRANT_SUBNET);
	assert_string_equal(c[2].entry, "185.199.108.0/24:443");
	assert_string_equal(c[2].reach.text, "256 addresses in 185.199.108.0/24 (255 besides "
	    "185.199.108.133), port 443");
	assert_int_equal(c[3].how, GRANT_ANY_PORT);
	assert_string_equal(c[3].entry, "objects.githubusercontent.com");
	for (size_t i = 0; i < n; i++)
		assert_true(c[i].reach.covers);
	assert_string_equal(grant_how_name(GRANT_SUBNET), "subnet");
	/* max is respected. */
	assert_int_equal(grant_candidates(&d, c, 2), 2);
}

static void
test_grant_never_offers_a_tld_or_public_suffix_wildcard(void **state)
{
	struct grant_dest d = dest("example.com", NULL, 443);
	struct grant_candidate c[GRANT_HOW_N];
	char buf[EGRESS_ENTRY_MAX + 1];
	size_t n = grant_candidates(&d, c, GRANT_HOW_N), i;

	(void)state;
	for (i = 0; i < n; i++)
		assert_int_not_equal(c[i].how, GRANT_SUBDOMAINS);
	assert_int_equal(n, 2);	/* exact, any port: no address for a subnet */
	d = dest("example.co.uk", NULL, 443);
	assert_int_equal(grant_widen(&d, GRANT_SUBDOMAINS, buf, sizeof buf), -1);
	d = dest("www.example.co.uk", NULL, 443);
	assert_int_equal(grant_widen(&d, GRANT_SUBDOMAINS, buf, sizeof buf), 0);
	assert_string_equal(buf, "*.example.co.uk:443");
	d = dest("me.github.io", NULL, 443);
	assert_int_equal(grant_widen(&d, GRANT_SUBDOMAINS, buf, sizeof buf), -1);
}

static void
test_grant_candidates_for_an_ipv6_address_without_port(void **state)
{
	struct grant_dest d = dest(NULL, "2001:db8::7", 0);
	struct grant_candidate c[GRANT_HOW_N];
	size_t n = grant_candidates(&d, c, GRANT_HOW_N);

	(void)state;
	assert_int_equal(n, 2);	/* exact, subnet; no port to drop */
	assert_string_equal(c[0].entry, "2001:db8::7/128");
	assert_string_equal(c[1].entry, "2001:db8::/64");
	assert_true(c[1].reach.broad);	/* any port on a range */
	d = dest(NULL, "2001:db8::7", 443);
	n = grant_candidates(&d, c, GRANT_HOW_N);
	assert_int_equal(n, 3);
	assert_string_equal(c[0].entry, "[2001:db8::7/128]:443");
	assert_string_equal(c[1].entry, "[2001:db8::/64]:443");
	assert_string_equal(c[2].entry, "2001:db8::7/128");
}

static void
test_grant_hostile_names_give_no_candidate(void **state)
{
	struct grant_dest d = dest("a b.example.com", NULL, 443);
	struct grant_candidate c[GRANT_HOW_N];
	char longname[400];

	(void)state;
	assert_int_equal(grant_candidates(&d, c, GRANT_HOW_N), 0);
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	d = dest(longname, NULL, 443);
	assert_int_equal(grant_candidates(&d, c, GRANT_HOW_N), 0);
	d = dest(NULL, NULL, 443);
	assert_int_equal(grant_candidates(&d, c, GRANT_HOW_N), 0);
}

static void
test_grant_long_name_keeps_the_ports_visible(void **state)
{
	char e[300];
	struct grant_reach r;
	size_t i;

	(void)state;
	/* 4 labels of 60 characters: a 243-byte name. */
	for (i = 0; i < 4; i++) {
		memset(e + i * 61, 'a' + (char)i, 60);
		e[i * 61 + 60] = '.';
	}
	memcpy(e + 244, "com:443,8443", 13);
	memmove(e + 2, e, strlen(e) + 1);
	e[0] = '*';
	e[1] = '.';
	r = preview(e, NULL);
	assert_true(strlen(r.text) < GRANT_TEXT_MAX);
	assert_non_null(strstr(r.text, "..., ports 443, 8443"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grant_exact_name_is_only_that_name),
		cmocka_unit_test(test_grant_wildcard_says_subdomains_not_the_parent),
		cmocka_unit_test(test_grant_tld_wildcard_is_broad),
		cmocka_unit_test(test_grant_public_suffix_wildcard_is_broad),
		cmocka_unit_test(test_grant_cidr_counts_addresses_besides_the_destination),
		cmocka_unit_test(test_grant_cidr_wider_than_16_is_broad),
		cmocka_unit_test(test_grant_ipv6_counts_as_powers_of_two),
		cmocka_unit_test(test_grant_guarded_range_is_broad),
		cmocka_unit_test(test_grant_rejects_bad_entries_and_presets),
		cmocka_unit_test(test_grant_port_mismatch_does_not_cover),
		cmocka_unit_test(test_grant_candidates_for_a_named_destination),
		cmocka_unit_test(test_grant_never_offers_a_tld_or_public_suffix_wildcard),
		cmocka_unit_test(test_grant_candidates_for_an_ipv6_address_without_port),
		cmocka_unit_test(test_grant_hostile_names_give_no_candidate),
		cmocka_unit_test(test_grant_long_name_keeps_the_ports_visible),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
