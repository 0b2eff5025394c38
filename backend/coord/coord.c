/* coord.c - the Session Coordinator daemon: start-up, idle, shutdown, teardown.
 *
 * Theory of operation. Start-up runs synchronously before the loop: Domain
 * Root, log, lifetime lock, state store, image check, workspace mounts
 * (sentry), container, control socket; any failure undoes what was done and
 * reports the message through the ready pipe. Then one libuv loop serves the
 * clients (ctl-server.c) and the sessions (session.c). Every session has an
 * owner (the client that created it) and attached clients; the owner leaving
 * ends the session unless it detached first. When no session and no client
 * is left (after a short linger, so that a follower that is just connecting
 * is not turned away), or on SIGINT/SIGTERM/STOP, the coordinator stops
 * listening, ends every session, flushes and closes every client, closes all
 * handles (uv_walk) and runs the loop out; only then does it remove the
 * container, release the mounts and close the store, off the loop.
 * What it answers to each client frame is in coord-dispatch.c, the status
 * text in coord-status.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "coord/coord.h"
#include "coord/coord-int.h"
#include "coord/guard.h"
#include "coord/lock.h"
#include "coord/reap.h"
#include "effcfg.h"
#include "jsonw.h"
#include "coord/screen.h"
#include "net/net-secret.h"
#include "review/review-ident.h"
#include "sandbox/mounts/overlay.h"
#include "sandbox/mounts/preload.h"
#include "sandbox/sentry/sentry-follow.h"
#include "sandbox/sentry/sentry-watch.h"
#include "store/audit.h"
#include "strv.h"
#include "trace.h"
#include "xmalloc.h"

#define COORD_LINGER_MS		500	/* idle -> teardown */
#define COORD_FIRST_CLIENT_MS	30000	/* nobody came: the leader died */
#define COORD_STOP_MS		5000	/* sessions that ignore SIGTERM+SIGKILL */
#define COORD_DEFAULT_IMAGE	"localhost/lazaret-default:latest"

/* Lifetime. */

static void coord_shutdown(struct coord *, const char *why);

static void
coord_idle_cb(uv_timer_t *t)
{
	struct coord *c = t->data;

	if (c->n_sessions == 0 && ctl_server_clients(c->srv) == 0)
		coord_shutdown(c, c->had_client ? "no session and no client left" :
		    "no client came");
}

/* Arm the linger timer when no session and no client is left. */
static void
coord_check_idle(struct coord *c)
{
	if (c->stopping || c->n_sessions > 0 || ctl_server_clients(c->srv) > 0)
		return;
	/* The loop's clock stood still through a start-up that ran before it
	 * (over 30 s with twenty domains starting at once): from now, not then. */
	uv_update_time(c->loop);
	uv_timer_start(&c->idle, coord_idle_cb,
	    c->had_client ? COORD_LINGER_MS : COORD_FIRST_CLIENT_MS, 0);
}

static void
coord_walk_close_cb(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* Close every session, client and handle; the loop then runs out. */
static void
coord_finish(struct coord *c)
{
	size_t i;

	if (c->finished)
		return;
	c->finished = true;
	for (i = 0; i < c->n_sessions; i++) {
		screen_free(c->sessions[i]->screen);
		c->sessions[i]->screen = NULL;
		session_close(c->sessions[i]);
		session_unref(c->sessions[i]);
	}
	c->n_sessions = 0;
	esc_coord_close(c->esc);
	net_coord_close(c->net);
	ctl_server_shutdown(c->srv);
	uv_close((uv_handle_t *)&c->sig_int, NULL);
	uv_close((uv_handle_t *)&c->sig_term, NULL);
	uv_close((uv_handle_t *)&c->sig_hup, NULL);
	uv_close((uv_handle_t *)&c->idle, NULL);
	uv_close((uv_handle_t *)&c->stop_timer, NULL);
	uv_close((uv_handle_t *)&c->nr_due, NULL);
	if (c->guard_watch)
		uv_close((uv_handle_t *)&c->guard_poll, NULL);
	/* A session end still waiting for an import is answered (teardown imports). */
	sentry_watch_stop(c->watch);
	sentry_follow_stop(c->follow);
	coord_limits_close(c);
}

static void
coord_stop_timer_cb(uv_timer_t *t)
{
	struct coord *c = t->data;

	coord_log("%zu session(s) did not end in time", c->n_sessions);
	coord_finish(c);
}

/* First call: stop listening and end every session; the last session's exit
 * (or the stop timer) then finishes. why NULL: called again from an exit. */
static void
coord_shutdown(struct coord *c, const char *why)
{
	size_t i;

	if (c->stopping) {
		if (c->n_sessions == 0)
			coord_finish(c);
		return;
	}
	c->stopping = true;
	coord_log("tearing down: %s", why != NULL ? why : "");
	{
		struct lz_jsonw w;

		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "reason"); lz_jsonw_str(&w, why != NULL ? why : "");
		lz_jsonw_key(&w, "sessions"); lz_jsonw_int(&w, (int64_t)c->n_sessions);
		coord_audit(c, "domain.stop", "coordinator", NULL, &w);
	}
	ctl_server_stop(c->srv);
	uv_timer_stop(&c->idle);
	for (i = 0; i < c->n_sessions; i++)
		session_end(c->sessions[i]);
	if (c->n_sessions > 0)
		uv_timer_start(&c->stop_timer, coord_stop_timer_cb, COORD_STOP_MS, 0);
	else
		coord_finish(c);
}

