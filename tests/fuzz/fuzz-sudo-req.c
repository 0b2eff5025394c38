/* fuzz-sudo-req.c - libFuzzer harness: the holder's parse of a sudo request
 * (sudo-req.c, bytes from a process of the agent user) never reads past the
 * body, and what it accepts encodes back to the very same bytes; the passwd
 * lookup that picks the agent user (passwd.c) never reads past its text. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sudo-req.h"
#include "xmalloc.h"

/* The passwd lookup is pure; built into this harness by itself. */
#include "sandbox/mounts/passwd.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = xmalloc(size + 1), *out;
	lz_err_t err = LZ_ERR_INIT;
	struct sudo_req r;
	unsigned gid;
	size_t len;

	memcpy(buf, data, size);	/* exactly size bytes readable, no NUL after */
	if (sudo_req_parse(buf, size, &r, &err) == 0) {
		LZ_ASSERT(sudo_req_encode(r.cwd, r.argv, r.env, &out, &len, &err) == 0);
		LZ_ASSERT(len == size + 4 && memcmp(out + 4, buf, size) == 0);
		free(out);
		sudo_req_clear(&r);
	} else {
		LZ_ASSERT(err.msg != NULL);
		lz_err_clear(&err);
	}
	(void)passwd_find((const char *)buf, size, 1000, &gid);
	free(buf);
	return 0;
}
