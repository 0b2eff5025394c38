/* test-proto.c - control protocol framing, encoders and every decode path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "xmalloc.h"

/* Parse the single frame in b; returns the parse result. */
static int
parse(const struct proto_buf *b, size_t len, struct proto_header *h, const uint8_t **p,
    lz_err_t *err)
{
	return proto_frame_parse(b->data, len, h, p, err);
}

static void
test_proto_hello_round_trips(void **state)
{
	struct proto_buf b = { 0 };
	struct proto_hello in = { PROTO_VERSION, 1234, 1001 }, out;
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	proto_encode_hello(&b, &in);
	assert_int_equal(b.len, PROTO_HEADER_LEN + 12);
	assert_int_equal(parse(&b, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(h.type, PROTO_HELLO);
	assert_int_equal(h.version, PROTO_VERSION);
	assert_int_equal(h.length, 12);
	assert_int_equal(proto_decode_hello(p, h.length, &out, &err), 0);
	assert_int_equal(out.pid, 1234);
	assert_int_equal(out.uid, 1001);
	assert_int_equal(out.version, PROTO_VERSION);
	proto_buf_clear(&b);
}

static void
test_proto_short_header_needs_more(void **state)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;
	size_t n;

	(void)state;
	proto_encode_ok(&b, 7);
	for (n = 0; n < b.len; n++)
		assert_int_equal(parse(&b, n, &h, &p, &err), PROTO_NEED_MORE);
	assert_int_equal(parse(&b, b.len, &h, &p, &err), PROTO_FRAME);
	assert_null(err.msg);
	proto_buf_clear(&b);
}

static void
test_proto_rejects_bad_magic(void **state)
{
	const uint8_t junk[PROTO_HEADER_LEN] = { 'G', 'E', 'T', ' ', '/', ' ', 'H', 'T' };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	/* Four bytes are enough to know: no waiting for a header that never comes. */
	assert_int_equal(proto_frame_parse(junk, 4, &h, &p, &err), -1);
	assert_int_equal(err.code, PROTO_E_BAD_FRAME);
	assert_non_null(strstr(err.msg, "magic"));
	lz_err_clear(&err);
}

static void
test_proto_wrong_version_is_reported_with_header(void **state)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	proto_encode_raw(&b, PROTO_VERSION + 1, PROTO_HELLO, "abc", 3);
	assert_int_equal(parse(&b, b.len, &h, &p, &err), -1);
	assert_int_equal(err.code, PROTO_E_VERSION);
	assert_int_equal(h.version, PROTO_VERSION + 1);
	assert_non_null(strstr(err.msg, "version"));
	lz_err_clear(&err);
	proto_buf_clear(&b);
}

static void
test_proto_rejects_oversize_length_before_payload(void **state)
{
	uint8_t hdr[PROTO_HEADER_LEN];
	uint32_t v;
	uint16_t t;
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	v = htonl(PROTO_MAGIC);
	memcpy(hdr, &v, 4);
	hdr[4] = PROTO_VERSION;
	hdr[5] = 0;
	t = htons(PROTO_DATA);
	memcpy(hdr + 6, &t, 2);
	v = htonl(PROTO_MAX_PAYLOAD + 1);
	memcpy(hdr + 8, &v, 4);
	/* Only the header is there: the length alone must be refused. */
	assert_int_equal(proto_frame_parse(hdr, sizeof hdr, &h, &p, &err), -1);
	assert_int_equal(err.code, PROTO_E_BAD_FRAME);
	lz_err_clear(&err);
	v = htonl(0xffffffffu);
	memcpy(hdr + 8, &v, 4);
	assert_int_equal(proto_frame_parse(hdr, sizeof hdr, &h, &p, &err), -1);
	lz_err_clear(&err);
}

static void
test_proto_unknown_type_parses_but_is_unknown(void **state)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	proto_encode_raw(&b, PROTO_VERSION, 4242, "xy", 2);
	assert_int_equal(parse(&b, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(h.type, 4242);
	assert_false(proto_type_known(h.type));
	assert_string_equal(proto_type_name(h.type), "?");
	assert_false(proto_type_known(120));	/* escalation range: reserved */
	assert_true(proto_type_known(PROTO_STOP));
	proto_buf_clear(&b);
}

static void
test_proto_truncated_payload_needs_more(void **state)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	proto_encode_data(&b, 3, PROTO_STREAM_OUT, "hello", 5);
	assert_int_equal(parse(&b, b.len - 1, &h, &p, &err), PROTO_NEED_MORE);
	proto_buf_clear(&b);
}

