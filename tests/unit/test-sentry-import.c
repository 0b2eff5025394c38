/* test-sentry-import.c - the agent's branches and tags taken into the host
 * repository (sentry-import.c, sentry-refs.c, sentry-fetch.c): the
 * namespace, forged and symlinked objects, symbolic refs, a corrupt HEAD,
 * the refs parser. The fixture is sentrytest.c. */
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

/* The agent's main line, branches and tags reach the host in the Lazaret
 * namespace only; a branch it deletes leaves it; main never moves. */
static void
test_sentry_import_takes_branches_and_tags_into_the_namespace(void **state)
{
	char *r = st_make_repo("repo"), *main0, *tip, *topic, *f, *v;
	struct anchor *a;

	(void)state;
	a = st_anchor_prepared(r);
	main0 = st_git_in(r, "rev-parse", "main", NULL);
	f = xasprintf("%s/agent.txt", a->worktree);
	st_write_file(f, "agent\n");
	st_agent_do(a, a->worktree, "add", "agent.txt", NULL);
	st_agent_do(a, a->worktree, "commit", "-qm", "agent work", NULL);
	st_agent_do(a, a->worktree, "branch", "topic", NULL);
	st_agent_do(a, a->worktree, "tag", "-a", "v1", "-m", "v1", NULL);
	st_agent_do(a, a->worktree, "tag", "main", NULL);	/* a tag named like a branch */
	st_agent_do(a, a->worktree, "gc", "-q", NULL);
	tip = st_agent_in(a, a->worktree, "rev-parse", "HEAD", NULL);
	st_import_ok(a);
	st_expect_git(tip, r, "rev-parse", "refs/heads/lazaret/agent-default", NULL);
	st_expect_git(tip, r, "rev-parse", "refs/heads/lazaret/default/topic", NULL);
	st_expect_git("tag", r, "cat-file", "-t", "refs/tags/lazaret/default/v1", NULL);
	st_expect_git(tip, r, "rev-parse", "refs/tags/lazaret/default/main", NULL);
	st_expect_git(main0, r, "rev-parse", "refs/heads/main", NULL);
	st_expect_git("agent work", r, "log", "-1", "--format=%s", "lazaret/agent-default", NULL);
	/* The objects are the host's own now: no alternates, fsck clean. */
	v = xasprintf("%s/.git/objects/info/alternates", r);
	assert_int_equal(access(v, F_OK), -1);
	free(v);
	st_git_do(r, "fsck", "--no-progress", "--no-dangling", NULL);
	/* Deleting a branch inside deletes it from the namespace. */
	st_agent_do(a, a->worktree, "branch", "-D", "topic", NULL);
	st_import_ok(a);
	topic = st_git_in(r, "for-each-ref", "refs/heads/lazaret/default/", NULL);
	assert_string_equal(topic, "");
	free(topic);
	free(tip);
	free(f);
	free(main0);
	anchor_free(a);
	free(r);
}

/* A loose object in the agent's store named like the host's README blob
 * but holding other bytes, plus every other kind of file git would obey
 * in a store: the host keeps its own bytes and gets none of those files. */
