/* net-coord.h - the Network Sidecar inside the Session Coordinator.
 *
 * Topology (DESIGN "Network topology"): one container per domain,
 * lazaret-net-<H>, under crun with CAP_NET_ADMIN and NET_BIND_SERVICE in its
 * user namespace only, on slirp4netns (host loopback reachable as 10.0.2.2,
 * which the router refuses unless listed). Its PID 1 is catatonit in pause
 * mode, so the namespace lives as long as the container; the router runs in
 * it through `crun exec` (entered with `lazaret ns-exec`, the container's id
 * from podman's containers.json; `podman exec` when that is not known),
 * owned by the coordinator: when it dies the rules
 * stay in the kernel (default deny), the coordinator audits it and starts it
 * again with the policy in force, in the same namespace. The sandbox joins
 * with --network container:lazaret-net-<H> (runsc network=host) and a
 * read-only /etc/resolv.conf naming the router's resolver.
 *
 * Files: <socket_dir>/<H>.net/ (0700): ctl.sock (the router's control
 * socket, mounted into the sidecar at /run/lazaret-net) and resolv.conf.
 */
#ifndef LZ_NET_COORD_H
#define LZ_NET_COORD_H

#include <stdbool.h>
#include <uv.h>

#include "anchor.h"
#include "err.h"
#include "netctl.h"
#include "netreq.h"
#include "sandbox/driver.h"

#define NET_COORD_CTL_DST	"/run/lazaret-net"
#define NET_COORD_RESOLVER	"127.0.0.1"
#define NET_COORD_SLIRP		"slirp4netns:allow_host_loopback=true"
#define NET_COORD_START_MS	15000	/* router up, rules in place */
#define NET_COORD_MAX_RESTARTS	5	/* within a minute; then the network stays down */
#define NET_COORD_LISTED_MS	3000	/* net_coord_listed's longest wait */

struct net_coord;

struct net_coord_opts {
	uv_loop_t *loop;
	const struct anchor *a;
	const struct drv_ops *drv;
	const char *socket_dir;
	char *const *policy;		/* merged allow_egress (validated entries) */
	size_t n_policy;
	const char *upstream;		/* dns_upstream, or NULL: the router's default */
	unsigned ask_timeout_ms;	/* network.ask_timeout; 0: the router never asks */
	/* The credential broker's NETCTL_CRED_SET frame (secrets inside), sent to
	 * every router that comes up; the caller owns and wipes it. NULL: none. */
	const struct proto_buf *creds;
	void (*event_cb)(const struct netctl_event *, void *arg);
	/* A request from the router (id = the router's), new, updated or expired;
	 * its counters; and "every request is gone" (the router died). */
	void (*ask_cb)(const struct netreq_item *, void *arg);
	void (*summary_cb)(const struct netreq_summary *, void *arg);
	void (*asks_gone_cb)(void *arg);
	/* kind: "net.start", "net.router-exit", "net.restart", "net.policy" ... */
	void (*audit_cb)(const char *kind, const char *detail, void *arg);
	void (*log_cb)(const char *msg, void *arg);
	void *arg;
};

int net_coord_new(const struct net_coord_opts *o, struct net_coord **out, lz_err_t *err);
/* Start creating the sidecar container (podman run -d, not waited for), so
 * that it runs beside the coordinator's other start-up work. Optional; a
 * begun sidecar is finished by net_coord_start or waited for by
 * net_coord_free. */
int net_coord_begin(struct net_coord *, lz_err_t *err);
/* The sandbox may be created while the sidecar starts (podman waits until a
 * container it joins runs), once podman knows the sidecar: 1 when the one
 * net_coord_begin creates is listed (waited for while its podman runs);
 * 0 when it is not (no creation begun, it failed, a dead coordinator's was
 * in the way): create the sandbox after net_coord_start. */
int net_coord_listed(struct net_coord *);
/* Build the image if needed, start the sidecar (or finish its creation) and
 * spawn the router. The sandbox may be created next (its init sends nothing);
 * net_coord_ready comes before anything runs in it. */
int net_coord_start(struct net_coord *, lz_err_t *err);
/* Wait until the router's rules are in place (its control socket answers);
 * -1 with err when it exited or did not get there in time. */
int net_coord_ready(struct net_coord *, lz_err_t *err);
/* Join the sandbox's spec to the sidecar's namespace and resolver. */
int net_coord_spec(struct net_coord *, struct drv_spec *sp, lz_err_t *err);
/* Add or remove one entry for this run (no restart, flows kept). */
int net_coord_edit(struct net_coord *, bool add, const char *entry, lz_err_t *err);
/* Answer a request of the router (verdict NETCTL_V_*), adding entry to the
 * policy for this run first when not NULL/"" (audited as net.policy).
 * *held: 1 when the router still held the attempts, 0 when they were gone. */
int net_coord_verdict(struct net_coord *, uint32_t rid, uint32_t verdict, const char *entry,
    int *held, lz_err_t *err);
/* "up", "restarting", "down" and the policy in force, for status. */
const char *net_coord_state(const struct net_coord *);
char *const *net_coord_policy(const struct net_coord *, size_t *n);
unsigned net_coord_restarts(const struct net_coord *);
/* In the loop's shutdown: stop the router, close handles. */
void net_coord_close(struct net_coord *);
/* After the loop ran out: remove the sidecar container and its files, free.
 * NULL is a no-op. */
void net_coord_free(struct net_coord *);
/* Remove a sidecar left by a coordinator that died (the next CLI cleans up). */
int net_coord_cleanup(const struct drv_ops *drv, const struct anchor *a, const char *socket_dir,
    lz_err_t *err);

#endif