static void
coord_signal_cb(uv_signal_t *h, int signum)
{
	struct coord *c = h->data;

	if (signum == SIGHUP)
		return;
	coord_shutdown(c, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

/* Start-up pieces. */

static int
coord_mkdir_p(const char *path, lz_err_t *err)
{
	char *p = xstrdup(path), *s;
	int ret = 0;

	for (s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char was = *s;

		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			ret = lz_err_sys(err, errno, "cannot create %s", p);
			break;
		}
		if (was == '\0')
			break;
		*s = was;
	}
	free(p);
	return ret;
}

static int
coord_open_log(const struct anchor *a, lz_err_t *err)
{
	char *path = xasprintf("%s/coordinator.log", a->domain_root);
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		lz_err_sys(err, errno, "cannot open %s", path);
		free(path);
		return -1;
	}
	free(path);
	/* dup2 clears close-on-exec: sessions get the PTY, not the log, anyway. */
	if (dup2(fd, STDERR_FILENO) < 0) {
		close(fd);
		return lz_err_sys(err, errno, "dup2");
	}
	close(fd);
	return 0;
}

static int
coord_check_image(struct coord *c, const char *image, lz_err_t *err)
{
	bool exists;

	if (c->drv->image_exists(image, &exists, err) < 0)
		return -1;
	if (exists)
		return 0;
	if (strcmp(image, COORD_DEFAULT_IMAGE) == 0)
		return lz_err_set(err, ENOENT, "image %s not found: build it with "
		    "'lazaret image build-default'", image);
	return lz_err_set(err, ENOENT, "image %s not found locally (no registry is used): "
	    "build or load it with podman, or use the default image ('lazaret image "
	    "build-default')", image);
}

/* After a failed start: a missing image replaces podman's words with ours. */
static void
coord_image_error(struct coord *c, lz_err_t *err)
{
	lz_err_t e = LZ_ERR_INIT;

	if (coord_check_image(c, c->o->resolved->profile->image, &e) < 0 && e.code == ENOENT) {
		lz_err_clear(err);
		*err = e;
		return;
	}
	lz_err_clear(&e);
}

/* A volume's mode ("ro,z", validated at load): read-only, relabel option. */
static void
coord_volume_mode(const char *mode, bool *ro, char **opts)
{
	char *dup = xstrdup(mode != NULL ? mode : ""), *w, *save = NULL;

	*ro = false;
	*opts = NULL;
	for (w = strtok_r(dup, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save)) {
		if (strcmp(w, "ro") == 0)
			*ro = true;
		else if (strcmp(w, "z") == 0 || strcmp(w, "Z") == 0)
			*opts = xstrdup(w);
	}
	free(dup);
}

/* Begin creating the sandbox (podman run -d, not waited for): its spec in
 * c->ctr_spec, its job in c->ctr_job, finished by coord_container_finish
 * (or at teardown). */
