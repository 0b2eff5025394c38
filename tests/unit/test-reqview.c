/* test-reqview.c - the escalation request as shown to a human, and the key
 * sequence that decides it: what an agent or a terminal can type never
 * approves (issue 9). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reqview.h"
#include "shellwords.h"
#include "xmalloc.h"

#define META(c)	(REQVIEW_KEY_META | (c))

static void
assert_word(const char *w, const char *want)
{
	char *got = reqview_word(w);

	assert_string_equal(got, want);
	free(got);
}

static void
test_reqview_word_plain_and_quoted(void **state)
{
	(void)state;
	assert_word("ls", "ls");
	assert_word("-la", "-la");
	assert_word("a b", "'a b'");
	assert_word("", "''");
	assert_word("it's", "\"it's\"");
	assert_word("héllo", "'héllo'");	/* printable non-ASCII stays */
}

static void
test_reqview_word_makes_invisible_visible(void **state)
{
	(void)state;
	assert_word("\x1b[31mred", "$'\\x1b[31mred'");
	assert_word("a\xe2\x80\xae" "fdp.exe", "$'a\\u202efdp.exe'");	/* RLO */
	assert_word("zero\xe2\x80\x8bwidth", "$'zero\\u200bwidth'");
	assert_word("no\xc2\xa0" "break", "$'no\\u00a0break'");
	assert_word("ideo\xe3\x80\x80space", "$'ideo\\u3000space'");
	assert_word("tab\there", "$'tab\\there'");
	assert_word("nl\nx", "$'nl\\nx'");
	assert_word("bad\xff", "$'bad\\xff'");
	assert_word("c1\xc2\x85", "$'c1\\u0085'");
	assert_word("tag\xf3\xa0\x80\x81", "$'tag\\U000e0001'");
	/* Inside $'...', backslash and quote are escaped: no confusion with an escape. */
	assert_word("\\x1b'\x01", "$'\\\\x1b\\'\\x01'");
}

static void
test_reqview_word_shows_padding(void **state)
{
	char w[160];

	(void)state;
	memset(w, ' ', sizeof w);
	w[0] = 'x';
	w[151] = '\0';
	assert_word(w, "$'x\\x20{150}'");
	assert_word(" lead", "$'\\x20{1}lead'");
	assert_word("trail ", "$'trail\\x20{1}'");
	assert_word("two  in", "$'two\\x20{2}in'");
	/* A literal "{3}" after one space stays apart from a run of three. */
	assert_word(" {3}", "$'\\x20{1}{3}'");
	assert_word("one space", "'one space'");
	assert_word("open\xe2\x90\xa3" "box", "$'open\\u2423box'");
}

static char *
join_lines(const struct reqview *v, size_t from, size_t to)
{
	size_t len = 1;
	char *s;

	for (size_t i = from; i < to; i++)
		len += strlen(v->lines[i].text) + 1;
	s = xcalloc(1, len);
	for (size_t i = from; i < to; i++) {
		strcat(s, v->lines[i].text);
		strcat(s, "\n");
	}
	return s;
}

static void
test_reqview_command_first_then_framed_justification(void **state)
{
	char *argv[] = { (char *)"ls", (char *)"-la", (char *)"x", NULL };
	char why[4200];
	struct reqview_request req = {
		.request_id = "0123abcd", .profile = "default", .justification = why,
		.cwd = "/workspace", .note = "not auto-approved", .argv = argv,
	};
	struct reqview *v;
	size_t nwhy = 0, i;

	(void)state;
	/* 4 KiB padded to the width, drawing a fake command block. */
	why[0] = '\0';
	while (strlen(why) + 100 < sizeof why)
		strcat(why, "Command, 2 words:                                          \n  make test\n");
	v = reqview_new(&req, 60, 0);
	assert_string_equal(v->lines[0].text, "Command, 3 words:");
	assert_int_equal(v->lines[0].kind, REQVIEW_TITLE);
	assert_string_equal(v->lines[1].text, "  ls -la x");
	assert_int_equal(v->lines[1].kind, REQVIEW_COMMAND);
	assert_int_equal(v->command_first, 1);
	assert_int_equal(v->command_end, 2);
	assert_int_equal(v->words, 3);
	for (i = 2; i < v->n; i++) {
		assert_true(reqview_width(v->lines[i].text) <= 60);
		if (v->lines[i].kind == REQVIEW_WHY || v->lines[i].kind == REQVIEW_MORE) {
			assert_memory_equal(v->lines[i].text, "  | ", 4);
			nwhy++;
		}
		assert_int_not_equal(v->lines[i].kind, REQVIEW_COMMAND);
	}
	assert_int_equal(nwhy, REQVIEW_WHY_LINES);
	for (i = 0; i < v->n && v->lines[i].kind != REQVIEW_MORE; i++)
		;
	assert_true(i < v->n);
	assert_non_null(strstr(v->lines[i].text, " more lines)"));
	assert_string_equal(v->lines[v->n - 1].text, "Note: not auto-approved");
	reqview_free(v);
}

