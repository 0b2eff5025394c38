/* net-coord-int.h - what net-coord.c (the sidecar's lifetime and policy),
 * net-router.c (the router process) and net-control.c (the router's control
 * socket) share, and no other code includes. The files call downwards only:
 * net-coord.c calls the other two, net-router.c calls net-control.c, and
 * net-control.c calls neither (scripts/check-cycles). */
#ifndef LZ_NET_COORD_INT_H
#define LZ_NET_COORD_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <uv.h>

#include "net/net-coord.h"
#include "proto.h"
#include "xmalloc.h"

struct net_hostaddr;

enum net_state { NET_DOWN, NET_STARTING, NET_UP, NET_RESTARTING };

struct net_coord {
	struct net_coord_opts o;
	char *dir, *ctl, *resolv, *image, *upstream, *bin;
	struct drv_job *job;	/* the container's creation, started by net_coord_begin */
	bool stale;		/* a sidecar of that name was there before the job began */
	char **policy;
	size_t n_policy;
	enum net_state state;
	bool closing;
	uv_process_t proc;
	bool proc_live;
	uv_pipe_t pipe;
	bool pipe_live;
	uv_timer_t timer;	/* the router's restart (net-router.c) */
	struct proto_buf in;
	uint64_t deadline_ms, window_ms;
	unsigned restarts, recent;
	int last_status;
	struct net_hostaddr *hosts;	/* guarded by the router (net-hostaddr.h) */
	bool hosts_pending;		/* changed while the router was not up */
};

static inline uint64_t
net_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static inline void net_log(struct net_coord *nc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* To the coordinator's log (net_coord_opts.log_cb). */
static inline void
net_log(struct net_coord *nc, const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	if (nc->o.log_cb != NULL)
		nc->o.log_cb(m, nc->o.arg);
	free(m);
}

static inline void
net_audit(struct net_coord *nc, const char *kind, const char *detail)
{
	if (nc->o.audit_cb != NULL)
		nc->o.audit_cb(kind, detail, nc->o.arg);
}

/* ---- net-router.c: the router process ---- */

/* Spawn the router in the sidecar with the policy in force; its exit is
 * audited and it is started again (nc->timer). */
int net_router_spawn(struct net_coord *nc, lz_err_t *err);
/* True when process pid is gone or a zombie (before the loop reaps it). */
bool net_router_exited(int pid);

/* ---- net-control.c: the router's control socket ---- */

/* Connect and subscribe to its events; 1 when connected, 0 when the router
 * is not up yet. */
int net_control_connect(struct net_coord *nc);
/* Close the subscribed connection (the router went away, or shutdown). */
void net_control_close(struct net_coord *nc);
/* One request on a connection of its own; reads the OK (with *value when
 * not NULL) or ERROR reply. */
int net_control_request(struct net_coord *nc, struct proto_buf *req, uint32_t *value,
    lz_err_t *err);
/* The host's current addresses to the router, or marked pending when it is
 * not up (it gets them when it is). */
void net_control_hosts_push(struct net_coord *nc);
/* The broker's credentials, to a router that just came up (it holds none). */
int net_control_creds_push(struct net_coord *nc, lz_err_t *err);

#endif
