/* paths.c - home lookup, tilde, tokens, `..` interception, canonicalization.
 *
 * Theory of operation: a configured path goes through, in order, tilde
 * expansion (written string only), token expansion (values inserted verbatim),
 * the `..` check on the expanded text, and then lz_path_canon() for host paths
 * or lz_path_normalize() for container paths. Canonicalization walks the path
 * one segment at a time with lstat(): every segment that exists is passed to
 * realpath(), and the first missing one ends the walk, the rest being appended
 * as written. Nothing is created, so a path may name a directory that a later
 * step will make.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "xmalloc.h"

#define TOKEN_NAME_MAX 16

static const struct {
	const char *name;
	size_t off;
} path_tokens[] = {
	{ "profile_name", offsetof(struct lz_path_tokens, profile_name) },
	{ "profile_dir", offsetof(struct lz_path_tokens, profile_dir) },
	{ "domain_hash", offsetof(struct lz_path_tokens, domain_hash) },
	{ "domain_dir", offsetof(struct lz_path_tokens, domain_dir) },
	{ "workspace_dir", offsetof(struct lz_path_tokens, workspace_dir) },
};

int
lz_path_home(char **out, lz_err_t *err)
{
	const char *h = getenv("HOME");
	struct passwd pw, *res = NULL;
	char *buf = NULL;
	size_t sz = 16384;
	int rc, ret = -1;

	*out = NULL;
	if (h != NULL && *h != '\0') {
		if (h[0] != '/')
			return lz_err_set(err, LZ_EINVAL, "$HOME ('%s') is not an absolute path", h);
		if (strlen(h) > LZ_PATH_MAX)
			return lz_err_set(err, LZ_EINVAL, "$HOME is longer than %d bytes", LZ_PATH_MAX);
		*out = xstrdup(h);
		return 0;
	}
	/* $HOME unset or empty: the passwd entry (spec 3.2.1). */
	for (;;) {
		buf = xrealloc(buf, sz);
		rc = getpwuid_r(getuid(), &pw, buf, sz, &res);
		if (rc != ERANGE || sz >= (1u << 20))
			break;
		sz *= 2;
	}
	if (res == NULL) {
		if (rc != 0)
			lz_err_sys(err, rc, "$HOME is unset and the passwd entry of uid %u cannot be read",
			    (unsigned)getuid());
		else
			lz_err_set(err, ENOENT, "$HOME is unset and uid %u has no passwd entry; set HOME",
			    (unsigned)getuid());
		goto out;
	}
	if (pw.pw_dir == NULL || pw.pw_dir[0] != '/' || strlen(pw.pw_dir) > LZ_PATH_MAX) {
		lz_err_set(err, LZ_EINVAL, "$HOME is unset and the passwd home of uid %u is not "
		    "an absolute path; set HOME", (unsigned)getuid());
		goto out;
	}
	*out = xstrdup(pw.pw_dir);
	ret = 0;
out:
	free(buf);
	return ret;
}

int
lz_path_expand_tilde(const char *in, char **out, lz_err_t *err)
{
	_cleanup_free_ char *home = NULL;
	size_t hl;

	*out = NULL;
	if (in[0] != '~') {
		*out = xstrdup(in);
		return 0;
	}
	if (in[1] != '\0' && in[1] != '/')
		return lz_err_set(err, LZ_EINVAL, "'~user' paths are not supported: write "
		    "'~/...' or the full path");
	if (lz_path_home(&home, err) < 0)
		return -1;
	/* Drop trailing slashes so "~/x" never becomes "//x" (keep "/" itself). */
	hl = strlen(home);
	while (hl > 1 && home[hl - 1] == '/')
		hl--;
	if (hl == 1 && in[1] == '/')
		hl = 0;
	*out = xasprintf("%.*s%s", (int)hl, home, in + 1);
	return 0;
}

