/* test-wb-keys.c - the workbench key table: prefix state machine, key names,
 * defaults, rebinding, hints and help. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "wb/core/wb-keys.h"

static int
parse(const char *name)
{
	lz_err_t err = LZ_ERR_INIT;
	int key = -42;

	if (wb_keys_parse_key(name, &key, &err) < 0) {
		lz_err_clear(&err);
		return -42;
	}
	return key;
}

static const char *
name_of(int key)
{
	static char buf[WB_KEYS_NAME_MAX];

	wb_keys_key_name(key, buf);
	return buf;
}

static void
test_wb_keys_parses_control_meta_and_named_keys(void **state)
{
	(void)state;
	assert_int_equal(parse("C-a"), 1);
	assert_int_equal(parse("C-b"), 2);
	assert_int_equal(parse("C-A"), 1);
	assert_int_equal(parse("^A"), 1);
	assert_int_equal(parse("^b"), 2);
	assert_int_equal(parse("C-Space"), 0);
	assert_int_equal(parse("C-@"), 0);
	assert_int_equal(parse("C-["), 27);
	assert_int_equal(parse("C-\\"), 28);
	assert_int_equal(parse("C-?"), 127);
	assert_int_equal(parse("M-x"), 'x' | WIDGET_KEY_META);
	assert_int_equal(parse("C-M-b"), 2 | WIDGET_KEY_META);
	assert_int_equal(parse("M-C-b"), 2 | WIDGET_KEY_META);
	assert_int_equal(parse("M--"), '-' | WIDGET_KEY_META);
	assert_int_equal(parse("x"), 'x');
	assert_int_equal(parse("-"), '-');
	assert_int_equal(parse("^"), '^');
	assert_int_equal(parse("?"), '?');
	assert_int_equal(parse("\xc3\xa9"), 0xe9);
	assert_int_equal(parse("Tab"), 9);
	assert_int_equal(parse("tab"), 9);
	assert_int_equal(parse("Enter"), 13);
	assert_int_equal(parse("Escape"), 27);
	assert_int_equal(parse("Space"), ' ');
	assert_int_equal(parse("Up"), WIDGET_KEY_FN(KEY_UP));
	assert_int_equal(parse("PgDn"), WIDGET_KEY_FN(KEY_NPAGE));
	assert_int_equal(parse("F1"), WIDGET_KEY_FN(KEY_F(1)));
	assert_int_equal(parse("F12"), WIDGET_KEY_FN(KEY_F(12)));
	assert_int_equal(parse("M-F5"), WIDGET_KEY_FN(KEY_F(5)) | WIDGET_KEY_META);
	/* A function key and a character with the same number stay apart. */
	assert_int_not_equal(parse("\xc4\x83"), parse("Up"));
	assert_int_equal(parse("\xc4\x83"), 0x103);
}

static void
test_wb_keys_rejects_what_no_terminal_sends(void **state)
{
	lz_err_t err = LZ_ERR_INIT;
	int key = 7;

	(void)state;
	assert_int_equal(parse(""), -42);
	assert_int_equal(parse("C-1"), -42);
	assert_int_equal(parse("C-Up"), -42);
	assert_int_equal(parse("ab"), -42);
	assert_int_equal(parse("F13"), -42);
	assert_int_equal(parse("F0"), -42);
	assert_int_equal(parse("\x01"), -42);
	assert_int_equal(parse("\xff"), -42);
	assert_int_equal(parse("Bogus"), -42);
	assert_int_equal(wb_keys_parse_key("C-1", &key, &err), -1);
	assert_int_equal(key, 7);
	assert_non_null(strstr(err.msg, "C-1"));
	assert_non_null(strstr(err.msg, "letter"));
	lz_err_clear(&err);
	assert_int_equal(wb_keys_parse_key("Bogus", &key, &err), -1);
	assert_non_null(strstr(err.msg, "unknown key 'Bogus'"));
	lz_err_clear(&err);
}

