/* fuzz-audit-line.c - libFuzzer harness: any stored detail (and actor) gives
 * one line, ending in its only newline, with no control byte in it: the
 * audit trail is printed on the host's terminal. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/audit-line.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const kinds[] = {
		"esc.request", "esc.decision", "esc.result", "esc.refused", "session.start",
	};
	char *in = xstrndup((const char *)data, size), *line;
	const char *kind = kinds[size % (sizeof kinds / sizeof kinds[0])];
	size_t i, n;

	/* the input as detail, and its first 40 bytes as the actor */
	line = audit_line_format((int64_t)size, (int64_t)size * 1000, kind,
	    size > 40 ? "" : in, in, in);
	n = strlen(line);
	LZ_ASSERT(n > 0 && line[n - 1] == '\n');
	for (i = 0; i + 1 < n; i++)
		LZ_ASSERT((unsigned char)line[i] >= 0x20 && line[i] != 0x7f);
	free(line);
	free(in);
	return 0;
}
