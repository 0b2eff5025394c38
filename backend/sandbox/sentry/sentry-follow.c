/* sentry-follow.c - the host's branches and settings reach the agent live.
 *
 * The coordinator watches, with libuv's fs events (inotify), the host's
 * common git dir (packed-refs, config), refs/heads and its subdirectories
 * (loose refs: git renames branch.lock over branch) and the user's global
 * config files' directories. An event starts a short timer (git writes a
 * lock then renames it: one refresh for the burst); the refresh runs on the
 * threadpool (one `for-each-ref`, and one `git config` when a config file
 * changed) and rewrites the agent's read-only view (sentry-hostview.c).
 * One refresh at a time; an event during one runs another after it. These
 * are the user's directories, not the agent's: the number of watches is
 * the user's branch folders (bounded), which the agent cannot grow.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "sandbox/sentry/sentry-follow.h"
#include "xmalloc.h"

#define SENTRY_FOLLOW_DELAY_MS 15	/* events to one refresh */
#define SENTRY_FOLLOW_WATCHES 64	/* directories watched at most */

enum { FOLLOW_GITDIR, FOLLOW_REFS, FOLLOW_HOME };

struct sentry_follow_dir {
	uv_fs_event_t ev;
	struct sentry_follow *f;
	char *path;
	int kind;
};

struct sentry_follow_waiter {
	sentry_follow_fn done;
	void *arg;
};

struct sentry_follow {
	uv_loop_t *loop;
	uv_timer_t timer;
	uv_work_t work;
	const struct anchor *a;
	char *common, *view, *top;
	unsigned hexlen;
	struct sentry_follow_dir **dirs;
	size_t n_dirs;
	/* What the next refresh does; the running one's copy. */
	bool want_refs, want_cfg, run_refs, run_cfg;
	bool running, closed;
	struct sentry_follow_waiter *waiters, *answering;
	size_t n_waiters, n_answering;
	char *summary, *error;	/* the running refresh's result */
};

static void sentry_follow_schedule(struct sentry_follow *f, bool refs, bool cfg);

static void
sentry_follow_event_cb(uv_fs_event_t *ev, const char *name, int events, int status)
{
	struct sentry_follow_dir *d = ev->data;
	size_t n = name != NULL ? strlen(name) : 0;

	(void)events;
	if (status < 0)
		return;
	switch (d->kind) {
	case FOLLOW_GITDIR:
		if (name == NULL || strcmp(name, "packed-refs") == 0)
			sentry_follow_schedule(d->f, true, false);
		else if (strcmp(name, "config") == 0)
			sentry_follow_schedule(d->f, false, true);
		break;
	case FOLLOW_REFS:
		if (n < 5 || strcmp(name + n - 5, ".lock") != 0)
			sentry_follow_schedule(d->f, true, false);
		break;
	case FOLLOW_HOME:
		if (name == NULL || strcmp(name, ".gitconfig") == 0 || strcmp(name, "config") == 0)
			sentry_follow_schedule(d->f, false, true);
		break;
	default:
		break;
	}
}

static void
sentry_follow_watch(struct sentry_follow *f, const char *path, int kind)
{
	struct sentry_follow_dir *d;
	size_t i;

	for (i = 0; i < f->n_dirs; i++)
		if (strcmp(f->dirs[i]->path, path) == 0)
			return;
	if (f->n_dirs == SENTRY_FOLLOW_WATCHES || f->closed)
		return;
	d = xcalloc(1, sizeof *d);
	d->f = f;
	d->kind = kind;
	d->path = xstrdup(path);
	uv_fs_event_init(f->loop, &d->ev);
	d->ev.data = d;
	if (uv_fs_event_start(&d->ev, sentry_follow_event_cb, path, 0) != 0) {
		/* Absent (no ~/.config/git): closed now, freed with the rest. */
		uv_close((uv_handle_t *)&d->ev, NULL);
	} else
		uv_unref((uv_handle_t *)&d->ev);
	f->dirs = xreallocarray(f->dirs, f->n_dirs + 1, sizeof *f->dirs);
	f->dirs[f->n_dirs++] = d;
}

