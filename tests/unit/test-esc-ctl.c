/* test-esc-ctl.c - the escalation messages of the control protocol: round
 * trips, and every cut or padded payload refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "esc-ctl.h"
#include "xmalloc.h"

static const uint8_t *
payload(const struct proto_buf *b, uint16_t type, size_t *len)
{
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(proto_frame_parse(b->data, b->len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(h.type, type);
	assert_true(proto_type_known(type));
	*len = h.length;
	return p;
}

static void
test_esc_ctl_new_session_carries_anchor_and_new_session(void **state)
{
	struct esc_ctl_anchor a = { .cred_env = (char *)"lzc1.00ff" }, got;
	char *argv[] = { (char *)"make", (char *)"test", NULL };
	struct proto_new_session ns = { PROTO_SESSION_TTY, 24, 80, (char *)"xterm", argv }, ns2;
	struct proto_buf b = { NULL, 0, 0 };
	const uint8_t *p, *inner;
	size_t len, ilen;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	memset(a.session_id, 7, sizeof a.session_id);
	memset(a.pk, 9, sizeof a.pk);
	esc_ctl_encode_new_session(&b, &a, &ns);
	p = payload(&b, ESC_CTL_NEW_SESSION, &len);
	assert_int_equal(esc_ctl_decode_new_session(p, len, &got, &inner, &ilen, &err), 0);
	assert_memory_equal(got.session_id, a.session_id, 16);
	assert_memory_equal(got.pk, a.pk, 32);
	assert_string_equal(got.cred_env, "lzc1.00ff");
	assert_int_equal(proto_decode_new_session(inner, ilen, &ns2, &err), 0);
	assert_string_equal(ns2.argv[1], "test");
	assert_int_equal(ns2.cols, 80);
	proto_new_session_clear(&ns2);
	esc_ctl_anchor_clear(&got);
	assert_int_equal(esc_ctl_decode_new_session(p, 40, &got, &inner, &ilen, &err), -1);
	lz_err_clear(&err);
	proto_buf_clear(&b);
}

static void
test_esc_ctl_prompt_round_trips_and_refuses_cut_or_padded(void **state)
{
	struct esc_ctl_prompt q = { 3, 42, (char *)"abcd", (char *)"web", (char *)"why",
		(char *)"/workspace", (char *)"make 'a;b'", (char *)"contains ';'" }, got;
	struct proto_buf b = { NULL, 0, 0 };
	const uint8_t *p;
	uint8_t *pad;
	size_t len, cut;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	esc_ctl_encode_prompt(&b, &q);
	p = payload(&b, ESC_CTL_PROMPT, &len);
	assert_int_equal(esc_ctl_decode_prompt(p, len, &got, &err), 0);
	assert_int_equal(got.ticket, 42);
	assert_string_equal(got.command, "make 'a;b'");
	assert_string_equal(got.reason, "contains ';'");
	esc_ctl_prompt_clear(&got);
	for (cut = 0; cut < len; cut++) {
		assert_int_equal(esc_ctl_decode_prompt(p, cut, &got, &err), -1);
		lz_err_clear(&err);
	}
	pad = xcalloc(1, len + 1);
	memcpy(pad, p, len);
	assert_int_equal(esc_ctl_decode_prompt(pad, len + 1, &got, &err), -1);
	lz_err_clear(&err);
	free(pad);
	proto_buf_clear(&b);
}

static void
test_esc_ctl_decision_refuses_unknown_action_and_nul(void **state)
{
	struct esc_ctl_decision d = { 5, ESC_CTL_EDIT, (char *)"make test" }, got;
	struct proto_buf b = { NULL, 0, 0 };
	uint8_t *p;
	size_t len;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	esc_ctl_encode_decision(&b, &d);
	p = (uint8_t *)payload(&b, ESC_CTL_DECISION, &len);
	assert_int_equal(esc_ctl_decode_decision(p, len, &got, &err), 0);
	assert_int_equal(got.action, ESC_CTL_EDIT);
	assert_string_equal(got.command, "make test");
	esc_ctl_decision_clear(&got);
	p[4] = 9;	/* no such action */
	assert_int_equal(esc_ctl_decode_decision(p, len, &got, &err), -1);
	lz_err_clear(&err);
	p[4] = ESC_CTL_EDIT;
	p[len - 1] = '\0';	/* NUL inside the command */
	assert_int_equal(esc_ctl_decode_decision(p, len, &got, &err), -1);
	lz_err_clear(&err);
	proto_buf_clear(&b);
}

