/* fuzz-shellwords.c - libFuzzer harness: split never crashes, the scan
 * agrees with itself, and join() then split() gives the same vector back. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lz_err_t err = LZ_ERR_INIT;
	char **v = NULL, **w = NULL, *joined;

	(void)lz_shellwords_scan((const char *)data, size);
	free(lz_shellwords_visible((const char *)data, size));
	if (lz_shellwords_split((const char *)data, size, &v, &err) < 0) {
		LZ_ASSERT(v == NULL && err.msg != NULL);
		lz_err_clear(&err);
		return 0;
	}
	joined = lz_shellwords_join(v);
	if (strlen(joined) <= LZ_SHELLWORDS_MAX_LEN) {
		LZ_ASSERT(lz_shellwords_split(joined, strlen(joined), &w, &err) == 0);
		LZ_ASSERT(lz_strv_len(v) == lz_strv_len(w));
		for (size_t i = 0; v[i] != NULL; i++)
			LZ_ASSERT(strcmp(v[i], w[i]) == 0);
	}
	lz_err_clear(&err);
	lz_strv_free(v);
	lz_strv_free(w);
	free(joined);
	return 0;
}
