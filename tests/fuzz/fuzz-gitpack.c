/* fuzz-gitpack.c - libFuzzer harness: the broker's reader of a push's pack
 * (gitpack.c) on any bytes, and the walk from every commit it found to
 * every other and to an id not in the pack. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gitpack *g = NULL;
	const char *why = NULL;
	size_t idlen = size > 0 && (data[0] & 1) ? 32 : 20;

	if (gitpack_read(data + (size > 0), size - (size > 0), idlen, &g, &why) < 0) {
		if (why == NULL || g != NULL)
			abort();
		return 0;
	}
	for (size_t i = 0; i < gitpack_commits(g) && i < 16; i++) {
		char a[65], b[65];

		gitpack_commit_hex(g, i, a);
		if (strlen(a) != idlen * 2 || gitpack_descends(g, a, a) != GITPACK_DESCENDS)
			abort();
		for (size_t j = 0; j < gitpack_commits(g) && j < 16; j++) {
			gitpack_commit_hex(g, j, b);
			(void)gitpack_descends(g, a, b);
		}
		memset(b, '7', idlen * 2);
		b[idlen * 2] = '\0';
		(void)gitpack_descends(g, a, b);
	}
	gitpack_free(g);
	return 0;
}
