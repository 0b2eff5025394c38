/* fuzz-diffview.c - the review view's diff pager (widgets/diffview.c) on
 * hostile diff bytes (the agent writes the files): the input is a script
 * of operations, feeding its own bytes in chunks, pressing keys, ending,
 * restarting and searching, in any order, as the workbench would. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "diffview.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int keys[] = { 'j', 'k', ' ', 'g', 'G', 'n', 'N', 'x',
		WIDGET_KEY_FN(KEY_NPAGE), WIDGET_KEY_FN(KEY_PPAGE), WIDGET_KEY_FN(KEY_HOME),
		WIDGET_KEY_FN(KEY_END) };
	struct diffview *dv = diffview_new();
	char pos[DIFFVIEW_SEARCH_MAX + 96], text[9];
	size_t i = 0, n, skip;

	while (i < size) {
		uint8_t op = data[i++];

		switch (op % 8) {
		case 0: case 1: case 2: case 3:
			n = i < size ? data[i++] * 16u : 0;
			n = n < size - i ? n : size - i;
			if (!diffview_at_eof(dv))
				diffview_feed(dv, (const char *)data + i, n);
			i += n;
			break;
		case 4:
			diffview_handle_key(dv, keys[(op / 8) % (sizeof keys / sizeof keys[0])]);
			break;
		case 5:
			diffview_eof(dv, op & 8);
			break;
		case 6:
			if (diffview_needs_restart(dv, &skip))
				diffview_restart(dv, skip);
			else
				diffview_restart(dv, (size_t)(op / 8) * 50);
			break;
		default:
			n = size - i < 8 ? size - i : 8;
			memcpy(text, data + i, n);
			text[n] = '\0';
			i += n;
			diffview_search(dv, text);
			break;
		}
		(void)diffview_wants(dv);
		diffview_position(dv, pos, sizeof pos);
	}
	diffview_clear(dv);
	diffview_free(dv);
	return 0;
}
