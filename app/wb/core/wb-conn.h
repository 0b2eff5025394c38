/* wb-conn.h - the workbench's connection to one Session Coordinator (one per
 * Domain Anchor; every tab of that domain shares it).
 *
 * The connection is made with client_connect() (hold-to-bind start, HELLO)
 * on libuv's threadpool, so a coordinator that is still creating its
 * container does not freeze the screen; then the socket is read on the
 * workbench's loop and cut into frames, each handed to frame_cb. Writes are
 * queued with uv_write. Requests that expect SESSION are answered in order:
 * wb_conn_expect() keeps a FIFO of who asked.
 */
#ifndef LZ_WB_CONN_H
#define LZ_WB_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "anchor.h"
#include "err.h"
#include "proto.h"

struct client;
struct wb_conn;

enum wb_conn_state {
	WB_CONN_CONNECTING,
	WB_CONN_READY,
	WB_CONN_FAILED,		/* error() says why */
	WB_CONN_CLOSED,
};

struct wb_conn_cbs {
	/* Connected (READY) or failed (FAILED). */
	void (*state_cb)(struct wb_conn *, void *arg);
	/* A frame; payload valid during the call. */
	void (*frame_cb)(struct wb_conn *, const struct proto_header *, const uint8_t *payload,
	    void *arg);
};

/* Start connecting to the coordinator of a (copied), starting it in mode
 * ("isolated"/"direct") when none runs, and compare the configuration it
 * runs with config (effcfg.h text, copied; NULL: no check). Holds one
 * reference. */
struct wb_conn *wb_conn_new(uv_loop_t *loop, const struct anchor *a, const char *mode,
    const char *config, const struct wb_conn_cbs *cbs, void *arg);
/* Close the socket (queued writes may be lost) and drop the owner's
 * reference; freed once the handle and a running connect are done. */
void wb_conn_close(struct wb_conn *);

enum wb_conn_state wb_conn_state(const struct wb_conn *);
const char *wb_conn_error(const struct wb_conn *);
const struct anchor *wb_conn_anchor(const struct wb_conn *);
const char *wb_conn_mode(const struct wb_conn *);
/* Once READY: what differs between the running configuration and ours, one
 * line ("env FOO: a different value; limits: ..."), or NULL. */
const char *wb_conn_drift(const struct wb_conn *);

/* Queue every frame in b (emptied); dropped unless READY. */
void wb_conn_send(struct wb_conn *, struct proto_buf *b);
/* Bytes queued and not yet written. */
size_t wb_conn_queued(const struct wb_conn *);

/* FIFO of the requests awaiting SESSION or ERROR (opaque tokens). */
void wb_conn_expect(struct wb_conn *, void *who);
void *wb_conn_answered(struct wb_conn *);
/* Forget who (it went away) without changing the order of the others. */
void wb_conn_forget(struct wb_conn *, void *who);
bool wb_conn_expecting(const struct wb_conn *);
/* ESC_LIST was sent when the connection came up and its OK has not come:
 * the prompts coming now waited before this workbench was there. */
void wb_conn_set_esc_replay(struct wb_conn *, bool on);
bool wb_conn_esc_replay(const struct wb_conn *);

#endif
