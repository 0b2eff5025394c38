/* fuzz-cfgz.c - libFuzzer harness: `git config -z --show-origin
 * --get-regexp` output as the Sentry reads it (sentry-cfgz.c) never reads
 * past the output, each key has no '\n' in it, and every record moves on. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sandbox/sentry/sentry-int.h"
#include "xmalloc.h"

/* The parser is pure; built into this harness by itself. */
#include "sandbox/sentry/sentry-cfgz.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* As the Sentry gets it: git's bytes, then the capture's NUL. */
	char *buf = xmalloc(size + 1);
	const char *pos = buf, *end = buf + size;
	struct sentry_cfgz c;

	memcpy(buf, data, size);
	buf[size] = '\0';
	while (sentry_cfgz_next(&pos, end, &c)) {
		LZ_ASSERT(c.origin >= buf && c.key > c.origin && c.key + c.klen <= end);
		LZ_ASSERT(memchr(c.key, '\n', c.klen) == NULL);
		LZ_ASSERT(c.value == NULL || (c.value == c.key + c.klen + 1 && c.value <= end));
		LZ_ASSERT(pos > c.key && pos <= end + 1);
	}
	free(buf);
	return 0;
}
