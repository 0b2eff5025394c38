/* test-sentry.c - the Git Sentry layout and branch isolation, on real git
 * repositories in a temp dir (no podman: the container side is
 * tests/integ/test-sentry.sh). Which workspaces it takes is
 * test-sentry-workspace.c's, the import test-sentry-import.c's, the watch
 * and the host view test-sentry-watch.c's; the fixture is sentrytest.c. */
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

static void
test_sentry_non_git_workspace_refused_in_isolated_plain_in_direct(void **state)
{
	char *ws = st_path_in("plain");
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	assert_int_equal(mkdir(ws, 0755), 0);
	a = st_anchor_for(ws);
	st_expect_refused(a, SENTRY_ISOLATED, "is not a git repository");
	st_expect_refused(a, SENTRY_ISOLATED, "--mode direct");
	st_prepare_ok(a, SENTRY_DIRECT, &l);
	assert_false(l.is_git);
	assert_null(l.branch);
	assert_non_null(strstr(l.notice, "not a git repository"));
	assert_int_equal(l.n_mounts, 1);
	st_assert_bind(&l, "/workspace", a->workspace, false);
	assert_null(l.env);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(ws);
}

/* The agent's own repository at /workspace/.git, the host's objects
 * read-only at a neutral path, nothing else of the host's .git. */
static void
test_sentry_isolated_mounts_private_repo_and_read_only_objects(void **state)
{
	char *r = st_make_repo("repo"), *gobj, *priv, *alt, *head;
	struct sentry_layout l;
	struct anchor *a;
	size_t i;

	(void)state;
	a = st_anchor_for(r);
	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	priv = xasprintf("%s/git", a->domain_root);
	gobj = xasprintf("%s/.git/objects", r);
	st_assert_bind(&l, "/workspace", a->worktree, false);
	st_assert_bind(&l, "/workspace/.git", priv, false);
	st_assert_bind(&l, "/run/lazaret/git-objects", gobj, true);
	for (i = 0; i < l.n_mounts; i++)
		if (l.mounts[i].src != NULL && strncmp(l.mounts[i].src, r, strlen(r)) == 0 &&
		    strcmp(l.mounts[i].src, gobj) != 0)
			fail_msg("host path %s mounted at %s", l.mounts[i].src, l.mounts[i].dst);
	assert_null(l.env);
	st_assert_parents_first(&l);
	alt = st_priv_path(a, "objects/info/alternates");
	st_expect_file(alt, "/run/lazaret/git-objects\n");
	head = st_priv_path(a, "HEAD");
	st_expect_file(head, "ref: refs/heads/lazaret/agent-default\n");
	/* The checkout holds the agent branch; its .git is an empty directory
	 * on the host, so host git run there finds no repository. */
	{
		char *readme = xasprintf("%s/README", a->worktree);
		char *dg = xasprintf("%s/.git", a->worktree);
		struct stat st;

		st_expect_file(readme, "hello\n");
		assert_int_equal(lstat(dg, &st), 0);
		assert_true(S_ISDIR(st.st_mode));
		free(readme);
		free(dg);
	}
	sentry_layout_clear(&l);
	anchor_free(a);
	free(head);
	free(alt);
	free(priv);
	free(gobj);
	free(r);
}

/* A restart keeps the checkout and its uncommitted work; a deleted checkout
 * comes back from the agent branch. */
