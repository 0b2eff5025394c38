/* fuzz-httpreq.c - libFuzzer harness: the credential broker's request reader
 * on any bytes, then the allow rules and the chunked-body scanner (fed in
 * two pieces, as the network would) on whatever follows the head. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "httpreq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *rules[] = { (char *)"POST /v1/messages", (char *)"* /api/", NULL };
	struct httpreq r;
	struct httpreq_chunk c = { 0 };
	int rc = httpreq_parse(data, size, &r);

	if (rc < 0 && (r.status < 400 || r.reason == NULL))
		abort();
	if (rc == 1) {
		size_t rest = size - r.head_len, half = rest / 2;
		long a, b = 0;

		if (r.head_len > size || r.target.off + r.target.len > r.head_len ||
		    data[r.target.off] != '/' || r.nhdr > HTTPREQ_MAX_HEADERS)
			abort();
		for (size_t i = 0; i < r.nhdr; i++)
			if (r.hdr[i].value.off + r.hdr[i].value.len > r.head_len)
				abort();
		(void)httpreq_allowed(&r, data, rules, 2);
		a = httpreq_chunk_scan(&c, data + r.head_len, half);
		if (a >= 0 && !c.done)
			b = httpreq_chunk_scan(&c, data + r.head_len + half, rest - half);
		if (a > (long)half || b > (long)(rest - half))
			abort();
	}
	return 0;
}