int
lz_path_xdg(const char *var, const char *home_rel, char **out, lz_err_t *err)
{
	const char *v = getenv(var);
	_cleanup_free_ char *home = NULL;

	*out = NULL;
	if (v != NULL && v[0] == '/') {
		if (strlen(v) > LZ_PATH_MAX)
			return lz_err_set(err, LZ_EINVAL, "$%s is longer than %d bytes", var,
			    LZ_PATH_MAX);
		*out = xstrdup(v);
		return 0;
	}
	if (lz_path_home(&home, err) < 0)
		return -1;
	*out = xasprintf("%s%s%s", home, strcmp(home, "/") == 0 ? "" : "/", home_rel);
	return 0;
}

bool
lz_path_has_dotdot(const char *p)
{
	const char *s = p;

	for (;;) {
		const char *e = strchrnul(s, '/');

		if (e - s == 2 && s[0] == '.' && s[1] == '.')
			return true;
		if (*e == '\0')
			return false;
		s = e + 1;
	}
}

/* Token at s (s[0] == '{'): index into path_tokens, its length in *len. */
static int
token_at(const char *s, size_t *len, lz_err_t *err)
{
	const char *close = strchr(s, '}');
	size_t n, i;

	if (close == NULL)
		return lz_err_set(err, LZ_EINVAL, "unterminated '{' in '%.40s' (write '{{' for a "
		    "literal '{')", s);
	n = (size_t)(close - s - 1);
	for (i = 0; n <= TOKEN_NAME_MAX && i < sizeof path_tokens / sizeof path_tokens[0]; i++) {
		if (strlen(path_tokens[i].name) == n && memcmp(s + 1, path_tokens[i].name, n) == 0) {
			*len = n + 2;
			return (int)i;
		}
	}
	return lz_err_set(err, LZ_EINVAL, "unknown token '%.*s': the tokens are {profile_name}, "
	    "{profile_dir}, {domain_hash}, {domain_dir} and {workspace_dir} (write '{{' for a "
	    "literal '{')", n > 40 ? 40 : (int)n + 2, s);
}

int
lz_path_tokens_check(const char *s, lz_err_t *err)
{
	size_t len = 0;

	for (; *s != '\0'; s++) {
		if (*s != '{')
			continue;
		if (s[1] == '{') {
			s++;
			continue;
		}
		if (token_at(s, &len, err) < 0)
			return -1;
		s += len - 1;
	}
	return 0;
}

int
lz_path_expand_tokens(const char *s, const struct lz_path_tokens *t, char **out,
    lz_err_t *err)
{
	char *buf = NULL;
	size_t n = 0, cap = 0, len = 0;
	const char *v;
	int i;

	*out = NULL;
	while (*s != '\0') {
		const char *piece = s;
		size_t plen = 1;

		if (*s == '{' && s[1] == '{') {
			s += 2;
		} else if (*s == '{') {
			if ((i = token_at(s, &len, err)) < 0)
				goto fail;
			v = *(const char *const *)((const char *)t + path_tokens[i].off);
			if (v == NULL) {
				lz_err_set(err, LZ_EINVAL, "token {%s} has no value here",
				    path_tokens[i].name);
				goto fail;
			}
			piece = v;
			plen = strlen(v);
			s += len;
		} else
			s++;
		if (n + plen > LZ_PATH_MAX) {
			lz_err_set(err, LZ_EINVAL, "longer than %d bytes after expansion", LZ_PATH_MAX);
			goto fail;
		}
		if (n + plen + 1 > cap) {
			cap = (n + plen + 1) * 2;
			buf = xrealloc(buf, cap);
		}
		memcpy(buf + n, piece, plen);
		n += plen;
	}
	buf = xrealloc(buf, n + 1);
	buf[n] = '\0';
	*out = buf;
	return 0;
fail:
	free(buf);
	return -1;
}

