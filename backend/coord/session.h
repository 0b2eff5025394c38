/* session.h - one shell or command in the sandbox (DESIGN "Sessions and PTYs").
 *
 * A session is the exec process the coordinator spawned (`runsc exec`
 * through sandbox/podman/rexec.c, or `podman exec`), either on a PTY the
 * coordinator owns (tty sessions: the exec reads its window size from that
 * terminal) or on three pipes (no terminal: stdin, stdout and stderr stay
 * apart, EOF is forwarded). The session reads the output, feeds the
 * session's screen (if the coordinator gave it one) and hands it to
 * output_cb; who receives it is the coordinator's business (the clients in
 * `clients`).
 */
#ifndef LZ_SESSION_H
#define LZ_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "err.h"

struct session;
struct ctl_server_client;

struct session_cbs {
	/* Output bytes (PROTO_STREAM_OUT or _ERR); valid during the call. */
	void (*output_cb)(struct session *, uint8_t stream, const uint8_t *buf, size_t len,
	    void *arg);
	/* The process has exited and its output is drained (called once). */
	void (*exit_cb)(struct session *, void *arg);
	/* Input queued for the process crossed SESSION_IN_HIGH (full: stop
	 * reading the clients) or fell below SESSION_IN_LOW again. May be NULL. */
	void (*input_cb)(struct session *, bool full, void *arg);
};

#define SESSION_IN_HIGH	(1u << 20)
#define SESSION_IN_LOW	(256u << 10)

struct session_opts {
	uint32_t id;
	const char *uuid;	/* LAZARET_SESSION_ID (32 hex chars) */
	char **exec_argv;	/* what to spawn (podman exec ...) */
	const char *command;	/* for status: the command as the user gave it */
	bool tty;
	uint16_t rows, cols;
	/* Text the spawned process reads on its fd 3, through a pipe: the
	 * session credential (podman exec --env-file=/dev/fd/3) or runsc exec's
	 * whole process description holding it; so it is on no command line.
	 * NULL: no fd 3. */
	const char *fd3;
	/* The process is the runtime's exec itself (driver.h direct_exec): a
	 * tty session's PTY is its controlling terminal, so the kernel sends it
	 * SIGWINCH and the terminal's signals, and it forwards them inside. */
	bool direct;
};

/* The coordinator's copy of a tty session's screen (screen.h); NULL for
 * pipe sessions. Owned by the coordinator. */
struct screen;

struct session {
	uint32_t id;
	char uuid[33];		/* LAZARET_SESSION_ID */
	char *command;
	bool tty;
	pid_t pid;
	int64_t started_ms;
	uint64_t last_out_ms;	/* uv_now of its last output (the dashboard's quiet) */
	bool exited;
	int status;		/* exit status, or 128+signal; valid once exited */
	struct ctl_server_client **clients;	/* attached (not owned) */
	size_t n_clients;
	struct ctl_server_client *owner;	/* ends the session when it leaves */
	struct screen *screen;
	void *data;		/* the coordinator's */

	/* private */
	int refs;
	uv_loop_t *loop;
	struct session_cbs cbs;
	void *arg;
	uv_process_t proc;
	uv_pipe_t out;		/* PTY master (read+write) or stdout pipe */
	uv_pipe_t err;		/* stderr pipe (pipe sessions) */
	uv_pipe_t in;		/* stdin pipe (pipe sessions) */
	uv_timer_t timer;	/* drain deadline after exit; SIGKILL after SIGTERM */
	uv_timer_t tick;	/* feeds the screen what it holds back */
	int master;
	int open_handles;
	bool out_eof, err_eof, in_closed;
	bool paused;
	bool in_full;		/* input_cb(full) told, not yet undone */
	bool done;		/* exit_cb delivered */
	bool closing;
	bool killing;
	bool direct;		/* session_opts.direct */
};

/* Spawn opts->exec_argv (own session, setsid)
 * and start reading. On success *out holds one reference. */
int session_start(uv_loop_t *loop, const struct session_opts *opts,
    const struct session_cbs *cbs, void *arg, struct session **out, lz_err_t *err);
/* Input for the process (tty: to the PTY master; else its stdin). */
void session_write(struct session *, const uint8_t *buf, size_t len);
/* Lazaret's own line in a tty session's output (screen and clients), as
 * if the program had printed it; nothing for pipe or ended sessions. */
void session_notice(struct session *, const char *text);
/* End of input: closes stdin of a pipe session, sends ^D (VEOF) to a tty one. */
void session_eof(struct session *);
/* Set the PTY size; podman exec is told with a SIGWINCH, a direct exec by
 * the kernel (its controlling terminal). */
int session_resize(struct session *, uint16_t rows, uint16_t cols, lz_err_t *err);
/* Stop reading output (a client is backed up) or resume. */
void session_pause(struct session *, bool paused);
/* SIGTERM the process (a direct tty one a SIGHUP first, as a terminal that
 * goes away: an interactive shell ignores SIGTERM), SIGKILL 2 s later if it
 * is still there. Its status then reads 128+SIGTERM. */
void session_kill(struct session *);
/* The sandbox is torn down next: end the session without signalling the
 * command (it dies with the sandbox, as it did under podman exec): a direct
 * exec is SIGKILLed, podman exec gets session_kill. Status 128+SIGTERM. */
void session_end(struct session *);
/* Close every handle; the session is freed when they are closed and the last
 * reference is gone. */
void session_close(struct session *);
void session_ref(struct session *);
void session_unref(struct session *);

/* Attached clients. */
void session_attach(struct session *, struct ctl_server_client *);
void session_detach(struct session *, struct ctl_server_client *);
bool session_has_client(const struct session *, const struct ctl_server_client *);

#endif
