/* test-audit-words.c - an audit row in words (audit-words.c): one test per
 * kind of row the coordinator, the escalation server, the router and the
 * review commands write, the request's command carried to its decision and
 * result, hostile text made visible, unknown kinds, the pretty-printer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "store/audit-words.h"

#define REQ	"8e1f00aa11bb22cc33dd44ee55ff6677"
#define SESS	"3f2a9c1d00000000000000000000beef"

static struct audit_words_ctx *ctx;

static int
setup(void **state)
{
	(void)state;
	ctx = audit_words_ctx_new();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	audit_words_ctx_free(ctx);
	ctx = NULL;
	return 0;
}

static void
expect(const char *kind, const char *actor, const char *req, const char *detail,
    const char *want_kind, const char *want_actor, const char *want, enum audit_words_tone tone)
{
	struct audit_words w;

	audit_words_render(ctx, kind, actor, req, detail, &w);
	assert_string_equal(w.kind, want_kind);
	assert_string_equal(w.actor, want_actor);
	assert_string_equal(w.summary, want);
	assert_int_equal(w.tone, tone);
	audit_words_clear(&w);
}

static void
test_audit_words_auto_approved_request_runs(void **state)
{
	(void)state;
	expect("esc.request", SESS, REQ, "{\"command\":\"make test\",\"verdict\":\"auto-approve\"}",
	    "request", "agent", "asked to run make test (auto-approved)", AUDIT_WORDS_INFO);
	expect("esc.decision", "policy", REQ, "{\"action\":\"auto-approve\"}",
	    "decision", "policy", "auto-approved make test", AUDIT_WORDS_GOOD);
	expect("esc.result", "coordinator", REQ, "{\"outcome\":\"ran\",\"exit_status\":0,"
	    "\"duration_ms\":1200,\"output_bytes\":128,\"sandbox_gone\":false}",
	    "result", "lazaret", "ran make test (auto-approved): exit 0 in 1.2 s", AUDIT_WORDS_GOOD);
}

static void
test_audit_words_prompted_request_denied_names_the_command(void **state)
{
	(void)state;
	expect("esc.request", SESS, REQ, "{\"command\":\"curl evil.example\",\"verdict\":\"needs-prompt\"}",
	    "request", "agent", "asked to run curl evil.example (needs your approval)", AUDIT_WORDS_INFO);
	expect("esc.decision", "uid 1000 pid 4242", REQ, "{\"action\":\"deny\"}",
	    "decision", "you", "denied curl evil.example", AUDIT_WORDS_BAD);
	expect("esc.result", "coordinator", REQ, "{\"outcome\":\"not-run\",\"reason\":\"denied\"}",
	    "result", "lazaret", "did not run curl evil.example: denied", AUDIT_WORDS_BAD);
}

static void
test_audit_words_edit_and_failed_run(void **state)
{
	(void)state;
	expect("esc.request", SESS, REQ, "{\"command\":\"make all\",\"verdict\":\"needs-prompt\"}",
	    "request", "agent", "asked to run make all (needs your approval)", AUDIT_WORDS_INFO);
	expect("esc.decision", "uid 1000", REQ, "{\"action\":\"edit\",\"original\":\"make all\","
	    "\"edited\":\"make test\"}", "decision", "you",
	    "edited make all into make test and approved it", AUDIT_WORDS_GOOD);
	expect("esc.result", "coordinator", REQ, "{\"outcome\":\"ran\",\"exit_status\":2,"
	    "\"duration_ms\":40}", "result", "lazaret", "ran make all (edited): exit 2 in 40 ms",
	    AUDIT_WORDS_BAD);
}

static void
test_audit_words_refused_suspicious_and_abandoned(void **state)
{
	(void)state;
	expect("esc.refused", "coordinator", NULL, "{\"reason\":\"bad signature\"}",
	    "refused", "lazaret", "refused a request: bad signature", AUDIT_WORDS_BAD);
	expect("esc.suspicious", "uid 1000", NULL, "{\"what\":\"terminal-reply\"}",
	    "input", "you", "threw away input at a prompt that no human typed", AUDIT_WORDS_BAD);
	/* a decision whose request this reader never saw */
	expect("esc.decision", "coordinator", "ffff", "{\"action\":\"abandoned\",\"reason\":\"timed out\"}",
	    "decision", "lazaret", "gave up on ?: timed out", AUDIT_WORDS_BAD);
	expect("esc.decision", "uid 1000", "ffff", "{\"action\":\"quit\"}",
	    "decision", "you", "stopped the domain at ?", AUDIT_WORDS_BAD);
}

