/* coord-int.h - what coord.c (lifecycle), coord-dispatch.c (client frames,
 * sessions, escalation hooks) and coord-status.c share; nothing else includes it.
 */
#ifndef LZ_COORD_INT_H
#define LZ_COORD_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "coord/coord.h"
#include "coord/ctl-server.h"
#include "coord/session.h"
#include "escalation/esc-coord.h"
#include "proto.h"
#include "sandbox/driver.h"
#include "store/store.h"

/* One coordinator: everything its loop and its start-up/teardown touch. */
struct coord {
	uv_loop_t *loop;
	const struct coord_opts *o;
	const struct anchor *a;
	const struct drv_ops *drv;
	struct store *store;
	struct sentry_layout layout;
	bool layout_ok;
	struct sentry_watch *watch;	/* imports the agent's commits (sentry-watch.c) */
	struct drv_mount *ovl;	/* State Anchor binds (overlay.c) */
	size_t n_ovl;
	bool ovl_ok;
	bool container_ours;	/* created (or adopted) by us: remove at teardown */
	struct ctl_server *srv;
	struct esc_coord *esc;	/* Host Escalation (esc-coord.c); NULL when disabled */
	uv_signal_t sig_int, sig_term, sig_hup;
	uv_timer_t idle;
	uv_timer_t stop_timer;
	struct session **sessions;
	size_t n_sessions;
	uint32_t next_session;
	bool had_client;
	bool stopping;
	bool finished;
	int live_fd;
	int64_t started_ms;
};

/* ---- coord.c ---- */

void coord_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int64_t coord_now_ms(void);
/* Arm the linger timer when no session and no client is left. */
void coord_check_idle(struct coord *);
/* First call: stop listening and end every session; the last session's exit
 * (or the stop timer) then finishes. why NULL: called again from an exit. */
void coord_shutdown(struct coord *, const char *why);
/* Append an audit row (kind, actor, session id or NULL, the JSON detail w
 * closed and freed here), in order with the store's other records. */
struct lz_jsonw;
void coord_audit(struct coord *c, const char *kind, const char *actor, const char *session_id,
    struct lz_jsonw *w);

/* ---- coord-dispatch.c: ctl_server callbacks ---- */

void coord_connect_cb(struct ctl_server_client *cl, void *arg);
void coord_frame_cb(struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, void *arg);
void coord_disconnect_cb(struct ctl_server_client *cl, void *arg);
void coord_drain_cb(struct ctl_server_client *cl, void *arg);
/* Host Escalation for this domain (socket, TLS files); before the container. */
int coord_esc_start(struct coord *c, lz_err_t *err);

/* ---- coord-status.c ---- */

/* Answer a STATUS request (podman inspect runs on the threadpool). */
void coord_status(struct coord *c, struct ctl_server_client *cl, enum proto_status_fmt fmt);

#endif
