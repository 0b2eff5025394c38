/* net-coord.c - start, watch, restart and stop the domain's network sidecar
 * (see net-coord.h for the topology). The sidecar container's creation
 * (podman run -d) is started first and runs beside the coordinator's other
 * start-up work (net_coord_begin); the rest is synchronous: the router is
 * started and answers, and only then is the sandbox created, so its rules are
 * in place before the agent's first packet. A start that fails meanwhile
 * waits for the creation and removes the container (net_coord_free).
 *
 * The router process (spawn, exit, restart) is net-router.c; its control
 * socket (events in, requests out) is net-control.c; net-coord-int.h holds
 * what the three share. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "egress.h"
#include "net/net-coord.h"
#include "net/net-coord-int.h"
#include "net/net-hostaddr.h"
#include "net/net-image.h"
#include "sandbox/rootless/storage.h"
#include "strv.h"
#include "trace.h"
#include "xmalloc.h"


/* The host's addresses changed (net-hostaddr.c): the router guards the new list. */
static void
net_hosts_cb(void *arg)
{
	net_control_hosts_push(arg);
}

int
net_coord_new(const struct net_coord_opts *o, struct net_coord **out, lz_err_t *err)
{
	struct net_coord *nc = xcalloc(1, sizeof *nc);

	nc->o = *o;
	nc->dir = xasprintf("%s/%s.net", o->socket_dir, o->a->hash);
	nc->ctl = xasprintf("%s/ctl.sock", nc->dir);
	nc->resolv = xasprintf("%s/resolv.conf", nc->dir);
	nc->upstream = o->upstream != NULL ? xstrdup(o->upstream) : NULL;
	for (size_t i = 0; i < o->n_policy; i++)
		lz_strv_push(&nc->policy, o->policy[i]);
	nc->n_policy = o->n_policy;
	/* Without the host's addresses the router cannot guard them: no network. */
	if (net_hostaddr_new(o->loop, net_hosts_cb, nc, &nc->hosts, err) < 0) {
		lz_err_wrap(err, "network sidecar");
		lz_strv_free(nc->policy);
		free(nc->dir);
		free(nc->ctl);
		free(nc->resolv);
		free(nc->upstream);
		free(nc);
		return -1;
	}
	uv_timer_init(o->loop, &nc->timer);
	nc->timer.data = nc;
	*out = nc;
	return 0;
}

/* <socket_dir>/<H>.net, 0700 and ours, with the sandbox's resolv.conf. */
static int
net_files(struct net_coord *nc, lz_err_t *err)
{
	static const char resolv[] = "# lazaret: the network sidecar's resolver, the only one\n"
	    "nameserver " NET_COORD_RESOLVER "\n";
	struct stat st;
	int fd;

	if (mkdir(nc->dir, 0700) < 0 && errno != EEXIST)
		return lz_err_sys(err, errno, "cannot create %s", nc->dir);
	if (lstat(nc->dir, &st) < 0)
		return lz_err_sys(err, errno, "%s", nc->dir);
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077) != 0)
		return lz_err_set(err, EPERM, "%s must be a directory of yours with mode 0700", nc->dir);
	fd = open(nc->resolv, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return lz_err_sys(err, errno, "cannot write %s", nc->resolv);
	if (write(fd, resolv, sizeof resolv - 1) != (ssize_t)(sizeof resolv - 1)) {
		close(fd);
		return lz_err_sys(err, errno, "cannot write %s", nc->resolv);
	}
	close(fd);
	return 0;
}

/* The sidecar container's spec; free with net_spec_clear. */
struct net_spec {
	struct drv_spec sp;
	struct drv_mount m;
	char *caps[2], *labels[2];
};