static void
test_audit_words_sessions_and_sandbox(void **state)
{
	(void)state;
	expect("session.start", "coordinator", NULL, "{\"id\":1,\"command\":\"(shell)\",\"pid\":9,"
	    "\"tty\":true}", "session", "lazaret", "started session 1: (shell)", AUDIT_WORDS_INFO);
	expect("session.end", "coordinator", NULL, "{\"id\":1,\"exit_status\":130}",
	    "session", "lazaret", "session 1 ended: exit 130", AUDIT_WORDS_BAD);
	expect("domain.start", "coordinator", NULL, "{\"container\":\"lazaret-default-abc\","
	    "\"mode\":\"isolated\",\"image\":\"lazaret-base\"}", "sandbox", "lazaret",
	    "started the sandbox (isolated, lazaret-base)", AUDIT_WORDS_INFO);
	expect("domain.stop", "coordinator", NULL, "{\"reason\":\"no session left\"}",
	    "sandbox", "lazaret", "stopped the sandbox: no session left", AUDIT_WORDS_INFO);
	expect("domain.reap", "guard", NULL, "{}", "sandbox", "lazaret",
	    "cleaned up after a coordinator that died", AUDIT_WORDS_BAD);
}

static void
test_audit_words_limits(void **state)
{
	(void)state;
	expect("limit.disk", "coordinator", NULL, "{\"message\":\"disk limit 1 GiB reached\\nmore\"}",
	    "limit", "lazaret", "stopped the sandbox: disk limit 1 GiB reached", AUDIT_WORDS_BAD);
	expect("limit.memory", "coordinator", NULL, "{\"message\":\"memory limit 4 GiB hit\"}",
	    "limit", "lazaret", "stopped the sandbox: memory limit 4 GiB hit", AUDIT_WORDS_BAD);
}

static void
test_audit_words_egress(void **state)
{
	(void)state;
	expect("net.first-allow", "coordinator", NULL, "{\"dest\":\"10.0.0.1:443/6\",\"name\":"
	    "\"deb.debian.org\",\"rule\":\"profile\"}", "egress", "lazaret",
	    "connected to deb.debian.org (10.0.0.1:443)", AUDIT_WORDS_GOOD);
	expect("net.first-block", "coordinator", NULL, "{\"dest\":\"203.0.113.9:443/6\",\"name\":"
	    "\"evil.example\"}", "egress", "lazaret", "blocked evil.example (203.0.113.9:443)",
	    AUDIT_WORDS_BAD);
	expect("net.first-block", "coordinator", NULL, "{\"dest\":\"203.0.113.9:53/17\",\"name\":"
	    "\"\"}", "egress", "lazaret", "blocked 203.0.113.9:53/udp", AUDIT_WORDS_BAD);
	expect("net.first-block", "coordinator", NULL, "{\"dest\":\"dns evil.example\",\"name\":"
	    "\"evil.example\"}", "egress", "lazaret", "blocked dns evil.example", AUDIT_WORDS_BAD);
	expect("net.request", "router", "3", "{\"id\":3,\"dest\":\"pypi.org:443\",\"name\":\"\"}",
	    "egress", "network", "asked to reach pypi.org:443", AUDIT_WORDS_INFO);
	expect("net.request", "router", "4", "{\"id\":4,\"dest\":\"x.example:80\",\"refused\":\"nobody\"}",
	    "egress", "network", "wanted x.example:80; nobody was asked", AUDIT_WORDS_BAD);
	expect("net.decision", "uid 1000", "3", "{\"id\":3,\"dest\":\"pypi.org:443\",\"scope\":\"run\","
	    "\"grant\":\"pypi.org:443\"}", "egress", "you",
	    "allowed pypi.org:443 for this run as pypi.org:443", AUDIT_WORDS_GOOD);
	expect("net.decision", "workbench (uid 1000 pid 7)", "5", "{\"dest\":\"x.example:80/tcp\",\"scope\":\"deny\"}",
	    "egress", "you", "denied x.example:80", AUDIT_WORDS_BAD);
	expect("net.grant.add", "uid 1000", NULL, "{\"entry\":\"pypi.org:443\",\"profile\":\"web\"}",
	    "egress", "you", "granted pypi.org:443", AUDIT_WORDS_GOOD);
	expect("net.grant.revoke", "uid 1000", NULL, "{\"entry\":\"pypi.org:443\"}",
	    "egress", "you", "revoked pypi.org:443", AUDIT_WORDS_INFO);
	expect("net.policy", "user", NULL, "{\"sidecar\":\"lazaret-net-abc\",\"detail\":\"+pypi.org\"}",
	    "egress", "you", "changed the egress policy: +pypi.org", AUDIT_WORDS_INFO);
	expect("net.broker", "sidecar", NULL, "{\"detail\":\"GET /repos/x 200\"}",
	    "egress", "network", "brokered GET /repos/x 200", AUDIT_WORDS_INFO);
	expect("net.broker-refused", "sidecar", NULL, "{\"detail\":\"POST /admin\"}",
	    "egress", "network", "broker refused POST /admin", AUDIT_WORDS_BAD);
	expect("net.restart", "coordinator", NULL, "{\"detail\":\"router exited 1\"}",
	    "egress", "lazaret", "restarted the network router: router exited 1", AUDIT_WORDS_BAD);
	expect("net.start", "coordinator", NULL, "{\"sidecar\":\"lazaret-net-abc\",\"detail\":\"up\"}",
	    "egress", "lazaret", "started the network router", AUDIT_WORDS_INFO);
	expect("net.audit-limit", "coordinator", NULL, "{\"detail\":\"10000 destinations\"}",
	    "egress", "lazaret", "network audit-limit: 10000 destinations", AUDIT_WORDS_INFO);
}

