/* test-widgets-reqprompt.c - the escalation prompt (reqprompt.c): the
 * command first, split words, long words wrapped, approval only of what was
 * seen; on a real ncurses screen. The fixture is widgettest.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <panel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reqprompt.h"
#include "reqview.h"
#include "shellwords.h"
#include "strv.h"
#include "widget.h"
#include "widgettest.h"

/* Keys to a prompt from time t on, one ms apart; the last action. */
static enum reqprompt_action
reqprompt_keys(struct reqprompt *p, const char *keys, uint64_t *t)
{
	enum reqprompt_action a = REQPROMPT_NONE;

	for (; *keys != '\0'; keys++)
		a = reqprompt_key_at(p, (unsigned char)*keys, ++*t);
	return a;
}

static void
test_reqprompt_shows_the_command_first_then_the_justification(void **state)
{
	struct wt_fixture *f = *state;
	char **argv = wt_strv("make", "test", "FOO=\x1b[31m red", "a\nb", NULL);
	struct reqview_request req = {
		.request_id = "3f2a9c0112345678", .profile = "web",
		.justification = "run the test suite on the host", .cwd = "/workspace", .argv = argv,
	};
	struct reqprompt *p;
	WINDOW *w;
	char *cmd, **back = NULL, chord[8];
	lz_err_t err = LZ_ERR_INIT;
	uint64_t t = 1000;
	int y, x;

	mvaddstr(12, 0, "shell output under the prompt");
	p = reqprompt_new(&req, LINES, COLS);
	reqprompt_restart(p, NULL, NULL, t);
	reqprompt_draw(p, &f->pal);
	wt_show();
	w = reqprompt_window(p);
	assert_int_equal(getmaxx(w), 76);
	y = getbegy(w);
	x = getbegx(w);
	/* What the terminal shows, read from curscr: the command first, whole. */
	assert_non_null(strstr(wt_row(curscr, y), "Host escalation request"));
	assert_non_null(strstr(wt_row(curscr, y + 1), "Command, 4 words:"));
	assert_non_null(strstr(wt_row(curscr, y + 2), "  make test $'FOO=\\x1b[31m red' $'a\\nb'"));
	assert_non_null(strstr(wt_row(curscr, y + 3), "Justification (the agent's words):"));
	assert_non_null(strstr(wt_row(curscr, y + 4), "  | run the test suite on the host"));
	assert_non_null(strstr(wt_row(curscr, y + 5), "Request 3f2a9c0112345678"));
	assert_non_null(strstr(wt_row(curscr, y + 6), "Profile web"));
	assert_non_null(strstr(wt_row(curscr, y + 7), "Directory /workspace"));
	/* Not armed yet: the action row says so. */
	assert_non_null(strstr(wt_row(curscr, y + 9), "read the request"));
	assert_true(wt_cell(curscr, y + 2, wt_col_of(curscr, y + 2, "make")).attr & A_BOLD);
	/* The prompt covers what was under it, border and all. */
	assert_int_equal(wt_cell(curscr, y, x).wch[0], 0x250c);
	assert_null(strstr(wt_row(curscr, 12), "shell output"));
	/* Keys before it arms are discarded, and keep it disarmed. */
	assert_int_equal(reqprompt_keys(p, "d", &t), REQPROMPT_NONE);
	assert_int_equal(reqprompt_last(p), REQVIEW_EARLY);
	t += REQVIEW_ARM_MS;
	assert_int_equal(reqprompt_arm_in(p, t), 0);
	reqprompt_draw(p, &f->pal);
	wt_show();
	snprintf(chord, sizeof chord, "%c%c%c", reqprompt_code(p)[0] - 32 * (reqprompt_code(p)[0] >= 'a'),
		 reqprompt_code(p)[1] - 32 * (reqprompt_code(p)[1] >= 'a'), reqprompt_code(p)[2] - 32 * (reqprompt_code(p)[2] >= 'a'));
	assert_non_null(strstr(wt_row(curscr, y + 9), "Enter: approve & run"));
	assert_int_equal(wt_cell(curscr, y + 9, wt_col_of(curscr, y + 9, chord)).pair, f->pal.style[THEME_PROMPT].pair);
	/* a alone, Enter alone: nothing. a, the code, Enter: approve. */
	assert_int_equal(reqprompt_keys(p, "a\r", &t), REQPROMPT_NONE);
	snprintf(chord, sizeof chord, "a%s\r", reqprompt_code(p));
	assert_int_equal(reqprompt_keys(p, chord, &t), REQPROMPT_APPROVE);
	assert_int_equal(reqprompt_keys(p, "D", &t), REQPROMPT_DENY);
	assert_int_equal(reqprompt_keys(p, "e", &t), REQPROMPT_EDIT);
	assert_int_equal(reqprompt_keys(p, "Q", &t), REQPROMPT_NONE);
	assert_int_equal(reqprompt_keys(p, "y", &t), REQPROMPT_QUIT);
	assert_int_equal(reqprompt_key_at(p, WIDGET_KEY_ESC, ++t), REQPROMPT_NONE);
	assert_int_equal(reqprompt_last(p), REQVIEW_CLOSE);
	/* A terminal's reply (ESC P folded to Alt-P) is reported, not obeyed. */
	assert_int_equal(reqprompt_key_at(p, 'P' | WIDGET_KEY_META, ++t), REQPROMPT_NONE);
	assert_int_equal(reqprompt_last(p), REQVIEW_REPLY);
	/* [E]dit starts from a string that splits back into the same argv. */
	cmd = reqprompt_command(p);
	assert_int_equal(lz_shellwords_split(cmd, strlen(cmd), &back, &err), 0);
	assert_int_equal(lz_strv_len(back), 4);
	assert_string_equal(back[2], argv[2]);
	assert_string_equal(back[3], argv[3]);
	lz_strv_free(back);
	free(cmd);
	/* An edit shown again: its own title, verb and a new code. */
	reqprompt_restart(p, "make check", "run the edited command", t);
	reqprompt_draw(p, &f->pal);
	wt_show();
	w = reqprompt_window(p);
	assert_non_null(strstr(wt_row(w, 0), "your edit"));
	assert_non_null(strstr(wt_row(w, 1), "Command, 2 words:"));
	assert_non_null(strstr(wt_row(w, 2), "  make check"));
	t += REQVIEW_ARM_MS;
	snprintf(chord, sizeof chord, "a%s\r", reqprompt_code(p));
	assert_int_equal(reqprompt_keys(p, chord, &t), REQPROMPT_APPROVE);
	cmd = reqprompt_command(p);
	assert_string_equal(cmd, "make check");
	free(cmd);
	reqprompt_free(p);
	lz_strv_free(argv);
	wt_show();
	/* Gone: the screen under it shows again. */
	assert_non_null(strstr(wt_row(curscr, 12), "shell output"));
	erase();
}