static void
net_spec_make(struct net_coord *nc, struct net_spec *ns)
{
	memset(ns, 0, sizeof *ns);
	ns->m.type = DRV_MOUNT_BIND;
	ns->m.src = nc->dir;
	ns->m.dst = (char *)NET_COORD_CTL_DST;
	ns->caps[0] = (char *)"NET_ADMIN";
	ns->caps[1] = (char *)"NET_BIND_SERVICE";
	ns->labels[0] = xasprintf("lazaret.domain=%s", nc->o.a->hash);
	ns->labels[1] = xstrdup("lazaret.role=sidecar");
	ns->sp.name = nc->o.a->sidecar;
	ns->sp.image = nc->image;
	ns->sp.network = (char *)NET_COORD_SLIRP;
	ns->sp.runtime = (char *)"crun";	/* never gVisor: the router needs the kernel's nftables */
	ns->sp.cap_add = ns->caps;
	ns->sp.n_cap_add = 2;
	ns->sp.mounts = &ns->m;
	ns->sp.n_mounts = 1;
	ns->sp.labels = ns->labels;
	ns->sp.n_labels = 2;
}

static void
net_spec_clear(struct net_spec *ns)
{
	free(ns->labels[0]);
	free(ns->labels[1]);
}

/* Create the sidecar container, or wait for the creation nc->job started
 * (net_coord_begin). */
static int
net_container(struct net_coord *nc, lz_err_t *err)
{
	struct drv_job *job = lz_steal_ptr(&nc->job);
	struct net_spec ns;
	int ret;

	net_spec_make(nc, &ns);
	ret = job != NULL ? nc->o.drv->create_finish(job, err) : nc->o.drv->create(&ns.sp, err);
	if (ret < 0 && err->code == EEXIST) {
		/* Left by a coordinator that died: its namespace may hold anything.
		 * Its sandbox, joined to that namespace, goes first (podman refuses to
		 * remove a container another one depends on); we hold the domain lock. */
		lz_err_clear(err);
		net_log(nc, "removing sidecar %s (and sandbox %s) left by a previous coordinator",
		    ns.sp.name, nc->o.a->container);
		ret = nc->o.drv->remove(nc->o.a->container, err) < 0 ||
		    nc->o.drv->remove(ns.sp.name, err) < 0 ? -1 : nc->o.drv->create(&ns.sp, err);
	}
	net_spec_clear(&ns);
	return ret;
}

/* Is the sidecar container listed in podman's storage? */
static bool
net_listed(struct net_coord *nc)
{
	char id[OVERLAY_IMAGES_ID_LEN + 1], layer[OVERLAY_IMAGES_ID_LEN + 1];
	_cleanup_free_ char *g = NULL;

	return storage_find("containers", nc->o.a->sidecar, &g, id, layer) == 1;
}

int
net_coord_listed(struct net_coord *nc)
{
	uint64_t end = net_now_ms() + NET_COORD_LISTED_MS;

	/* podman writes the container's storage entry, then its record: the
	 * record is in by the time a second podman, started now, looks for it. */
	while (nc->job != NULL && !nc->stale) {
		struct timespec ts = { 0, 2 * 1000000 };

		if (net_listed(nc))
			return 1;
		if (nc->o.drv->create_done == NULL || nc->o.drv->create_done(nc->job) ||
		    net_now_ms() > end)
			break;
		nanosleep(&ts, NULL);
	}
	return 0;
}

int
net_coord_begin(struct net_coord *nc, lz_err_t *err)
{
	struct net_spec ns;
	int ret;

	nc->state = NET_STARTING;
	if (net_files(nc, err) < 0 || (nc->bin == NULL && net_image_bin(&nc->bin, err) < 0))
		return -1;
	free(nc->image);
	if (net_image_name(nc->bin, &nc->image, err) < 0)
		return -1;
	/* No image check first (a podman start-up on every start): podman run
	 * --pull=never says when the image is missing (net_coord_start). One
	 * listed already is a dead coordinator's (we hold the domain lock). */
	nc->stale = net_listed(nc);
	net_spec_make(nc, &ns);
	ret = nc->o.drv->create_start(&ns.sp, &nc->job, err);
	net_spec_clear(&ns);
	return ret;
}

