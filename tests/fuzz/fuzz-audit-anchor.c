/* fuzz-audit-anchor.c - libFuzzer harness: any anchor file (the user may
 * append anything to it) parses without a crash, into anchors sorted by seq,
 * one per seq, each positive. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/audit-anchor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct audit_anchors a;
	size_t i;

	memset(&a, 0, sizeof a);
	audit_anchor_parse((const char *)data, size, "/d/state.db", &a);
	if (a.n > a.n_lines)
		abort();
	for (i = 0; i < a.n; i++)
		if (a.v[i].seq < 1 || (i > 0 && a.v[i].seq <= a.v[i - 1].seq) ||
		    audit_anchor_find(&a, a.v[i].seq) != &a.v[i])
			abort();
	audit_anchors_clear(&a);
	return 0;
}
