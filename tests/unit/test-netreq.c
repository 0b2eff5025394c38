/* test-netreq.c - network request frames (client <-> coordinator, and the
 * router's ASK/VERDICT), and their text/JSON forms. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "netreq-text.h"
#include "netreq.h"

static const uint8_t *
one_frame(struct proto_buf *b, struct proto_header *h)
{
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(proto_frame_parse(b->data, b->len, h, &p, &err), PROTO_FRAME);
	assert_int_equal(b->len, PROTO_HEADER_LEN + h->length);
	return p;
}

static struct netreq_item
sample_item(void)
{
	struct netreq_item it = { .id = 7, .state = NETREQ_PENDING, .kind = NETREQ_KIND_FLOW,
		.proto = IPPROTO_TCP, .port = 8081, .attempts = 3, .session = 2,
		.first_ms = 1764756000123ull, .last_ms = 1764756001456ull,
		.expires_ms = 1764756010123ull };

	strcpy(it.addr, "10.213.5.3");
	strcpy(it.name, "later.lztest.internal");
	strcpy(it.grant, "later.lztest.internal:8081");
	return it;
}

static void
test_netreq_item_round_trips_as_item_and_ask(void **state)
{
	struct netreq_item it = sample_item(), out;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	netreq_encode_item(&b, NETREQ_ITEM, &it);
	p = one_frame(&b, &h);
	assert_int_equal(h.type, NETREQ_ITEM);
	assert_int_equal(netreq_decode_item(p, h.length, &out, &err), 0);
	assert_memory_equal(&it, &out, sizeof it);
	/* One byte short, one byte too many. */
	assert_int_equal(netreq_decode_item(p, h.length - 1, &out, &err), -1);
	assert_non_null(strstr(err.msg, "cut short"));
	lz_err_clear(&err);
	proto_put(&b, "x", 1);
	assert_int_equal(netreq_decode_item(p, h.length + 1, &out, &err), -1);
	assert_non_null(strstr(err.msg, "trailing bytes"));
	lz_err_clear(&err);
	proto_buf_clear(&b);
	netreq_encode_item(&b, NETCTL_ASK, &it);
	p = one_frame(&b, &h);
	assert_int_equal(h.type, NETCTL_ASK);
	assert_string_equal(proto_type_name(h.type), "NET_ASK");
	assert_int_equal(netreq_decode_item(p, h.length, &out, &err), 0);
	proto_buf_clear(&b);
}

static void
test_netreq_item_rejects_unknown_state_kind_and_long_fields(void **state)
{
	struct netreq_item it = sample_item(), out;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t *raw;

	(void)state;
	it.state = 9;
	netreq_encode_item(&b, NETREQ_ITEM, &it);
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_item(p, h.length, &out, &err), -1);
	assert_non_null(strstr(err.msg, "state 9"));
	lz_err_clear(&err);
	proto_buf_clear(&b);
	it = sample_item();
	it.kind = 0;
	netreq_encode_item(&b, NETREQ_ITEM, &it);
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_item(p, h.length, &out, &err), -1);
	assert_non_null(strstr(err.msg, "kind 0"));
	lz_err_clear(&err);
	proto_buf_clear(&b);
	/* An address length past its field (the encoder cuts; a hostile peer does not). */
	it = sample_item();
	netreq_encode_item(&b, NETREQ_ITEM, &it);
	raw = b.data + PROTO_HEADER_LEN;
	raw[8 * 4 + 3 * 8 + 3] = 200;	/* addr length */
	assert_int_equal(netreq_decode_item(raw, b.len - PROTO_HEADER_LEN, &out, &err), -1);
	assert_non_null(strstr(err.msg, "request address: longer than 47 bytes"));
	lz_err_clear(&err);
	/* A NUL inside a string. */
	raw[8 * 4 + 3 * 8 + 3] = (uint8_t)strlen(it.addr);
	raw[8 * 4 + 3 * 8 + 4 + 2] = '\0';
	assert_int_equal(netreq_decode_item(raw, b.len - PROTO_HEADER_LEN, &out, &err), -1);
	assert_non_null(strstr(err.msg, "NUL inside"));
	lz_err_clear(&err);
	proto_buf_clear(&b);
	/* Too long to fit is cut by the encoder, never a frame the decoder refuses. */
	it = sample_item();
	memset(it.name, 'a', sizeof it.name - 1);
	it.name[sizeof it.name - 1] = '\0';
	netreq_encode_item(&b, NETREQ_ITEM, &it);
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_item(p, h.length, &out, &err), 0);
	assert_int_equal(strlen(out.name), sizeof out.name - 1);
	proto_buf_clear(&b);
}

