/* sentry-watch.c - import the agent's commits while the session runs.
 *
 * Every SENTRY_WATCH_MS the coordinator's loop hands one job to the
 * threadpool: take a fingerprint of the agent's refs (every file and
 * directory under <dr>/git/refs, packed-refs and HEAD: inode, size, mtime;
 * sentry_refs_fingerprint) and, when it changed, run sentry_import. One job
 * at a time (a tick during one is skipped; a change during an import runs
 * another after it). Off the loop: the agent decides how many refs there
 * are, and the bounded walk (SENTRY_REFS_MAX * 2 entries) takes tens of
 * milliseconds at the bound, which an escalation or a terminal arriving
 * meanwhile would wait for; and past 10 ms a scan, the polls space out to
 * keep them under 5 % of a core.
 *
 * When is a scan due: on inotify events, so that an idle domain costs no
 * wake-up. The git dir (HEAD, packed-refs) and each directory under refs/
 * is watched, SENTRY_WATCH_DIRS at most: the agent creates ref directories
 * at will, and a watch each without a bound would let it exhaust the user's
 * fs.inotify.max_user_watches, which every other program of the user
 * shares. Past the bound (or without inotify) the watch polls every
 * SENTRY_WATCH_MS, as it always did. A ref update is a burst of events
 * (the lock file, the rename, the reflog): one scan SENTRY_WATCH_SETTLE_MS
 * after the first; an event during a scan runs another after it.
 *
 * When a session ends, the coordinator asks for a flush (sentry_watch_flush):
 * a scan that starts after the request, queued at once, and a callback when
 * it has finished, so that the agent's last commit is on the host before the
 * client hears of the exit. Bounded: past its timeout the waiter is told the
 * import has not finished (the import itself goes on).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "sandbox/sentry/sentry-watch.h"
#include "xmalloc.h"

#define SENTRY_WATCH_MS 200
/* At most 1/SENTRY_WATCH_DUTY of a core on scans: a scan that takes longer
 * than SENTRY_WATCH_MS / SENTRY_WATCH_DUTY spaces the next ones out. */
#define SENTRY_WATCH_DUTY 20
#define SENTRY_WATCH_DIRS 256		/* inotify watches of one domain; past it, polling */
#define SENTRY_WATCH_SETTLE_MS 20	/* one scan after a burst of events */
#define SENTRY_WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | \
	IN_CLOSE_WRITE | IN_ATTRIB | IN_DONT_FOLLOW | IN_ONLYDIR)

struct sentry_watch_waiter {
	sentry_watch_done_fn done;
	void *arg;
	uint64_t want;		/* the job number whose end answers it */
	uint64_t deadline;	/* uv_now() */
};

struct sentry_watch {
	uv_timer_t timer;
	uv_timer_t flush_timer;	/* the nearest waiter's deadline */
	uv_work_t work;
	const struct anchor *a;
	char *priv;
	/* The job reads and writes these; the loop only while none runs. */
	uint64_t seen;		/* fingerprint imported last */
	uint64_t pending;	/* fingerprint of the last import tried */
	bool imported;		/* the job ran an import (rc, msg) */
	bool running;		/* a job is queued or running */
	bool closed;
	/* Events (inotify) instead of polling: the fd, its poll handle, how many
	 * watches it holds and the highest number given (a new one is higher). */
	int ino;
	uv_poll_t ipoll;
	bool polling;		/* no inotify (or too many directories): the timer repeats */
	bool again;		/* an event came during a scan: another after it */
	size_t nwatch;
	int max_wd;
	uint64_t queued;	/* jobs queued so far (the running one's number) */
	struct sentry_watch_waiter *waiters;
	size_t n_waiters;
	uint64_t scan_ns;	/* the last scan's CPU time */
	int rc;
	char *msg;		/* the import's report or error */
	char *last_msg;		/* reported last (not repeated) */
	sentry_watch_log_fn log;
	void *log_arg;
};

/* This thread's CPU time: what a scan costs, however the machine's load
 * delays it. */
static uint64_t
sentry_watch_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* The threadpool: has anything changed? then import. */
static void
sentry_watch_work_cb(uv_work_t *req)
{
	struct sentry_watch *w = req->data;
	lz_err_t err = LZ_ERR_INIT;
	char *note = NULL;
	uint64_t t0 = sentry_watch_cpu_ns(), fp = sentry_refs_fingerprint(w->priv);

	w->scan_ns = sentry_watch_cpu_ns() - t0;
	w->imported = false;
	/* A failed import is retried only when the refs change again. */
	if (fp == w->seen || fp == w->pending)
		return;
	w->pending = fp;
	w->imported = true;
	w->rc = sentry_import(w->a, &note, &err);
	w->msg = w->rc < 0 ? xstrdup(err.msg != NULL ? err.msg : "import failed") : note;
	lz_err_clear(&err);
}

