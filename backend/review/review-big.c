/* review-big.c - files of the agent checkout too big to read for review.
 *
 * A file the agent writes costs the host what git spends on it: git add
 * hashes and deflates every byte (a 1.2 GB zero file: over a minute of
 * host CPU for each lazaret diff). Files larger than limits.git_object
 * (sentry_object_cap: the import leaves such blobs out too) are never
 * read: found by size (lstat), left out of git add, and stood for in the
 * review's tree by a short placeholder blob that says so, so that every
 * view (diff, stat, surface, the workbench) shows the path as changed,
 * never as unchanged. The walk skips .git directories and is bounded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "review/review-big.h"
#include "strv.h"
#include "xmalloc.h"

#define REVIEW_BIG_ENTRIES 200000	/* entries walked, then stop looking */
#define REVIEW_BIG_DEPTH 64

struct review_big_walk {
	uint64_t cap;
	size_t seen;
	struct review_big *b;
};

static void
review_big_dir(struct review_big_walk *w, int dfd, const char *rel, int depth)
{
	struct dirent *e;
	DIR *d;

	if (depth > REVIEW_BIG_DEPTH || (d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return;
	}
	while ((e = readdir(d)) != NULL && w->seen < REVIEW_BIG_ENTRIES &&
	    w->b->n < REVIEW_BIG_MAX) {
		_cleanup_free_ char *path = NULL;
		struct stat st;
		int fd;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, ".git") == 0)
			continue;
		w->seen++;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		path = rel[0] == '\0' ? xstrdup(e->d_name) : xasprintf("%s/%s", rel, e->d_name);
		if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > w->cap) {
			lz_strv_push(&w->b->paths, path);
			w->b->sizes = xreallocarray(w->b->sizes, w->b->n + 1, sizeof *w->b->sizes);
			w->b->sizes[w->b->n++] = (uint64_t)st.st_size;
		} else if (S_ISDIR(st.st_mode) && (fd = openat(dirfd(d), e->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
			review_big_dir(w, fd, path, depth + 1);
	}
	closedir(d);
}

int
review_big_find(const char *top, uint64_t cap, struct review_big *b, lz_err_t *err)
{
	struct review_big_walk w = { cap, 0, b };
	int fd;

	memset(b, 0, sizeof *b);
	b->cap = cap;
	if (cap == 0)
		return 0;
	if ((fd = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return lz_err_sys(err, errno, "the agent checkout %s", top);
	review_big_dir(&w, fd, "", 0);
	if (b->n >= REVIEW_BIG_MAX) {
		review_big_clear(b);
		return lz_err_set(err, EFBIG, "the agent checkout %s holds more than %d files "
		    "over limits.git_object: not reviewed", top, REVIEW_BIG_MAX);
	}
	return 0;
}

char *
review_big_text(const struct review_big *b, size_t i)
{
	_cleanup_free_ char *cap = cfg_size_text(b->cap);

	return xasprintf("lazaret: not read for review: %llu bytes, over limits.git_object "
	    "(%s)\n", (unsigned long long)b->sizes[i], cap);
}

void
review_big_clear(struct review_big *b)
{
	lz_strv_free(b->paths);
	free(b->sizes);
	memset(b, 0, sizeof *b);
}