static void
test_netreq_decision_checks_scope_flags_and_widen(void **state)
{
	struct netreq_decision d = { .id = 4, .scope = NETREQ_SCOPE_PROFILE,
		.flags = NETREQ_DRY_RUN | NETREQ_BROAD_OK }, out;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	strcpy(d.widen, "*.githubusercontent.com:443");
	strcpy(d.who, "workbench");
	netreq_encode_decision(&b, &d);
	p = one_frame(&b, &h);
	assert_int_equal(h.type, NETREQ_DECIDE);
	assert_int_equal(netreq_decode_decision(p, h.length, &out, &err), 0);
	assert_memory_equal(&d, &out, sizeof d);
	proto_buf_clear(&b);
	d.scope = NETREQ_SCOPE_ONCE;
	netreq_encode_decision(&b, &d);
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_decision(p, h.length, &out, &err), -1);
	assert_non_null(strstr(err.msg, "not once"));
	lz_err_clear(&err);
	proto_buf_clear(&b);
	d.scope = NETREQ_SCOPE_NONE;
	d.widen[0] = '\0';
	netreq_encode_decision(&b, &d);
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_decision(p, h.length, &out, &err), -1);
	assert_non_null(strstr(err.msg, "scope 0 unknown"));
	lz_err_clear(&err);
	proto_buf_clear(&b);
	d.scope = NETREQ_SCOPE_DENY;
	d.flags = 0x10;
	netreq_encode_decision(&b, &d);
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_decision(p, h.length, &out, &err), -1);
	assert_non_null(strstr(err.msg, "flags 0x10"));
	lz_err_clear(&err);
	proto_buf_clear(&b);
}

static void
test_netreq_result_summary_list_round_trip(void **state)
{
	struct netreq_result r = { .id = 4, .status = NETREQ_NEED_BROAD,
		.scope = NETREQ_SCOPE_RUN }, ro;
	struct netreq_summary s = { 256, 9744, 12, 10000 }, so;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;
	uint32_t flags;

	(void)state;
	strcpy(r.grant, "*.com:443");
	strcpy(r.preview, "every name under com, port 443");
	strcpy(r.broad, "a wildcard on a top-level domain");
	netreq_encode_result(&b, &r);
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_result(p, h.length, &ro, &err), 0);
	assert_memory_equal(&r, &ro, sizeof r);
	proto_buf_clear(&b);
	netreq_encode_summary(&b, &s);
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_summary(p, h.length, &so, &err), 0);
	assert_memory_equal(&s, &so, sizeof s);
	assert_int_equal(netreq_decode_summary(p, h.length - 4, &so, &err), -1);
	lz_err_clear(&err);
	proto_buf_clear(&b);
	netreq_encode_list(&b, NETREQ_FOLLOW);
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_list(p, h.length, &flags, &err), 0);
	assert_int_equal(flags, NETREQ_FOLLOW);
	proto_buf_clear(&b);
	netreq_encode_list(&b, 6);
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_list(p, h.length, &flags, &err), -1);
	assert_non_null(strstr(err.msg, "unknown flags"));
	lz_err_clear(&err);
	proto_buf_clear(&b);
	{
		uint32_t id;
		bool on;

		netreq_encode_hold(&b, 7, true);
		p = one_frame(&b, &h);
		assert_int_equal(h.type, NETREQ_HOLD);
		assert_int_equal(netreq_decode_hold(p, h.length, &id, &on, &err), 0);
		assert_int_equal(id, 7);
		assert_true(on);
		assert_int_equal(netreq_decode_hold(p, h.length - 1, &id, &on, &err), -1);
		lz_err_clear(&err);
		proto_buf_clear(&b);
		netreq_encode_list(&b, 0);	/* one u32: no hold */
		p = one_frame(&b, &h);
		assert_int_equal(netreq_decode_hold(p, h.length, &id, &on, &err), -1);
		lz_err_clear(&err);
		proto_buf_clear(&b);
	}
}

