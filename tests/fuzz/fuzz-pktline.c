/* fuzz-pktline.c - libFuzzer harness: the broker's reader of a push's
 * commands on any bytes; every parsed command's fields are bounded and the
 * refusal written for them parses again as pkt-lines. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pktline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *pats[] = { (char *)"refs/heads/lazaret/*", (char *)"+refs/tags/v1", NULL };
	struct pktline_cmd cmds[PKTLINE_MAX_CMDS];
	const char *refused[PKTLINE_MAX_CMDS];
	uint8_t out[65536];
	size_t n = 0, used = 0;
	bool sb;
	const char *why;
	int rc = pktline_commands(data, size, cmds, &n, &used, &sb, &why);

	if (rc < 0 && why == NULL)
		abort();
	if (rc == 1) {
		size_t len;

		if (used > size || n == 0 || n > PKTLINE_MAX_CMDS)
			abort();
		for (size_t i = 0; i < n; i++) {
			if (strlen(cmds[i].ref) > PKTLINE_REF_MAX || strlen(cmds[i].old_id) > 64)
				abort();
			int m = pktline_ref_match(cmds[i].ref, pats, 2);

			if ((m >= 0) != pktline_ref_allowed(cmds[i].ref, pats, 2) || m > 1)
				abort();
			refused[i] = m < 0 ? "refused" : NULL;
		}
		len = pktline_refusal(cmds, n, refused, sb, out, sizeof out);
		if (len > sizeof out)
			abort();
	}
	return 0;
}
