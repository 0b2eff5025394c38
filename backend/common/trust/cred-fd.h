/* cred-fd.h - the session credential inside the sandbox, kept out of every
 * environment and command line (issue 9, issue 24 item 1).
 *
 * Every session of a sandbox runs as the same uid, and gVisor shows any
 * process's /proc/<pid>/environ and cmdline to the others (PR_SET_DUMPABLE
 * does not hide them there). So the credential never enters an environment:
 * `lazaret sandbox-exec` takes it out of the exec's description and hands it
 * to the sandbox as an inherited pipe, the session's fd 3, with
 * LZ_CRED_HOLD_ENV=3 in its place; the session's first process,
 * `lazaret-escalate --hold -- COMMAND` (escalate/hold.c), reads it from there
 * and closes the pipe, and runs COMMAND with one end of an unnamed socketpair
 * as LZ_CRED_FD_ENV. lazaret-escalate asks that end for the credential with
 * a reply socket of its own attached (SCM_RIGHTS), so concurrent askers
 * never read each other's answers. What another session cannot do, checked
 * in the real sandbox (tests/integ/test-escalate-cred.sh, -scan.sh): see the
 * credential in any environ or cmdline, open a socket through
 * /proc/<pid>/fd (ENXIO), read /proc/<pid>/mem, or ptrace (Yama
 * ptrace_scope 1 in gVisor). Ways into the sandbox that cannot pass a pipe
 * (runsc exec, podman exec) get no credential at all.
 */
#ifndef LZ_CRED_FD_H
#define LZ_CRED_FD_H

#include "err.h"

#define LZ_CRED_FD_ENV	"LAZARET_ESC_FD"
#define LZ_CRED_FD_MAX	1024	/* the credential string, with room */
#define LZ_CRED_HOLD_ENV	"LAZARET_HOLD_FD"	/* the holder's inherited pipe */
#define LZ_CRED_HOLD_FD		3
/* Set instead of a credential in a session started a way that cannot keep
 * it out of the environment (runsc exec, podman exec): how it started. */
#define LZ_CRED_OFF_ENV		"LAZARET_ESC_OFF"

/* Ask the holder on fd for the credential ("lzc1.<hex>"). Caller frees. */
int lz_cred_fd_fetch(int fd, char **out, lz_err_t *err);
/* The same in two steps, so the asker can work while the holder answers:
 * the answer comes on *reply (the asker's own socket), which
 * lz_cred_fd_answer reads and closes. */
int lz_cred_fd_ask(int fd, int *reply, lz_err_t *err);
int lz_cred_fd_answer(int reply, char **out, lz_err_t *err);
/* Holder: read the credential from the pipe named by fds (LZ_CRED_HOLD_ENV's
 * value), at most LZ_CRED_FD_MAX - 1 bytes, and close it. Caller wipes and
 * frees *out. */
int lz_cred_fd_take(const char *fds, char **out, lz_err_t *err);
/* Holder: answer one request waiting on fd. 0 when served (or when what came
 * was no request), -1 when every other end is closed. */
int lz_cred_fd_serve(int fd, const char *cred);

#endif