static void
test_sentry_restart_reuses_checkout_and_rebuilds_a_deleted_one(void **state)
{
	char *r = st_make_repo("repo"), *f, *wip, *tip;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = st_anchor_prepared(r);
	f = xasprintf("%s/one", a->worktree);
	st_write_file(f, "one\n");
	st_agent_do(a, a->worktree, "add", "one", NULL);
	st_agent_do(a, a->worktree, "commit", "-qm", "one", NULL);
	wip = xasprintf("%s/wip", a->worktree);
	st_write_file(wip, "wip\n");
	assert_int_equal(sentry_release(a, NULL, NULL), 0);
	tip = st_git_in(r, "rev-parse", "lazaret/agent-default", NULL);
	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_null(l.notice == NULL ? NULL : strstr(l.notice, "created branch"));
	sentry_layout_clear(&l);
	st_expect_file(wip, "wip\n");
	tu_rmrf(a->worktree);
	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	sentry_layout_clear(&l);
	st_expect_file(f, "one\n");
	{
		char *st = st_agent_in(a, a->worktree, "status", "--porcelain", NULL);
		char *h = st_agent_in(a, a->worktree, "rev-parse", "HEAD", NULL);

		assert_string_equal(st, "");
		assert_string_equal(h, tip);
		free(st);
		free(h);
	}
	free(tip);
	free(wip);
	free(f);
	anchor_free(a);
	free(r);
}

/* Direct mode: the host checkout at /workspace, the private repo over its
 * .git, the host's index and HEAD untouched. */
static void
test_sentry_direct_covers_host_git_with_private_repo(void **state)
{
	char *r = st_make_repo("repo"), *before, *after, *priv;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	before = st_host_snapshot(r);
	a = st_anchor_for(r);
	st_prepare_ok(a, SENTRY_DIRECT, &l);
	priv = xasprintf("%s/git", a->domain_root);
	st_assert_bind(&l, "/workspace", r, false);
	st_assert_bind(&l, "/workspace/.git", priv, false);
	assert_null(l.env);
	after = st_host_snapshot(r);
	assert_string_equal(before, after);
	/* The agent commits the host file it edited: on its branch only. */
	st_agent_do(a, r, "add", "README", NULL);
	st_agent_do(a, r, "commit", "-qm", "direct", NULL);
	st_import_ok(a);
	st_expect_git("direct", r, "log", "-1", "--format=%s", "lazaret/agent-default", NULL);
	st_expect_git("init", r, "log", "-1", "--format=%s", "main", NULL);
	sentry_layout_clear(&l);
	free(before);
	free(after);
	free(priv);
	anchor_free(a);
	free(r);
}

/* Nested repositories at any depth are read-only; an uninitialised
 * submodule path gets a placeholder; a .git the agent makes is quarantined
 * at release. */
static void
test_sentry_guards_nested_git_at_any_depth_and_quarantines_new_ones(void **state)
{
	char *ws = st_path_in("src"), *deep = xstrdup("src"), *o, *q = NULL;
	struct sentry_layout l;
	struct anchor *a;
	lz_err_t err = LZ_ERR_INIT;
	int i;

	(void)state;
	assert_int_equal(mkdir(ws, 0755), 0);
	for (i = 0; i < 12; i++) {
		char *n = xasprintf("%s/d%d", deep, i);

		free(deep);
		deep = n;
	}
	free(st_make_repo(deep));
	free(st_make_repo("src/node_modules/c"));
	a = st_anchor_for(ws);
	st_prepare_ok(a, SENTRY_DIRECT, &l);
	o = xasprintf("/workspace/%s/.git", deep + 4);
	st_assert_bind(&l, o, NULL, true);
	free(o);
	st_assert_bind(&l, "/workspace/node_modules/c/.git", NULL, true);
	assert_non_null(strstr(l.notice, "2 nested git repositories read-only"));
	sentry_layout_clear(&l);
	/* The agent plants a repository: release moves it away. */
	o = xasprintf("%s/planted/.git", ws);
	st_run_ok("mkdir", "-p", o, NULL);
	assert_int_equal(sentry_release(a, &q, &err), 0);
	assert_non_null(q);
	assert_non_null(strstr(q, "quarantined 1 .git"));
	assert_int_equal(access(o, F_OK), -1);
	free(o);
	o = xasprintf("%s/%s/.git", st_tmp, deep);
	assert_int_equal(access(o, F_OK), 0);	/* the user's own stays */
	free(o);
	free(q);
	anchor_free(a);
	free(deep);
	free(ws);
}

