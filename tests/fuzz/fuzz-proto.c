/* fuzz-proto.c - libFuzzer harness: read the input as a control-socket stream
 * (proto_buf_space, proto_buf_frames) and run every payload decoder on each
 * frame, as the coordinator and the clients do. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_payload(uint16_t type, const uint8_t *p, size_t n)
{
	lz_err_t err = LZ_ERR_INIT;
	struct proto_hello hello;
	struct proto_error e;
	struct proto_new_session ns;
	struct proto_session s;
	struct proto_data d;
	struct proto_resize rz;
	struct proto_exit ex;
	enum proto_status_fmt fmt;
	struct proto_note note;
	struct proto_suspect sus;
	uint32_t u;
	char *t, *pair;

	/* Every decoder on every payload, not only the one its type names. */
	(void)type;
	if (proto_decode_hello(p, n, &hello, &err) < 0)
		lz_err_clear(&err);
	if (proto_decode_error(p, n, &e, &err) == 0)
		proto_error_clear(&e);
	lz_err_clear(&err);
	if (proto_decode_new_session(p, n, &ns, &err) == 0)
		proto_new_session_clear(&ns);
	lz_err_clear(&err);
	if (proto_decode_session(p, n, &s, &err) < 0)
		lz_err_clear(&err);
	if (proto_decode_data(p, n, &d, &err) == 0 && d.len > 0 && d.data[d.len - 1] == 0xff)
		u = 1;
	lz_err_clear(&err);
	if (proto_decode_resize(p, n, &rz, &err) < 0)
		lz_err_clear(&err);
	if (proto_decode_exit(p, n, &ex, &err) < 0)
		lz_err_clear(&err);
	if (proto_decode_status_req(p, n, &fmt, &err) < 0)
		lz_err_clear(&err);
	if (proto_decode_u32(p, n, &u, &err) < 0)
		lz_err_clear(&err);
	if (proto_decode_text(p, n, &t, &err) == 0)
		free(t);
	lz_err_clear(&err);
	if (proto_decode_note(p, n, &note, &err) == 0)
		proto_note_clear(&note);
	if (proto_decode_suspect(p, n, &sus, &err) == 0)
		proto_suspect_clear(&sus);
	lz_err_clear(&err);
	if (proto_decode_pair(p, n, &t, &pair) == 0) {
		free(t);
		free(pair);
	}
}

static int
fuzz_frame_cb(const struct proto_header *h, const uint8_t *p, void *arg)
{
	(void)arg;
	(void)proto_type_name(h->type);
	fuzz_payload(h->type, p, h->length);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_buf b = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	size_t off = 0, room, n, chunk;
	uint8_t *dst;

	/* The raw input as one payload, then as a stream of frames read the way
	 * both ends of the control socket read it: in chunks (sized by the
	 * first byte) into proto_buf_space, whole frames out of proto_buf_frames. */
	fuzz_payload(0, data, size);
	chunk = size > 0 ? (size_t)data[0] * 37 + 1 : 1;
	while (off < size) {
		dst = proto_buf_space(&b, PROTO_READ_CHUNK, &room);
		n = size - off < chunk ? size - off : chunk;
		if (n > room)
			n = room;
		memcpy(dst, data + off, n);
		b.len += n;
		off += n;
		if (proto_buf_frames(&b, fuzz_frame_cb, NULL, &err) < 0)
			break;		/* the ends hang up on a bad frame */
	}
	lz_err_clear(&err);
	proto_buf_clear(&b);
	return 0;
}