int
net_coord_start(struct net_coord *nc, lz_err_t *err)
{
	int ret = -1;

	if (nc->job == NULL && net_coord_begin(nc, err) < 0)
		goto out;
	if (net_container(nc, err) < 0) {
		/* The image is missing: build it, then make the container again. */
		if (err->code != ENOENT)
			goto out;
		lz_err_clear(err);
		free(nc->image);
		nc->image = NULL;
		if (net_image_ensure(nc->bin, &nc->image, NULL, err) < 0 ||
		    net_container(nc, err) < 0)
			goto out;
	}
	lz_trace("sidecar: container");
	if (net_router_spawn(nc, err) < 0)
		goto out;
	lz_trace("sidecar: router spawned");
	ret = 0;
out:
	if (ret < 0)
		nc->state = NET_DOWN;
	return ret;
}

int
net_coord_ready(struct net_coord *nc, lz_err_t *err)
{
	int ret = -1;

	/* Rules in place = control socket answering; the router's exit ends the
	 * wait. Asked at least once: the sandbox's creation, awaited since the
	 * router began, may have outlasted the deadline on a busy machine
	 * (twenty domains starting at once) while the router was long ready. */
	for (bool first = true; first || net_now_ms() < nc->deadline_ms; first = false) {
		struct timespec ts = { 0, 2 * 1000000 };	/* rules are ~20 ms away */

		if (net_control_connect(nc)) {
			nc->state = NET_UP;
			if (nc->hosts_pending)
				net_control_hosts_push(nc);
			if (net_control_creds_push(nc, err) < 0)
				goto out;
			lz_trace("sidecar: router, rules in place");
			net_audit(nc, "net.start", nc->o.a->sidecar);
			ret = 0;
			goto out;
		}
		/* The loop does not run yet: a router that exited is a zombie until it does. */
		if (net_router_exited(nc->proc.pid))
			break;
		nanosleep(&ts, NULL);
	}
	lz_err_set(err, EIO, "the network sidecar %s did not start%s (see the coordinator log)",
	    nc->o.a->sidecar, net_router_exited(nc->proc.pid) ? "" : " in time");
out:
	if (ret < 0)
		nc->state = NET_DOWN;
	return ret;
}

int
net_coord_spec(struct net_coord *nc, struct drv_spec *sp, lz_err_t *err)
{
	struct drv_mount *m;

	(void)err;
	free(sp->network);
	sp->network = xasprintf("container:%s", nc->o.a->sidecar);
	/* A user mount on /etc/resolv.conf: Podman's own copy does not win. */
	sp->mounts = xreallocarray(sp->mounts, sp->n_mounts + 1, sizeof *sp->mounts);
	m = &sp->mounts[sp->n_mounts++];
	memset(m, 0, sizeof *m);
	m->type = DRV_MOUNT_BIND;
	m->src = xstrdup(nc->resolv);
	m->dst = xstrdup("/etc/resolv.conf");
	m->ro = true;
	return 0;
}

static void net_policy_keep(struct net_coord *nc, bool add, const struct egress_entry *e,
    const char *text);

int
net_coord_edit(struct net_coord *nc, bool add, const char *entry, lz_err_t *err)
{
	struct proto_buf b = { 0 };
	struct egress_entry e;
	char *text;
	int ret;

	if (nc->state != NET_UP)
		return lz_err_set(err, EAGAIN, "the network sidecar is %s; try again",
		    net_coord_state(nc));
	if (egress_entry_parse(entry, &e, err) < 0)
		return -1;
	text = egress_entry_format(&e);
	netctl_encode_str(&b, add ? NETCTL_POLICY_ADD : NETCTL_POLICY_DEL, text);
	ret = net_control_request(nc, &b, NULL, err);
	proto_buf_clear(&b);
	if (ret < 0) {
		free(text);
		return -1;
	}
	net_policy_keep(nc, add, &e, text);
	free(text);
	return 0;
}

