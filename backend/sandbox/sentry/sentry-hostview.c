/* sentry-hostview.c - the host's branches and git settings as the agent
 * sees them, live (issue 30).
 *
 * <dr>/host-view is Lazaret's own directory, mounted read-only into the
 * sandbox: refs/ at /workspace/.git/refs/remotes/host (one loose ref file
 * per host branch but Lazaret's own lazaret/..., so `git log host/main` and
 * `git rebase host/main` work inside; the commits are in the host's object
 * store the agent borrows read-only) and git/config at SENTRY_HOSTCFG_DST
 * (the host's settings an agent may use: identity, aliases, a few
 * behaviours; nothing that runs a program on its own or carries a secret),
 * which the agent's config includes. The coordinator rewrites both when
 * the host's refs or config change (sentry-follow.c); each file is renamed
 * into place, so git inside reads either the old value or the new one.
 * Read-only inside: `git update-ref refs/remotes/host/main` fails there,
 * and nothing under refs/remotes/ is ever imported into the host anyway.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "strv.h"
#include "xmalloc.h"

/* Host branches shown at most (a ref file each). */
#define SENTRY_HOSTVIEW_MAX 20000

static int
sentry_hostview_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Remove what is under top/rel that names no wanted branch; empty
 * directories go too. want is sorted. */
static void
sentry_hostview_prune(int top, const char *rel, char **want, size_t n, size_t *removed)
{
	int fd = *rel == '\0' ? dup(top) : sentry_open_dir_at(top, rel, false, NULL);
	DIR *d;
	struct dirent *e;
	struct stat st;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *sub = NULL;
		char *key;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		sub = *rel == '\0' ? xstrdup(e->d_name) : xasprintf("%s/%s", rel, e->d_name);
		if (S_ISDIR(st.st_mode)) {
			sentry_hostview_prune(top, sub, want, n, removed);
			(void)unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);	/* when empty */
			continue;
		}
		key = sub;
		if (e->d_name[0] != '.' && bsearch(&key, want, n, sizeof *want,
		    sentry_hostview_cmp) != NULL)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0 && e->d_name[0] != '.')
			(*removed)++;
	}
	closedir(d);
}

/* Write rel (below dirfd) = hex when it differs: 1 written, 0 the same. */
static int
sentry_hostview_put(int dirfd, const char *rel, const char *hex, lz_err_t *err)
{
	_cleanup_free_ char *dir = xstrdup(rel), *line = xasprintf("%s\n", hex);
	_cleanup_close_ int dfd = -1, fd = -1;
	char *slash = strrchr(dir, '/'), buf[80];
	const char *name = rel;
	ssize_t n;

	if (slash != NULL) {
		*slash = '\0';
		name = slash + 1;
		if ((dfd = sentry_open_dir_at(dirfd, dir, true, err)) < 0)
			return -1;
	} else if ((dfd = dup(dirfd)) < 0)
		return lz_err_sys(err, errno, "dup");
	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0 &&
	    (n = read(fd, buf, sizeof buf)) == (ssize_t)strlen(line) &&
	    memcmp(buf, line, (size_t)n) == 0)
		return 0;
	if (sentry_write_at(dfd, name, line, strlen(line), 0444, err) < 0)
		return -1;
	return 1;
}