static void
test_wb_keys_names_round_trip(void **state)
{
	static const char *const names[] = {
		"C-a", "C-b", "C-z", "M-x", "M-C-b", "Tab", "BTab", "Enter", "Escape", "Space", "BSpace",
		"Up", "PgUp", "F1", "F12", "M-F5", "C-Space", "C-\\", "C-]", "C-_", "c", "?", "[", "0",
		"\xc3\xa9", "\xe6\xbc\xa2",
	};

	(void)state;
	assert_string_equal(name_of(1), "C-a");
	assert_string_equal(name_of(2 | WIDGET_KEY_META), "M-C-b");
	assert_string_equal(name_of(WIDGET_KEY_FN(KEY_F(3))), "F3");
	assert_string_equal(name_of(0x6f22), "\xe6\xbc\xa2");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int k = parse(names[i]);

		assert_int_not_equal(k, -42);
		assert_int_equal(parse(name_of(k)), k);
	}
}

static void
test_wb_keys_prefix_then_key_runs_the_default_bindings(void **state)
{
	static const struct {
		int key;
		enum wb_keys_action a;
		int arg;
	} want[] = {
		{ 'c', WB_KEYS_NEW_TAB, 0 }, { 'n', WB_KEYS_NEXT_TAB, 0 }, { 'p', WB_KEYS_PREV_TAB, 0 },
		{ '0', WB_KEYS_SELECT_TAB, 0 }, { '7', WB_KEYS_SELECT_TAB, 7 }, { '9', WB_KEYS_SELECT_TAB, 9 },
		{ 'x', WB_KEYS_CLOSE_TAB, 0 }, { 'd', WB_KEYS_DETACH, 0 }, { 's', WB_KEYS_TOGGLE_PANEL, 0 },
		{ '\t', WB_KEYS_FOCUS_PANEL, 0 }, { '[', WB_KEYS_SCROLLBACK, 0 },
		/* C-a a sends C-a, as in screen: no key after the prefix approves. */
		{ 'a', WB_KEYS_SEND_PREFIX, 0 }, { 'A', WB_KEYS_UNBOUND, 0 },
		{ 'r', WB_KEYS_REQUEST, 0 }, { 'D', WB_KEYS_DENY, 0 }, { 'e', WB_KEYS_EDIT, 0 },
		{ '?', WB_KEYS_HELP, 0 }, { 1, WB_KEYS_SEND_PREFIX, 0 }, { 'z', WB_KEYS_UNBOUND, 0 },
	};
	struct wb_keys *k = wb_keys_new();
	int arg;

	(void)state;
	assert_int_equal(wb_keys_prefix(k), 1);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(wb_keys_feed(k, 1, &arg), WB_KEYS_PREFIX);
		assert_true(wb_keys_pending(k));
		assert_int_equal(wb_keys_feed(k, want[i].key, &arg), want[i].a);
		assert_int_equal(arg, want[i].arg);
		assert_false(wb_keys_pending(k));
	}
	wb_keys_free(k);
}

static void
test_wb_keys_keys_without_prefix_pass_through(void **state)
{
	struct wb_keys *k = wb_keys_new();
	int arg;

	(void)state;
	/* "d" typed into a shell is a "d", not a detach. */
	assert_int_equal(wb_keys_feed(k, 'd', &arg), WB_KEYS_PASS);
	assert_int_equal(wb_keys_feed(k, 'c', &arg), WB_KEYS_PASS);
	assert_int_equal(wb_keys_feed(k, 2, &arg), WB_KEYS_PASS);
	assert_int_equal(wb_keys_feed(k, WIDGET_KEY_NONE, &arg), WB_KEYS_PASS);
	/* An unbound key after the prefix is swallowed; the next one passes. */
	assert_int_equal(wb_keys_feed(k, 1, &arg), WB_KEYS_PREFIX);
	assert_int_equal(wb_keys_feed(k, 'z', &arg), WB_KEYS_UNBOUND);
	assert_int_equal(wb_keys_feed(k, 'd', &arg), WB_KEYS_PASS);
	/* A cancelled prefix leaves the next key alone. */
	assert_int_equal(wb_keys_feed(k, 1, &arg), WB_KEYS_PREFIX);
	wb_keys_cancel(k);
	assert_int_equal(wb_keys_feed(k, 'd', &arg), WB_KEYS_PASS);
	wb_keys_free(k);
}