static void
test_sentry_submodule_path_without_checkout_gets_a_placeholder(void **state)
{
	char *sub = st_make_repo("subsrc"), *sup = st_make_repo("super"), *dir;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	st_git_do(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub,
	    "lib/sub", NULL);
	st_git_do(sup, "commit", "-qm", "add sub", NULL);
	st_git_do(sup, "submodule", "deinit", "-q", "-f", "lib/sub", NULL);
	dir = xasprintf("%s/lib/sub", sup);
	a = st_anchor_for(sup);
	st_prepare_ok(a, SENTRY_DIRECT, &l);
	st_assert_bind(&l, "/workspace/lib/sub", NULL, true);
	assert_non_null(strstr(l.notice, "submodule path"));
	sentry_layout_clear(&l);
	anchor_free(a);
	/* Isolated: the agent's checkout has the empty gitlink directory too. */
	a = st_anchor_for(sup);
	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	st_assert_bind(&l, "/workspace/lib/sub", NULL, true);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(dir);
	free(sub);
	free(sup);
}

/* Direct mode on a linked worktree: its .git file (a host path) is covered
 * by ours, read-only, naming the agent's repository at a neutral path. */
static void
test_sentry_direct_linked_worktree_gets_a_neutral_gitfile(void **state)
{
	char *r = st_make_repo("repo"), *lw = st_path_in("linked"), *priv;
	struct sentry_layout l;
	const struct drv_mount *m;
	struct anchor *a;

	(void)state;
	st_git_do(r, "worktree", "add", "-q", "-b", "side", lw, NULL);
	a = st_anchor_for(lw);
	st_prepare_ok(a, SENTRY_DIRECT, &l);
	priv = xasprintf("%s/git", a->domain_root);
	st_assert_bind(&l, "/run/lazaret/gitdir", priv, false);
	m = st_find_mount(&l, "/workspace/.git");
	assert_non_null(m);
	assert_true(m->ro);
	st_expect_file(m->src, "gitdir: /run/lazaret/gitdir\n");
	assert_null(l.env);
	st_assert_parents_first(&l);
	sentry_layout_clear(&l);
	free(priv);
	anchor_free(a);
	free(lw);
	free(r);
}

/* A domain of the Sentry before issue 8 (the agent's gitdir registered as
 * the host's worktree, its objects borrowed through an alternates line): at
 * the next prepare the registration and the line are gone, the agent's
 * commit is imported (verified), the uncommitted work kept. */
