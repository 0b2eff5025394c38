/* wb-review-count.c - the side panel's Review list: for each tab, the
 * agent commits not on the user's branch and the executable-surface
 * flags among them. Computed on libuv's threadpool every
 * WB_REVIEW_COUNT_MS and when asked (a review view closed, a merge): one
 * hardened `git rev-parse` of the agent branch and HEAD, and the whole
 * review (merge base, count, surface) only when one of them moved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "review/review.h"
#include "wb.h"
#include "xmalloc.h"

#define WB_REVIEW_COUNT_MS	5000

struct wb_review_count_entry {
	char *profile, *workspace;	/* the domain */
	char tips[2 * (REVIEW_OID_MAX + 1)];	/* "agent HEAD" when counted */
	long commits;			/* -1: not known yet */
	size_t flags;
	char *flag;			/* the first flagged path ("Makefile"), or NULL */
	char *error;
	bool busy;
};

struct wb_review_count {
	struct wb *wb;
	uv_timer_t timer;
	struct wb_review_count_entry *e;
	size_t n;
	int jobs;
	bool stopping;
};

struct wb_review_count_job {
	uv_work_t w;
	struct wb_review_count *rc;
	const struct cfg *cfg;
	char *profile, *workspace;
	char tips[2 * (REVIEW_OID_MAX + 1)];	/* in: the last counted; out: now */
	bool changed;
	long commits;
	size_t flags;
	char *flag;
	char *error;
};

static struct wb_review_count_entry *
wb_review_count_find(struct wb_review_count *rc, const char *profile, const char *workspace)
{
	size_t i;

	for (i = 0; i < rc->n; i++)
		if (strcmp(rc->e[i].profile, profile) == 0 && strcmp(rc->e[i].workspace, workspace) == 0)
			return &rc->e[i];
	return NULL;
}

static void
wb_review_count_work_cb(uv_work_t *w)
{
	struct wb_review_count_job *j = w->data;
	struct anchor *a = NULL;
	struct review_git *g = NULL;
	struct review *r = NULL;
	struct surface_table t = { 0 };
	struct surface_result s = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	_cleanup_free_ char *ref = NULL, *out = NULL;

	if (cli_domain(j->cfg, j->profile, j->workspace, &a, NULL, &err) < 0 ||
	    review_git_open_host(a->workspace, &g, &err) < 0)
		goto fail;
	ref = xasprintf("refs/heads/%s", a->branch);
	{
		const char *rp[] = { "rev-parse", "-q", "--verify", "--end-of-options", ref, NULL };
		const char *hd[] = { "rev-parse", "-q", "--verify", "HEAD", NULL };
		_cleanup_free_ char *head = NULL;

		if (review_git_ok(g, true, NULL, rp, &out, &err) < 0) {
			lz_err_clear(&err);	/* no agent branch yet: nothing to review */
			out = xstrdup("");
		}
		if (review_git_ok(g, true, NULL, hd, &head, &err) < 0) {
			/* No HEAD: a plain directory (or a repository without a commit). */
			lz_err_clear(&err);
			lz_err_set(&err, LZ_EINVAL, "no git checkout: nothing to review");
			goto fail;
		}
		snprintf(j->tips, sizeof j->tips, "%s %s", out, head);
	}
	if (!j->changed)
		return;		/* the caller's tips were these: nothing moved */
	if (out[0] == '\0') {
		j->commits = 0;
		goto out;
	}
	if (surface_table_load(&t, &err) < 0 || review_open(a, NULL, false, &r, &err) < 0 ||
	    review_surface(r, &t, r->base, r->tip, &s, &err) < 0)
		goto fail;
	j->commits = r->commits;
	j->flags = s.n;
	j->flag = s.n > 0 && s.flags[0].path != NULL ? xstrdup(s.flags[0].path) : NULL;
	goto out;
fail:
	j->error = xstrdup(err.msg);
out:
	lz_err_clear(&err);
	surface_result_clear(&s);
	surface_table_clear(&t);
	review_free(r);
	review_git_free(g);
	anchor_free(a);
}

