/* test-sentry.c - the Git Sentry layout and branch isolation, on real git
 * repositories in a temp dir (no podman: the container side is
 * tests/integ/test-sentry.sh). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anchor.h"
#include "coord/proc.h"
#include "sandbox/sentry.h"
#include "strv.h"
#include "testutil.h"
#include "xmalloc.h"

static char *tmp;

/* Run git in dir with a fixed identity; returns stdout (newlines cut). */
static char *
git_vin(const char *dir, va_list ap)
{
	char **argv = NULL, *out = NULL;
	lz_err_t err = LZ_ERR_INIT;
	const char *s;

	lz_strv_push(&argv, "git");
	lz_strv_push(&argv, "-C");
	lz_strv_push(&argv, dir);
	lz_strv_push(&argv, "-c");
	lz_strv_push(&argv, "user.name=test");
	lz_strv_push(&argv, "-c");
	lz_strv_push(&argv, "user.email=test@example.invalid");
	while ((s = va_arg(ap, const char *)) != NULL)
		lz_strv_push(&argv, s);
	if (proc_run_ok(argv, &out, &err) < 0)
		fail_msg("%s", err.msg);
	lz_strv_free(argv);
	return out;
}

static char *
git_in(const char *dir, ...)
{
	va_list ap;
	char *out;

	va_start(ap, dir);
	out = git_vin(dir, ap);
	va_end(ap);
	return out;
}

/* git_in, output dropped. */
static void
git_do(const char *dir, ...)
{
	va_list ap;

	va_start(ap, dir);
	free(git_vin(dir, ap));
	va_end(ap);
}

/* Assert git's output in dir equals want. */
static void
expect_git(const char *want, const char *dir, ...)
{
	va_list ap;
	char *out;

	va_start(ap, dir);
	out = git_vin(dir, ap);
	va_end(ap);
	assert_string_equal(out, want);
	free(out);
}