static void
test_sentry_converts_the_layout_of_an_earlier_lazaret(void **state)
{
	char *r = st_make_repo("repo"), *dr, *store, *wt, *gitfile, *admin, *alt, *tip, *f, *txt;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = st_anchor_for(r);
	dr = xstrdup(a->domain_root);
	st_run_ok("mkdir", "-p", dr, NULL);
	store = xasprintf("%s/objects", dr);
	wt = xstrdup(a->worktree);
	/* What the old prepare made: a linked worktree, a private store. */
	st_git_do(r, "worktree", "add", "-q", "-b", "lazaret/agent-default", wt, "HEAD", NULL);
	admin = xasprintf("%s/.git/worktrees/%s", r, strrchr(wt, '/') + 1);
	st_run_ok("mkdir", "-p", store, NULL);
	alt = xasprintf("%s/.git/objects/info/alternates", r);
	txt = xasprintf("%s\n", store);
	st_write_file(alt, txt);
	free(txt);
	f = xasprintf("%s/agent.txt", wt);
	st_write_file(f, "agent\n");
	free(f);
	{
		char **argv = NULL, **env = NULL;
		struct proc_result res;
		lz_err_t err = LZ_ERR_INIT;

		lz_strv_pushf(&env, "GIT_OBJECT_DIRECTORY=%s", store);
		lz_strv_pushf(&env, "GIT_ALTERNATE_OBJECT_DIRECTORIES=%s/.git/objects", r);
		lz_strv_push(&env, "PATH=/usr/bin:/bin");
		lz_strv_push(&env, "HOME=/nonexistent");
		lz_strv_push(&argv, "sh");
		lz_strv_push(&argv, "-c");
		lz_strv_pushf(&argv, "cd '%s' && git add agent.txt && git -c user.name=a "
		    "-c user.email=a@example.invalid commit -qm 'old agent'", wt);
		assert_int_equal(proc_run(argv, env, NULL, 0, &res, &err), 0);
		if (res.status != 0)
			fail_msg("%s", res.errout);
		proc_result_clear(&res);
		lz_strv_free(argv);
		lz_strv_free(env);
	}
	tip = st_git_in(r, "rev-parse", "lazaret/agent-default", NULL);
	f = xasprintf("%s/wip", wt);
	st_write_file(f, "wip\n");
	free(f);
	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_non_null(strstr(l.notice, "earlier lazaret"));
	sentry_layout_clear(&l);
	assert_int_equal(access(alt, F_OK), -1);
	assert_int_equal(access(admin, F_OK), -1);
	assert_int_equal(access(store, F_OK), -1);
	st_expect_git(tip, r, "rev-parse", "lazaret/agent-default", NULL);
	st_expect_git("old agent", r, "log", "-1", "--format=%s", "lazaret/agent-default", NULL);
	st_git_do(r, "fsck", "--no-progress", "--no-dangling", NULL);
	f = xasprintf("%s/wip", wt);
	st_expect_file(f, "wip\n");
	free(f);
	gitfile = xasprintf("%s/.git", wt);
	{
		struct stat st;

		assert_int_equal(lstat(gitfile, &st), 0);
		assert_true(S_ISDIR(st.st_mode));
	}
	free(gitfile);
	free(tip);
	free(alt);
	free(admin);
	free(wt);
	free(store);
	free(dr);
	anchor_free(a);
	free(r);
}

/* A repository that borrows objects itself (clone --shared): each borrowed
 * dir read-only at a neutral path, named in the agent's alternates; the
 * host's own alternates file (host paths) covered. */
static void
test_sentry_host_alternates_reach_the_sandbox_read_only(void **state)
{
	char *src = st_make_repo("src"), *r = st_path_in("shared"), *alt, *srcobj;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	st_git_do(st_tmp, "clone", "-q", "--shared", src, r, NULL);
	a = st_anchor_for(r);
	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	srcobj = xasprintf("%s/.git/objects", src);
	st_assert_bind(&l, "/run/lazaret/git-alternates/0", srcobj, true);
	st_assert_bind(&l, "/run/lazaret/git-objects/info/alternates", NULL, true);
	st_assert_parents_first(&l);
	alt = st_priv_path(a, "objects/info/alternates");
	st_expect_file(alt, "/run/lazaret/git-objects\n/run/lazaret/git-alternates/0\n");
	sentry_layout_clear(&l);
	free(alt);
	free(srcobj);
	anchor_free(a);
	free(r);
	free(src);
}