static int
coord_container_begin(struct coord *c, lz_err_t *err)
{
	const struct cfg_resolved *r = c->o->resolved;
	struct drv_spec *sp;
	char **ident;
	size_t i;
	int ret = -1;

	sp = xcalloc(1, sizeof *sp);
	sp->name = xstrdup(c->a->container);
	sp->image = xstrdup(r->profile->image);
	sp->network = xstrdup("none");	/* network: none, or joined to the sidecar below */
	sp->workdir = xstrdup(SENTRY_WORKSPACE_DST);
	/* The agent's commits say so (git log tells them from yours), unless
	 * the profile's env sets the GIT_AUTHOR_* / GIT_COMMITTER_* itself. */
	ident = review_ident_env(c->a->profile, c->a->workspace, c->layout.user_email, r->env);
	for (i = 0; ident != NULL && ident[i] != NULL; i++) {
		sp->env = xreallocarray(sp->env, sp->n_env + 1, sizeof *sp->env);
		sp->env[sp->n_env++] = xstrdup(ident[i]);
	}
	lz_strv_free(ident);
	for (i = 0; i < r->n_env; i++) {
		sp->env = xreallocarray(sp->env, sp->n_env + 1, sizeof *sp->env);
		sp->env[sp->n_env++] = xstrdup(r->env[i]);
	}
	for (i = 0; i < c->layout.n_mounts; i++)
		drv_spec_add_mount(sp, &c->layout.mounts[i]);
	for (i = 0; i < c->n_ovl; i++)
		drv_spec_add_mount(sp, &c->ovl[i]);
	if (preload_spec(c->a, sp, err) < 0)
		goto out;
	if (c->esc != NULL && esc_coord_spec(c->esc, sp, err) < 0)
		goto out;
	if (c->net != NULL && net_coord_spec(c->net, sp, err) < 0)
		goto out;
	/* The workspace relabelled shared (spec: ":z"; a no-op without SELinux). */
	for (i = 0; i < sp->n_mounts; i++)
		if (strcmp(sp->mounts[i].dst, SENTRY_WORKSPACE_DST) == 0 &&
		    sp->mounts[i].type == DRV_MOUNT_BIND && sp->mounts[i].opts == NULL)
			sp->mounts[i].opts = xstrdup("z");
	for (i = 0; i < r->n_volumes; i++) {
		struct drv_mount m = {
			.type = DRV_MOUNT_BIND, .src = r->volumes[i].host,
			.dst = r->volumes[i].container,
		};

		coord_volume_mode(r->volumes[i].mode, &m.ro, &m.opts);
		/* Under a token's directory it is ours to create (0700), not the user's;
		 * volumes past the profile's own are Lazaret's (trust_host_ca) */
		if (i < r->profile->n_volumes && r->profile->volumes[i].host[0] == '{' &&
		    coord_mkdir_p(m.src, err) < 0) {
			free(m.opts);
			lz_err_wrap(err, "volume %s", r->volumes[i].container);
			goto out;
		}
		drv_spec_add_mount(sp, &m);
		free(m.opts);
	}
	if (coord_user_spec(c, sp, err) < 0)
		goto out;
	coord_limits_spec(c, sp);
	sp->labels = xcalloc(2, sizeof *sp->labels);
	sp->labels[sp->n_labels++] = xasprintf("lazaret.domain=%s", c->a->hash);
	sp->labels[sp->n_labels++] = xasprintf("lazaret.profile=%s", c->a->profile);
	coord_log("creating container %s from %s", sp->name, sp->image);
	/* Mark it ours first: a create that half-worked is removed too. */
	c->container_ours = true;
	/* Create first, look only on a name conflict: one podman call fewer cold. */
	if (c->drv->create_start(sp, &c->ctr_job, err) < 0)
		goto out;
	c->ctr_spec = lz_steal_ptr(&sp);
	ret = 0;
out:
	drv_spec_free(sp);
	return ret;
}

