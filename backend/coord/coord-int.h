/* coord-int.h - what coord.c (lifecycle), coord-dispatch.c (client frames,
 * sessions, escalation hooks) and coord-status.c share; nothing else includes it.
 */
#ifndef LZ_COORD_INT_H
#define LZ_COORD_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "host/ctl-server.h"
#include "coord/session.h"
#include "escalation/esc-coord.h"
#include "net/net-coord.h"
#include "proto.h"
#include "sandbox/driver.h"
#include "sandbox/limits.h"
#include "sandbox/sentry/sentry.h"
#include "store/store.h"

struct coord_opts;

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
	struct sentry_follow *follow;	/* the host's branches to the agent (sentry-follow.c) */
	struct drv_mount *ovl;	/* State Anchor binds (overlay.c) */
	size_t n_ovl;
	bool ovl_ok;
	bool container_ours;	/* created (or adopted) by us: remove at teardown */
	struct drv_job *ctr_job;	/* its podman run -d, begun and not yet waited for */
	struct drv_spec *ctr_spec;	/* and the spec it was begun with */
	struct drv_direct *direct;	/* sessions through sandbox-exec or runsc exec (rexec.c); NULL: podman exec */
	struct ctl_server *srv;
	struct esc_coord *esc;	/* Host Escalation (esc-coord.c); NULL when disabled */
	struct net_coord *net;	/* Network Sidecar (net-coord.c); NULL with network: none */
	struct proto_buf *creds;	/* the broker's secrets, locked (net-secret.c); NULL: none */
	struct coord_net_follower **followers;	/* `lazaret egress --follow` clients */
	size_t n_followers;
	struct coord_netreq *netreq;	/* network requests (coord-netreq.c) */
	struct ctl_server_client **esc_watch;	/* follow every escalation (coord-esc.c) */
	size_t n_esc_watch;
	struct ctl_server_client *esc_to;	/* a replay goes to this one alone */
	uv_signal_t sig_int, sig_term, sig_hup;
	uv_timer_t idle;
	uv_timer_t stop_timer;
	uv_timer_t nr_due;	/* the next network request due (coord-netreq.c) */
	struct session **sessions;
	size_t n_sessions;
	uint32_t next_session;
	bool had_client;
	bool stopping;
	bool finished;
	int live_fd;
	int guard_fd;		/* our end of the guard's socketpair (guard.h) */
	uv_poll_t guard_poll;
	bool guard_watch;	/* guard_poll initialised */
	struct limits_host lhost;	/* coord-limits.c */
	struct limits_domain ldom;
	uv_timer_t limits_timer;	/* the disk walk's next run (one-shot) */
	bool limits_timer_on;
	uint64_t disk_every_ms;	/* the walk's interval now (coord-limits.c) */
	uv_poll_t limits_poll;	/* the memory cgroup's eventfd: OOM, use climbing */
	bool limits_poll_on;
	int limits_efd;
	char **disk_paths;	/* what the disk bound covers */
	bool disk_busy;
	uint64_t disk_used;
	char *limit_hit;	/* why the sandbox was stopped, or NULL */
	char *effcfg;		/* the effective configuration (effcfg.h) */
	char *image_id;		/* from the threadpool, for effcfg */
	char **effcfg_edits;	/* "+ENTRY"/"-ENTRY": profile grants applied, revoked since */
	int64_t started_ms;
	uint64_t net_flows, net_blocked;	/* flows allowed, flows and queries blocked */
	uint64_t cpu_ns;	/* the cpu cgroup's usage when last asked */
	uint64_t cpu_at_ms;	/* and when (uv_now); 0: no sample yet */
	int cpu_permille;	/* of one CPU since the ask before; -1 unknown */
	unsigned uid, gid;	/* who sessions run as (coord-user.c); 0: root */
	/* coord.c's lifetime, for the files below it (set by coord_main, as
	 * ctl-server's callbacks are): arm the linger timer when no session and
	 * no client is left; first call: stop listening and end every session,
	 * the last session's exit (or the stop timer) then finishes, why NULL:
	 * called again from an exit. */
	void (*check_idle)(struct coord *);
	void (*shutdown)(struct coord *, const char *why);
};

/* ---- coord-base.c: what every file calls ---- */

void coord_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int64_t coord_now_ms(void);
/* Append an audit row (kind, actor, session id or NULL, the JSON detail w
 * closed and freed here), in order with the store's other records. */
struct lz_jsonw;
void coord_audit(struct coord *c, const char *kind, const char *actor, const char *session_id,
    struct lz_jsonw *w);

/* ---- coord-sync.c: `lazaret sync` on a live domain (SENTRY_CTL_SYNC) ---- */
void coord_sync_frame(struct coord *c, struct ctl_server_client *cl, const uint8_t *p,
    size_t len);

/* ---- coord-effcfg.c: the effective configuration ---- */

/* Build c->effcfg at start; the image id is filled in off the loop. */
void coord_effcfg(struct coord *c);
/* A profile grant applied (add) or revoked at run time, in the
 * configuration clients compare theirs with (effcfg.h). */
void coord_effcfg_egress(struct coord *, const char *entry, bool add);

/* ---- coord-frames.c: one row a client frame ---- */

void coord_frame_cb(struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, void *arg);

/* ---- coord-dispatch.c: sessions, ctl_server callbacks, escalation glue ---- */

struct esc_ctl_anchor;
/* Start a session for cl from a NEW_SESSION payload (anc: the Session
 * Anchor of an ESC_NEW_SESSION, or NULL); answers cl itself. */
void coord_new_session(struct coord *c, struct ctl_server_client *cl, const uint8_t *p, size_t len,
    const struct esc_ctl_anchor *anc);
