/* fuzz-review-live.c - libFuzzer harness: a SENTRY_CTL_SYNC payload as the
 * coordinator decodes it (review-live.c): never reads past the payload,
 * and what it accepts is a branch name without ".." and a notice without
 * control characters (it is printed in the agent's terminals). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "review/review-live.h"

/* The decoder is pure; built into this harness by itself. */
#include "review/review-live.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lz_err_t err = LZ_ERR_INIT;
	char *t, *n;
	size_t i;

	if (review_live_decode(data, size, &t, &n, &err) < 0) {
		lz_err_clear(&err);
		return 0;
	}
	if (strstr(t, "..") != NULL)
		abort();
	for (i = 0; n[i] != '\0'; i++)
		if ((unsigned char)n[i] < ' ' || n[i] == 0x7f)
			abort();
	free(t);
	free(n);
	return 0;
}
