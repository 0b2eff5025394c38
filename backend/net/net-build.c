/* net-build.c - a kit build's own Network Sidecar (see net-build.h).
 *
 * net_coord runs on a libuv loop that must turn while the router lives (its
 * output, its control socket, the host's address events), and a build's
 * steps are synchronous: so a forked child owns the loop and the sidecar,
 * tells the parent "up" (or why not) over a pipe, and takes it all down when
 * the parent closes its end of a second pipe, or dies. Forked before the CLI
 * starts any thread or loop of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include "anchor.h"
#include "host/ctl-server.h"
#include "host/proc.h"
#include "net/net-build.h"
#include "net/net-coord.h"
#include "sandbox/driver.h"
#include "strv.h"
#include "xmalloc.h"

#define NET_BUILD_PROFILE	"kit-build"	/* the anchor's profile: names the sidecar */

/* Inside podman unshare: a mount namespace of its own, the router as the
 * only resolver, then the sidecar's network namespace. */
#define NET_BUILD_ENTER \
	"mount --bind \"$1\" /etc/resolv.conf || exit 125; ns=$2; shift 2; " \
	"exec nsenter --net=\"$ns\" -- \"$@\""

struct net_build {
	pid_t child;
	int keep;		/* ours: closing it takes the sidecar down */
	char **wrap;
	char *netns;
	char *name;
};

static void
net_build_gone_cb(uv_poll_t *p, int status, int events)
{
	(void)status;
	(void)events;
	uv_stop(p->loop);
}

/* The child: the sidecar up, "ok" or the error on report, then the loop
 * until keep reads EOF. Never returns. */
static void __attribute__((noreturn))
net_build_child(const struct anchor *a, char *const *policy, size_t n, const char *socket_dir,
		int keep, int report)
{
	struct net_coord_opts o = {
		.a = a, .drv = &podman_ops, .socket_dir = socket_dir,
		.policy = policy, .n_policy = n, .ask_timeout_ms = 0,
	};
	struct net_coord *nc = NULL;
	lz_err_t err = LZ_ERR_INIT;
	uv_loop_t loop;
	uv_poll_t gone;
	int rc = 1, null;

	signal(SIGINT, SIG_IGN);	/* ^C reaches the build; the parent takes us down */
	/* The router's chatter is not the build's progress: errors come over report. */
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	if (uv_loop_init(&loop) != 0)
		_exit(1);
	o.loop = &loop;
	if (net_coord_new(&o, &nc, &err) < 0 || net_coord_start(nc, &err) < 0 ||
	    net_coord_ready(nc, &err) < 0) {
		if (write(report, err.msg, strlen(err.msg)) < 0)
			rc = 1;
		goto out;
	}
	if (write(report, "ok", 2) != 2)
		goto out;
	close(report);
	report = -1;
	uv_poll_init(&loop, &gone, keep);
	uv_poll_start(&gone, UV_READABLE | UV_DISCONNECT, net_build_gone_cb);
	uv_run(&loop, UV_RUN_DEFAULT);
	rc = 0;
out:
	if (nc != NULL)
		net_coord_close(nc);
	net_coord_free(nc);
	_exit(rc);
}

/* The sidecar's PID 1 as the host sees it: its network namespace. */
static char *
net_build_ns(const char *sidecar, lz_err_t *err)
{
	char *argv[] = { (char *)"podman", (char *)"inspect", (char *)"--format", (char *)"{{.State.Pid}}",
	    (char *)sidecar, NULL };
	_cleanup_free_ char *out = NULL;

	if (proc_run_ok(argv, &out, err) < 0)
		return NULL;
	if (out[0] < '1' || out[0] > '9' || out[strspn(out, "0123456789")] != '\0') {
		lz_err_set(err, EIO, "network sidecar %s: no process (podman inspect: '%s')", sidecar, out);
		return NULL;
	}
	return xasprintf("/proc/%s/ns/net", out);
}

int
net_build_up(const char *dir, char *const *policy, size_t n, const char *data_root,
	     const char *socket_dir, struct net_build **out, lz_err_t *err)
{
	struct net_build *nb = xcalloc(1, sizeof *nb);
	struct anchor *a = NULL;
	int keep[2] = { -1, -1 }, report[2] = { -1, -1 }, ret = -1;
	char msg[512];
	ssize_t r;

	nb->keep = -1;
	if (ctl_server_dir_check(socket_dir, true, err) < 0 ||
	    anchor_new(NET_BUILD_PROFILE, dir, data_root, socket_dir, &a, err) < 0)
		goto out;
	if (pipe2(keep, O_CLOEXEC) < 0 || pipe2(report, O_CLOEXEC) < 0) {
		lz_err_sys(err, errno, "build network: pipe");
		goto out;
	}
	fflush(NULL);
	if ((nb->child = fork()) < 0) {
		lz_err_sys(err, errno, "build network: fork");
		goto out;
	}
	if (nb->child == 0) {
		close(keep[1]);
		close(report[0]);
		net_build_child(a, policy, n, socket_dir, keep[0], report[1]);
	}
	close(keep[0]);
	close(report[1]);
	nb->keep = keep[1];
	keep[0] = keep[1] = report[1] = -1;
	do
		r = read(report[0], msg, sizeof msg - 1);
	while (r < 0 && errno == EINTR);
	msg[r > 0 ? r : 0] = '\0';
	if (strcmp(msg, "ok") != 0) {
		lz_err_set(err, EIO, "the build's network sidecar did not start: %s",
			   msg[0] != '\0' ? msg : "it exited");
		goto out;
	}
	nb->name = xstrdup(a->sidecar);
	if ((nb->netns = net_build_ns(a->sidecar, err)) == NULL)
		goto out;
	lz_strv_push(&nb->wrap, "podman");
	lz_strv_push(&nb->wrap, "unshare");
	lz_strv_push(&nb->wrap, "unshare");
	lz_strv_push(&nb->wrap, "--mount");
	lz_strv_push(&nb->wrap, "sh");
	lz_strv_push(&nb->wrap, "-c");
	lz_strv_push(&nb->wrap, NET_BUILD_ENTER);
	lz_strv_push(&nb->wrap, "lazaret-build-net");
	lz_strv_pushf(&nb->wrap, "%s/%s.net/resolv.conf", socket_dir, a->hash);
	lz_strv_push(&nb->wrap, nb->netns);
	*out = nb;
	nb = NULL;
	ret = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (keep[i] >= 0)
			close(keep[i]);
		if (report[i] >= 0)
			close(report[i]);
	}
	net_build_down(nb);
	anchor_free(a);
	return ret;
}

char *const *
net_build_wrap(const struct net_build *nb)
{
	return nb->wrap;
}

const char *
net_build_name(const struct net_build *nb)
{
	return nb->name;
}

const char *
net_build_netns(const struct net_build *nb)
{
	return nb->netns;
}

void
net_build_down(struct net_build *nb)
{
	int st;

	if (nb == NULL)
		return;
	if (nb->keep >= 0)
		close(nb->keep);
	while (nb->child > 0 && waitpid(nb->child, &st, 0) < 0 && errno == EINTR)
		;
	lz_strv_free(nb->wrap);
	free(nb->netns);
	free(nb->name);
	free(nb);
}
