/* review-git.c - git for the review gate without running the repository's
 * code.
 *
 * Theory of operation. Reading the agent's work must not run anything the
 * agent or the repository chose. What git can run from a repository:
 * external diff drivers (diff.external, diff.<d>.command), textconv
 * (diff.<d>.textconv), filters (filter.<f>.clean/smudge/process), merge
 * drivers, the pager, fsmonitor (core.fsmonitor), hooks, and commands named
 * by config for transports. The drivers are selected by attributes (the
 * agent's .gitattributes) but defined by configuration. So every diff,
 * blob read and the agent checkout's uncommitted state are computed in a
 * scratch repository: a fresh gitdir whose objects/info/alternates borrows
 * the user's objects, with GIT_CONFIG_NOSYSTEM=1 and GIT_CONFIG_GLOBAL=
 * /dev/null, so no configuration but ours is read and no driver is
 * defined; its info/attributes ("* !filter !diff !merge", which outranks
 * in-tree .gitattributes) unsets the driver attributes anyway; diffs run
 * with --no-ext-diff --no-textconv. Every git (scratch and host) also gets
 * -c core.fsmonitor=false -c core.hooksPath=/dev/null -c core.pager=cat
 * -c core.attributesFile=/dev/null -c protocol.allow=never, GIT_PAGER=cat,
 * GIT_NO_REPLACE_OBJECTS=1, GIT_ATTR_NOSYSTEM=1 and no inherited GIT_*
 * variable. Host commands (refs, status, merge) read the user's own
 * configuration (identity, their own filters), which is theirs to trust.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "review/review-git.h"
#include "strv.h"
#include "xmalloc.h"

extern char **environ;

static const char *const review_git_hard[] = {
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.pager=cat",
	"-c", "core.attributesFile=/dev/null",
	"-c", "core.untrackedCache=false",
	"-c", "protocol.allow=never",
	"-c", "submodule.recurse=false",
	"-c", "advice.detachedHead=false",
	NULL,
};

/* Our environment without GIT_* and pager variables, plus extra. */
static char **
review_git_env(const char *const *extra)
{
	char **env = NULL;
	size_t n = 0, i;

	for (i = 0; environ[i] != NULL; i++) {
		if (strncmp(environ[i], "GIT_", 4) == 0 || strncmp(environ[i], "PAGER=", 6) == 0)
			continue;
		env = xreallocarray(env, n + 2, sizeof *env);
		env[n++] = xstrdup(environ[i]);
	}
	for (i = 0; extra[i] != NULL; i++) {
		env = xreallocarray(env, n + 2, sizeof *env);
		env[n++] = xstrdup(extra[i]);
	}
	env[n] = NULL;
	return env;
}