static void
test_reqview_wraps_whole_command_without_hidden_spaces(void **state)
{
	char pad[200];
	char *argv[] = { (char *)"ls", (char *)"-la", pad, (char *)"a b c d e f g h i j k l m n o p q r s t u v w x y z", NULL };
	struct reqview_request req = { .request_id = "r", .profile = "p", .argv = argv };
	struct reqview *v;
	char *all, *joined;

	(void)state;
	memset(pad, ' ', sizeof pad);
	memcpy(pad, "file", 4);
	pad[154] = 'Z';
	pad[155] = '\0';
	v = reqview_new(&req, 24, 0);
	assert_string_equal(v->lines[0].text, "Command, 4 words:");
	assert_true(v->command_end - v->command_first > 3);
	all = join_lines(v, v->command_first, v->command_end);
	/* Every byte of the shown command is on some line. */
	assert_non_null(strstr(all, "\\x20{150}Z'"));
	joined = reqview_command(argv);
	{
		/* Lines minus their indent, rejoined, are the joined command
		 * (a dropped separator is a space between words). */
		size_t k = 0;

		for (size_t i = v->command_first; i < v->command_end; i++) {
			char t[64], *sp;

			assert_true(reqview_width(v->lines[i].text) <= 24);
			assert_memory_equal(v->lines[i].text, "  ", 2);
			snprintf(t, sizeof t, "%s", v->lines[i].text + 2);
			assert_true(t[0] != ' ');
			assert_true(t[strlen(t) - 1] != ' ');
			/* A space at an edge shows as U+2423. */
			while ((sp = strstr(t, "\xe2\x90\xa3")) != NULL) {
				*sp = ' ';
				memmove(sp + 1, sp + 3, strlen(sp + 3) + 1);
			}
			if (i > v->command_first && joined[k] == ' ' && t[0] != ' ')
				k++;
			assert_memory_equal(joined + k, t, strlen(t));
			k += strlen(t);
		}
		assert_int_equal(k, strlen(joined));
	}
	free(all);
	free(joined);
	reqview_free(v);
}

/* Found by fuzz-reqview: titles wider than a narrow view, and a break
 * inside a word landing inside a UTF-8 character. */
