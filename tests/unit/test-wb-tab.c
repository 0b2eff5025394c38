/* test-wb-tab.c - keys read by ncurses encoded back into what a program in
 * the PTY expects (arrows follow the application cursor mode; Ctrl/Alt/Shift
 * keys that terminfo names kLFT5, kf25... as xterm sends them), and the
 * workbench's tab file (wb-state.c) written and read back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "term.h"
#include "wb/core/wb-state.h"
#include "wb/core/wb-tab.h"
#include "widget.h"
#include "xmalloc.h"

/* What t has sent since the last call, as a NUL-terminated string (static buffer). */
static const char *
sent(struct term *t)
{
	static char buf[64];
	const char *out;
	size_t len;

	out = term_output(t, &len);
	assert_true(len < sizeof buf);
	if (len > 0)	/* no output may be a NULL pointer */
		memcpy(buf, out, len);
	buf[len] = '\0';
	term_output_consume(t, len);
	return buf;
}

/* What key encodes to (NULL: nothing to send). */
static const char *
enc(struct term *t, int key)
{
	(void)sent(t);
	if (!wb_tab_encode_key(t, key))
		return NULL;
	return sent(t);
}

static void
test_wb_tab_keys_arrive_as_the_pty_expects(void **state)
{
	struct term *t;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(term_new(24, 80, 0, &t, &err), 0);
	assert_string_equal(enc(t, 'a'), "a");
	assert_string_equal(enc(t, 0xe9), "\xc3\xa9");
	assert_string_equal(enc(t, '\r'), "\r");
	assert_string_equal(enc(t, 3), "\x03");		/* C-c */
	assert_string_equal(enc(t, 1), "\x01");		/* C-a (send-prefix) */
	assert_string_equal(enc(t, 28), "\x1c");	/* C-\ */
	assert_string_equal(enc(t, 0), "");		/* C-@ is a NUL byte */
	assert_string_equal(enc(t, 127), "\x7f");
	assert_string_equal(enc(t, WIDGET_KEY_FN(KEY_BACKSPACE)), "\x7f");
	assert_string_equal(enc(t, 27), "\x1b");
	assert_string_equal(enc(t, 'x' | WIDGET_KEY_META), "\x1bx");
	assert_string_equal(enc(t, WIDGET_KEY_FN(KEY_UP)), "\x1b[A");
	assert_string_equal(enc(t, WIDGET_KEY_FN(KEY_LEFT)), "\x1b[D");
	assert_string_equal(enc(t, WIDGET_KEY_FN(KEY_HOME)), "\x1b[H");
	assert_string_equal(enc(t, WIDGET_KEY_FN(KEY_NPAGE)), "\x1b[6~");
	assert_string_equal(enc(t, WIDGET_KEY_FN(KEY_DC)), "\x1b[3~");
	assert_string_equal(enc(t, WIDGET_KEY_FN(KEY_F(1))), "\x1bOP");
	assert_string_equal(enc(t, WIDGET_KEY_FN(KEY_F(5))), "\x1b[15~");
	assert_string_equal(enc(t, WIDGET_KEY_FN(KEY_BTAB)), "\x1b[Z");
	assert_string_equal(enc(t, WIDGET_KEY_FN(KEY_SRIGHT)), "\x1b[1;2C");
	assert_null(enc(t, WIDGET_KEY_FN(KEY_RESIZE)));
	assert_null(enc(t, WIDGET_KEY_NONE));
	/* vim and less switch the cursor keys to application mode (DECCKM). */
	term_feed(t, "\033[?1h", 5);
	assert_string_equal(enc(t, WIDGET_KEY_FN(KEY_UP)), "\x1bOA");
	term_feed(t, "\033[?1l", 5);
	assert_string_equal(enc(t, WIDGET_KEY_FN(KEY_UP)), "\x1b[A");
	term_free(t);
}

/* The capability's key and modifiers as xterm would send them. */
static const char *
cap_seq(struct term *t, const char *name, const char *value)
{
	VTermModifier mod;
	VTermKey key;

	if (!wb_tab_cap_key(name, value, &key, &mod))
		return NULL;
	(void)sent(t);
	term_key(t, key, mod);
	return sent(t);
}