/* Wait for the creation coord_container_begin started. */
static int
coord_container_finish(struct coord *c, bool early, lz_err_t *err)
{
	struct drv_spec *sp = lz_steal_ptr(&c->ctr_spec);
	int ret = c->drv->create_finish(lz_steal_ptr(&c->ctr_job), err);

	/* Begun beside the sidecar's start, it may have looked for the sidecar
	 * between its podman's two steps: once more, now that it runs. */
	if (ret < 0 && early && err->code != EEXIST && err->code != ENOENT) {
		coord_log("creating container %s again, after the sidecar: %s", sp->name, err->msg);
		lz_err_clear(err);
		ret = c->drv->create(sp, err);
	}
	if (ret < 0 && err->code == EEXIST) {
		/* A container left behind by a coordinator that died (we hold the
		 * domain's lifetime lock, so its owner is gone) has lost every session
		 * with its PTYs, and its escalation socket and TLS mounts point at the
		 * dead coordinator's files: replace it rather than adopt it. */
		lz_err_clear(err);
		coord_log("removing container %s left by a previous coordinator", sp->name);
		ret = c->drv->remove(sp->name, err) < 0 ? -1 : c->drv->create(sp, err);
	}
	drv_spec_free(sp);
	return ret;
}

static int
coord_create_container(struct coord *c, lz_err_t *err)
{
	return coord_container_begin(c, err) < 0 ? -1 : coord_container_finish(c, false, err);
}

/* Said once: a way in that cannot hand a credential over on an fd gets none
 * (escalation off for its sessions), rather than one in every environ. */
static void
coord_secret_note(const struct coord *c)
{
	if (c->esc != NULL && !coord_secret_safe(c))
		coord_log("escalation: off for this sandbox's sessions: they start with %s, "
		    "which would put the session credential in their environment, readable by "
		    "every process in the sandbox (lazaret sandbox-exec hands it over on an fd)",
		    c->direct != NULL ? "runsc exec" : "podman exec");
}

/* Sessions start with the runtime's own exec when the driver finds what it
 * needs (one log line either way); LAZARET_PODMAN_EXEC=1 keeps podman exec. */
static void
coord_direct_open(struct coord *c)
{
	const char *force = getenv("LAZARET_PODMAN_EXEC");
	char *why = NULL;

	if (c->drv->direct_open == NULL)
		return;
	if (force != NULL && force[0] != '\0' && strcmp(force, "0") != 0) {
		coord_log("sessions start with podman exec: LAZARET_PODMAN_EXEC is set");
		return;
	}
	if ((c->direct = c->drv->direct_open(c->a->container, &why)) != NULL) {
		coord_log("sessions start %s", why != NULL ? why : "with runsc exec (no podman exec)");
		free(why);
		coord_secret_note(c);
		return;
	}
	coord_log("sessions start with podman exec: %s", why);
	free(why);
	coord_secret_note(c);
}

/* A Sentry report (import refused, refs left out, .git quarantined): the
 * log and the audit trail; through coord_audit (in order) while the loop
 * runs, at once after it (teardown). */
static void
coord_sentry_audit(struct coord *c, const char *kind, const char *msg, bool on_loop)
{
	struct lz_jsonw w;
	struct audit_rec rec = { 0, kind, "coordinator", NULL, NULL, NULL };
	lz_err_t err = LZ_ERR_INIT;
	char *detail;

	coord_log("%s", msg);
	if (c->store == NULL)
		return;
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "report");
	lz_jsonw_str(&w, msg);
	if (on_loop) {
		coord_audit(c, kind, "coordinator", NULL, &w);
		return;
	}
	lz_jsonw_obj_close(&w);
	detail = lz_jsonw_steal(&w);
	rec.detail = detail;
	if (audit_append(c->store, &rec, NULL, &err) < 0) {
		coord_log("%s", err.msg);
		lz_err_clear(&err);
	}
	free(detail);
}

static void
coord_watch_log(void *arg, const char *msg)
{
	coord_sentry_audit(arg, "sentry.import", msg, true);
}

/* Undo start-up, in reverse; used after the loop and on a failed start.
 * Returns the number of steps that failed (the guard then retries them). */
