/* fuzz-proto.c - libFuzzer harness: cut the input into control frames and run
 * every payload decoder on it, as the coordinator and the client do. */
#include <stdint.h>
#include <stdlib.h>

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
	struct proto_suspect sus;
	uint32_t u;
	char *t;

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
	if (proto_decode_suspect(p, n, &sus, &err) == 0)
		proto_suspect_clear(&sus);
	lz_err_clear(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;
	size_t off = 0;
	int r;

	/* The raw input as one payload, then as a stream of frames. */
	fuzz_payload(0, data, size);
	while (off < size) {
		r = proto_frame_parse(data + off, size - off, &h, &p, &err);
		if (r <= 0)
			break;
		(void)proto_type_name(h.type);
		fuzz_payload(h.type, p, h.length);
		off += PROTO_HEADER_LEN + h.length;
	}
	lz_err_clear(&err);
	return 0;
}
