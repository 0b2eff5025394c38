/* sentry-import.c - the host takes the agent's branches and tags through
 * git's own transfer machinery, never by reading the agent's store.
 *
 * The agent's private gitdir P (<dr>/git) is data: its objects may be
 * forged (a hand-edited .idx or multi-pack-index mapping an existing id to
 * other bytes, a loose file whose content does not hash to its name), its
 * refs symbolic or symlinked, its config hostile. So an import:
 *
 *   1. reads P's branches and tags as data (sentry-refs.c);
 *   2. stages P's objects into the shadow gitdir S (<dr>/sentry/import,
 *      written only by Lazaret, never mounted): loose objects whose path is
 *      xx/<hex> and packs pack-<hex>.pack, hard-linked (copied across
 *      filesystems), each pack's .idx REBUILT from its content by `git
 *      index-pack`; the agent's .idx, midx, bitmaps, .rev, .keep,
 *      .promisor, commit-graph and alternates are never looked at. S's one
 *      alternates line is the host's own object dir G/objects;
 *   3. writes S's packed-refs from the refs of step 1 (agent main line at
 *      refs/lazaret/main, its branches at refs/heads/<name>, tags at refs/tags/<name>)
 *      and its config (ours);
 *   4. runs, in the host repository, `git fetch S` (sentry-fetch.c) with transfer.fsckObjects
 *      on, no hooks, no system or global config, no tag following, no
 *      FETCH_HEAD, into the Lazaret namespace only:
 *        refs/lazaret/main -> refs/heads/lazaret/agent-<profile>
 *        refs/heads/X      -> refs/heads/lazaret/<profile>/X   (pruned)
 *        refs/tags/X       -> refs/tags/lazaret/<profile>/X    (pruned)
 *      Host index-pack receives the objects and names each by hashing its
 *      bytes: an id the host already has keeps the host's bytes (git's
 *      collision check), a forged one is a new, unreferenced object. A
 *      broken or unreadable agent object, or one git's fsck refuses, never
 *      reaches the host: the refs that reach it are left out (audited with
 *      git's reason), the others imported (sentry-fetch.c).
 *
 * Git never runs in P with P's config: the only programs that touch P's
 * files are ours (readdir/link/open O_NOFOLLOW). Forced updates: the agent
 * rebases and amends, so its namespace follows it; a branch the agent
 * deletes disappears from refs/heads/lazaret/<profile>/, its main line is
 * never deleted on the host.
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

#include "config.h"
#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "strv.h"
#include "xmalloc.h"

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

/* Put src (below sdirfd, name) at ddirfd/name: a hard link, else a copy. */
static int
sentry_stage_one(int sdirfd, int ddirfd, const char *name, lz_err_t *err)
{
	_cleanup_close_ int in = -1, out = -1;
	_cleanup_free_ char *tmp = xasprintf(".%s.lzs", name);
	char buf[65536];
	struct stat st;
	ssize_t n;

	/* Only regular files: a symlink staged would let host git read any
	 * file of the user's (another repository's objects) as the agent's. */
	if (fstatat(sdirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (linkat(sdirfd, name, ddirfd, name, 0) == 0 || errno == EEXIST) {
		/* Swapped for a symlink in between: linkat linked the link. */
		if (fstatat(ddirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
			(void)unlinkat(ddirfd, name, 0);
		return 0;
	}
	if ((in = openat(sdirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)) < 0 ||
	    fstat(in, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;	/* gone or not a file: nothing to stage */
	(void)unlinkat(ddirfd, tmp, 0);
	if ((out = openat(ddirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0444)) < 0)
		return lz_err_sys(err, errno, "cannot stage object '%s'", name);
	while ((n = read(in, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(out, buf, (size_t)n) != n) {
			lz_err_sys(err, errno, "cannot stage object '%s'", name);
			(void)unlinkat(ddirfd, tmp, 0);
			return -1;
		}
	}
	if (renameat(ddirfd, tmp, ddirfd, name) < 0) {
		lz_err_sys(err, errno, "cannot stage object '%s'", name);
		(void)unlinkat(ddirfd, tmp, 0);
		return -1;
	}
	return 0;
}

/* Is name "pack-<hex>.pack"? */
static bool
sentry_pack_name(const char *name, unsigned hexlen)
{
	size_t n = strlen(name);

	return n == 5 + hexlen + 5 && strncmp(name, "pack-", 5) == 0 &&
	    strcmp(name + n - 5, ".pack") == 0 && sentry_hex_ok(name + 5, hexlen, hexlen);
}

/* A DIR on a CLOEXEC copy of fd: another thread may spawn meanwhile. */
static DIR *
sentry_dir_dup(int fd)
{
	int c = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d;

	if (c < 0)
		return NULL;
	if ((d = fdopendir(c)) == NULL)
		close(c);
	return d;
}

/* Remove from staged dir dfd what the agent no longer has in sfd (it
 * repacked or pruned; a pack is known by its .pack), so the stage does not
 * grow without bound. */
static void
sentry_stage_sync(int sfd, int dfd, bool packs)
{
	struct dirent *e;
	struct stat st;
	DIR *d;

	if ((d = sentry_dir_dup(dfd)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *pack = NULL;
		size_t n = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		if (packs && n > 4 && strcmp(e->d_name + n - 4, ".idx") == 0)
			pack = xasprintf("%.*s.pack", (int)(n - 4), e->d_name);
		if (fstatat(sfd, pack != NULL ? pack : e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
		    errno == ENOENT)
			(void)unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

/* Stage the agent's loose objects and packs into the shadow's store sobj. */
static int
sentry_stage(const char *pobj, const char *shadow, const char *sobj, unsigned hexlen,
    size_t *bad_packs, lz_err_t *err)
{
	_cleanup_close_ int src = open(pobj, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int dst = open(sobj, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char sub[3];
	int a, b;

	if (src < 0)
		return 0;	/* no object yet */
	if (dst < 0)
		return lz_err_sys(err, errno, "shadow object store '%s'", sobj);
	for (a = 0; a < 16; a++)
		for (b = 0; b < 16; b++) {
			_cleanup_close_ int sfd = -1, dfd = -1;
			struct dirent *e;
			DIR *d;

			snprintf(sub, sizeof sub, "%x%x", a, b);
			if ((sfd = sentry_open_dir_at(src, sub, false, NULL)) < 0)
				continue;
			if ((dfd = sentry_open_dir_at(dst, sub, true, err)) < 0)
				return -1;
			sentry_stage_sync(sfd, dfd, false);
			if ((d = sentry_dir_dup(sfd)) == NULL)
				continue;
			while ((e = readdir(d)) != NULL)
				if (sentry_hex_ok(e->d_name, strlen(e->d_name), hexlen - 2) &&
				    sentry_stage_one(sfd, dfd, e->d_name, err) < 0) {
					closedir(d);
					return -1;
				}
			closedir(d);
		}
	{
		_cleanup_close_ int sfd = sentry_open_dir_at(src, "pack", false, NULL);
		_cleanup_close_ int dfd = sentry_open_dir_at(dst, "pack", true, err);
		struct dirent *e;
		DIR *d;

		if (dfd < 0)
			return -1;
		if (sfd < 0)
			return 0;
		sentry_stage_sync(sfd, dfd, true);
		if ((d = sentry_dir_dup(sfd)) == NULL)
			return 0;
		while ((e = readdir(d)) != NULL) {
			_cleanup_free_ char *idx = NULL, *path = NULL, *gd = NULL;
			char *argv[5];
			int st;

			if (!sentry_pack_name(e->d_name, hexlen))
				continue;
			idx = xasprintf("%.*s.idx", (int)strlen(e->d_name) - 5, e->d_name);
			if (faccessat(dfd, idx, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
				continue;
			if (sentry_stage_one(sfd, dfd, e->d_name, err) < 0) {
				closedir(d);
				return -1;
			}
			/* The index from the pack's own bytes, never the agent's (no
			 * --strict: links into packs not staged yet are the host
			 * fetch's to check). */
			path = xasprintf("%s/pack/%s", sobj, e->d_name);
			gd = xasprintf("--git-dir=%s", shadow);
			argv[0] = (char *)"git";
			argv[1] = gd;
			argv[2] = (char *)"index-pack";
			argv[3] = path;
			argv[4] = NULL;
			{
				char **env = sentry_git_env();

				lz_strv_push(&env, "GIT_CONFIG_NOSYSTEM=1");
				lz_strv_push(&env, "GIT_CONFIG_GLOBAL=/dev/null");
				if (sentry_run(argv, env, "git index-pack", NULL, &st, err) < 0) {
					lz_strv_free(env);
					closedir(d);
					return -1;
				}
				lz_strv_free(env);
			}
			if (st != 0) {
				/* Not a pack git can read: leave it out of the stage. */
				(void)unlinkat(dfd, e->d_name, 0);
				(void)unlinkat(dfd, idx, 0);
				(*bad_packs)++;
			}
		}
		closedir(d);
	}
	return 0;
}

/* The shadow gitdir's fixed files: config, HEAD, the one alternates line. */
static int
sentry_shadow_write(const char *shadow, const char *g, unsigned hexlen, lz_err_t *err)
{
	_cleanup_close_ int fd = -1, info = -1;
	_cleanup_free_ char *alt = xasprintf("%s/objects\n", g);
	const char *cfg = hexlen == 64 ?
	    "[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n"
	    "\tobjectFormat = sha256\n" :
	    "[core]\n\trepositoryformatversion = 0\n\tbare = true\n";

	if (sentry_mkdirs("", shadow + 1, 0700, err) < 0 ||
	    (fd = open(shadow, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return fd < 0 ? lz_err_sys(err, errno, "shadow gitdir '%s'", shadow) : -1;
	if (sentry_write_at(fd, "config", cfg, strlen(cfg), 0600, err) < 0 ||
	    sentry_write_at(fd, "HEAD", "ref: refs/lazaret/main\n", 23, 0600, err) < 0)
		return -1;
	close(sentry_open_dir_at(fd, "refs", true, NULL));
	if ((info = sentry_open_dir_at(fd, "objects/info", true, err)) < 0)
		return -1;
	return sentry_write_at(info, "alternates", alt, strlen(alt), 0600, err);
}

static uint64_t
sentry_fp_mix(uint64_t h, const struct stat *st)
{
	uint64_t v[4] = { (uint64_t)st->st_ino, (uint64_t)st->st_size,
	    (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec };
	size_t i;

	for (i = 0; i < 4; i++)
		h = (h ^ v[i]) * 0x100000001b3ULL;
	return h;
}

static int
sentry_fp_cb(int dirfd, const char *name, const char *rel, const struct stat *st, void *arg,
    lz_err_t *err)
{
	uint64_t *h = arg;

	(void)dirfd;
	(void)name;
	(void)rel;
	(void)err;
	*h = sentry_fp_mix(*h, st);
	return SENTRY_WALK_INTO;
}

/* FNV-style fingerprint of the agent's refs: every entry under priv/refs,
 * packed-refs and HEAD (inode, size, mtime), the walk bounded. */
uint64_t
sentry_refs_fingerprint(const char *priv)
{
	static const char *const files[] = { "HEAD", "packed-refs" };
	_cleanup_free_ char *refs = xasprintf("%s/refs", priv);
	uint64_t h = 0xcbf29ce484222325ULL;
	struct stat st;
	size_t i;

	for (i = 0; i < 2; i++) {
		_cleanup_free_ char *f = xasprintf("%s/%s", priv, files[i]);

		if (lstat(f, &st) == 0)
			h = sentry_fp_mix(h, &st);
	}
	(void)sentry_walk(refs, SENTRY_REFS_MAX * 2, 0, sentry_fp_cb, &h, NULL, NULL);
	return h;
}

int
sentry_import_run(const struct anchor *a, const struct sentry_paths *p,
    const struct sentry_repo *r, char **report, lz_err_t *err)
{
	_cleanup_free_ char *pobj = xasprintf("%s/objects", p->priv);
	_cleanup_free_ char *sobj = xasprintf("%s/objects", p->shadow);
	_cleanup_free_ char *main_ref = xasprintf("refs/heads/%s", a->branch);
	_cleanup_free_ char *fp = NULL, *last = NULL, *refused = NULL;
	_cleanup_free_ char *fpf = xasprintf("%s/imported", p->sdir);
	_cleanup_close_ int sfd = -1, lock = -1;
	struct sentry_refs refs;
	size_t i, bad_packs = 0;
	int ret = -1;

	/* Nothing changed since the last import: nothing to do. */
	fp = xasprintf("%016llx\n", (unsigned long long)sentry_refs_fingerprint(p->priv));
	if (sentry_read_small(fpf, &last, NULL) == 0 && strncmp(last, fp, 16) == 0)
		return 0;
	if (sentry_refs_read(p->priv, r->hexlen, &refs, err) < 0)
		return -1;
	if (sentry_shadow_write(p->shadow, r->common, r->hexlen, err) < 0 ||
	    sentry_stage(pobj, p->shadow, sobj, r->hexlen, &bad_packs, err) < 0)
		goto out;
	/* The shadow's names: the agent's main line at refs/lazaret/main. */
	for (i = 0; i < refs.n; i++)
		if (strcmp(refs.v[i].name, main_ref) == 0) {
			free(refs.v[i].name);
			refs.v[i].name = xstrdup("refs/lazaret/main");
		}
	if ((sfd = open(p->shadow, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		lz_err_sys(err, errno, "shadow gitdir '%s'", p->shadow);
		goto out;
	}
	if (sentry_import_lock(p->dr, true, SENTRY_LOCK_MS, &lock, err) < 0 ||
	    sentry_fetch_refs(r->common, p->shadow, sfd, a, sentry_object_cap(p), &refs,
	    &refused, err) < 0) {
		lz_err_wrap(err, "the agent's commits were not imported");
		goto out;
	}
	if (sentry_write_file(fpf, fp, 0600, err) < 0)
		goto out;
	if (report != NULL && (refs.skipped > 0 || bad_packs > 0))
		*report = xasprintf("import left out %zu ref(s) of the agent's (first: %s) and "
		    "%zu unreadable pack(s)", refs.skipped,
		    refs.first_skipped != NULL ? refs.first_skipped : "-", bad_packs);
	if (report != NULL && refused != NULL)
		sentry_notice_add(report, lz_steal_ptr(&refused));
	ret = 0;
out:
	sentry_refs_clear(&refs);
	return ret;
}

/* The cap sentry_object_cap_set (sentry.c) recorded, read where every import
 * uses it; the default when none was written. */
uint64_t
sentry_object_cap(const struct sentry_paths *p)
{
	return sentry_object_cap_of(p->dr);
}

uint64_t
sentry_object_cap_of(const char *domain_root)
{
	_cleanup_free_ char *f = xasprintf("%s/sentry/git-object-cap", domain_root), *v = NULL;
	char *end;
	unsigned long long cap;

	if (sentry_read_small(f, &v, NULL) < 0)
		return CFG_LIMIT_GIT_OBJECT_DEFAULT;
	errno = 0;
	cap = strtoull(v, &end, 10);
	if (errno != 0 || end == v || (*end != '\n' && *end != '\0'))
		return CFG_LIMIT_GIT_OBJECT_DEFAULT;
	return cap;
}
