/* sentry-util.c - the Git Sentry's small tools: host git and other
 * programs run from argv, small files read and written without following
 * symlinks (the agent plants them), mount list building, and path
 * arithmetic for config values host git resolves.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/proc.h"
#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "strv.h"
#include "xmalloc.h"

extern char **environ;

int
sentry_path_check(const char *what, const char *path, bool colon_ok, lz_err_t *err)
{
	const unsigned char *p;

	if (path[0] != '/')
		return lz_err_set(err, LZ_EINVAL, "%s '%s': not an absolute path", what, path);
	for (p = (const unsigned char *)path; *p != '\0'; p++) {
		if (*p == ',')
			return lz_err_set(err, LZ_EINVAL, "%s '%s' contains a comma, which "
			    "podman --mount cannot carry: rename or move it", what, path);
		if (*p == '"')
			return lz_err_set(err, LZ_EINVAL, "%s '%s' contains a double quote, "
			    "which podman --mount cannot carry: rename or move it", what, path);
		if (*p == ':' && !colon_ok)
			return lz_err_set(err, LZ_EINVAL, "%s '%s' contains a colon, which "
			    "fuse-overlayfs options cannot carry: rename or move it", what, path);
		if (*p < 0x20 || *p == 0x7f)
			return lz_err_set(err, LZ_EINVAL, "%s '%s' contains a control "
			    "character: rename or move it", what, path);
	}
	return 0;
}

/* Our environment without GIT_* (a caller's GIT_DIR must not redirect us),
 * in the C locale (git's messages are matched below), no optional locks (so
 * no command of ours refreshes the user's index). */
char **
sentry_git_env(void)
{
	char **env = NULL;
	char **e;

	for (e = environ; e != NULL && *e != NULL; e++)
		if (strncmp(*e, "GIT_", 4) != 0 && strncmp(*e, "LC_ALL=", 7) != 0)
			lz_strv_push(&env, *e);
	lz_strv_push(&env, "LC_ALL=C");
	lz_strv_push(&env, "GIT_OPTIONAL_LOCKS=0");
	lz_strv_push(&env, "GIT_TERMINAL_PROMPT=0");
	return env;
}

/* The useful part of a tool's stderr: its last "fatal:", "error:" or
 * "Error:" line, else every line but fuse-overlayfs' "unknown argument
 * ignored" chatter, joined with "; ". Returns a new string. */
static char *
sentry_errmsg(const char *errout)
{
	const char *line, *end, *best = NULL, *best_end = NULL;
	char *all = xstrdup(""), *t;

	for (line = errout; *line != '\0'; line = end + (*end == '\n')) {
		end = strchrnul(line, '\n');
		if (strncmp(line, "fatal: ", 7) == 0 || strncmp(line, "error: ", 7) == 0 ||
		    strncmp(line, "Error: ", 7) == 0) {
			best = line;
			best_end = end;
		}
		if (end == line || strncmp(line, "unknown argument ignored", 24) == 0)
			continue;
		t = xasprintf("%s%s%.*s", all, *all != '\0' ? "; " : "", (int)(end - line), line);
		free(all);
		all = t;
	}
	if (best == NULL)
		return all;
	free(all);
	return xstrndup(best, (size_t)(best_end - best));
}

/* sentry_run's verdict on a program that ran (res cleared); *len (may be
 * NULL) the length of *out. */
static int
sentry_result(struct proc_result *res, const char *what, char **out, size_t *len, int *status,
    lz_err_t *err)
{
	size_t n;

	if (status != NULL)
		*status = res->status;
	else if (res->status != 0) {
		_cleanup_free_ char *m = sentry_errmsg(res->errout);

		lz_err_set(err, LZ_EINVAL, "%s failed (exit %d)%s%s", what, res->status,
		    *m != '\0' ? ": " : "", m);
		proc_result_clear(res);
		return -1;
	}
	if (out != NULL) {
		n = res->out_len;
		/* Output with NULs in it (-z) is data: kept whole. */
		if (strlen(res->out) == n)
			while (n > 0 && (res->out[n - 1] == '\n' || res->out[n - 1] == ' '))
				res->out[--n] = '\0';
		if (len != NULL)
			*len = n;
		*out = lz_steal_ptr(&res->out);
	}
	proc_result_clear(res);
	return 0;
}

int
sentry_run(char *const argv[], char *const env[], const char *what, char **out,
    int *status, lz_err_t *err)
{
	struct proc_result res;

	if (proc_run(argv, env, NULL, 0, &res, err) < 0)
		return -1;
	return sentry_result(&res, what, out, NULL, status, err);
}