static void
test_esc_ctl_audit_messages_round_trip(void **state)
{
	struct proto_buf b = { NULL, 0, 0 };
	const uint8_t *p;
	size_t len;
	uint8_t flags;
	uint32_t code;
	char *text;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	esc_ctl_encode_audit_req(&b, ESC_CTL_AUDIT_JSON | ESC_CTL_AUDIT_VERIFY);
	p = payload(&b, ESC_CTL_AUDIT_REQ, &len);
	assert_int_equal(esc_ctl_decode_audit_req(p, len, &flags, &err), 0);
	assert_int_equal(flags, ESC_CTL_AUDIT_JSON | ESC_CTL_AUDIT_VERIFY);
	proto_buf_clear(&b);
	esc_ctl_encode_audit_req(&b, 0x80);
	p = payload(&b, ESC_CTL_AUDIT_REQ, &len);
	assert_int_equal(esc_ctl_decode_audit_req(p, len, &flags, &err), -1);
	lz_err_clear(&err);
	proto_buf_clear(&b);
	esc_ctl_encode_audit(&b, 1, "audit trail broken at row 3: hash\n");
	p = payload(&b, ESC_CTL_AUDIT, &len);
	assert_int_equal(esc_ctl_decode_audit(p, len, &code, &text, &err), 0);
	assert_int_equal(code, 1);
	assert_string_equal(text, "audit trail broken at row 3: hash\n");
	free(text);
	proto_buf_clear(&b);
}

static void
test_esc_ctl_list_and_decide_round_trip_and_refuse_unknown_flags(void **state)
{
	struct esc_ctl_decision d = { 7, ESC_CTL_DENY, (char *)"" }, got;
	struct proto_buf b = { NULL, 0, 0 };
	const uint8_t *p;
	uint8_t bad[4] = { 0, 0, 0, 2 };
	uint32_t flags;
	size_t len;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	esc_ctl_encode_list(&b, ESC_CTL_LIST_FOLLOW);
	p = payload(&b, ESC_CTL_LIST, &len);
	assert_int_equal(esc_ctl_decode_list(p, len, &flags, &err), 0);
	assert_int_equal(flags, ESC_CTL_LIST_FOLLOW);
	assert_int_equal(esc_ctl_decode_list(p, len - 1, &flags, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(esc_ctl_decode_list(bad, sizeof bad, &flags, &err), -1);
	lz_err_clear(&err);
	proto_buf_clear(&b);
	/* DECIDE: DECISION's layout under its own number. */
	esc_ctl_encode_decide(&b, &d);
	p = payload(&b, ESC_CTL_DECIDE, &len);
	assert_int_equal(esc_ctl_decode_decision(p, len, &got, &err), 0);
	assert_int_equal(got.ticket, 7);
	assert_int_equal(got.action, ESC_CTL_DENY);
	esc_ctl_decision_clear(&got);
	proto_buf_clear(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_esc_ctl_new_session_carries_anchor_and_new_session),
		cmocka_unit_test(test_esc_ctl_prompt_round_trips_and_refuses_cut_or_padded),
		cmocka_unit_test(test_esc_ctl_decision_refuses_unknown_action_and_nul),
		cmocka_unit_test(test_esc_ctl_audit_messages_round_trip),
		cmocka_unit_test(test_esc_ctl_list_and_decide_round_trip_and_refuse_unknown_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
