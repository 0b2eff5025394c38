/* fuzz-term-fast.c - libFuzzer harness for term.c's plain-line fast path
 * (make fuzz): the fuzzer's bytes pick a stream of PTY output, its chunk
 * boundaries, resizes and view scrolls (tests/fuzz/term-diff.h); a terminal
 * with the fast path and one fed through libvterm only must agree on the
 * screen, cursor, modes, scrollback and replies after every chunk. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "term-diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdiff_src s = { .p = data, .n = size };
	const char *why = tdiff_run(&s, 400, NULL);

	if (why != NULL) {
		fprintf(stderr, "fuzz-term-fast: %s\n", why);
		abort();
	}
	return 0;
}