static void
test_netreq_grants_and_verdict(void **state)
{
	struct netreq_grant g[2] = { { .index = 1, .added_ms = 5 }, { .index = 2 } }, *out;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;
	size_t n;
	uint32_t rid, v;
	char *entry;

	(void)state;
	strcpy(g[0].entry, "registry.npmjs.org:443");
	strcpy(g[1].entry, "10.0.0.0/24:5432");
	strcpy(g[1].note, "2026-12-03T10:20:00Z by cli: test");
	netreq_encode_grants(&b, g, 2);
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_grants(p, h.length, &out, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(out, g, sizeof g);
	free(out);
	/* A count larger than the payload is refused before allocating. */
	{
		uint8_t big[8] = { 0, 0, 0x03, 0xff, 0, 0, 0, 0 };

		assert_int_equal(netreq_decode_grants(big, sizeof big, &out, &n, &err), -1);
		assert_non_null(strstr(err.msg, "shorter than its count"));
		lz_err_clear(&err);
	}
	proto_buf_clear(&b);
	netreq_encode_verdict(&b, 3, NETCTL_V_ACCEPT, "10.213.5.3:8081");
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_verdict(p, h.length, &rid, &v, &entry, &err), 0);
	assert_int_equal(rid, 3);
	assert_int_equal(v, NETCTL_V_ACCEPT);
	assert_string_equal(entry, "10.213.5.3:8081");
	free(entry);
	proto_buf_clear(&b);
	netreq_encode_verdict(&b, 3, NETCTL_V_DENY, "x.example.com");
	p = one_frame(&b, &h);
	assert_int_equal(netreq_decode_verdict(p, h.length, &rid, &v, &entry, &err), -1);
	assert_null(entry);
	assert_non_null(strstr(err.msg, "accept only"));
	lz_err_clear(&err);
	proto_buf_clear(&b);
}

static void
test_netreq_names_and_text(void **state)
{
	struct netreq_item it = sample_item();
	char *t;

	(void)state;
	assert_int_equal(netreq_scope_parse("profile"), NETREQ_SCOPE_PROFILE);
	assert_int_equal(netreq_scope_parse("forever"), -1);
	assert_int_equal(netreq_scope_parse(""), -1);
	assert_string_equal(netreq_scope_name(NETREQ_SCOPE_ONCE), "once");
	assert_string_equal(netreq_state_name(NETREQ_EXPIRED), "expired");
	assert_string_equal(netreq_kind_name(NETREQ_KIND_DNS), "dns");
	t = netreq_text_item(&it, true);
	assert_non_null(strstr(t, "\"id\":7,\"state\":\"pending\",\"kind\":\"flow\",\"proto\":\"tcp\","
	    "\"addr\":\"10.213.5.3\",\"port\":8081,\"name\":\"later.lztest.internal\",\"attempts\":3"));
	free(t);
	t = netreq_text_item(&it, false);
	assert_non_null(strstr(t, "10.213.5.3:8081/tcp (later.lztest.internal)"));
	assert_non_null(strstr(t, "grant: later.lztest.internal:8081"));
	free(t);
	strcpy(it.name, "evil\033]0;x\007.example");
	t = netreq_text_item(&it, false);
	assert_null(strchr(t, '\033'));
	assert_null(strchr(t, '\007'));
	free(t);
	strcpy(it.name, "later.lztest.internal");
	it.kind = NETREQ_KIND_DNS;
	it.proto = 28;
	it.addr[0] = '\0';
	t = netreq_text_item(&it, false);
	assert_non_null(strstr(t, "dns AAAA later.lztest.internal"));
	free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_netreq_item_round_trips_as_item_and_ask),
		cmocka_unit_test(test_netreq_item_rejects_unknown_state_kind_and_long_fields),
		cmocka_unit_test(test_netreq_decision_checks_scope_flags_and_widen),
		cmocka_unit_test(test_netreq_result_summary_list_round_trip),
		cmocka_unit_test(test_netreq_grants_and_verdict),
		cmocka_unit_test(test_netreq_names_and_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
