/* wb-review.c - the review view (prefix R): the active tab's agent branch
 * against the user's branch, its commits, its files with the executable
 * surface flagged, each file's diff, and merge or discard behind a
 * confirmation, through the same code as `lazaret merge`/`discard`
 * (review-act.c), audited the same.
 *
 * Theory of operation. Nothing here blocks the loop. Opening the review
 * (git rev-parse, merge-base, log) and the surface (every changed path
 * against data/surface.tsv) run on libuv's threadpool; the file list
 * (git diff --name-status -z) and a file's diff stream through
 * wb-gitstream.c as the screen needs them, the diff into a diffview that
 * keeps a window of lines (a 50 MB file is never read whole: git waits on
 * the full pipe until the user scrolls). Every git is review-git.c's,
 * hardened: a scratch repository borrowing the user's objects, no external
 * diff, textconv, pager, hooks or configured drivers. The view holds a
 * reference for each job in flight and is freed after the last one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diffview.h"
#include "review-act.h"
#include "strv.h"
#include "sync-live.h"
#include "term.h"
#include "wb-gitstream.h"
#include "wb-review-int.h"
#include "wb.h"
#include "xmalloc.h"

/* Drop what was loaded: the view is as before its first load. */
static void
wb_review_forget(struct wb_review *v)
{
	size_t i;

	for (i = 0; i < v->n_files; i++)
		free(v->files[i].path);
	v->n_files = 0;
	v->tlen = 0;
	v->status = 0;
	v->sel = v->top = 0;
	free(v->by_path);
	v->by_path = NULL;
	surface_result_clear(&v->s);
	review_free(v->r);
	v->r = NULL;
	anchor_free(v->a);
	v->a = NULL;
	lz_strv_free(v->commits);
	v->commits = NULL;
	free(v->error);
	free(v->surface_error);
	free(v->files_error);
	v->error = v->surface_error = v->files_error = NULL;
	v->loaded = v->surface_done = v->files_done = v->in_diff = false;
}

void
wb_review_unref(struct wb_review *v)
{
	if (--v->refs > 0)
		return;
	wb_review_forget(v);
	free(v->files);
	free(v->note);
	free(v->profile);
	free(v->workspace);
	diffview_free(v->dv);
	free(v);
}

void
wb_review_note(struct wb_review *v, bool alert, const char *fmt, ...)
{
	va_list ap;

	free(v->note);
	va_start(ap, fmt);
	v->note = xvasprintf(fmt, ap);
	va_end(ap);
	v->note_alert = alert;
	v->wb->dirty = true;
}

/* ---- the surface, on the threadpool ---- */

struct wb_review_surface_job {
	uv_work_t w;
	struct wb_review *v;
	struct surface_result s;
	const struct surface_flag **by_path;
	lz_err_t err;
	int rc;
};

static int
wb_review_flag_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct surface_flag *const *)a)->path,
	    (*(const struct surface_flag *const *)b)->path);
}

static void
wb_review_surface_work_cb(uv_work_t *w)
{
	struct wb_review_surface_job *j = w->data;
	struct surface_table t = { 0 };
	size_t i;

	j->rc = surface_table_load(&t, &j->err) < 0 ||
	    review_surface(j->v->r, &t, j->v->r->base, j->v->r->tip, &j->s, &j->err) < 0 ? -1 : 0;
	surface_table_clear(&t);
	if (j->rc < 0)
		return;
	j->by_path = xcalloc(j->s.n + 1, sizeof *j->by_path);
	for (i = 0; i < j->s.n; i++)
		j->by_path[i] = &j->s.flags[i];
	qsort(j->by_path, j->s.n, sizeof *j->by_path, wb_review_flag_cmp);
}

/* The flags of path: the first, and how many. */
static const struct surface_flag *
wb_review_flags_of(struct wb_review *v, const char *path, unsigned *n)
{
	struct surface_flag key = { .path = (char *)path };
	const struct surface_flag *kp = &key, **hit;
	size_t lo, hi;

	*n = 0;
	if (!v->surface_done || v->s.n == 0 ||
	    (hit = bsearch(&kp, v->by_path, v->s.n, sizeof *v->by_path, wb_review_flag_cmp)) == NULL)
		return NULL;
	lo = hi = (size_t)(hit - v->by_path);
	while (lo > 0 && strcmp(v->by_path[lo - 1]->path, path) == 0)
		lo--;
	while (hi + 1 < v->s.n && strcmp(v->by_path[hi + 1]->path, path) == 0)
		hi++;
	*n = (unsigned)(hi - lo + 1);
	return v->by_path[lo];
}

