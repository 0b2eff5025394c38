/* lock.h - advisory locks for hold-to-bind (spec 4.3 Step 1) and for the
 * coordinator's lifetime (spec 4.4.4: the kernel detects a dead coordinator).
 *
 * flock(2) locks belong to the open file description: they die with the
 * process, including on SIGKILL, which is what makes a stale socket
 * recognisable. */
#ifndef LZ_LOCK_H
#define LZ_LOCK_H

#include "anchor.h"
#include "err.h"

/* Open (creating it 0600) the lock file at path without following a symlink,
 * close-on-exec, and check that it is a regular file owned by us with no
 * group/other access: another user could have pre-created it. *fd is the
 * open descriptor (close it to drop any lock). */
int lock_open(const char *path, int *fd, lz_err_t *err);
/* Try LOCK_EX without blocking: 1 taken, 0 held by another, -1 error. */
int lock_try(int fd, lz_err_t *err);
/* Wait up to timeout_ms for LOCK_EX: 1 taken, 0 timed out, -1 error. */
int lock_wait(int fd, int timeout_ms, lz_err_t *err);
/* LOCK_UN (the descriptor stays open). */
void lock_release(int fd);

/* The lifetime lock of the coordinator of a (held while it lives, and by its
 * guard while it cleans up): <socket_dir>/<H>.lock. Caller frees. */
char *lock_live_path(const struct anchor *a);

#endif
