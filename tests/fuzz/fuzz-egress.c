/* fuzz-egress.c - libFuzzer harness: allow_egress entries (config, `lazaret
 * egress allow`, the sidecar's control socket): parse, format, parse again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "egress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[EGRESS_ENTRY_MAX + 2];
	struct egress_entry e, again;
	lz_err_t err = LZ_ERR_INIT;
	char *text;

	if (size > EGRESS_ENTRY_MAX + 1)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (egress_entry_parse(s, &e, &err) < 0) {
		if (err.msg == NULL)
			abort();
		lz_err_clear(&err);
		return 0;
	}
	/* The canonical form parses back to the same entry. */
	text = egress_entry_format(&e);
	if (egress_entry_parse(text, &again, &err) < 0 || !egress_entry_equal(&e, &again))
		abort();
	(void)egress_entry_guard(&e);
	(void)egress_domain_match(&e, "a.example.com");
	free(text);
	lz_err_clear(&err);
	return 0;
}