/* The live session numbered id, or NULL. */
struct session *coord_session_find(struct coord *c, uint32_t id);

void coord_connect_cb(struct ctl_server_client *cl, void *arg);
void coord_disconnect_cb(struct ctl_server_client *cl, void *arg);
void coord_drain_cb(struct ctl_server_client *cl, void *arg);

/* ---- coord-esc.c: who sees and answers escalations ---- */

/* Host Escalation for this domain (socket, TLS files); before the container. */
int coord_esc_start(struct coord *c, lz_err_t *err);
/* What waits in session uuid (NULL: in any) shown to cl alone; how many. */
size_t coord_esc_replay(struct coord *c, struct ctl_server_client *cl, const char *uuid);
/* ESC_LIST: what waits, OK(count); FOLLOW: and everything later. */
void coord_esc_list(struct coord *c, struct ctl_server_client *cl, const uint8_t *p, size_t len);
void coord_esc_client_gone(struct coord *c, struct ctl_server_client *cl);
/* True when sessions start a way that hands a session its credential on an
 * inherited fd (lazaret sandbox-exec); no credential is given otherwise. */
bool coord_secret_safe(const struct coord *c);

/* ---- coord-user.c: the agent user ---- */

/* Decide who sessions run as (the profile's user:, else uid 1000 when the
 * image has one); after the overlays, before the container. */
void coord_user_decide(struct coord *c);
/* For a non-root user: the writable binds mapped onto the host user
 * (uidmap.h), lazaret-escalate and its sudo mounted, the escalation socket
 * open to the user. */
int coord_user_spec(struct coord *c, struct drv_spec *sp, lz_err_t *err);

/* ---- coord-net.c: the Network Sidecar ---- */

/* Start creating the sidecar container (runs beside the Git Sentry and the
 * overlays; nothing of the sandbox exists yet). */
int coord_net_begin(struct coord *c, lz_err_t *err);
/* Finish the sidecar (begun or not) and spawn its router, before the
 * sandbox is created (it joins the sidecar's namespace). */
int coord_net_start(struct coord *c, lz_err_t *err);
/* Wait until the router's rules are in place: before the control socket
 * opens, so before any session (the agent's first instruction). */
int coord_net_ready(struct coord *c, lz_err_t *err);
/* PROTO_EGRESS_REQ and PROTO_EGRESS_EDIT. */
void coord_net_frame(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p);
/* cl disconnected: stop streaming events to it. */
void coord_net_client_gone(struct coord *c, struct ctl_server_client *cl);
/* The network lines of `lazaret status` (caller frees), or its JSON value. */
char *coord_net_status_text(struct coord *c);
struct lz_jsonw;
void coord_net_status_json(struct coord *c, struct lz_jsonw *w);

/* ---- coord-netreq.c, coord-netreq-decide.c: network requests (issue 13) ---- */

/* From the router (net-coord.c callbacks). */
struct netreq_item;
struct netreq_summary;
struct netctl_event;
void coord_netreq_ask(struct coord *, const struct netreq_item *);
void coord_netreq_summary(struct coord *, const struct netreq_summary *);
/* The router died: every pending request is gone. */
void coord_netreq_gone(struct coord *);
/* Every flow/DNS event: the first allow/block of a destination is audited. */
void coord_netreq_event(struct coord *, const struct netctl_event *);
/* NETREQ_LIST, NETREQ_DECIDE, NETREQ_GRANTS_REQ, NETREQ_REVOKE. */
void coord_netreq_frame(struct coord *, struct ctl_server_client *, const struct proto_header *,
    const uint8_t *p);
void coord_netreq_client_gone(struct coord *, struct ctl_server_client *);
/* (Re)start the timer that refuses the requests due and not held. */
void coord_netreq_arm(struct coord *);
/* The counters, for status (pending now, blocked unasked, denied attempts). */
void coord_netreq_counts(struct coord *, struct netreq_summary *out);
/* Someone who can answer follows the requests (else they are refused unasked). */
bool coord_netreq_answerable(struct coord *);
void coord_netreq_free(struct coord *);

/* ---- coord-limits.c ---- */

/* Before the container: probe the host, make the domain's cgroups. */
int coord_limits_start(struct coord *c, lz_err_t *err);
/* RLIMIT_NPROC, a sized /tmp and the cgroups into the container's spec. */
void coord_limits_spec(struct coord *c, struct drv_spec *sp);
/* After the container: start the watchdog. */
void coord_limits_watch(struct coord *c);
/* Did the kernel stop the sandbox for a limit (OOM, task backstop)? Records it. */
void coord_limits_check(struct coord *c);
/* In the loop's shutdown: close the watchdog's timer and eventfd. */
void coord_limits_close(struct coord *c);
/* After the container is removed: remove the cgroups, free. */
void coord_limits_release(struct coord *c);
/* "memory 4g, pids 4096, disk 20g, cpus 2" with what is not enforced; caller frees. */
char *coord_limits_text(const struct coord *c);

/* ---- coord-dash.c: the dashboard's row (`lazaret ls`, the workbench's w) ---- */

/* A session's word (tabstate.h): limit, approval, input or running. */
const char *coord_dash_session_state(struct coord *c, struct session *s);
/* The row (proto.h PROTO_STATUS_ROW) with the container's state; caller frees. */
char *coord_dash_row(struct coord *c, const char *container_state);
/* The same as keys of the status JSON object: state, pending, memory_bytes,
 * cpu_permille, flows_allowed, blocked. */
void coord_dash_json(struct coord *c, const char *container_state, struct lz_jsonw *w);

/* ---- coord-status.c ---- */

/* Answer a STATUS request (podman inspect runs on the threadpool). */
void coord_status(struct coord *c, struct ctl_server_client *cl, enum proto_status_fmt fmt);

#endif
