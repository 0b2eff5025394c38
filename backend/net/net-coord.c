/* net-coord.c - start, watch, restart and stop the domain's network sidecar
 * (see net-coord.h for the topology). The sidecar container's creation
 * (podman run -d) is started first and runs beside the coordinator's other
 * start-up work (net_coord_begin); the rest is synchronous: the router is
 * started and answers, and only then is the sandbox created, so its rules are
 * in place before the agent's first packet. A start that fails meanwhile
 * waits for the creation and removes the container (net_coord_free). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "egress.h"
#include "net/net-coord.h"
#include "net/net-hostaddr.h"
#include "net/net-image.h"
#include "sandbox/pause.h"
#include "sandbox/storage.h"
#include "strv.h"
#include "trace.h"
#include "xmalloc.h"

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
	uv_timer_t timer;
	struct proto_buf in;
	uint64_t deadline_ms, window_ms;
	unsigned restarts, recent;
	int last_status;
	struct net_hostaddr *hosts;	/* guarded by the router (net-hostaddr.h) */
	bool hosts_pending;		/* changed while the router was not up */
};

static uint64_t
net_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
net_log(struct net_coord *nc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
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

static void
net_audit(struct net_coord *nc, const char *kind, const char *detail)
{
	if (nc->o.audit_cb != NULL)
		nc->o.audit_cb(kind, detail, nc->o.arg);
}

static int net_request(struct net_coord *nc, struct proto_buf *req, uint32_t *value,
    lz_err_t *err);

/* The router guards the host's current addresses; one that is not up gets
 * them when it is (at its start they are on its command line). */
static void
net_hosts_push(struct net_coord *nc)
{
	struct proto_buf b = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	size_t n;
	char *const *v = net_hostaddr_list(nc->hosts, &n);

	nc->hosts_pending = nc->state != NET_UP;
	if (nc->hosts_pending)
		return;
	netctl_encode_list(&b, NETCTL_HOST_ADDRS, v, n);
	if (net_request(nc, &b, NULL, &err) < 0) {
		net_log(nc, "network sidecar: guarding the host's %zu addresses: %s", n, err.msg);
		lz_err_clear(&err);
	}
	proto_buf_clear(&b);
}

/* The broker's credentials, to a router that just came up (it holds none). */
static int
net_creds_push(struct net_coord *nc, lz_err_t *err)
{
	uint32_t n = 0;

	if (nc->o.creds == NULL || nc->o.creds->len == 0)
		return 0;
	if (net_request(nc, (struct proto_buf *)nc->o.creds, &n, err) < 0)
		return lz_err_wrap(err, "network sidecar: credentials");
	net_log(nc, "network sidecar: brokering %u credentials", n);
	return 0;
}

static void
net_hosts_cb(void *arg)
{
	net_hosts_push(arg);
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

static void
net_proc_close_cb(uv_handle_t *h)
{
	(void)h;
}

static void net_router_exit_cb(uv_process_t *p, int64_t status, int sig);

/* `SELF ns-exec --pid PAUSE -- crun --root $XDG_RUNTIME_DIR/crun exec ID
 * ROUTER...`: the router started in the sidecar by crun itself, in the
 * namespaces, with the capabilities and user of the container's process as
 * podman exec would, but without podman's and conmon's start-up (~100-250
 * ms). ID is read from podman's containers.json. -1 when anything is not as
 * expected: the caller uses podman exec. Either way the router is our child
 * and its exit (it was killed, crashed) is seen and restarted alike. */
static int
net_crun_exec_argv(struct net_coord *nc, char **rargv, char ***argv)
{
	char id[OVERLAY_IMAGES_ID_LEN + 1], layer[OVERLAY_IMAGES_ID_LEN + 1];
	_cleanup_free_ char *g = NULL, *root = NULL, *state = NULL;
	const char *rt = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (rt == NULL || rt[0] != '/' ||
	    storage_find("containers", nc->o.a->sidecar, &g, id, layer) != 1)
		return -1;
	/* crun's state of that very container, where rootless podman keeps it. */
	root = xasprintf("%s/crun", rt);
	state = xasprintf("%s/%s/status", root, id);
	if (lstat(state, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() ||
	    pause_exec_prefix(argv) < 0)
		return -1;
	lz_strv_push(argv, "crun");
	lz_strv_push(argv, "--root");
	lz_strv_push(argv, root);
	lz_strv_push(argv, "exec");
	lz_strv_push(argv, id);
	for (size_t i = 0; rargv[i] != NULL; i++)
		lz_strv_push(argv, rargv[i]);
	return 0;
}

static int
net_router_spawn(struct net_coord *nc, lz_err_t *err)
{
	char **rargv = NULL, **argv = NULL;
	struct drv_exec ex = { .name = nc->o.a->sidecar };
	uv_process_options_t po = { 0 };
	uv_stdio_container_t io[3];
	int r, ret = -1;

	lz_strv_push(&rargv, NET_IMAGE_BIN);
	lz_strv_push(&rargv, "--ctl");
	lz_strv_push(&rargv, NET_COORD_CTL_DST "/ctl.sock");
	if (nc->upstream != NULL) {
		lz_strv_push(&rargv, "--upstream");
		lz_strv_push(&rargv, nc->upstream);
	}
	for (size_t i = 0; i < nc->n_policy; i++) {
		lz_strv_push(&rargv, "--allow");
		lz_strv_push(&rargv, nc->policy[i]);
	}
	{
		size_t n;
		char *const *v = net_hostaddr_list(nc->hosts, &n);

		for (size_t i = 0; i < n; i++) {
			lz_strv_push(&rargv, "--host-addr");
			lz_strv_push(&rargv, v[i]);
		}
		nc->hosts_pending = false;
	}
	if (nc->o.ask_timeout_ms > 0) {
		char ms[16];

		snprintf(ms, sizeof ms, "%u", nc->o.ask_timeout_ms);
		lz_strv_push(&rargv, "--ask-timeout");
		lz_strv_push(&rargv, ms);
	}
	ex.argv = rargv;
	if (net_crun_exec_argv(nc, rargv, &argv) < 0) {
		lz_strv_free(argv);
		argv = NULL;
		if (nc->o.drv->exec_argv(&ex, &argv, err) < 0)
			goto out;
	}
	(void)unlink(nc->ctl);
	io[0].flags = UV_IGNORE;
	io[1].flags = UV_IGNORE;
	io[2].flags = UV_INHERIT_FD;	/* the router's messages go to the coordinator's log */
	io[2].data.fd = STDERR_FILENO;
	po.file = argv[0];
	po.args = argv;
	po.stdio = io;
	po.stdio_count = 3;
	po.exit_cb = net_router_exit_cb;
	nc->proc.data = nc;
	r = uv_spawn(nc->o.loop, &nc->proc, &po);
	if (r != 0) {
		uv_close((uv_handle_t *)&nc->proc, net_proc_close_cb);
		lz_err_set(err, -r, "cannot run %s: %s", argv[0], uv_strerror(r));
		goto out;
	}
	nc->proc_live = true;
	nc->deadline_ms = net_now_ms() + NET_COORD_START_MS;
	ret = 0;
out:
	lz_strv_free(rargv);
	lz_strv_free(argv);
	return ret;
}

static int
net_sock(const char *path, lz_err_t *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof sun.sun_path)
		return lz_err_set(err, ENAMETOOLONG, "socket path too long: %s", path);
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return lz_err_sys(err, errno, "socket");
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) < 0) {
		int e = errno;

		close(fd);
		return lz_err_sys(err, e, "cannot connect to %s", path);
	}
	return fd;
}

