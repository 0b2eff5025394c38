/* runsc-ctl.h - the messages of runsc's sandbox control socket, for a
 * session started without a runsc process (app/cmd-sandbox-exec.c).
 *
 * `runsc exec` is a 24 MB Go program: ~25-40 ms of start-up here before it
 * sends three JSON calls to the sandbox's control socket (abstract
 * "runsc-sandbox.ID"): containerManager.ExecuteAsync with the session's
 * stdio attached, containerManager.WaitPID, and containerManager.Signal for
 * each signal it forwards. Those calls are gVisor's own and change between
 * releases, so they are made only for a runsc whose version is in
 * runsc_ctl_known (what was read and tested); any other runsc keeps
 * `runsc exec` (rexec.c). Pure: bytes in, JSON text out
 * (tests/unit/test-runsc-ctl.c, tests/fuzz/fuzz-runsc-ctl.c).
 */
#ifndef LZ_RUNSC_CTL_H
#define LZ_RUNSC_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define RUNSC_CTL_REPLY_MAX	(64u << 10)	/* bytes of one reply read */
#define RUNSC_CTL_STATE_MAX	(1u << 20)	/* bytes of runsc's state file read */

/* True when `runsc --version`'s first line names a runsc whose control
 * calls are the ones built here. */
bool runsc_ctl_known(const char *version_line);

/* An environment variable moved out of the exec's environment (the session
 * credential, which the command gets on an inherited fd instead): name's
 * value goes to *value (caller: runsc_ctl_take_clear), and put, when not
 * NULL, takes its place. */
struct runsc_ctl_take {
	const char *name;
	const char *put;
	char *value;
};

/* The ExecuteAsync call for the OCI process JSON proc (what `runsc exec
 * --process` reads: args, env, cwd, terminal, user, capabilities), as
 * runsc exec converts it: capabilities as bit sets without CAP_NET_RAW,
 * the stdio sent alongside as fds 0, 1, 2 (files sent after them become
 * the command's fds 3, 4, ...). *tty: process.terminal. take (or NULL):
 * a variable moved out of the environment. Caller wipes and frees *msg. */
int runsc_ctl_exec_msg(const uint8_t *proc, size_t len, const char *cid,
    struct runsc_ctl_take *take, char **msg, bool *tty, lz_err_t *err);
/* Wipe and free take->value. */
void runsc_ctl_take_clear(struct runsc_ctl_take *take);
char *runsc_ctl_wait_msg(const char *cid, int32_t pid);
/* fg: to the foreground process group of pid's terminal (a terminal
 * session, as runsc exec forwards), else to pid itself. */
char *runsc_ctl_signal_msg(const char *cid, int32_t pid, int signo, bool fg);

/* Bytes of the first whole JSON value at buf (object, array, string or
 * scalar followed by a delimiter), 0 while incomplete. */
size_t runsc_ctl_reply_end(const char *buf, size_t len);
/* A reply {"success":B,"err":S,"result":V}: 0 with *result (canonical
 * text of V, caller frees) on success; -1 with err = the sandbox's error,
 * or what is malformed. */
int runsc_ctl_reply(const char *buf, size_t len, char **result, lz_err_t *err);
/* A result that is a whole number: surface_json_int (review/surface-json.h). */

/* runsc's state file for a container: its sandbox's id (the socket's
 * name) and the sandbox process's pid. */
int runsc_ctl_state(const uint8_t *buf, size_t len, char **sandbox_id, int64_t *pid,
    lz_err_t *err);

/* A wait status (WaitPID's result) as a shell reports it: the exit status,
 * or 128 + the signal. */
int runsc_ctl_exit_code(uint32_t status);
/* The exit status for an exec the sandbox refused, as podman exec gives
 * it: 127 for a program not found, 126 otherwise. */
int runsc_ctl_refused_code(const char *why);

#endif