static void
test_sentry_isolated_leaves_host_checkout_byte_identical(void **state)
{
	char *r = st_make_repo("repo"), *before, *after, *idx_copy, *idx, *cmd_out;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	idx = xasprintf("%s/.git/index", r);
	idx_copy = st_path_in("index.before");
	st_run_ok("cp", idx, idx_copy, NULL);
	before = st_host_snapshot(r);
	a = st_anchor_for(r);
	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	after = st_host_snapshot(r);
	assert_string_equal(before, after);
	assert_true(st_same_bytes(idx, idx_copy));
	/* The branch exists at host HEAD; the host is still on main. */
	cmd_out = st_git_in(r, "rev-parse", "HEAD", "refs/heads/lazaret/agent-default", NULL);
	assert_non_null(strchr(cmd_out, '\n'));
	assert_memory_equal(cmd_out, strchr(cmd_out, '\n') + 1, 40);
	free(cmd_out);
	st_expect_git("refs/heads/main", r, "symbolic-ref", "HEAD", NULL);
	assert_true(l.is_git);
	assert_string_equal(l.branch, "lazaret/agent-default");
	assert_non_null(l.notice);
	assert_non_null(strstr(l.notice, "created branch lazaret/agent-default"));
	sentry_layout_clear(&l);
	anchor_free(a);
	free(before);
	free(after);
	free(idx);
	free(idx_copy);
	free(r);
}

/* A superproject with a submodule: its hooks get a tmpfs too, and the
 * submodule checkout itself is refused as a workspace. */
static void
test_sentry_submodules_hooks_masked_and_checkout_refused(void **state)
{
	char *sub = st_make_repo("subsrc"), *sup = st_make_repo("super"), *subws;
	struct sentry_layout l;
	struct anchor *a;
	const struct drv_mount *m;

	(void)state;
	st_git_do(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub,
	    "lib/sub", NULL);
	st_git_do(sup, "commit", "-qm", "add sub", NULL);
	a = st_anchor_for(sup);
	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	m = st_find_mount(&l, "/workspace/.git/modules/lib/sub/hooks");
	assert_non_null(m);
	assert_int_equal(m->type, DRV_MOUNT_TMPFS);
	st_assert_parents_first(&l);
	sentry_layout_clear(&l);
	anchor_free(a);
	/* Direct mode keeps the gitfile "../../.git/modules/lib/sub" working. */
	a = st_anchor_for(sup);
	st_prepare_ok(a, SENTRY_DIRECT, &l);
	assert_non_null(st_find_mount(&l, "/workspace/.git/modules/lib/sub/hooks"));
	sentry_layout_clear(&l);
	anchor_free(a);
	subws = xasprintf("%s/lib/sub", sup);
	a = st_anchor_for(subws);
	st_expect_refused(a, SENTRY_ISOLATED, "submodule");
	anchor_free(a);
	free(subws);
	free(sub);
	free(sup);
}

static void
test_sentry_guards_hooks_path_inside_the_checkout(void **state)
{
	char *r = st_make_repo("repo"), *d, *s, *wt;
	struct sentry_layout l;
	const struct drv_mount *m;
	struct anchor *a;

	(void)state;
	d = xasprintf("%s/.husky", r);
	assert_int_equal(mkdir(d, 0755), 0);
	s = xasprintf("%s/pre-commit", d);
	st_write_file(s, "#!/bin/sh\necho hook\n");
	st_git_do(r, "add", ".husky/pre-commit", NULL);
	st_git_do(r, "commit", "-qm", "husky", NULL);
	st_git_do(r, "config", "core.hooksPath", ".husky", NULL);
	a = st_anchor_for(r);
	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	wt = xasprintf("%s/.husky", a->worktree);
	st_assert_bind(&l, "/workspace/.husky", wt, true);
	st_assert_parents_first(&l);
	sentry_layout_clear(&l);
	anchor_free(a);
	/* Direct mode: the user's own copy. */
	a = st_anchor_for(r);
	tu_rmrf(a->domain_root);
	st_prepare_ok(a, SENTRY_DIRECT, &l);
	st_assert_bind(&l, "/workspace/.husky", d, true);
	sentry_layout_clear(&l);
	/* Not there yet: a tmpfs, so the agent cannot create it. */
	st_git_do(r, "config", "core.hooksPath", "tools/hooks", NULL);
	st_prepare_ok(a, SENTRY_DIRECT, &l);
	m = st_find_mount(&l, "/workspace/tools/hooks");
	assert_non_null(m);
	assert_int_equal(m->type, DRV_MOUNT_TMPFS);
	sentry_layout_clear(&l);
	/* Outside the checkout: nothing to guard in the sandbox. */
	st_git_do(r, "config", "core.hooksPath", "../elsewhere", NULL);
	st_prepare_ok(a, SENTRY_DIRECT, &l);
	assert_null(st_find_mount(&l, "/workspace/../elsewhere"));
	assert_int_equal(l.n_mounts, 5);	/* workspace, .git, objects, host view x2 */
	sentry_layout_clear(&l);
	anchor_free(a);
	free(wt);
	free(s);
	free(d);
	free(r);
}