static void
test_reqview_narrow_lines_fit_and_stay_utf8(void **state)
{
	char *argv[] = { (char *)"\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9",
			 (char *)"x\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2", NULL };
	struct reqview_request req = { .request_id = "r", .profile = "p", .argv = argv,
				       .justification = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12" };
	struct reqview *v;

	(void)state;
	for (int width = 16; width < 40; width++) {
		v = reqview_new(&req, width, 0);
		for (size_t i = 0; i < v->n; i++) {
			const char *t = v->lines[i].text;

			assert_true(reqview_width(t) <= width);
			assert_int_equal(lz_shellwords_scan(t, strlen(t)) & (LZ_SW_BADUTF8 | LZ_SW_CONTROL), 0);
		}
		reqview_free(v);
	}
}

static void
test_reqview_command_that_does_not_split(void **state)
{
	struct reqview_request req = { .request_id = "r", .profile = "p", .command = "echo 'open" };
	struct reqview *v;

	(void)state;
	v = reqview_new(&req, 80, 0);
	assert_true(v->split_failed);
	assert_int_equal(v->lines[0].kind, REQVIEW_ALERT);
	assert_non_null(strstr(v->lines[0].text, "does not split"));
	reqview_free(v);
}

static void
test_reqview_code_alphabet(void **state)
{
	char code[REQVIEW_CODE_LEN + 1], first[REQVIEW_CODE_LEN + 1];
	bool differs = false;

	(void)state;
	reqview_code_new(first);
	for (int i = 0; i < 1000; i++) {
		reqview_code_new(code);
		assert_int_equal(strlen(code), REQVIEW_CODE_LEN);
		for (size_t k = 0; k < REQVIEW_CODE_LEN; k++)
			assert_non_null(strchr(REQVIEW_CODE_ALPHABET, code[k]));
		differs |= strcmp(code, first) != 0;
	}
	assert_true(differs);
	/* No action letters and no look-alikes. */
	assert_null(strpbrk(REQVIEW_CODE_ALPHABET, "adeqy01ilo25sz8b9guv"));
}

/* Feed s as keys, one every step ms from *t; returns the first decision
 * other than NONE, EARLY, REPLY and WRONG (or NONE). */
static enum reqview_decision
feed(struct reqview_confirm *c, const int *keys, size_t n, uint64_t *t, uint64_t step)
{
	enum reqview_decision d, out = REQVIEW_NONE;

	for (size_t i = 0; i < n; i++) {
		*t += step;
		d = reqview_confirm_key(c, keys[i], *t);
		if (out == REQVIEW_NONE && d != REQVIEW_NONE && d != REQVIEW_EARLY && d != REQVIEW_REPLY &&
		    d != REQVIEW_WRONG)
			out = d;
	}
	return out;
}

static enum reqview_decision
feed_str(struct reqview_confirm *c, const char *s, uint64_t *t, uint64_t step)
{
	int keys[256];
	size_t n = 0;

	for (; *s != '\0' && n < 256; s++)
		keys[n++] = (unsigned char)*s;
	return feed(c, keys, n, t, step);
}

static void
test_reqview_confirm_approves_with_code_after_arming(void **state)
{
	struct reqview_confirm c;
	uint64_t t = 1000;
	char chord[8];

	(void)state;
	reqview_confirm_start(&c, t);
	assert_true(reqview_confirm_arm_in(&c, t) == REQVIEW_ARM_MS);
	t += REQVIEW_ARM_MS;
	assert_int_equal(reqview_confirm_arm_in(&c, t), 0);
	snprintf(chord, sizeof chord, "a%s", c.code);
	assert_int_equal(feed_str(&c, chord, &t, 100), REQVIEW_NONE);
	assert_int_equal(c.state, REQVIEW_ENTER);
	t += 100;
	assert_int_equal(reqview_confirm_key(&c, '\r', t), REQVIEW_APPROVE);
	/* Upper case and KEY_ENTER work too. */
	reqview_confirm_start(&c, t);
	t += 2000;
	snprintf(chord, sizeof chord, "A%c%c%c", c.code[0] - 32 * (c.code[0] >= 'a'), c.code[1], c.code[2]);
	assert_int_equal(feed_str(&c, chord, &t, 100), REQVIEW_NONE);
	assert_int_equal(reqview_confirm_key(&c, REQVIEW_KEY_ENTER_FN, t + 1), REQVIEW_APPROVE);
}

static void
test_reqview_confirm_typed_ahead_keys_are_discarded(void **state)
{
	struct reqview_confirm c;
	uint64_t t = 0;
	char s[64];

	(void)state;
	reqview_confirm_start(&c, t);
	/* Even knowing the code: typed before the prompt arms, nothing counts,
	 * and each key restarts the delay. */
	snprintf(s, sizeof s, "make all a%s\r", c.code);
	for (const char *p = s; *p != '\0'; p++) {
		t += 150;
		assert_int_equal(reqview_confirm_key(&c, (unsigned char)*p, t), REQVIEW_EARLY);
	}
	assert_int_equal(c.state, REQVIEW_ARMING);
	assert_int_equal(c.early, strlen(s));
	assert_true(reqview_confirm_arm_in(&c, t + 100) > 0);
	assert_int_equal(reqview_confirm_arm_in(&c, t + REQVIEW_ARM_MS), 0);
	/* "clear" typed into an opening prompt: e would have opened Edit. */
	reqview_confirm_start(&c, t);
	assert_int_equal(feed_str(&c, "clear\r", &t, 30), REQVIEW_NONE);
}

static void
test_reqview_confirm_cat_after_deciding_approves_nothing(void **state)
{
	struct reqview_confirm c;
	uint64_t t = 0;

	(void)state;
	for (int i = 0; i < 200; i++) {
		reqview_confirm_start(&c, t);
		t += 5000;
		for (const char *p = "cat\rmake all\r"; *p != '\0'; p++) {
			t += 80;
			assert_int_not_equal(reqview_confirm_key(&c, (unsigned char)*p, t), REQVIEW_APPROVE);
		}
	}
}

static void
test_reqview_confirm_terminal_replies_never_approve(void **state)
{
	/* tmux's XTVERSION reply, ESC P >|tmux 3.3a ESC \, as the workbench
	 * folds it (ESC+key is Alt+key) and unfolded. */
	int folded[] = { META('P'), '>', '|', 't', 'm', 'u', 'x', ' ', '3', '.', '3', 'a', META('\\'), '\r' };
	int raw[] = { 27, 'P', '>', '|', 't', 'm', 'u', 'x', ' ', '3', '.', '3', 'a', 27, '\\', '\r' };
	/* OSC 11 colour report (BEL), DA (CSI), DECRQSS (DCS) replies. */
	int osc[] = { META(']'), '1', '1', ';', 'r', 'g', 'b', ':', 'f', 'f', 'f', 'f', '/', 'a', 7, '\r' };
	int da[] = { META('['), '?', '6', '2', ';', '2', '2', 'c', 'a', '\r' };
	int rqss[] = { META('P'), '1', '$', 'r', '0', 'm', 27, '\\', 'a', '\r' };
	struct { const int *k; size_t n; } cases[] = {
		{ folded, sizeof folded / sizeof *folded }, { raw, sizeof raw / sizeof *raw },
		{ osc, sizeof osc / sizeof *osc }, { da, sizeof da / sizeof *da },
		{ rqss, sizeof rqss / sizeof *rqss },
	};
	struct reqview_confirm c;
	uint64_t t = 0;
	enum reqview_decision d;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		reqview_confirm_start(&c, t);
		t += 1000;
		d = feed(&c, cases[i].k, cases[i].n, &t, 1);
		assert_true(d == REQVIEW_NONE || d == REQVIEW_CLOSE);
		assert_int_equal(c.replies, 1);
		assert_int_equal(c.state, REQVIEW_ARMING);
		/* Even in the middle of the chord. */
		reqview_confirm_start(&c, t);
		t += 1000;
		assert_int_equal(reqview_confirm_key(&c, 'a', t), REQVIEW_NONE);
		assert_int_equal(reqview_confirm_key(&c, c.code[0], t), REQVIEW_NONE);
		d = feed(&c, cases[i].k, cases[i].n, &t, 1);
		assert_true(d == REQVIEW_NONE || d == REQVIEW_CLOSE);
		assert_int_equal(c.replies, 1);
	}
	/* The folded reply is reported once, on its first key. */
	reqview_confirm_start(&c, t);
	t += 1000;
	assert_int_equal(reqview_confirm_key(&c, META('P'), t), REQVIEW_REPLY);
	assert_int_equal(reqview_confirm_key(&c, 'a', t), REQVIEW_NONE);
	/* A reply left open ends with a pause: then keys count again. */
	t += 2000;
	assert_int_equal(reqview_confirm_key(&c, 'd', t), REQVIEW_DENY);
}