/* One domain's row: its tabs, then what waits for review. Caller frees. */
static char *
wb_review_count_row(struct wb *wb, const struct wb_review_count_entry *e, const char *profile,
    const char *workspace)
{
	_cleanup_free_ char *tabs = xstrdup("");
	char *t;

	/* the tabs on this domain ("tabs 0 2"): the same domain is one row */
	for (size_t i = 0; i < wb->n_tabs; i++)
		if (strcmp(wb->tabs[i]->profile, profile) == 0 &&
		    strcmp(wb->tabs[i]->workspace, workspace) == 0) {
			t = xasprintf("%s %zu", tabs, i);
			free(tabs);
			tabs = t;
		}
	if (e == NULL || (e->commits < 0 && e->error == NULL))
		return xasprintf("%s:%s counting... (tab%s)", profile, wb_tabs_base(workspace), tabs);
	if (e->error != NULL)
		return xasprintf("%s:%s ? %s (tab%s)", profile, wb_tabs_base(workspace), e->error, tabs);
	if (e->flags > 0 && e->commits > 0) {
		char more[32] = "";

		if (e->flags > 1)
			snprintf(more, sizeof more, " +%zu", e->flags - 1);
		return xasprintf("%s:%s %ld unreviewed, flagged: %s%s (tab%s)", profile,
		    wb_tabs_base(workspace), e->commits, e->flag != NULL ? e->flag : "?", more, tabs);
	}
	return xasprintf("%s:%s %ld unreviewed (tab%s)", profile, wb_tabs_base(workspace),
	    e->commits, tabs);
}

/* The list's lines: one a domain (its tabs named), the ones with a flagged
 * surface first, then those with commits to review, then the rest, each
 * group in tab order. */
static void
wb_review_count_show(struct wb_review_count *rc)
{
	struct wb *wb = rc->wb;
	struct sidelist_item *it = xcalloc(wb->n_tabs + 1, sizeof *it);
	char **text = xcalloc(wb->n_tabs + 1, sizeof *text);
	size_t i, k, n = 0;

	for (int pass = 0; pass < 3; pass++)
		for (i = 0; i < wb->n_tabs; i++) {
			struct wb_tab *tab = wb->tabs[i];
			struct wb_review_count_entry *e = wb_review_count_find(rc, tab->profile,
			    tab->workspace);
			bool flagged = e != NULL && e->commits > 0 && e->flags > 0;
			int rank = flagged ? 0 : e != NULL && e->commits > 0 ? 1 : 2;

			for (k = 0; k < i; k++)	/* an earlier tab of this domain made its row */
				if (strcmp(wb->tabs[k]->profile, tab->profile) == 0 &&
				    strcmp(wb->tabs[k]->workspace, tab->workspace) == 0)
					break;
			if (k < i || rank != pass)
				continue;
			text[n] = wb_review_count_row(wb, e, tab->profile, tab->workspace);
			it[n].text = text[n];
			it[n].alert = flagged;
			n++;
		}
	sidelist_set(wb->side, SIDELIST_REVIEW, it, n);
	for (i = 0; i < n; i++)
		free(text[i]);
	free(text);
	free(it);
	wb->dirty = true;
}

static void
wb_review_count_free(struct wb_review_count *rc)
{
	size_t i;

	for (i = 0; i < rc->n; i++) {
		free(rc->e[i].profile);
		free(rc->e[i].workspace);
		free(rc->e[i].flag);
		free(rc->e[i].error);
	}
	free(rc->e);
	free(rc);
}

static void
wb_review_count_timer_closed_cb(uv_handle_t *h)
{
	struct wb_review_count *rc = h->data;

	if (rc->jobs == 0)
		wb_review_count_free(rc);
	else
		rc->timer.data = NULL;	/* the last job frees it */
}

