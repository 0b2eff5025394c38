/* esc-cwd.h - the host directory an escalated command runs in, pinned by fd.
 *
 * The workspace root is opened once (esc_cwd_root); each request's directory
 * is opened from it with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so
 * no symlink and no ".." can lead out, and the child enters that fd
 * (esc-spawn.c: fchdir). Nothing enters the directory by its path again.
 */
#ifndef LZ_ESC_CWD_H
#define LZ_ESC_CWD_H

#include "err.h"

/* O_PATH fd of the workspace root directory (CLOEXEC). */
int esc_cwd_root(const char *host_root, lz_err_t *err);
/* Open rel ("" or "a/b", relative to the root) beneath root_fd without
 * following any symlink, check it is a directory and the very directory
 * (device, inode) the policy was evaluated in (checked, a host path).
 * Returns the fd (CLOEXEC), or -1 with err naming what is wrong. */
int esc_cwd_open(int root_fd, const char *rel, const char *checked, lz_err_t *err);

#endif