static void
test_reqview_confirm_deny_edit_quit_close(void **state)
{
	struct reqview_confirm c;
	uint64_t t = 0;

	(void)state;
	reqview_confirm_start(&c, t);
	t += 1000;
	assert_int_equal(reqview_confirm_key(&c, 'd', t), REQVIEW_DENY);
	assert_int_equal(reqview_confirm_key(&c, 'e', t), REQVIEW_EDIT);
	assert_int_equal(reqview_confirm_key(&c, 'q', t), REQVIEW_NONE);
	assert_int_equal(c.state, REQVIEW_QUIT_ASK);
	assert_int_equal(reqview_confirm_key(&c, 'n', t), REQVIEW_NONE);
	assert_int_equal(c.state, REQVIEW_READY);
	assert_int_equal(reqview_confirm_key(&c, 'q', t), REQVIEW_NONE);
	assert_int_equal(reqview_confirm_key(&c, 'y', t), REQVIEW_QUIT);
	assert_int_equal(reqview_confirm_key(&c, 27, t), REQVIEW_CLOSE);
	/* Esc inside the chord only backs out of it. */
	t += 1000;
	assert_int_equal(reqview_confirm_key(&c, 'a', t), REQVIEW_NONE);
	assert_int_equal(reqview_confirm_key(&c, 27, t), REQVIEW_NONE);
	assert_int_equal(c.state, REQVIEW_READY);
}

