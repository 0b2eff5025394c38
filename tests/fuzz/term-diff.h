/* term-diff.h - differential check of term.c's plain-line fast path, shared
 * by tests/unit/test-term-fast.c (PRNG-driven) and tests/fuzz/fuzz-term-fast.c
 * (driven by the fuzzer's bytes). One byte stream (plain lines, long and
 * exact-width lines, empty lines, bare CR and LF, escape sequences, UTF-8,
 * the alt screen, scroll regions, charsets) is cut into chunks at random
 * places, with resizes and view scrolls between chunks, and fed to two
 * terminals: one with the fast path, one through libvterm only. After every
 * chunk their snapshots (screen cells, cursor, modes, every scrollback
 * line), scroll offsets and replies must be the same; some chunks reach the
 * fast one through term_feed_later (held until the next feed or snapshot)
 * and some comparisons are skipped, so held bytes pile up. Header-only: the
 * fuzz build links no test helpers.
 */
#ifndef LZ_TERM_DIFF_H
#define LZ_TERM_DIFF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "term.h"
#include "term-snap.h"

struct tdiff_src {
	const uint8_t *p;	/* fuzzer bytes, or NULL: PRNG */
	size_t n, i;
	uint64_t rng;
};

struct tdiff_buf {
	char *b;
	size_t len, cap;
};

static bool
tdiff_more(const struct tdiff_src *s)
{
	return s->p == NULL || s->i < s->n;
}

static unsigned
tdiff_byte(struct tdiff_src *s)
{
	if (s->p != NULL)
		return s->i < s->n ? s->p[s->i++] : 0;
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (unsigned)(s->rng >> 24) & 0xff;
}

static void
tdiff_put(struct tdiff_buf *b, const char *s, size_t n)
{
	if (n == 0)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->b = realloc(b->b, b->cap);
		if (b->b == NULL)
			abort();
	}
	memcpy(b->b + b->len, s, n);
	b->len += n;
}

static void
tdiff_line(struct tdiff_src *s, struct tdiff_buf *b, size_t n)
{
	/* 'q' 'x' '_' '~' print as line drawing under ESC ( 0 */
	static const char alpha[] = "qx_~ aZ09-#";

	for (size_t i = 0; i < n; i++)
		tdiff_put(b, &alpha[tdiff_byte(s) % (sizeof(alpha) - 1)], 1);
	tdiff_put(b, "\r\n", 2);
}

static const char *const tdiff_seqs[] = {
	"\x1b[31;44m", "\x1b[1;4;7m", "\x1b[0m", "\x1b[48;5;200m", "\x1b[5;1H", "\x1b[99;1H",
	"\x1b[3;8r", "\x1b[1;5r", "\x1b[2;99r", "\x1b[r", "\x1b[?1049h", "\x1b[?1049l",
	"\x1b[?1047h", "\x1b[?7l", "\x1b[?7h", "\x1b[4h", "\x1b[4l", "\x1b(0", "\x1b(B",
	"\x1b)0", "\x0e", "\x0f", "\x1bN", "\x1bO", "\x1bn", "\x1b#6", "\x1b#3", "\x1b#5",
	"\x1b[?69h\x1b[3;20s", "\x1b[?69l", "\x1b" "7", "\x1b" "8", "\x1b[?1048h", "\x1b[?1048l",
	"\x1b" "c", "\x1b[2J", "\x1b[K", "\x1b[3b", "\x1b[?6h", "\x1b[?6l", "\x1b[20h",
	"\x1b[20l", "\x1b[S", "\x1b[2T", "\x1bM", "\x1b[L", "\x1b[", "\x1b]0;t\x07",
	"\x1b[6n", "\x1b[?5h", "\x1b[?5l", "\x1b[!p", "\x1b[?7;4h", "\x1b[?25l", "\x1b[1\r\nm",
	"\x1b[8m", "\x1b[3;4;7;8;9m", "\x1b[2\"q", "\x1b[4;7h", "\x1b[?0007h",
};

static const char *const tdiff_text[] = {
	"\xc3\xa9", "\xe4\xb8\x96", "e\xcc\x81", "\xe4", "\xcc\x81", "\t", "\b", "\x07",
	"\r", "\n", "\r\r\n", "\x7f", "\x00",
};

