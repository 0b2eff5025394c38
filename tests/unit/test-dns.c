/* test-dns.c - the sidecar's DNS parser on good, odd and hostile messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../../sidecar/dns.h"
#include "xmalloc.h"

struct msg {
	uint8_t *b;
	size_t len, cap;
};

static void
put(struct msg *m, const void *p, size_t n)
{
	if (m->len + n > m->cap) {
		m->cap = (m->len + n) * 2;
		m->b = xrealloc(m->b, m->cap);
	}
	memcpy(m->b + m->len, p, n);
	m->len += n;
}

static void
put16(struct msg *m, unsigned v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(m, b, 2);
}

static void
put32(struct msg *m, uint32_t v)
{
	put16(m, v >> 16);
	put16(m, v & 0xffff);
}

static void
putname(struct msg *m, const char *name)
{
	while (*name) {
		const char *dot = strchr(name, '.');
		size_t n = dot ? (size_t)(dot - name) : strlen(name);
		uint8_t l = (uint8_t)n;

		put(m, &l, 1);
		put(m, name, n);
		name += n + (dot != NULL);
	}
	put(m, "", 1);
}

/* Header + one question. */
static struct msg
header(unsigned flags, unsigned an, const char *qname, unsigned qtype)
{
	struct msg m = { 0 };

	put16(&m, 0xbeef);
	put16(&m, flags);
	put16(&m, 1);
	put16(&m, an);
	put16(&m, 0);
	put16(&m, 0);
	putname(&m, qname);
	put16(&m, qtype);
	put16(&m, DNS_CLASS_IN);
	return m;
}

static void
rr_a(struct msg *m, const char *owner, uint32_t ttl, const uint8_t a[4])
{
	if (owner == NULL)
		put16(m, 0xc00c);	/* pointer to the question name */
	else
		putname(m, owner);
	put16(m, DNS_TYPE_A);
	put16(m, DNS_CLASS_IN);
	put32(m, ttl);
	put16(m, 4);
	put(m, a, 4);
}

static void
rr_cname(struct msg *m, const char *owner, const char *target)
{
	struct msg t = { 0 };

	putname(&t, target);
	putname(m, owner);
	put16(m, DNS_TYPE_CNAME);
	put16(m, DNS_CLASS_IN);
	put32(m, 60);
	put16(m, (unsigned)t.len);
	put(m, t.b, t.len);
	free(t.b);
}

static void
test_dns_query_parses_name_lower_case(void **state)
{
	struct msg m = header(0x0100, 0, "API.Example.COM", DNS_TYPE_AAAA);
	struct dns_msg d;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), 0);
	assert_string_equal(d.qname, "api.example.com");
	assert_int_equal(d.qtype, DNS_TYPE_AAAA);
	assert_int_equal(d.id, 0xbeef);
	assert_false(dns_is_response(&d));
	assert_int_equal(d.question_end, m.len);
	dns_msg_clear(&d);
	free(m.b);
}

static void
test_dns_answer_follows_cname_chain(void **state)
{
	static const uint8_t a1[4] = { 10, 0, 0, 1 }, a2[4] = { 10, 0, 0, 2 }, a3[4] = { 10, 0, 0, 3 };
	struct msg m = header(0x8180, 4, "www.example.com", DNS_TYPE_A);
	struct dns_msg d;
	struct dns_addr out[8];
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	/* Out of order on purpose; one A record belongs to an unrelated name. */
	rr_a(&m, "edge.cdn.net", 20, a1);
	rr_cname(&m, "cdn.example.com", "edge.cdn.net");
	rr_cname(&m, "www.example.com", "cdn.example.com");
	rr_a(&m, "evil.example.org", 60, a2);
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), 0);
	assert_int_equal(d.nrr, 4);
	assert_int_equal(dns_answer_addrs(&d, out, 8), 1);
	assert_int_equal(out[0].family, AF_INET);
	assert_memory_equal(out[0].addr, a1, 4);
	assert_int_equal(out[0].ttl, 20);
	dns_msg_clear(&d);
	free(m.b);
	(void)a3;
}

