/* test-httpreq.c - the credential broker's request reader: what it accepts,
 * what it refuses (and with which status), the allow rules, chunked bodies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "httpreq.h"

static int
parse(const char *s, struct httpreq *r)
{
	return httpreq_parse((const uint8_t *)s, strlen(s), r);
}

static void
test_httpreq_reads_a_plain_post(void **state)
{
	const char *s = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:4780\r\n"
	    "x-api-key:  lazaret-sentinel-anthropic \r\nContent-Length: 12\r\n\r\n{\"a\":1}";
	struct httpreq r;

	(void)state;
	assert_int_equal(parse(s, &r), 1);
	assert_string_equal(r.method, "POST");
	assert_int_equal(r.nhdr, 3);
	assert_int_equal(r.host, 0);
	assert_true(r.has_length);
	assert_int_equal(r.length, 12);
	assert_memory_equal(s + r.hdr[1].value.off, "lazaret-sentinel-anthropic", r.hdr[1].value.len);
	assert_int_equal(r.head_len, strstr(s, "{") - s);
}

static void
test_httpreq_waits_for_the_blank_line(void **state)
{
	struct httpreq r;

	(void)state;
	assert_int_equal(parse("GET / HTTP/1.1\r\nHost: x\r\n", &r), 0);
}

static void
test_httpreq_refuses_what_could_reach_another_host(void **state)
{
	static const struct { const char *req; int status; } t[] = {
		{ "GET http://evil.example/ HTTP/1.1\r\n\r\n", 400 },
		{ "CONNECT evil.example:443 HTTP/1.1\r\n\r\n", 405 },
		{ "GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", 426 },
		{ "GET / HTTP/1.1\r\nConnection: keep-alive, upgrade\r\n\r\n", 426 },
		{ "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400 },
		{ "GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n", 400 },
		{ "GET / HTTP/1.0\r\n\r\n", 505 },
		{ "GET /v1/../admin HTTP/1.1\r\n\r\n", 400 },
		{ "GET /v1/%2e%2e/admin HTTP/1.1\r\n\r\n", 400 },
		{ "POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400 },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501 },
		{ "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400 },
	};
	struct httpreq r;

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		assert_int_equal(parse(t[i].req, &r), -1);
		assert_int_equal(r.status, t[i].status);
		assert_non_null(r.reason);
	}
}

static void
test_httpreq_bounds_the_head(void **state)
{
	static uint8_t big[HTTPREQ_HEAD_MAX + 10];
	struct httpreq r;

	(void)state;
	memset(big, 'a', sizeof big);
	memcpy(big, "GET /", 5);
	assert_int_equal(httpreq_parse(big, sizeof big, &r), -1);
	assert_int_equal(r.status, 431);
}

static void
test_httpreq_allow_matches_method_and_path_prefix(void **state)
{
	char *rules[] = { (char *)"POST /v1/messages", NULL };
	struct httpreq r;
	static const struct { const char *req; bool ok; } t[] = {
		{ "POST /v1/messages HTTP/1.1\r\n\r\n", true },
		{ "POST /v1/messages?beta=true HTTP/1.1\r\n\r\n", true },
		{ "POST /v1/messages/count_tokens HTTP/1.1\r\n\r\n", true },
		{ "POST /v1/messagesX HTTP/1.1\r\n\r\n", false },
		{ "GET /v1/messages HTTP/1.1\r\n\r\n", false },
		{ "POST /v1/files HTTP/1.1\r\n\r\n", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		assert_int_equal(parse(t[i].req, &r), 1);
		assert_int_equal(httpreq_allowed(&r, (const uint8_t *)t[i].req, rules, 1), t[i].ok);
		assert_true(httpreq_allowed(&r, (const uint8_t *)t[i].req, rules, 0));
	}
}

static void
test_httpreq_chunked_body_ends_where_it_ends(void **state)
{
	const char *b = "5;x=y\r\nhello\r\n0\r\nTrailer: 1\r\n\r\nGET /pipelined HTTP/1.1\r\n";
	size_t body = strlen("5;x=y\r\nhello\r\n0\r\nTrailer: 1\r\n\r\n");
	struct httpreq_chunk c = { 0 };
	long a, n;

	(void)state;
	a = httpreq_chunk_scan(&c, (const uint8_t *)b, 9);
	assert_int_equal(a, 9);
	assert_false(c.done);
	n = httpreq_chunk_scan(&c, (const uint8_t *)b + 9, strlen(b) - 9);
	assert_true(c.done);
	assert_int_equal((size_t)(a + n), body);
	memset(&c, 0, sizeof c);
	assert_int_equal(httpreq_chunk_scan(&c, (const uint8_t *)"zz\r\n", 4), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_httpreq_reads_a_plain_post),
		cmocka_unit_test(test_httpreq_waits_for_the_blank_line),
		cmocka_unit_test(test_httpreq_refuses_what_could_reach_another_host),
		cmocka_unit_test(test_httpreq_bounds_the_head),
		cmocka_unit_test(test_httpreq_allow_matches_method_and_path_prefix),
		cmocka_unit_test(test_httpreq_chunked_body_ends_where_it_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