static int
coord_teardown(struct coord *c)
{
	lz_err_t err = LZ_ERR_INIT;
	int failed = 0;

	/* A creation still under way ends first, or it would outlive the removal. */
	if (c->ctr_job != NULL && c->drv->create_finish(lz_steal_ptr(&c->ctr_job), &err) < 0)
		lz_err_clear(&err);
	drv_spec_free(lz_steal_ptr(&c->ctr_spec));
	if (c->container_ours) {
		coord_log("removing container %s", c->a->container);
		if (c->drv->remove(c->a->container, &err) < 0) {
			coord_log("%s", err.msg);
			lz_err_clear(&err);
			failed++;
		}
		c->container_ours = false;
	}
	coord_limits_release(c);
	if (c->ovl_ok) {
		if (overlay_unmount(c->a, false, &err) < 0) {
			coord_log("%s", err.msg);
			lz_err_clear(&err);
			failed++;
		}
		c->ovl_ok = false;
	}
	while (c->n_ovl > 0)
		drv_mount_clear(&c->ovl[--c->n_ovl]);
	free(c->ovl);
	c->ovl = NULL;
	sentry_watch_free(c->watch);
	sentry_follow_free(c->follow);
	c->watch = NULL;
	if (c->layout_ok) {
		char *note = NULL;

		if (sentry_release(c->a, &note, &err) < 0) {
			coord_log("%s", err.msg);
			lz_err_clear(&err);
			failed++;
		}
		if (note != NULL)
			coord_sentry_audit(c, "sentry.release", note, false);
		free(note);
		sentry_layout_clear(&c->layout);
		c->layout_ok = false;
	}
	esc_coord_free(c->esc);
	c->esc = NULL;
	/* After the sandbox, which lives in the sidecar's namespace. */
	net_coord_free(c->net);
	net_secret_free(c->creds);	/* wiped: the secrets leave with the router */
	c->creds = NULL;
	c->net = NULL;
	free(c->effcfg);
	c->effcfg = NULL;
	lz_strv_free(c->effcfg_edits);
	c->effcfg_edits = NULL;
	if (c->store != NULL) {
		store_close(c->store);
		c->store = NULL;
	}
	return failed;
}

/* After the teardown: a clean one releases the guard, else it retries. */
static void
coord_release_guard(struct coord *c, int failed)
{
	if (c->guard_fd < 0)
		return;
	if (failed == 0) {
		reap_unmark(c->a);
		guard_done(c->guard_fd);
	} else {
		coord_log("%d teardown step(s) failed: the guard cleans up", failed);
		close(c->guard_fd);
	}
	c->guard_fd = -1;
}

/* The guard's end: EOF means it died, and nobody would clean up after us. */
static void
coord_guard_cb(uv_poll_t *h, int status, int events)
{
	struct coord *c = h->data;
	char buf[16];
	ssize_t n = 1;

	if (status >= 0 && (events & UV_READABLE))
		n = read(c->guard_fd, buf, sizeof buf);
	if (status < 0 || n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) ||
	    (events & UV_DISCONNECT)) {
		uv_poll_stop(h);
		coord_shutdown(c, "the guard process died: no sandbox runs unguarded");
	}
}

static void
coord_ready(int fd, const lz_err_t *err)
{
	ssize_t n;

	if (fd < 0)
		return;
	if (err != NULL && err->msg != NULL)
		n = write(fd, err->msg, strlen(err->msg));
	else
		n = 0;
	(void)n;
	close(fd);
}