static void
test_sentry_import_forged_objects_never_shadow_host_objects(void **state)
{
	char *r = st_make_repo("repo"), *blob, *forged, *fdir, *f, *alt, *other, *content;
	static const char *const junk[] = { "objects/pack/multi-pack-index",
	    "objects/info/commit-graph", "objects/pack/pack-x.keep", "objects/info/alternates" };
	struct anchor *a;
	size_t i;

	(void)state;
	a = st_anchor_prepared(r);
	blob = st_git_in(r, "rev-parse", "main:README", NULL);
	/* The forgery: a real loose object of other content, renamed to blob. */
	other = xasprintf("%s/other", st_tmp);
	st_write_file(other, "echo pwned\n");
	{
		char *id = st_agent_in(a, a->worktree, "hash-object", "-w", other, NULL);
		char *src = xasprintf("%s/git/objects/%.2s/%s", a->domain_root, id, id + 2);
		fdir = xasprintf("%s/git/objects/%.2s", a->domain_root, blob);
		(void)mkdir(fdir, 0755);
		forged = xasprintf("%s/%s", fdir, blob + 2);
		assert_int_equal(rename(src, forged), 0);
		free(src);
		free(id);
	}
	for (i = 0; i < sizeof junk / sizeof junk[0]; i++) {
		f = st_priv_path(a, junk[i]);
		st_write_file(f, strcmp(junk[i], "objects/info/alternates") == 0 ? "/etc\n" : "junk");
		free(f);
	}
	/* The agent points a commit at "its" README. */
	f = xasprintf("%s/new", a->worktree);
	st_write_file(f, "new\n");
	st_agent_do(a, a->worktree, "add", "new", NULL);
	st_agent_do(a, a->worktree, "commit", "-qm", "uses README", NULL);
	free(f);
	st_import_ok(a);
	content = st_git_in(r, "cat-file", "-p", blob, NULL);
	assert_string_equal(content, "hello");
	free(content);
	content = st_git_in(r, "show", "lazaret/agent-default:README", NULL);
	assert_string_equal(content, "hello");
	free(content);
	alt = xasprintf("%s/.git/objects/info/alternates", r);
	assert_int_equal(access(alt, F_OK), -1);
	f = xasprintf("%s/.git/objects/pack/multi-pack-index", r);
	assert_int_equal(access(f, F_OK), -1);
	free(f);
	st_git_do(r, "fsck", "--no-progress", "--no-dangling", NULL);
	free(alt);
	free(forged);
	free(fdir);
	free(other);
	free(blob);
	anchor_free(a);
	free(r);
}

/* Symbolic refs, symlinks, bad names: skipped and reported, never followed
 * or written on the host. */
static void
test_sentry_import_skips_symbolic_and_symlinked_refs(void **state)
{
	char *r = st_make_repo("repo"), *main0, *f, *refs, *note = NULL;
	struct anchor *a;
	lz_err_t err = LZ_ERR_INIT;
	int i;

	(void)state;
	a = st_anchor_prepared(r);
	main0 = st_git_in(r, "rev-parse", "main", NULL);
	f = st_priv_path(a, "refs/heads/evil");
	st_write_file(f, "ref: refs/heads/main\n");
	free(f);
	f = st_priv_path(a, "refs/heads/link");
	assert_int_equal(symlink("/etc/passwd", f), 0);
	free(f);
	/* A symlinked directory 20 levels down. */
	f = st_priv_path(a, "refs/heads/d");
	for (i = 0; i < 20; i++) {
		char *n = xasprintf("%s/d", f);

		assert_int_equal(mkdir(f, 0755), 0);
		free(f);
		f = n;
	}
	assert_int_equal(symlink(r, f), 0);
	free(f);
	if (sentry_import(a, &note, &err) < 0)
		fail_msg("%s", err.msg);
	assert_non_null(note);
	assert_non_null(strstr(note, "left out"));
	refs = st_git_in(r, "for-each-ref", "--format=%(refname)", "refs/heads/lazaret/", NULL);
	assert_string_equal(refs, "refs/heads/lazaret/agent-default");
	st_expect_git(main0, r, "rev-parse", "main", NULL);
	/* Teardown scrubs the symlinks, however deep. */
	assert_int_equal(sentry_release(a, NULL, &err), 0);
	f = st_priv_path(a, "refs/heads/link");
	assert_int_equal(access(f, F_OK), -1);
	free(f);
	free(refs);
	free(note);
	free(main0);
	anchor_free(a);
	free(r);
}

/* A HEAD the agent broke stays its own problem: the host's gc works, and
 * the next prepare repairs it. */
static void
test_sentry_corrupt_private_head_leaves_host_gc_working(void **state)
{
	char *r = st_make_repo("repo"), *head;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = st_anchor_prepared(r);
	head = st_priv_path(a, "HEAD");
	st_write_file(head, "ref: ../../../x\n");
	st_git_do(r, "gc", "-q", NULL);
	st_git_do(r, "prune", NULL);
	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	st_expect_file(head, "ref: refs/heads/lazaret/agent-default\n");
	sentry_layout_clear(&l);
	free(head);
	anchor_free(a);
	free(r);
}

