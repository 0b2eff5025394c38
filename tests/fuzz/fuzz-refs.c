/* fuzz-refs.c - libFuzzer harness: the agent's packed-refs as the import
 * reads it (sentry-refs.c) never crashes, keeps only refs whose name passes
 * sentry_refname_ok and whose id is hex of the right length, and never
 * keeps more than SENTRY_REFS_MAX. The first input byte picks sha1/sha256. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sandbox/sentry/sentry-int.h"
#include "xmalloc.h"

/* The parser is pure; built into this harness by itself. */
#include "sandbox/sentry/sentry-refs.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sentry_refs r;
	unsigned hexlen;
	size_t i;

	if (size == 0)
		return 0;
	hexlen = (data[0] & 1) ? 64 : 40;
	memset(&r, 0, sizeof r);
	if (sentry_packed_refs_parse((const char *)data + 1, size - 1, hexlen, &r) == 0) {
		LZ_ASSERT(r.n <= SENTRY_REFS_MAX);
		for (i = 0; i < r.n; i++) {
			LZ_ASSERT(sentry_refname_ok(r.v[i].name, strlen(r.v[i].name)));
			LZ_ASSERT(sentry_hex_ok(r.v[i].hex, strlen(r.v[i].hex), hexlen));
		}
	}
	sentry_refs_clear(&r);
	return 0;
}
