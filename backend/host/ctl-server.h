/* ctl-server.h - the coordinator's control socket (DESIGN "Control protocol").
 *
 * Listens on <socket_dir>/<H>.ctl, accepts clients of our own uid, cuts the
 * byte stream into frames (proto.h), answers HELLO, version mismatches,
 * malformed frames and unknown types itself, and hands every other frame to
 * the coordinator. Writes are queued per client; the queue size is what the
 * coordinator uses for back-pressure.
 */
#ifndef LZ_CTL_SERVER_H
#define LZ_CTL_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "err.h"
#include "proto.h"

/* A client's write queue above this pauses the PTYs feeding it; below the low
 * mark they resume. */
#define CTL_SERVER_HIGH_WATER	(1u << 20)
#define CTL_SERVER_LOW_WATER	(256u << 10)

struct ctl_server;

struct ctl_server_client {
	uv_pipe_t pipe;
	struct ctl_server *srv;
	int refs;
	uint32_t id;		/* per coordinator, for logs */
	bool hello;		/* HELLO exchanged */
	bool closing;
	bool paused;		/* not reading: a session's input is backed up */
	pid_t pid;		/* peer credentials (SO_PEERCRED) */
	uid_t uid;
	struct proto_buf in;	/* bytes not yet a whole frame */
	size_t queued;		/* bytes written, not yet completed */
	void *data;		/* the coordinator's per-client state */
	struct ctl_server_client *next;
};

struct ctl_server_cbs {
	/* HELLO accepted: the client is live. */
	void (*connect_cb)(struct ctl_server_client *, void *arg);
	/* A frame of a known type other than HELLO; payload is valid during the call. */
	void (*frame_cb)(struct ctl_server_client *, const struct proto_header *,
	    const uint8_t *payload, void *arg);
	/* The client is going away (called once, only after connect_cb). */
	void (*disconnect_cb)(struct ctl_server_client *, void *arg);
	/* The write queue fell below CTL_SERVER_LOW_WATER. */
	void (*drain_cb)(struct ctl_server_client *, void *arg);
};

/* Create dir (and missing parents) 0700 when create is set, then check with
 * lstat that it is a directory owned by us with no group/other access. */
int ctl_server_dir_check(const char *dir, bool create, lz_err_t *err);

/* Bind path under umask 077 (a stale socket file there is removed: the caller
 * holds the coordinator's lifetime lock) and listen. Paths longer than
 * sun_path are refused. */
int ctl_server_listen(uv_loop_t *loop, const char *path, const struct ctl_server_cbs *cbs,
    void *arg, struct ctl_server **out, lz_err_t *err);
/* Stop listening and unlink the socket; connected clients stay. Idempotent. */
void ctl_server_stop(struct ctl_server *);
/* Stop and close every client (their queued writes are flushed first). */
void ctl_server_shutdown(struct ctl_server *);
/* Free the server; its handles must be closed and the loop run out. */
void ctl_server_free(struct ctl_server *);
/* Live clients (after HELLO, not closing). */
size_t ctl_server_clients(const struct ctl_server *);

/* Queue every frame in b on the client; b is emptied. */
void ctl_server_send(struct ctl_server_client *, struct proto_buf *b);
void ctl_server_send_error(struct ctl_server_client *, uint32_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Stop (or resume) reading the client's frames: back-pressure on input. */
void ctl_server_client_pause(struct ctl_server_client *, bool paused);
/* Flush what is queued, then close; disconnect_cb runs now. */
void ctl_server_client_close(struct ctl_server_client *);
void ctl_server_client_ref(struct ctl_server_client *);
void ctl_server_client_unref(struct ctl_server_client *);

#endif