/* Run a program (argv as varargs, NULL-terminated) and assert it succeeded. */
static void
run_ok(const char *a0, ...)
{
	char **argv = NULL;
	lz_err_t err = LZ_ERR_INIT;
	const char *s;
	va_list ap;

	lz_strv_push(&argv, a0);
	va_start(ap, a0);
	while ((s = va_arg(ap, const char *)) != NULL)
		lz_strv_push(&argv, s);
	va_end(ap);
	if (proc_run_ok(argv, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	lz_strv_free(argv);
}

static void
write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static char *
read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = xmalloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static char *
path_in(const char *rel)
{
	return xasprintf("%s/%s", tmp, rel);
}

/* A repo with one commit, a modified README and a staged new file, so the
 * host's index and working tree are worth comparing. */
static char *
make_repo(const char *name)
{
	char *r = path_in(name), *f;

	git_do(tmp, "init", "-q", "-b", "main", r, NULL);
	f = xasprintf("%s/README", r);
	write_file(f, "hello\n");
	git_do(r, "add", "README", NULL);
	git_do(r, "commit", "-qm", "init", NULL);
	write_file(f, "hello\nlocal edit\n");
	free(f);
	f = xasprintf("%s/staged", r);
	write_file(f, "staged\n");
	free(f);
	git_do(r, "add", "staged", NULL);
	return r;
}

static struct anchor *
anchor_for(const char *ws)
{
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT;
	char *data = path_in("data"), *sock = path_in("sock");

	if (anchor_new("default", ws, data, sock, &a, &err) < 0)
		fail_msg("%s", err.msg);
	free(data);
	free(sock);
	return a;
}

/* Everything of the host checkout that must stay byte-identical. */
static char *
host_snapshot(const char *r)
{
	const char *files[] = { ".git/HEAD", ".git/index", ".git/refs/heads/main",
	    ".git/config", "README", "staged" };
	char *snap = xstrdup(""), *s, *f, *c, *st;
	size_t i;

	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		f = xasprintf("%s/%s", r, files[i]);
		c = read_file(f);
		s = xasprintf("%s%s:%zu:", snap, files[i], c != NULL ? strlen(c) : 0);
		free(snap);
		snap = s;
		if (c != NULL) {
			/* the index is binary: compare its bytes as hex-free length + memcmp
			 * through a second read below */
			s = xasprintf("%s%s\n", snap, strcmp(files[i], ".git/index") == 0 ? "" : c);
			free(snap);
			snap = s;
		}
		free(c);
		free(f);
	}
	st = git_in(r, "--no-optional-locks", "status", "--porcelain", "--untracked-files=all",
	    NULL);
	s = xasprintf("%sstatus:%s\n", snap, st);
	free(snap);
	free(st);
	return s;
}

static bool
same_bytes(const char *a, const char *b)
{
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	char ba[4096], bb[4096];
	ssize_t na, nb;
	bool same = fa >= 0 && fb >= 0;

	while (same) {
		na = read(fa, ba, sizeof ba);
		nb = read(fb, bb, sizeof bb);
		if (na != nb || (na > 0 && memcmp(ba, bb, (size_t)na) != 0))
			same = false;
		if (na <= 0)
			break;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

static const struct drv_mount *
find_mount(const struct sentry_layout *l, const char *dst)
{
	size_t i;

	for (i = 0; i < l->n_mounts; i++)
		if (strcmp(l->mounts[i].dst, dst) == 0)
			return &l->mounts[i];
	return NULL;
}

static void
assert_bind(const struct sentry_layout *l, const char *dst, const char *src, bool ro)
{
	const struct drv_mount *m = find_mount(l, dst);

	if (m == NULL)
		fail_msg("no mount at %s", dst);
	assert_int_equal(m->type, DRV_MOUNT_BIND);
	if (src != NULL)
		assert_string_equal(m->src, src);
	if (m->ro != ro)
		fail_msg("%s: expected %s", dst, ro ? "ro" : "rw");
}

static const char *
env_get(const struct sentry_layout *l, const char *key)
{
	size_t n = strlen(key), i;

	for (i = 0; l->env != NULL && l->env[i] != NULL; i++)
		if (strncmp(l->env[i], key, n) == 0 && l->env[i][n] == '=')
			return l->env[i] + n + 1;
	return NULL;
}

/* Every mount destination is below its parent's: podman gets them in an
 * order where a parent is always mounted first. */
static void
assert_parents_first(const struct sentry_layout *l)
{
	size_t i, j, n;

	for (i = 0; i < l->n_mounts; i++)
		for (j = i + 1; j < l->n_mounts; j++) {
			n = strlen(l->mounts[j].dst);
			if (strncmp(l->mounts[i].dst, l->mounts[j].dst, n) == 0 &&
			    l->mounts[i].dst[n] == '/')
				fail_msg("%s comes before its parent %s", l->mounts[i].dst,
				    l->mounts[j].dst);
		}
}

static void
prepare_ok(const struct anchor *a, enum sentry_mode mode, struct sentry_layout *l)
{
	lz_err_t err = LZ_ERR_INIT;

	if (sentry_prepare(a, mode, l, &err) < 0)
		fail_msg("sentry_prepare: %s", err.msg);
}

/* sentry_prepare refuses with a message holding want, and fills nothing. */
static void
expect_refused(const struct anchor *a, enum sentry_mode mode, const char *want)
{
	struct sentry_layout l;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(sentry_prepare(a, mode, &l, &err), -1);
	assert_non_null(err.msg);
	if (strstr(err.msg, want) == NULL)
		fail_msg("'%s' not in '%s'", want, err.msg);
	assert_int_equal(l.n_mounts, 0);
	assert_null(l.mounts);
	lz_err_clear(&err);
}

/* First session: prepare, then the agent commits agent.txt in its checkout.
 * Returns the agent branch's commit. */
static char *
agent_first_session(const struct anchor *a)
{
	struct sentry_layout l;
	char *f = xasprintf("%s/agent.txt", a->worktree);

	prepare_ok(a, SENTRY_ISOLATED, &l);
	sentry_layout_clear(&l);
	write_file(f, "agent\n");
	free(f);
	git_do(a->worktree, "add", "agent.txt", NULL);
	git_do(a->worktree, "commit", "-qm", "agent work", NULL);
	return git_in(a->worktree, "rev-parse", "lazaret/agent-default", NULL);
}

static void
expect_file(const char *path, const char *want)
{
	char *got = read_file(path);

	if (got == NULL)
		fail_msg("cannot read %s", path);
	assert_string_equal(got, want);
	free(got);
}

static int
setup_tmp(void **state)
{
	(void)state;
	tmp = tu_mkdtemp("sentry");
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_OBJECT_DIRECTORY");
	unsetenv("GIT_ALTERNATE_OBJECT_DIRECTORIES");
	return 0;
}

static int
teardown_tmp(void **state)
{
	(void)state;
	tu_rmrf(tmp);
	free(tmp);
	tmp = NULL;
	return 0;
}

static void
test_sentry_non_git_workspace_is_plain_rw_with_notice(void **state)
{
	char *ws = path_in("plain");
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	assert_int_equal(mkdir(ws, 0755), 0);
	a = anchor_for(ws);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_false(l.is_git);
	assert_null(l.branch);
	assert_non_null(l.notice);
	assert_non_null(strstr(l.notice, "not a git repository"));
	assert_int_equal(l.n_mounts, 1);
	assert_bind(&l, "/workspace", a->workspace, false);
	assert_null(l.env);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(ws);
}

static void
test_sentry_isolated_leaves_host_checkout_byte_identical(void **state)
{
	char *r = make_repo("repo"), *before, *after, *idx_copy, *idx, *cmd_out;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	idx = xasprintf("%s/.git/index", r);
	idx_copy = path_in("index.before");
	run_ok("cp", idx, idx_copy, NULL);
	before = host_snapshot(r);
	a = anchor_for(r);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	after = host_snapshot(r);
	assert_string_equal(before, after);
	assert_true(same_bytes(idx, idx_copy));
	/* The branch exists at host HEAD; the host is still on main. */
	cmd_out = git_in(r, "rev-parse", "HEAD", "refs/heads/lazaret/agent-default", NULL);
	assert_non_null(strchr(cmd_out, '\n'));
	assert_memory_equal(cmd_out, strchr(cmd_out, '\n') + 1, 40);
	free(cmd_out);
	expect_git("refs/heads/main", r, "symbolic-ref", "HEAD", NULL);
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

static void
test_sentry_isolated_mounts_git_dir_read_only_with_writable_parts(void **state)
{
	char *r = make_repo("repo"), *g, *s, *wt, *gitfile, *o;
	struct sentry_layout l;
	struct anchor *a;
	const struct drv_mount *m;
	char dr[PATH_MAX];

	(void)state;
	a = anchor_for(r);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_non_null(realpath(a->domain_root, dr));
	g = xasprintf("%s/.git", r);
	wt = xasprintf("%s/lazaret-%s", dr, a->hash);
	assert_bind(&l, "/workspace", wt, false);
	assert_bind(&l, "/workspace/.git", NULL, true);
	gitfile = read_file(find_mount(&l, "/workspace/.git")->src);
	s = xasprintf("gitdir: /run/lazaret/git/worktrees/lazaret-%s\n", a->hash);
	assert_string_equal(gitfile, s);
	free(s);
	free(gitfile);
	assert_bind(&l, "/run/lazaret/git", g, true);
	/* The user's objects read-only; new ones go to the private store,
	 * which the host borrows from through alternates. */
	assert_null(find_mount(&l, "/run/lazaret/git/objects"));
	s = xasprintf("%s/objects", dr);
	assert_bind(&l, s, s, false);
	assert_string_equal(env_get(&l, "GIT_OBJECT_DIRECTORY"), s);
	assert_string_equal(env_get(&l, "GIT_ALTERNATE_OBJECT_DIRECTORIES"),
	    "/run/lazaret/git/objects");
	gitfile = xasprintf("%s/objects/info/alternates", g);
	o = xasprintf("%s\n", s);
	expect_file(gitfile, o);
	free(o);
	free(gitfile);
	free(s);
	s = xasprintf("%s/refs/heads/lazaret", g);
	assert_bind(&l, "/run/lazaret/git/refs/heads/lazaret", s, false);
	assert_true(access(s, F_OK) == 0);
	free(s);
	s = xasprintf("%s/logs/refs/heads/lazaret", g);
	assert_bind(&l, "/run/lazaret/git/logs/refs/heads/lazaret", s, false);
	assert_true(access(s, F_OK) == 0);
	free(s);
	/* Not all of refs/: the user's branches stay read-only. */
	assert_null(find_mount(&l, "/run/lazaret/git/refs"));
	assert_null(find_mount(&l, "/run/lazaret/git/refs/heads"));
	assert_null(find_mount(&l, "/run/lazaret/git/config"));
	s = xasprintf("/run/lazaret/git/worktrees/lazaret-%s", a->hash);
	assert_bind(&l, s, NULL, false);
	free(s);
	s = xasprintf("/run/lazaret/git/worktrees/lazaret-%s/commondir", a->hash);
	assert_bind(&l, s, NULL, true);
	free(s);
	s = xasprintf("/run/lazaret/git/worktrees/lazaret-%s/gitdir", a->hash);
	assert_bind(&l, s, NULL, true);
	free(s);
	s = xasprintf("/run/lazaret/git/worktrees/lazaret-%s/config.worktree", a->hash);
	assert_bind(&l, s, NULL, true);
	m = find_mount(&l, s);
	expect_file(m->src, "");
	free(s);
	m = find_mount(&l, "/run/lazaret/git/hooks");
	assert_non_null(m);
	assert_int_equal(m->type, DRV_MOUNT_TMPFS);
	assert_null(env_get(&l, "GIT_DIR"));
	assert_parents_first(&l);
	/* The checkout is there, on the agent branch. */
	s = xasprintf("%s/README", wt);
	expect_file(s, "hello\n");
	free(s);
	expect_git("refs/heads/lazaret/agent-default", wt, "symbolic-ref", "HEAD", NULL);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(g);
	free(wt);
	free(r);
}

static void
test_sentry_isolated_restart_reuses_checkout_and_commits(void **state)
{
	char *r = make_repo("repo"), *f, *c1, *c2, *gf;
	struct stat st1, st2;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = anchor_for(r);
	/* The agent works: a commit and an uncommitted file. */
	c1 = agent_first_session(a);
	f = xasprintf("%s/wip.txt", a->worktree);
	write_file(f, "wip\n");
	gf = xasprintf("%s/sentry/gitfile", a->domain_root);
	assert_int_equal(stat(gf, &st1), 0);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	/* No new branch this time, and nothing of the agent's lost. */
	assert_null(l.notice);
	/* A running container's bind of the gitfile keeps its inode. */
	assert_int_equal(stat(gf, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	free(gf);
	c2 = git_in(r, "rev-parse", "lazaret/agent-default", NULL);
	assert_string_equal(c1, c2);
	expect_file(f, "wip\n");
	expect_git("agent work", r, "log", "-1", "--format=%s", "lazaret/agent-default", NULL);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(f);
	free(c1);
	free(c2);
	free(r);
}

static void
test_sentry_recreates_deleted_checkout_on_existing_branch(void **state)
{
	char *r = make_repo("repo"), *f, *o, *c1, *c2;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = anchor_for(r);
	c1 = agent_first_session(a);
	f = xasprintf("%s/agent.txt", a->worktree);
	tu_rmrf(a->worktree);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	c2 = git_in(r, "rev-parse", "lazaret/agent-default", NULL);
	assert_string_equal(c1, c2);
	/* Checked out again on the branch, with the agent's commit. */
	expect_file(f, "agent\n");
	expect_git("refs/heads/lazaret/agent-default", a->worktree, "symbolic-ref", "HEAD", NULL);
	/* One registration, not a stale one beside a new one. */
	o = git_in(r, "worktree", "list", "--porcelain", NULL);
	assert_null(strstr(o, "prunable"));
	free(o);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(f);
	free(c1);
	free(c2);
	free(r);
}

static void
test_sentry_refuses_checkout_no_longer_registered(void **state)
{
	char *r = make_repo("repo"), *admin;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = anchor_for(r);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	sentry_layout_clear(&l);
	admin = xasprintf("%s/.git/worktrees", r);
	tu_rmrf(admin);
	expect_refused(a, SENTRY_ISOLATED, "no longer a worktree");
	anchor_free(a);
	free(admin);
	free(r);
}

static void
test_sentry_direct_commits_land_on_agent_branch_not_main(void **state)
{
	char *r = make_repo("repo"), *o, *main1, *main2, *gd, *hostgd, *f;
	struct sentry_layout l;
	struct anchor *a;
	const char *v;

	(void)state;
	a = anchor_for(r);
	main1 = git_in(r, "rev-parse", "main", NULL);
	prepare_ok(a, SENTRY_DIRECT, &l);
	assert_bind(&l, "/workspace", r, false);
	o = xasprintf("%s/.git", r);
	assert_bind(&l, "/workspace/.git", o, true);
	free(o);
	assert_null(find_mount(&l, "/workspace/.git/objects"));
	assert_string_equal(env_get(&l, "GIT_ALTERNATE_OBJECT_DIRECTORIES"),
	    "/workspace/.git/objects");
	assert_null(find_mount(&l, "/run/lazaret/git"));
	v = env_get(&l, "GIT_DIR");
	assert_non_null(v);
	gd = xasprintf("/workspace/.git/worktrees/lazaret-%s", a->hash);
	assert_string_equal(v, gd);
	assert_string_equal(env_get(&l, "GIT_WORK_TREE"), "/workspace");
	assert_parents_first(&l);
	/* The direct checkout is not copied: only its .git file is there. */
	f = xasprintf("%s/README", a->worktree);
	assert_int_equal(access(f, F_OK), -1);
	free(f);
	/* What the agent's git does, with the container paths mapped back. */
	hostgd = xasprintf("--git-dir=%s/.git/worktrees/lazaret-%s", r, a->hash);
	o = git_in(r, hostgd, "--work-tree=.", "status", "--porcelain", NULL);
	/* Private index = the agent branch: the host's staged file is new to it. */
	assert_non_null(strstr(o, " M README"));
	assert_non_null(strstr(o, "?? staged"));
	free(o);
	f = xasprintf("%s/.git/objects", r);
	assert_int_equal(setenv("GIT_OBJECT_DIRECTORY", env_get(&l, "GIT_OBJECT_DIRECTORY"), 1), 0);
	assert_int_equal(setenv("GIT_ALTERNATE_OBJECT_DIRECTORIES", f, 1), 0);
	o = git_in(r, hostgd, "--work-tree=.", "commit", "-qam", "direct work", NULL);
	unsetenv("GIT_OBJECT_DIRECTORY");
	unsetenv("GIT_ALTERNATE_OBJECT_DIRECTORIES");
	free(o);
	free(f);
	main2 = git_in(r, "rev-parse", "main", NULL);
	assert_string_equal(main1, main2);
	/* Seen on the host at once, through the alternates line... */
	expect_git("direct work", r, "log", "-1", "--format=%s", "lazaret/agent-default", NULL);
	expect_git("refs/heads/main", r, "symbolic-ref", "HEAD", NULL);
	o = git_in(r, "rev-parse", "lazaret/agent-default", NULL);
	f = xasprintf("%s/.git/objects/%.2s/%s", r, o, o + 2);
	assert_int_equal(access(f, F_OK), -1);
	/* ... and the repository's own after teardown, alternates line gone. */
	assert_int_equal(sentry_release(a, NULL), 0);
	assert_int_equal(access(f, F_OK), 0);
	free(f);
	f = xasprintf("%s/.git/objects/info/alternates", r);
	assert_int_equal(access(f, F_OK), -1);
	free(f);
	tu_rmrf(env_get(&l, "GIT_OBJECT_DIRECTORY"));
	expect_git("direct work", r, "log", "-1", "--format=%s", "lazaret/agent-default", NULL);
	git_do(r, "fsck", "--no-progress", NULL);
	free(o);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(gd);
	free(hostgd);
	free(main1);
	free(main2);
	free(r);
}

static void
test_sentry_isolated_after_direct_fills_the_checkout(void **state)
{
	char *r = make_repo("repo"), *f;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = anchor_for(r);
	prepare_ok(a, SENTRY_DIRECT, &l);
	sentry_layout_clear(&l);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	f = xasprintf("%s/README", a->worktree);
	expect_file(f, "hello\n");
	free(f);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(r);
}

static void
test_sentry_refuses_comma_in_workspace_path(void **state)
{
	char *ws = path_in("a,b");
	struct anchor *a;

	(void)state;
	git_do(tmp, "init", "-q", ws, NULL);
	a = anchor_for(ws);
	expect_refused(a, SENTRY_ISOLATED, "contains a comma");
	{
		char *want = xasprintf("workspace '%s' contains a comma", a->workspace);

		expect_refused(a, SENTRY_DIRECT, want);
		free(want);
	}
	anchor_free(a);
	free(ws);
}

static void
test_sentry_workspace_path_with_spaces_works(void **state)
{
	char *r = make_repo("my project"), *s;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = anchor_for(r);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	s = xasprintf("%s/.git", r);
	assert_bind(&l, "/run/lazaret/git", s, true);
	free(s);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(r);
}

static void
test_sentry_refuses_repo_without_commit(void **state)
{
	char *ws = path_in("empty");
	struct anchor *a;

	(void)state;
	git_do(tmp, "init", "-q", ws, NULL);
	a = anchor_for(ws);
	expect_refused(a, SENTRY_ISOLATED, "no commit yet");
	expect_refused(a, SENTRY_DIRECT, "no commit yet");
	anchor_free(a);
	free(ws);
}

static void
test_sentry_subdirectory_of_repo_is_plain_with_notice(void **state)
{
	char *r = make_repo("repo"), *sub;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	sub = xasprintf("%s/sub", r);
	assert_int_equal(mkdir(sub, 0755), 0);
	a = anchor_for(sub);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_false(l.is_git);
	assert_non_null(strstr(l.notice, "not its top level"));
	assert_int_equal(l.n_mounts, 1);
	assert_bind(&l, "/workspace", sub, false);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(sub);
	free(r);
}

static void
test_sentry_refuses_bare_repository_and_dotgit_symlink(void **state)
{
	char *ws = path_in("bare.git"), *o, *q;
	struct anchor *a;

	(void)state;
	git_do(tmp, "init", "-q", "--bare", ws, NULL);
	a = anchor_for(ws);
	expect_refused(a, SENTRY_ISOLATED, "git directory");
	anchor_free(a);
	free(ws);
	/* .git as a symlink to the git dir: refused, not followed. */
	ws = make_repo("linked-dotgit");
	o = xasprintf("%s/.git", ws);
	run_ok("mv", o, tmp, NULL);
	free(o);
	o = xasprintf("%s/.git", tmp);
	q = xasprintf("%s/.git", ws);
	assert_int_equal(symlink(o, q), 0);
	a = anchor_for(ws);
	expect_refused(a, SENTRY_ISOLATED, "is a symbolic link");
	free(o);
	free(q);
	anchor_free(a);
	free(ws);
}

/* A superproject with a submodule: its hooks get a tmpfs too, and the
 * submodule checkout itself is refused as a workspace. */
static void
test_sentry_submodules_hooks_masked_and_checkout_refused(void **state)
{
	char *sub = make_repo("subsrc"), *sup = make_repo("super"), *subws;
	struct sentry_layout l;
	struct anchor *a;
	const struct drv_mount *m;

	(void)state;
	git_do(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub,
	    "lib/sub", NULL);
	git_do(sup, "commit", "-qm", "add sub", NULL);
	a = anchor_for(sup);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	m = find_mount(&l, "/run/lazaret/git/modules/lib/sub/hooks");
	assert_non_null(m);
	assert_int_equal(m->type, DRV_MOUNT_TMPFS);
	assert_parents_first(&l);
	sentry_layout_clear(&l);
	anchor_free(a);
	/* Direct mode keeps the gitfile "../../.git/modules/lib/sub" working. */
	a = anchor_for(sup);
	prepare_ok(a, SENTRY_DIRECT, &l);
	assert_non_null(find_mount(&l, "/workspace/.git/modules/lib/sub/hooks"));
	sentry_layout_clear(&l);
	anchor_free(a);
	subws = xasprintf("%s/lib/sub", sup);
	a = anchor_for(subws);
	expect_refused(a, SENTRY_ISOLATED, "submodule");
	anchor_free(a);
	free(subws);
	free(sub);
	free(sup);
}

/* The workspace is itself a linked worktree: G is the common dir. */
static void
test_sentry_linked_worktree_workspace_uses_common_dir(void **state)
{
	char *r = make_repo("repo"), *lw = path_in("linked"), *o, *g, *s;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	git_do(r, "worktree", "add", "-q", "-b", "feature", lw, NULL);
	a = anchor_for(lw);
	g = xasprintf("%s/.git", r);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_bind(&l, "/run/lazaret/git", g, true);
	sentry_layout_clear(&l);
	/* The new branch starts from the linked worktree's HEAD. */
	o = git_in(r, "rev-parse", "feature", NULL);
	s = git_in(r, "rev-parse", "lazaret/agent-default", NULL);
	assert_string_equal(o, s);
	free(o);
	free(s);
	/* Direct: the linked checkout itself, its .git file covered. */
	prepare_ok(a, SENTRY_DIRECT, &l);
	assert_bind(&l, "/workspace", lw, false);
	assert_bind(&l, "/workspace/.git", NULL, true);
	assert_bind(&l, "/run/lazaret/git", g, true);
	assert_null(env_get(&l, "GIT_DIR"));
	sentry_layout_clear(&l);
	anchor_free(a);
	free(g);
	free(lw);
	free(r);
}

/* The agent branch is checked out elsewhere (the user did, or another
 * domain of the same repo): a clear refusal, nothing forced. */
static void
test_sentry_refuses_agent_branch_checked_out_elsewhere(void **state)
{
	char *r = make_repo("repo");
	struct anchor *a;

	(void)state;
	git_do(r, "branch", "lazaret/agent-default", NULL);
	git_do(r, "stash", "-q", NULL);
	git_do(r, "checkout", "-q", "lazaret/agent-default", NULL);
	a = anchor_for(r);
	expect_refused(a, SENTRY_ISOLATED, "branch lazaret/agent-default is in use by another checkout");
	expect_git("refs/heads/lazaret/agent-default", r, "symbolic-ref", "HEAD", NULL);
	anchor_free(a);
	free(r);
}

/* Symlinks and FIFOs the agent left where host git writes or reads are
 * removed before the next session and at teardown; their targets untouched. */
static void
test_sentry_removes_symlinks_the_agent_planted(void **state)
{
	char *r = make_repo("repo"), *victim = path_in("victim"), *p, *q;
	struct sentry_layout l;
	struct anchor *a;
	struct stat st;

	(void)state;
	write_file(victim, "precious\n");
	a = anchor_for(r);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_null(strstr(l.notice, "removed"));
	sentry_layout_clear(&l);
	p = xasprintf("%s/.git/worktrees/lazaret-%s/COMMIT_EDITMSG", r, a->hash);
	assert_int_equal(symlink(victim, p), 0);
	q = xasprintf("%s/.git/refs/heads/lazaret/fifo", r);
	assert_int_equal(mkfifo(q, 0644), 0);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_non_null(l.notice);
	assert_non_null(strstr(l.notice, "removed 2 symlink(s) or special file(s)"));
	assert_int_equal(lstat(p, &st), -1);
	assert_int_equal(lstat(q, &st), -1);
	sentry_layout_clear(&l);
	/* Teardown scrubs too. */
	assert_int_equal(symlink(victim, p), 0);
	assert_int_equal(sentry_release(a, NULL), 0);
	assert_int_equal(lstat(p, &st), -1);
	expect_file(victim, "precious\n");
	/* A plain workspace has nothing to release. */
	anchor_free(a);
	a = anchor_for(tmp);
	assert_int_equal(sentry_release(a, NULL), 0);
	anchor_free(a);
	free(p);
	free(q);
	free(victim);
	free(r);
}

/* A hooks dir in the working tree (husky) runs on the user's next commit:
 * read-only in the sandbox, a tmpfs while it does not exist yet. */
static void
test_sentry_guards_hooks_path_inside_the_checkout(void **state)
{
	char *r = make_repo("repo"), *d, *s, *wt;
	struct sentry_layout l;
	const struct drv_mount *m;
	struct anchor *a;

	(void)state;
	d = xasprintf("%s/.husky", r);
	assert_int_equal(mkdir(d, 0755), 0);
	s = xasprintf("%s/pre-commit", d);
	write_file(s, "#!/bin/sh\necho hook\n");
	git_do(r, "add", ".husky/pre-commit", NULL);
	git_do(r, "commit", "-qm", "husky", NULL);
	git_do(r, "config", "core.hooksPath", ".husky", NULL);
	a = anchor_for(r);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	wt = xasprintf("%s/.husky", a->worktree);
	assert_bind(&l, "/workspace/.husky", wt, true);
	assert_parents_first(&l);
	sentry_layout_clear(&l);
	anchor_free(a);
	/* Direct mode: the user's own copy. */
	a = anchor_for(r);
	tu_rmrf(a->domain_root);
	git_do(r, "worktree", "prune", NULL);
	prepare_ok(a, SENTRY_DIRECT, &l);
	assert_bind(&l, "/workspace/.husky", d, true);
	sentry_layout_clear(&l);
	/* Not there yet: a tmpfs, so the agent cannot create it. */
	git_do(r, "config", "core.hooksPath", "tools/hooks", NULL);
	prepare_ok(a, SENTRY_DIRECT, &l);
	m = find_mount(&l, "/workspace/tools/hooks");
	assert_non_null(m);
	assert_int_equal(m->type, DRV_MOUNT_TMPFS);
	sentry_layout_clear(&l);
	/* Outside the checkout: nothing to guard in the sandbox. */
	git_do(r, "config", "core.hooksPath", "../elsewhere", NULL);
	prepare_ok(a, SENTRY_DIRECT, &l);
	assert_null(find_mount(&l, "/workspace/../elsewhere"));
	assert_int_equal(l.n_mounts, 10);
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
	char *r = make_repo("repo"), *f;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	f = xasprintf("%s/project.gitconfig", r);
	write_file(f, "[core]\n\tautocrlf = false\n");
	git_do(r, "config", "include.path", "../project.gitconfig", NULL);
	git_do(r, "config", "includeIf.gitdir:/.path", "../later.gitconfig", NULL);
	a = anchor_for(r);
	prepare_ok(a, SENTRY_DIRECT, &l);
	assert_bind(&l, "/workspace/project.gitconfig", f, true);
	assert_bind(&l, "/workspace/later.gitconfig", NULL, true);
	expect_file(find_mount(&l, "/workspace/later.gitconfig")->src, "");
	sentry_layout_clear(&l);
	anchor_free(a);
	free(f);
	free(r);
}

static size_t
count_dst(const struct sentry_layout *l, const char *dst)
{
	size_t i, n = 0;

	for (i = 0; i < l->n_mounts; i++)
		n += strcmp(l->mounts[i].dst, dst) == 0;
	return n;
}

/* A plain directory of checkouts: every nested .git read-only (hooks
 * masked), node_modules not entered; direct mode too, its own .git once. */
static void
test_sentry_guards_nested_repositories(void **state)
{
	char *ws = path_in("src"), *a_repo, *b_repo, *nm, *f, *o;
	struct sentry_layout l;
	const struct drv_mount *m;
	struct anchor *a;

	(void)state;
	assert_int_equal(mkdir(ws, 0755), 0);
	a_repo = make_repo("src/a");
	b_repo = make_repo("src/deep/er/b");
	nm = path_in("src/node_modules");
	assert_int_equal(mkdir(nm, 0755), 0);
	free(make_repo("src/node_modules/c"));
	f = path_in("src/wt-file");
	assert_int_equal(mkdir(f, 0755), 0);
	o = xasprintf("%s/.git", f);
	write_file(o, "gitdir: /elsewhere\n");
	free(o);
	a = anchor_for(ws);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_false(l.is_git);
	o = xasprintf("%s/.git", a_repo);
	assert_bind(&l, "/workspace/a/.git", o, true);
	free(o);
	m = find_mount(&l, "/workspace/a/.git/hooks");
	assert_non_null(m);
	assert_int_equal(m->type, DRV_MOUNT_TMPFS);
	assert_bind(&l, "/workspace/deep/er/b/.git", NULL, true);
	assert_bind(&l, "/workspace/wt-file/.git", NULL, true);
	assert_null(find_mount(&l, "/workspace/node_modules/c/.git"));
	assert_non_null(strstr(l.notice, "3 nested git repositories read-only"));
	assert_parents_first(&l);
	sentry_layout_clear(&l);
	anchor_free(a);
	/* Direct mode on a repo holding an untracked nested one. */
	a = anchor_for(a_repo);
	free(make_repo("src/a/vendor/lib"));
	prepare_ok(a, SENTRY_DIRECT, &l);
	assert_bind(&l, "/workspace/vendor/lib/.git", NULL, true);
	assert_int_equal(count_dst(&l, "/workspace/.git"), 1);
	assert_non_null(strstr(l.notice, "1 nested git repository read-only"));
	sentry_layout_clear(&l);
	anchor_free(a);
	free(f);
	free(nm);
	free(a_repo);
	free(b_repo);
	free(ws);
}

/* The agent packed its objects (git gc in the sandbox): teardown moves the
 * pack into the repository, which then stands on its own. */
static void
test_sentry_release_moves_agent_packs_into_the_repository(void **state)
{
	char *r = make_repo("repo"), *gobj, *alt, *o;
	struct sentry_layout l;
	struct anchor *a;
	const char *pobj;
	glob_t g;

	(void)state;
	a = anchor_for(r);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	pobj = env_get(&l, "GIT_OBJECT_DIRECTORY");
	gobj = xasprintf("%s/.git/objects", r);
	assert_int_equal(setenv("GIT_OBJECT_DIRECTORY", pobj, 1), 0);
	assert_int_equal(setenv("GIT_ALTERNATE_OBJECT_DIRECTORIES", gobj, 1), 0);
	o = xasprintf("%s/agent.txt", a->worktree);
	write_file(o, "agent\n");
	free(o);
	git_do(a->worktree, "add", "agent.txt", NULL);
	git_do(a->worktree, "commit", "-qm", "packed work", NULL);
	git_do(a->worktree, "repack", "-q", "-a", "-d", "-l", NULL);
	unsetenv("GIT_OBJECT_DIRECTORY");
	unsetenv("GIT_ALTERNATE_OBJECT_DIRECTORIES");
	/* The agent's commit sits in a pack of its store. */
	o = xasprintf("%s/pack/*.pack", pobj);
	assert_int_equal(glob(o, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	globfree(&g);
	free(o);
	assert_int_equal(sentry_release(a, NULL), 0);
	o = xasprintf("%s/pack/*.idx", gobj);
	assert_int_equal(glob(o, 0, NULL, &g), 0);
	globfree(&g);
	free(o);
	alt = xasprintf("%s/info/alternates", gobj);
	assert_int_equal(access(alt, F_OK), -1);
	tu_rmrf(pobj);
	expect_git("packed work", r, "log", "-1", "--format=%s", "lazaret/agent-default", NULL);
	git_do(r, "fsck", "--no-progress", NULL);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(alt);
	free(gobj);
	free(r);
}

static void
test_sentry_mode_parse_accepts_the_two_modes_only(void **state)
{
	enum sentry_mode m;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(sentry_mode_parse("isolated", &m, &err), 0);
	assert_int_equal(m, SENTRY_ISOLATED);
	assert_int_equal(sentry_mode_parse("direct", &m, &err), 0);
	assert_int_equal(m, SENTRY_DIRECT);
	assert_int_equal(sentry_mode_parse("Direct", &m, &err), -1);
	assert_non_null(strstr(err.msg, "'isolated' or 'direct'"));
	lz_err_clear(&err);
}

static void
test_sentry_path_check_names_the_bad_path(void **state)
{
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(sentry_path_check("workspace", "/a b/c:d", true, &err), 0);
	assert_int_equal(sentry_path_check("upper", "/a b/c:d", false, &err), -1);
	assert_non_null(strstr(err.msg, "upper '/a b/c:d' contains a colon"));
	lz_err_clear(&err);
	assert_int_equal(sentry_path_check("workspace", "/x/\"q", true, &err), -1);
	assert_non_null(strstr(err.msg, "double quote"));
	lz_err_clear(&err);
	assert_int_equal(sentry_path_check("workspace", "/x/\nq", true, &err), -1);
	assert_non_null(strstr(err.msg, "control character"));
	lz_err_clear(&err);
	assert_int_equal(sentry_path_check("workspace", "rel", true, &err), -1);
	lz_err_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup_tmp, teardown_tmp)
		T(test_sentry_non_git_workspace_is_plain_rw_with_notice),
		T(test_sentry_isolated_leaves_host_checkout_byte_identical),
		T(test_sentry_isolated_mounts_git_dir_read_only_with_writable_parts),
		T(test_sentry_isolated_restart_reuses_checkout_and_commits),
		T(test_sentry_recreates_deleted_checkout_on_existing_branch),
		T(test_sentry_refuses_checkout_no_longer_registered),
		T(test_sentry_direct_commits_land_on_agent_branch_not_main),
		T(test_sentry_isolated_after_direct_fills_the_checkout),
		T(test_sentry_refuses_comma_in_workspace_path),
		T(test_sentry_workspace_path_with_spaces_works),
		T(test_sentry_refuses_repo_without_commit),
		T(test_sentry_subdirectory_of_repo_is_plain_with_notice),
		T(test_sentry_refuses_bare_repository_and_dotgit_symlink),
		T(test_sentry_submodules_hooks_masked_and_checkout_refused),
		T(test_sentry_linked_worktree_workspace_uses_common_dir),
		T(test_sentry_refuses_agent_branch_checked_out_elsewhere),
		T(test_sentry_removes_symlinks_the_agent_planted),
		T(test_sentry_guards_hooks_path_inside_the_checkout),
		T(test_sentry_guards_config_includes_inside_the_checkout),
		T(test_sentry_guards_nested_repositories),
		T(test_sentry_release_moves_agent_packs_into_the_repository),
		cmocka_unit_test(test_sentry_mode_parse_accepts_the_two_modes_only),
		cmocka_unit_test(test_sentry_path_check_names_the_bad_path),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
