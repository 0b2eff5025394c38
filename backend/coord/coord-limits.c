/* coord-limits.c - the coordinator's side of a sandbox's resource limits
 * (backend/sandbox/limits.h): the domain's cgroups before the container,
 * RLIMIT_NPROC and a sized /tmp in its spec, and a watchdog that notices the
 * kernel's OOM kill and the host task backstop, and stops the sandbox past
 * the disk bound. (The audit trail's own reserve on a full data_root is the
 * store's: state.db.reserve, given up so that refusals are still recorded.) Whatever stopped
 * the sandbox is logged, audited (kind limit.<what>) and shown by `lazaret
 * status`; the coordinator itself lives on.
 *
 * Nothing here wakes an idle domain on a clock of its own but the disk
 * walk's safety net. The kernel's OOM kill arrives on an eventfd (cgroup
 * v1's memory.oom_control; on a hybrid host pids.events sends no event, so
 * the task backstop, which takes the sandbox down, is read when a session
 * exits with it, when a session is asked for and when status is). The disk
 * walk, a process each time, runs every COORD_DISK_MIN_MS while the total
 * moves and backs off to COORD_DISK_MAX_MS while it does not; the same
 * eventfd fires when the memory cgroup's use crosses a rung (files the
 * sandbox writes are page cache charged there), which brings the next walk
 * to COORD_DISK_SOON_MS. Without a memory cgroup the walk keeps to
 * COORD_DISK_MIN_MS, as before.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "coord/coord.h"
#include "coord/coord-int.h"
#include "host/proc.h"
#include "jsonw.h"
#include "prefix.h"
#include "sandbox/disk-usage.h"
#include "sandbox/rootless/pause.h"
#include "store/audit.h"
#include "strv.h"
#include "xmalloc.h"

#define COORD_DISK_MIN_MS	5000	/* the walk's interval while the total moves */
#define COORD_DISK_MAX_MS	60000	/* ... backed off to while it does not */
#define COORD_DISK_SOON_MS	1000	/* after the memory cgroup's use crossed a rung */
#define COORD_RUNG_BYTES	(32ULL << 20)	/* those rungs' spacing */
#define COORD_DISK_MOVED	(1ULL << 20)	/* a total that moved less has not moved: the
					 * coordinator's own log lines are no writer */

int
coord_limits_start(struct coord *c, lz_err_t *err)
{
	const struct cfg_limits *l = &c->o->resolved->profile->limits;
	_cleanup_free_ char *why = NULL;

	limits_host_probe(&c->lhost);
	if ((why = limits_unenforced(&c->lhost, l)) != NULL)
		coord_log("%s", why);
	if (limits_domain_setup(&c->lhost, c->a->hash, l, &c->ldom, err) < 0)
		return lz_err_wrap(err, "resource limits");
	return 0;
}

void
coord_limits_spec(struct coord *c, struct drv_spec *sp)
{
	const struct cfg_limits *l = &c->o->resolved->profile->limits;
	struct drv_mount tmp = { .type = DRV_MOUNT_TMPFS, .dst = (char *)"/tmp", .tmpfs_mode = 01777 };

	if (l->pids > 0)
		lz_strv_pushf(&sp->ulimits, "nproc=%ld:%ld", l->pids, l->pids);
	/* gVisor enforces a tmpfs size: files in /tmp are memory, half of it. */
	if (l->memory > 0) {
		tmp.tmpfs_size = l->memory / 2;
		drv_spec_add_mount(sp, &tmp);
	}
	sp->cgroups = limits_domain_cgroups(&c->ldom);
}

/* The sandbox is stopped for a limit: say it everywhere, once. */
static void
coord_limits_hit(struct coord *c, const char *kind, const char *msg)
{
	struct lz_jsonw w;
	struct audit_rec rec = { 0 };

	if (c->limit_hit != NULL)
		return;
	c->limit_hit = xstrdup(msg);
	coord_log("%s", msg);
	if (c->store == NULL)
		return;
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "message"); lz_jsonw_str(&w, msg);
	lz_jsonw_obj_close(&w);
	rec.kind = kind;
	rec.actor = "coordinator";
	rec.detail = w.buf;
	audit_submit(c->loop, c->store, &rec, NULL, NULL);
	lz_jsonw_free(&w);
}

