/* coord.h - the Session Coordinator: one daemon per Domain Anchor (spec 4.3,
 * 4.4.4, DESIGN "Sessions and PTYs").
 *
 * It alone opens the state store, prepares the workspace mounts, creates the
 * sandbox container, owns every session's PTY and serves the control socket.
 * It holds the lifetime lock <socket_dir>/<H>.lock while it lives, so a CLI
 * that finds the socket dead can tell a crashed coordinator (lock free: the
 * socket is stale) from one still starting or tearing down (lock held).
 */
#ifndef LZ_COORD_H
#define LZ_COORD_H

#include "anchor.h"
#include "config.h"
#include "err.h"
#include "sandbox/sentry/sentry.h"

struct coord_opts {
	const struct cfg *cfg;
	const struct anchor *anchor;
	const struct cfg_resolved *resolved;
	enum sentry_mode mode;
	int ready_fd;		/* error text on failure, EOF (close) when ready; -1: none */
};

/* Run the coordinator to the end: start-up, the loop, teardown. Returns 0
 * after a clean teardown, -1 with err when start-up failed (after undoing
 * what it had done, and after writing the message to ready_fd). */
int coord_main(const struct coord_opts *opts, lz_err_t *err);


#endif
