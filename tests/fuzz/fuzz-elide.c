/* fuzz-elide.c - libFuzzer harness: any line from the wire (a name, an
 * audit row) cut in the middle for the screen never crashes, never grows
 * past its marks, and a name cut to a budget fits it and keeps its end. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elide.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data + 1;
	size_t len = size > 0 ? size - 1 : 0, excess = size > 0 ? data[0] : 0;
	char *e, *n;

	if (size == 0)
		return 0;
	e = lz_elide_line(s, len, excess);
	if (e != NULL) {
		LZ_ASSERT(strlen(e) <= len + 17 * 3);
		free(e);
	}
	if (memchr(s, '\0', len) != NULL)
		return 0;
	n = lz_elide_name_n(s, len, excess);
	LZ_ASSERT(strlen(n) <= (excess >= len ? len : excess + 2));
	if (excess >= 2 && excess < len)
		LZ_ASSERT(n[strlen(n) - 1] == s[len - 1]);
	free(n);
	return 0;
}
