/* fuzz-netctl.c - libFuzzer harness: frames on the sidecar's control socket
 * (both directions), cut as the sidecar and the coordinator cut them, and
 * every netctl decoder on every payload. */
#include <stdint.h>
#include <stdlib.h>

#include "netctl.h"
#include "strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	while (size > 0) {
		struct proto_header h;
		const uint8_t *p;
		lz_err_t err = LZ_ERR_INIT;
		struct netctl_event ev;
		char **v, *s;
		size_t n;
		int r = proto_frame_parse(data, size, &h, &p, &err);

		lz_err_clear(&err);
		if (r != PROTO_FRAME)
			break;
		if (netctl_decode_list(p, h.length, &v, &n, &err) == 0)
			lz_strv_free(v);
		lz_err_clear(&err);
		if (netctl_decode_str(p, h.length, &s, &err) == 0)
			free(s);
		lz_err_clear(&err);
		(void)netctl_decode_event(p, h.length, &ev, &err);
		lz_err_clear(&err);
		data += PROTO_HEADER_LEN + h.length;
		size -= PROTO_HEADER_LEN + h.length;
	}
	return 0;
}