/* The argv of `git -C dir -c core.hooksPath=/dev/null ARGS...` (no hook of
 * the user's runs for our checkouts; `git config` runs none and must see
 * the real core.hooksPath, so it goes without); *what names it. */
static char **
sentry_git_argv(const char *dir, va_list ap, char **what)
{
	char **argv = NULL;
	const char *s, *sub = NULL;

	lz_strv_push(&argv, "git");
	lz_strv_push(&argv, "-C");
	lz_strv_push(&argv, dir);
	s = va_arg(ap, const char *);
	if (s != NULL && strcmp(s, "config") != 0) {
		lz_strv_push(&argv, "-c");
		lz_strv_push(&argv, "core.hooksPath=/dev/null");
	}
	for (; s != NULL; s = va_arg(ap, const char *)) {
		if (sub == NULL && s[0] != '-')
			sub = s;
		lz_strv_push(&argv, s);
	}
	*what = xasprintf("git %s (in %s)", sub != NULL ? sub : "", dir);
	return argv;
}

int
sentry_git(const char *dir, char **out, int *status, lz_err_t *err, ...)
{
	char **argv, **env = sentry_git_env();
	_cleanup_free_ char *what = NULL;
	va_list ap;
	int ret;

	va_start(ap, err);
	argv = sentry_git_argv(dir, ap, &what);
	va_end(ap);
	ret = sentry_run(argv, env, what, out, status, err);
	lz_strv_free(argv);
	lz_strv_free(env);
	return ret;
}

struct sentry_job {
	struct proc_job *p;	/* NULL: it did not start (err says why) */
	char *what;
	lz_err_t err;
};

struct sentry_job *
sentry_git_start(const char *dir, ...)
{
	struct sentry_job *j = xcalloc(1, sizeof *j);
	char **argv, **env = sentry_git_env();
	va_list ap;

	va_start(ap, dir);
	argv = sentry_git_argv(dir, ap, &j->what);
	va_end(ap);
	(void)proc_start_env(argv, env, &j->p, &j->err);
	lz_strv_free(argv);
	lz_strv_free(env);
	return j;
}

int
sentry_git_finish(struct sentry_job *j, char **out, size_t *len, int *status, lz_err_t *err)
{
	struct proc_result res;
	int ret = -1;

	if (j == NULL)
		return 0;
	if (j->p == NULL)
		lz_err_set(err, j->err.code, "%s", j->err.msg != NULL ? j->err.msg : j->what);
	else {
		proc_finish(j->p, &res);
		ret = sentry_result(&res, j->what, out, len, status, err);
	}
	lz_err_clear(&j->err);
	free(j->what);
	free(j);
	return ret;
}

/* Read a small file whole (symlinks refused) into *out, NUL-terminated;
 * *len bytes. */
int
sentry_read_raw(const char *path, char **out, size_t *len, lz_err_t *err)
{
	char buf[SENTRY_FILE_MAX + 1];
	_cleanup_close_ int fd = -1;
	ssize_t n;
	size_t got = 0;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return lz_err_sys(err, errno, "cannot read '%s'", path);
	while (got < sizeof buf && (n = read(fd, buf + got, sizeof buf - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return lz_err_sys(err, errno, "cannot read '%s'", path);
		}
		got += (size_t)n;
	}
	if (got > SENTRY_FILE_MAX)
		return lz_err_set(err, EFBIG, "'%s': larger than %d bytes", path, SENTRY_FILE_MAX);
	if (memchr(buf, '\0', got) != NULL)
		return lz_err_set(err, LZ_EINVAL, "'%s': contains a NUL byte", path);
	*out = xstrndup(buf, got);
	*len = got;
	return 0;
}

/* sentry_read_raw with trailing newlines cut (gitfile, gitdir, commondir). */
int
sentry_read_small(const char *path, char **out, lz_err_t *err)
{
	size_t len;

	if (sentry_read_raw(path, out, &len, err) < 0)
		return -1;
	while (len > 0 && (*out)[len - 1] == '\n')
		(*out)[--len] = '\0';
	return 0;
}

/* Write content to path unless it already holds exactly that (a running
 * container keeps its bind of the old inode otherwise), via a temp file and
 * rename (sentry_write_at). */
int
sentry_write_file(const char *path, const char *content, mode_t mode, lz_err_t *err)
{
	_cleanup_free_ char *cur = NULL, *dir = xstrdup(path);
	_cleanup_close_ int dfd = -1;
	size_t len = strlen(content), curlen;
	char *slash = strrchr(dir, '/');
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == mode &&
	    sentry_read_raw(path, &cur, &curlen, NULL) == 0 && curlen == len &&
	    memcmp(cur, content, len) == 0)
		return 0;
	if (slash == NULL)
		return lz_err_set(err, LZ_EINVAL, "'%s': not an absolute path", path);
	*slash = '\0';
	if ((dfd = open(*dir != '\0' ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return lz_err_sys(err, errno, "cannot open '%s'", dir);
	return sentry_write_at(dfd, slash + 1, content, len, mode, err);
}

int
sentry_mkdirs(const char *base, const char *rel, mode_t mode, lz_err_t *err)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", base, rel);
	size_t blen = strlen(base);
	struct stat st;
	char *p;

	for (p = path + blen + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(path, mode) < 0 && errno != EEXIST)
			return lz_err_sys(err, errno, "cannot create '%s'", path);
		if (stat(path, &st) < 0)
			return lz_err_sys(err, errno, "cannot stat '%s'", path);
		if (!S_ISDIR(st.st_mode))
			return lz_err_set(err, ENOTDIR, "'%s' exists and is not a directory", path);
		*p = c;
		if (c == '\0')
			break;
	}
	return 0;
}

bool
sentry_is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* An existing directory with nothing in it, or no directory at all. */
bool
sentry_dir_missing_or_empty(const char *path)
{
	DIR *d;
	struct dirent *e;
	bool empty = true;

	if ((d = opendir(path)) == NULL)
		return errno == ENOENT;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			empty = false;
			break;
		}
	closedir(d);
	return empty;
}