/* One random piece of PTY output into b. */
static void
tdiff_piece(struct tdiff_src *s, struct tdiff_buf *b, int cols)
{
	unsigned op = tdiff_byte(s) % 16, k;

	switch (op) {
	case 0: case 1: case 2:
		tdiff_line(s, b, tdiff_byte(s) % (size_t)(3 * cols + 2));
		break;
	case 3:
		tdiff_line(s, b, (size_t)cols * (1 + tdiff_byte(s) % 2));
		break;
	case 4:
		tdiff_line(s, b, (size_t)cols - 1 + tdiff_byte(s) % 3);
		break;
	case 5:
		tdiff_put(b, "\r\n", 2);
		break;
	case 6: case 7:
		k = tdiff_byte(s);
		tdiff_put(b, tdiff_seqs[k % (sizeof(tdiff_seqs) / sizeof(tdiff_seqs[0]))],
		    strlen(tdiff_seqs[k % (sizeof(tdiff_seqs) / sizeof(tdiff_seqs[0]))]));
		break;
	case 8:
		k = tdiff_byte(s) % (sizeof(tdiff_text) / sizeof(tdiff_text[0]));
		tdiff_put(b, tdiff_text[k], tdiff_text[k][0] == '\0' ? 1 : strlen(tdiff_text[k]));
		break;
	default:	/* a run of plain lines, the fast path's food */
		k = 5 + tdiff_byte(s) % 120;
		for (unsigned i = 0; i < k; i++) {
			unsigned w = tdiff_byte(s) % 8;

			tdiff_line(s, b, w == 0 ? 0 : w == 1 ? (size_t)cols : w == 2 ? (size_t)cols + 1 :
			    w == 3 ? (size_t)(2 * cols) : tdiff_byte(s) % (size_t)cols);
		}
		break;
	}
}

/* NULL when a and b look the same to every reader, else what differs. */
static const char *
tdiff_compare(struct term *a, struct term *b)
{
	struct term_snap *sa = term_snap_take(a, 100000), *sb = term_snap_take(b, 100000);
	const char *oa, *ob, *why = NULL;
	size_t na, nb;

	if (!term_snap_equal(sa, sb))
		why = "snapshots (screen, cursor or scrollback) differ";
	else if (term_scroll_offset(a) != term_scroll_offset(b))
		why = "scroll offsets differ";
	oa = term_output(a, &na);
	ob = term_output(b, &nb);
	if (why == NULL && (na != nb || (na > 0 && memcmp(oa, ob, na) != 0)))
		why = "replies differ";
	term_output_consume(a, na);
	term_output_consume(b, nb);
	term_snap_free(sa);
	term_snap_free(sb);
	return why;
}

/* Run one stream from s; NULL when both terminals always agreed. *skipped
 * (optional) gets the rows the fast terminal put straight into its
 * scrollback, so a test can tell the fast path was taken at all. */
static const char *
tdiff_run(struct tdiff_src *s, size_t max_pieces, unsigned long *skipped)
{
	struct term *fast = NULL, *slow = NULL;
	struct tdiff_buf b = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	const char *why = NULL;
	int rows = 1 + (int)(tdiff_byte(s) % 30), cols = TERM_MIN_COLS + (int)(tdiff_byte(s) % 90);
	size_t sb = tdiff_byte(s) % 4 == 0 ? 0 : 1 + tdiff_byte(s) % 300;

	if (term_new(rows, cols, sb, &fast, &err) < 0 || term_new(rows, cols, sb, &slow, &err) < 0)
		abort();
	term_set_fast(slow, false);
	for (size_t n = 0; n < max_pieces && tdiff_more(s); n++)
		tdiff_piece(s, &b, cols);
	for (size_t off = 0; off < b.len && why == NULL;) {
		unsigned k = tdiff_byte(s);
		size_t chunk = k % 4 == 0 ? 1 + tdiff_byte(s) % 16 : 1 + (k * 97u + tdiff_byte(s) * 13u) % 8192;

		if (chunk > b.len - off)
			chunk = b.len - off;
		/* Held back now and then: fed with the next chunk, or by the
		 * snapshot that compares them. */
		if (k % 3 == 1)
			term_feed_later(fast, b.b + off, chunk);
		else
			term_feed(fast, b.b + off, chunk);
		term_feed(slow, b.b + off, chunk);
		off += chunk;
		if (k % 5 != 0)
			why = tdiff_compare(fast, slow);
		k = tdiff_byte(s);
		if (k % 16 == 0) {
			rows = 1 + (int)(tdiff_byte(s) % 30);
			cols = TERM_MIN_COLS + (int)(tdiff_byte(s) % 90);
			if (term_resize(fast, rows, cols, &err) < 0 || term_resize(slow, rows, cols, &err) < 0)
				abort();
		} else if (k % 16 == 1) {
			long d = (long)(tdiff_byte(s) % 20) - 5;

			term_flush(fast);	/* the view scrolls over what came */
			term_scroll(fast, d);
			term_scroll(slow, d);
		}
	}
	if (why == NULL)
		why = tdiff_compare(fast, slow);
	if (skipped != NULL)
		*skipped = term_fast_skipped(fast);
	term_free(fast);
	term_free(slow);
	free(b.b);
	return why;
}

#endif