static void
test_sentry_refname_and_packed_refs_parse(void **state)
{
	static const char pk[] =
	    "# pack-refs with: peeled fully-peeled sorted \n"
	    "0123456789012345678901234567890123456789 refs/heads/ok\n"
	    "^0123456789012345678901234567890123456789\n"
	    "0123456789012345678901234567890123456789 refs/heads/../x\n"
	    "01234 refs/heads/short\n"
	    "0123456789012345678901234567890123456789 refs/remotes/o/m\n"
	    "0123456789012345678901234567890123456789 refs/tags/v1";
	struct sentry_refs r;

	(void)state;
	assert_true(sentry_refname_ok("refs/heads/a/b-c_d.e+f", 22));
	assert_false(sentry_refname_ok("refs/heads/a..b", 15));
	assert_false(sentry_refname_ok("refs/heads/.x", 13));
	assert_false(sentry_refname_ok("refs/heads/x.lock", 17));
	assert_false(sentry_refname_ok("refs/heads/x@{1}", 16));
	assert_false(sentry_refname_ok("refs/heads//x", 13));
	assert_false(sentry_refname_ok("HEAD", 4));
	memset(&r, 0, sizeof r);
	assert_int_equal(sentry_packed_refs_parse(pk, sizeof pk - 1, 40, &r), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.v[0].name, "refs/heads/ok");
	assert_string_equal(r.v[1].name, "refs/tags/v1");
	assert_int_equal(r.skipped, 2);
	sentry_refs_clear(&r);
	assert_int_equal(sentry_packed_refs_parse("a\0b", 3, 40, &r), -1);
	sentry_refs_clear(&r);
}

/* Objects the agent plants as symlinks (to another repository's objects,
 * to any file of the user's) are never staged, so host git never reads
 * them: the import takes only what the agent's refs reach in its own files. */
static void
test_sentry_import_never_follows_symlinked_objects(void **state)
{
	char *r = st_make_repo("repo"), *other = st_make_repo("secret"), *id, *f, *link, *dir;
	struct anchor *a;

	(void)state;
	a = st_anchor_prepared(r);
	/* A blob only the other repository has, linked into the agent's store
	 * and referenced by a commit the agent builds by hand. */
	f = xasprintf("%s/only-secret", other);
	st_write_file(f, "secret\n");
	free(f);
	id = st_git_in(other, "hash-object", "-w", "only-secret", NULL);
	dir = xasprintf("%s/git/objects/%.2s", a->domain_root, id);
	(void)mkdir(dir, 0755);
	link = xasprintf("%s/%s", dir, id + 2);
	f = xasprintf("%s/.git/objects/%.2s/%s", other, id, id + 2);
	assert_int_equal(symlink(f, link), 0);
	free(f);
	{
		char *ci = xasprintf("100644,%s,leak", id);

		st_agent_do(a, a->worktree, "update-index", "--add", "--cacheinfo", ci, NULL);
		free(ci);
	}
	st_agent_do(a, a->worktree, "commit", "-qm", "leak", NULL);
	{
		lz_err_t err = LZ_ERR_INIT;
		char *note = NULL;

		/* The import fails (the blob is missing), or succeeds without it. */
		(void)sentry_import(a, &note, &err);
		lz_err_clear(&err);
		free(note);
	}
	{
		char **argv = NULL;
		struct proc_result res;
		lz_err_t err = LZ_ERR_INIT;

		lz_strv_push(&argv, "git");
		lz_strv_push(&argv, "-C");
		lz_strv_push(&argv, r);
		lz_strv_push(&argv, "cat-file");
		lz_strv_push(&argv, "-e");
		lz_strv_push(&argv, id);
		assert_int_equal(proc_run(argv, NULL, NULL, 0, &res, &err), 0);
		assert_int_not_equal(res.status, 0);
		proc_result_clear(&res);
		lz_strv_free(argv);
	}
	free(link);
	free(dir);
	free(id);
	anchor_free(a);
	free(other);
	free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, st_setup_tmp, st_teardown_tmp)
		T(test_sentry_import_takes_branches_and_tags_into_the_namespace),
		T(test_sentry_import_forged_objects_never_shadow_host_objects),
		T(test_sentry_import_skips_symbolic_and_symlinked_refs),
		T(test_sentry_import_never_follows_symlinked_objects),
		T(test_sentry_corrupt_private_head_leaves_host_gc_working),
		cmocka_unit_test(test_sentry_refname_and_packed_refs_parse),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