static void
review_env_free(char **env)
{
	size_t i;

	for (i = 0; env != NULL && env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

/* git's argv: where (host -C ws, or the scratch gitdir and work tree),
 * the hardening options, then args. own[2] hold the strings it made (free
 * them and the array). */
static const char **
review_git_argv(struct review_git *g, bool host, const char *work_tree,
    const char *const *args, char *own[2])
{
	const char **argv;
	size_t n = 0, i, na = 0;

	own[0] = own[1] = NULL;
	while (args[na] != NULL)
		na++;
	argv = xcalloc(na + 32, sizeof *argv);
	argv[n++] = "git";
	if (host) {
		argv[n++] = "-C";
		argv[n++] = g->ws;
	} else {
		argv[n++] = own[0] = xasprintf("--git-dir=%s", g->scratch);
		if (work_tree != NULL)
			argv[n++] = own[1] = xasprintf("--work-tree=%s", work_tree);
	}
	for (i = 0; review_git_hard[i] != NULL; i++)
		argv[n++] = review_git_hard[i];
	for (i = 0; i < na; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return argv;
}

/* Start git args in the scratch repository with stdin from in_fd (-1: ours)
 * and stdout to out_fd. */
static int
review_git_spawn(struct review_git *g, const char *const *args, int in_fd, int out_fd,
    pid_t *pid, lz_err_t *err)
{
	char *own[2];
	const char **argv = review_git_argv(g, false, NULL, args, own);
	posix_spawn_file_actions_t fa;
	int r;

	posix_spawn_file_actions_init(&fa);
	if (in_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	r = posix_spawnp(pid, "git", &fa, NULL, (char *const *)argv, g->scratch_env);
	posix_spawn_file_actions_destroy(&fa);
	free(own[0]);
	free(argv);
	return r != 0 ? lz_err_sys(err, r, "cannot run git %s", args[0]) : 0;
}

char **
review_git_cmd(struct review_git *g, const char *const *args, char ***env)
{
	char *own[2];
	const char **argv = review_git_argv(g, false, NULL, args, own);
	char **out;
	size_t n, i;

	for (n = 0; argv[n] != NULL; n++)
		;
	out = xcalloc(n + 1, sizeof *out);
	for (i = 0; i < n; i++)
		out[i] = xstrdup(argv[i]);
	free(own[0]);
	free(argv);
	*env = g->scratch_env;
	return out;
}

int
review_git_run(struct review_git *g, bool host, const char *work_tree,
    const char *const *args, const char *input, int flags, struct proc_result *res,
    lz_err_t *err)
{
	char *own[2];
	const char **argv = review_git_argv(g, host, work_tree, args, own);
	int r;

	r = proc_run((char *const *)argv, host ? g->host_env : g->scratch_env, input, flags, res, err);
	free(own[0]);
	free(own[1]);
	free(argv);
	return r;
}

int
review_git_pipe(struct review_git *g, const char *const *args, FILE **out, pid_t *pid,
    lz_err_t *err)
{
	int fd[2], r;

	if (pipe2(fd, O_CLOEXEC) < 0)
		return lz_err_sys(err, errno, "pipe");
	r = review_git_spawn(g, args, -1, fd[1], pid, err);
	close(fd[1]);
	if (r < 0) {
		close(fd[0]);
		return -1;
	}
	if ((*out = fdopen(fd[0], "r")) == NULL) {
		close(fd[0]);
		return lz_err_sys(err, errno, "fdopen");
	}
	return 0;
}

int
review_git_wait(FILE *out, pid_t pid)
{
	int st;

	fclose(out);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int
review_git_ok(struct review_git *g, bool host, const char *work_tree,
    const char *const *args, char **out, lz_err_t *err)
{
	struct proc_result res = { 0 };
	size_t l;

	if (review_git_run(g, host, work_tree, args, NULL, 0, &res, err) < 0)
		return -1;
	if (res.status != 0) {
		char none[1] = "", *e = res.errout != NULL ? res.errout : none;

		l = strlen(e);
		while (l > 0 && e[l - 1] == '\n')
			e[--l] = '\0';
		lz_err_set(err, EIO, "git %s failed (exit %d)%s%s", args[0], res.status,
		    l > 0 ? ": " : "", e);
		proc_result_clear(&res);
		return -1;
	}
	if (out != NULL) {
		l = res.out != NULL ? strlen(res.out) : 0;
		while (l > 0 && res.out[l - 1] == '\n')
			res.out[--l] = '\0';
		*out = res.out != NULL ? res.out : xstrdup("");
		res.out = NULL;
	}
	proc_result_clear(&res);
	return 0;
}

static int
review_write_file(const char *path, const char *text, lz_err_t *err)
{
	FILE *f = fopen(path, "we");

	if (f == NULL)
		return lz_err_sys(err, errno, "cannot create %s", path);
	fputs(text, f);
	if (fclose(f) != 0)
		return lz_err_sys(err, errno, "cannot write %s", path);
	return 0;
}

/* The host side of review_git_open; with scratch also the
 * scratch repository. */
static int
review_git_open_as(const char *ws, bool scratch, struct review_git **out,
    lz_err_t *err)
{
	static const char *const host_extra[] = {
		"GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1",
		"GIT_ATTR_NOSYSTEM=1", "LC_ALL=C", NULL,
	};
	const char *tmp = getenv("TMPDIR");
	struct review_git *g = xcalloc(1, sizeof *g);

	g->cat_in = -1;
	_cleanup_free_ char *objfmt = NULL, *alt = NULL, *p = NULL, *rp = NULL;
	/* One git for what four rev-parse calls would tell, a line each. */
	const char *a_rp[] = { "rev-parse", "--is-inside-work-tree", "--show-object-format",
		"--path-format=absolute", "--git-common-dir", "--git-dir", NULL };
	const char *scratch_extra[6] = { 0 };
	char *line[4] = { NULL }, *cur, *nl, *fmt;
	size_t i;

	g->ws = xstrdup(ws);
	g->host_env = review_git_env(host_extra);
	if (!scratch) {
		*out = g;
		return 0;
	}
	if (review_git_ok(g, true, NULL, a_rp, &rp, err) == 0)
		for (cur = rp, i = 0; i < 4; i++) {
			line[i] = cur;
			if ((nl = strchr(cur, '\n')) != NULL)
				*nl = '\0';
			cur = nl != NULL ? nl + 1 : cur + strlen(cur);
		}
	if (line[0] == NULL || strcmp(line[0], "true") != 0) {
		lz_err_clear(err);
		lz_err_set(err, LZ_EINVAL, "workspace %s is not a git checkout: there is no agent "
		    "branch to review (in a plain directory the agent's changes are the files "
		    "themselves)", ws);
		goto fail;
	}
	if (line[1][0] == '\0' || line[2][0] != '/' || line[3][0] != '/') {
		lz_err_set(err, EIO, "git rev-parse in %s: unexpected output", ws);
		goto fail;
	}
	fmt = line[1];
	g->common = xstrdup(line[2]);
	g->gitdir = xstrdup(line[3]);
	g->scratch = xasprintf("%s/lazaret-review-XXXXXX", tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(g->scratch) == NULL) {
		lz_err_sys(err, errno, "cannot create a scratch directory %s", g->scratch);
		free(g->scratch);
		g->scratch = NULL;
		goto fail;
	}
	scratch_extra[0] = "GIT_CONFIG_NOSYSTEM=1";
	scratch_extra[1] = "GIT_CONFIG_GLOBAL=/dev/null";
	p = xasprintf("GIT_INDEX_FILE=%s/index", g->scratch);
	scratch_extra[2] = p;
	scratch_extra[3] = "GIT_PAGER=cat";
	scratch_extra[4] = "GIT_NO_REPLACE_OBJECTS=1";
	{
		const char *e2[] = { scratch_extra[0], scratch_extra[1], scratch_extra[2],
		    scratch_extra[3], scratch_extra[4], "GIT_ATTR_NOSYSTEM=1",
		    "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", NULL };

		g->scratch_env = review_git_env(e2);
	}
	objfmt = xasprintf("--object-format=%s", fmt);
	{
		const char *a_init[] = { "init", "-q", "--bare", "--template=", objfmt, g->scratch, NULL };
		const char *a_cfg[] = { "config", "core.bare", "false", NULL };
		_cleanup_free_ char *info = xasprintf("%s/info", g->scratch);
		_cleanup_free_ char *attrs = xasprintf("%s/info/attributes", g->scratch);
		_cleanup_free_ char *alts = xasprintf("%s/objects/info", g->scratch);
		_cleanup_free_ char *altf = xasprintf("%s/objects/info/alternates", g->scratch);

		if (review_git_ok(g, false, NULL, a_init, NULL, err) < 0 ||
		    review_git_ok(g, false, NULL, a_cfg, NULL, err) < 0)
			goto fail;
		if ((mkdir(info, 0700) < 0 && errno != EEXIST) ||
		    (mkdir(alts, 0700) < 0 && errno != EEXIST)) {
			lz_err_sys(err, errno, "cannot create %s", info);
			goto fail;
		}
		alt = xasprintf("%s/objects\n", g->common);
		if (review_write_file(attrs, "* !filter !diff !merge\n", err) < 0 ||
		    review_write_file(altf, alt, err) < 0)
			goto fail;
	}
	*out = g;
	return 0;
fail:
	review_git_free(g);
	return -1;
}

int
review_git_open(const char *ws, struct review_git **out, lz_err_t *err)
{
	return review_git_open_as(ws, true, out, err);
}

int
review_git_open_host(const char *ws, struct review_git **out, lz_err_t *err)
{
	return review_git_open_as(ws, false, out, err);
}

int
review_git_tree_of(struct review_git *g, const char *work_tree, const char *start, bool ignored,
    const struct review_big *big, char out[65], lz_err_t *err)
{
	const char *rt[] = { "read-tree", start, NULL };
	const char *wt[] = { "write-tree", NULL };
	_cleanup_free_ char *o = NULL;
	const char **add = NULL;
	char **excl = NULL;
	size_t i, n = 0;
	int ret = -1;

	add = xreallocarray(NULL, 8 + (big != NULL ? big->n : 0), sizeof *add);
	add[n++] = "add";
	add[n++] = "-A";
	add[n++] = "--ignore-errors";
	if (ignored)
		add[n++] = "--force";
	add[n++] = "--";
	add[n++] = ".";
	for (i = 0; big != NULL && i < big->n; i++) {
		lz_strv_pushf(&excl, ":(top,exclude,literal)%s", big->paths[i]);
		add[n++] = excl[i];
	}
	add[n] = NULL;
	if (review_git_ok(g, false, work_tree, rt, NULL, err) < 0 ||
	    review_git_ok(g, false, work_tree, add, NULL, err) < 0)
		goto out;
	/* Each big file: a placeholder blob at its path, its bytes never read. */
	for (i = 0; big != NULL && i < big->n; i++) {
		const char *ho[] = { "hash-object", "-w", "--stdin", NULL };
		_cleanup_free_ char *text = review_big_text(big, i), *oid = NULL, *ci = NULL;
		struct proc_result res = { 0 };

		if (review_git_run(g, false, NULL, ho, text, 0, &res, err) < 0)
			goto out;
		if (res.status != 0 || res.out == NULL) {
			proc_result_clear(&res);
			lz_err_set(err, EIO, "git hash-object failed");
			goto out;
		}
		oid = xstrndup(res.out, strcspn(res.out, "\n"));
		proc_result_clear(&res);
		ci = xasprintf("100644,%s,%s", oid, big->paths[i]);
		{
			const char *ui[] = { "update-index", "--add", "--cacheinfo", ci, NULL };

			if (review_git_ok(g, false, work_tree, ui, NULL, err) < 0)
				goto out;
		}
	}
	if (review_git_ok(g, false, work_tree, wt, &o, err) < 0)
		goto out;
	if (strlen(o) == 0 || strlen(o) > 64) {
		lz_err_set(err, EIO, "git write-tree: unexpected output");
		goto out;
	}
	strcpy(out, o);
	ret = 0;
out:
	free(add);
	lz_strv_free(excl);
	return ret;
}

/* One `git cat-file --batch` for every blob a review reads: no process per
 * blob (10,000 new files), and a blob is streamed, only its first bytes
 * kept (a 50 MB file). Its stdin is a socket so that writing to a git that
 * died is an EPIPE error, not a SIGPIPE. */
static int
review_cat_start(struct review_git *g, lz_err_t *err)
{
	const char *args[] = { "cat-file", "--batch", NULL };
	int in[2], out[2], r;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) < 0)
		return lz_err_sys(err, errno, "socketpair");
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return lz_err_sys(err, errno, "pipe");
	}
	r = review_git_spawn(g, args, in[1], out[1], &g->cat_pid, err);
	close(in[1]);
	close(out[1]);
	if (r < 0) {
		close(in[0]);
		close(out[0]);
		return -1;
	}
	g->cat_in = in[0];
	if ((g->cat_out = fdopen(out[0], "r")) == NULL) {
		close(out[0]);
		return lz_err_sys(err, errno, "fdopen");
	}
	return 0;
}

int
review_git_blob_cb(void *arg, const char *oid, size_t max, uint8_t **buf, size_t *len,
    size_t *size, lz_err_t *err)
{
	struct review_git *g = arg;
	_cleanup_free_ char *req = xasprintf("%s\n", oid), *line = NULL;
	char type[16], skip[8192];
	unsigned long long sz;
	size_t cap = 0, left, want, got;
	ssize_t n;

	*buf = NULL;
	*len = *size = 0;
	if (g->cat_out == NULL && review_cat_start(g, err) < 0)
		return -1;
	if (send(g->cat_in, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req))
		return lz_err_sys(err, errno, "git cat-file --batch");
	if ((n = getline(&line, &cap, g->cat_out)) <= 0)
		return lz_err_set(err, EIO, "git cat-file --batch: no answer for %s", oid);
	if (sscanf(line, "%*s %15s %llu", type, &sz) != 2 || strcmp(type, "blob") != 0)
		return lz_err_set(err, EIO, "git cat-file --batch: %s is not a blob", oid);
	*size = (size_t)sz;
	want = *size < max ? *size : max;
	*buf = xmalloc(want + 1);
	if ((got = fread(*buf, 1, want, g->cat_out)) != want)
		goto short_read;
	*len = got;
	/* The rest of the blob and git's trailing newline, read and dropped. */
	for (left = *size - want + 1; left > 0; left -= got)
		if ((got = fread(skip, 1, left < sizeof skip ? left : sizeof skip, g->cat_out)) == 0)
			goto short_read;
	return 0;
short_read:
	free(*buf);
	*buf = NULL;
	*len = 0;
	return lz_err_set(err, EIO, "git cat-file --batch: %s cut short", oid);
}

static int
review_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int
review_rmtree(const char *path)
{
	/* FTW_PHYS: a symlink in the tree is removed, never followed. */
	return nftw(path, review_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

void
review_git_free(struct review_git *g)
{
	if (g == NULL)
		return;
	if (g->cat_out != NULL) {
		close(g->cat_in);
		(void)review_git_wait(g->cat_out, g->cat_pid);
	}
	if (g->scratch != NULL)
		(void)review_rmtree(g->scratch);
	free(g->scratch);
	free(g->ws);
	free(g->common);
	free(g->gitdir);
	review_env_free(g->host_env);
	review_env_free(g->scratch_env);
	free(g);
}