/* A config include into the working tree would let the agent write config
 * in direct mode: read-only, or the empty file while it does not exist. */
static void
test_sentry_guards_config_includes_inside_the_checkout(void **state)
{
	char *r = st_make_repo("repo"), *f, *lw;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	f = xasprintf("%s/project.gitconfig", r);
	st_write_file(f, "[core]\n\tautocrlf = false\n");
	st_git_do(r, "config", "include.path", "../project.gitconfig", NULL);
	st_git_do(r, "config", "includeIf.gitdir:/.path", "../later.gitconfig", NULL);
	a = st_anchor_for(r);
	st_prepare_ok(a, SENTRY_DIRECT, &l);
	st_assert_bind(&l, "/workspace/project.gitconfig", f, true);
	st_assert_bind(&l, "/workspace/later.gitconfig", NULL, true);
	st_expect_file(st_find_mount(&l, "/workspace/later.gitconfig")->src, "");
	sentry_layout_clear(&l);
	anchor_free(a);
	free(f);
	/* A linked worktree: G's config (git names it by its absolute path)
	 * still counts, its includes relative to G. */
	lw = st_path_in("linked-inc");
	st_git_do(r, "worktree", "add", "-q", "-b", "side-inc", lw, NULL);
	st_git_do(r, "config", "include.path", "../../linked-inc/wt.gitconfig", NULL);
	a = st_anchor_for(lw);
	st_prepare_ok(a, SENTRY_DIRECT, &l);
	st_assert_bind(&l, "/workspace/wt.gitconfig", NULL, true);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(lw);
	free(r);
}

/* The agent's identity takes user.email from the same config read (the
 * last value wins, as `git config --get` says); none is "". */
static void
test_sentry_reads_user_email_with_the_guards(void **state)
{
	char *r = st_make_repo("repo-mail");
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = st_anchor_for(r);
	st_git_do(r, "config", "user.email", "first@example.invalid", NULL);
	st_git_do(r, "config", "--add", "user.email", "me@example.invalid", NULL);
	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_string_equal(l.user_email, "me@example.invalid");
	sentry_layout_clear(&l);
	anchor_free(a);
	free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, st_setup_tmp, st_teardown_tmp)
		T(test_sentry_non_git_workspace_refused_in_isolated_plain_in_direct),
		T(test_sentry_isolated_leaves_host_checkout_byte_identical),
		T(test_sentry_isolated_mounts_private_repo_and_read_only_objects),
		T(test_sentry_restart_reuses_checkout_and_rebuilds_a_deleted_one),
		T(test_sentry_direct_covers_host_git_with_private_repo),
		T(test_sentry_direct_linked_worktree_gets_a_neutral_gitfile),
		T(test_sentry_converts_the_layout_of_an_earlier_lazaret),
		T(test_sentry_host_alternates_reach_the_sandbox_read_only),
		T(test_sentry_guards_nested_git_at_any_depth_and_quarantines_new_ones),
		T(test_sentry_submodule_path_without_checkout_gets_a_placeholder),
		T(test_sentry_submodules_hooks_masked_and_checkout_refused),
		T(test_sentry_guards_hooks_path_inside_the_checkout),
		T(test_sentry_guards_config_includes_inside_the_checkout),
		T(test_sentry_reads_user_email_with_the_guards),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