static void
test_reqview_confirm_wrong_code_draws_a_new_one(void **state)
{
	struct reqview_confirm c;
	uint64_t t = 0;
	char old[REQVIEW_CODE_LEN + 1];
	int changed = 0;

	(void)state;
	for (int i = 0; i < 50; i++) {
		reqview_confirm_start(&c, t);
		t += 1000;
		memcpy(old, c.code, sizeof old);
		assert_int_equal(reqview_confirm_key(&c, 'a', t), REQVIEW_NONE);
		/* 'a' is never in a code. */
		assert_int_equal(reqview_confirm_key(&c, 'a', t), REQVIEW_WRONG);
		assert_int_equal(c.state, REQVIEW_READY);
		changed += strcmp(old, c.code) != 0;
		/* Enter alone after a never approves. */
		assert_int_equal(reqview_confirm_key(&c, 'a', t), REQVIEW_NONE);
		assert_int_equal(reqview_confirm_key(&c, '\r', t), REQVIEW_WRONG);
	}
	assert_true(changed > 40);
}

static void
test_reqview_confirm_needs_the_whole_command_seen(void **state)
{
	struct reqview_confirm c;
	uint64_t t = 0;
	char *hint;

	(void)state;
	reqview_confirm_start(&c, t);
	reqview_confirm_set_seen(&c, false);
	t += 1000;
	assert_int_equal(reqview_confirm_key(&c, 'a', t), REQVIEW_UNSEEN);
	reqview_confirm_set_seen(&c, true);
	hint = reqview_confirm_hint(&c, "approve & run");
	assert_non_null(strstr(hint, " Enter: approve & run"));
	free(hint);
	assert_int_equal(reqview_confirm_key(&c, 'a', t), REQVIEW_NONE);
	hint = reqview_confirm_hint(&c, "approve & run");
	assert_non_null(strstr(hint, "typed 0 of 3"));
	free(hint);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reqview_word_plain_and_quoted),
		cmocka_unit_test(test_reqview_word_makes_invisible_visible),
		cmocka_unit_test(test_reqview_word_shows_padding),
		cmocka_unit_test(test_reqview_command_first_then_framed_justification),
		cmocka_unit_test(test_reqview_wraps_whole_command_without_hidden_spaces),
		cmocka_unit_test(test_reqview_narrow_lines_fit_and_stay_utf8),
		cmocka_unit_test(test_reqview_command_that_does_not_split),
		cmocka_unit_test(test_reqview_code_alphabet),
		cmocka_unit_test(test_reqview_confirm_approves_with_code_after_arming),
		cmocka_unit_test(test_reqview_confirm_typed_ahead_keys_are_discarded),
		cmocka_unit_test(test_reqview_confirm_cat_after_deciding_approves_nothing),
		cmocka_unit_test(test_reqview_confirm_terminal_replies_never_approve),
		cmocka_unit_test(test_reqview_confirm_deny_edit_quit_close),
		cmocka_unit_test(test_reqview_confirm_wrong_code_draws_a_new_one),
		cmocka_unit_test(test_reqview_confirm_needs_the_whole_command_seen),
	};

	if (setlocale(LC_ALL, "C.UTF-8") == NULL)
		fail_msg("C.UTF-8 locale missing");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
