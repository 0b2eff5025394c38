/* fuzz-grant.c - libFuzzer harness: a grant's preview and widenings. The
 * entry comes from a human's --widen, the destination name from the agent's
 * DNS query: first byte picks the destination's port, then "entry\nname". */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "grant.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[600];
	struct grant_dest d = { .family = AF_INET, .addr = { 140, 82, 112, 3 } };
	struct grant_candidate c[GRANT_HOW_N];
	struct grant_reach r;
	lz_err_t err = LZ_ERR_INIT;
	char *nl;
	size_t n, i;

	if (size < 1 || size > sizeof s - 1)
		return 0;
	d.port = data[0] % 4 == 0 ? 0 : (uint16_t)(data[0] * 251);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if ((nl = strchr(s, '\n')) != NULL) {
		*nl = '\0';
		d.name = nl + 1;
	}
	if (grant_preview(s, &d, &r, &err) == 0) {
		if (strlen(r.text) >= sizeof r.text || (r.broad && r.why_broad[0] == '\0'))
			abort();
	} else if (err.msg == NULL)
		abort();
	lz_err_clear(&err);
	if (d.name != NULL && data[0] & 1)
		d.family = 0;
	n = grant_candidates(&d, c, GRANT_HOW_N);
	for (i = 0; i < n; i++)
		/* Every widening parses and lets the destination through. */
		if (grant_preview(c[i].entry, &d, &r, NULL) < 0 || !r.covers)
			abort();
	return 0;
}
