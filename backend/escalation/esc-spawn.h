/* esc-spawn.h - start one host command in a directory given by fd.
 *
 * libuv's uv_spawn takes a cwd path only, and entering a path again after it
 * was checked is the race that let a swapped symlink lead out of the
 * workspace. glibc's posix_spawn (2.36 here) enters the fd instead
 * (posix_spawn_file_actions_addfchdir_np), closes every other fd
 * (addclosefrom_np), makes a new session and resets signals, and reports an
 * exec failure (a missing interpreter: ENOENT) synchronously, in the call.
 * The caller watches SIGCHLD (a uv_signal_t) and reaps with esc_spawn_reap:
 * libuv's own SIGCHLD handler waits only for its own children, so nothing
 * else reaps this one and its pid stays ours until then. (No pidfd: valgrind
 * 3.19, which runs these tests, knows neither pidfd_open nor openat2.)
 */
#ifndef LZ_ESC_SPAWN_H
#define LZ_ESC_SPAWN_H

#include <sys/types.h>

#include "err.h"

struct esc_spawn_opts {
	const char *file;	/* absolute path, run as is */
	char *const *argv;
	char *const *env;
	int dir_fd;		/* fchdir'ed in the child */
	int out_fd, err_fd;	/* become 1 and 2; 0 is /dev/null */
};

/* Start; *pid on success. */
int esc_spawn(const struct esc_spawn_opts *, pid_t *pid, lz_err_t *err);
/* Reap pid if it exited: its exit status, or 128 + signal; -1 while it runs. */
int esc_spawn_reap(pid_t pid);

#endif