static void
test_wb_keys_prefix_is_configurable(void **state)
{
	struct wb_keys *k = wb_keys_new();
	lz_err_t err = LZ_ERR_INIT;
	int arg;

	(void)state;
	assert_int_equal(wb_keys_set_prefix(k, "C-b", &err), 0);
	assert_int_equal(wb_keys_feed(k, 1, &arg), WB_KEYS_PASS);
	assert_int_equal(wb_keys_feed(k, 2, &arg), WB_KEYS_PREFIX);
	assert_int_equal(wb_keys_feed(k, 'd', &arg), WB_KEYS_DETACH);
	assert_int_equal(wb_keys_feed(k, 2, &arg), WB_KEYS_PREFIX);
	assert_int_equal(wb_keys_feed(k, 2, &arg), WB_KEYS_SEND_PREFIX);
	assert_int_equal(wb_keys_set_prefix(k, "M-x", &err), 0);
	assert_int_equal(wb_keys_feed(k, 'x', &arg), WB_KEYS_PASS);
	assert_int_equal(wb_keys_feed(k, 'x' | WIDGET_KEY_META, &arg), WB_KEYS_PREFIX);
	assert_int_equal(wb_keys_feed(k, 'n', &arg), WB_KEYS_NEXT_TAB);
	assert_int_equal(wb_keys_set_prefix(k, "C-9", &err), -1);
	assert_non_null(strstr(err.msg, "prefix: "));
	assert_int_equal(wb_keys_prefix(k), 'x' | WIDGET_KEY_META);
	lz_err_clear(&err);
	wb_keys_free(k);
}

static void
test_wb_keys_rebind_and_unbind(void **state)
{
	struct wb_keys *k = wb_keys_new();
	lz_err_t err = LZ_ERR_INIT;
	int arg;

	(void)state;
	assert_int_equal(wb_keys_bind(k, "q", "detach", &err), 0);
	assert_int_equal(wb_keys_lookup(k, 'q', &arg), WB_KEYS_DETACH);
	assert_int_equal(wb_keys_bind(k, "d", "deny", &err), 0);
	assert_int_equal(wb_keys_lookup(k, 'd', &arg), WB_KEYS_DENY);
	assert_int_equal(wb_keys_bind(k, "F2", "select-tab 12", &err), 0);
	assert_int_equal(wb_keys_lookup(k, WIDGET_KEY_FN(KEY_F(2)), &arg), WB_KEYS_SELECT_TAB);
	assert_int_equal(arg, 12);
	assert_int_equal(wb_keys_bind(k, "Enter", "new-tab", &err), 0);
	assert_int_equal(wb_keys_lookup(k, '\n', &arg), WB_KEYS_NEW_TAB);
	assert_int_equal(wb_keys_lookup(k, WIDGET_KEY_FN(KEY_ENTER), &arg), WB_KEYS_NEW_TAB);
	/* The prefix bound to something else no longer sends itself. */
	assert_int_equal(wb_keys_bind(k, "C-a", "next-tab", &err), 0);
	assert_int_equal(wb_keys_lookup(k, 1, &arg), WB_KEYS_NEXT_TAB);
	assert_int_equal(wb_keys_unbind(k, "C-a", &err), 0);
	assert_int_equal(wb_keys_lookup(k, 1, &arg), WB_KEYS_SEND_PREFIX);
	assert_int_equal(wb_keys_unbind(k, "c", &err), 0);
	assert_int_equal(wb_keys_lookup(k, 'c', &arg), WB_KEYS_UNBOUND);
	assert_int_equal(wb_keys_unbind(k, "c", &err), -1);
	assert_string_equal(err.msg, "c: not bound");
	lz_err_clear(&err);

	assert_int_equal(wb_keys_bind(k, "y", "explode", &err), -1);
	assert_non_null(strstr(err.msg, "unknown command 'explode'"));
	lz_err_clear(&err);
	assert_int_equal(wb_keys_bind(k, "y", "detach now", &err), -1);
	assert_string_equal(err.msg, "y: detach takes no argument");
	lz_err_clear(&err);
	assert_int_equal(wb_keys_bind(k, "y", "select-tab", &err), -1);
	assert_string_equal(err.msg, "y: select-tab needs a tab number");
	lz_err_clear(&err);
	assert_int_equal(wb_keys_bind(k, "y", "select-tab -1", &err), -1);
	lz_err_clear(&err);
	assert_int_equal(wb_keys_bind(k, "y", "select-tab 1000", &err), -1);
	lz_err_clear(&err);
	assert_int_equal(wb_keys_bind(k, "y", "select-tab 3x", &err), -1);
	lz_err_clear(&err);
	assert_int_equal(wb_keys_bind(k, "C-1", "detach", &err), -1);
	lz_err_clear(&err);
	assert_int_equal(wb_keys_lookup(k, 'y', &arg), WB_KEYS_UNBOUND);
	wb_keys_free(k);
}

