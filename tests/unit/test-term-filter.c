/* test-term-filter.c - what of an agent's output reaches the user's terminal
 * in `lazaret run`, and which typed bytes the escalation prompt takes as keys:
 * text and the sequences full-screen programs use pass; clipboard, title,
 * control strings, queries and C1 controls never do; the result does not
 * depend on how the bytes are split; terminal reports among keys are dropped
 * and counted, with a sample for the audit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "term-filter.h"

/* Filter s (n bytes) in one go; returns a NUL-terminated copy (static). */
static const char *
run(enum term_filter_mode mode, const char *s, size_t n, struct term_filter *fo)
{
	static uint8_t out[8192 + TERM_FILTER_SLACK + 1];
	struct term_filter f;
	size_t o;

	assert_true(n <= 8192);
	term_filter_init(&f, mode);
	o = term_filter_feed(&f, (const uint8_t *)s, n, out);
	out[o] = '\0';
	if (fo != NULL)
		*fo = f;
	return (const char *)out;
}

#define OUT(s) run(TERM_FILTER_OUTPUT, s, sizeof(s) - 1, NULL)
#define KEYS(s, f) run(TERM_FILTER_KEYS, s, sizeof(s) - 1, f)

static void
test_term_filter_passes_text_and_utf8(void **state)
{
	(void)state;
	assert_string_equal(OUT("hello, world\r\n\tx\b\a"), "hello, world\r\n\tx\b\a");
	assert_string_equal(OUT("caf\xc3\xa9 \xe2\x80\x9cq\xe2\x80\x9d \xf0\x9f\x98\x80"),
	    "caf\xc3\xa9 \xe2\x80\x9cq\xe2\x80\x9d \xf0\x9f\x98\x80");
}

static void
test_term_filter_passes_what_full_screen_programs_send(void **state)
{
	/* What vim, less and htop write to set up, draw and leave. */
	static const char seqs[] =
	    "\033[?1049h\033[?1h\033=\033[H\033[2J\033[1;24r\033[?25l\033[38;2;1;2;3m"
	    "\033[38:5:1m\033[m\033[2 q\033(B\033)0\0337\0338\033[?2004h\033[?1000h"
	    "\033[?1006h\033[>4;2m\033[K\033[?12l\033[?25h\033[3;5H\033[1@\033[2P"
	    "\033[L\033[M\033[S\033[T\033[?7l\033[4h\033[4l\033M\033D\033E\033[u\033[s"
	    "\033[>1u\033[<u\033[=1u\033[?1049l\033[?1l\033>\033[!p\033[?s\033[?r\033[10X"
	    "\033[?1004h\033[?2026h\033[0 q\033#8\033[2;3r";

	(void)state;
	assert_string_equal(OUT(seqs), seqs);
}

static void
test_term_filter_drops_clipboard_title_and_control_strings(void **state)
{
	struct term_filter f;

	(void)state;
	assert_string_equal(OUT("a\033]52;c;cHduZWQ=\007b"), "ab");
	assert_string_equal(OUT("a\033]52;c;cHduZWQ=\033\\b"), "ab");
	assert_string_equal(OUT("a\033]0;pwned\007\033]1;x\007\033]2;y\033\\b"), "ab");
	assert_string_equal(OUT("a\033P$qm\033\\b"), "ab");	/* DECRQSS */
	assert_string_equal(OUT("a\033Ptmux;\033\033]52;c;eA==\007\033\\b"), "ab");
	assert_string_equal(OUT("a\033_Gf=1;AAAA\033\\\033^pm\033\\\033Xsos\033\\b"), "ab");
	assert_string_equal(OUT("a\033kwindow-name\033\\b"), "ab");	/* screen/tmux title */
	/* A string ends at any ESC (as terminals end it): what follows counts. */
	assert_string_equal(OUT("\033]2;t\033[1mx"), "\033[1mx");
	assert_string_equal(OUT("\033]2;t\030x"), "x");
	run(TERM_FILTER_OUTPUT, "\033]52;c;x\007\033[c", 12, &f);
	assert_int_equal(f.dropped, 2);
}

