/* fuzz-grants.c - libFuzzer harness: a grants file or a preset file (one
 * allow_egress entry a line, '#' notes); every entry it keeps parses again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "egress.h"
#include "grants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct grants g;
	struct egress_entry e;
	lz_err_t err = LZ_ERR_INIT;
	size_t i;

	if (grants_parse("f.list", (const char *)data, size, &g, &err) < 0) {
		if (err.msg == NULL || strncmp(err.msg, "f.list", 6) != 0)
			abort();
		lz_err_clear(&err);
		return 0;
	}
	for (i = 0; i < g.n; i++)
		if (egress_entry_parse(g.v[i].entry, &e, NULL) < 0 || g.v[i].line < 1 ||
		    strlen(g.v[i].note) > GRANTS_NOTE_MAX || strchr(g.v[i].note, '\n') != NULL)
			abort();
	grants_clear(&g);
	return 0;
}