static void sentry_watch_queue(struct sentry_watch *w);
static void sentry_watch_flush_timer_cb(uv_timer_t *t);
static void sentry_watch_timer_cb(uv_timer_t *t);

/* Answer the waiters that job number done (0: none) satisfies, and those
 * past their deadline (all of them when the watch has stopped). */
static void
sentry_watch_answer(struct sentry_watch *w, uint64_t done)
{
	uint64_t now = uv_now(w->timer.loop), next = 0;
	size_t i = 0;

	while (i < w->n_waiters) {
		struct sentry_watch_waiter x = w->waiters[i];
		bool ok = done != 0 && done >= x.want;

		if (!ok && !w->closed && now < x.deadline) {
			if (next == 0 || x.deadline < next)
				next = x.deadline;
			i++;
			continue;
		}
		w->waiters[i] = w->waiters[--w->n_waiters];
		x.done(x.arg, ok);
		/* A callback may have added waiters: start over. */
		i = 0;
		next = 0;
	}
	if (w->closed)
		return;
	if (next != 0)
		uv_timer_start(&w->flush_timer, sentry_watch_flush_timer_cb, next - now, 0);
	else
		uv_timer_stop(&w->flush_timer);
}

static void
sentry_watch_after_cb(uv_work_t *req, int status)
{
	struct sentry_watch *w = req->data;
	uint64_t every = w->scan_ns / 1000000 * SENTRY_WATCH_DUTY;

	(void)status;
	w->running = false;
	sentry_watch_answer(w, w->queued);
	/* A flush asked during this job wants one that starts after it. */
	if (w->n_waiters > 0)
		sentry_watch_queue(w);
	/* Thousands of refs: the agent's to make; the scan's cost stays bounded. */
	if (w->polling)
		uv_timer_set_repeat(&w->timer, every > SENTRY_WATCH_MS ? every : SENTRY_WATCH_MS);
	else if (w->again && !w->closed) {
		w->again = false;
		uv_timer_start(&w->timer, sentry_watch_timer_cb, every > SENTRY_WATCH_SETTLE_MS ?
		    every : SENTRY_WATCH_SETTLE_MS, 0);
	}
	if (!w->imported)
		return;
	if (w->rc == 0)
		w->seen = w->pending;
	if (w->msg != NULL && (w->last_msg == NULL || strcmp(w->msg, w->last_msg) != 0)) {
		if (w->log != NULL)
			w->log(w->log_arg, w->msg);
		free(w->last_msg);
		w->last_msg = lz_steal_ptr(&w->msg);
	}
	free(w->msg);
	w->msg = NULL;
}

static void
sentry_watch_queue(struct sentry_watch *w)
{
	if (w->running || w->closed)
		return;
	w->running = true;
	w->work.data = w;
	w->queued++;
	if (uv_queue_work(w->timer.loop, &w->work, sentry_watch_work_cb,
	    sentry_watch_after_cb) != 0)
		w->running = false;
}

static void
sentry_watch_timer_cb(uv_timer_t *t)
{
	struct sentry_watch *w = t->data;

	if (w->running && !w->polling)
		w->again = true;
	sentry_watch_queue(w);
}

/* From events to polling: too many directories, or inotify failed. */
static void
sentry_watch_poll_instead(struct sentry_watch *w)
{
	if (w->polling)
		return;
	w->polling = true;
	if (w->ino >= 0 && !uv_is_closing((uv_handle_t *)&w->ipoll))
		uv_close((uv_handle_t *)&w->ipoll, NULL);
	uv_timer_start(&w->timer, sentry_watch_timer_cb, SENTRY_WATCH_MS, SENTRY_WATCH_MS);
}

/* Watch dir; false when the bound is reached or inotify refused. */
static bool
sentry_watch_add(struct sentry_watch *w, const char *dir)
{
	int wd = inotify_add_watch(w->ino, dir, SENTRY_WATCH_MASK);

	if (wd < 0)
		return errno == ENOENT || errno == ENOTDIR;	/* gone meanwhile: fine */
	if (wd > w->max_wd) {
		w->max_wd = wd;
		w->nwatch++;
	}
	return w->nwatch <= SENTRY_WATCH_DIRS;
}

/* Watch dir and the directories under it (a watch already held is the same
 * watch); false past the bound. */
static bool
sentry_watch_tree(struct sentry_watch *w, const char *dir, int depth)
{
	DIR *d;
	struct dirent *e;
	bool ok;

	if (!sentry_watch_add(w, dir))
		return false;
	if (depth > 32 || (d = opendir(dir)) == NULL)
		return true;
	ok = true;
	while (ok && (e = readdir(d)) != NULL) {
		char *sub;

		if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		sub = xasprintf("%s/%s", dir, e->d_name);
		ok = sentry_watch_tree(w, sub, depth + 1);
		free(sub);
	}
	closedir(d);
	return ok;
}