static void
wb_review_count_after_cb(uv_work_t *w, int status)
{
	struct wb_review_count_job *j = w->data;
	struct wb_review_count *rc = j->rc;
	struct wb_review_count_entry *e;

	(void)status;
	rc->jobs--;
	if (!rc->stopping && (e = wb_review_count_find(rc, j->profile, j->workspace)) != NULL) {
		e->busy = false;
		if (j->changed || strcmp(e->tips, j->tips) != 0) {
			if (j->changed) {
				/* A new agent commit: an open review of it reloads. */
				if (rc->wb->hooks != NULL && rc->wb->hooks->agent_moved != NULL)
					rc->wb->hooks->agent_moved(rc->wb, j->profile, j->workspace,
					    j->tips);
				memcpy(e->tips, j->tips, sizeof e->tips);
				e->commits = j->commits;
				e->flags = j->flags;
				free(e->flag);
				e->flag = lz_steal_ptr(&j->flag);
				free(e->error);
				e->error = j->error;
				j->error = NULL;
			} else {
				/* Moved: count again now, for real. */
				e->tips[0] = '\0';
				e->busy = true;
				j->changed = true;
				rc->jobs++;
				uv_queue_work(rc->wb->loop, &j->w, wb_review_count_work_cb,
				    wb_review_count_after_cb);
				return;
			}
		}
		wb_review_count_show(rc);
	}
	if (rc->stopping && rc->jobs == 0 && rc->timer.data == NULL)
		wb_review_count_free(rc);
	free(j->profile);
	free(j->workspace);
	free(j->error);
	free(j->flag);
	free(j);
}

void
wb_review_count_refresh(struct wb *wb)
{
	struct wb_review_count *rc = wb->rcount;
	struct wb_review_count_job *j;
	size_t i, k;

	if (rc == NULL || rc->stopping)
		return;
	/* Entries of closed tabs go; new tabs get one. */
	for (i = 0; i < rc->n;) {
		bool used = false;

		for (k = 0; k < wb->n_tabs && !used; k++)
			used = strcmp(wb->tabs[k]->profile, rc->e[i].profile) == 0 &&
			    strcmp(wb->tabs[k]->workspace, rc->e[i].workspace) == 0;
		if (used || rc->e[i].busy) {
			i++;
			continue;
		}
		free(rc->e[i].profile);
		free(rc->e[i].workspace);
		free(rc->e[i].error);
		rc->e[i] = rc->e[--rc->n];
	}
	for (k = 0; k < wb->n_tabs; k++) {
		struct wb_review_count_entry *e = wb_review_count_find(rc, wb->tabs[k]->profile,
		    wb->tabs[k]->workspace);

		if (e == NULL) {
			rc->e = xreallocarray(rc->e, rc->n + 1, sizeof *rc->e);
			e = &rc->e[rc->n++];
			memset(e, 0, sizeof *e);
			e->profile = xstrdup(wb->tabs[k]->profile);
			e->workspace = xstrdup(wb->tabs[k]->workspace);
			e->commits = -1;
		}
		if (e->busy)
			continue;
		j = xcalloc(1, sizeof *j);
		j->w.data = j;
		j->rc = rc;
		j->cfg = wb->cfg;
		j->profile = xstrdup(e->profile);
		j->workspace = xstrdup(e->workspace);
		/* First time or after an error: count at once; else only look. */
		j->changed = e->tips[0] == '\0' || e->error != NULL;
		memcpy(j->tips, e->tips, sizeof j->tips);
		e->busy = true;
		rc->jobs++;
		uv_queue_work(wb->loop, &j->w, wb_review_count_work_cb, wb_review_count_after_cb);
	}
	wb_review_count_show(rc);
}

static void
wb_review_count_tick_cb(uv_timer_t *t)
{
	struct wb_review_count *rc = t->data;

	wb_review_count_refresh(rc->wb);
}

void
wb_review_count_start(struct wb *wb)
{
	struct wb_review_count *rc = xcalloc(1, sizeof *rc);

	rc->wb = wb;
	uv_timer_init(wb->loop, &rc->timer);
	rc->timer.data = rc;
	uv_timer_start(&rc->timer, wb_review_count_tick_cb, WB_REVIEW_COUNT_MS, WB_REVIEW_COUNT_MS);
	wb->rcount = rc;
	wb_review_count_refresh(wb);
}

void
wb_review_count_stop(struct wb *wb)
{
	struct wb_review_count *rc = wb->rcount;

	if (rc == NULL)
		return;
	wb->rcount = NULL;
	rc->stopping = true;
	uv_close((uv_handle_t *)&rc->timer, wb_review_count_timer_closed_cb);
}