static void
wb_review_surface_after_cb(uv_work_t *w, int status)
{
	struct wb_review_surface_job *j = w->data;
	struct wb_review *v = j->v;
	size_t i;

	(void)status;
	if (!v->closed) {
		v->surface_done = true;
		if (j->rc < 0)
			v->surface_error = xstrdup(j->err.msg);
		v->s = j->s;
		v->by_path = j->by_path;
		memset(&j->s, 0, sizeof j->s);
		j->by_path = NULL;
		for (i = 0; i < v->n_files; i++)
			v->files[i].flag = wb_review_flags_of(v, v->files[i].path,
			    &v->files[i].n_flags);
		v->wb->dirty = true;
	}
	surface_result_clear(&j->s);
	free(j->by_path);
	lz_err_clear(&j->err);
	free(j);
	wb_review_unref(v);
}

/* ---- the file list, streamed ---- */

static void
wb_review_files_data(void *arg, const char *buf, size_t len)
{
	struct wb_review *v = arg;
	struct wb_review_file *f;
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != '\0') {
			if (v->tlen < sizeof v->tok - 1)
				v->tok[v->tlen++] = buf[i];
			continue;
		}
		v->tok[v->tlen] = '\0';
		v->tlen = 0;
		if (v->status == 0) {
			v->status = v->tok[0] != '\0' ? v->tok[0] : '?';
			continue;
		}
		if (v->n_files == WB_REVIEW_FILES_MAX) {
			wb_review_note(v, true, "the file list stops at %d files", WB_REVIEW_FILES_MAX);
			wb_gitstream_stop(v->files_gs);
			v->files_gs = NULL;
			v->files_done = true;
			return;
		}
		if (v->n_files == v->cap_files) {
			v->cap_files = v->cap_files == 0 ? 256 : 2 * v->cap_files;
			v->files = xreallocarray(v->files, v->cap_files, sizeof *v->files);
		}
		f = &v->files[v->n_files++];
		f->status = v->status;
		f->path = xstrdup(v->tok);
		f->flag = wb_review_flags_of(v, f->path, &f->n_flags);
		v->status = 0;
	}
	v->wb->dirty = true;
}

static void
wb_review_files_end(void *arg, int status)
{
	struct wb_review *v = arg;

	v->files_gs = NULL;
	v->files_done = true;
	if (status != 0)
		v->files_error = xasprintf("git diff --name-status failed (exit %d)", status);
	v->wb->dirty = true;
}

/* git args in the scratch repository, streamed to data/end. */
static struct wb_gitstream *
wb_review_stream(struct wb_review *v, const char *const *args, wb_gitstream_data_fn data,
    wb_gitstream_end_fn end)
{
	lz_err_t err = LZ_ERR_INIT;
	struct wb_gitstream *gs;
	char **env, **argv = review_git_cmd(v->r->g, args, &env);

	gs = wb_gitstream_start(v->wb->loop, argv, env, data, end, v, &err);
	lz_strv_free(argv);
	if (gs == NULL) {
		wb_review_note(v, true, "%s", err.msg);
		lz_err_clear(&err);
	}
	return gs;
}

/* ---- opening the review, on the threadpool ---- */

struct wb_review_load_job {
	uv_work_t w;
	struct wb_review *v;
	const struct cfg *cfg;
	struct anchor *a;
	struct review *r;
	char **commits;
	lz_err_t err;
	int rc;
};