int
net_coord_verdict(struct net_coord *nc, uint32_t rid, uint32_t verdict, const char *entry,
    int *held, lz_err_t *err)
{
	struct proto_buf b = { 0 };
	struct egress_entry e;
	char *text = NULL;
	uint32_t v = 0;
	int ret;

	if (nc->state != NET_UP)
		return lz_err_set(err, EAGAIN, "the network sidecar is %s; try again",
		    net_coord_state(nc));
	if (entry != NULL && entry[0] != '\0') {
		if (egress_entry_parse(entry, &e, err) < 0)
			return -1;
		text = egress_entry_format(&e);
	}
	netreq_encode_verdict(&b, rid, verdict, text);
	ret = net_control_request(nc, &b, &v, err);
	proto_buf_clear(&b);
	if (ret == 0 && text != NULL)
		net_policy_keep(nc, true, &e, text);
	free(text);
	*held = (int)v;
	return ret;
}

/* Keep our copy of the policy in step with the router's (a restarted router
 * gets the policy in force), and audit the change. */
static void
net_policy_keep(struct net_coord *nc, bool add, const struct egress_entry *e, const char *text)
{
	struct egress_entry x;
	char **v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < nc->n_policy; i++) {
		if (egress_entry_parse(nc->policy[i], &x, NULL) == 0 && egress_entry_equal(&x, e))
			continue;
		lz_strv_push(&v, nc->policy[i]);
		n++;
	}
	if (add) {
		lz_strv_push(&v, text);
		n++;
	}
	lz_strv_free(nc->policy);
	nc->policy = v;
	nc->n_policy = n;
	{
		char *d = xasprintf("%s %s", add ? "allow" : "deny", text);

		net_audit(nc, "net.policy", d);
		free(d);
	}
}

const char *
net_coord_state(const struct net_coord *nc)
{
	switch (nc->state) {
	case NET_UP: return "up";
	case NET_STARTING: return "starting";
	case NET_RESTARTING: return "restarting";
	case NET_DOWN: return "down";
	}
	return "?";
}

char *const *
net_coord_policy(const struct net_coord *nc, size_t *n)
{
	*n = nc->n_policy;
	return nc->policy;
}

unsigned
net_coord_restarts(const struct net_coord *nc)
{
	return nc->restarts;
}

void
net_coord_close(struct net_coord *nc)
{
	if (nc == NULL)
		return;
	nc->closing = true;
	uv_timer_stop(&nc->timer);
	if (!uv_is_closing((uv_handle_t *)&nc->timer))
		uv_close((uv_handle_t *)&nc->timer, NULL);
	net_control_close(nc);
	net_hostaddr_close(lz_steal_ptr(&nc->hosts));
	if (nc->proc_live)
		uv_process_kill(&nc->proc, SIGTERM);
}

static void
net_remove_files(const char *dir)
{
	char *ctl = xasprintf("%s/ctl.sock", dir), *resolv = xasprintf("%s/resolv.conf", dir);

	(void)unlink(ctl);
	(void)unlink(resolv);
	(void)rmdir(dir);
	free(ctl);
	free(resolv);
}

void
net_coord_free(struct net_coord *nc)
{
	lz_err_t err = LZ_ERR_INIT;

	if (nc == NULL)
		return;
	/* A creation still under way ends first, or it would outlive the removal. */
	if (nc->job != NULL && nc->o.drv->create_finish(lz_steal_ptr(&nc->job), &err) < 0)
		lz_err_clear(&err);
	if (nc->o.drv->remove(nc->o.a->sidecar, &err) < 0) {
		net_log(nc, "network sidecar: %s", err.msg);
		lz_err_clear(&err);
	}
	net_remove_files(nc->dir);
	lz_strv_free(nc->policy);
	free(nc->dir);
	free(nc->ctl);
	free(nc->resolv);
	free(nc->image);
	free(nc->bin);
	free(nc->upstream);
	free(nc);
}

int
net_coord_cleanup(const struct drv_ops *drv, const struct anchor *a, const char *socket_dir,
    lz_err_t *err)
{
	char *dir = xasprintf("%s/%s.net", socket_dir, a->hash);
	int ret = drv->remove(a->sidecar, err);

	net_remove_files(dir);
	free(dir);
	return ret;
}
