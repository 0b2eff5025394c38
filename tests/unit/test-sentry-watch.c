/* test-sentry-watch.c - the Sentry on the loop (sentry-watch.c: imports as
 * the agent commits, a flush before an answer) and the agent's live view of
 * the host (sentry-hostview.c). The fixture is sentrytest.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anchor.h"
#include "host/proc.h"
#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "sandbox/sentry/sentry-watch.h"
#include "sentrytest.h"
#include "strv.h"
#include "testutil.h"
#include "xmalloc.h"

/* What the watch reported, and whether always on the loop's thread. */
struct watch_seen {
	const struct anchor *a;
	const char *repo;
	pthread_t loop_thread;
	bool off_loop;		/* a report came from another thread */
	char **msgs;
	const char *want_ref, *want_hex;	/* the host ref awaited, or msg */
	const char *want_msg;
	uv_timer_t tick;
	int ticks_left;
};

static void
watch_log_cb(void *arg, const char *msg)
{
	struct watch_seen *ws = arg;

	if (!pthread_equal(pthread_self(), ws->loop_thread))
		ws->off_loop = true;
	lz_strv_push(&ws->msgs, msg);
}

static size_t
watch_count(const struct watch_seen *ws, const char *needle)
{
	size_t i, n = 0;

	for (i = 0; ws->msgs != NULL && ws->msgs[i] != NULL; i++)
		n += strstr(ws->msgs[i], needle) != NULL;
	return n;
}

/* Every 50 ms: the awaited host ref or message is there (or time is up). */
static void
watch_tick_cb(uv_timer_t *t)
{
	struct watch_seen *ws = t->data;
	bool done = --ws->ticks_left <= 0;

	if (ws->want_ref != NULL) {
		char **argv = NULL, *out = NULL;
		lz_err_t err = LZ_ERR_INIT;

		lz_strv_push(&argv, "git");
		lz_strv_push(&argv, "-C");
		lz_strv_push(&argv, ws->repo);
		lz_strv_push(&argv, "rev-parse");
		lz_strv_push(&argv, "-q");
		lz_strv_push(&argv, "--verify");
		lz_strv_push(&argv, ws->want_ref);
		if (proc_run_ok(argv, &out, &err) == 0 && strncmp(out, ws->want_hex,
		    strlen(ws->want_hex)) == 0)
			done = true;
		lz_err_clear(&err);
		lz_strv_free(argv);
		free(out);
	}
	if (ws->want_msg != NULL && watch_count(ws, ws->want_msg) > 0)
		done = true;
	if (done)
		uv_timer_stop(t);
}

/* Run loop until what ws awaits happened, at most ticks * 50 ms. */
static void
watch_run(uv_loop_t *loop, struct watch_seen *ws, int ticks)
{
	ws->ticks_left = ticks;
	uv_timer_start(&ws->tick, watch_tick_cb, 50, 50);
	uv_run(loop, UV_RUN_DEFAULT);
}

/* The coordinator's continuous import: the refs are scanned on the
 * threadpool, the agent's new branch reaches the host, a failed import is
 * reported once (and on the loop's thread, where the audit row is
 * written), and the next change of the refs imports again. */
static void
test_sentry_watch_imports_changes_and_reports_failures_once(void **state)
{
	char *r = st_make_repo("repo"), *tip, *f, *bad;
	struct watch_seen ws = { 0 };
	struct sentry_watch *w;
	struct anchor *a;
	uv_loop_t loop;

	(void)state;
	a = st_anchor_prepared(r);
	ws.a = a;
	ws.repo = r;
	ws.loop_thread = pthread_self();
	assert_int_equal(uv_loop_init(&loop), 0);
	uv_timer_init(&loop, &ws.tick);
	ws.tick.data = &ws;
	assert_non_null((w = sentry_watch_start(&loop, a, watch_log_cb, &ws)));

	f = xasprintf("%s/agent.txt", a->worktree);
	st_write_file(f, "agent\n");
	st_agent_do(a, a->worktree, "add", "agent.txt", NULL);
	st_agent_do(a, a->worktree, "commit", "-qm", "agent work", NULL);
	st_agent_do(a, a->worktree, "branch", "topic", NULL);
	tip = st_agent_in(a, a->worktree, "rev-parse", "HEAD", NULL);
	ws.want_ref = "refs/heads/lazaret/default/topic";
	ws.want_hex = tip;
	watch_run(&loop, &ws, 400);
	st_expect_git(tip, r, "rev-parse", "refs/heads/lazaret/default/topic", NULL);
	free(tip);

	/* A ref to an object nobody has: left out of the import (the others
	 * go on), said once. */
	bad = st_priv_path(a, "refs/heads/broken");
	st_write_file(bad, "0123456789012345678901234567890123456789\n");
	ws.want_ref = NULL;
	ws.want_msg = "refs/heads/broken (";
	watch_run(&loop, &ws, 400);
	assert_int_equal(watch_count(&ws, ws.want_msg), 1);
	ws.want_msg = NULL;
	watch_run(&loop, &ws, 10);	/* more ticks, same refs: nothing new */
	assert_int_equal(watch_count(&ws, "import left out"), 1);

	/* The refs change again: imported. */
	assert_int_equal(unlink(bad), 0);
	st_write_file(f, "agent 2\n");
	st_agent_do(a, a->worktree, "commit", "-qam", "agent work 2", NULL);
	st_agent_do(a, a->worktree, "branch", "-f", "topic", NULL);
	tip = st_agent_in(a, a->worktree, "rev-parse", "HEAD", NULL);
	ws.want_ref = "refs/heads/lazaret/default/topic";
	ws.want_hex = tip;
	watch_run(&loop, &ws, 400);
	st_expect_git(tip, r, "rev-parse", "refs/heads/lazaret/default/topic", NULL);
	assert_false(ws.off_loop);

	sentry_watch_stop(w);
	uv_close((uv_handle_t *)&ws.tick, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);	/* a scan in flight ends */
	assert_int_equal(uv_loop_close(&loop), 0);
	sentry_watch_free(w);
	lz_strv_free(ws.msgs);
	free(tip);
	free(bad);
	free(f);
	anchor_free(a);
	free(r);
}