int
sentry_hostview_refs(const char *view, const char *heads, unsigned hexlen, char **summary,
    lz_err_t *err)
{
	_cleanup_free_ char *copy = xstrdup(heads), *refs = xasprintf("%s/refs", view);
	_cleanup_close_ int fd = -1;
	char **want = NULL, *line, *save = NULL, *sp;
	size_t n = 0, changed = 0, removed = 0;
	int ret = -1, r;

	if (summary != NULL)
		*summary = NULL;
	if (sentry_mkdirs("", refs + 1, 0755, err) < 0 ||
	    (fd = open(refs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return fd < 0 && err != NULL && err->msg == NULL ?
		    lz_err_sys(err, errno, "'%s'", refs) : -1;
	for (line = strtok_r(copy, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		const char *ref;

		if ((sp = strchr(line, ' ')) == NULL)
			continue;
		*sp = '\0';
		ref = sp + 1;
		/* Lazaret's own branches are the agent's: they are its refs inside. */
		if (strncmp(ref, "refs/heads/", 11) != 0 || strncmp(ref, "refs/heads/lazaret/", 19) == 0 ||
		    !sentry_refname_ok(ref, strlen(ref)) || !sentry_hex_ok(line, strlen(line), hexlen))
			continue;
		if (n == SENTRY_HOSTVIEW_MAX)
			break;
		if ((r = sentry_hostview_put(fd, ref + 11, line, err)) < 0)
			goto out;
		if (r > 0 && changed++ == 0 && summary != NULL)
			*summary = xasprintf("host/%s is now %.12s", ref + 11, line);
		want = xreallocarray(want, n + 1, sizeof *want);
		want[n++] = xstrdup(ref + 11);
	}
	if (n > 0)
		qsort(want, n, sizeof *want, sentry_hostview_cmp);
	sentry_hostview_prune(fd, "", want, n, &removed);
	if (summary != NULL && changed + removed > 1) {
		free(*summary);
		*summary = xasprintf("%zu host branch%s updated, %zu gone", changed,
		    changed == 1 ? "" : "es", removed);
	} else if (summary != NULL && removed == 1 && changed == 0)
		*summary = xstrdup("a host branch is gone");
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(want[i]);
	free(want);
	return ret;
}

/* A key of the host's config the agent sees (canonical: lower-case section
 * and name). Identity and aliases (an alias's "!command" runs inside, as
 * the agent's own would), and settings that only shape git's output or
 * merges. Never a key that names a program, a path, a URL or a credential. */
bool
sentry_hostview_key_ok(const char *key, size_t len)
{
	static const char *const keys[] = {
		"user.name", "user.email", "core.autocrlf", "core.eol", "pull.rebase", "pull.ff",
		"merge.conflictstyle", "rebase.autosquash", "rebase.autostash",
		"rebase.updaterefs", "diff.algorithm", "diff.colormoved", "color.ui",
		"init.defaultbranch", "log.date", "commit.verbose", "rerere.enabled", NULL,
	};
	size_t i;

	if (len > 6 && memcmp(key, "alias.", 6) == 0)
		return memchr(key + 6, '.', len - 6) == NULL;
	for (i = 0; keys[i] != NULL; i++)
		if (strlen(keys[i]) == len && memcmp(keys[i], key, len) == 0)
			return true;
	return false;
}

/* value as a git config value: quoted, with \\ \" \n \t escaped. */
static void
sentry_hostview_quote(char **out, const char *v)
{
	size_t n = strlen(*out);

	*out = xrealloc(*out, n + 2 * strlen(v) + 4);
	(*out)[n++] = '"';
	for (; *v != '\0'; v++) {
		char c = *v;

		if (c == '\\' || c == '"' || c == '\n' || c == '\t') {
			(*out)[n++] = '\\';
			c = c == '\n' ? 'n' : c == '\t' ? 't' : c;
		} else if ((unsigned char)c < 0x20)
			continue;
		(*out)[n++] = c;
	}
	(*out)[n++] = '"';
	(*out)[n++] = '\n';
	(*out)[n] = '\0';
}

int
sentry_hostview_config(const char *view, const char *cfgz, size_t len, lz_err_t *err)
{
	_cleanup_free_ char *dir = xasprintf("%s/git", view);
	/* gc.packRefs off: packing would copy the read-only host refs into the
	 * agent's packed-refs, where a branch the user deletes would live on
	 * (and gc would print an error for each); the agent may turn it on. */
	_cleanup_free_ char *text = xstrdup("# written by lazaret: the host's git settings the "
	    "agent sees (read-only; yours go in .git/config)\n[gc]\n\tpackRefs = false\n");
	_cleanup_close_ int fd = -1;
	const char *pos = cfgz;
	struct sentry_cfgz c;

	if (sentry_mkdirs("", dir + 1, 0755, err) < 0 ||
	    (fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return fd < 0 && err != NULL && err->msg == NULL ?
		    lz_err_sys(err, errno, "'%s'", dir) : -1;
	while (cfgz != NULL && sentry_cfgz_next(&pos, cfgz + len, &c)) {
		const char *dot = memchr(c.key, '.', c.klen);
		char *t;

		if (!sentry_hostview_key_ok(c.key, c.klen) || dot == NULL)
			continue;
		/* One section header per key: later ones win, as in git. */
		t = xasprintf("%s[%.*s]\n\t%.*s%s", text, (int)(dot - c.key), c.key,
		    (int)(c.klen - (size_t)(dot - c.key) - 1), dot + 1, c.value != NULL ? " = " : "\n");
		free(text);
		text = t;
		if (c.value != NULL)
			sentry_hostview_quote(&text, c.value);
	}
	return sentry_write_at(fd, "config", text, strlen(text), 0444, err);
}

/* The include line the agent's config starts with. */
#define SENTRY_HOSTVIEW_INCLUDE "[include]\n\tpath = " SENTRY_HOSTCFG_DST "/config\n"

int
sentry_hostview_include(int pfd, lz_err_t *err)
{
	_cleanup_close_ int fd = openat(pfd, "config", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	_cleanup_free_ char *cur = NULL, *next = NULL;
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20))
		return 0;	/* not a config we can read: the agent's to mend */
	cur = xmalloc((size_t)st.st_size + 1);
	if ((n = read(fd, cur, (size_t)st.st_size)) < 0)
		return 0;
	cur[n] = '\0';
	if (strstr(cur, SENTRY_HOSTVIEW_INCLUDE) != NULL)
		return 0;
	/* First, so that the agent's own settings below override the host's. */
	next = xasprintf(SENTRY_HOSTVIEW_INCLUDE "%s", cur);
	return sentry_write_at(pfd, "config", next, strlen(next), 0644, err);
}
