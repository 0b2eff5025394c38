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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anchor.h"
#include "host/proc.h"
#include "sandbox/sentry.h"
#include "sandbox/sentry-int.h"
#include "sandbox/sentry-watch.h"
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

	/* The probe begun first, as the coordinator does. */
	if (sentry_prepare_probed(a, mode, sentry_probe_begin(a), l, &err) < 0)
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

/* The domain of ws, prepared once in isolated mode (the layout dropped). */
static struct anchor *
anchor_prepared(const char *ws)
{
	struct anchor *a = anchor_for(ws);
	struct sentry_layout l;

	prepare_ok(a, SENTRY_ISOLATED, &l);
	sentry_layout_clear(&l);
	return a;
}

/* Run git as the agent would in its sandbox: its own gitdir <dr>/git, its
 * checkout, the host's objects where the sandbox's alternates line points. */
static char *
agent_vin(const struct anchor *a, const char *wt, va_list ap)
{
	char **argv = NULL, **env = NULL, *out = NULL;
	struct proc_result res;
	lz_err_t err = LZ_ERR_INIT;
	const char *s;
	char *gobj = NULL;

	{
		char *top = git_in(a->workspace, "rev-parse", "--path-format=absolute",
		    "--git-common-dir", NULL);

		gobj = xasprintf("%s/objects", top);
		free(top);
	}
	lz_strv_pushf(&env, "GIT_DIR=%s/git", a->domain_root);
	lz_strv_pushf(&env, "GIT_WORK_TREE=%s", wt);
	lz_strv_pushf(&env, "GIT_ALTERNATE_OBJECT_DIRECTORIES=%s", gobj);
	lz_strv_push(&env, "PATH=/usr/bin:/bin");
	lz_strv_push(&env, "HOME=/nonexistent");
	lz_strv_push(&env, "GIT_AUTHOR_NAME=agent");
	lz_strv_push(&env, "GIT_AUTHOR_EMAIL=a@example.invalid");
	lz_strv_push(&env, "GIT_COMMITTER_NAME=agent");
	lz_strv_push(&env, "GIT_COMMITTER_EMAIL=a@example.invalid");
	lz_strv_push(&argv, "git");
	lz_strv_push(&argv, "-C");
	lz_strv_push(&argv, wt);
	while ((s = va_arg(ap, const char *)) != NULL)
		lz_strv_push(&argv, s);
	if (proc_run(argv, env, NULL, 0, &res, &err) < 0)
		fail_msg("%s", err.msg);
	if (res.status != 0)
		fail_msg("agent git %s: %s", argv[3], res.errout);
	out = xstrdup(res.out);
	for (size_t n = strlen(out); n > 0 && out[n - 1] == '\n'; n--)
		out[n - 1] = '\0';
	proc_result_clear(&res);
	lz_strv_free(argv);
	lz_strv_free(env);
	free(gobj);
	return out;
}

static char *
agent_in(const struct anchor *a, const char *wt, ...)
{
	va_list ap;
	char *out;

	va_start(ap, wt);
	out = agent_vin(a, wt, ap);
	va_end(ap);
	return out;
}

#define agent_do(a, wt, ...) free(agent_in((a), (wt), __VA_ARGS__))

static void
import_ok(const struct anchor *a)
{
	lz_err_t err = LZ_ERR_INIT;
	char *note = NULL;

	if (sentry_import(a, &note, &err) < 0)
		fail_msg("sentry_import: %s", err.msg);
	free(note);
}

static char *
priv_path(const struct anchor *a, const char *rel)
{
	return xasprintf("%s/git/%s", a->domain_root, rel);
}