static void
test_wb_tab_cap_suffix_names_the_modifiers(void **state)
{
	struct term *t;
	lz_err_t err = LZ_ERR_INIT;
	VTermModifier mod;
	VTermKey key;

	(void)state;
	assert_int_equal(term_new(24, 80, 0, &t, &err), 0);
	assert_true(wb_tab_cap_key("kLFT5", NULL, &key, &mod));
	assert_int_equal(key, VTERM_KEY_LEFT);
	assert_int_equal(mod, VTERM_MOD_CTRL);
	assert_true(wb_tab_cap_key("kNXT4", NULL, &key, &mod));
	assert_int_equal(key, VTERM_KEY_PAGEDOWN);
	assert_int_equal(mod, VTERM_MOD_SHIFT | VTERM_MOD_ALT);
	assert_true(wb_tab_cap_key("kHOM8", NULL, &key, &mod));
	assert_int_equal(mod, VTERM_MOD_SHIFT | VTERM_MOD_ALT | VTERM_MOD_CTRL);
	assert_string_equal(cap_seq(t, "kLFT5", NULL), "\033[1;5D");	/* readline backward-word */
	assert_string_equal(cap_seq(t, "kRIT5", NULL), "\033[1;5C");
	assert_string_equal(cap_seq(t, "kUP2", NULL), "\033[1;2A");
	assert_string_equal(cap_seq(t, "kUP", NULL), "\033[1;2A");	/* no suffix: Shift */
	assert_string_equal(cap_seq(t, "kRIT3", NULL), "\033[1;3C");
	assert_string_equal(cap_seq(t, "kDN4", NULL), "\033[1;4B");
	assert_string_equal(cap_seq(t, "kHOM6", NULL), "\033[1;6H");
	assert_string_equal(cap_seq(t, "kEND7", NULL), "\033[1;7F");
	assert_string_equal(cap_seq(t, "kDC5", NULL), "\033[3;5~");
	assert_string_equal(cap_seq(t, "kIC2", NULL), "\033[2;2~");
	assert_string_equal(cap_seq(t, "kPRV5", NULL), "\033[5;5~");
	assert_string_equal(cap_seq(t, "kNXT5", NULL), "\033[6;5~");
	assert_string_equal(cap_seq(t, "kf25", "\033[1;5P"), "\033[1;5P");	/* Ctrl-F1 */
	assert_string_equal(cap_seq(t, "kf29", NULL), "\033[15;5~");		/* Ctrl-F5 */
	assert_string_equal(cap_seq(t, "kf60", "\033[24;3~"), "\033[24;3~");	/* Alt-F12 */
	assert_string_equal(cap_seq(t, "kf63", NULL), "\033[1;4R");		/* Shift-Alt-F3 */
	/* Not a modifier suffix, Meta (libvterm has none), not a key of ours. */
	assert_null(cap_seq(t, "kLFT1", NULL));
	assert_null(cap_seq(t, "kLFT9", NULL));
	assert_null(cap_seq(t, "kLFT55", NULL));
	assert_null(cap_seq(t, "kUPX", NULL));
	assert_null(cap_seq(t, "kmous", NULL));
	assert_null(cap_seq(t, "kf12", NULL));
	assert_null(cap_seq(t, "kf64", NULL));
	assert_null(cap_seq(t, "kf2x", NULL));
	/* A terminal whose kf13 is not xterm's Shift-F1 (rxvt: Shift-F3) keeps its own. */
	assert_null(cap_seq(t, "kf13", "\033[25~"));
	assert_null(cap_seq(t, "kf25", "\033[1;2P"));
	term_free(t);
}

/* Sequences xterm-256color's terminfo names (kLFT5, kDC5, kf25...): ncurses
 * reads each as one key, and the tab's program gets the same bytes. */
static void
test_wb_tab_modified_keys_from_terminfo_reach_the_pty(void **state)
{
	static const char *const seqs[] = {
		"\033[1;5D", "\033[1;5C", "\033[1;2A", "\033[1;3C", "\033[1;3D", "\033[1;7B",
		"\033[1;5H", "\033[1;5F", "\033[1;2H", "\033[1;2F", "\033[3;5~", "\033[2;2~",
		"\033[5;5~", "\033[6;5~", "\033[5;2~", "\033[1;5P", "\033[15;5~", "\033[1;2S",
		"\033[24;3~", "\033[1;6A",
	};
	struct term *t;
	lz_err_t err = LZ_ERR_INIT;
	const char *got;
	FILE *out, *in;
	SCREEN *scr;
	wint_t wch;
	int fds[2], key, rc;
	size_t i;

	(void)state;
	assert_int_equal(term_new(24, 80, 0, &t, &err), 0);
	assert_int_equal(pipe(fds), 0);
	out = fopen("/dev/null", "w");
	in = fdopen(fds[0], "r");
	assert_non_null(out);
	assert_non_null(in);
	scr = newterm("xterm-256color", out, in);
	assert_non_null(scr);
	set_term(scr);
	keypad(stdscr, TRUE);
	wtimeout(stdscr, 5000);
	for (i = 0; i < sizeof seqs / sizeof seqs[0]; i++) {
		assert_int_equal(write(fds[1], seqs[i], strlen(seqs[i])), (ssize_t)strlen(seqs[i]));
		rc = wget_wch(stdscr, &wch);
		key = widget_key_from_wch(rc, wch);
		if (!WIDGET_KEY_IS_FN(key))
			fail_msg("%s: ncurses gave no function key", seqs[i] + 1);
		if (strcmp(seqs[i], "\033[1;5D") == 0)
			assert_string_equal(keyname(key & 0xffffff), "kLFT5");
		got = enc(t, key);
		if (got == NULL || strcmp(got, seqs[i]) != 0)
			fail_msg("%s: the tab's program got %s", seqs[i] + 1,
			    got == NULL ? "nothing" : got + (got[0] == '\033'));
	}
	/* Esc before one of these keys (folded into Alt) still adds Alt: Ctrl-Shift-Alt-Up. */
	assert_string_equal(enc(t, key | WIDGET_KEY_META), "\033[1;8A");
	endwin();
	delscreen(scr);
	fclose(in);
	fclose(out);
	close(fds[1]);
	term_free(t);
}

