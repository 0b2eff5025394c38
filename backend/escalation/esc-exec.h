/* esc-exec.h - the only code that runs a command on the host (spec 5.x).
 *
 * An approved escalation runs as an argv through posix_spawn: no shell, the
 * file policy_which() resolved (argv[0] unchanged), stdin /dev/null, its own
 * session and process group, stdout and stderr on pipes handed to output_cb
 * as they come, and a minimal environment: PATH (the policy's), HOME, LANG and TERM
 * (dumb: the output goes to a pipe and back over a socket, not to a
 * terminal). The cwd is a directory fd (esc-cwd.c), entered by fd in the
 * child (esc-spawn.c); the path in cwd is only named in messages.
 */
#ifndef LZ_ESC_EXEC_H
#define LZ_ESC_EXEC_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "err.h"

struct esc_exec;

struct esc_exec_opts {
	const char *file;	/* absolute path to exec (policy_which) */
	char *const *argv;	/* NULL-terminated; argv[0] as requested */
	const char *cwd;	/* canonical host directory (for messages) */
	int dir_fd;		/* that directory, opened beneath the workspace */
	const char *path;	/* PATH for the child */
	const char *home;	/* HOME for the child */
};

struct esc_exec_cbs {
	/* stream 1 stdout, 2 stderr; buf valid during the call. */
	void (*output_cb)(struct esc_exec *, uint8_t stream, const uint8_t *buf, size_t len,
	    void *arg);
	/* Exited and both pipes drained (once). status: exit status or
	 * 128+signal. The exec is freed after this returns. */
	void (*done_cb)(struct esc_exec *, int status, int64_t duration_ms, uint64_t out_bytes,
	    void *arg);
};

/* Spawn. On failure nothing runs, no handle was made and no callback comes. */
int esc_exec_start(uv_loop_t *loop, const struct esc_exec_opts *o, const struct esc_exec_cbs *cbs,
    void *arg, struct esc_exec **out, lz_err_t *err);
/* Stop reading output (the sandbox reads slower) or resume. */
void esc_exec_pause(struct esc_exec *, bool paused);
/* SIGTERM the process group; SIGKILL 2 s later if it is still there.
 * done_cb still comes. */
void esc_exec_kill(struct esc_exec *);
/* The process id (for logs). */
int esc_exec_pid(const struct esc_exec *);

#endif