static void
net_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	static char chunk[16384];

	(void)h;
	(void)hint;
	*buf = uv_buf_init(chunk, sizeof chunk);
}

static void
net_pipe_close_cb(uv_handle_t *h)
{
	struct net_coord *nc = h->data;

	nc->pipe_live = false;
	proto_buf_clear(&nc->in);
}

static void
net_pipe_close(struct net_coord *nc)
{
	if (nc->pipe_live && !uv_is_closing((uv_handle_t *)&nc->pipe))
		uv_close((uv_handle_t *)&nc->pipe, net_pipe_close_cb);
}

static void
net_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct net_coord *nc = s->data;
	size_t off = 0;

	if (n < 0) {
		net_pipe_close(nc);	/* the router went away; its exit is handled there */
		return;
	}
	proto_put(&nc->in, buf->base, (size_t)n);
	for (;;) {
		struct proto_header h;
		const uint8_t *p;
		struct netctl_event ev;
		lz_err_t err = LZ_ERR_INIT;
		int r = proto_frame_parse(nc->in.data + off, nc->in.len - off, &h, &p, &err);

		if (r == PROTO_NEED_MORE)
			break;
		if (r < 0) {
			net_log(nc, "network sidecar: bad frame: %s", err.msg);
			lz_err_clear(&err);
			net_pipe_close(nc);
			return;
		}
		if (h.type == NETCTL_EVENT) {
			if (netctl_decode_event(p, h.length, &ev, &err) < 0) {
				net_log(nc, "network sidecar: %s", err.msg);
				lz_err_clear(&err);
			} else if (nc->o.event_cb != NULL)
				nc->o.event_cb(&ev, nc->o.arg);
		} else if (h.type == NETCTL_ASK) {
			struct netreq_item it;

			if (netreq_decode_item(p, h.length, &it, &err) < 0) {
				net_log(nc, "network sidecar: %s", err.msg);
				lz_err_clear(&err);
			} else if (nc->o.ask_cb != NULL)
				nc->o.ask_cb(&it, nc->o.arg);
		} else if (h.type == NETREQ_SUMMARY) {
			struct netreq_summary sum;

			if (netreq_decode_summary(p, h.length, &sum, &err) < 0) {
				net_log(nc, "network sidecar: %s", err.msg);
				lz_err_clear(&err);
			} else if (nc->o.summary_cb != NULL)
				nc->o.summary_cb(&sum, nc->o.arg);
		}
		off += PROTO_HEADER_LEN + h.length;
	}
	proto_buf_consume(&nc->in, off);
}

