/* test-wb-tab.c - keys read by ncurses encoded back into what a program in
 * the PTY expects (arrows follow the application cursor mode), and the
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
#include "wb-state.h"
#include "wb-tab.h"
#include "widget.h"
#include "xmalloc.h"

/* What key encodes to, as a NUL-terminated string (static buffer). */
static const char *
enc(struct term *t, int key)
{
	static char buf[64];
	const char *out;
	size_t len;

	(void)term_output(t, &len);
	term_output_consume(t, len);
	if (!wb_tab_encode_key(t, key))
		return NULL;
	out = term_output(t, &len);
	assert_true(len < sizeof buf);
	memcpy(buf, out, len);
	buf[len] = '\0';
	term_output_consume(t, len);
	return buf;
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
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/workbench.tabs", dir);
	assert_int_equal(wb_state_read(path, &out, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(wb_state_write(path, in, 2, &err), 0);
	assert_int_equal(wb_state_read(path, &out, &n, &err), 0);
	assert_int_equal(n, 2);
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
	assert_int_equal(wb_state_read(path, &out, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(out[2].id, 8);
	wb_state_tabs_free(out, n);
	/* No tabs: no file. */
	assert_int_equal(wb_state_write(path, in, 0, &err), 0);
	assert_int_equal(access(path, F_OK), -1);
	rmdir(dir);
	free(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wb_tab_keys_arrive_as_the_pty_expects),
		cmocka_unit_test(test_wb_state_round_trips_and_skips_bad_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
