/* test-term-snap.c - screen snapshots: exact round trip, ANSI replay, hostile input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "term.h"
#include "term-sb.h"
#include "term-snap.h"

static struct term *
mk(int rows, int cols)
{
	struct term *t = NULL;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(term_new(rows, cols, 500, &t, &err), 0);
	return t;
}

static void
feed(struct term *t, const char *s)
{
	term_feed(t, s, strlen(s));
}

/* A screen a user would have: a coloured prompt, ls output, CJK, an accent,
 * truecolor, an erased coloured region, some scrollback, a title. */
static struct term *
busy_term(void)
{
	struct term *t = mk(12, 40);

	for (int i = 0; i < 30; i++) {
		char line[64];

		snprintf(line, sizeof(line), "\x1b[3%dmhistory %d\x1b[m\r\n", i % 8, i);
		feed(t, line);
	}
	feed(t, "\x1b[1;32muser@box\x1b[0m:\x1b[1;34m~/src\x1b[0m$ ls\r\n");
	feed(t, "\x1b[38;5;208mMakefile\x1b[0m  \x1b[38;2;255;0;128mREADME\x1b[0m  "
	    "\xe6\xbc\xa2\xe5\xad\x97 caf\x65\xcc\x81\r\n");
	feed(t, "\x1b[4;7;3mflags\x1b[0m \x1b[21mdouble\x1b[0m \x1b[9mstrike\x1b[0m\r\n");
	feed(t, "\x1b[44m\x1b[K\x1b[m\r\n");	/* a blue erased row */
	feed(t, "\x1b[48;2;1;2;3mbg\x1b[m   \x1b[5mblink\x1b[m\r\n");
	feed(t, "\x1b]2;build: make -j2\x07\x1b[3 q\x1b[?25l\x1b[?1002h\x1b[?1h\x1b[?2004h$ ");
	return t;
}

static void
assert_snap_matches_term(const struct term_snap *s, struct term *t)
{
	VTermScreenCell c;

	for (int r = 0; r < s->rows; r++)
		for (int col = 0; col < s->cols; col++) {
			term_cell(t, r, col, &c);
			if (!term_snap_cell_equal(&c, &s->cells[r * s->cols + col]))
				fail_msg("cell %d,%d differs", r, col);
		}
}

static void
test_term_snap_round_trips_cell_by_cell(void **state)
{
	struct term *t = busy_term();
	struct term_snap *s = term_snap_take(t, 1000), *d = NULL;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t *buf;
	size_t len;

	(void)state;
	assert_int_equal(s->n_sb, 24);
	assert_string_equal(s->title, "build: make -j2");
	assert_false(s->cursor.visible);
	assert_int_equal(s->cursor.shape, VTERM_PROP_CURSORSHAPE_UNDERLINE);
	assert_int_equal(s->mouse, VTERM_PROP_MOUSE_DRAG);
	assert_int_equal(s->modes, TERM_MODE_APPCURSOR | TERM_MODE_BRACKETPASTE);
	assert_snap_matches_term(s, t);
	term_snap_encode(s, &buf, &len);
	/* ~2 bytes per ASCII cell: much less than the 480 cells * 40 bytes. */
	assert_true(len < 4000);
	assert_int_equal(term_snap_decode(buf, len, &d, &err), 0);
	assert_true(term_snap_equal(s, d));
	assert_snap_matches_term(d, t);
	assert_int_equal(d->cursor.row, 11);
	assert_int_equal(d->cursor.col, 2);
	free(buf);
	term_snap_free(s);
	term_snap_free(d);
	term_free(t);
}

static void
test_term_snap_ansi_replay_into_fresh_term_gives_same_cells(void **state)
{
	struct term *t = busy_term(), *u = mk(12, 40);
	struct term_snap *s = term_snap_take(t, 1000), *s2;
	size_t len;
	char *ansi = term_snap_to_ansi(s, &len);

	(void)state;
	assert_int_equal(strlen(ansi), len);
	term_feed(u, ansi, len);
	s2 = term_snap_take(u, 1000);
	assert_true(term_snap_equal(s, s2));
	assert_snap_matches_term(s, u);
	/* Keys typed after attach encode as the application expects. */
	term_key(u, VTERM_KEY_UP, VTERM_MOD_NONE);
	{
		size_t n;
		const char *o = term_output(u, &n);

		assert_int_equal(n, 3);
		assert_memory_equal(o, "\x1bOA", 3);
	}
	/* The replayed term scrolls back to the same history. */
	term_scroll(u, 24);
	{
		char row[128];

		term_view_text(u, 0, row, sizeof(row));
		assert_string_equal(row, "history 0");
	}
	free(ansi);
	term_snap_free(s);
	term_snap_free(s2);
	term_free(t);
	term_free(u);
}

static void
test_term_snap_alt_screen_is_flagged_and_replayed(void **state)
{
	struct term *t = mk(10, 30), *u = mk(10, 30);
	struct term_snap *s, *s2;
	char *ansi;
	size_t len;

	(void)state;
	for (int i = 0; i < 15; i++)
		feed(t, "shell line\r\n");
	feed(t, "\x1b[?1049h\x1b[H\x1b[2J\x1b[7m top - 12:00 \x1b[m\x1b[5;3H\x1b[31mPID 1\x1b[10;1H~");
	s = term_snap_take(t, 100);
	assert_true(s->altscreen);
	assert_int_equal(s->n_sb, 6);
	ansi = term_snap_to_ansi(s, &len);
	term_feed(u, ansi, len);
	assert_true(term_altscreen(u));
	s2 = term_snap_take(u, 100);
	assert_true(term_snap_equal(s, s2));
	/* Leaving the alt screen: history survives; the main screen under it
	 * could not be read from libvterm 0.1.4 (see term-snap.h). */
	feed(u, "\x1b[?1049l");
	assert_false(term_altscreen(u));
	assert_int_equal(term_sb_count(term_scrollback(u)), 6);
	free(ansi);
	term_snap_free(s);
	term_snap_free(s2);
	term_free(t);
	term_free(u);
}