/* Connect and subscribe; 1 when connected, 0 when the router is not up yet. */
static int
net_try_connect(struct net_coord *nc)
{
	struct proto_buf b = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	int fd = net_sock(nc->ctl, &err);
	ssize_t w;

	lz_err_clear(&err);
	if (fd < 0)
		return 0;
	netctl_encode_empty(&b, NETCTL_SUBSCRIBE);
	w = write(fd, b.data, b.len);
	proto_buf_clear(&b);
	if (w < 0) {
		close(fd);
		return 0;
	}
	uv_pipe_init(nc->o.loop, &nc->pipe, 0);
	nc->pipe.data = nc;
	uv_pipe_open(&nc->pipe, fd);
	nc->pipe_live = true;
	uv_read_start((uv_stream_t *)&nc->pipe, net_alloc_cb, net_read_cb);
	return 1;
}

static bool
net_proc_exited(int pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return true;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	/* "pid (comm) S ...": the state follows the last ')'. */
	p = strrchr(buf, ')');
	return p == NULL || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X';
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

		if (net_try_connect(nc)) {
			nc->state = NET_UP;
			if (nc->hosts_pending)
				net_hosts_push(nc);
			if (net_creds_push(nc, err) < 0)
				goto out;
			lz_trace("sidecar: router, rules in place");
			net_audit(nc, "net.start", nc->o.a->sidecar);
			ret = 0;
			goto out;
		}
		/* The loop does not run yet: a router that exited is a zombie until it does. */
		if (net_proc_exited(nc->proc.pid))
			break;
		nanosleep(&ts, NULL);
	}
	lz_err_set(err, EIO, "the network sidecar %s did not start%s (see the coordinator log)",
	    nc->o.a->sidecar, net_proc_exited(nc->proc.pid) ? "" : " in time");
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

static void net_timer_cb(uv_timer_t *t);

