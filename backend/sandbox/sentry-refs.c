/* sentry-refs.c - the agent's refs read as data, never through git.
 *
 * The agent's private repository is written by the agent: its ref files,
 * packed-refs and directories may be symlinks, FIFOs, huge, symbolic, or
 * named to escape. Before a ref is handed to host git it is read here with
 * O_NOFOLLOW, size-capped, and kept only when it names an object in hex of
 * the repository's length and its name passes a check stricter than git's
 * own check-ref-format. Everything else is skipped and counted, so the
 * import can say what it left out. sentry_packed_refs_parse is pure (no
 * I/O) and fuzzed (tests/fuzz/fuzz-refs.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sentry-int.h"
#include "xmalloc.h"

#define SENTRY_REFNAME_MAX 255

/* A ref name under refs/ made of [A-Za-z0-9._+-/] components: none empty,
 * none starting with '.', none ending in ".lock", no "..", nothing git
 * would read as a revision expression (@{, ~, ^, :, ?, *, [, \, space). */
bool
sentry_refname_ok(const char *name, size_t len)
{
	size_t i, seg = 0;

	if (len < 6 || len > SENTRY_REFNAME_MAX || strncmp(name, "refs/", 5) != 0)
		return false;
	for (i = 0; i <= len; i++) {
		char c = i < len ? name[i] : '/';

		if (c == '/') {
			if (i == seg || name[seg] == '.' ||
			    (i - seg >= 5 && memcmp(name + i - 5, ".lock", 5) == 0))
				return false;
			seg = i + 1;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c == '-' || c == '+'))
			return false;
		if (c == '.' && i + 1 < len && name[i + 1] == '.')
			return false;
	}
	return name[len - 1] != '.';
}

/* Exactly hexlen lowercase hex digits. */
bool
sentry_hex_ok(const char *s, size_t len, unsigned hexlen)
{
	size_t i;

	if (len != hexlen)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static void
sentry_refs_skip(struct sentry_refs *r, const char *name, size_t len)
{
	r->skipped++;
	if (r->first_skipped == NULL)
		r->first_skipped = xstrndup(name, len > 80 ? 80 : len);
}

/* Add or replace name -> hex (a loose ref wins over its packed line). */
void
sentry_refs_set(struct sentry_refs *r, const char *name, const char *hex)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->v[i].name, name) == 0) {
			snprintf(r->v[i].hex, sizeof r->v[i].hex, "%s", hex);
			return;
		}
	if (r->n >= SENTRY_REFS_MAX) {
		sentry_refs_skip(r, name, strlen(name));
		return;
	}
	r->v = xreallocarray(r->v, r->n + 1, sizeof *r->v);
	r->v[r->n].name = xstrdup(name);
	snprintf(r->v[r->n].hex, sizeof r->v[r->n].hex, "%s", hex);
	r->n++;
}

void
sentry_refs_clear(struct sentry_refs *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->v[i].name);
	free(r->v);
	free(r->first_skipped);
	memset(r, 0, sizeof *r);
}

/* packed-refs: "# ..." header lines, "<hex> <name>" lines, "^<hex>" peel
 * lines (ignored: the import fetches the tag object itself). Only refs
 * under refs/heads/ and refs/tags/ are kept. Returns 0, or -1 when buf
 * holds a NUL (not a text file). */
int
sentry_packed_refs_parse(const char *buf, size_t len, unsigned hexlen, struct sentry_refs *r)
{
	const char *line = buf, *end = buf + len, *nl, *name;
	char hex[65];
	size_t n;

	if (memchr(buf, '\0', len) != NULL)
		return -1;
	while (line < end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			nl = end;
		n = (size_t)(nl - line);
		if (n > 0 && line[0] != '#' && line[0] != '^') {
			name = line + hexlen + 1;
			if (n <= hexlen + 1 || line[hexlen] != ' ' || !sentry_hex_ok(line, hexlen, hexlen))
				sentry_refs_skip(r, line, n);
			else if (!sentry_refname_ok(name, (size_t)(nl - name)))
				sentry_refs_skip(r, name, (size_t)(nl - name));
			else if (strncmp(name, "refs/heads/", 11) == 0 ||
			    strncmp(name, "refs/tags/", 10) == 0) {
				_cleanup_free_ char *nm = xstrndup(name, (size_t)(nl - name));

				memcpy(hex, line, hexlen);
				hex[hexlen] = '\0';
				sentry_refs_set(r, nm, hex);
			}
		}
		line = nl + 1;
	}
	return 0;
}

