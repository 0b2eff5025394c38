/* test-netctl.c - coordinator <-> sidecar control messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "netctl.h"
#include "strv.h"

static const uint8_t *
one_frame(struct proto_buf *b, struct proto_header *h)
{
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(proto_frame_parse(b->data, b->len, h, &p, &err), PROTO_FRAME);
	assert_int_equal(b->len, PROTO_HEADER_LEN + h->length);
	return p;
}

static void
test_netctl_list_round_trips(void **state)
{
	char a[] = "10.0.0.0/8:5432", b1[] = "*.npmjs.org", c[] = "";
	char *in[] = { a, b1, c };
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	char **out;
	size_t n;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	netctl_encode_list(&b, NETCTL_POLICY_SET, in, 3);
	p = one_frame(&b, &h);
	assert_int_equal(h.type, NETCTL_POLICY_SET);
	assert_int_equal(netctl_decode_list(p, h.length, &out, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(out[1], "*.npmjs.org");
	assert_string_equal(out[2], "");
	assert_null(out[3]);
	lz_strv_free(out);
	/* Cut short, one byte too many, a count larger than the payload. */
	assert_int_equal(netctl_decode_list(p, h.length - 1, &out, &n, &err), -1);
	lz_err_clear(&err);
	{
		uint8_t big[8] = { 0, 0, 0x03, 0xff, 0, 0, 0, 0 };

		assert_int_equal(netctl_decode_list(big, sizeof big, &out, &n, &err), -1);
		lz_err_clear(&err);
		big[2] = 0xff;
		assert_int_equal(netctl_decode_list(big, sizeof big, &out, &n, &err), -1);
		assert_non_null(strstr(err.msg, "at most"));
		lz_err_clear(&err);
	}
	proto_buf_clear(&b);
}

static void
test_netctl_event_round_trips_and_rejects_long_fields(void **state)
{
	struct netctl_event in = { .kind = NETCTL_EV_FLOW, .allowed = 1,
		.time_ms = 1764748800123ull, .proto = 6, .port = 443 }, out;
	struct proto_buf b = { 0 }, bad = { 0 };
	struct proto_header h;
	const uint8_t *p;
	char longname[400];
	lz_err_t err = LZ_ERR_INIT;
	size_t at;

	(void)state;
	strcpy(in.addr, "2001:db8::1");
	strcpy(in.name, "api.example.com");
	strcpy(in.rule, "*.example.com:443");
	netctl_encode_event(&b, &in);
	p = one_frame(&b, &h);
	assert_int_equal(netctl_decode_event(p, h.length, &out, &err), 0);
	assert_memory_equal(&in, &out, sizeof in);
	assert_int_equal(netctl_decode_event(p, h.length + 0, &out, &err), 0);
	assert_int_equal(netctl_decode_event(p, h.length - 1, &out, &err), -1);
	lz_err_clear(&err);
	/* A name longer than its field is an error, not a cut. */
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	at = proto_begin(&bad, PROTO_VERSION, NETCTL_EVENT);
	for (int i = 0; i < 7; i++)
		proto_put32(&bad, 0);
	proto_putstr(&bad, "1.2.3.4");
	proto_putstr(&bad, longname);
	proto_putstr(&bad, "r");
	proto_end(&bad, at);
	p = one_frame(&bad, &h);
	assert_int_equal(netctl_decode_event(p, h.length, &out, &err), -1);
	lz_err_clear(&err);
	proto_buf_clear(&b);
	proto_buf_clear(&bad);
}

static void
test_netctl_str_and_empty(void **state)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	char *s;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	netctl_encode_str(&b, NETCTL_POLICY_ADD, "github.com:22");
	p = one_frame(&b, &h);
	assert_int_equal(netctl_decode_str(p, h.length, &s, &err), 0);
	assert_string_equal(s, "github.com:22");
	free(s);
	assert_int_equal(netctl_decode_str(p, h.length - 2, &s, &err), -1);
	assert_null(s);
	lz_err_clear(&err);
	proto_buf_clear(&b);
	netctl_encode_empty(&b, NETCTL_SUBSCRIBE);
	p = one_frame(&b, &h);
	assert_int_equal(h.length, 0);
	assert_string_equal(netctl_ev_kind_name(NETCTL_EV_DNS), "dns");
	assert_string_equal(netctl_ev_kind_name(99), "?");
	proto_buf_clear(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_netctl_list_round_trips),
		cmocka_unit_test(test_netctl_event_round_trips_and_rejects_long_fields),
		cmocka_unit_test(test_netctl_str_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