static void
watch_flushed_cb(void *arg, bool finished)
{
	*(int *)arg = finished ? 1 : -1;
}

/* A session's end (sentry_watch_flush): the commit made just before it is
 * on the host when the callback runs, with no poll tick needed. */
static void
test_sentry_watch_flush_imports_before_it_answers(void **state)
{
	char *r = st_make_repo("repo"), *tip, *f;
	struct sentry_watch *w;
	struct anchor *a;
	uv_loop_t loop;
	int done = 0;

	(void)state;
	a = st_anchor_prepared(r);
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_non_null((w = sentry_watch_start(&loop, a, NULL, NULL)));
	f = xasprintf("%s/agent.txt", a->worktree);
	st_write_file(f, "agent\n");
	st_agent_do(a, a->worktree, "add", "agent.txt", NULL);
	st_agent_do(a, a->worktree, "commit", "-qm", "last words", NULL);
	tip = st_agent_in(a, a->worktree, "rev-parse", "HEAD", NULL);
	sentry_watch_flush(w, 60000, watch_flushed_cb, &done);
	while (done == 0)
		uv_run(&loop, UV_RUN_ONCE);
	assert_int_equal(done, 1);
	st_expect_git(tip, r, "rev-parse", "refs/heads/lazaret/agent-default", NULL);
	sentry_watch_stop(w);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
	sentry_watch_free(w);
	free(tip);
	free(f);
	anchor_free(a);
	free(r);
}

/* The agent's view of the host (sentry-hostview.c): a ref file per host
 * branch but Lazaret's own, rewritten only when it changed, gone with the
 * branch; the settings file keeps identity and aliases, quoted, and drops
 * what could run a program or carry a secret. */
static void
test_sentry_hostview_follows_branches_and_filters_settings(void **state)
{
	char *view = xasprintf("%s/view", st_tmp), *f, *sum = NULL, *cfg;
	const char *a40 = "1111111111111111111111111111111111111111";
	char *heads = xasprintf("%s refs/heads/main\n%s refs/heads/feature/x\n"
	    "%s refs/heads/lazaret/agent-default\n%s refs/heads/bad..name\n", a40, a40, a40, a40);
	static const char cfgz[] =
	    "file:/h/.gitconfig\0user.name\nOld Name\0"
	    "file:.git/config\0user.name\nNew \"Q\" Name\0"
	    "file:.git/config\0alias.lg\nlog --oneline\0"
	    "file:.git/config\0core.pager\ntouch /tmp/x\0"
	    "file:.git/config\0http.extraheader\nAuthorization: s3cret\0"
	    "file:.git/config\0alias.a.b\nx\0";
	lz_err_t err = LZ_ERR_INIT;
	struct stat st;

	(void)state;
	assert_int_equal(sentry_hostview_refs(view, heads, 40, &sum, &err), 0);
	assert_non_null(sum);
	free(sum);
	f = xasprintf("%s/refs/main", view);
	st_expect_file(f, "1111111111111111111111111111111111111111\n");
	free(f);
	f = xasprintf("%s/refs/feature/x", view);
	assert_int_equal(stat(f, &st), 0);
	free(f);
	f = xasprintf("%s/refs/lazaret", view);
	assert_int_not_equal(stat(f, &st), 0);
	free(f);
	/* Nothing changed: nothing said. */
	assert_int_equal(sentry_hostview_refs(view, heads, 40, &sum, &err), 0);
	assert_null(sum);
	free(heads);
	heads = xasprintf("2222222222222222222222222222222222222222 refs/heads/main\n");
	assert_int_equal(sentry_hostview_refs(view, heads, 40, &sum, &err), 0);
	assert_non_null(sum);
	f = xasprintf("%s/refs/feature", view);
	assert_int_not_equal(stat(f, &st), 0);
	free(f);
	free(sum);

	assert_int_equal(sentry_hostview_config(view, cfgz, sizeof cfgz - 1, &err), 0);
	f = xasprintf("%s/git/config", view);
	cfg = st_read_file(f);
	assert_non_null(strstr(cfg, "[user]\n\tname = \"New \\\"Q\\\" Name\"\n"));
	assert_non_null(strstr(cfg, "[alias]\n\tlg = \"log --oneline\"\n"));
	assert_null(strstr(cfg, "pager"));
	assert_null(strstr(cfg, "s3cret"));
	assert_null(strstr(cfg, "a.b"));
	assert_true(sentry_hostview_key_ok("user.email", 10));
	assert_false(sentry_hostview_key_ok("core.sshcommand", 15));
	free(cfg);
	free(f);
	free(heads);
	free(view);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, st_setup_tmp, st_teardown_tmp)
		T(test_sentry_watch_imports_changes_and_reports_failures_once),
		T(test_sentry_watch_flush_imports_before_it_answers),
		T(test_sentry_hostview_follows_branches_and_filters_settings),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
