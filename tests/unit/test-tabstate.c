/* test-tabstate.c - who needs me: the states a session goes through, their
 * order of precedence, one change reported once, and screens an agent
 * controls that must not look like a prompt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tabstate.h"

static void
test_tabstate_quiet_prompt_becomes_input_once_and_output_clears_it(void **state)
{
	struct tabstate ts;
	char text[32];

	(void)state;
	tabstate_init(&ts);
	assert_false(tabstate_update(&ts, 0, true));
	assert_int_equal(ts.state, TABSTATE_STARTING);
	tabstate_started(&ts, 1000);
	assert_true(tabstate_update(&ts, 1000, true));
	assert_int_equal(ts.state, TABSTATE_RUNNING);
	/* quiet, but not long enough yet */
	assert_false(tabstate_update(&ts, 1000 + TABSTATE_QUIET_MS - 1, true));
	assert_true(tabstate_update(&ts, 1000 + TABSTATE_QUIET_MS, true));
	assert_int_equal(ts.state, TABSTATE_INPUT);
	assert_true(tabstate_needs_me(ts.state));
	assert_string_equal(tabstate_mark(ts.state), "?");
	/* staying there is no change: a front notifies once */
	assert_false(tabstate_update(&ts, 5000, true));
	assert_false(tabstate_update(&ts, 9000, true));
	tabstate_output(&ts, 9000);
	assert_true(tabstate_update(&ts, 9001, true));
	assert_int_equal(ts.state, TABSTATE_RUNNING);
	tabstate_text(&ts, text, sizeof text);
	assert_string_equal(text, "running");
}

static void
test_tabstate_quiet_without_an_input_line_keeps_running(void **state)
{
	struct tabstate ts;

	(void)state;
	tabstate_init(&ts);
	tabstate_started(&ts, 0);
	assert_true(tabstate_update(&ts, 60000, false));
	assert_int_equal(ts.state, TABSTATE_RUNNING);
}

static void
test_tabstate_bell_waits_until_the_user_types(void **state)
{
	struct tabstate ts;

	(void)state;
	tabstate_init(&ts);
	tabstate_started(&ts, 0);
	tabstate_bell(&ts);
	tabstate_output(&ts, 10);
	assert_true(tabstate_update(&ts, 10, false));
	assert_int_equal(ts.state, TABSTATE_INPUT);
	tabstate_key(&ts);
	assert_true(tabstate_update(&ts, 20, false));
	assert_int_equal(ts.state, TABSTATE_RUNNING);
}

static void
test_tabstate_approval_outranks_input_and_clears(void **state)
{
	struct tabstate ts;

	(void)state;
	tabstate_init(&ts);
	tabstate_started(&ts, 0);
	tabstate_bell(&ts);
	tabstate_approvals(&ts, 2);
	assert_true(tabstate_update(&ts, 5000, true));
	assert_int_equal(ts.state, TABSTATE_APPROVAL);
	assert_string_equal(tabstate_mark(ts.state), "!");
	tabstate_approvals(&ts, 0);
	/* input to approval and back are changes each */
	assert_true(tabstate_update(&ts, 5001, true));
	assert_int_equal(ts.state, TABSTATE_INPUT);
}

static void
test_tabstate_ends_are_final_and_a_limit_explains_an_exit(void **state)
{
	struct tabstate ts;
	char text[32];

	(void)state;
	tabstate_init(&ts);
	tabstate_started(&ts, 0);
	tabstate_exited(&ts, 137, false);
	tabstate_approvals(&ts, 1);
	assert_true(tabstate_update(&ts, 10, true));
	assert_int_equal(ts.state, TABSTATE_EXITED);
	tabstate_text(&ts, text, sizeof text);
	assert_string_equal(text, "exited 137");
	assert_false(tabstate_needs_me(ts.state));
	tabstate_exited(&ts, 0, false);	/* a second end does not replace the first */
	assert_int_equal(ts.status, 137);
	tabstate_exited(&ts, 137, true);
	assert_true(tabstate_update(&ts, 20, true));
	assert_int_equal(ts.state, TABSTATE_LIMIT);
	tabstate_init(&ts);
	tabstate_failed(&ts);
	assert_true(tabstate_update(&ts, 0, false));
	assert_string_equal(tabstate_name(ts.state), "failed");
}

static void
test_tabstate_clock_going_back_is_not_quiet(void **state)
{
	struct tabstate ts;

	(void)state;
	tabstate_init(&ts);
	tabstate_started(&ts, 100000);
	assert_true(tabstate_update(&ts, 5, true));
	assert_int_equal(ts.state, TABSTATE_RUNNING);
}

static void
test_tabstate_input_line_prompts_and_not_prompts(void **state)
{
	(void)state;
	assert_true(tabstate_input_line("root@box:/workspace# ", "", true));
	assert_true(tabstate_input_line("$ ", "      ", true));
	/* an agent's input box: its right border after the cursor */
	assert_true(tabstate_input_line("\xe2\x94\x82 > ", "        \xe2\x94\x82", true));
	/* a new empty line (a program running), a hidden cursor, text after it */
	assert_false(tabstate_input_line("", "", true));
	assert_false(tabstate_input_line("   ", "", true));
	assert_false(tabstate_input_line("$ ", "", false));
	assert_false(tabstate_input_line("$ ls", " -l", true));
	/* bytes an agent may print: not a border, never a crash */
	assert_false(tabstate_input_line("> ", "\xe2\x94", true));
	assert_false(tabstate_input_line("> ", "\xe2", true));
	assert_false(tabstate_input_line("> ", "\x1b[2J", true));
	assert_false(tabstate_input_line(NULL, "", true));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tabstate_quiet_prompt_becomes_input_once_and_output_clears_it),
		cmocka_unit_test(test_tabstate_quiet_without_an_input_line_keeps_running),
		cmocka_unit_test(test_tabstate_bell_waits_until_the_user_types),
		cmocka_unit_test(test_tabstate_approval_outranks_input_and_clears),
		cmocka_unit_test(test_tabstate_ends_are_final_and_a_limit_explains_an_exit),
		cmocka_unit_test(test_tabstate_clock_going_back_is_not_quiet),
		cmocka_unit_test(test_tabstate_input_line_prompts_and_not_prompts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