static void
wb_review_load_work_cb(uv_work_t *w)
{
	struct wb_review_load_job *j = w->data;
	_cleanup_free_ char *range = NULL, *out = NULL;
	char *line, *save = NULL, *e;

	j->rc = -1;
	if (cli_domain(j->cfg, j->v->profile, j->v->workspace, &j->a, NULL, &j->err) < 0 ||
	    review_open(j->a, NULL, false, &j->r, &j->err) < 0)
		return;
	range = xasprintf("%s..%s", j->r->base, j->r->tip);
	{
		const char *log[] = { "log", "--no-color", "--no-decorate", "-n", WB_REVIEW_COMMITS,
			"--format=%h %<(100,trunc)%s", range, "--", NULL };

		if (review_git_ok(j->r->g, false, NULL, log, &out, &j->err) < 0)
			return;
	}
	for (line = strtok_r(out, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		for (e = line + strlen(line); e > line && e[-1] == ' '; e--)
			;
		*e = '\0';
		lz_strv_push(&j->commits, line);
	}
	j->rc = 0;
}

static void
wb_review_load_after_cb(uv_work_t *w, int status)
{
	struct wb_review_load_job *j = w->data;
	struct wb_review *v = j->v;
	struct wb_review_surface_job *sj;

	(void)status;
	if (!v->closed) {
		v->loaded = true;
		if (j->rc < 0) {
			v->error = xstrdup(j->err.msg);
		} else {
			const char *ns[] = { "--literal-pathspecs", "diff", "--name-status", "-z",
				"--no-renames", "--no-ext-diff", "--no-textconv", j->r->base, j->r->tip,
				"--", NULL };

			v->a = j->a;
			v->r = j->r;
			v->commits = j->commits;
			j->a = NULL;
			j->r = NULL;
			j->commits = NULL;
			if ((v->files_gs = wb_review_stream(v, ns, wb_review_files_data,
			    wb_review_files_end)) == NULL)
				v->files_done = true;
			sj = xcalloc(1, sizeof *sj);
			sj->w.data = sj;
			sj->v = v;
			sj->err = (lz_err_t)LZ_ERR_INIT;
			v->refs++;
			uv_queue_work(v->wb->loop, &sj->w, wb_review_surface_work_cb,
			    wb_review_surface_after_cb);
		}
		v->wb->dirty = true;
	}
	review_free(j->r);
	anchor_free(j->a);
	lz_strv_free(j->commits);
	lz_err_clear(&j->err);
	free(j);
	wb_review_unref(v);
}

void
wb_review_load(struct wb_review *v)
{
	struct wb_review_load_job *j;

	if (v->refs > 1) {
		/* A job still reads the old review. */
		wb_review_note(v, false, "still reading; r again in a moment");
		return;
	}
	wb_gitstream_stop(v->files_gs);
	wb_gitstream_stop(v->diff_gs);
	v->files_gs = v->diff_gs = NULL;
	wb_review_forget(v);
	j = xcalloc(1, sizeof *j);
	j->w.data = j;
	j->v = v;
	j->cfg = v->wb->cfg;
	j->err = (lz_err_t)LZ_ERR_INIT;
	v->refs++;
	uv_queue_work(v->wb->loop, &j->w, wb_review_load_work_cb, wb_review_load_after_cb);
}

void
wb_review_agent_moved(struct wb *wb, const char *profile, const char *workspace,
    const char *tips)
{
	struct wb_review *v = wb->review;
	size_t n = strcspn(tips, " ");

	/* Not under the user's hands: a diff open, a question asked, a job on. */
	if (v == NULL || v->closed || !v->loaded || v->r == NULL || v->in_diff || v->busy ||
	    v->ask != WB_REVIEW_ASK_NONE || v->refs > 1 || n == 0 ||
	    strcmp(v->profile, profile) != 0 || strcmp(v->workspace, workspace) != 0 ||
	    (strlen(v->r->tip) == n && strncmp(v->r->tip, tips, n) == 0))
		return;
	wb_review_load(v);
	wb_review_note(v, false, "a new agent commit was imported: reloaded");
}

/* ---- merge, discard and sync, on the threadpool (review-act.c, sync-live.c) ---- */

static void wb_review_act_start(struct wb_review *v, bool merge, bool accept, bool sync);

struct wb_review_act_job {
	uv_work_t w;
	struct wb_review *v;
	const struct cfg *cfg;
	bool merge, accept, sync;
	bool live;		/* sync: on a running domain (the review is unchanged) */
	char tip[REVIEW_OID_MAX + 1], base[REVIEW_OID_MAX + 1];
	bool surface_refused;
	char *msg;
	int rc;
};

static void
wb_review_act_work_cb(uv_work_t *w)
{
	struct wb_review_act_job *j = w->data;
	struct review_act m;
	char result[REVIEW_OID_MAX + 1];
	_cleanup_free_ char *kept = NULL, *aside = NULL;
	lz_err_t err = LZ_ERR_INIT;

	if (review_act_open(&m, j->merge ? "merge" : j->sync ? "sync" : "discard", j->cfg,
	    j->v->profile, j->v->workspace, NULL, &err) < 0) {
		j->rc = -1;
		j->msg = xstrdup(err.msg);
		goto out;
	}
	/* S on a running domain: host/<branch> refreshed, its sessions told. */
	if (j->sync && m.cl != NULL) {
		j->live = true;
		if ((j->rc = sync_live(&m, false, &j->msg, &err)) < 0)
			j->msg = xstrdup(err.msg);
		goto out;
	}
	if (j->merge)
		j->rc = review_act_merge(&m, REVIEW_MERGE_DEFAULT, j->accept, j->tip, j->base, result,
		    &j->surface_refused, &err);
	else
		j->rc = review_act_reset(&m, j->tip, false, &kept, &aside, &err);
	if (j->rc < 0)
		j->msg = xstrdup(err.msg);
	else if (j->merge)
		j->msg = xasprintf("merged %s %.12s..%.12s (%ld commit%s) into %s: now %.12s%s",
		    m.a->branch, m.r->base, m.r->tip, m.r->commits, m.r->commits == 1 ? "" : "s",
		    m.r->target, result, m.s.n > 0 ? " (executable surface accepted)" : "");
	else if (j->sync)
		j->msg = xasprintf("synced %s to %s at %.12s", m.a->branch, m.r->target,
		    m.r->target_tip);
	else
		j->msg = xasprintf("discarded %s %.12s..%.12s (%ld commit%s): reset to %.12s, old "
		    "tip kept as %s%s%s", m.a->branch, m.r->base, m.r->tip, m.r->commits,
		    m.r->commits == 1 ? "" : "s", m.r->base, kept, aside != NULL ?
		    "; uncommitted work moved aside to " : "", aside != NULL ? aside : "");
out:
	lz_err_clear(&err);
	review_act_close(&m);
}

static void
wb_review_act_after_cb(uv_work_t *w, int status)
{
	struct wb_review_act_job *j = w->data;
	struct wb_review *v = j->v;

	(void)status;
	wb_ui_log(v->wb, j->rc < 0, "review %s: %s", j->merge ? "merge" : j->sync ? "sync" :
	    "discard", j->msg);
	wb_review_count_refresh(v->wb);
	if (v->closed) {
		wb_review_unref(v);
	} else {
		v->busy = false;
		v->refs--;	/* this job's; the view holds its own */
		if (j->rc == 0 && !j->live)
			wb_review_load(v);	/* what is left to review: nothing, normally */
		else if (j->surface_refused)
			v->ask = WB_REVIEW_ASK_SURFACE;
		wb_review_note(v, j->rc < 0, "%s", j->msg);
	}
	free(j->msg);
	free(j);
}

void
wb_review_act(struct wb_review *v, bool merge, bool accept)
{
	wb_review_act_start(v, merge, accept, false);
}

void
wb_review_sync(struct wb_review *v)
{
	if (v->busy || !v->loaded || v->r == NULL)
		wb_review_note(v, false, "busy: wait for the last step to finish");
	else
		wb_review_act_start(v, false, false, true);
}

static void
wb_review_act_start(struct wb_review *v, bool merge, bool accept, bool sync)
{
	struct wb_review_act_job *j = xcalloc(1, sizeof *j);

	j->w.data = j;
	j->v = v;
	j->cfg = v->wb->cfg;
	j->merge = merge;
	j->accept = accept;
	j->sync = sync;
	snprintf(j->tip, sizeof j->tip, "%s", v->r->tip);
	snprintf(j->base, sizeof j->base, "%s", v->r->base);
	v->busy = true;
	v->ask = WB_REVIEW_ASK_NONE;
	wb_review_note(v, false, "%s...", merge ? "merging" : sync ? "syncing" : "discarding");
	v->refs++;
	uv_queue_work(v->wb->loop, &j->w, wb_review_act_work_cb, wb_review_act_after_cb);
}

/* ---- the diff of one file ---- */

static void
wb_review_diff_data(void *arg, const char *buf, size_t len)
{
	struct wb_review *v = arg;

	diffview_feed(v->dv, buf, len);
	if (!diffview_wants(v->dv))
		wb_gitstream_pause(v->diff_gs);
	v->wb->dirty = true;
}

static void
wb_review_diff_end(void *arg, int status)
{
	struct wb_review *v = arg;

	v->diff_gs = NULL;
	diffview_eof(v->dv, status == 0);
	v->wb->dirty = true;
}

static void
wb_review_diff_start(struct wb_review *v)
{
	const char *args[] = { "--literal-pathspecs", "diff", "--no-ext-diff", "--no-textconv",
		"--no-color", "--no-renames", "-p", v->r->base, v->r->tip, "--",
		v->files[v->diff_i].path, NULL };

	wb_gitstream_stop(v->diff_gs);
	v->diff_gs = wb_review_stream(v, args, wb_review_diff_data, wb_review_diff_end);
	if (v->diff_gs == NULL)
		diffview_eof(v->dv, false);
}

void
wb_review_diff_pump(struct wb_review *v)
{
	size_t skip;

	if (diffview_needs_restart(v->dv, &skip)) {
		diffview_restart(v->dv, skip);
		wb_review_diff_start(v);
	} else if (v->diff_gs != NULL && diffview_wants(v->dv))
		wb_gitstream_resume(v->diff_gs);
}

void
wb_review_diff_open(struct wb_review *v, size_t i)
{
	if (i >= v->n_files)
		return;
	v->in_diff = true;
	v->diff_i = i;
	v->sel = i;
	if (v->dv == NULL)
		v->dv = diffview_new();
	diffview_clear(v->dv);
	wb_review_diff_start(v);
}

void
wb_review_diff_close(struct wb_review *v)
{
	wb_gitstream_stop(v->diff_gs);
	v->diff_gs = NULL;
	v->in_diff = false;
	if (v->dv != NULL)
		diffview_clear(v->dv);
}