static int
coord_start(struct coord *c, lz_err_t *err)
{
	const struct anchor *a = c->a;
	const char *socket_dir_end = strrchr(a->ctl_socket, '/');
	char *socket_dir = xstrndup(a->ctl_socket, (size_t)(socket_dir_end - a->ctl_socket));
	char *live = NULL;
	static const struct ctl_server_cbs cbs = {
		coord_connect_cb, coord_frame_cb, coord_disconnect_cb, coord_drain_cb,
	};
	/* The Sentry's probe (one git, read-only) runs beside the locks and the
	 * state store; sentry_prepare checks what it found, after the lock. */
	struct sentry_job *probe = sentry_probe_begin(a);
	bool early;
	int r, ret = -1;

	if (coord_mkdir_p(a->domain_root, err) < 0)
		goto out;
	if (coord_open_log(a, err) < 0)
		goto out;
	coord_log("starting for domain %s (profile %s, workspace %s)", a->hash, a->profile,
	    a->workspace);
	if (ctl_server_dir_check(socket_dir, true, err) < 0)
		goto out;
	live = lock_live_path(a);
	if (lock_open(live, &c->live_fd, err) < 0)
		goto out;
	/* Wait a little: a `lazaret ls` may be probing the lock this instant. */
	if ((r = lock_wait(c->live_fd, 2000, err)) <= 0) {
		if (r == 0)
			lz_err_set(err, EBUSY, "another coordinator is running for domain %s",
			    a->hash);
		goto out;
	}
	/* Before anything that needs cleaning up: the guard, then the record.
	 * The store opens while the guard starts, unless the sidecar's creation
	 * (the longer way) is to start as soon as the guard watches. */
	if (guard_start(a, c->o->cfg->data_root, c->o->cfg->esc_socket_dir, &c->guard_fd,
	    err) < 0)
		goto out;
	if (!c->o->resolved->sidecar && store_open(a->state_db, &c->store, err) < 0)
		goto out;
	if (guard_ready(c->guard_fd, err) < 0 || reap_mark(a, err) < 0)
		goto out;
	uv_poll_init(c->loop, &c->guard_poll, c->guard_fd);
	c->guard_poll.data = c;
	uv_poll_start(&c->guard_poll, UV_READABLE | UV_DISCONNECT, coord_guard_cb);
	c->guard_watch = true;
	/* The sidecar's container is created meanwhile (a podman start-up and
	 * slirp4netns); its router starts before the sandbox is created and its
	 * rules come before any session (coord_net_start, coord_net_ready). A
	 * failed start waits for it, then removes it. */
	if (c->o->resolved->sidecar && (coord_net_begin(c, err) < 0 ||
	    store_open(a->state_db, &c->store, err) < 0))
		goto out;
	lz_trace("log, locks, state store");
	/* No image check up front (a podman start-up on every cold start): the
	 * overlays' image inspect or podman run --pull=never fails on a missing
	 * image, and coord_image_error then says which and how to get it. */
	if (sentry_prepare_probed(a, c->o->mode, lz_steal_ptr(&probe), &c->layout, err) < 0)
		goto out;
	c->layout_ok = true;
	if (c->layout.is_git && sentry_object_cap_set(a,
	    c->o->resolved->profile->limits.git_object, err) < 0)
		goto out;
	lz_trace("git sentry");
	if (c->layout.notice != NULL)
		coord_log("%s", c->layout.notice);
	if (c->layout.is_git) {
		c->watch = sentry_watch_start(c->loop, a, coord_watch_log, c);
		c->follow = sentry_follow_start(c->loop, a);
	}
	/* Marked before the call: a half-made mount set is unmounted too. */
	c->ovl_ok = true;
	if (overlay_mount(a, c->o->resolved->profile->image, c->o->resolved->profile->persistent_dirs,
	    c->o->resolved->profile->n_persistent_dirs, &c->ovl, &c->n_ovl, err) < 0) {
		coord_image_error(c, err);
		goto out;
	}
	lz_trace("overlays: fuse-overlayfs");
	coord_user_decide(c);
	/* Before the container: the socket and TLS files must exist to be mounted. */
	if (c->o->cfg->esc_enabled && coord_esc_start(c, err) < 0)
		goto out;
	lz_trace("trust anchor, escalation socket");
	if (coord_limits_start(c, err) < 0)
		goto out;
	lz_trace("resource limits");
	/* The sandbox joins the sidecar's namespace: its podman run begins as
	 * soon as podman knows the sidecar and waits until the sidecar runs, so
	 * the two start side by side; the router installs its rules meanwhile,
	 * with only the sandbox's init (catatonit, which sends nothing) in it
	 * until the first session. */
	early = c->net != NULL && net_coord_listed(c->net) == 1;
	if (early && coord_container_begin(c, err) < 0)
		goto out;
	if (early)
		lz_trace("sandbox: podman run -d begun");
	if (c->o->resolved->sidecar && coord_net_start(c, err) < 0)
		goto out;
	if ((early ? coord_container_finish(c, true, err) : coord_create_container(c, err)) < 0) {
		coord_image_error(c, err);
		goto out;
	}
	lz_trace("container (podman run -d)");
	/* The rules in place before the control socket opens: no session sooner. */
	if (c->o->resolved->sidecar && coord_net_ready(c, err) < 0)
		goto out;
	coord_direct_open(c);
	lz_trace("exec path (conmon, config.json)");
	coord_limits_watch(c);
	coord_effcfg(c);
	if (ctl_server_listen(c->loop, a->ctl_socket, &cbs, c, &c->srv, err) < 0)
		goto out;
	{
		struct lz_jsonw w;

		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "container"); lz_jsonw_str(&w, a->container);
		lz_jsonw_key(&w, "mode");
		lz_jsonw_str(&w, c->o->mode == SENTRY_DIRECT ? "direct" : "isolated");
		lz_jsonw_key(&w, "image"); lz_jsonw_str(&w, c->o->resolved->profile->image);
		lz_jsonw_key(&w, "pid"); lz_jsonw_int(&w, getpid());
		coord_audit(c, "domain.start", "coordinator", NULL, &w);
	}
	/* What the Sentry found at prepare (imports, conversions, quarantine). */
	if (c->layout.report != NULL)
		coord_sentry_audit(c, "sentry.prepare", c->layout.report, true);
	/* Files refused for safety (a grants file Lazaret did not write). */
	for (size_t i = 0; c->o->cfg->refused != NULL && c->o->cfg->refused[i] != NULL; i++)
		coord_sentry_audit(c, "config.refused", c->o->cfg->refused[i], true);
	lz_trace("listening");
	ret = 0;