static void
test_audit_words_review(void **state)
{
	(void)state;
	expect("review.merge", "uid 1000", NULL, "{\"outcome\":\"merged\",\"target\":\"main\","
	    "\"commits\":3}", "review", "you", "merged 3 commits into main", AUDIT_WORDS_GOOD);
	expect("review.merge", "uid 1000", NULL, "{\"outcome\":\"refused\",\"why\":\"surface flagged\"}",
	    "review", "you", "merge refused: surface flagged", AUDIT_WORDS_BAD);
	expect("review.discard", "uid 1000", NULL, "{\"outcome\":\"discarded\",\"commits\":1}",
	    "review", "you", "discarded 1 commit", AUDIT_WORDS_INFO);
	expect("review.sync", "uid 1000", NULL, "{\"outcome\":\"synced\",\"target\":\"main\"}",
	    "review", "you", "synced the agent's branch with main", AUDIT_WORDS_INFO);
}

static void
test_audit_words_git_sentry(void **state)
{
	(void)state;
	expect("sentry.import", "coordinator", NULL, "{\"report\":\"2 commits on lazaret/agent-web\"}",
	    "git", "lazaret", "imported the agent's commits: 2 commits on lazaret/agent-web",
	    AUDIT_WORDS_INFO);
	expect("sentry.sync", "user", NULL, "{\"target\":\"main\"}", "git", "you",
	    "refreshed the agent's view of your branches", AUDIT_WORDS_INFO);
	expect("sentry.prepare", "coordinator", NULL, "{\"report\":\"private repo\"}", "git",
	    "lazaret", "prepared the agent's repository: private repo", AUDIT_WORDS_INFO);
}

static void
test_audit_words_hostile_text_is_visible(void **state)
{
	struct audit_words w;

	(void)state;
	audit_words_render(ctx, "esc.request", SESS, REQ,
	    "{\"command\":\"ls\\u001b[2J\\u202e\",\"verdict\":\"needs-prompt\"}", &w);
	assert_null(strchr(w.summary, '\x1b'));
	assert_null(strstr(w.summary, "\xe2\x80\xae"));
	assert_non_null(strstr(w.summary, "ls"));
	audit_words_clear(&w);
}

static void
test_audit_words_unknown_kind_and_bad_json(void **state)
{
	(void)state;
	expect("kit.yaml", "coordinator", NULL, "{\"file\":\"kit.yaml\",\"n\":2}", "kit.yaml",
	    "lazaret", "file=kit.yaml n=2", AUDIT_WORDS_INFO);
	expect("weird", NULL, NULL, "{not json", "weird", "-", "{not json", AUDIT_WORDS_INFO);
}

static void
test_audit_words_pretty_prints_json(void **state)
{
	char *p = audit_words_pretty("{\"a\":1,\"b\":{\"c\":\"x, {y}\"},\"d\":[],\"e\":[1,2]}");

	(void)state;
	assert_string_equal(p, "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": \"x, {y}\"\n  },\n"
	    "  \"d\": [],\n  \"e\": [\n    1,\n    2\n  ]\n}");
	free(p);
	p = audit_words_pretty("{\"q\":\"a\\\"b\"}");
	assert_string_equal(p, "{\n  \"q\": \"a\\\"b\"\n}");
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_audit_words_auto_approved_request_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_words_prompted_request_denied_names_the_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_words_edit_and_failed_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_words_refused_suspicious_and_abandoned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_words_sessions_and_sandbox, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_words_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_words_egress, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_words_review, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_words_git_sentry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_words_hostile_text_is_visible, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_words_unknown_kind_and_bad_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_words_pretty_prints_json, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