/* The threadpool: remove the container (every agent process dies with it). */
static void
coord_limits_stop_work_cb(uv_work_t *req)
{
	struct coord *c = req->data;
	lz_err_t err = LZ_ERR_INIT;

	if (c->drv->remove(c->a->container, &err) < 0)
		coord_log("%s", err.msg);
	lz_err_clear(&err);
}

static void
coord_limits_stop_after_cb(uv_work_t *req, int status)
{
	(void)status;
	free(req);
}

static void
coord_limits_stop(struct coord *c)
{
	uv_work_t *req = xcalloc(1, sizeof *req);

	req->data = c;
	if (uv_queue_work(c->loop, req, coord_limits_stop_work_cb, coord_limits_stop_after_cb)
	    != 0)
		free(req);
}

/* The walk in rootless podman's user namespace, where no mode hides what the
 * sandbox's uids wrote (disk-usage.h): ns-exec, then the disk-usage step.
 * 1 when podman's namespace is not there and the walk ran in ours. */
static int
coord_limits_disk_measure(char *const *paths, struct disk_usage *du, lz_err_t *err)
{
	struct proc_result r = { 0 };
	char **argv = NULL, *self = NULL;
	size_t i;
	int ret = -1;

	if (pause_exec_prefix(&argv) < 0 || (self = lz_prefix_exec_helper()) == NULL) {
		lz_strv_free(argv);
		return disk_usage_walk(paths, du, err) < 0 ? -1 : 1;
	}
	lz_strv_push(&argv, self);
	lz_strv_push(&argv, "disk-usage");
	for (i = 0; paths[i] != NULL; i++)
		lz_strv_push(&argv, paths[i]);
	if (proc_run(argv, NULL, NULL, 0, &r, err) < 0)
		goto out;
	if (r.status != 0) {
		lz_err_set(err, EIO, "the disk-usage step exited %d: %.200s", r.status,
		    r.errout != NULL ? r.errout : "");
		goto out;
	}
	if (disk_usage_parse(r.out, r.out_len, du, err) < 0)
		goto out;
	ret = 0;
out:
	proc_result_clear(&r);
	lz_strv_free(argv);
	free(self);
	return ret;
}

/* One walk on the threadpool: its result comes back in the request, read
 * on the loop only. */
struct coord_disk_req {
	uv_work_t w;
	struct coord *c;
	uint64_t used;
	bool ok;
};

/* The threadpool: how much of the disk bound and of data_root is used. */
static void
coord_limits_disk_work_cb(uv_work_t *w)
{
	struct coord_disk_req *r = w->data;
	lz_err_t err = LZ_ERR_INIT;
	struct disk_usage du;
	int ret;

	if ((ret = coord_limits_disk_measure(r->c->disk_paths, &du, &err)) < 0) {
		coord_log("disk watchdog: %s", err.msg);
	} else {
		r->used = du.bytes;
		r->ok = true;
		if (du.unreadable > 0)
			coord_log("disk watchdog: %llu directories could not be read%s: their "
			    "contents are not counted", (unsigned long long)du.unreadable,
			    ret == 1 ? " (no rootless podman namespace to read them in)" :
			    " even in podman's user namespace");
	}
	lz_err_clear(&err);
}

static void coord_limits_walk_cb(uv_timer_t *t);

/* The next walk: soon again while the total moves; backed off while it does
 * not, when the memory cgroup's eventfd will say that something is written. */
static void
coord_limits_next(struct coord *c, bool moved)
{
	if (moved || !c->limits_poll_on || !uv_is_active((uv_handle_t *)&c->limits_poll))
		c->disk_every_ms = COORD_DISK_MIN_MS;
	else if ((c->disk_every_ms *= 2) > COORD_DISK_MAX_MS)
		c->disk_every_ms = COORD_DISK_MAX_MS;
	if (c->limits_timer_on && !c->stopping)
		uv_timer_start(&c->limits_timer, coord_limits_walk_cb, c->disk_every_ms, 0);
}