/* A state file's path in a new directory made from template dir. */
static char *
wb_state_tmp(char *dir)
{
	assert_non_null(mkdtemp(dir));
	return xasprintf("%s/workbench.tabs", dir);
}

static void
test_wb_state_round_trips_and_skips_bad_lines(void **state)
{
	char dir[] = "/tmp/test-wb-state.XXXXXX", *path;
	struct wb_state_tab in[2] = {
		{ 3, (char *)"isolated", (char *)"default", (char *)"/home/u/proj" },
		{ 17, (char *)"direct", (char *)"web", (char *)"/home/u/my proj" },
	};
	struct wb_state_tab *out;
	lz_err_t err = LZ_ERR_INIT;
	size_t n;
	int panel;
	FILE *f;

	(void)state;
	path = wb_state_tmp(dir);
	assert_int_equal(wb_state_read(path, &out, &n, &panel, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(panel, -1);
	assert_int_equal(wb_state_write(path, in, 2, false, &err), 0);
	assert_int_equal(wb_state_read(path, &out, &n, &panel, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(panel, 0);	/* the panel's visibility comes back too */
	wb_state_tabs_free(out, n);
	assert_int_equal(wb_state_write(path, in, 2, true, &err), 0);
	assert_int_equal(wb_state_read(path, &out, &n, &panel, &err), 0);
	assert_int_equal(panel, 1);
	assert_int_equal(out[1].id, 17);
	assert_string_equal(out[1].mode, "direct");
	assert_string_equal(out[1].workspace, "/home/u/my proj");
	wb_state_tabs_free(out, n);
	/* A line that is not ours is skipped, the others kept. */
	f = fopen(path, "a");
	assert_non_null(f);
	fputs("0\tisolated\tx\t/a\n9\tsideways\tx\t/a\n5\tisolated\tx\trelative\n"
	    "4294967296\tisolated\tx\t/a\nnot a line\n8\tisolated\tok\t/b\n", f);
	fclose(f);
	assert_int_equal(wb_state_read(path, &out, &n, &panel, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(out[2].id, 8);
	wb_state_tabs_free(out, n);
	/* No tabs: no file. */
	assert_int_equal(wb_state_write(path, in, 0, true, &err), 0);
	assert_int_equal(access(path, F_OK), -1);
	rmdir(dir);
	free(path);
}

/* A tab's name (prefix ,) comes back with it; a name with a control
 * character (not one the rename leaves) is dropped, the tab kept; a
 * workspace with a tab in it is not saved (it would read back as another). */
static void
test_wb_state_keeps_tab_names(void **state)
{
	char dir[] = "/tmp/test-wb-state.XXXXXX", *path;
	struct wb_state_tab in[3] = {
		{ 3, (char *)"isolated", (char *)"default", (char *)"/p", (char *)"build \xc3\xa9" },
		{ 4, (char *)"isolated", (char *)"default", (char *)"/q", NULL },
		{ 5, (char *)"isolated", (char *)"default", (char *)"/r\tname", NULL },
	};
	struct wb_state_tab *out;
	lz_err_t err = LZ_ERR_INIT;
	size_t n;
	int panel;
	FILE *f;

	(void)state;
	path = wb_state_tmp(dir);
	assert_int_equal(wb_state_write(path, in, 3, true, &err), 0);
	assert_int_equal(wb_state_read(path, &out, &n, &panel, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(out[0].workspace, "/p");
	assert_string_equal(out[0].title, "build \xc3\xa9");
	assert_string_equal(out[1].workspace, "/q");
	assert_null(out[1].title);
	wb_state_tabs_free(out, n);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("6\tisolated\tx\t/a\tbad\x1b[2Jname\n7\tisolated\tx\t/b\t\n", f);
	fclose(f);
	assert_int_equal(wb_state_read(path, &out, &n, &panel, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(out[0].workspace, "/a");
	assert_null(out[0].title);
	assert_string_equal(out[1].workspace, "/b");
	assert_null(out[1].title);
	wb_state_tabs_free(out, n);
	unlink(path);
	rmdir(dir);
	free(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wb_tab_keys_arrive_as_the_pty_expects),
		cmocka_unit_test(test_wb_tab_cap_suffix_names_the_modifiers),
		cmocka_unit_test(test_wb_tab_modified_keys_from_terminfo_reach_the_pty),
		cmocka_unit_test(test_wb_state_round_trips_and_skips_bad_lines),
		cmocka_unit_test(test_wb_state_keeps_tab_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
