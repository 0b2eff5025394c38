/* suggest.h - how far apart two words are, for "did you mean" answers (config
 * keys and profile names, lazaret's commands). */
#ifndef LZ_SUGGEST_H
#define LZ_SUGGEST_H

#include <stddef.h>

/* Longer words are never compared: lz_suggest_distance gives SIZE_MAX. */
#define LZ_SUGGEST_MAX_LEN	64

/* Optimal string alignment distance: an insertion, a deletion, a
 * substitution or a swap of two neighbours counts 1. */
size_t lz_suggest_distance(const char *a, const char *b);

#endif
