/* diff-follow.h - lazaret diff --follow: wait for the host repository's
 * refs to change (inotify), without polling git. */
#ifndef LZ_DIFF_FOLLOW_H
#define LZ_DIFF_FOLLOW_H

#include "err.h"

struct diff_follow;
/* Watch common (the host's common git dir: packed-refs) and its
 * refs/heads/lazaret (the import's branches; made when missing). */
int diff_follow_open(const char *common, struct diff_follow **out, lz_err_t *err);
/* Block until something there changed (then a quiet 100 ms, so one import
 * is one wake-up): 1, or 0 when timeout_ms (-1: none) passed first; -1 on
 * error. */
int diff_follow_wait(struct diff_follow *, int timeout_ms, lz_err_t *err);
void diff_follow_free(struct diff_follow *);

#endif
