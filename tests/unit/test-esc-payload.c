/* test-esc-payload.c - the strict escalation request reader/writer, canonical
 * signing bytes and escalation frames. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "esc-payload.h"
#include "xmalloc.h"

static void
fill(struct esc_payload *p)
{
	memset(p, 0, sizeof *p);
	for (int i = 0; i < ESC_ID_LEN; i++) {
		p->request_id[i] = (uint8_t)(0xa0 + i);
		p->session_id[i] = (uint8_t)i;
	}
	for (int i = 0; i < ESC_CRED_LEN; i++)
		p->credential[i] = (uint8_t)(i * 7);
	for (int i = 0; i < ESC_SIG_LEN; i++)
		p->signature[i] = (uint8_t)(255 - i);
	p->command = xstrdup("make test 'a b' \"é\" \t\n\x01");
	p->justification = xstrdup("run the \"test\" suite \\ on the host");
	p->cwd = xstrdup("/workspace/sub dir");
	p->timestamp = 1764690000;
}

static void
assert_parse_fails(const char *json, size_t len, const char *msg_part)
{
	struct esc_payload p;
	lz_err_t err = LZ_ERR_INIT;

	if (esc_payload_parse((const uint8_t *)json, len, &p, &err) == 0)
		fail_msg("accepted: %.*s", (int)(len > 200 ? 200 : len), json);
	assert_null(p.command);
	assert_null(p.cwd);
	if (msg_part != NULL && strstr(err.msg, msg_part) == NULL)
		fail_msg("message '%s' lacks '%s'", err.msg, msg_part);
	lz_err_clear(&err);
}

/* The valid JSON of fill() with the text from..to replaced by repl. */
static char *
mutate(const char *from, const char *repl)
{
	struct esc_payload p;
	char *json, *at, *out;

	fill(&p);
	json = esc_payload_encode(&p);
	esc_payload_clear(&p);
	at = strstr(json, from);
	LZ_ASSERT(at != NULL);
	out = xasprintf("%.*s%s%s", (int)(at - json), json, repl, at + strlen(from));
	free(json);
	return out;
}

static void
check_mutation_fails(const char *from, const char *repl, const char *msg_part)
{
	char *j = mutate(from, repl);

	assert_parse_fails(j, strlen(j), msg_part);
	free(j);
}

static void
test_payload_round_trips(void **state)
{
	struct esc_payload in, out;
	lz_err_t err = LZ_ERR_INIT;
	char *json;

	(void)state;
	fill(&in);
	json = esc_payload_encode(&in);
	if (esc_payload_parse((const uint8_t *)json, strlen(json), &out, &err) < 0)
		fail_msg("%s\n%s", err.msg, json);
	assert_memory_equal(in.request_id, out.request_id, ESC_ID_LEN);
	assert_memory_equal(in.session_id, out.session_id, ESC_ID_LEN);
	assert_memory_equal(in.credential, out.credential, ESC_CRED_LEN);
	assert_memory_equal(in.signature, out.signature, ESC_SIG_LEN);
	assert_string_equal(in.command, out.command);
	assert_string_equal(in.justification, out.justification);
	assert_string_equal(in.cwd, out.cwd);
	assert_int_equal(in.timestamp, out.timestamp);
	esc_payload_clear(&in);
	esc_payload_clear(&out);
	free(json);
}

