/* client.h - the CLI side of the control socket: hold-to-bind start of the
 * coordinator (spec 4.3 Step 1), HELLO, blocking frame I/O and the Session
 * Anchor. The attached session loop of `lazaret run` is client-run.h. */
#ifndef LZ_CLIENT_H
#define LZ_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "anchor.h"
#include "err.h"
#include "proto.h"

/* How long a leader waits for a coordinator it spawned to accept (spec: 10 s
 * for the socket; container creation comes before it). A working coordinator
 * says it is ready or why not, one that dies closes the pipe: this bounds a
 * hung one only (twenty domains with sidecars starting at once on two cores
 * took over 20 s). */
#define CLIENT_START_TIMEOUT_MS	120000

struct client {
	int fd;
	struct proto_buf in;
	size_t consumed;	/* bytes of in already handed out */
	pid_t coord_pid;	/* from the coordinator's HELLO */
};

/* What the leader passes to a coordinator it starts. */
struct client_start {
	const char *mode;	/* "isolated" or "direct" */
	bool allow_unsafe;	/* --allow-unsafe-workspace */
};

/* Connect to the coordinator of a and exchange HELLO. With start != NULL,
 * start the coordinator if none is running (hold-to-bind: the leader spawns
 * and holds the lock until the socket accepts; followers wait for the lock).
 * With start NULL, fail with err->code ENOENT when none runs (a stale socket
 * is removed). */
int client_connect(const struct anchor *a, const struct client_start *start,
    struct client **out, lz_err_t *err);
void client_free(struct client *);

/* Connect to the control socket at path (no start) and exchange HELLO; err
 * code ENOENT/ECONNREFUSED when nobody serves it. */
int client_connect_path(const char *path, struct client **out, lz_err_t *err);
/* Is the coordinator serving socket path alive (its lifetime lock held)? */
bool client_socket_alive(const char *ctl_path);
/* Remove a socket file nobody serves (only a socket, only ours). */
void client_unlink_stale(const char *path);

/* Write every frame in b (b is emptied). */
int client_send(struct client *, struct proto_buf *b, lz_err_t *err);
/* Wait up to timeout_ms (-1: forever) for the next frame; payload stays valid
 * until the next call. ERROR frames are returned like any other. Returns 1
 * with a frame, 0 on EOF, -1 on error or timeout (err->code ETIMEDOUT). */
int client_recv(struct client *, int timeout_ms, struct proto_header *h,
    const uint8_t **payload, lz_err_t *err);
/* Send b and wait up to timeout_ms for one frame of type want: 0 with *h and
 * *payload, or -1 (an ERROR frame becomes err; EOF gives code EAGAIN). */
int client_request(struct client *, struct proto_buf *b, uint16_t want, int timeout_ms,
    struct proto_header *h, const uint8_t **payload, lz_err_t *err);
/* One read(2) into c->in without handing frames out (the escalation prompt
 * watches for ESC_WITHDRAWN): bytes read, 0 on EOF, -1 on error. */
ssize_t client_fill(struct client *, lz_err_t *err);
/* The next whole frame already in c->in (payload valid until the next
 * call): 1, 0 when there is none yet, -1 on a bad frame. */
int client_next(struct client *, struct proto_header *h, const uint8_t **payload,
    lz_err_t *err);
/* write(2) all of buf to fd (waiting out EAGAIN); -1 with errno. */
int client_write_all(int fd, const void *buf, size_t len);
/* A listing: send b, then hand each frame to cb until OK (with follow, until
 * the coordinator closes); an ERROR frame becomes err. Output is flushed at
 * OK, and after every frame when following. */
typedef void (*client_frame_cb)(const struct proto_header *h, const uint8_t *payload,
    void *arg);
int client_stream(struct client *, struct proto_buf *b, bool follow, client_frame_cb cb,
    void *arg, lz_err_t *err);
/* Turn an ERROR payload into err; returns -1. */
int client_error_frame(const uint8_t *payload, size_t len, lz_err_t *err);

/* Ask the coordinator for the configuration it runs (effcfg.h) and compare
 * it with ours (of profile, to name its keys): *lines (NULL when they agree; lz_strv_free) says what differs;
 * *running (may be NULL) gets its text. -1 with err when it could not be
 * asked (an older coordinator). */
int client_config_diff(struct client *, const char *ours, const char *profile, char ***lines,
    char **running, lz_err_t *err);

/* Is a coordinator of a alive (its lifetime lock held)? */
bool client_coordinator_alive(const struct anchor *a);
/* Wait up to timeout_ms for the coordinator of a to exit; 0 when gone. */
int client_wait_coordinator_exit(const struct anchor *a, int timeout_ms, lz_err_t *err);
/* The same for the coordinator serving control socket ctl_path. */
int client_wait_exit_path(const char *ctl_path, int timeout_ms, lz_err_t *err);

/* Append ESC_NEW_SESSION for ns to b with a fresh Session Anchor (the key
 * signs the sandbox's delegated credential and is wiped); `lazaret run`
 * and the workbench create their sessions so. */
int client_anchor_new_session(struct proto_buf *b, const struct proto_new_session *ns,
    lz_err_t *err);

#endif