static void
test_dns_compression_loop_is_an_error(void **state)
{
	struct msg m = header(0x8180, 1, "x.test", DNS_TYPE_A);
	struct dns_msg d;
	lz_err_t err = LZ_ERR_INIT;
	size_t at = m.len;

	(void)state;
	/* A pointer to itself, then one to a later offset. */
	put16(&m, 0xc000 | (unsigned)at);
	put16(&m, DNS_TYPE_A);
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), -1);
	assert_non_null(strstr(err.msg, "does not point back"));
	lz_err_clear(&err);
	m.b[at + 1] = (uint8_t)(at + 2);
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), -1);
	lz_err_clear(&err);
	free(m.b);
}

static void
test_dns_lengths_past_the_end_are_errors(void **state)
{
	static const uint8_t a[4] = { 1, 2, 3, 4 };
	struct msg m = header(0x8180, 1, "x.test", DNS_TYPE_A);
	struct dns_msg d;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	rr_a(&m, NULL, 60, a);
	/* Every cut of a valid message is an error, never a read past the end. */
	for (size_t n = 0; n < m.len; n++) {
		uint8_t *copy = xmalloc(n ? n : 1);

		memcpy(copy, m.b, n);
		assert_int_equal(dns_parse(copy, n, &d, &err), -1);
		assert_non_null(err.msg);
		lz_err_clear(&err);
		free(copy);
	}
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), 0);
	dns_msg_clear(&d);
	/* rdlength 400 in a message that ends after 4. */
	m.b[m.len - 5] = 0x90;
	m.b[m.len - 6] = 0x01;
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), -1);
	assert_non_null(strstr(err.msg, "runs past the end"));
	lz_err_clear(&err);
	free(m.b);
}

static void
test_dns_ten_thousand_records_are_bounded(void **state)
{
	struct msg m = header(0x8180, 10000, "many.test", DNS_TYPE_A);
	struct dns_msg d;
	struct dns_addr out[DNS_MAX_ADDRS];
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	for (unsigned i = 0; i < 10000; i++) {
		uint8_t a[4] = { 10, 9, (uint8_t)(i >> 8), (uint8_t)i };

		rr_a(&m, NULL, 60, a);
	}
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), 0);
	assert_int_equal(d.nrr, DNS_MAX_KEEP);
	assert_int_equal(d.skipped, 10000 - DNS_MAX_KEEP);
	assert_int_equal(dns_answer_addrs(&d, out, DNS_MAX_ADDRS), DNS_MAX_ADDRS);
	dns_msg_clear(&d);
	/* The same count claimed with fewer records present. */
	m.len -= 16 * 100;
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), -1);
	lz_err_clear(&err);
	free(m.b);
}

static void
test_dns_odd_bytes_never_match_a_name(void **state)
{
	struct msg m = header(0x0100, 0, "a.b", DNS_TYPE_A);
	struct dns_msg d;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	m.b[13] = '.';	/* a dot inside a label */
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), 0);
	assert_string_equal(d.qname, "?.b");
	dns_msg_clear(&d);
	free(m.b);
}

static void
test_dns_wrong_sizes_and_counts(void **state)
{
	static const uint8_t a[4] = { 1, 2, 3, 4 };
	struct msg m = header(0x8180, 1, "x.test", DNS_TYPE_A), q2 = { 0 };
	struct dns_msg d;
	lz_err_t err = LZ_ERR_INIT;
	char big[300];

	(void)state;
	rr_a(&m, NULL, 0x80000001u, a);
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), 0);
	assert_int_equal(d.rr[0].ttl, 0);	/* top bit set: zero (RFC 2181) */
	dns_msg_clear(&d);
	m.b[m.len - 5] = 5;	/* an A record of 5 bytes */
	put(&m, "x", 1);
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), -1);
	lz_err_clear(&err);
	free(m.b);
	m = header(0x0100, 0, "x.test", DNS_TYPE_A);
	m.b[5] = 2;	/* two questions */
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), -1);
	lz_err_clear(&err);
	free(m.b);
	/* A name over 255 bytes. */
	memset(big, 'a', sizeof big);
	for (size_t i = 60; i < sizeof big; i += 61)
		big[i] = '.';
	big[sizeof big - 1] = '\0';
	q2 = header(0x0100, 0, big, DNS_TYPE_A);
	assert_int_equal(dns_parse(q2.b, q2.len, &d, &err), -1);
	assert_non_null(strstr(err.msg, "longer than 255"));
	lz_err_clear(&err);
	free(q2.b);
}

