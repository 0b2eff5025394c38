/* fuzz-term-filter.c - libFuzzer harness for the output/key filter of
 * `lazaret run` (make fuzz). First byte: bit 0 picks the mode (output or
 * keys), the rest of it a chunk size. The rest is fed whole and in chunks:
 * both give the same bytes, within the documented bound, and filtering the
 * output again changes nothing (only allowed, whole units come out). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "term-filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct term_filter f;
	enum term_filter_mode mode;
	uint8_t *whole, *part, *again;
	size_t n, w, p, a, i, chunk;

	if (size < 1)
		return 0;
	mode = (data[0] & 1) ? TERM_FILTER_KEYS : TERM_FILTER_OUTPUT;
	chunk = (size_t)(data[0] >> 1) + 1;
	data++;
	n = size - 1;
	whole = malloc(n + TERM_FILTER_SLACK);
	part = malloc(n + TERM_FILTER_SLACK);
	again = malloc(n + 2 * TERM_FILTER_SLACK);
	term_filter_init(&f, mode);
	w = term_filter_feed(&f, data, n, whole);
	if (w > n + TERM_FILTER_SLACK)
		abort();
	term_filter_init(&f, mode);
	p = 0;
	for (i = 0; i < n; i += chunk) {
		size_t k = n - i < chunk ? n - i : chunk;
		size_t o = term_filter_feed(&f, data + i, k, part + p);

		if (o > k + TERM_FILTER_SLACK)
			abort();
		p += o;
	}
	if (p != w || memcmp(part, whole, w) != 0)
		abort();
	term_filter_init(&f, mode);
	a = term_filter_feed(&f, whole, w, again);
	if (a != w || memcmp(again, whole, w) != 0 || term_filter_pending(&f) || f.dropped != 0)
		abort();
	free(whole);
	free(part);
	free(again);
	return 0;
}