void
sentry_push_mount(struct sentry_layout *l, enum drv_mount_type type, const char *src,
    const char *dst, bool ro, const char *opts)
{
	struct drv_mount *m;

	l->mounts = xreallocarray(l->mounts, l->n_mounts + 1, sizeof *l->mounts);
	m = &l->mounts[l->n_mounts++];
	memset(m, 0, sizeof *m);
	m->type = type;
	m->src = src != NULL ? xstrdup(src) : NULL;
	m->dst = xstrdup(dst);
	m->ro = ro;
	m->opts = opts != NULL ? xstrdup(opts) : NULL;
}

/* Append note (taken) to *notice, "; "-separated. */
void
sentry_notice_add(char **notice, char *note)
{
	char *t;

	if (*notice == NULL) {
		*notice = note;
		return;
	}
	t = xasprintf("%s; %s", *notice, note);
	free(note);
	free(*notice);
	*notice = t;
}

void
sentry_bind(struct sentry_layout *l, const char *src, const char *dst, bool ro)
{
	sentry_push_mount(l, DRV_MOUNT_BIND, src, dst, ro, NULL);
}


/* Lexically normalise absolute path p ("." and ".." components, repeated
 * slashes) in place. */
static void
sentry_normalise(char *p)
{
	char *out = p, *seg = p, *end;
	size_t n;

	while (*seg != '\0') {
		while (*seg == '/')
			seg++;
		if (*seg == '\0')
			break;
		end = strchrnul(seg, '/');
		n = (size_t)(end - seg);
		if (n == 1 && seg[0] == '.') {
			/* skip */
		} else if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, seg, n);
			out += n;
		}
		seg = end;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* Where host git takes config path value v (relative to dir, "~/" = $HOME):
 * absolute, symlinks resolved in the part that exists. NULL when v cannot
 * be placed. */
char *
sentry_resolve(const char *dir, const char *v)
{
	_cleanup_free_ char *abs = NULL, *real = NULL;
	const char *home = getenv("HOME");
	char *cut;

	if (strncmp(v, "~/", 2) == 0)
		abs = home != NULL ? xasprintf("%s/%s", home, v + 2) : NULL;
	else if (v[0] == '~')
		return NULL;
	else
		abs = v[0] == '/' ? xstrdup(v) : xasprintf("%s/%s", dir, v);
	if (abs == NULL)
		return NULL;
	sentry_normalise(abs);
	/* The longest prefix that exists, canonical, then the rest. */
	for (cut = abs + strlen(abs);;) {
		char c = *cut;

		*cut = '\0';
		real = realpath(*abs != '\0' ? abs : "/", NULL);
		*cut = c;
		if (real != NULL)
			return xasprintf("%s%s", strcmp(real, "/") == 0 ? "" : real, cut);
		while (cut > abs && *--cut != '/')
			;
		if (cut == abs)
			return NULL;
	}
}

/* path below base: the relative rest, else NULL. */
const char *
sentry_below(const char *base, const char *path)
{
	size_t n = strlen(base);

	if (strncmp(path, base, n) != 0 || path[n] != '/' || path[n + 1] == '\0')
		return NULL;
	return path + n + 1;
}

int64_t
sentry_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Open directory rel (components split on '/') below dirfd base, never
 * following a symlink on the way; create missing components (0755) when
 * create. Returns the fd or -1 with err. */
