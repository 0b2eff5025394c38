/* fuzz-reqview.c - libFuzzer harness: an escalation request laid out for a
 * human never crashes, every line is printable and fits its width, and the
 * command lines hold every byte of the shown command; the decision machine
 * takes any key sequence. Input: width byte, then NUL-separated words; the
 * last piece is the justification; the whole input is also fed as keys. */
#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reqview.h"
#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A line shows no control character (C0, DEL, C1) and nothing invalid. */
static void
check_printable(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;

	while (i < len) {
		uint32_t cp = 0;
		size_t n = lz_shellwords_utf8(p + i, len - i, &cp);

		LZ_ASSERT(n > 0);
		LZ_ASSERT(cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f));
		i += n;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool init;
	char **argv = NULL, *why, *joined;
	struct reqview_request req = { .request_id = "id", .profile = "p" };
	struct reqview_confirm c;
	struct reqview *v;
	size_t off = 1, start;
	uint64_t t = 0;
	int width;

	if (!init) {
		setlocale(LC_ALL, "C.UTF-8");
		init = true;
	}
	if (size < 1)
		return 0;
	width = 16 + data[0] % 120;
	for (start = off; off < size; off++)
		if (data[off] == 0) {
			char *w = xstrndup((const char *)data + start, off - start);

			lz_strv_push(&argv, w);
			free(w);
			start = off + 1;
		}
	why = xstrndup((const char *)data + start, size - start);
	req.justification = why;
	req.argv = argv;
	if (argv == NULL) {
		req.argv = NULL;
		req.command = why;	/* a command line instead: split here */
	}
	v = reqview_new(&req, width, 0);
	for (size_t i = 0; i < v->n; i++) {
		check_printable(v->lines[i].text);
		LZ_ASSERT(reqview_width(v->lines[i].text) <= width);
	}
	if (argv != NULL) {
		LZ_ASSERT(v->words == lz_strv_len(argv));
		joined = reqview_command(argv);
		check_printable(joined);
		free(joined);
	}
	reqview_free(v);
	reqview_confirm_start(&c, 0);
	for (size_t i = 0; i < size; i++) {
		t += (uint64_t)(data[i] & 0x0f) * 50;
		(void)reqview_confirm_key(&c, data[i] == 0xff ? REQVIEW_KEY_META | '[' : data[i], t);
		(void)reqview_confirm_arm_in(&c, t);
	}
	lz_strv_free(argv);
	free(why);
	return 0;
}