/* refs/heads and its folders (but lazaret/, the agent's), depth-first. */
static void
sentry_follow_scan(struct sentry_follow *f, const char *dir, int depth)
{
	DIR *d;
	struct dirent *e;

	sentry_follow_watch(f, dir, FOLLOW_REFS);
	if (depth > 8 || (d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *sub = NULL;
		struct stat st;

		if (e->d_name[0] == '.' || (depth == 0 && strcmp(e->d_name, "lazaret") == 0))
			continue;
		sub = xasprintf("%s/%s", dir, e->d_name);
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			sentry_follow_scan(f, sub, depth + 1);
	}
	closedir(d);
}

static void
sentry_follow_work_cb(uv_work_t *req)
{
	struct sentry_follow *f = req->data;
	_cleanup_free_ char *heads = NULL, *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;
	size_t len = 0;
	int st = 0;

	if (f->run_refs && (sentry_git(f->common, &heads, NULL, &err, "for-each-ref",
	    "--format=%(objectname) %(refname)", "refs/heads/", NULL) < 0 ||
	    sentry_hostview_refs(f->view, heads, f->hexlen, &f->summary, &err) < 0))
		goto fail;
	if (f->run_cfg && (sentry_git_finish(sentry_git_start(f->top, "config", "-z",
	    "--show-origin", "--get-regexp", SENTRY_CONFIG_RE, NULL), &cfg, &len, &st, &err) < 0 ||
	    sentry_hostview_config(f->view, st == 0 ? cfg : NULL, len, &err) < 0))
		goto fail;
	return;
fail:
	f->error = xstrdup(err.msg != NULL ? err.msg : "refresh failed");
	lz_err_clear(&err);
}

static void sentry_follow_start_work(struct sentry_follow *f);

static void
sentry_follow_after_cb(uv_work_t *req, int status)
{
	struct sentry_follow *f = req->data;
	_cleanup_free_ char *heads = xasprintf("%s/refs/heads", f->common);
	struct sentry_follow_waiter *w = f->answering;
	size_t n = f->n_answering, i;

	(void)status;
	f->running = false;
	f->answering = NULL;
	f->n_answering = 0;
	/* A branch folder made since: watched from now on. */
	if (f->run_refs && !f->closed)
		sentry_follow_scan(f, heads, 0);
	for (i = 0; i < n; i++)
		w[i].done(w[i].arg, f->summary, f->error);
	free(w);
	free(f->summary);
	free(f->error);
	f->summary = f->error = NULL;
	if ((f->want_refs || f->want_cfg) && !f->closed)
		sentry_follow_start_work(f);
}

static void
sentry_follow_start_work(struct sentry_follow *f)
{
	if (f->running || f->closed)
		return;
	f->running = true;
	f->run_refs = f->want_refs;
	f->run_cfg = f->want_cfg;
	f->want_refs = f->want_cfg = false;
	/* The waiters so far are answered by this refresh. */
	f->answering = f->waiters;
	f->n_answering = f->n_waiters;
	f->waiters = NULL;
	f->n_waiters = 0;
	f->work.data = f;
	if (uv_queue_work(f->loop, &f->work, sentry_follow_work_cb, sentry_follow_after_cb) != 0) {
		f->running = false;
		sentry_follow_after_cb(&f->work, 0);
	}
}

static void
sentry_follow_timer_cb(uv_timer_t *t)
{
	sentry_follow_start_work(t->data);
}

static void
sentry_follow_schedule(struct sentry_follow *f, bool refs, bool cfg)
{
	f->want_refs |= refs;
	f->want_cfg |= cfg;
	if (!f->closed && !f->running && !uv_is_active((uv_handle_t *)&f->timer))
		uv_timer_start(&f->timer, sentry_follow_timer_cb, SENTRY_FOLLOW_DELAY_MS, 0);
}

void
sentry_follow_now(struct sentry_follow *f, sentry_follow_fn done, void *arg)
{
	if (f == NULL || f->closed) {
		done(arg, NULL, "the domain is stopping");
		return;
	}
	f->waiters = xreallocarray(f->waiters, f->n_waiters + 1, sizeof *f->waiters);
	f->waiters[f->n_waiters].done = done;
	f->waiters[f->n_waiters++].arg = arg;
	f->want_refs = f->want_cfg = true;
	if (!f->running) {
		uv_timer_stop(&f->timer);
		sentry_follow_start_work(f);
	}
}

struct sentry_follow *
sentry_follow_start(uv_loop_t *loop, const struct anchor *a)
{
	struct sentry_follow *f;
	struct sentry_paths p;
	struct sentry_repo r;
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	_cleanup_free_ char *heads = NULL, *xgit = NULL;

	if (sentry_paths_init(a, false, &p, NULL) < 0)
		return NULL;
	if (sentry_host_common(&p, &r, NULL) < 0) {
		sentry_paths_clear(&p);
		return NULL;
	}
	f = xcalloc(1, sizeof *f);
	f->loop = loop;
	f->a = a;
	f->common = lz_steal_ptr(&r.common);
	f->hexlen = r.hexlen;
	f->view = lz_steal_ptr(&p.view);
	f->top = xstrdup(a->workspace);
	sentry_repo_clear(&r);
	sentry_paths_clear(&p);
	uv_timer_init(loop, &f->timer);
	f->timer.data = f;
	uv_unref((uv_handle_t *)&f->timer);
	sentry_follow_watch(f, f->common, FOLLOW_GITDIR);
	heads = xasprintf("%s/refs/heads", f->common);
	sentry_follow_scan(f, heads, 0);
	if (home != NULL && *home == '/')
		sentry_follow_watch(f, home, FOLLOW_HOME);
	xgit = xdg != NULL && *xdg == '/' ? xasprintf("%s/git", xdg) :
	    home != NULL && *home == '/' ? xasprintf("%s/.config/git", home) : NULL;
	if (xgit != NULL)
		sentry_follow_watch(f, xgit, FOLLOW_HOME);
	/* Anything that changed between prepare and now. */
	sentry_follow_schedule(f, true, true);
	return f;
}

void
sentry_follow_stop(struct sentry_follow *f)
{
	size_t i;

	if (f == NULL || f->closed)
		return;
	f->closed = true;
	uv_timer_stop(&f->timer);
	uv_close((uv_handle_t *)&f->timer, NULL);
	for (i = 0; i < f->n_dirs; i++)
		if (!uv_is_closing((uv_handle_t *)&f->dirs[i]->ev))
			uv_close((uv_handle_t *)&f->dirs[i]->ev, NULL);
	for (i = 0; i < f->n_waiters; i++)
		f->waiters[i].done(f->waiters[i].arg, NULL, "the domain is stopping");
	f->n_waiters = 0;
}

void
sentry_follow_free(struct sentry_follow *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->n_dirs; i++) {
		free(f->dirs[i]->path);
		free(f->dirs[i]);
	}
	free(f->dirs);
	free(f->waiters);
	free(f->answering);
	free(f->summary);
	free(f->error);
	free(f->common);
	free(f->view);
	free(f->top);
	free(f);
}