static void
net_router_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct net_coord *nc = p->data;
	uint64_t now = net_now_ms();
	char *d;

	nc->proc_live = false;
	uv_close((uv_handle_t *)p, net_proc_close_cb);
	nc->last_status = sig ? 128 + sig : (int)status;
	net_pipe_close(nc);
	if (nc->o.asks_gone_cb != NULL)
		nc->o.asks_gone_cb(nc->o.arg);	/* what it held died with it */
	if (nc->closing)
		return;
	if (now - nc->window_ms > 60000) {
		nc->window_ms = now;
		nc->recent = 0;
	}
	if (nc->state == NET_STARTING)
		return;	/* net_coord_start reports it */
	d = xasprintf("router exited (status %d); egress stays default-deny; %s", nc->last_status,
	    nc->recent < NET_COORD_MAX_RESTARTS ? "restarting" : "too many restarts, network down");
	net_log(nc, "network sidecar: %s", d);
	net_audit(nc, "net.router-exit", d);
	free(d);
	if (nc->recent >= NET_COORD_MAX_RESTARTS) {
		nc->state = NET_DOWN;
		return;
	}
	nc->recent++;
	nc->state = NET_RESTARTING;
	uv_timer_start(&nc->timer, net_timer_cb, 200u * nc->recent, 0);
}

static void
net_timer_cb(uv_timer_t *t)
{
	struct net_coord *nc = t->data;
	lz_err_t err = LZ_ERR_INIT;

	if (nc->closing || nc->state != NET_RESTARTING)
		return;
	if (!nc->proc_live) {
		if (net_router_spawn(nc, &err) < 0) {
			net_log(nc, "network sidecar: %s", err.msg);
			lz_err_clear(&err);
			nc->state = NET_DOWN;
			net_audit(nc, "net.down", "the router could not be started again");
			return;
		}
	} else if (net_try_connect(nc)) {
		char *d = xasprintf("router back (restart %u), %zu policy entries", nc->restarts + 1,
		    nc->n_policy);

		nc->restarts++;
		nc->state = NET_UP;
		if (nc->hosts_pending)
			net_hosts_push(nc);
		if (net_creds_push(nc, &err) < 0) {
			net_log(nc, "%s", err.msg);
			net_audit(nc, "net.broker", err.msg);
			lz_err_clear(&err);
		}
		net_log(nc, "network sidecar: %s", d);
		net_audit(nc, "net.restart", d);
		free(d);
		return;
	} else if (net_now_ms() > nc->deadline_ms) {
		uv_process_kill(&nc->proc, SIGKILL);	/* its exit schedules the next try */
		return;
	}
	uv_timer_start(&nc->timer, net_timer_cb, 50, 0);
}

/* One request on a connection of its own; reads the OK or ERROR reply. */
static int
net_request(struct net_coord *nc, struct proto_buf *req, uint32_t *value, lz_err_t *err)
{
	struct timeval tv = { 5, 0 };
	struct proto_buf in = { 0 };
	uint8_t buf[4096];
	int fd, ret = -1;

	if ((fd = net_sock(nc->ctl, err)) < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (write(fd, req->data, req->len) != (ssize_t)req->len) {
		lz_err_sys(err, errno, "network sidecar: write");
		goto out;
	}
	for (;;) {
		struct proto_header h;
		const uint8_t *p;
		ssize_t n = read(fd, buf, sizeof buf);
		int r;

		if (n <= 0) {
			lz_err_sys(err, n < 0 ? errno : EPIPE, "network sidecar: no answer");
			goto out;
		}
		proto_put(&in, buf, (size_t)n);
		r = proto_frame_parse(in.data, in.len, &h, &p, err);
		if (r < 0)
			goto out;
		if (r == PROTO_NEED_MORE)
			continue;
		if (h.type == PROTO_OK) {
			if (value != NULL && proto_decode_u32(p, h.length, value, err) < 0)
				goto out;
			ret = 0;
		}
		else if (h.type == PROTO_ERROR) {
			struct proto_error e;

			if (proto_decode_error(p, h.length, &e, err) == 0) {
				lz_err_set(err, LZ_EINVAL, "%s", e.text);
				proto_error_clear(&e);
			}
		} else
			lz_err_set(err, EPROTO, "network sidecar: unexpected reply %u", h.type);
		break;
	}
out:
	close(fd);
	proto_buf_clear(&in);
	return ret;
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
	ret = net_request(nc, &b, NULL, err);
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
	ret = net_request(nc, &b, &v, err);
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
	net_pipe_close(nc);
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
