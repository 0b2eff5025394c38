/* test-esc-server-conn.c - the escalation server's guards before a
 * request is heard (esc-conn.c, esc-audit.c): one commit for a request and
 * its decision, an unknown session, the connection limit, nothing run
 * unaudited; against the real lazaret-escalate. The fixture is esctest.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <uv.h>
#include <cmocka.h>

#include "escalation/esc-server.h"
#include "esctest.h"
#include "testutil.h"
#include "xmalloc.h"

/* The request's row and the policy's decision are one commit (one trip
 * to the store before the command runs); the result is a row of its own. */
static void
test_esc_server_request_and_decision_rows_commit_together(void **state)
{
	struct es_fx *f = *state;
	const char *tx, *nl;

	ES_NEED_BIN(f);
	es_run(f, (const char *[]){ "--", "echo", "hi", NULL });
	assert_int_equal(f->status, 0);
	tx = strstr(f->audit, "tx 2\nesc.request ");
	assert_non_null(tx);
	nl = strchr(tx + 5, '\n');
	assert_non_null(nl);
	assert_true(strncmp(nl + 1, "esc.decision policy ", 20) == 0);
	assert_null(strstr(nl + 1, "tx "));	/* esc.result alone */
	es_assert_has(nl + 1, "esc.result coordinator");
}

static void
test_esc_server_unregistered_session_is_rejected_and_audited(void **state)
{
	struct es_fx *f = *state;
	char sid[33];

	ES_NEED_BIN(f);
	esc_payload_hex(f->session, ESC_ID_LEN, sid);
	esc_server_unregister(f->srv, sid);
	es_run(f, (const char *[]){ "echo", "hi", NULL });
	assert_int_equal(f->status, 125);
	es_assert_has(f->got_err, "unknown session");
	es_assert_has(f->audit, "esc.refused coordinator {\"reason\":\"unknown session");
}

static void
test_esc_server_refuses_connections_beyond_the_limit(void **state)
{
	struct es_fx *f = *state;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fds[64], i;

	ES_NEED_BIN(f);
	snprintf(a.sun_path, sizeof a.sun_path, "%s", f->sock);
	for (i = 0; i < 64; i++) {
		fds[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		assert_int_equal(connect(fds[i], (struct sockaddr *)&a, sizeof a), 0);
	}
	for (i = 0; i < 10; i++)
		uv_run(&f->loop, UV_RUN_NOWAIT);
	es_run(f, (const char *[]){ "echo", "hi", NULL });
	assert_int_equal(f->status, 125);
	es_assert_has(f->audit, "too many escalation connections");
	for (i = 0; i < 64; i++)
		close(fds[i]);
	for (i = 0; i < 10; i++)
		uv_run(&f->loop, UV_RUN_NOWAIT);
	es_run(f, (const char *[]){ "echo", "hi", NULL });
	assert_int_equal(f->status, 0);
}

/* Audit first, fail closed: when the rows cannot be written, an
 * auto-approved command does not run and the agent is told (125); once the
 * store can write again it runs. */
static void
test_esc_server_runs_nothing_unaudited(void **state)
{
	struct es_fx *f = *state;
	char *m;

	ES_NEED_BIN(f);
	m = xasprintf("%s/ran", f->ws);
	f->audit_full = true;
	es_run(f, (const char *[]){ "touch", "ran", NULL });
	assert_int_equal(f->status, 125);
	es_assert_has(f->got_err, "the audit trail cannot be written");
	assert_int_not_equal(access(m, F_OK), 0);
	es_run(f, (const char *[]){ "touch", "ran", NULL });	/* still down: refused at once */
	assert_int_equal(f->status, 125);
	es_assert_has(f->got_err, "nothing runs on the host until it can");
	assert_int_not_equal(access(m, F_OK), 0);
	f->audit_full = false;
	es_run(f, (const char *[]){ "touch", "ran", NULL });
	assert_int_equal(f->status, 0);
	assert_int_equal(access(m, F_OK), 0);
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(n) cmocka_unit_test_setup_teardown(n, es_setup, es_teardown)
		T(test_esc_server_request_and_decision_rows_commit_together),
		T(test_esc_server_unregistered_session_is_rejected_and_audited),
		T(test_esc_server_refuses_connections_beyond_the_limit),
		T(test_esc_server_runs_nothing_unaudited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
