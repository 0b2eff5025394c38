/* test-audit-line.c - `lazaret audit`'s one line per event (audit-line.c):
 * each kind's verdict and what, the prompt's request ID, hostile text made
 * visible, a detail this version does not know or cannot parse. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "store/audit-line.h"

#define REQ	"8e1f00aa11bb22cc33dd44ee55ff6677"
#define SESS	"3f2a9c1d00000000000000000000beef"
#define T0	1764745442000LL		/* 2025-12-03T07:04:02Z */

static void
expect_line(const char *kind, const char *actor, const char *req, const char *detail,
    const char *want)
{
	char *l = audit_line_format(7, T0, kind, actor, req, detail);

	assert_string_equal(l, want);
	free(l);
}

static void
test_audit_line_header_matches_the_columns(void **state)
{
	char *h = audit_line_header(), *l = audit_line_format(1, T0, "esc.request", SESS, REQ, "{}");

	(void)state;
	assert_string_equal(h, "  SEQ  TIME                  WHO                 EVENT          "
	    "VERDICT       REQUEST                           WHAT\n");
	/* each column starts where its header does */
	assert_int_equal(strstr(l, "session") - l, strstr(h, "WHO") - h);
	assert_int_equal(strstr(l, REQ) - l, strstr(h, "REQUEST") - h);
	free(h);
	free(l);
}

static void
test_audit_line_escalation_events(void **state)
{
	(void)state;
	expect_line("esc.request", SESS, REQ,
	    "{\"command\":\"make test\",\"host_cwd\":\"/home/u/src\",\"verdict\":\"needs-prompt\"}",
	    "    7  2025-12-03T07:04:02Z  session 3f2a9c1d    request        needs-prompt  " REQ
	    "  make test (in /home/u/src)\n");
	expect_line("esc.decision", "uid 1000 pid 4242", REQ, "{\"action\":\"approve\"}",
	    "    7  2025-12-03T07:04:02Z  uid 1000 pid 4242   decision       approve       " REQ "  -\n");
	expect_line("esc.decision", "uid 1000 pid 4242", REQ,
	    "{\"action\":\"edit\",\"original\":\"make test\",\"edited\":\"make check\","
	    "\"edited_verdict\":\"needs-prompt\"}",
	    "    7  2025-12-03T07:04:02Z  uid 1000 pid 4242   decision       edit          " REQ
	    "  make test -> make check\n");
	expect_line("esc.result", "coordinator", REQ,
	    "{\"outcome\":\"ran\",\"exit_status\":2,\"duration_ms\":1530,\"output_bytes\":3072,"
	    "\"sandbox_gone\":false}",
	    "    7  2025-12-03T07:04:02Z  coordinator         result         exit 2        " REQ
	    "  1.5 s, 3.0 KiB of output\n");
	expect_line("esc.result", "coordinator", REQ,
	    "{\"outcome\":\"failed\",\"reason\":\"execve: No such file\"}",
	    "    7  2025-12-03T07:04:02Z  coordinator         result         failed        " REQ
	    "  execve: No such file\n");
	expect_line("esc.refused", "coordinator", NULL, "{\"reason\":\"too many connections\"}",
	    "    7  2025-12-03T07:04:02Z  coordinator         refused        refused       -       "
	    "                          too many connections\n");
}

static void
test_audit_line_session_and_domain_lifecycle(void **state)
{
	(void)state;
	expect_line("domain.start", "coordinator", NULL, "{\"container\":\"lazaret-default-"
	    "0123456789ab\",\"mode\":\"isolated\",\"image\":\"localhost/x:1\",\"pid\":9}",
	    "    7  2025-12-03T07:04:02Z  coordinator         domain.start   -             -"
	    "                                 lazaret-default-0123456789ab (isolated, localhost/x:1)\n");
	expect_line("session.start", "uid 1000 pid 4242", NULL,
	    "{\"id\":3,\"command\":\"make test\",\"pid\":77,\"tty\":true}",
	    "    7  2025-12-03T07:04:02Z  uid 1000 pid 4242   session.start  -             -"
	    "                                 make test (session 3, pid 77, terminal)\n");
	expect_line("session.end", "coordinator", NULL, "{\"id\":3,\"exit_status\":143}",
	    "    7  2025-12-03T07:04:02Z  coordinator         session.end    exit 143      -"
	    "                                 session 3\n");
	expect_line("domain.stop", "coordinator", NULL, "{\"reason\":\"stop requested\",\"sessions\":1}",
	    "    7  2025-12-03T07:04:02Z  coordinator         domain.stop    -             -"
	    "                                 stop requested\n");
}

