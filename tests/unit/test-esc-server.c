/* test-esc-server.c - the escalation server on a real libuv loop, against
 * the real static lazaret-escalate ($LAZARET_BUILD/lazaret-escalate) over a
 * real UNIX socket with mTLS: auto-approval, human decisions (approve, deny,
 * edit, quit), the decision timeout, the pending cap and the back-off after
 * denials, and their audit records. Host commands really run (echo, false)
 * in a temp workspace. The fixture is esctest.c; the connection and audit
 * guards and where a command runs have files of their own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>
#include <cmocka.h>

#include "escalation/esc-server.h"
#include "esctest.h"
#include "testutil.h"
#include "xmalloc.h"

static void
test_esc_server_auto_approves_exact_entry_and_runs_it(void **state)
{
	struct es_fx *f = *state;

	ES_NEED_BIN(f);
	es_run(f, (const char *[]){ "--", "echo", "hi", NULL });
	assert_int_equal(f->status, 0);
	assert_string_equal(f->got_out, "hi\n");
	assert_int_equal(f->prompts, 0);
	es_assert_has(f->audit, "esc.request");
	es_assert_has(f->audit, "\"verdict\":\"auto-approve\"");
	es_assert_has(f->audit, "esc.decision policy {\"action\":\"auto-approve\"}");
	es_assert_has(f->audit, "\"exit_status\":0");
	es_assert_has(f->audit, "\"output_bytes\":3");
}

static void
test_esc_server_returns_the_host_exit_status(void **state)
{
	struct es_fx *f = *state;

	ES_NEED_BIN(f);
	es_run(f, (const char *[]){ "false", NULL });
	assert_int_equal(f->status, 1);
}

static void
test_esc_server_appended_argument_prompts_then_approve_runs(void **state)
{
	struct es_fx *f = *state;

	ES_NEED_BIN(f);
	f->decide = true;
	f->action = ESC_CTL_APPROVE;
	es_run(f, (const char *[]){ "--justify", "say more", "--", "echo", "hi", "there", NULL });
	assert_int_equal(f->prompts, 1);
	es_assert_has(f->reason, "appended");
	assert_int_equal(f->status, 0);
	assert_string_equal(f->got_out, "hi there\n");
	es_assert_has(f->got_err, "waiting for approval");
	es_assert_has(f->audit, "esc.decision uid 1 pid 2 {\"action\":\"approve\"}");
}

static void
test_esc_server_deny_exits_126_and_runs_nothing(void **state)
{
	struct es_fx *f = *state;
	char *m;

	ES_NEED_BIN(f);
	f->decide = true;
	f->action = ESC_CTL_DENY;
	es_run(f, (const char *[]){ "touch", "marker", NULL });
	assert_int_equal(f->status, 126);
	es_assert_has(f->got_err, "denied by the user");
	m = xasprintf("%s/marker", f->ws);
	assert_int_not_equal(access(m, F_OK), 0);
	free(m);
}

static void
test_esc_server_edit_runs_the_edited_argv_without_a_shell(void **state)
{
	struct es_fx *f = *state;

	ES_NEED_BIN(f);
	f->decide = true;
	f->action = ESC_CTL_EDIT;
	f->edited = "echo 'two words' ';' $HOME";
	es_run(f, (const char *[]){ "echo", "wrong", NULL });
	assert_int_equal(f->status, 0);
	assert_string_equal(f->got_out, "two words ; $HOME\n");
	es_assert_has(f->audit, "\"edited\":\"echo 'two words' ';' $HOME\"");
	es_assert_has(f->audit, "\"edited_verdict\":\"needs-prompt\",\"edited_why\":\"contains ';'");
}

static void
test_esc_server_edit_that_does_not_split_is_denied(void **state)
{
	struct es_fx *f = *state;

	ES_NEED_BIN(f);
	f->decide = true;
	f->action = ESC_CTL_EDIT;
	f->edited = "echo 'unterminated";
	es_run(f, (const char *[]){ "echo", "x", NULL });
	assert_int_equal(f->status, 126);
	es_assert_has(f->got_err, "does not parse");
}

static void
test_esc_server_quit_denies_and_asks_for_shutdown(void **state)
{
	struct es_fx *f = *state;

	ES_NEED_BIN(f);
	f->decide = true;
	f->action = ESC_CTL_QUIT;
	es_run(f, (const char *[]){ "echo", "x", NULL });
	assert_int_equal(f->status, 126);
	assert_int_equal(f->quits, 1);
	es_assert_has(f->got_err, "quit");
}

static void
test_esc_server_no_decision_times_out_124(void **state)
{
	struct es_fx *f = *state;

	ES_NEED_BIN(f);
	es_run(f, (const char *[]){ "echo", "nobody", "answers", NULL });
	assert_int_equal(f->prompts, 1);
	assert_int_equal(f->status, 124);
	es_assert_has(f->got_err, "no decision within 1 s");
	es_assert_has(f->audit, "\"action\":\"timeout\"");
}

/* Prompt fatigue: a fifth request of a session while four wait is refused
 * (125, audited); the four still get their answers. */