static void
test_payload_accepts_any_key_order_and_escapes(void **state)
{
	struct esc_payload p;
	lz_err_t err = LZ_ERR_INIT;
	char cred[2 * ESC_CRED_LEN + 1], sig[2 * ESC_SIG_LEN + 1], *json;

	(void)state;
	memset(cred, 'a', sizeof cred - 1), cred[sizeof cred - 1] = '\0';
	memset(sig, '0', sizeof sig - 1), sig[sizeof sig - 1] = '\0';
	json = xasprintf(" {\"signature\":\"%s\", \"timestamp\" : 0,\n\"cwd\":\"\\/w\","
	    "\"credential\":\"%s\",\"justification\":\"\",\"command\":\"x\\u00e9\\ud83d\\ude00\","
	    "\"session_id\":\"00112233445566778899aabbccddeeff\","
	    "\"request_id\":\"ffeeddccbbaa99887766554433221100\"}\r\n", sig, cred);
	if (esc_payload_parse((const uint8_t *)json, strlen(json), &p, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(p.command, "x\xc3\xa9\xf0\x9f\x98\x80");
	assert_string_equal(p.cwd, "/w");
	assert_int_equal(p.timestamp, 0);
	assert_int_equal(p.session_id[1], 0x11);
	esc_payload_clear(&p);
	free(json);
}

static void
test_payload_refuses_every_truncation(void **state)
{
	struct esc_payload p;
	char *json;
	size_t n;

	(void)state;
	fill(&p);
	json = esc_payload_encode(&p);
	esc_payload_clear(&p);
	n = strlen(json);
	for (size_t len = 0; len < n; len++) {
		/* a heap copy of exactly len bytes, so ASan sees any overread */
		char *cut = xmalloc(len + 1);

		memcpy(cut, json, len);
		assert_parse_fails(cut, len, NULL);
		free(cut);
	}
	free(json);
}

static void
test_payload_refuses_malformed_json(void **state)
{
	static const char *bad[] = {
		"", "   ", "[]", "\"x\"", "null", "{", "{}", "{\"request_id\"}",
		"{\"request_id\":}", "{,}", "{\"command\":\"x\",}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_parse_fails(bad[i], strlen(bad[i]), NULL);
	check_mutation_fails("}", "}}", "trailing bytes");
	check_mutation_fails("}", "} x", "trailing bytes");
	check_mutation_fails(",\"cwd\"", " \"cwd\"", "expected ',' or '}'");
	check_mutation_fails("\"cwd\":", "\"cwd\" ", "expected ':'");
	check_mutation_fails("\"cwd\":", "'cwd':", "expected a string");
}

static void
test_payload_refuses_wrong_types(void **state)
{
	(void)state;
	check_mutation_fails("\"/workspace/sub dir\"", "[\"/w\"]", "cwd: expected a string");
	check_mutation_fails("\"/workspace/sub dir\"", "{\"a\":1}", "cwd: expected a string");
	check_mutation_fails("\"/workspace/sub dir\"", "null", "cwd: expected a string");
	check_mutation_fails("\"/workspace/sub dir\"", "42", "cwd: expected a string");
	check_mutation_fails("1764690000", "\"1764690000\"", "timestamp: expected a non-negative");
	check_mutation_fails("1764690000", "-5", "timestamp: expected a non-negative");
	check_mutation_fails("1764690000", "1.5", "timestamp: expected a non-negative");
	check_mutation_fails("1764690000", "1e9", "timestamp: expected a non-negative");
	check_mutation_fails("1764690000", "01764690000", "leading zero");
	check_mutation_fails("1764690000", "99999999999999999999", "timestamp");
	check_mutation_fails("1764690000", "true", "timestamp");
}

static void
test_payload_refuses_nul_and_bad_strings(void **state)
{
	char *j;

	(void)state;
	check_mutation_fails("make test", "make\\u0000test", "NUL");
	check_mutation_fails("make test", "make\\ud800test", "unpaired surrogate");
	check_mutation_fails("make test", "make\\udc00test", "unpaired surrogate");
	check_mutation_fails("make test", "make\\u12", "bad \\u escape");
	check_mutation_fails("make test", "make\\x41", "bad escape");
	check_mutation_fails("make test", "make\xff", "invalid UTF-8");
	check_mutation_fails("make test", "make\xc0\xaf", "invalid UTF-8");
	check_mutation_fails("make test", "make\ttest", "control character");
	/* a raw NUL byte inside a string */
	j = mutate("make test", "make#test");
	*strchr(j, '#') = '\0';
	{
		size_t len = strlen(j) + 1 + strlen(j + strlen(j) + 1);

		assert_parse_fails(j, len, "control character");
	}
	free(j);
}

static void
test_payload_refuses_duplicate_unknown_and_missing_keys(void **state)
{
	(void)state;
	check_mutation_fails("\"cwd\":", "\"cwd\":\"/x\",\"cwd\":", "duplicate key \"cwd\"");
	check_mutation_fails("\"cwd\":", "\"cmd\":\"/x\",\"cwd\":", "unknown key \"cmd\"");
	check_mutation_fails("\"cwd\":\"/workspace/sub dir\",", "", "missing key \"cwd\"");
	check_mutation_fails("\"cwd\":", "\"c\\u0077d\":\"/x\",\"cwd\":", "duplicate key \"cwd\"");
}

static void
test_payload_refuses_bad_ids_and_paths(void **state)
{
	(void)state;
	check_mutation_fails("a0a1a2a3", "A0A1A2A3", "request_id: expected 32 lowercase hex");
	check_mutation_fails("a0a1a2a3", "a0a1a2", "request_id: expected 32 lowercase hex");
	check_mutation_fails("a0a1a2a3", "a0a1a2a3a4", "request_id");
	check_mutation_fails("\"/workspace/sub dir\"", "\"workspace\"", "cwd must be an absolute");
	check_mutation_fails("\"/workspace/sub dir\"", "\"/workspace/../etc\"", "without '..'");
}

static void
test_payload_caps_sizes_before_copying(void **state)
{
	size_t n = ESC_PAYLOAD_MAX + 1;
	char *big = xmalloc(n), *cmd, *j;

	(void)state;
	memset(big, ' ', n);
	big[0] = '{';
	assert_parse_fails(big, n, "exceeds the");
	/* 100 MB frame: refused on the length alone (nothing read beyond it) */
	assert_parse_fails(big, (size_t)100 * 1024 * 1024, "exceeds the");
	free(big);
	cmd = xmalloc(ESC_COMMAND_MAX + 2);
	memset(cmd, 'a', ESC_COMMAND_MAX + 1);
	cmd[ESC_COMMAND_MAX + 1] = '\0';
	j = mutate("make test", cmd);
	assert_parse_fails(j, strlen(j), "command is longer than 65536 bytes");
	free(j);
	cmd[ESC_COMMAND_MAX] = '\0';	/* exactly at the cap: accepted */
	j = mutate("make test 'a b' \\\"é\\\" \\t\\n\\u0001", cmd);
	{
		struct esc_payload p;
		lz_err_t err = LZ_ERR_INIT;

		if (esc_payload_parse((const uint8_t *)j, strlen(j), &p, &err) < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(strlen(p.command), ESC_COMMAND_MAX);
		esc_payload_clear(&p);
	}
	free(j);
	free(cmd);
	/* escapes count decoded bytes: 4097 * "\u00e9" decodes to 8194 bytes */
	{
		size_t k = 0;
		char *js = xmalloc(4097 * 6 + 1);

		for (int i = 0; i < 4097; i++, k += 6)
			memcpy(js + k, "\\u00e9", 6);
		js[k] = '\0';
		j = mutate("run the", js);
		assert_parse_fails(j, strlen(j), "justification is longer than 4096");
		free(j);
		free(js);
	}
}

static void
test_payload_canonical_separates_fields(void **state)
{
	struct esc_payload a, b;
	uint8_t *ca, *cb;
	size_t la, lb;

	(void)state;
	fill(&a);
	fill(&b);
	free(a.command), a.command = xstrdup("ab");
	free(a.justification), a.justification = xstrdup("c");
	free(b.command), b.command = xstrdup("a");
	free(b.justification), b.justification = xstrdup("bc");
	esc_payload_canonical(&a, &ca, &la);
	esc_payload_canonical(&b, &cb, &lb);
	assert_int_equal(la, lb);
	assert_true(memcmp(ca, cb, la) != 0);
	assert_memory_equal(ca, "LZESC1\0\0", 8);
	/* the signature is not part of what is signed */
	free(cb);
	b.signature[0] ^= 1;
	free(b.command), b.command = xstrdup("ab");
	free(b.justification), b.justification = xstrdup("c");
	esc_payload_canonical(&b, &cb, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(ca, cb, la);
	free(ca);
	free(cb);
	esc_payload_clear(&a);
	esc_payload_clear(&b);
}

static void
test_payload_frames_round_trip(void **state)
{
	struct proto_buf b = { NULL, 0, 0 };
	struct proto_header h;
	const uint8_t *pl, *data;
	char msg[] = "exit 3";
	struct esc_payload_result r = { ESC_OUTCOME_RAN, 3, msg }, r2;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t stream;
	size_t dlen;

	(void)state;
	esc_payload_frame_output(&b, 2, "oops", 4);
	assert_int_equal(proto_frame_parse(b.data, b.len, &h, &pl, &err), PROTO_FRAME);
	assert_int_equal(h.type, ESC_MSG_OUTPUT);
	assert_int_equal(esc_payload_decode_output(pl, h.length, &stream, &data, &dlen, &err), 0);
	assert_int_equal(stream, 2);
	assert_int_equal(dlen, 4);
	assert_memory_equal(data, "oops", 4);
	proto_buf_consume(&b, PROTO_HEADER_LEN + h.length);
	esc_payload_frame_result(&b, &r);
	assert_int_equal(proto_frame_parse(b.data, b.len, &h, &pl, &err), PROTO_FRAME);
	assert_int_equal(h.type, ESC_MSG_RESULT);
	assert_int_equal(esc_payload_decode_result(pl, h.length, &r2, &err), 0);
	assert_int_equal(r2.outcome, ESC_OUTCOME_RAN);
	assert_int_equal(r2.status, 3);
	assert_string_equal(r2.message, "exit 3");
	esc_payload_result_clear(&r2);
	assert_int_equal(esc_payload_decode_result(pl, h.length - 1, &r2, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(esc_payload_decode_output((const uint8_t *)"\x03x", 2, &stream,
	    &data, &dlen, &err), -1);
	lz_err_clear(&err);
	proto_buf_clear(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_payload_round_trips),
		cmocka_unit_test(test_payload_accepts_any_key_order_and_escapes),
		cmocka_unit_test(test_payload_refuses_every_truncation),
		cmocka_unit_test(test_payload_refuses_malformed_json),
		cmocka_unit_test(test_payload_refuses_wrong_types),
		cmocka_unit_test(test_payload_refuses_nul_and_bad_strings),
		cmocka_unit_test(test_payload_refuses_duplicate_unknown_and_missing_keys),
		cmocka_unit_test(test_payload_refuses_bad_ids_and_paths),
		cmocka_unit_test(test_payload_caps_sizes_before_copying),
		cmocka_unit_test(test_payload_canonical_separates_fields),
		cmocka_unit_test(test_payload_frames_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
