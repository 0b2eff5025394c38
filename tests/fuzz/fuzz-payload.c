/* fuzz-payload.c - libFuzzer harness for the escalation request parser and
 * frame decoders: never crashes, and what parses re-encodes to the same
 * request. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "esc-payload.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct esc_payload p, q;
	struct esc_payload_result r;
	lz_err_t err = LZ_ERR_INIT;
	const uint8_t *d;
	uint8_t stream, *c1, *c2;
	size_t n, l1, l2;

	if (esc_payload_decode_result(data, size, &r, &err) == 0)
		esc_payload_result_clear(&r);
	lz_err_clear(&err);
	(void)esc_payload_decode_output(data, size, &stream, &d, &n, &err);
	lz_err_clear(&err);
	if (esc_payload_parse(data, size, &p, &err) < 0) {
		LZ_ASSERT(p.command == NULL && err.msg != NULL);
		lz_err_clear(&err);
		return 0;
	}
	{
		char *json = esc_payload_encode(&p);

		LZ_ASSERT(esc_payload_parse((const uint8_t *)json, strlen(json), &q, &err) == 0);
		free(json);
	}
	esc_payload_canonical(&p, &c1, &l1);
	esc_payload_canonical(&q, &c2, &l2);
	LZ_ASSERT(l1 == l2 && memcmp(c1, c2, l1) == 0);
	LZ_ASSERT(memcmp(p.signature, q.signature, ESC_SIG_LEN) == 0);
	free(c1);
	free(c2);
	esc_payload_clear(&p);
	esc_payload_clear(&q);
	return 0;
}
