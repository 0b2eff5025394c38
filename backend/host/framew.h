/* framew.h - the one write queue of protocol frames on a libuv stream, for
 * both ends of a control connection (host/ctl-server.c, app/wb/core/wb-conn.c). */
#ifndef LZ_FRAMEW_H
#define LZ_FRAMEW_H

#include <stdbool.h>
#include <sys/types.h>
#include <uv.h>

#include "proto.h"

/* One queued write: req.data points here; arg is the caller's. */
struct framew_req {
	uv_write_t req;
	uint8_t *data;
	size_t len;
	void *arg;
};

/* Send b's bytes on s and empty b. try: write what the stream takes at once
 * first (libuv refuses while others are queued, which keeps the order). The
 * rest goes in a request that cb completes (free it with framew_req_free).
 * Returns the bytes queued for cb (0: all written, cb is not called), or -1
 * when libuv refused the write (the bytes are dropped). */
ssize_t framew_send(uv_stream_t *s, struct proto_buf *b, bool try, uv_write_cb cb, void *arg);
/* Free a request cb was given; NULL is a no-op. */
void framew_req_free(struct framew_req *w);

#endif
