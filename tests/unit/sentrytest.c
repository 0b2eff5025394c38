/* sentrytest.c - the fixture of the Git Sentry's unit tests (sentrytest.h):
 * real git repositories in a temp dir, the domain's anchor, the agent's
 * git, what a layout mounts. */
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
#include "sentrytest.h"
#include "strv.h"
#include "testutil.h"
#include "xmalloc.h"

char *st_tmp;

/* Run git in dir with a fixed identity; returns stdout (newlines cut). */
char *
st_git_vin(const char *dir, va_list ap)
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

char *
st_git_in(const char *dir, ...)
{
	va_list ap;
	char *out;

	va_start(ap, dir);
	out = st_git_vin(dir, ap);
	va_end(ap);
	return out;
}

/* st_git_in, output dropped. */
void
st_git_do(const char *dir, ...)
{
	va_list ap;

	va_start(ap, dir);
	free(st_git_vin(dir, ap));
	va_end(ap);
}

/* Assert git's output in dir equals want. */
void
st_expect_git(const char *want, const char *dir, ...)
{
	va_list ap;
	char *out;

	va_start(ap, dir);
	out = st_git_vin(dir, ap);
	va_end(ap);
	assert_string_equal(out, want);
	free(out);
}

/* Run a program (argv as varargs, NULL-terminated) and assert it succeeded. */
void
st_run_ok(const char *a0, ...)
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

void
st_write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

char *
st_read_file(const char *path)
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

char *
st_path_in(const char *rel)
{
	return xasprintf("%s/%s", st_tmp, rel);
}

/* A repo with one commit, a modified README and a staged new file, so the
 * host's index and working tree are worth comparing. */
char *
st_make_repo(const char *name)
{
	char *r = st_path_in(name), *f;

	st_git_do(st_tmp, "init", "-q", "-b", "main", r, NULL);
	f = xasprintf("%s/README", r);
	st_write_file(f, "hello\n");
	st_git_do(r, "add", "README", NULL);
	st_git_do(r, "commit", "-qm", "init", NULL);
	st_write_file(f, "hello\nlocal edit\n");
	free(f);
	f = xasprintf("%s/staged", r);
	st_write_file(f, "staged\n");
	free(f);
	st_git_do(r, "add", "staged", NULL);
	return r;
}

struct anchor *
st_anchor_for(const char *ws)
{
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT;
	char *data = st_path_in("data"), *sock = st_path_in("sock");

	if (anchor_new("default", ws, data, sock, &a, &err) < 0)
		fail_msg("%s", err.msg);
	free(data);
	free(sock);
	return a;
}

/* Everything of the host checkout that must stay byte-identical. */
char *
st_host_snapshot(const char *r)
{
	const char *files[] = { ".git/HEAD", ".git/index", ".git/refs/heads/main",
	    ".git/config", "README", "staged" };
	char *snap = xstrdup(""), *s, *f, *c, *st;
	size_t i;

	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		f = xasprintf("%s/%s", r, files[i]);
		c = st_read_file(f);
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
	st = st_git_in(r, "--no-optional-locks", "status", "--porcelain", "--untracked-files=all",
	    NULL);
	s = xasprintf("%sstatus:%s\n", snap, st);
	free(snap);
	free(st);
	return s;
}

bool
st_same_bytes(const char *a, const char *b)
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

const struct drv_mount *
st_find_mount(const struct sentry_layout *l, const char *dst)
{
	size_t i;

	for (i = 0; i < l->n_mounts; i++)
		if (strcmp(l->mounts[i].dst, dst) == 0)
			return &l->mounts[i];
	return NULL;
}

void
st_assert_bind(const struct sentry_layout *l, const char *dst, const char *src, bool ro)
{
	const struct drv_mount *m = st_find_mount(l, dst);

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
void
st_assert_parents_first(const struct sentry_layout *l)
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

void
st_prepare_ok(const struct anchor *a, enum sentry_mode mode, struct sentry_layout *l)
{
	lz_err_t err = LZ_ERR_INIT;

	/* The probe begun first, as the coordinator does. */
	if (sentry_prepare_probed(a, mode, sentry_probe_begin(a), l, &err) < 0)
		fail_msg("sentry_prepare: %s", err.msg);
}

/* sentry_prepare refuses with a message holding want, and fills nothing. */
void
st_expect_refused(const struct anchor *a, enum sentry_mode mode, const char *want)
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

void
st_expect_file(const char *path, const char *want)
{
	char *got = st_read_file(path);

	if (got == NULL)
		fail_msg("cannot read %s", path);
	assert_string_equal(got, want);
	free(got);
}

int
st_setup_tmp(void **state)
{
	(void)state;
	st_tmp = tu_mkdtemp("sentry");
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_OBJECT_DIRECTORY");
	unsetenv("GIT_ALTERNATE_OBJECT_DIRECTORIES");
	return 0;
}

int
st_teardown_tmp(void **state)
{
	(void)state;
	tu_rmrf(st_tmp);
	free(st_tmp);
	st_tmp = NULL;
	return 0;
}

/* The domain of ws, prepared once in isolated mode (the layout dropped). */
struct anchor *
st_anchor_prepared(const char *ws)
{
	struct anchor *a = st_anchor_for(ws);
	struct sentry_layout l;

	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	sentry_layout_clear(&l);
	return a;
}

/* Run git as the agent would in its sandbox: its own gitdir <dr>/git, its
 * checkout, the host's objects where the sandbox's alternates line points. */
char *
st_agent_vin(const struct anchor *a, const char *wt, va_list ap)
{
	char **argv = NULL, **env = NULL, *out = NULL;
	struct proc_result res;
	lz_err_t err = LZ_ERR_INIT;
	const char *s;
	char *gobj = NULL;

	{
		char *top = st_git_in(a->workspace, "rev-parse", "--path-format=absolute",
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

char *
st_agent_in(const struct anchor *a, const char *wt, ...)
{
	va_list ap;
	char *out;

	va_start(ap, wt);
	out = st_agent_vin(a, wt, ap);
	va_end(ap);
	return out;
}

void
st_import_ok(const struct anchor *a)
{
	lz_err_t err = LZ_ERR_INIT;
	char *note = NULL;

	if (sentry_import(a, &note, &err) < 0)
		fail_msg("sentry_import: %s", err.msg);
	free(note);
}

char *
st_priv_path(const struct anchor *a, const char *rel)
{
	return xasprintf("%s/git/%s", a->domain_root, rel);
}
