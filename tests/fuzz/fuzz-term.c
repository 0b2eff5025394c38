/* fuzz-term.c - libFuzzer harness for the terminal parsers (make fuzz).
 * First byte even: the rest is PTY output fed to a term (size from the
 * first bytes, a resize and a scroll half-way); its snapshot must survive
 * encode/decode unchanged and its ANSI rendering must replay. First byte
 * odd: the rest is a snapshot from the wire; when it decodes, re-encoding
 * must decode to the same snapshot, and its ANSI rendering must replay. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "term.h"
#include "term-snap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_round_trip(const struct term_snap *s)
{
	struct term_snap *d = NULL;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t *buf;
	size_t len;

	term_snap_encode(s, &buf, &len);
	if (term_snap_decode(buf, len, &d, &err) < 0 || !term_snap_equal(s, d))
		abort();
	term_snap_free(d);
	free(buf);
}

static void
replay(const struct term_snap *s)
{
	struct term *t = NULL;
	lz_err_t err = LZ_ERR_INIT;
	size_t len;
	char *ansi = term_snap_to_ansi(s, &len);

	if (term_new(s->rows, s->cols, 50, &t, &err) < 0)
		abort();
	term_feed(t, ansi, len);
	term_free(t);
	free(ansi);
}

static void
fuzz_stream(const uint8_t *data, size_t size)
{
	struct term *t = NULL;
	struct term_snap *s;
	lz_err_t err = LZ_ERR_INIT;
	size_t half;
	char row[512];
	int rows, cols, start, end;

	if (size < 3)
		return;
	rows = 1 + data[0] % 40;
	cols = TERM_MIN_COLS + data[1] % 100;
	data += 2;
	size -= 2;
	if (term_new(rows, cols, 20, &t, &err) < 0)
		abort();
	half = size / 2;
	term_feed(t, (const char *)data, half);
	term_scroll(t, data[0] % 8);
	if (term_resize(t, 1 + data[half] % 40, TERM_MIN_COLS + data[size - 1] % 100, &err) < 0)
		abort();
	term_feed(t, (const char *)data + half, size - half);
	term_size(t, &rows, &cols);
	if (term_dirty(t, &start, &end) && (start < 0 || end > rows || start >= end))
		abort();
	for (int r = 0; r < rows; r++)
		term_view_text(t, r, row, sizeof(row));
	s = term_snap_take(t, 20);
	check_round_trip(s);
	replay(s);
	term_snap_free(s);
	term_free(t);
}

static void
fuzz_snapshot(const uint8_t *data, size_t size)
{
	struct term_snap *s = NULL;
	lz_err_t err = LZ_ERR_INIT;

	if (term_snap_decode(data, size, &s, &err) < 0) {
		if (err.msg == NULL || s != NULL)
			abort();
		lz_err_clear(&err);
		return;
	}
	check_round_trip(s);
	replay(s);
	term_snap_free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_snapshot(data + 1, size - 1);
	else
		fuzz_stream(data + 1, size - 1);
	return 0;
}