int
sentry_open_dir_at(int base, const char *rel, bool create, lz_err_t *err)
{
	_cleanup_free_ char *copy = xstrdup(rel);
	char *seg, *save = NULL;
	int fd = dup(base), next;

	if (fd < 0)
		return lz_err_sys(err, errno, "dup");
	for (seg = strtok_r(copy, "/", &save); seg != NULL; seg = strtok_r(NULL, "/", &save)) {
		if (strcmp(seg, ".") == 0 || strcmp(seg, "..") == 0) {
			close(fd);
			return lz_err_set(err, LZ_EINVAL, "'%s': a '.' or '..' component", rel);
		}
		next = openat(fd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create) {
			if (mkdirat(fd, seg, 0755) < 0 && errno != EEXIST) {
				lz_err_sys(err, errno, "cannot create '%s' (in '%s')", seg, rel);
				close(fd);
				return -1;
			}
			next = openat(fd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			lz_err_sys(err, errno, "cannot open '%s' (in '%s')", seg, rel);
			close(fd);
			return -1;
		}
		close(fd);
		fd = next;
	}
	return fd;
}

/* Write len bytes of content as name in directory dirfd: a temp file made
 * O_EXCL then renamed over name (a symlink planted at name is replaced,
 * never followed). */
int
sentry_write_at(int dirfd, const char *name, const char *content, size_t len, mode_t mode,
    lz_err_t *err)
{
	_cleanup_free_ char *tmp = xasprintf(".%s.lzw", name);
	_cleanup_close_ int fd = -1;
	size_t off = 0;
	ssize_t n;

	(void)unlinkat(dirfd, tmp, 0);
	if ((fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600)) < 0)
		return lz_err_sys(err, errno, "cannot create '%s'", tmp);
	while (off < len) {
		if ((n = write(fd, content + off, len - off)) < 0) {
			if (errno == EINTR)
				continue;
			lz_err_sys(err, errno, "cannot write '%s'", tmp);
			goto fail;
		}
		off += (size_t)n;
	}
	if (fchmod(fd, mode) < 0 || renameat(dirfd, tmp, dirfd, name) < 0) {
		lz_err_sys(err, errno, "cannot put '%s' in place", name);
		goto fail;
	}
	return 0;
fail:
	(void)unlinkat(dirfd, tmp, 0);
	return -1;
}

/* Visit everything below root, depth first, iteratively (no depth limit, no
 * recursion): each directory is opened from root's fd one O_NOFOLLOW
 * component at a time, so a symlink swapped in by the agent is never
 * followed. fn gets the directory fd, the entry's name, its path relative
 * to root and its lstat; it returns SENTRY_WALK_INTO to descend into a
 * directory, 0 to go on, -1 to stop (its error). After max entries, or past
 * deadline_ms (0: none), the walk stops with *cut set. */
int
sentry_walk(const char *root, size_t max, int64_t deadline_ms, sentry_walk_fn fn, void *arg,
    bool *cut, lz_err_t *err)
{
	_cleanup_close_ int top = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char **stack = NULL;
	size_t n_stack = 0, seen = 0;
	int ret = 0;

	if (cut != NULL)
		*cut = false;
	if (top < 0)
		return 0;
	stack = xreallocarray(stack, 1, sizeof *stack);
	stack[n_stack++] = xstrdup("");
	while (ret == 0 && n_stack > 0) {
		_cleanup_free_ char *rel = stack[--n_stack];
		int fd = *rel == '\0' ? dup(top) : sentry_open_dir_at(top, rel, false, NULL);
		struct dirent *e;
		struct stat st;
		DIR *d;

		if (fd < 0 || (d = fdopendir(fd)) == NULL) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		while (ret == 0 && (e = readdir(d)) != NULL) {
			_cleanup_free_ char *sub = NULL;
			int r;

			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			if (++seen > max || (deadline_ms > 0 && (seen & 255) == 0 &&
			    sentry_now_ms() > deadline_ms)) {
				if (cut != NULL)
					*cut = true;
				break;
			}
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			sub = *rel == '\0' ? xstrdup(e->d_name) : xasprintf("%s/%s", rel, e->d_name);
			r = fn(dirfd(d), e->d_name, sub, &st, arg, err);
			if (r < 0)
				ret = -1;
			else if (r == SENTRY_WALK_INTO && S_ISDIR(st.st_mode)) {
				stack = xreallocarray(stack, n_stack + 1, sizeof *stack);
				stack[n_stack++] = lz_steal_ptr(&sub);
			}
		}
		closedir(d);
		if (cut != NULL && *cut)
			break;
	}
	while (n_stack > 0)
		free(stack[--n_stack]);
	free(stack);
	return ret;
}
