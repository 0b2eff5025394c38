/* fuzz-anchor-record.c - libFuzzer harness: a domain record (coordinator.up,
 * which `lazaret ls` and `lazaret stop --all` read from the data directory)
 * never crashes the parser, and what it accepts is a valid profile name and
 * an absolute workspace that survive a round trip. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anchor.h"
#include "config.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lz_err_t err = LZ_ERR_INIT;
	char *p = NULL, *w = NULL, *p2 = NULL, *w2 = NULL, *buf;
	size_t lp, lw;

	if (anchor_record_parse((const char *)data, size, &p, &w, &err) < 0) {
		LZ_ASSERT(p == NULL && w == NULL && err.msg != NULL);
		lz_err_clear(&err);
		return 0;
	}
	LZ_ASSERT(cfg_profile_name_valid(p) && w[0] == '/');
	lp = strlen(p) + 1;
	lw = strlen(w) + 1;
	buf = xmalloc(lp + lw);
	memcpy(buf, p, lp);
	memcpy(buf + lp, w, lw);
	LZ_ASSERT(anchor_record_parse(buf, lp + lw, &p2, &w2, &err) == 0);
	LZ_ASSERT(strcmp(p, p2) == 0 && strcmp(w, w2) == 0);
	free(buf);
	free(p);
	free(w);
	free(p2);
	free(w2);
	return 0;
}
