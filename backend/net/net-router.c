/* net-router.c - the router process in the domain's sidecar: spawned by
 * crun exec (podman exec as the fallback), watched as our child, and started
 * again with the policy in force when it dies (a few times a minute at most;
 * then the network stays down, default deny). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/net-coord-int.h"
#include "net/net-hostaddr.h"
#include "net/net-image.h"
#include "sandbox/rootless/pause.h"
#include "sandbox/rootless/storage.h"
#include "strv.h"
#include "xmalloc.h"

static void
net_router_close_cb(uv_handle_t *h)
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
net_router_crun_argv(struct net_coord *nc, char **rargv, char ***argv)
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

int
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
	if (net_router_crun_argv(nc, rargv, &argv) < 0) {
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
		uv_close((uv_handle_t *)&nc->proc, net_router_close_cb);
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

bool
net_router_exited(int pid)
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

static void net_router_timer_cb(uv_timer_t *t);

static void
net_router_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct net_coord *nc = p->data;
	uint64_t now = net_now_ms();
	char *d;

	nc->proc_live = false;
	uv_close((uv_handle_t *)p, net_router_close_cb);
	nc->last_status = sig ? 128 + sig : (int)status;
	net_control_close(nc);
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
	uv_timer_start(&nc->timer, net_router_timer_cb, 200u * nc->recent, 0);
}

static void
net_router_timer_cb(uv_timer_t *t)
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
	} else if (net_control_connect(nc)) {
		char *d = xasprintf("router back (restart %u), %zu policy entries", nc->restarts + 1,
		    nc->n_policy);

		nc->restarts++;
		nc->state = NET_UP;
		if (nc->hosts_pending)
			net_control_hosts_push(nc);
		if (net_control_creds_push(nc, &err) < 0) {
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
	uv_timer_start(&nc->timer, net_router_timer_cb, 50, 0);
}
