/* review-stamp.c - fingerprint a file tree by lstat data (review-stamp.h).
 *
 * Theory of operation. Every entry beneath a directory (lstat, not
 * followed) contributes its name, depth, mode, inode, device, size, mtime
 * and ctime to a BLAKE2b hash. Any change to a file's bytes, mode, name or
 * links sets its ctime (and a new entry its parent's), and ctime cannot be
 * set from user space, so an equal stamp means unchanged files, with one
 * hole git's index has too (racy git): a change within the timestamp
 * granularity of the previous stamp keeps ctime equal. So an entry whose
 * ctime is less than margin old (or in the future) makes the stamp unsure,
 * as does anything that cannot be read (an unreadable directory hides its
 * entries): an unsure stamp is never used as a cache key.
 *
 * The margin is a guess at the granularity. Where the filesystem's own
 * clock was read first (review_stamp_clock: a new inode's ctime, c0), the
 * bound is exact, as git's racy check against its index file's mtime is:
 * a change after c0 was read gets a ctime >= c0 (the clock is monotonic),
 * so an entry whose ctime is < c0 shows any later change; one at or after
 * c0 is unsure. Only entries with the clock's st_dev use it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "review/review-stamp.h"

/* What one entry contributes (fixed layout, hashed as bytes). */
struct review_stamp_ent {
	uint64_t ino, dev, size;
	int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
	uint32_t mode, depth, err, namelen;
};

void
review_stamp_init(struct review_stamp *s, int64_t margin_ms)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	crypto_generichash_init(&s->h, NULL, 0, 32);
	s->fresh_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - margin_ms * 1000000;
	s->n_clock = 0;
	s->unsure = false;
	s->recent = false;
}

void
review_stamp_clock(struct review_stamp *s, const char *dir)
{
	struct stat st;
	int fd;

	if (s->n_clock == REVIEW_STAMP_CLOCKS)
		return;
	/* Unnamed: the directory does not change, nobody can open it. */
	if ((fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) < 0)
		return;
	if (fstat(fd, &st) == 0) {
		s->clock[s->n_clock].dev = st.st_dev;
		s->clock[s->n_clock].ns = (int64_t)st.st_ctim.tv_sec * 1000000000 +
		    st.st_ctim.tv_nsec;
		s->n_clock++;
	}
	close(fd);
}

/* Is a ctime of ns on dev too recent to prove that a later change shows? */
static bool
review_stamp_fresh(const struct review_stamp *s, uint64_t dev, int64_t ns)
{
	int i;

	for (i = 0; i < s->n_clock; i++)
		if (s->clock[i].dev == dev)
			return ns >= s->clock[i].ns;
	return ns >= s->fresh_ns;
}

void
review_stamp_bytes(struct review_stamp *s, const void *p, size_t n)
{
	uint64_t len = n;

	crypto_generichash_update(&s->h, (const unsigned char *)&len, sizeof len);
	crypto_generichash_update(&s->h, p, n);
}

static void
review_stamp_ent(struct review_stamp *s, const char *name, unsigned depth, const struct stat *st,
    int err)
{
	struct review_stamp_ent e = { 0 };

	e.depth = depth;
	e.err = (uint32_t)err;
	e.namelen = (uint32_t)strlen(name);
	if (st != NULL) {
		e.ino = st->st_ino;
		e.dev = st->st_dev;
		e.size = (uint64_t)st->st_size;
		e.mode = st->st_mode;
		e.mtime_s = st->st_mtim.tv_sec;
		e.mtime_ns = st->st_mtim.tv_nsec;
		e.ctime_s = st->st_ctim.tv_sec;
		e.ctime_ns = st->st_ctim.tv_nsec;
		if (review_stamp_fresh(s, e.dev, e.ctime_s * 1000000000 + e.ctime_ns))
			s->recent = true;
	}
	crypto_generichash_update(&s->h, (const unsigned char *)&e, sizeof e);
	crypto_generichash_update(&s->h, (const unsigned char *)name, e.namelen);
}

/* Entries of the open directory fd (consumed), depth first. */
static void
review_stamp_dir(struct review_stamp *s, int fd, unsigned depth, bool skip_git)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	struct stat st;
	int cfd;

	if (d == NULL) {
		close(fd);
		s->unsure = true;
		return;
	}
	for (errno = 0; (de = readdir(d)) != NULL; errno = 0) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    (skip_git && strcmp(de->d_name, ".git") == 0))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			review_stamp_ent(s, de->d_name, depth, NULL, errno);
			s->unsure = true;
			continue;
		}
		review_stamp_ent(s, de->d_name, depth, &st, 0);
		if (!S_ISDIR(st.st_mode))
			continue;
		if (depth >= REVIEW_STAMP_DEPTH || (cfd = openat(dirfd(d), de->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			s->unsure = true;
			continue;
		}
		review_stamp_dir(s, cfd, depth + 1, false);
		review_stamp_ent(s, "/", depth, NULL, 0);	/* end of the directory */
	}
	if (errno != 0)
		s->unsure = true;
	closedir(d);
}

void
review_stamp_add(struct review_stamp *s, const char *path, int flags)
{
	struct stat st;
	int fd;

	review_stamp_bytes(s, path, strlen(path));
	if (lstat(path, &st) < 0) {
		review_stamp_ent(s, "", 0, NULL, errno);
		if (errno != ENOENT)
			s->unsure = true;
		return;
	}
	review_stamp_ent(s, "", 0, &st, 0);
	/* A tree behind a symlink: git follows it, the stamp would not. */
	if ((flags & REVIEW_STAMP_TREE) && S_ISLNK(st.st_mode))
		s->unsure = true;
	if (!(flags & REVIEW_STAMP_TREE) || !S_ISDIR(st.st_mode))
		return;
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		s->unsure = true;
		return;
	}
	review_stamp_dir(s, fd, 1, (flags & REVIEW_STAMP_NO_GIT) != 0);
}

bool
review_stamp_final(struct review_stamp *s, uint8_t out[32])
{
	crypto_generichash_final(&s->h, out, 32);
	return !s->unsure && !s->recent;
}

bool
review_stamp_only_recent(const struct review_stamp *s)
{
	return s->recent && !s->unsure;
}