static void
coord_limits_disk_after_cb(uv_work_t *w, int status)
{
	struct coord_disk_req *r = w->data;
	struct coord *c = r->c;
	const struct cfg_limits *l = &c->o->resolved->profile->limits;
	_cleanup_free_ char *lim = cfg_size_text(l->disk), *msg = NULL;
	bool moved = status == 0 && r->ok && (r->used > c->disk_used + COORD_DISK_MOVED ||
	    r->used + COORD_DISK_MOVED < c->disk_used);

	if (status == 0 && r->ok)
		c->disk_used = r->used;
	free(r);
	c->disk_busy = false;
	coord_limits_next(c, moved);
	if (status < 0 || c->stopping || c->limit_hit != NULL)
		return;
	if (l->disk > 0 && c->disk_used > l->disk) {
		msg = xasprintf("disk limit %s reached (%llu MiB written in the sandbox's "
		    "writable layer and Domain Root): the sandbox was stopped; free space under "
		    "%s or raise limits.disk, then 'lazaret stop' and run again", lim,
		    (unsigned long long)(c->disk_used >> 20), c->a->domain_root);
		coord_limits_hit(c, "limit.disk", msg);
		coord_limits_stop(c);
	}
}

void
coord_limits_check(struct coord *c)
{
	const struct cfg_limits *l = &c->o->resolved->profile->limits;
	_cleanup_free_ char *msg = NULL, *lim = NULL;

	if (limits_domain_oom(&c->ldom)) {
		lim = cfg_size_text(l->memory);
		msg = xasprintf("memory limit %s reached: the kernel's OOM killer stopped the "
		    "sandbox (every process in it); raise limits.memory, then 'lazaret stop' and "
		    "run again", lim);
		coord_limits_hit(c, "limit.memory", msg);
	} else if (limits_domain_pids_hit(&c->ldom)) {
		msg = xasprintf("pids limit %ld reached sandbox-wide: its processes (under several "
		    "uids: each uid has its own limit of %ld) met the host task bound of %ld, and "
		    "the sandbox was stopped; raise limits.pids, then 'lazaret stop' and run again",
		    l->pids, l->pids, limits_host_tasks(l->pids));
		coord_limits_hit(c, "limit.pids", msg);
	}
}

