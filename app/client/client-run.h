/* client-run.h - the attached session of `lazaret run`: raw mode, window
 * size, signals, the exit status, and what of the sandbox's output may
 * reach the user's terminal.
 *
 * The loop is poll(2) on stdin, the control socket and a self-pipe fed by
 * the signal handlers (SIGWINCH -> RESIZE; SIGINT/SIGTERM/SIGHUP/SIGQUIT ->
 * leave). Output bound for a terminal goes through term_filter (OUTPUT): no
 * query, clipboard, title or control string of the agent reaches it, so the
 * user's terminal never answers the agent (the coordinator's screen answers
 * queries, coord/screen.h). An ESC_PROMPT frame stops forwarding while the
 * escalation prompt (prompt-run.h) is up; afterwards the screen is redrawn
 * from the coordinator's screen model (ATTACH again: SNAPSHOT). The
 * terminal's mode is restored on every exit path, atexit included.
 */
#ifndef LZ_CLIENT_RUN_H
#define LZ_CLIENT_RUN_H

#include <stdbool.h>

#include "client.h"
#include "err.h"

struct client_run_opts {
	char **argv;		/* NULL or empty: interactive shell */
	bool direct;		/* workspace mode direct */
	bool tty;		/* stdin is a terminal: raw mode and podman exec -t */
};

/* Create a session, attach, forward I/O until it ends. *status is its exit
 * status. A lost coordinator is an error (code ECONNRESET); a coordinator
 * that was shutting down gives code EAGAIN (the caller may retry). */
int client_run(struct client *, const struct client_run_opts *, int *status, lz_err_t *err);

#endif
