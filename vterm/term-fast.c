/* term-fast.c - plain lines cut into scrollback rows (see term-fast.h).
 *
 * Theory of operation: with the cursor at column 0 of the bottom row of a
 * full-screen scroll region, autowrap on, each plain line of n characters
 * followed by CR LF scrolls max(1, ceil(n / cols)) rows: the characters
 * wrap at the right edge, and a line of exactly cols characters leaves the
 * cursor in the pending-wrap state that CR clears, so it takes one row.
 * Every row it fills starts as a freshly erased row (same pen, since no
 * escape sequence intervenes) and gets its characters at columns 0.., so
 * the rows are fully known without libvterm: a row is its text.
 */
#include <stdint.h>
#include <string.h>

#include "term-fast.h"

static bool
plain_byte(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e;
}

/* Eight at a time: a word has a byte < 0x20 or > 0x7e exactly when one of
 * the two tests sets a high bit (bytes >= 0x80 set both). */
size_t
term_fast_plain_span(const unsigned char *p, size_t len)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
	size_t i = 0;
	uint64_t w;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		if ((((w - ones * 0x20) & ~w) | ((w + ones) | w)) & high)
			break;
	}
	while (i < len && plain_byte(p[i]))
		i++;
	return i;
}

static size_t
line_rows(size_t n, int cols)
{
	return n == 0 ? 1 : (n + (size_t)cols - 1) / (size_t)cols;
}

bool
term_fast_plan(const unsigned char *p, size_t len, int rows, int cols,
    struct term_fast_plan *out)
{
	size_t i = 0, total = 0, run_end = 0, fed = 0, start;
	bool any_text = false, got_text = false;

	memset(out, 0, sizeof(*out));
	for (;;) {
		start = i;
		i += term_fast_plain_span(p + i, len - i);
		if (i + 1 >= len || p[i] != '\r' || p[i + 1] != '\n')
			break;
		total += line_rows(i - start, cols);
		any_text |= i > start;
		i += 2;
		run_end = i;
	}
	out->run_end = run_end;
	/* Walk back over whole lines until libvterm has enough to see. */
	i = run_end;
	while (i > 0 && (fed + 1 < (size_t)rows || (any_text && !got_text))) {
		size_t end = i - 2;	/* the line's CR */
		const unsigned char *nl = end > 0 ? memrchr(p, '\n', end) : NULL;

		start = nl != NULL ? (size_t)(nl - p) + 1 : 0;
		fed += line_rows(end - start, cols);
		got_text |= end > start;
		i = start;
	}
	if (i == 0 || total - fed < (size_t)rows)
		return false;
	out->skip_end = i;
	out->skip_rows = total - fed;
	return true;
}

size_t
term_fast_count(const unsigned char *p, size_t len, int cols)
{
	size_t i = 0, rows = 0;

	while (i < len) {
		const unsigned char *cr = memchr(p + i, '\r', len - i);
		size_t start = i;

		i = cr != NULL ? (size_t)(cr - p) : len;
		rows += line_rows(i - start, cols);
		i += 2;
	}
	return rows;
}

void
term_fast_rows(const unsigned char *p, size_t len, int cols, term_fast_row_cb row, void *arg)
{
	size_t i = 0;

	while (i < len) {
		const unsigned char *cr = memchr(p + i, '\r', len - i);
		size_t start = i, n;

		i = cr != NULL ? (size_t)(cr - p) : len;
		n = i - start;
		i += 2;		/* CR LF */
		do {
			size_t k = n < (size_t)cols ? n : (size_t)cols;

			row(arg, p + start, k);
			start += k;
			n -= k;
		} while (n > 0);
	}
}
