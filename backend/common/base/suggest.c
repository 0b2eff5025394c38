/* suggest.c - distance between words for "did you mean" (see suggest.h). */
#include <stdint.h>
#include <string.h>

#include "suggest.h"

size_t
lz_suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, v;
	size_t d[3][LZ_SUGGEST_MAX_LEN + 1];	/* rows i-2, i-1, i (mod 3) */

	if (la > LZ_SUGGEST_MAX_LEN || lb > LZ_SUGGEST_MAX_LEN)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		size_t *cur = d[i % 3], *up = d[(i - 1) % 3], *up2 = d[(i + 1) % 3];

		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			v = up[j - 1] + (a[i - 1] != b[j - 1]);
			if (up[j] + 1 < v)
				v = up[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    up2[j - 2] + 1 < v)
				v = up2[j - 2] + 1;
			cur[j] = v;
		}
	}
	return d[la % 3][lb];
}