static void
test_sentry_non_git_workspace_refused_in_isolated_plain_in_direct(void **state)
{
	char *ws = path_in("plain");
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	assert_int_equal(mkdir(ws, 0755), 0);
	a = anchor_for(ws);
	expect_refused(a, SENTRY_ISOLATED, "is not a git repository");
	expect_refused(a, SENTRY_ISOLATED, "--mode direct");
	prepare_ok(a, SENTRY_DIRECT, &l);
	assert_false(l.is_git);
	assert_null(l.branch);
	assert_non_null(strstr(l.notice, "not a git repository"));
	assert_int_equal(l.n_mounts, 1);
	assert_bind(&l, "/workspace", a->workspace, false);
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
	char *r = make_repo("repo"), *gobj, *priv, *alt, *head;
	struct sentry_layout l;
	struct anchor *a;
	size_t i;

	(void)state;
	a = anchor_for(r);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	priv = xasprintf("%s/git", a->domain_root);
	gobj = xasprintf("%s/.git/objects", r);
	assert_bind(&l, "/workspace", a->worktree, false);
	assert_bind(&l, "/workspace/.git", priv, false);
	assert_bind(&l, "/run/lazaret/git-objects", gobj, true);
	for (i = 0; i < l.n_mounts; i++)
		if (l.mounts[i].src != NULL && strncmp(l.mounts[i].src, r, strlen(r)) == 0 &&
		    strcmp(l.mounts[i].src, gobj) != 0)
			fail_msg("host path %s mounted at %s", l.mounts[i].src, l.mounts[i].dst);
	assert_null(l.env);
	assert_parents_first(&l);
	alt = priv_path(a, "objects/info/alternates");
	expect_file(alt, "/run/lazaret/git-objects\n");
	head = priv_path(a, "HEAD");
	expect_file(head, "ref: refs/heads/lazaret/agent-default\n");
	/* The checkout holds the agent branch; its .git is an empty directory
	 * on the host, so host git run there finds no repository. */
	{
		char *readme = xasprintf("%s/README", a->worktree);
		char *dg = xasprintf("%s/.git", a->worktree);
		struct stat st;

		expect_file(readme, "hello\n");
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

/* The agent's main line, branches and tags reach the host in the Lazaret
 * namespace only; a branch it deletes leaves it; main never moves. */
static void
test_sentry_import_takes_branches_and_tags_into_the_namespace(void **state)
{
	char *r = make_repo("repo"), *main0, *tip, *topic, *f, *v;
	struct anchor *a;

	(void)state;
	a = anchor_prepared(r);
	main0 = git_in(r, "rev-parse", "main", NULL);
	f = xasprintf("%s/agent.txt", a->worktree);
	write_file(f, "agent\n");
	agent_do(a, a->worktree, "add", "agent.txt", NULL);
	agent_do(a, a->worktree, "commit", "-qm", "agent work", NULL);
	agent_do(a, a->worktree, "branch", "topic", NULL);
	agent_do(a, a->worktree, "tag", "-a", "v1", "-m", "v1", NULL);
	agent_do(a, a->worktree, "tag", "main", NULL);	/* a tag named like a branch */
	agent_do(a, a->worktree, "gc", "-q", NULL);
	tip = agent_in(a, a->worktree, "rev-parse", "HEAD", NULL);
	import_ok(a);
	expect_git(tip, r, "rev-parse", "refs/heads/lazaret/agent-default", NULL);
	expect_git(tip, r, "rev-parse", "refs/heads/lazaret/default/topic", NULL);
	expect_git("tag", r, "cat-file", "-t", "refs/tags/lazaret/default/v1", NULL);
	expect_git(tip, r, "rev-parse", "refs/tags/lazaret/default/main", NULL);
	expect_git(main0, r, "rev-parse", "refs/heads/main", NULL);
	expect_git("agent work", r, "log", "-1", "--format=%s", "lazaret/agent-default", NULL);
	/* The objects are the host's own now: no alternates, fsck clean. */
	v = xasprintf("%s/.git/objects/info/alternates", r);
	assert_int_equal(access(v, F_OK), -1);
	free(v);
	git_do(r, "fsck", "--no-progress", "--no-dangling", NULL);
	/* Deleting a branch inside deletes it from the namespace. */
	agent_do(a, a->worktree, "branch", "-D", "topic", NULL);
	import_ok(a);
	topic = git_in(r, "for-each-ref", "refs/heads/lazaret/default/", NULL);
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
	char *r = make_repo("repo"), *blob, *forged, *fdir, *f, *alt, *other, *content;
	static const char *const junk[] = { "objects/pack/multi-pack-index",
	    "objects/info/commit-graph", "objects/pack/pack-x.keep", "objects/info/alternates" };
	struct anchor *a;
	size_t i;

	(void)state;
	a = anchor_prepared(r);
	blob = git_in(r, "rev-parse", "main:README", NULL);
	/* The forgery: a real loose object of other content, renamed to blob. */
	other = xasprintf("%s/other", tmp);
	write_file(other, "echo pwned\n");
	{
		char *id = agent_in(a, a->worktree, "hash-object", "-w", other, NULL);
		char *src = xasprintf("%s/git/objects/%.2s/%s", a->domain_root, id, id + 2);
		fdir = xasprintf("%s/git/objects/%.2s", a->domain_root, blob);
		(void)mkdir(fdir, 0755);
		forged = xasprintf("%s/%s", fdir, blob + 2);
		assert_int_equal(rename(src, forged), 0);
		free(src);
		free(id);
	}
	for (i = 0; i < sizeof junk / sizeof junk[0]; i++) {
		f = priv_path(a, junk[i]);
		write_file(f, strcmp(junk[i], "objects/info/alternates") == 0 ? "/etc\n" : "junk");
		free(f);
	}
	/* The agent points a commit at "its" README. */
	f = xasprintf("%s/new", a->worktree);
	write_file(f, "new\n");
	agent_do(a, a->worktree, "add", "new", NULL);
	agent_do(a, a->worktree, "commit", "-qm", "uses README", NULL);
	free(f);
	import_ok(a);
	content = git_in(r, "cat-file", "-p", blob, NULL);
	assert_string_equal(content, "hello");
	free(content);
	content = git_in(r, "show", "lazaret/agent-default:README", NULL);
	assert_string_equal(content, "hello");
	free(content);
	alt = xasprintf("%s/.git/objects/info/alternates", r);
	assert_int_equal(access(alt, F_OK), -1);
	f = xasprintf("%s/.git/objects/pack/multi-pack-index", r);
	assert_int_equal(access(f, F_OK), -1);
	free(f);
	git_do(r, "fsck", "--no-progress", "--no-dangling", NULL);
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
	char *r = make_repo("repo"), *main0, *f, *refs, *note = NULL;
	struct anchor *a;
	lz_err_t err = LZ_ERR_INIT;
	int i;

	(void)state;
	a = anchor_prepared(r);
	main0 = git_in(r, "rev-parse", "main", NULL);
	f = priv_path(a, "refs/heads/evil");
	write_file(f, "ref: refs/heads/main\n");
	free(f);
	f = priv_path(a, "refs/heads/link");
	assert_int_equal(symlink("/etc/passwd", f), 0);
	free(f);
	/* A symlinked directory 20 levels down. */
	f = priv_path(a, "refs/heads/d");
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
	refs = git_in(r, "for-each-ref", "--format=%(refname)", "refs/heads/lazaret/", NULL);
	assert_string_equal(refs, "refs/heads/lazaret/agent-default");
	expect_git(main0, r, "rev-parse", "main", NULL);
	/* Teardown scrubs the symlinks, however deep. */
	assert_int_equal(sentry_release(a, NULL, &err), 0);
	f = priv_path(a, "refs/heads/link");
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
	char *r = make_repo("repo"), *head;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = anchor_prepared(r);
	head = priv_path(a, "HEAD");
	write_file(head, "ref: ../../../x\n");
	git_do(r, "gc", "-q", NULL);
	git_do(r, "prune", NULL);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	expect_file(head, "ref: refs/heads/lazaret/agent-default\n");
	sentry_layout_clear(&l);
	free(head);
	anchor_free(a);
	free(r);
}

/* A restart keeps the checkout and its uncommitted work; a deleted checkout
 * comes back from the agent branch. */
static void
test_sentry_restart_reuses_checkout_and_rebuilds_a_deleted_one(void **state)
{
	char *r = make_repo("repo"), *f, *wip, *tip;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = anchor_prepared(r);
	f = xasprintf("%s/one", a->worktree);
	write_file(f, "one\n");
	agent_do(a, a->worktree, "add", "one", NULL);
	agent_do(a, a->worktree, "commit", "-qm", "one", NULL);
	wip = xasprintf("%s/wip", a->worktree);
	write_file(wip, "wip\n");
	assert_int_equal(sentry_release(a, NULL, NULL), 0);
	tip = git_in(r, "rev-parse", "lazaret/agent-default", NULL);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_null(l.notice == NULL ? NULL : strstr(l.notice, "created branch"));
	sentry_layout_clear(&l);
	expect_file(wip, "wip\n");
	tu_rmrf(a->worktree);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	sentry_layout_clear(&l);
	expect_file(f, "one\n");
	{
		char *st = agent_in(a, a->worktree, "status", "--porcelain", NULL);
		char *h = agent_in(a, a->worktree, "rev-parse", "HEAD", NULL);

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
	char *r = make_repo("repo"), *before, *after, *priv;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	before = host_snapshot(r);
	a = anchor_for(r);
	prepare_ok(a, SENTRY_DIRECT, &l);
	priv = xasprintf("%s/git", a->domain_root);
	assert_bind(&l, "/workspace", r, false);
	assert_bind(&l, "/workspace/.git", priv, false);
	assert_null(l.env);
	after = host_snapshot(r);
	assert_string_equal(before, after);
	/* The agent commits the host file it edited: on its branch only. */
	agent_do(a, r, "add", "README", NULL);
	agent_do(a, r, "commit", "-qm", "direct", NULL);
	import_ok(a);
	expect_git("direct", r, "log", "-1", "--format=%s", "lazaret/agent-default", NULL);
	expect_git("init", r, "log", "-1", "--format=%s", "main", NULL);
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
	char *ws = path_in("src"), *deep = xstrdup("src"), *o, *q = NULL;
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
	free(make_repo(deep));
	free(make_repo("src/node_modules/c"));
	a = anchor_for(ws);
	prepare_ok(a, SENTRY_DIRECT, &l);
	o = xasprintf("/workspace/%s/.git", deep + 4);
	assert_bind(&l, o, NULL, true);
	free(o);
	assert_bind(&l, "/workspace/node_modules/c/.git", NULL, true);
	assert_non_null(strstr(l.notice, "2 nested git repositories read-only"));
	sentry_layout_clear(&l);
	/* The agent plants a repository: release moves it away. */
	o = xasprintf("%s/planted/.git", ws);
	run_ok("mkdir", "-p", o, NULL);
	assert_int_equal(sentry_release(a, &q, &err), 0);
	assert_non_null(q);
	assert_non_null(strstr(q, "quarantined 1 .git"));
	assert_int_equal(access(o, F_OK), -1);
	free(o);
	o = xasprintf("%s/%s/.git", tmp, deep);
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
	char *sub = make_repo("subsrc"), *sup = make_repo("super"), *dir;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	git_do(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub,
	    "lib/sub", NULL);
	git_do(sup, "commit", "-qm", "add sub", NULL);
	git_do(sup, "submodule", "deinit", "-q", "-f", "lib/sub", NULL);
	dir = xasprintf("%s/lib/sub", sup);
	a = anchor_for(sup);
	prepare_ok(a, SENTRY_DIRECT, &l);
	assert_bind(&l, "/workspace/lib/sub", NULL, true);
	assert_non_null(strstr(l.notice, "submodule path"));
	sentry_layout_clear(&l);
	anchor_free(a);
	/* Isolated: the agent's checkout has the empty gitlink directory too. */
	a = anchor_for(sup);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_bind(&l, "/workspace/lib/sub", NULL, true);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(dir);
	free(sub);
	free(sup);
}

static void
test_sentry_workspace_resolve_top_level_and_refuses_unsafe(void **state)
{
	char *r = make_repo("repo"), *sub, *out = NULL, *data, *home, *oldhome;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	sub = xasprintf("%s/a/b", r);
	run_ok("mkdir", "-p", sub, NULL);
	data = path_in("data");
	assert_int_equal(sentry_workspace_resolve(sub, data, NULL, false, &out, &err), 0);
	assert_string_equal(out, r);
	free(out);
	/* The coordinator's: the path as named, no top-level lookup. */
	assert_int_equal(sentry_workspace_exact(sub, data, NULL, false, &out, &err), 0);
	assert_string_equal(out, sub);
	free(out);
	oldhome = getenv("HOME") != NULL ? xstrdup(getenv("HOME")) : NULL;
	home = path_in("home");
	run_ok("mkdir", "-p", home, NULL);
	setenv("HOME", home, 1);
	assert_int_equal(sentry_workspace_resolve(home, data, NULL, false, &out, &err), -1);
	assert_non_null(strstr(err.msg, "home directory"));
	lz_err_clear(&err);
	assert_int_equal(sentry_workspace_resolve(home, data, NULL, true, &out, &err), 0);
	free(out);
	assert_int_equal(sentry_workspace_check(home, data, NULL, false, &err), -1);
	assert_non_null(strstr(err.msg, "home directory"));
	lz_err_clear(&err);
	assert_int_equal(sentry_workspace_exact(home, data, NULL, false, &out, &err), -1);
	assert_null(out);
	lz_err_clear(&err);
	assert_int_equal(sentry_workspace_resolve("/", data, NULL, false, &out, &err), -1);
	lz_err_clear(&err);
	/* A directory holding the Storage Root. */
	assert_int_equal(sentry_workspace_resolve(tmp, data, NULL, false, &out, &err), -1);
	assert_non_null(strstr(err.msg, "Storage Root"));
	lz_err_clear(&err);
	if (oldhome != NULL)
		setenv("HOME", oldhome, 1);
	free(oldhome);
	free(home);
	free(data);
	free(sub);
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

/* Direct mode on a linked worktree: its .git file (a host path) is covered
 * by ours, read-only, naming the agent's repository at a neutral path. */
static void
test_sentry_direct_linked_worktree_gets_a_neutral_gitfile(void **state)
{
	char *r = make_repo("repo"), *lw = path_in("linked"), *priv;
	struct sentry_layout l;
	const struct drv_mount *m;
	struct anchor *a;

	(void)state;
	git_do(r, "worktree", "add", "-q", "-b", "side", lw, NULL);
	a = anchor_for(lw);
	prepare_ok(a, SENTRY_DIRECT, &l);
	priv = xasprintf("%s/git", a->domain_root);
	assert_bind(&l, "/run/lazaret/gitdir", priv, false);
	m = find_mount(&l, "/workspace/.git");
	assert_non_null(m);
	assert_true(m->ro);
	expect_file(m->src, "gitdir: /run/lazaret/gitdir\n");
	assert_null(l.env);
	assert_parents_first(&l);
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
	char *r = make_repo("repo"), *dr, *store, *wt, *gitfile, *admin, *alt, *tip, *f, *txt;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = anchor_for(r);
	dr = xstrdup(a->domain_root);
	run_ok("mkdir", "-p", dr, NULL);
	store = xasprintf("%s/objects", dr);
	wt = xstrdup(a->worktree);
	/* What the old prepare made: a linked worktree, a private store. */
	git_do(r, "worktree", "add", "-q", "-b", "lazaret/agent-default", wt, "HEAD", NULL);
	admin = xasprintf("%s/.git/worktrees/%s", r, strrchr(wt, '/') + 1);
	run_ok("mkdir", "-p", store, NULL);
	alt = xasprintf("%s/.git/objects/info/alternates", r);
	txt = xasprintf("%s\n", store);
	write_file(alt, txt);
	free(txt);
	f = xasprintf("%s/agent.txt", wt);
	write_file(f, "agent\n");
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
	tip = git_in(r, "rev-parse", "lazaret/agent-default", NULL);
	f = xasprintf("%s/wip", wt);
	write_file(f, "wip\n");
	free(f);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_non_null(strstr(l.notice, "earlier lazaret"));
	sentry_layout_clear(&l);
	assert_int_equal(access(alt, F_OK), -1);
	assert_int_equal(access(admin, F_OK), -1);
	assert_int_equal(access(store, F_OK), -1);
	expect_git(tip, r, "rev-parse", "lazaret/agent-default", NULL);
	expect_git("old agent", r, "log", "-1", "--format=%s", "lazaret/agent-default", NULL);
	git_do(r, "fsck", "--no-progress", "--no-dangling", NULL);
	f = xasprintf("%s/wip", wt);
	expect_file(f, "wip\n");
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
	char *src = make_repo("src"), *r = path_in("shared"), *alt, *srcobj;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	git_do(tmp, "clone", "-q", "--shared", src, r, NULL);
	a = anchor_for(r);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	srcobj = xasprintf("%s/.git/objects", src);
	assert_bind(&l, "/run/lazaret/git-alternates/0", srcobj, true);
	assert_bind(&l, "/run/lazaret/git-objects/info/alternates", NULL, true);
	assert_parents_first(&l);
	alt = priv_path(a, "objects/info/alternates");
	expect_file(alt, "/run/lazaret/git-objects\n/run/lazaret/git-alternates/0\n");
	sentry_layout_clear(&l);
	free(alt);
	free(srcobj);
	anchor_free(a);
	free(r);
	free(src);
}

/* Objects the agent plants as symlinks (to another repository's objects,
 * to any file of the user's) are never staged, so host git never reads
 * them: the import takes only what the agent's refs reach in its own files. */
static void
test_sentry_import_never_follows_symlinked_objects(void **state)
{
	char *r = make_repo("repo"), *other = make_repo("secret"), *id, *f, *link, *dir;
	struct anchor *a;

	(void)state;
	a = anchor_prepared(r);
	/* A blob only the other repository has, linked into the agent's store
	 * and referenced by a commit the agent builds by hand. */
	f = xasprintf("%s/only-secret", other);
	write_file(f, "secret\n");
	free(f);
	id = git_in(other, "hash-object", "-w", "only-secret", NULL);
	dir = xasprintf("%s/git/objects/%.2s", a->domain_root, id);
	(void)mkdir(dir, 0755);
	link = xasprintf("%s/%s", dir, id + 2);
	f = xasprintf("%s/.git/objects/%.2s/%s", other, id, id + 2);
	assert_int_equal(symlink(f, link), 0);
	free(f);
	{
		char *ci = xasprintf("100644,%s,leak", id);

		agent_do(a, a->worktree, "update-index", "--add", "--cacheinfo", ci, NULL);
		free(ci);
	}
	agent_do(a, a->worktree, "commit", "-qm", "leak", NULL);
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
	s = xasprintf("%s/.git/objects", r);
	assert_bind(&l, "/run/lazaret/git-objects", s, true);
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

/* The coordinator takes its workspace as named (sentry_workspace_exact):
 * prepare itself refuses one that is no work tree's top level. */
static void
test_sentry_refuses_a_subdirectory_and_a_directory_inside_git(void **state)
{
	char *r = make_repo("subdir"), *sub = xasprintf("%s/a", r);
	char *inside = xasprintf("%s/.git/refs", r);
	struct anchor *a;

	(void)state;
	run_ok("mkdir", "-p", sub, NULL);
	a = anchor_for(sub);
	expect_refused(a, SENTRY_ISOLATED, "is inside git repository");
	expect_refused(a, SENTRY_DIRECT, "run lazaret at its top level");
	anchor_free(a);
	a = anchor_for(inside);
	expect_refused(a, SENTRY_DIRECT, "is a git directory");
	anchor_free(a);
	free(inside);
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
	m = find_mount(&l, "/workspace/.git/modules/lib/sub/hooks");
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
	char *r = make_repo("repo"), *f, *lw;
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
	/* A linked worktree: G's config (git names it by its absolute path)
	 * still counts, its includes relative to G. */
	lw = path_in("linked-inc");
	git_do(r, "worktree", "add", "-q", "-b", "side-inc", lw, NULL);
	git_do(r, "config", "include.path", "../../linked-inc/wt.gitconfig", NULL);
	a = anchor_for(lw);
	prepare_ok(a, SENTRY_DIRECT, &l);
	assert_bind(&l, "/workspace/wt.gitconfig", NULL, true);
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
	char *r = make_repo("repo-mail");
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = anchor_for(r);
	git_do(r, "config", "user.email", "first@example.invalid", NULL);
	git_do(r, "config", "--add", "user.email", "me@example.invalid", NULL);
	prepare_ok(a, SENTRY_ISOLATED, &l);
	assert_string_equal(l.user_email, "me@example.invalid");
	sentry_layout_clear(&l);
	anchor_free(a);
	free(r);
}

/* A git started early and collected later says what sentry_git would:
 * its output, or its failure with git's own message. */
static void
test_sentry_git_started_and_finished_reports_as_sentry_git(void **state)
{
	char *r = make_repo("job"), *plain = path_in("job-plain"), *out = NULL;
	struct sentry_job *j1, *j2;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	run_ok("mkdir", "-p", plain, NULL);
	j1 = sentry_git_start(r, "rev-parse", "--abbrev-ref", "HEAD", NULL);
	j2 = sentry_git_start(plain, "rev-parse", "--git-dir", NULL);
	assert_int_equal(sentry_git_finish(j2, NULL, NULL, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "git rev-parse (in "));
	assert_non_null(strstr(err.msg, "failed (exit 128): fatal: not a git repository"));
	lz_err_clear(&err);
	assert_int_equal(sentry_git_finish(j1, &out, NULL, NULL, &err), 0);
	assert_string_equal(out, "main");
	free(out);
	assert_int_equal(sentry_git_finish(NULL, NULL, NULL, NULL, &err), 0);
	free(plain);
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
	char *r = make_repo("repo"), *tip, *f, *bad;
	struct watch_seen ws = { 0 };
	struct sentry_watch *w;
	struct anchor *a;
	uv_loop_t loop;

	(void)state;
	a = anchor_prepared(r);
	ws.a = a;
	ws.repo = r;
	ws.loop_thread = pthread_self();
	assert_int_equal(uv_loop_init(&loop), 0);
	uv_timer_init(&loop, &ws.tick);
	ws.tick.data = &ws;
	assert_non_null((w = sentry_watch_start(&loop, a, watch_log_cb, &ws)));

	f = xasprintf("%s/agent.txt", a->worktree);
	write_file(f, "agent\n");
	agent_do(a, a->worktree, "add", "agent.txt", NULL);
	agent_do(a, a->worktree, "commit", "-qm", "agent work", NULL);
	agent_do(a, a->worktree, "branch", "topic", NULL);
	tip = agent_in(a, a->worktree, "rev-parse", "HEAD", NULL);
	ws.want_ref = "refs/heads/lazaret/default/topic";
	ws.want_hex = tip;
	watch_run(&loop, &ws, 400);
	expect_git(tip, r, "rev-parse", "refs/heads/lazaret/default/topic", NULL);
	free(tip);

	/* A ref to an object nobody has: left out of the import (the others
	 * go on), said once. */
	bad = priv_path(a, "refs/heads/broken");
	write_file(bad, "0123456789012345678901234567890123456789\n");
	ws.want_ref = NULL;
	ws.want_msg = "refs/heads/broken (";
	watch_run(&loop, &ws, 400);
	assert_int_equal(watch_count(&ws, ws.want_msg), 1);
	ws.want_msg = NULL;
	watch_run(&loop, &ws, 10);	/* more ticks, same refs: nothing new */
	assert_int_equal(watch_count(&ws, "import left out"), 1);

	/* The refs change again: imported. */
	assert_int_equal(unlink(bad), 0);
	write_file(f, "agent 2\n");
	agent_do(a, a->worktree, "commit", "-qam", "agent work 2", NULL);
	agent_do(a, a->worktree, "branch", "-f", "topic", NULL);
	tip = agent_in(a, a->worktree, "rev-parse", "HEAD", NULL);
	ws.want_ref = "refs/heads/lazaret/default/topic";
	ws.want_hex = tip;
	watch_run(&loop, &ws, 400);
	expect_git(tip, r, "rev-parse", "refs/heads/lazaret/default/topic", NULL);
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
	char *r = make_repo("repo"), *tip, *f;
	struct sentry_watch *w;
	struct anchor *a;
	uv_loop_t loop;
	int done = 0;

	(void)state;
	a = anchor_prepared(r);
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_non_null((w = sentry_watch_start(&loop, a, NULL, NULL)));
	f = xasprintf("%s/agent.txt", a->worktree);
	write_file(f, "agent\n");
	agent_do(a, a->worktree, "add", "agent.txt", NULL);
	agent_do(a, a->worktree, "commit", "-qm", "last words", NULL);
	tip = agent_in(a, a->worktree, "rev-parse", "HEAD", NULL);
	sentry_watch_flush(w, 60000, watch_flushed_cb, &done);
	while (done == 0)
		uv_run(&loop, UV_RUN_ONCE);
	assert_int_equal(done, 1);
	expect_git(tip, r, "rev-parse", "refs/heads/lazaret/agent-default", NULL);
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
	char *view = xasprintf("%s/view", tmp), *f, *sum = NULL, *cfg;
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
	expect_file(f, "1111111111111111111111111111111111111111\n");
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
	cfg = read_file(f);
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
#define T(f) cmocka_unit_test_setup_teardown(f, setup_tmp, teardown_tmp)
		T(test_sentry_non_git_workspace_refused_in_isolated_plain_in_direct),
		T(test_sentry_isolated_leaves_host_checkout_byte_identical),
		T(test_sentry_isolated_mounts_private_repo_and_read_only_objects),
		T(test_sentry_import_takes_branches_and_tags_into_the_namespace),
		T(test_sentry_import_forged_objects_never_shadow_host_objects),
		T(test_sentry_import_skips_symbolic_and_symlinked_refs),
		T(test_sentry_import_never_follows_symlinked_objects),
		T(test_sentry_corrupt_private_head_leaves_host_gc_working),
		T(test_sentry_restart_reuses_checkout_and_rebuilds_a_deleted_one),
		T(test_sentry_direct_covers_host_git_with_private_repo),
		T(test_sentry_direct_linked_worktree_gets_a_neutral_gitfile),
		T(test_sentry_converts_the_layout_of_an_earlier_lazaret),
		T(test_sentry_host_alternates_reach_the_sandbox_read_only),
		T(test_sentry_guards_nested_git_at_any_depth_and_quarantines_new_ones),
		T(test_sentry_submodule_path_without_checkout_gets_a_placeholder),
		T(test_sentry_workspace_resolve_top_level_and_refuses_unsafe),
		T(test_sentry_refuses_comma_in_workspace_path),
		T(test_sentry_workspace_path_with_spaces_works),
		T(test_sentry_refuses_repo_without_commit),
		T(test_sentry_refuses_a_subdirectory_and_a_directory_inside_git),
		T(test_sentry_refuses_bare_repository_and_dotgit_symlink),
		T(test_sentry_submodules_hooks_masked_and_checkout_refused),
		T(test_sentry_guards_hooks_path_inside_the_checkout),
		T(test_sentry_guards_config_includes_inside_the_checkout),
		T(test_sentry_reads_user_email_with_the_guards),
		T(test_sentry_watch_imports_changes_and_reports_failures_once),
		T(test_sentry_watch_flush_imports_before_it_answers),
		T(test_sentry_hostview_follows_branches_and_filters_settings),
		cmocka_unit_test(test_sentry_refname_and_packed_refs_parse),
		T(test_sentry_git_started_and_finished_reports_as_sentry_git),
		cmocka_unit_test(test_sentry_mode_parse_accepts_the_two_modes_only),
		cmocka_unit_test(test_sentry_path_check_names_the_bad_path),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
