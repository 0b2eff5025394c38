/* fuzz-netreq.c - libFuzzer harness: network request frames as the
 * coordinator reads them from clients and the router, and as clients read
 * them back: every netreq decoder on every payload. */
#include <stdint.h>
#include <stdlib.h>

#include "netreq-text.h"
#include "netreq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	while (size > 0) {
		struct proto_header h;
		const uint8_t *p;
		lz_err_t err = LZ_ERR_INIT;
		struct netreq_item it;
		struct netreq_summary s;
		struct netreq_decision d;
		struct netreq_result r;
		struct netreq_grant *g;
		uint32_t u, v;
		bool on;
		size_t n;
		char *e;
		int rc = proto_frame_parse(data, size, &h, &p, &err);

		lz_err_clear(&err);
		if (rc != PROTO_FRAME)
			break;
		(void)netreq_decode_list(p, h.length, &u, &err);
		lz_err_clear(&err);
		(void)netreq_decode_hold(p, h.length, &u, &on, &err);
		lz_err_clear(&err);
		if (netreq_decode_item(p, h.length, &it, &err) == 0)
			free(netreq_text_item(&it, (h.flags & 1) != 0));
		lz_err_clear(&err);
		(void)netreq_decode_summary(p, h.length, &s, &err);
		lz_err_clear(&err);
		(void)netreq_decode_decision(p, h.length, &d, &err);
		lz_err_clear(&err);
		(void)netreq_decode_result(p, h.length, &r, &err);
		lz_err_clear(&err);
		if (netreq_decode_grants(p, h.length, &g, &n, &err) == 0)
			free(g);
		lz_err_clear(&err);
		if (netreq_decode_verdict(p, h.length, &u, &v, &e, &err) == 0)
			free(e);
		lz_err_clear(&err);
		data += PROTO_HEADER_LEN + h.length;
		size -= PROTO_HEADER_LEN + h.length;
	}
	return 0;
}