out:
	sentry_job_free(probe);
	free(live);
	free(socket_dir);
	return ret;
}

int
coord_main(const struct coord_opts *o, lz_err_t *err)
{
	struct coord c;
	uv_loop_t loop;
	int ret = -1;

	memset(&c, 0, sizeof c);
	c.o = o;
	c.a = o->anchor;
	c.drv = &podman_ops;
	c.live_fd = -1;
	c.guard_fd = -1;
	c.started_ms = coord_now_ms();
	c.cpu_permille = -1;
	c.check_idle = coord_check_idle;
	c.shutdown = coord_shutdown;
	if (sodium_init() < 0)
		return lz_err_set(err, EINVAL, "libsodium failed to initialise");
	signal(SIGPIPE, SIG_IGN);
	uv_loop_init(&loop);
	c.loop = &loop;
	uv_timer_init(&loop, &c.idle);
	c.idle.data = &c;
	uv_timer_init(&loop, &c.stop_timer);
	c.stop_timer.data = &c;
	uv_timer_init(&loop, &c.nr_due);
	c.nr_due.data = &c;
	uv_signal_init(&loop, &c.sig_int);
	uv_signal_init(&loop, &c.sig_term);
	uv_signal_init(&loop, &c.sig_hup);
	c.sig_int.data = c.sig_term.data = c.sig_hup.data = &c;
	/* Signals first: a SIGTERM during start-up still tears down cleanly. */
	uv_signal_start(&c.sig_int, coord_signal_cb, SIGINT);
	uv_signal_start(&c.sig_term, coord_signal_cb, SIGTERM);
	uv_signal_start(&c.sig_hup, coord_signal_cb, SIGHUP);
	if (coord_start(&c, err) < 0) {
		coord_log("start-up failed: %s", err->msg);
		coord_ready(o->ready_fd, err);
		esc_coord_close(c.esc);
		net_coord_close(c.net);
		uv_walk(&loop, coord_walk_close_cb, NULL);
		uv_run(&loop, UV_RUN_DEFAULT);
		coord_release_guard(&c, coord_teardown(&c));
		goto out;
	}
	coord_log("listening on %s", c.a->ctl_socket);
	coord_ready(o->ready_fd, NULL);
	coord_check_idle(&c);
	uv_run(&loop, UV_RUN_DEFAULT);
	/* Anything still open (work requests finish first) is closed here. */
	uv_walk(&loop, coord_walk_close_cb, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	coord_release_guard(&c, coord_teardown(&c));
	coord_log("stopped");
	ret = 0;
out:
	ctl_server_free(c.srv);
	if (c.direct != NULL)
		c.drv->direct_free(c.direct);
	free(c.sessions);
	free(c.followers);
	free(c.esc_watch);
	coord_netreq_free(&c);
	if (uv_loop_close(&loop) != 0)
		coord_log("loop not empty at exit");
	if (c.live_fd >= 0)
		close(c.live_fd);
	return ret;
}