static void
test_reqprompt_splits_a_command_line_or_shows_why_not(void **state)
{
	struct wt_fixture *f = *state;
	struct reqview_request req = { .request_id = "id", .profile = "web", .justification = "j",
				      .command = "grep -r 'a b' \"$HOME\"", .note = "not on the list" };
	struct reqprompt *p = reqprompt_new(&req, LINES, COLS);
	WINDOW *w = reqprompt_window(p);
	uint64_t t = 5000;
	char *cmd;

	reqprompt_draw(p, &f->pal);
	assert_non_null(strstr(wt_row(w, 1), "Command, 4 words:"));
	assert_non_null(strstr(wt_row(w, 2), "  grep -r 'a b' '$HOME'"));
	assert_non_null(strstr(wt_row(w, 7), "Note: not on the list"));
	assert_int_equal(wt_cell(w, 7, 3).pair, f->pal.style[THEME_TAB_ALERT].pair);
	/* [E]dit gets the line as the agent wrote it. */
	cmd = reqprompt_command(p);
	assert_string_equal(cmd, req.command);
	free(cmd);
	reqprompt_free(p);
	req.command = "echo 'unterminated\x1b";
	p = reqprompt_new(&req, LINES, COLS);
	reqprompt_restart(p, NULL, NULL, t);
	w = reqprompt_window(p);
	reqprompt_draw(p, &f->pal);
	assert_non_null(strstr(wt_row(w, 1), "does not split into words, cannot run"));
	assert_int_equal(wt_cell(w, 1, 3).pair, f->pal.style[THEME_TAB_ALERT].pair);
	assert_non_null(strstr(wt_row(w, 3), "  echo 'unterminated\\x1b"));
	/* Nothing to approve: a is refused, d denies. */
	t += REQVIEW_ARM_MS;
	assert_int_equal(reqprompt_keys(p, "a", &t), REQPROMPT_NONE);
	assert_int_equal(reqprompt_last(p), REQVIEW_UNSEEN);
	assert_int_equal(reqprompt_keys(p, "d", &t), REQPROMPT_DENY);
	reqprompt_free(p);
}