static void
test_esc_server_caps_pending_requests_per_session(void **state)
{
	struct es_fx *f = *state;
	struct es_bg b[ESC_PENDING_MAX];
	int i;

	ES_NEED_BIN(f);
	es_restart(f, 60000);
	for (i = 0; i < ESC_PENDING_MAX; i++)
		es_bg_start(f, &b[i], (const char *[]){ "--", "echo", "waits", NULL });
	while (f->prompts < ESC_PENDING_MAX && !b[0].exited)
		uv_run(&f->loop, UV_RUN_ONCE);
	assert_int_equal(f->prompts, ESC_PENDING_MAX);
	es_run(f, (const char *[]){ "--", "echo", "fifth", NULL });
	assert_int_equal(f->status, 125);
	es_assert_has(f->got_err, "4 requests waiting for a decision already (at most 4)");
	es_assert_has(f->audit, "esc.refused coordinator {\"reason\":\"session ");
	assert_int_equal(f->prompts, ESC_PENDING_MAX);
	es_restart(f, 1000);	/* denies the four: the coordinator is shutting down */
	for (i = 0; i < ESC_PENDING_MAX; i++) {
		while (!b[i].exited)
			uv_run(&f->loop, UV_RUN_ONCE);
		assert_int_equal(b[i].status, 126);
	}
}

/* After three denials in a row the session waits before it may prompt
 * again; auto-approved commands still run; an approval would reset it. */
static void
test_esc_server_backs_off_after_denials(void **state)
{
	struct es_fx *f = *state;
	int i;

	ES_NEED_BIN(f);
	f->decide = true;
	f->action = ESC_CTL_DENY;
	for (i = 0; i <= ESC_DENIALS_FREE; i++) {
		es_run(f, (const char *[]){ "echo", "again", NULL });
		assert_int_equal(f->status, 126);
	}
	es_run(f, (const char *[]){ "echo", "again", NULL });
	assert_int_equal(f->status, 125);
	es_assert_has(f->got_err, "the last 3 requests were denied; ask again in 10 s");
	es_assert_has(f->audit, "esc.refused coordinator {\"reason\":\"session ");
	assert_int_equal(f->prompts, ESC_DENIALS_FREE + 1);
	es_run(f, (const char *[]){ "echo", "hi", NULL });
	assert_int_equal(f->status, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(n) cmocka_unit_test_setup_teardown(n, es_setup, es_teardown)
		T(test_esc_server_auto_approves_exact_entry_and_runs_it),
		T(test_esc_server_returns_the_host_exit_status),
		T(test_esc_server_appended_argument_prompts_then_approve_runs),
		T(test_esc_server_deny_exits_126_and_runs_nothing),
		T(test_esc_server_edit_runs_the_edited_argv_without_a_shell),
		T(test_esc_server_edit_that_does_not_split_is_denied),
		T(test_esc_server_quit_denies_and_asks_for_shutdown),
		T(test_esc_server_no_decision_times_out_124),
		T(test_esc_server_caps_pending_requests_per_session),
		T(test_esc_server_backs_off_after_denials),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
