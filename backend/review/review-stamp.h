/* review-stamp.h - a cheap fingerprint of files by their inode data, so
 * the review gate can tell "nothing changed since the last check" without
 * running git (see review-stamp.c for why that is safe).
 */
#ifndef LZ_REVIEW_STAMP_H
#define LZ_REVIEW_STAMP_H

#include <sodium.h>
#include <stdbool.h>
#include <stdint.h>

#define REVIEW_STAMP_DEPTH	128	/* deeper trees are not stamped (no cache) */
#define REVIEW_STAMP_CLOCKS	4	/* filesystems with their own clock, at most */

struct review_stamp {
	crypto_generichash_state h;
	int64_t fresh_ns;	/* a ctime at or after this is too recent to trust */
	struct { uint64_t dev; int64_t ns; } clock[REVIEW_STAMP_CLOCKS];
	int n_clock;
	bool unsure;		/* something could not be stamped */
	bool recent;		/* something changed too recently */
};

/* Start a stamp; changes younger than margin_ms make it unsure. */
void review_stamp_init(struct review_stamp *, int64_t margin_ms);
/* Before adding paths: read the clock of dir's filesystem (the ctime of an
 * unnamed O_TMPFILE there). An entry on that filesystem is then too recent
 * only if its ctime is not older than that clock, whatever the timestamp
 * granularity, instead of within margin_ms of now. Without O_TMPFILE there
 * (or elsewhere), the margin holds. */
void review_stamp_clock(struct review_stamp *, const char *dir);
#define REVIEW_STAMP_TREE	1	/* a directory: everything beneath it too */
#define REVIEW_STAMP_NO_GIT	2	/* and not its own .git (its subdirectories' yes) */

/* Add path's lstat (a missing path counts as such); flags REVIEW_STAMP_*. */
void review_stamp_add(struct review_stamp *, const char *path, int flags);
/* Add bytes (a name, a setting) to the stamp. */
void review_stamp_bytes(struct review_stamp *, const void *p, size_t n);
/* The stamp; false when it is unsure or too recent (then it must not be
 * trusted). */
bool review_stamp_final(struct review_stamp *, uint8_t out[32]);
/* After review_stamp_final said false: only because of a change too recent
 * (a stamp taken again with the filesystem's clock may be sure). */
bool review_stamp_only_recent(const struct review_stamp *);

#endif