static void
coord_limits_walk_cb(uv_timer_t *t)
{
	struct coord *c = t->data;
	struct coord_disk_req *r;

	if (c->stopping)
		return;
	/* A safety net for the counters no event reports (limits.h). */
	coord_limits_check(c);
	if (c->disk_busy || c->disk_paths == NULL) {
		coord_limits_next(c, true);
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->w.data = r;
	r->c = c;
	c->disk_busy = true;
	if (uv_queue_work(c->loop, &r->w, coord_limits_disk_work_cb, coord_limits_disk_after_cb)
	    != 0) {
		c->disk_busy = false;
		free(r);
		coord_limits_next(c, true);
	}
}

/* The memory cgroup's eventfd: an OOM, or its use crossed a rung. */
static void
coord_limits_event_cb(uv_poll_t *p, int status, int events)
{
	struct coord *c = p->data;
	uint64_t n;

	(void)events;
	if (status < 0 || (read(c->limits_efd, &n, sizeof n) < 0 && errno != EAGAIN)) {
		/* Never again: the walk keeps its plain interval (coord_limits_next). */
		uv_poll_stop(p);
		return;
	}
	if (c->stopping)
		return;
	/* The OOM killer's count may lag its event: the walk soon reads it again. */
	coord_limits_check(c);
	c->disk_every_ms = COORD_DISK_MIN_MS;
	if (c->limits_timer_on && uv_is_active((uv_handle_t *)&c->limits_timer) &&
	    uv_timer_get_due_in(&c->limits_timer) > COORD_DISK_SOON_MS)
		uv_timer_start(&c->limits_timer, coord_limits_walk_cb, COORD_DISK_SOON_MS, 0);
}

/* The eventfd on the loop; without it the walk keeps COORD_DISK_MIN_MS. */
static void
coord_limits_events(struct coord *c)
{
	const struct cfg_limits *l = &c->o->resolved->profile->limits;
	lz_err_t err = LZ_ERR_INIT;

	c->limits_efd = -1;
	if (c->ldom.dir[LIMITS_MEMORY] == NULL)
		return;
	if ((c->limits_efd = limits_domain_eventfd(&c->ldom, l->memory, COORD_RUNG_BYTES,
	    &err)) < 0) {
		coord_log("resource limits: no memory cgroup events (%s): the disk walk keeps "
		    "to every %d s", err.msg, COORD_DISK_MIN_MS / 1000);
		lz_err_clear(&err);
		return;
	}
	uv_poll_init(c->loop, &c->limits_poll, c->limits_efd);
	c->limits_poll.data = c;
	c->limits_poll_on = true;
	uv_poll_start(&c->limits_poll, UV_READABLE, coord_limits_event_cb);
}

/* Asking podman for the container's writable layer: off the start-up
 * path, on the threadpool, with copies of what it needs. */
struct coord_upper_req {
	uv_work_t w;
	struct coord *c;
	const struct drv_ops *drv;
	char *container, *upper;
};

static void
coord_limits_upper_work_cb(uv_work_t *w)
{
	struct coord_upper_req *r = w->data;
	lz_err_t err = LZ_ERR_INIT;

	if (r->drv->writable_dir(r->container, &r->upper, &err) < 0 || r->upper[0] != '/') {
		coord_log("disk watchdog: no writable layer to measure: %s",
		    err.msg != NULL ? err.msg : "podman gave none");
		free(r->upper);
		r->upper = NULL;
	}
	lz_err_clear(&err);
}

static void
coord_limits_upper_after_cb(uv_work_t *w, int status)
{
	struct coord_upper_req *r = w->data;
	struct coord *c = r->c;

	(void)status;
	c->disk_busy = false;
	if (r->upper != NULL && c->disk_paths != NULL)
		lz_strv_push(&c->disk_paths, r->upper);
	free(r->upper);
	free(r->container);
	free(r);
}

void
coord_limits_watch(struct coord *c)
{
	struct coord_upper_req *r = xcalloc(1, sizeof *r);

	lz_strv_push(&c->disk_paths, c->a->domain_root);
	r->w.data = r;
	r->c = c;
	r->drv = c->drv;
	r->container = xstrdup(c->a->container);
	/* No disk check until the layer is known (the first walk is 5 s away). */
	c->disk_busy = true;
	if (uv_queue_work(c->loop, &r->w, coord_limits_upper_work_cb,
	    coord_limits_upper_after_cb) != 0) {
		c->disk_busy = false;
		free(r->container);
		free(r);
	}
	coord_limits_events(c);
	uv_timer_init(c->loop, &c->limits_timer);
	c->limits_timer.data = c;
	c->limits_timer_on = true;
	c->disk_every_ms = COORD_DISK_MIN_MS;
	uv_timer_start(&c->limits_timer, coord_limits_walk_cb, COORD_DISK_MIN_MS, 0);
}

void
coord_limits_close(struct coord *c)
{
	if (c->limits_timer_on)
		uv_close((uv_handle_t *)&c->limits_timer, NULL);
	c->limits_timer_on = false;
	/* The kernel drops the cgroup's events with the eventfd's last close. */
	if (c->limits_poll_on) {
		uv_close((uv_handle_t *)&c->limits_poll, NULL);
		close(c->limits_efd);
		c->limits_efd = -1;
	}
	c->limits_poll_on = false;
}

void
coord_limits_release(struct coord *c)
{
	limits_domain_release(&c->ldom);
	limits_host_clear(&c->lhost);
	lz_strv_free(c->disk_paths);
	c->disk_paths = NULL;
	free(c->limit_hit);
	c->limit_hit = NULL;
}

char *
coord_limits_text(const struct coord *c)
{
	const struct cfg_limits *l = &c->o->resolved->profile->limits;
	_cleanup_free_ char *mem = cfg_size_text(l->memory), *disk = cfg_size_text(l->disk);
	_cleanup_free_ char *cpus = cfg_cpus_text(l->cpus_milli);
	char pids[32];

	if (l->pids > 0)
		snprintf(pids, sizeof pids, "%ld", l->pids);
	else
		snprintf(pids, sizeof pids, "none");
	return xasprintf("memory %s%s, pids %s, disk %s, cpus %s%s", mem,
	    l->memory > 0 && c->ldom.dir[LIMITS_MEMORY] == NULL ? " (/tmp only)" : "", pids,
	    disk, cpus, l->cpus_milli > 0 && c->ldom.dir[LIMITS_CPU] == NULL ?
	    " (not enforced)" : "");
}