static void
test_reqprompt_wraps_long_words_and_approves_only_what_was_seen(void **state)
{
	struct wt_fixture *f = *state;
	char **argv = NULL;
	char longword[301], chord[8];
	struct reqview_request req = { .request_id = "id", .profile = "p", .justification = "j" };
	struct reqprompt *p;
	WINDOW *w;
	char all[8192] = "", flat[8192] = "", rows[64][128], *joined;
	uint64_t t = 1000;
	int y;

	memset(longword, 'x', 300);
	longword[300] = '\0';
	longword[150] = '\x1b';
	lz_strv_push(&argv, longword);
	for (int i = 0; i < 200; i++)
		lz_strv_pushf(&argv, "arg%d", i);
	req.argv = argv;
	p = reqprompt_new(&req, LINES, COLS);
	reqprompt_restart(p, NULL, NULL, t);
	reqprompt_draw(p, &f->pal);
	w = reqprompt_window(p);
	assert_int_equal(getmaxy(w), 24);
	assert_non_null(strstr(wt_row(w, 1), "Command, 201 words:"));
	assert_true(reqprompt_rows(p) > 20);
	assert_non_null(strstr(wt_row(w, 21), "rows 1-20 of"));
	assert_non_null(strstr(wt_row(w, 21), "(scroll to the end to approve)"));
	/* Not all of the command on screen yet: a is refused. */
	t += REQVIEW_ARM_MS;
	assert_int_equal(reqprompt_keys(p, "a", &t), REQPROMPT_NONE);
	assert_int_equal(reqprompt_last(p), REQVIEW_UNSEEN);
	/* Scroll through it: every byte is on some row, nothing lost. */
	for (y = 1; y <= 20; y++)
		snprintf(rows[y - 1], sizeof rows[0], "%s", wt_text_at(w, y, 2, 72));
	reqprompt_key_at(p, WIDGET_KEY_FN(KEY_END), ++t);
	assert_true(reqprompt_scroll(p) > 0 && reqprompt_scroll(p) <= 20);
	reqprompt_draw(p, &f->pal);
	for (y = 1; y <= 20; y++)
		snprintf(rows[reqprompt_scroll(p) + y - 1], sizeof rows[0], "%s", wt_text_at(w, y, 2, 72));
	for (y = 1; y < reqprompt_rows(p) && strncmp(rows[y], "Justification", 13) != 0; y++) {
		assert_memory_equal(rows[y], "  ", 2);
		for (char *c = rows[y]; *c != '\0'; c++)
			if (*c != ' ')
				strncat(all, c, 1);
	}
	joined = reqview_command(argv);
	for (char *c = joined; *c != '\0'; c++)
		if (*c != ' ')
			strncat(flat, c, 1);
	assert_string_equal(all, flat);
	assert_int_equal(strncmp(all, "$'", 2), 0);
	assert_int_equal(strspn(all + 2, "x"), 150);
	assert_int_equal(strncmp(all + 152, "\\x1b", 4), 0);
	free(joined);
	assert_non_null(strstr(wt_row(w, 21), "rows "));
	assert_null(strstr(wt_row(w, 21), "to approve"));
	snprintf(chord, sizeof chord, "a%s\r", reqprompt_code(p));
	assert_int_equal(reqprompt_keys(p, chord, &t), REQPROMPT_APPROVE);
	reqprompt_key_at(p, WIDGET_KEY_FN(KEY_DOWN), ++t);
	assert_int_equal(reqprompt_scroll(p), reqprompt_rows(p) - 20);
	reqprompt_key_at(p, WIDGET_KEY_FN(KEY_UP), ++t);
	assert_int_equal(reqprompt_scroll(p), reqprompt_rows(p) - 21);
	reqprompt_key_at(p, WIDGET_KEY_FN(KEY_PPAGE), ++t);
	assert_int_equal(reqprompt_scroll(p), reqprompt_rows(p) - 40 > 0 ? reqprompt_rows(p) - 40 : 0);
	/* A smaller screen re-wraps and re-centres. */
	reqprompt_resize(p, 10, 40);
	w = reqprompt_window(p);
	assert_int_equal(getmaxy(w), 10);
	assert_int_equal(getmaxx(w), 36);
	reqprompt_draw(p, &f->pal);
	assert_non_null(strstr(wt_row(w, 8), "Enter"));
	reqprompt_free(p);
	lz_strv_free(argv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reqprompt_shows_the_command_first_then_the_justification),
		cmocka_unit_test(test_reqprompt_splits_a_command_line_or_shows_why_not),
		cmocka_unit_test(test_reqprompt_wraps_long_words_and_approves_only_what_was_seen),
	};

	return cmocka_run_group_tests_name("widgets-reqprompt", tests, wt_setup, wt_teardown);
}