static void
test_term_snap_decode_rejects_every_truncation(void **state)
{
	struct term *t = busy_term();
	struct term_snap *s = term_snap_take(t, 1000), *d = NULL;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t *buf, *cut;
	size_t len;

	(void)state;
	term_snap_encode(s, &buf, &len);
	for (size_t n = 0; n < len; n++) {
		/* An exact-size copy so ASan catches any read past the end. */
		cut = malloc(n > 0 ? n : 1);
		memcpy(cut, buf, n);
		assert_int_equal(term_snap_decode(cut, n, &d, &err), -1);
		assert_null(d);
		assert_non_null(err.msg);
		lz_err_clear(&err);
		free(cut);
	}
	cut = malloc(len + 1);
	memcpy(cut, buf, len);
	cut[len] = 0;
	assert_int_equal(term_snap_decode(cut, len + 1, &d, &err), -1);
	assert_non_null(strstr(err.msg, "1 trailing bytes"));
	lz_err_clear(&err);
	free(cut);
	free(buf);
	term_snap_free(s);
	term_free(t);
}

static void
put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void
test_term_snap_decode_rejects_oversized_and_garbage(void **state)
{
	struct term *t = mk(4, 10);
	struct term_snap *s = term_snap_take(t, 0), *d = NULL;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t *buf, *bad;
	size_t len;
	unsigned seed = 1;

	(void)state;
	term_snap_encode(s, &buf, &len);
	assert_int_equal(term_snap_decode(buf, len, &d, &err), 0);
	term_snap_free(d);
	bad = malloc(len);

	memcpy(bad, buf, len);
	put16(bad + 8, 5000);	/* rows */
	assert_int_equal(term_snap_decode(bad, len, &d, &err), -1);
	assert_non_null(strstr(err.msg, "out of range"));
	lz_err_clear(&err);

	memcpy(bad, buf, len);
	bad[18] = bad[19] = bad[20] = bad[21] = 0xff;	/* 4G scrollback lines */
	assert_int_equal(term_snap_decode(bad, len, &d, &err), -1);
	assert_non_null(strstr(err.msg, "scrollback"));
	lz_err_clear(&err);

	memcpy(bad, buf, len);
	put16(bad + 16, 60000);	/* title longer than the buffer */
	assert_int_equal(term_snap_decode(bad, len, &d, &err), -1);
	lz_err_clear(&err);

	memcpy(bad, buf, len);
	bad[4] = 9;
	assert_int_equal(term_snap_decode(bad, len, &d, &err), -1);
	assert_non_null(strstr(err.msg, "version 9"));
	lz_err_clear(&err);

	memcpy(bad, buf, len);
	bad[0] = 'X';
	assert_int_equal(term_snap_decode(bad, len, &d, &err), -1);
	lz_err_clear(&err);

	memcpy(bad, buf, len);
	put16(bad + 12, 4);	/* cursor row == rows */
	assert_int_equal(term_snap_decode(bad, len, &d, &err), -1);
	lz_err_clear(&err);

	memcpy(bad, buf, len);
	bad[22] = 0x07;		/* first cell claims 7 chars */
	assert_int_equal(term_snap_decode(bad, len, &d, &err), -1);
	assert_non_null(strstr(err.msg, "row 0"));
	lz_err_clear(&err);

	/* Random bytes behind a valid header never crash and never pass. */
	for (int round = 0; round < 2000; round++) {
		memcpy(bad, buf, len);
		for (size_t i = 22; i < len; i++)
			bad[i] = (uint8_t)(rand_r(&seed) >> 7);
		if (term_snap_decode(bad, len, &d, &err) == 0)
			term_snap_free(d);
		lz_err_clear(&err);
	}
	free(bad);
	free(buf);
	term_snap_free(s);
	term_free(t);
}

static void
test_term_snap_of_fresh_term_replays_to_fresh_term(void **state)
{
	struct term *t = mk(24, 80), *u = mk(24, 80);
	struct term_snap *s = term_snap_take(t, 10), *s2;
	size_t len;
	char *ansi = term_snap_to_ansi(s, &len);

	(void)state;
	term_feed(u, ansi, len);
	s2 = term_snap_take(u, 10);
	assert_true(term_snap_equal(s, s2));
	assert_int_equal(s2->n_sb, 0);
	/* One changed cell is a difference. */
	term_feed(u, "x", 1);
	term_snap_free(s2);
	s2 = term_snap_take(u, 10);
	assert_false(term_snap_equal(s, s2));
	free(ansi);
	term_snap_free(s);
	term_snap_free(s2);
	term_free(t);
	term_free(u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term_snap_round_trips_cell_by_cell),
		cmocka_unit_test(test_term_snap_ansi_replay_into_fresh_term_gives_same_cells),
		cmocka_unit_test(test_term_snap_alt_screen_is_flagged_and_replayed),
		cmocka_unit_test(test_term_snap_decode_rejects_every_truncation),
		cmocka_unit_test(test_term_snap_decode_rejects_oversized_and_garbage),
		cmocka_unit_test(test_term_snap_of_fresh_term_replays_to_fresh_term),
	};

	return cmocka_run_group_tests_name("term-snap", tests, NULL, NULL);
}