/* Read a whole regular file of at most max bytes at dirfd/name without
 * following a symlink. -1 (errno set) when it is anything else. */
static int
sentry_slurp_at(int dirfd, const char *name, size_t max, char **out, size_t *len)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK);
	struct stat st;
	size_t got = 0;
	ssize_t n;
	char *buf;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		errno = EINVAL;
		return -1;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size && (n = read(fd, buf + got, (size_t)st.st_size - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -1;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
}

struct sentry_loose {
	const char *prefix;	/* "refs/heads" ... */
	unsigned hexlen;
	struct sentry_refs *r;
};

/* One entry below refs/heads or refs/tags: descend into directories, keep
 * regular files holding an id under a good name. */
static int
sentry_loose_cb(int dirfd, const char *name, const char *rel, const struct stat *st, void *arg,
    lz_err_t *err)
{
	struct sentry_loose *l = arg;
	_cleanup_free_ char *ref = xasprintf("%s/%s", l->prefix, rel), *buf = NULL;
	size_t len;

	(void)err;
	if (S_ISDIR(st->st_mode))
		return SENTRY_WALK_INTO;
	if (!sentry_refname_ok(ref, strlen(ref)) ||
	    sentry_slurp_at(dirfd, name, SENTRY_FILE_MAX, &buf, &len) < 0) {
		sentry_refs_skip(l->r, ref, strlen(ref));
		return 0;
	}
	while (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	/* "ref: ..." (a symbolic ref) and anything else but an id. */
	if (!sentry_hex_ok(buf, len, l->hexlen))
		sentry_refs_skip(l->r, ref, strlen(ref));
	else
		sentry_refs_set(l->r, ref, buf);
	return 0;
}

/* The branches and tags of the private gitdir priv: packed-refs, then the
 * loose refs over them. */
int
sentry_refs_read(const char *priv, unsigned hexlen, struct sentry_refs *r, lz_err_t *err)
{
	static const char *const parts[] = { "refs/heads", "refs/tags" };
	_cleanup_close_ int root = open(priv, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	size_t len, i;

	memset(r, 0, sizeof *r);
	if (root < 0)
		return lz_err_sys(err, errno, "agent repository '%s'", priv);
	if (sentry_slurp_at(root, "packed-refs", SENTRY_PACKED_MAX, &buf, &len) == 0) {
		if (sentry_packed_refs_parse(buf, len, hexlen, r) < 0)
			sentry_refs_skip(r, "packed-refs", 11);
	} else if (errno != ENOENT)
		sentry_refs_skip(r, "packed-refs", 11);
	for (i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		_cleanup_free_ char *top = xasprintf("%s/%s", priv, parts[i]);
		struct sentry_loose l = { parts[i], hexlen, r };

		/* A symlinked refs/ or refs/heads is not walked: open refuses it. */
		(void)sentry_walk(top, SENTRY_REFS_MAX * 2, 0, sentry_loose_cb, &l, NULL, NULL);
	}
	return 0;
}

struct sentry_scrub {
	const char *root;
	size_t n;
	char **first;
};

static int
sentry_scrub_cb(int dirfd, const char *name, const char *rel, const struct stat *st, void *arg,
    lz_err_t *err)
{
	struct sentry_scrub *sc = arg;

	(void)err;
	if (S_ISDIR(st->st_mode))
		return SENTRY_WALK_INTO;
	if (!S_ISREG(st->st_mode) && unlinkat(dirfd, name, 0) == 0) {
		if (sc->first != NULL && *sc->first == NULL)
			*sc->first = xasprintf("%s/%s", sc->root, rel);
		sc->n++;
	}
	return 0;
}

/* Remove every symlink and special file below root (no depth limit);
 * count them, *first takes the first one's path. */
size_t
sentry_scrub_tree(const char *root, char **first)
{
	struct sentry_scrub sc = { root, 0, first };

	(void)sentry_walk(root, SIZE_MAX, 0, sentry_scrub_cb, &sc, NULL, NULL);
	return sc.n;
}