static void
test_proto_two_frames_in_one_buffer(void **state)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	struct proto_resize rz = { 9, 30, 100 }, out;
	const uint8_t *p;
	uint32_t id;
	lz_err_t err = LZ_ERR_INIT;
	size_t first;

	(void)state;
	proto_encode_eof(&b, 5);
	first = b.len;
	proto_encode_resize(&b, &rz);
	assert_int_equal(parse(&b, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(h.type, PROTO_EOF);
	assert_int_equal(proto_decode_eof(p, h.length, &id, &err), 0);
	assert_int_equal(id, 5);
	proto_buf_consume(&b, first);
	assert_int_equal(parse(&b, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(proto_decode_resize(p, h.length, &out, &err), 0);
	assert_int_equal(out.id, 9);
	assert_int_equal(out.rows, 30);
	assert_int_equal(out.cols, 100);
	proto_buf_clear(&b);
}

static void
test_proto_new_session_round_trips(void **state)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"echo hi; exit 3", (char *)"", NULL };
	struct proto_new_session in = { PROTO_SESSION_TTY, 30, 100, (char *)"xterm-256color", argv };
	struct proto_new_session out;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	proto_encode_new_session(&b, &in);
	assert_int_equal(parse(&b, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(proto_decode_new_session(p, h.length, &out, &err), 0);
	assert_int_equal(out.flags, PROTO_SESSION_TTY);
	assert_int_equal(out.rows, 30);
	assert_int_equal(out.cols, 100);
	assert_string_equal(out.term, "xterm-256color");
	assert_string_equal(out.argv[0], "sh");
	assert_string_equal(out.argv[2], "echo hi; exit 3");
	assert_string_equal(out.argv[3], "");
	assert_null(out.argv[4]);
	proto_new_session_clear(&out);
	proto_buf_clear(&b);
}

static void
test_proto_new_session_rejects_every_truncation(void **state)
{
	char *argv[] = { (char *)"true", (char *)"x", NULL };
	struct proto_new_session in = { 0, 0, 0, (char *)"dumb", argv }, out;
	struct proto_buf b = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	size_t n, plen;

	(void)state;
	proto_encode_new_session(&b, &in);
	plen = b.len - PROTO_HEADER_LEN;
	for (n = 0; n < plen; n++) {
		assert_int_equal(proto_decode_new_session(b.data + PROTO_HEADER_LEN, n, &out, &err), -1);
		assert_int_equal(err.code, PROTO_E_BAD_PAYLOAD);
		assert_null(out.argv);
		lz_err_clear(&err);
	}
	proto_buf_clear(&b);
}

static void
test_proto_new_session_rejects_huge_argc_without_allocating(void **state)
{
	uint8_t pl[4 + 2 + 2 + 4 + 4];
	uint32_t v;
	struct proto_new_session out;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	memset(pl, 0, sizeof pl);
	v = htonl(0xfffffff0u);	/* argc, with no strings behind it */
	memcpy(pl + 12, &v, 4);
	assert_int_equal(proto_decode_new_session(pl, sizeof pl, &out, &err), -1);
	assert_int_equal(err.code, PROTO_E_BAD_PAYLOAD);
	assert_non_null(strstr(err.msg, "argument count"));
	lz_err_clear(&err);
}

static void
test_proto_string_length_past_end_is_refused(void **state)
{
	uint8_t pl[4 + 4 + 3];
	uint32_t v;
	struct proto_error e;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	v = htonl(1);
	memcpy(pl, &v, 4);
	v = htonl(1000);	/* claims 1000 bytes, has 3 */
	memcpy(pl + 4, &v, 4);
	memcpy(pl + 8, "abc", 3);
	assert_int_equal(proto_decode_error(pl, sizeof pl, &e, &err), -1);
	assert_null(e.text);
	lz_err_clear(&err);
}

static void
test_proto_nul_inside_string_is_refused(void **state)
{
	uint8_t pl[4 + 4 + 3];
	uint32_t v;
	struct proto_error e;
	char *t;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	v = htonl(1);
	memcpy(pl, &v, 4);
	v = htonl(3);
	memcpy(pl + 4, &v, 4);
	memcpy(pl + 8, "a\0c", 3);
	assert_int_equal(proto_decode_error(pl, sizeof pl, &e, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(proto_decode_text((const uint8_t *)"a\0c", 3, &t, &err), -1);
	lz_err_clear(&err);
}

static void
test_proto_trailing_bytes_are_refused(void **state)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	struct proto_exit e;
	const uint8_t *p;
	uint8_t pl[13] = { 0 };
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(proto_decode_exit(pl, sizeof pl, &e, &err), -1);
	assert_non_null(strstr(err.msg, "trailing"));
	lz_err_clear(&err);
	proto_encode_raw(&b, PROTO_VERSION, PROTO_STATUS_REQ, "\x01\x02", 2);
	assert_int_equal(parse(&b, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(proto_decode_status_req(p, h.length, &(enum proto_status_fmt){ 0 }, &err), -1);
	lz_err_clear(&err);
	proto_buf_clear(&b);
}

static void
test_proto_data_and_exit_round_trip(void **state)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	struct proto_data d;
	struct proto_exit e = { 4, -7, PROTO_EXIT_LIMIT }, eo;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;
	size_t first;

	(void)state;
	proto_encode_data(&b, 4, PROTO_STREAM_ERR, "\0\xff", 2);
	first = b.len;
	proto_encode_exit(&b, &e);
	assert_int_equal(parse(&b, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(proto_decode_data(p, h.length, &d, &err), 0);
	assert_int_equal(d.id, 4);
	assert_int_equal(d.stream, PROTO_STREAM_ERR);
	assert_int_equal(d.len, 2);
	assert_memory_equal(d.data, "\0\xff", 2);
	proto_buf_consume(&b, first);
	assert_int_equal(parse(&b, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(proto_decode_exit(p, h.length, &eo, &err), 0);
	assert_int_equal(eo.status, -7);
	assert_int_equal(eo.flags, PROTO_EXIT_LIMIT);
	proto_buf_clear(&b);
}

/* A coordinator started before the exit's flags sends 8 bytes: no flag;
 * a cut flags word is refused. */
static void
test_proto_exit_without_flags_from_an_older_coordinator(void **state)
{
	uint8_t pl[11] = { 0, 0, 0, 3, 0, 0, 0, 137, 0, 0, 0 };
	struct proto_exit e;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(proto_decode_exit(pl, 8, &e, &err), 0);
	assert_int_equal(e.id, 3);
	assert_int_equal(e.status, 137);
	assert_int_equal(e.flags, 0);
	assert_int_equal(proto_decode_exit(pl, sizeof pl, &e, &err), -1);
	lz_err_clear(&err);
}

static void
test_proto_data_rejects_unknown_stream(void **state)
{
	uint8_t pl[5] = { 0, 0, 0, 1, 9 };
	struct proto_data d;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(proto_decode_data(pl, sizeof pl, &d, &err), -1);
	assert_int_equal(err.code, PROTO_E_BAD_PAYLOAD);
	lz_err_clear(&err);
	assert_int_equal(proto_decode_data(pl, 4, &d, &err), -1);
	lz_err_clear(&err);
}

/* SUSPECT: round trip; another layout, an overlong string, every
 * truncation and trailing bytes are refused. */
static void
test_proto_suspect_round_trips_and_checks_its_layout(void **state)
{
	struct proto_suspect in = { 7, (char *)"0123abcd", (char *)"terminal-reply",
				    (char *)"\\x1bP>|tmux 3.3a\\x1b\\" }, out;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t *bad;
	char big[PROTO_SUSPECT_MAX + 10];

	(void)state;
	proto_encode_suspect(&b, &in);
	assert_int_equal(proto_frame_parse(b.data, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(h.type, PROTO_SUSPECT);
	assert_true(proto_type_known(PROTO_SUSPECT));
	assert_int_equal(proto_decode_suspect(p, h.length, &out, &err), 0);
	assert_int_equal(out.session, 7);
	assert_string_equal(out.request_id, "0123abcd");
	assert_string_equal(out.what, "terminal-reply");
	assert_string_equal(out.sample, in.sample);
	proto_suspect_clear(&out);
	for (uint32_t n = 0; n < h.length; n++) {
		assert_int_equal(proto_decode_suspect(p, n, &out, &err), -1);
		lz_err_clear(&err);
	}
	bad = xmalloc(h.length + 1);
	memcpy(bad, p, h.length);
	bad[h.length] = 0;
	assert_int_equal(proto_decode_suspect(bad, h.length + 1, &out, &err), -1);
	assert_non_null(strstr(err.msg, "trailing"));
	lz_err_clear(&err);
	bad[0] = PROTO_SUSPECT_LAYOUT + 1;
	assert_int_equal(proto_decode_suspect(bad, h.length, &out, &err), -1);
	assert_non_null(strstr(err.msg, "layout 2"));
	lz_err_clear(&err);
	free(bad);
	proto_buf_clear(&b);
	/* The encoder cuts; a hand-made overlong string is refused before use. */
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	in.sample = big;
	proto_encode_suspect(&b, &in);
	assert_int_equal(proto_frame_parse(b.data, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(proto_decode_suspect(p, h.length, &out, &err), 0);
	assert_int_equal(strlen(out.sample), PROTO_SUSPECT_MAX);
	proto_suspect_clear(&out);
	bad = xmalloc(h.length + 20);
	memcpy(bad, p, h.length);
	{
		/* sample's length field: after layout, session, id and what. */
		size_t off = 1 + 4 + 4 + strlen(in.request_id) + 4 + strlen(in.what);
		uint32_t n = htonl(PROTO_SUSPECT_MAX + 1);

		memcpy(bad + off, &n, 4);
		assert_int_equal(proto_decode_suspect(bad, h.length + 1, &out, &err), -1);
		lz_err_clear(&err);
	}
	free(bad);
	proto_buf_clear(&b);
}

static void
test_proto_error_and_status_text_round_trip(void **state)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	struct proto_error e;
	const uint8_t *p;
	char *t;
	lz_err_t err = LZ_ERR_INIT;
	size_t first;

	(void)state;
	proto_encode_error(&b, PROTO_E_VERSION, "client speaks 2");
	first = b.len;
	proto_encode_status(&b, "{\"running\":true}");
	assert_int_equal(parse(&b, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(proto_decode_error(p, h.length, &e, &err), 0);
	assert_int_equal(e.code, PROTO_E_VERSION);
	assert_string_equal(e.text, "client speaks 2");
	proto_error_clear(&e);
	proto_buf_consume(&b, first);
	assert_int_equal(parse(&b, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(proto_decode_text(p, h.length, &t, &err), 0);
	assert_string_equal(t, "{\"running\":true}");
	free(t);
	proto_buf_clear(&b);
}

static void
test_proto_note_round_trips_and_cuts_text(void **state)
{
	struct proto_buf b = { 0 };
	struct proto_note in = { 7, (char *)"esc.tty-reply", (char *)"abcd", NULL }, out;
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;
	char big[PROTO_NOTE_TEXT_MAX + 100];

	(void)state;
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	in.text = big;
	proto_encode_note(&b, &in);
	assert_int_equal(parse(&b, b.len, &h, &p, &err), PROTO_FRAME);
	assert_int_equal(h.type, PROTO_NOTE);
	assert_string_equal(proto_type_name(h.type), "NOTE");
	assert_int_equal(proto_decode_note(p, h.length, &out, &err), 0);
	assert_int_equal(out.session, 7);
	assert_string_equal(out.kind, "esc.tty-reply");
	assert_string_equal(out.request_id, "abcd");
	assert_int_equal(strlen(out.text), PROTO_NOTE_TEXT_MAX);
	proto_note_clear(&out);
	proto_buf_clear(&b);
}

/* Hand-built payloads: a newer layout, a bad kind, an oversized text and a
 * truncated frame are refused with a message naming what is wrong. */
static void
test_proto_note_rejects_bad_payloads(void **state)
{
	struct proto_buf b = { 0 };
	struct proto_note out;
	lz_err_t err = LZ_ERR_INIT;
	char big[PROTO_NOTE_TEXT_MAX + 2];

	(void)state;
	proto_put(&b, "\x02", 1);
	proto_put32(&b, 1);
	proto_putstr(&b, "k");
	proto_putstr(&b, "");
	proto_putstr(&b, "t");
	assert_int_equal(proto_decode_note(b.data, b.len, &out, &err), -1);
	assert_non_null(strstr(err.msg, "layout 2"));
	lz_err_clear(&err);
	b.data[0] = PROTO_NOTE_LAYOUT;
	assert_int_equal(proto_decode_note(b.data, b.len, &out, &err), 0);
	proto_note_clear(&out);
	assert_int_equal(proto_decode_note(b.data, b.len - 1, &out, &err), -1);
	lz_err_clear(&err);
	proto_buf_clear(&b);

	proto_put(&b, "\x01", 1);
	proto_put32(&b, 1);
	proto_putstr(&b, "Bad Kind");
	proto_putstr(&b, "");
	proto_putstr(&b, "t");
	assert_int_equal(proto_decode_note(b.data, b.len, &out, &err), -1);
	assert_non_null(strstr(err.msg, "kind"));
	lz_err_clear(&err);
	proto_buf_clear(&b);

	memset(big, 'y', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	proto_put(&b, "\x01", 1);
	proto_put32(&b, 1);
	proto_putstr(&b, "k");
	proto_putstr(&b, "");
	proto_putstr(&b, big);
	assert_int_equal(proto_decode_note(b.data, b.len, &out, &err), -1);
	assert_non_null(strstr(err.msg, "text over"));
	lz_err_clear(&err);
	proto_buf_clear(&b);
}

/* What proto_buf_frames handed to the callback, and when to say stop. */
struct seen {
	uint16_t type[8];
	uint32_t id[8];
	int n;
	int stop_after;		/* 0: never */
};

static int
seen_cb(const struct proto_header *h, const uint8_t *payload, void *arg)
{
	struct seen *s = arg;
	lz_err_t err = LZ_ERR_INIT;

	assert_true(s->n < 8);
	s->type[s->n] = h->type;
	assert_int_equal(proto_decode_u32(payload, h->length, &s->id[s->n], &err), 0);
	s->n++;
	return s->stop_after != 0 && s->n >= s->stop_after;
}

static void
test_proto_buf_frames_hands_out_whole_frames_and_keeps_a_partial_one(void **state)
{
	struct proto_buf b = { 0 }, wire = { 0 };
	struct seen s = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	size_t two;

	(void)state;
	proto_encode_eof(&wire, 1);
	proto_encode_detach(&wire, 2);
	two = wire.len;
	proto_encode_kill(&wire, 3);
	/* The stream arrives cut in the middle of the third frame. */
	proto_put(&b, wire.data, two + 5);
	assert_int_equal(proto_buf_frames(&b, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.type[0], PROTO_EOF);
	assert_int_equal(s.id[0], 1);
	assert_int_equal(s.type[1], PROTO_DETACH);
	assert_int_equal(s.id[1], 2);
	assert_int_equal(b.len, 5);
	/* Nothing whole yet: nothing handed out, nothing dropped. */
	assert_int_equal(proto_buf_frames(&b, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(b.len, 5);
	proto_put(&b, wire.data + two + 5, wire.len - two - 5);
	assert_int_equal(proto_buf_frames(&b, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.type[2], PROTO_KILL);
	assert_int_equal(s.id[2], 3);
	assert_int_equal(b.len, 0);
	proto_buf_clear(&b);
	proto_buf_clear(&wire);
}

static void
test_proto_buf_frames_stops_when_told_and_keeps_the_rest(void **state)
{
	struct proto_buf b = { 0 };
	struct seen s = { .stop_after = 1 };
	lz_err_t err = LZ_ERR_INIT;
	size_t second;

	(void)state;
	proto_encode_eof(&b, 7);
	second = b.len;
	proto_encode_eof(&b, 8);
	second = b.len - second;
	assert_int_equal(proto_buf_frames(&b, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.id[0], 7);
	assert_int_equal(b.len, second);
	s.stop_after = 0;
	assert_int_equal(proto_buf_frames(&b, seen_cb, &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.id[1], 8);
	assert_int_equal(b.len, 0);
	proto_buf_clear(&b);
}

static void
test_proto_buf_frames_reports_a_bad_frame_after_the_good_ones(void **state)
{
	struct proto_buf b = { 0 };
	struct seen s = { 0 };
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	proto_encode_eof(&b, 4);
	proto_put(&b, "GET / HTTP/1.1\r\n", 16);
	assert_int_equal(proto_buf_frames(&b, seen_cb, &s, &err), -1);
	assert_int_equal(err.code, PROTO_E_BAD_FRAME);
	assert_non_null(strstr(err.msg, "magic"));
	lz_err_clear(&err);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.id[0], 4);
	/* The good frame is gone, the bad bytes stay. */
	assert_int_equal(b.len, 16);
	assert_memory_equal(b.data, "GET ", 4);
	proto_buf_clear(&b);
	/* A frame of another version is an error with its own code. */
	proto_encode_raw(&b, PROTO_VERSION + 1, PROTO_EOF, "\0\0\0\1", 4);
	assert_int_equal(proto_buf_frames(&b, seen_cb, &s, &err), -1);
	assert_int_equal(err.code, PROTO_E_VERSION);
	lz_err_clear(&err);
	assert_int_equal(s.n, 1);
	proto_buf_clear(&b);
}

static void
test_proto_buf_space_grows_only_when_short(void **state)
{
	struct proto_buf b = { 0 };
	uint8_t *p, *q;
	size_t room;

	(void)state;
	p = proto_buf_space(&b, 100, &room);
	assert_non_null(p);
	assert_int_equal(room, 100);
	memset(p, 'x', 30);
	b.len += 30;
	/* 70 free: asking for 50 keeps the buffer as it is. */
	q = proto_buf_space(&b, 50, &room);
	assert_ptr_equal(q, b.data + 30);
	assert_int_equal(room, 70);
	assert_int_equal(b.cap, 100);
	/* Asking for more grows it to exactly len + n, the bytes kept. */
	q = proto_buf_space(&b, 200, NULL);
	assert_int_equal(b.cap, 230);
	assert_ptr_equal(q, b.data + 30);
	assert_memory_equal(b.data, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 30);
	proto_buf_clear(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proto_hello_round_trips),
		cmocka_unit_test(test_proto_suspect_round_trips_and_checks_its_layout),
		cmocka_unit_test(test_proto_short_header_needs_more),
		cmocka_unit_test(test_proto_rejects_bad_magic),
		cmocka_unit_test(test_proto_wrong_version_is_reported_with_header),
		cmocka_unit_test(test_proto_rejects_oversize_length_before_payload),
		cmocka_unit_test(test_proto_unknown_type_parses_but_is_unknown),
		cmocka_unit_test(test_proto_truncated_payload_needs_more),
		cmocka_unit_test(test_proto_two_frames_in_one_buffer),
		cmocka_unit_test(test_proto_buf_frames_hands_out_whole_frames_and_keeps_a_partial_one),
		cmocka_unit_test(test_proto_buf_frames_stops_when_told_and_keeps_the_rest),
		cmocka_unit_test(test_proto_buf_frames_reports_a_bad_frame_after_the_good_ones),
		cmocka_unit_test(test_proto_buf_space_grows_only_when_short),
		cmocka_unit_test(test_proto_new_session_round_trips),
		cmocka_unit_test(test_proto_new_session_rejects_every_truncation),
		cmocka_unit_test(test_proto_new_session_rejects_huge_argc_without_allocating),
		cmocka_unit_test(test_proto_string_length_past_end_is_refused),
		cmocka_unit_test(test_proto_nul_inside_string_is_refused),
		cmocka_unit_test(test_proto_trailing_bytes_are_refused),
		cmocka_unit_test(test_proto_data_and_exit_round_trip),
		cmocka_unit_test(test_proto_exit_without_flags_from_an_older_coordinator),
		cmocka_unit_test(test_proto_data_rejects_unknown_stream),
		cmocka_unit_test(test_proto_error_and_status_text_round_trip),
		cmocka_unit_test(test_proto_note_round_trips_and_cuts_text),
		cmocka_unit_test(test_proto_note_rejects_bad_payloads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
