/* test-screen.c - the coordinator's per-session screen: what the PTY wrote
 * comes back from a snapshot replayed on a fresh terminal (what an
 * attaching workbench shows at once), after a resize too, and a snapshot
 * that would not fit a frame drops scrollback until it does; bytes held
 * back (a burst) are never missing from a snapshot, a resize or a reply. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord/screen.h"
#include "term-snap.h"
#include "term.h"

/* Replay an encoded snapshot on a new term; caller frees. */
static struct term *
replay(const uint8_t *buf, size_t len)
{
	struct term_snap *snap;
	struct term *t;
	lz_err_t err = LZ_ERR_INIT;
	char *ansi;
	size_t n;

	assert_int_equal(term_snap_decode(buf, len, &snap, &err), 0);
	assert_int_equal(term_new(snap->rows, snap->cols, 100, &t, &err), 0);
	ansi = term_snap_to_ansi(snap, &n);
	term_feed(t, ansi, n);
	free(ansi);
	term_snap_free(snap);
	return t;
}

static void
test_screen_snapshot_shows_what_the_pty_wrote(void **state)
{
	const char *out = "$ echo hi\r\nhi\r\n\033[1;31mred\033[m $ ";
	struct screen *s;
	struct term *t;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t *buf;
	size_t len;
	char row[128];
	int rows, cols;

	(void)state;
	assert_int_equal(screen_new(10, 40, &s, &err), 0);
	screen_feed(s, (const uint8_t *)out, strlen(out), false);
	assert_int_equal(screen_snapshot(s, 1u << 20, &buf, &len, &err), 0);
	t = replay(buf, len);
	term_size(t, &rows, &cols);
	assert_int_equal(rows, 10);
	assert_int_equal(cols, 40);
	term_view_text(t, 1, row, sizeof row);
	assert_string_equal(row, "hi");
	term_view_text(t, 2, row, sizeof row);
	assert_string_equal(row, "red $");
	term_free(t);
	free(buf);
	/* The PTY was resized: the snapshot has the new size. */
	assert_int_equal(screen_resize(s, 30, 100, &err), 0);
	assert_int_equal(screen_snapshot(s, 1u << 20, &buf, &len, &err), 0);
	t = replay(buf, len);
	term_size(t, &rows, &cols);
	assert_int_equal(rows, 30);
	assert_int_equal(cols, 100);
	term_free(t);
	free(buf);
	screen_free(s);
}

static void
test_screen_snapshot_drops_scrollback_to_fit(void **state)
{
	struct screen *s;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t *buf;
	size_t len, full;
	char line[128];
	int i;

	(void)state;
	assert_int_equal(screen_new(0, 0, &s, &err), 0);	/* 24x80 */
	for (i = 0; i < 1000; i++) {
		int n = snprintf(line, sizeof line, "line %d of a long scrolling output......\r\n", i);

		screen_feed(s, (const uint8_t *)line, (size_t)n, i % 2 == 0);
	}
	assert_int_equal(screen_snapshot(s, 1u << 20, &buf, &len, &err), 0);
	full = len;
	free(buf);
	assert_int_equal(screen_snapshot(s, full / 2, &buf, &len, &err), 0);
	assert_true(len <= full / 2);
	free(buf);
	assert_int_equal(screen_snapshot(s, 10, &buf, &len, &err), -1);
	assert_null(buf);
	lz_err_clear(&err);
	screen_free(s);
}

/* The text of row r of a snapshot of s. */
static void
snap_row(struct screen *s, int r, char *row, size_t size)
{
	lz_err_t err = LZ_ERR_INIT;
	struct term *t;
	uint8_t *buf;
	size_t len;

	assert_int_equal(screen_snapshot(s, 1u << 20, &buf, &len, &err), 0);
	t = replay(buf, len);
	term_view_text(t, r, row, size);
	term_free(t);
	free(buf);
}

/* Bytes held back are in the next snapshot, in order with the rest, and a
 * resize lays out what came before it at the old size. */
static void
test_screen_held_bytes_reach_snapshot_and_resize(void **state)
{
	struct screen *s;
	lz_err_t err = LZ_ERR_INIT;
	char row[128];

	(void)state;
	assert_int_equal(screen_new(5, 20, &s, &err), 0);
	screen_feed(s, (const uint8_t *)"one ", 4, false);
	screen_feed(s, (const uint8_t *)"two ", 4, true);
	screen_feed(s, (const uint8_t *)"three", 5, true);
	snap_row(s, 0, row, sizeof row);
	assert_string_equal(row, "one two three");
	/* 25 characters wrap at 20 columns, before the screen gets wider. */
	screen_feed(s, (const uint8_t *)"\r\nabcdefghijklmnopqrstuvwxy", 27, true);
	assert_int_equal(screen_resize(s, 5, 40, &err), 0);
	snap_row(s, 1, row, sizeof row);
	assert_string_equal(row, "abcdefghijklmnopqrst");
	snap_row(s, 2, row, sizeof row);
	assert_string_equal(row, "uvwxy");
	screen_free(s);
}

/* A query held back is answered once fed: by a flush, or when the bytes
 * held reach TERM_HOLD_MAX (a burst never holds more). */
static void
test_screen_hold_is_bounded_and_flush_answers(void **state)
{
	struct screen *s;
	lz_err_t err = LZ_ERR_INIT;
	static uint8_t lines[TERM_HOLD_MAX];
	size_t len;

	(void)state;
	assert_int_equal(screen_new(24, 80, &s, &err), 0);
	screen_feed(s, (const uint8_t *)"\033[c", 3, true);
	assert_null(screen_reply(s, &len));
	assert_true(screen_flush(s));
	assert_non_null(screen_reply(s, &len));
	screen_reply_consume(s, len);
	assert_false(screen_flush(s));
	for (size_t i = 0; i < sizeof lines; i++)
		lines[i] = i % 64 == 62 ? '\r' : i % 64 == 63 ? '\n' : 'x';
	screen_feed(s, (const uint8_t *)"\033[c", 3, true);
	screen_feed(s, lines, sizeof lines - 4, true);
	assert_null(screen_reply(s, &len));
	screen_feed(s, lines, 1, true);
	assert_non_null(screen_reply(s, &len));
	assert_false(screen_flush(s));
	screen_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_screen_snapshot_shows_what_the_pty_wrote),
		cmocka_unit_test(test_screen_snapshot_drops_scrollback_to_fit),
		cmocka_unit_test(test_screen_held_bytes_reach_snapshot_and_resize),
		cmocka_unit_test(test_screen_hold_is_bounded_and_flush_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