static void
test_dns_reply_empty_copies_the_question(void **state)
{
	struct msg m = header(0x0120, 0, "blocked.test", DNS_TYPE_A);
	struct dns_msg d, r;
	uint8_t out[512];
	size_t n;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), 0);
	n = dns_reply_empty(m.b, &d, DNS_RCODE_REFUSED, out, sizeof out);
	assert_int_equal(n, m.len);
	assert_int_equal(dns_parse(out, n, &r, &err), 0);
	assert_true(dns_is_response(&r));
	assert_int_equal(dns_rcode(&r), DNS_RCODE_REFUSED);
	assert_int_equal(r.id, 0xbeef);
	assert_true(r.flags & 0x0100);	/* RD kept */
	assert_string_equal(r.qname, "blocked.test");
	assert_int_equal(dns_reply_empty(m.b, &d, 5, out, 10), 0);
	dns_msg_clear(&d);
	dns_msg_clear(&r);
	free(m.b);
}

static void
test_dns_query_build_keeps_only_the_question(void **state)
{
	struct msg m = header(0x7930, 0, "API.Exact.test", DNS_TYPE_AAAA);
	struct dns_msg d, r;
	uint8_t out[512];
	size_t n;
	lz_err_t err = LZ_ERR_INIT;
	static const uint8_t want[] = { 0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1,
		3, 'a', 'p', 'i', 5, 'e', 'x', 'a', 'c', 't', 4, 't', 'e', 's', 't', 0, 0, 28, 0, 1,
		0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0 };

	(void)state;
	m.b[11] = 2;	/* arcount: a TXT record, then an OPT with an option */
	rr_a(&m, "secret.evil.test", 60, (const uint8_t[]){ 1, 2, 3, 4 });
	put(&m, "", 1);
	put16(&m, DNS_TYPE_OPT);
	put16(&m, 4096);
	put32(&m, 0x8000);
	put16(&m, 6);
	put16(&m, 65001);
	put16(&m, 2);
	put(&m, "xy", 2);
	put(&m, "trailing", 8);
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), 0);
	assert_true(d.edns);
	n = dns_query_build(&d, 0x1234, out, sizeof out);
	assert_int_equal(n, sizeof want);
	assert_memory_equal(out, want, sizeof want);
	assert_int_equal(dns_parse(out, n, &r, &err), 0);
	assert_string_equal(r.qname, "api.exact.test");
	assert_true(r.edns);
	dns_msg_clear(&r);
	/* Without an OPT from the client, none goes upstream; a small buffer: 0. */
	m.b[11] = 0;
	assert_int_equal(dns_parse(m.b, m.len, &d, &err), 0);
	assert_false(d.edns);
	n = dns_query_build(&d, 1, out, sizeof out);
	assert_int_equal(n, sizeof want - 11);
	assert_int_equal(out[11], 0);
	assert_int_equal(dns_query_build(&d, 1, out, 40), 0);
	dns_msg_clear(&d);
	free(m.b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dns_query_parses_name_lower_case),
		cmocka_unit_test(test_dns_answer_follows_cname_chain),
		cmocka_unit_test(test_dns_compression_loop_is_an_error),
		cmocka_unit_test(test_dns_lengths_past_the_end_are_errors),
		cmocka_unit_test(test_dns_ten_thousand_records_are_bounded),
		cmocka_unit_test(test_dns_odd_bytes_never_match_a_name),
		cmocka_unit_test(test_dns_wrong_sizes_and_counts),
		cmocka_unit_test(test_dns_reply_empty_copies_the_question),
		cmocka_unit_test(test_dns_query_build_keeps_only_the_question),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