static void
test_wb_keys_hints_and_help_follow_the_table(void **state)
{
	struct wb_keys *k = wb_keys_new();
	lz_err_t err = LZ_ERR_INIT;
	enum wb_keys_action esc[] = { WB_KEYS_REQUEST, WB_KEYS_DENY, WB_KEYS_EDIT };
	char *h;
	char **lines;
	bool seen_fold = false, seen_detach = false, seen_send = false;

	(void)state;
	h = wb_keys_hints(k, NULL, 0);
	assert_string_equal(h, "C-a: c new n next s panel Tab focus d detach ? help");
	free(h);
	h = wb_keys_hints(k, esc, 3);
	assert_string_equal(h, "C-a: r request D deny e edit");
	free(h);
	assert_int_equal(wb_keys_set_prefix(k, "C-b", &err), 0);
	assert_int_equal(wb_keys_bind(k, "q", "detach", &err), 0);
	assert_int_equal(wb_keys_unbind(k, "d", &err), 0);
	h = wb_keys_hints(k, NULL, 0);
	assert_string_equal(h, "C-b: c new n next s panel Tab focus q detach ? help");
	free(h);
	lines = wb_keys_help(k);
	for (size_t i = 0; lines[i] != NULL; i++) {
		if (strstr(lines[i], "C-b q ") == lines[i] && strstr(lines[i], "detach") != NULL)
			seen_detach = true;
		if (strstr(lines[i], "C-b C-b ") == lines[i] && strstr(lines[i], "send-prefix") != NULL)
			seen_send = true;
		assert_null(strstr(lines[i], "C-b d "));
	}
	assert_true(seen_detach);
	assert_true(seen_send);
	/* 0..9 fold into one line, so the page fits a screen. */
	assert_true(lz_strv_len(lines) >= 14 && lz_strv_len(lines) <= 26);
	for (size_t i = 0; lines[i] != NULL; i++)
		if (strstr(lines[i], "C-b 0-9") == lines[i])
			seen_fold = true;
	assert_true(seen_fold);
	lz_strv_free(lines);
	assert_string_equal(wb_keys_action_name(WB_KEYS_SCROLLBACK), "scrollback");
	assert_null(wb_keys_action_name(WB_KEYS_PASS));
	assert_non_null(wb_keys_action_help(WB_KEYS_DETACH));
	assert_non_null(wb_keys_binding(k, 0));
	assert_null(wb_keys_binding(k, 1000));
	wb_keys_free(k);
}

static void
test_wb_keys_folds_escape_into_meta(void **state)
{
	int a[] = { 27, 'x', 'y', 27, 27, 'b', 27 };
	int b[] = { 27 };
	int c[] = { 27, WIDGET_KEY_FN(KEY_UP), 'q' };

	(void)state;
	assert_int_equal(wb_keys_fold_meta(a, 7), 5);
	assert_int_equal(a[0], 'x' | WIDGET_KEY_META);
	assert_int_equal(a[1], 'y');
	assert_int_equal(a[2], 27);
	assert_int_equal(a[3], 'b' | WIDGET_KEY_META);
	assert_int_equal(a[4], 27);
	assert_int_equal(wb_keys_fold_meta(b, 1), 1);
	assert_int_equal(b[0], 27);
	assert_int_equal(wb_keys_fold_meta(c, 3), 2);
	assert_int_equal(c[0], WIDGET_KEY_FN(KEY_UP) | WIDGET_KEY_META);
	assert_int_equal(wb_keys_fold_meta(NULL, 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wb_keys_parses_control_meta_and_named_keys),
		cmocka_unit_test(test_wb_keys_rejects_what_no_terminal_sends),
		cmocka_unit_test(test_wb_keys_names_round_trip),
		cmocka_unit_test(test_wb_keys_prefix_then_key_runs_the_default_bindings),
		cmocka_unit_test(test_wb_keys_keys_without_prefix_pass_through),
		cmocka_unit_test(test_wb_keys_prefix_is_configurable),
		cmocka_unit_test(test_wb_keys_rebind_and_unbind),
		cmocka_unit_test(test_wb_keys_hints_and_help_follow_the_table),
		cmocka_unit_test(test_wb_keys_folds_escape_into_meta),
	};

	return cmocka_run_group_tests_name("wb-keys", tests, NULL, NULL);
}