static void
test_term_filter_drops_every_query(void **state)
{
	static const char *const q[] = {
		"\033[c", "\033[0c", "\033[>c", "\033[=c", "\033[5n", "\033[6n", "\033[?6n",
		"\033[>q", "\033[>0q", "\033[?1$p", "\033[2$p", "\033[18t", "\033[21t",
		"\033[14t", "\033[8;50;100t", "\033[22;0t", "\033[x", "\005", "\033Z",
		"\033[?u", "\033[?1;1S", "\033[?m", "\033[1;1;1;1*y", "\033[#|", "\033['|",
		"\033[\"v", "\033[$w", "\033[>t", "\033[?996n", "\033[i", "\033[5i",
		"\033[2h", "\033[12l", "\033[?3h", "\033[?1001h", "\033%@", "\033 G",
		"\033[1;1;1;1;1T", "\033[?1049;3h", "\033[1$r",
	};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof q / sizeof q[0]; i++) {
		snprintf(buf, sizeof buf, "<%s>", q[i]);
		assert_string_equal(run(TERM_FILTER_OUTPUT, buf, strlen(buf), NULL), "<>");
	}
}

static void
test_term_filter_drops_c1_controls_and_bad_utf8(void **state)
{
	(void)state;
	assert_string_equal(OUT("a\x9b" "6nb"), "a6nb");		/* 8-bit CSI */
	assert_string_equal(OUT("a\xc2\x9b" "6nb"), "a6nb");	/* UTF-8 CSI */
	assert_string_equal(OUT("a\xc2\x9d" "52;c;x\x07" "b"), "a52;c;x\x07" "b");
	assert_string_equal(OUT("a\xc0\x9b" "b"), "ab");		/* overlong ESC */
	assert_string_equal(OUT("a\xe0\x80\x9b" "b"), "ab");
	assert_string_equal(OUT("a\xed\xa0\x80" "b"), "ab");	/* surrogate */
	assert_string_equal(OUT("a\xf4\x90\x80\x80" "b"), "ab");	/* > U+10FFFF */
	assert_string_equal(OUT("a\xc3" "b"), "ab");		/* cut character */
	assert_string_equal(OUT("\xc2\xa0"), "\xc2\xa0");		/* NBSP stays */
}

static void
test_term_filter_bounds_long_sequences(void **state)
{
	char in[1200];
	size_t n = 0;
	int i;
	struct term_filter f;

	(void)state;
	n += (size_t)sprintf(in + n, "\033[");
	for (i = 0; i < 200; i++)
		n += (size_t)sprintf(in + n, "1;");
	n += (size_t)sprintf(in + n, "mok");
	assert_string_equal(run(TERM_FILTER_OUTPUT, in, n, &f), "ok");
	assert_int_equal(f.dropped, 1);
	assert_false(term_filter_pending(&f));
}

/* Whatever the split, the output is the same. */
static void
test_term_filter_does_not_depend_on_chunks(void **state)
{
	static const char in[] =
	    "x\033]52;c;aGk=\007\033[?1049h\xe2\x80\x9c\033P>|tmux\033\\\033[6n\033[1;31mred"
	    "\xc2\x9b" "1m\033]0;t\033\\\xf0\x9f\x98\x80\033[2 q\033(0\033[>q\033#8end";
	const size_t n = sizeof in - 1;
	uint8_t whole[sizeof in + TERM_FILTER_SLACK], part[sizeof in + 2 * TERM_FILTER_SLACK];
	struct term_filter f;
	size_t w, p, cut, cut2;

	(void)state;
	term_filter_init(&f, TERM_FILTER_OUTPUT);
	w = term_filter_feed(&f, (const uint8_t *)in, n, whole);
	for (cut = 0; cut <= n; cut++)
		for (cut2 = cut; cut2 <= n; cut2 += 7) {
			term_filter_init(&f, TERM_FILTER_OUTPUT);
			p = term_filter_feed(&f, (const uint8_t *)in, cut, part);
			p += term_filter_feed(&f, (const uint8_t *)in + cut, cut2 - cut, part + p);
			p += term_filter_feed(&f, (const uint8_t *)in + cut2, n - cut2, part + p);
			assert_int_equal(p, w);
			assert_memory_equal(part, whole, w);
		}
	assert_memory_equal(whole, "x\033[?1049h\xe2\x80\x9c\033[1;31mred1m", 23);
}