static void
test_audit_line_network_requests_and_grants(void **state)
{
	(void)state;
	expect_line("net.request", "router", "net-3", "{\"id\":3,\"dest\":\"10.1.2.3:8081/tcp\","
	    "\"name\":\"x.test\",\"session\":0,\"grant\":\"x.test:8081\"}",
	    "    7  2025-12-03T07:04:02Z  router              net.request    asked         net-3"
	    "                             10.1.2.3:8081/tcp (x.test) -> x.test:8081\n");
	expect_line("net.decision", "cli (uid 1000 pid 9)", "net-3", "{\"id\":3,\"dest\":"
	    "\"10.1.2.3:8081/tcp\",\"name\":\"\",\"scope\":\"run\",\"grant\":\"10.1.2.0/24:8081\","
	    "\"preview\":\"256 addresses\",\"broad\":\"\"}",
	    "    7  2025-12-03T07:04:02Z  cli (uid 1000 pid~  net.decision   run           net-3"
	    "                             10.1.2.3:8081/tcp -> 10.1.2.0/24:8081: 256 addresses\n");
	expect_line("net.grant.revoke", "cli", NULL, "{\"entry\":\"*.x.test:443\",\"profile\":"
	    "\"default\",\"file\":\"/h/grants/default.list\"}",
	    "    7  2025-12-03T07:04:02Z  cli                 net.grant.revoke  revoke        -"
	    "                                 *.x.test:443\n");
	expect_line("net.first-block", "coordinator", NULL, "{\"dest\":\"dns evil\\u001b[2J.test\","
	    "\"name\":\"evil\",\"rule\":\"not in policy\"}",
	    "    7  2025-12-03T07:04:02Z  coordinator         net.first-block  block         -"
	    "                                 dns evil\\x1b[2J.test (not in policy)\n");
}

static void
test_audit_line_makes_hostile_text_visible(void **state)
{
	char *l;

	(void)state;
	/* an escape sequence in the command, stored JSON-escaped */
	l = audit_line_format(1, T0, "esc.request", SESS, REQ,
	    "{\"command\":\"echo \\u001b[2J\\r\",\"verdict\":\"needs-prompt\"}");
	assert_non_null(strstr(l, "echo \\x1b[2J\\r\n"));
	assert_null(strchr(l, '\033'));
	free(l);
	/* a long actor is cut, and its control bytes shown */
	l = audit_line_format(1, T0, "x", "a\033bcdefghijklmnopqrstuvwxyz", NULL, "{}");
	assert_non_null(strstr(l, "  a\\x1bbcdefghijklm~  x "));
	free(l);
}

static void
test_audit_line_unknown_and_broken_details(void **state)
{
	(void)state;
	/* a kind this version does not know: the detail's fields */
	expect_line("egress.flow", "coordinator", NULL, "{\"dst\":\"10.0.2.2\",\"port\":443}",
	    "    7  2025-12-03T07:04:02Z  coordinator         egress.flow    -             -"
	    "                                 dst=10.0.2.2 port=443\n");
	/* a detail that does not parse: as stored */
	expect_line("esc.request", SESS, REQ, "{not json",
	    "    7  2025-12-03T07:04:02Z  session 3f2a9c1d    request        -             " REQ
	    "  {not json\n");
	/* keys that are not text are skipped, never dereferenced */
	expect_line("esc.request", SESS, REQ, "{{\"a\":1}: x, command: ls, verdict: [1]}",
	    "    7  2025-12-03T07:04:02Z  session 3f2a9c1d    request        -             " REQ
	    "  ls\n");
	expect_line("x", NULL, NULL, NULL, "    7  2025-12-03T07:04:02Z  -                   x"
	    "              -             -                                 {}\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_line_header_matches_the_columns),
		cmocka_unit_test(test_audit_line_escalation_events),
		cmocka_unit_test(test_audit_line_session_and_domain_lifecycle),
		cmocka_unit_test(test_audit_line_network_requests_and_grants),
		cmocka_unit_test(test_audit_line_makes_hostile_text_visible),
		cmocka_unit_test(test_audit_line_unknown_and_broken_details),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