/* The git dir itself (HEAD, packed-refs) and refs/ down. */
static bool
sentry_watch_all(struct sentry_watch *w)
{
	_cleanup_free_ char *refs = xasprintf("%s/refs", w->priv);

	return sentry_watch_add(w, w->priv) && sentry_watch_tree(w, refs, 0);
}

static void
sentry_watch_inotify_cb(uv_poll_t *h, int status, int events)
{
	struct sentry_watch *w = h->data;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool newdir = false, any = false;
	ssize_t n;

	(void)events;
	if (status < 0) {
		sentry_watch_poll_instead(w);
		return;
	}
	while ((n = read(w->ino, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->mask & IN_IGNORED)
				w->nwatch--;
			else if ((ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO)))
				newdir = true;
			if (ev->mask & IN_Q_OVERFLOW)
				newdir = true;	/* events lost: watch anew, scan */
			any = true;
			p += sizeof *ev + ev->len;
		}
	}
	if (newdir && !sentry_watch_all(w)) {
		sentry_watch_poll_instead(w);
		return;
	}
	if (any && !w->closed && !uv_is_active((uv_handle_t *)&w->timer))
		uv_timer_start(&w->timer, sentry_watch_timer_cb, SENTRY_WATCH_SETTLE_MS, 0);
}

static void
sentry_watch_flush_timer_cb(uv_timer_t *t)
{
	sentry_watch_answer(t->data, 0);
}

void
sentry_watch_flush(struct sentry_watch *w, unsigned timeout_ms, sentry_watch_done_fn done,
    void *arg)
{
	struct sentry_watch_waiter *x;

	if (w->closed) {
		done(arg, false);
		return;
	}
	w->waiters = xreallocarray(w->waiters, w->n_waiters + 1, sizeof *w->waiters);
	x = &w->waiters[w->n_waiters++];
	x->done = done;
	x->arg = arg;
	/* The job in flight may have read the refs before the change. */
	x->want = w->queued + 1;
	x->deadline = uv_now(w->timer.loop) + timeout_ms;
	sentry_watch_queue(w);
	sentry_watch_answer(w, 0);
}

struct sentry_watch *
sentry_watch_start(uv_loop_t *loop, const struct anchor *a, sentry_watch_log_fn log,
    void *log_arg)
{
	struct sentry_watch *w = xcalloc(1, sizeof *w);
	struct sentry_paths p;

	if (sentry_paths_init(a, false, &p, NULL) < 0) {
		free(w);
		return NULL;
	}
	w->priv = lz_steal_ptr(&p.priv);
	sentry_paths_clear(&p);
	w->a = a;
	w->log = log;
	w->log_arg = log_arg;
	/* prepare imported what was there: start from it. */
	w->seen = w->pending = sentry_refs_fingerprint(w->priv);
	uv_timer_init(loop, &w->timer);
	w->timer.data = w;
	uv_timer_init(loop, &w->flush_timer);
	w->flush_timer.data = w;
	uv_unref((uv_handle_t *)&w->flush_timer);
	/* The loop ends when the coordinator's own handles do. */
	uv_unref((uv_handle_t *)&w->timer);
	w->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->ino < 0 || uv_poll_init(loop, &w->ipoll, w->ino) != 0) {
		if (w->ino >= 0)
			close(w->ino);
		w->ino = -1;
		sentry_watch_poll_instead(w);
		return w;
	}
	w->ipoll.data = w;
	uv_unref((uv_handle_t *)&w->ipoll);
	if (!sentry_watch_all(w)) {
		sentry_watch_poll_instead(w);
		return w;
	}
	uv_poll_start(&w->ipoll, UV_READABLE, sentry_watch_inotify_cb);
	/* What changed between prepare's fingerprint and the first watch. */
	sentry_watch_queue(w);
	return w;
}

void
sentry_watch_stop(struct sentry_watch *w)
{
	if (w == NULL || w->closed)
		return;
	w->closed = true;
	uv_timer_stop(&w->timer);
	if (!uv_is_closing((uv_handle_t *)&w->timer))
		uv_close((uv_handle_t *)&w->timer, NULL);
	if (w->ino >= 0 && !uv_is_closing((uv_handle_t *)&w->ipoll))
		uv_close((uv_handle_t *)&w->ipoll, NULL);
	if (!uv_is_closing((uv_handle_t *)&w->flush_timer))
		uv_close((uv_handle_t *)&w->flush_timer, NULL);
	sentry_watch_answer(w, 0);
}

void
sentry_watch_free(struct sentry_watch *w)
{
	if (w == NULL)
		return;
	if (w->ino >= 0)
		close(w->ino);
	free(w->priv);
	free(w->msg);
	free(w->last_msg);
	free(w->waiters);
	free(w);
}