static void
test_term_filter_keys_drops_terminal_reports(void **state)
{
	struct term_filter f;

	(void)state;
	/* tmux's XTVERSION answer carries an 'a': no key comes out of it. */
	assert_string_equal(KEYS("\033P>|tmux 3.3a\033\\", &f), "");
	assert_int_equal(f.dropped, 1);
	assert_int_equal(f.sample_len, 15);
	assert_memory_equal(f.sample, "\033P>|tmux 3.3a\033\\", 15);
	assert_string_equal(KEYS("\033[?64;1;2;6;9;15;18;21;22c\033[12;5R\033[I\033[O", &f), "");
	assert_int_equal(f.dropped, 4);
	assert_string_equal(KEYS("\033]11;rgb:aaaa/aaaa/aaaa\033\\", &f), "");
	assert_string_equal(KEYS("\033]11;rgb:aaaa/aaaa/aaaa\007", &f), "");
	assert_string_equal(KEYS("\033P1$r0;1m\033\\\033[?1;2$y\033[>41;330;0c", &f), "");
	/* Mouse reports: X10 carries raw bytes ('a' is column 65), SGR digits. */
	assert_string_equal(KEYS("\033[M aa\033[<0;65;3M", &f), "");
	assert_int_equal(f.dropped, 2);
	/* Alt+a is ESC a: not a plain a either. */
	assert_string_equal(KEYS("\033a", &f), "");
}

static void
test_term_filter_keys_passes_keys(void **state)
{
	struct term_filter f;
	uint8_t out[8];

	(void)state;
	assert_string_equal(KEYS("aK7x\r\177\003", &f), "aK7x\r\177\003");
	assert_string_equal(KEYS("\033[A\033OB\033[5~\033[1;5C\033[Z\033[H\033OF", &f),
	    "\033[A\033OB\033[5~\033[1;5C\033[Z\033[H\033OF");
	assert_int_equal(f.dropped, 0);
	/* A lone ESC is held until the prompt says time is up: then the Esc key. */
	assert_string_equal(KEYS("\033", &f), "");
	assert_true(term_filter_pending(&f));
	assert_int_equal(term_filter_idle(&f, out), 1);
	assert_int_equal(out[0], 0x1b);
	assert_false(term_filter_pending(&f));
	/* Output mode has no Esc key. */
	term_filter_init(&f, TERM_FILTER_OUTPUT);
	term_filter_feed(&f, (const uint8_t *)"\033", 1, out);
	assert_int_equal(term_filter_idle(&f, out), 0);
}

/* Random bytes: the output never exceeds the documented bound and contains
 * no string introducer. */
static void
test_term_filter_random_input_stays_bounded(void **state)
{
	uint8_t in[4096], out[4096 + TERM_FILTER_SLACK];
	struct term_filter f;
	unsigned seed = 12345;
	size_t i, n, o, k;
	int round;

	(void)state;
	term_filter_init(&f, TERM_FILTER_OUTPUT);
	for (round = 0; round < 200; round++) {
		n = (size_t)(rand_r(&seed) % (int)sizeof in);
		for (i = 0; i < n; i++) {
			int r = rand_r(&seed) % 8;

			in[i] = r == 0 ? 0x1b : r == 1 ? (uint8_t)("[]P_^Xk\\"[rand_r(&seed) % 8]) :
			    (uint8_t)rand_r(&seed);
		}
		o = term_filter_feed(&f, in, n, out);
		assert_true(o <= n + TERM_FILTER_SLACK);
		for (k = 0; k + 1 < o; k++)
			if (out[k] == 0x1b)
				assert_null(strchr("]P_^Xk", out[k + 1]));
		for (k = 0; k < o; k++)
			assert_true(out[k] != 0x05);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term_filter_passes_text_and_utf8),
		cmocka_unit_test(test_term_filter_passes_what_full_screen_programs_send),
		cmocka_unit_test(test_term_filter_drops_clipboard_title_and_control_strings),
		cmocka_unit_test(test_term_filter_drops_every_query),
		cmocka_unit_test(test_term_filter_drops_c1_controls_and_bad_utf8),
		cmocka_unit_test(test_term_filter_bounds_long_sequences),
		cmocka_unit_test(test_term_filter_does_not_depend_on_chunks),
		cmocka_unit_test(test_term_filter_keys_drops_terminal_reports),
		cmocka_unit_test(test_term_filter_keys_passes_keys),
		cmocka_unit_test(test_term_filter_random_input_stays_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
