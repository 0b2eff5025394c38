/* cred-fd.h - the session credential inside the sandbox, kept out of every
 * environment and command line (issue 9).
 *
 * Every session of a sandbox runs as the same uid (root of the container),
 * so a credential in a session's environment could be read by any other
 * session from /proc/<pid>/environ (gVisor shows it; PR_SET_DUMPABLE does not
 * hide it there). Instead the session's first process is
 * `lazaret-escalate --hold -- COMMAND` (escalate/hold.c): it takes
 * LAZARET_CRED from its environment, overwrites it there at once (gVisor
 * reads environ from the process's memory), and runs COMMAND with one end of
 * an unnamed socketpair as LZ_CRED_FD_ENV. lazaret-escalate asks that end for
 * the credential with a reply socket of its own attached (SCM_RIGHTS), so
 * concurrent askers never read each other's answers. What another session
 * cannot do, checked in the real sandbox (tests/integ/test-escalate-cred.sh):
 * open a socket through /proc/<pid>/fd (ENXIO), read /proc/<pid>/mem, or
 * ptrace (Yama ptrace_scope 1 in gVisor).
 */
#ifndef LZ_CRED_FD_H
#define LZ_CRED_FD_H

#include "err.h"

#define LZ_CRED_FD_ENV	"LAZARET_ESC_FD"
#define LZ_CRED_FD_MAX	1024	/* the credential string, with room */

/* Ask the holder on fd for the credential ("lzc1.<hex>"). Caller frees. */
int lz_cred_fd_fetch(int fd, char **out, lz_err_t *err);
/* The same in two steps, so the asker can work while the holder answers:
 * the answer comes on *reply (the asker's own socket), which
 * lz_cred_fd_answer reads and closes. */
int lz_cred_fd_ask(int fd, int *reply, lz_err_t *err);
int lz_cred_fd_answer(int reply, char **out, lz_err_t *err);
/* Holder: answer one request waiting on fd. 0 when served (or when what came
 * was no request), -1 when every other end is closed. */
int lz_cred_fd_serve(int fd, const char *cred);

#endif
