/* review-big.h - files of the agent checkout too big to read for review
 * (review-big.c). */
#ifndef LZ_REVIEW_BIG_H
#define LZ_REVIEW_BIG_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define REVIEW_BIG_MAX 256	/* files over the cap one review stands in for */

struct review_big {
	char **paths;		/* relative to the checkout, NULL-terminated */
	uint64_t *sizes;
	size_t n;
	uint64_t cap;
};

/* The regular files below top larger than cap bytes (0: none looked for),
 * .git directories skipped; free with review_big_clear. */
int review_big_find(const char *top, uint64_t cap, struct review_big *b, lz_err_t *err);
/* The placeholder text of file i (caller frees). */
char *review_big_text(const struct review_big *b, size_t i);
void review_big_clear(struct review_big *b);

#endif
