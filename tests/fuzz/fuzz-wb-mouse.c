/* fuzz-wb-mouse.c - libFuzzer harness for the workbench's SGR mouse report
 * parser (make fuzz). Bytes are keys (0xff stands for KEY_MOUSE, as ncurses
 * hands it over); checks: never more keys out than in, one WB_MOUSE_KEY per
 * event, every event's coordinates in range. The parser touches no curses
 * function, so its file is compiled in here. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

#include "wb/core/wb-mouse.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int *keys = malloc((size + 1) * sizeof *keys);
	struct wb_mouse *evs = malloc((size + 1) * sizeof *evs);
	size_t n, n_evs, marks = 0;

	for (size_t i = 0; i < size; i++)
		keys[i] = data[i] == 0xff ? WB_MOUSE_KEY : data[i];
	n = wb_mouse_parse(keys, size, evs, size + 1, &n_evs);
	assert(n <= size);
	for (size_t i = 0; i < n; i++)
		marks += keys[i] == WB_MOUSE_KEY;
	assert(marks == n_evs);
	for (size_t i = 0; i < n_evs; i++) {
		assert(evs[i].x >= 0 && evs[i].x < WB_MOUSE_COORD_MAX);
		assert(evs[i].y >= 0 && evs[i].y < WB_MOUSE_COORD_MAX);
		assert(wb_mouse_button(&evs[i]) >= 0);
	}
	free(keys);
	free(evs);
	return 0;
}