int
lz_path_normalize(const char *p, char **out, lz_err_t *err)
{
	size_t len = strlen(p), n = 0;
	const char *s = p;
	char *buf;

	*out = NULL;
	if (len > LZ_PATH_MAX)
		return lz_err_set(err, LZ_EINVAL, "path longer than %d bytes", LZ_PATH_MAX);
	if (p[0] != '/')
		return lz_err_set(err, LZ_EINVAL, "'%s' is not an absolute path", p);
	if (lz_path_has_dotdot(p))
		return lz_err_set(err, LZ_EINVAL, "'%s': '..' path segment refused (path traversal)",
		    p);
	buf = xmalloc(len + 2);
	while (*s != '\0') {
		const char *e;

		while (*s == '/')
			s++;
		e = strchrnul(s, '/');
		if (e == s || (e - s == 1 && s[0] == '.')) {
			s = e;
			continue;
		}
		buf[n++] = '/';
		memcpy(buf + n, s, (size_t)(e - s));
		n += (size_t)(e - s);
		s = e;
	}
	if (n == 0)
		buf[n++] = '/';
	buf[n] = '\0';
	*out = buf;
	return 0;
}

int
lz_path_canon(const char *p, char **out, lz_err_t *err)
{
	_cleanup_free_ char *norm = NULL;
	char *cur = NULL, *next = NULL, *real;
	const char *seg;
	struct stat st;
	int ret = -1;

	*out = NULL;
	if (lz_path_normalize(p, &norm, err) < 0)
		return -1;
	cur = xstrdup("/");
	seg = norm + 1;
	while (*seg != '\0') {
		const char *e = strchrnul(seg, '/');

		next = xasprintf("%s%s%.*s", cur, strcmp(cur, "/") == 0 ? "" : "/",
		    (int)(e - seg), seg);
		if (lstat(next, &st) < 0) {
			if (errno != ENOENT) {
				lz_err_sys(err, errno, "'%s'", next);
				goto out;
			}
			/* First missing segment: the rest cannot exist either. */
			free(next);
			next = xasprintf("%s%s%s", cur, strcmp(cur, "/") == 0 ? "" : "/", seg);
			free(cur);
			cur = lz_steal_ptr(&next);
			break;
		}
		if ((real = realpath(next, NULL)) == NULL) {
			if (errno == ENOENT)
				lz_err_set(err, ENOENT, "'%s' is a dangling symlink", next);
			else
				lz_err_sys(err, errno, "'%s'", next);
			goto out;
		}
		free(cur);
		cur = real;
		free(next);
		next = NULL;
		seg = *e == '\0' ? e : e + 1;
	}
	if (strlen(cur) > LZ_PATH_MAX) {
		lz_err_set(err, LZ_EINVAL, "'%s': longer than %d bytes once canonical", p,
		    LZ_PATH_MAX);
		goto out;
	}
	*out = lz_steal_ptr(&cur);
	ret = 0;
out:
	free(cur);
	free(next);
	return ret;
}

bool
lz_path_within(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int
lz_path_read(const char *path, size_t max, char **buf, size_t *len, struct stat *st,
    lz_err_t *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *b = NULL;
	struct stat sb;
	size_t n = 0;
	ssize_t r;

	*buf = NULL;
	*len = 0;
	if (st == NULL)
		st = &sb;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return lz_err_sys(err, errno, "%s", path);
	if (fstat(fd, st) < 0)
		return lz_err_sys(err, errno, "%s", path);
	if (!S_ISREG(st->st_mode))
		return lz_err_set(err, LZ_EINVAL, "%s: not a regular file", path);
	if ((uint64_t)st->st_size > max)
		return lz_err_set(err, LZ_EINVAL, "%s: larger than %zu bytes", path, max);
	b = xmalloc(max + 1);
	while (n <= max) {
		r = read(fd, b + n, max + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return lz_err_sys(err, errno, "%s", path);
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max)
		return lz_err_set(err, LZ_EINVAL, "%s: larger than %zu bytes", path, max);
	b[n] = '\0';
	*buf = lz_steal_ptr(&b);
	*len = n;
	return 0;
}
