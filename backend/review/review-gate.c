/* review-gate.c - should an auto-approved request still run by itself?
 * (see review-gate.h). Same machinery as lazaret diff: the checkout's
 * files become a tree in the scratch repository, compared with the user's
 * HEAD under the surface table.
 *
 * The kept verdict is keyed by a stamp (review-stamp.h) of the checkout,
 * the user's HEAD and refs, and the table, taken before git reads any of
 * them: a change after the stamp changes the next stamp, so a kept verdict
 * is never older than what it was computed from. Only sure stamps of
 * checks that worked are kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "review/review-gate.h"
#include "review/review-git.h"
#include "review/review-stamp.h"
#include "review/surface.h"
#include "xmalloc.h"

/* Surface files named in a prompt, at most. */
#define REVIEW_GATE_NAMES 8
/* A stamp is unsure while something changed this recently (racy ctime),
 * unless the filesystem's own clock says otherwise (review_gate_stamp). */
#define REVIEW_GATE_FRESH_MS 1000

struct review_gate {
	char *repo, *checkout;
	uv_mutex_t mu;		/* the rest: work threads share it */
	char *gitdir, *common, *table;	/* learnt by the first check */
	bool have;		/* a verdict is kept */
	uint8_t key[32];
	char *why;		/* the kept verdict (NULL: runs) */
	uint64_t ran, reused;
};

struct review_gate_work {
	uv_work_t w;
	struct review_gate *g;
	review_gate_done_fn done;
	void *arg;
	char *why;
	bool kept;
};

/* The stamp of everything the verdict depends on; false if unsure. With
 * clock, the checkout filesystem's own clock is read first
 * (review_stamp_clock). *recent: unsure only for a change too recent. */
static bool
review_gate_stamp_once(const struct review_gate *g, const char *gitdir, const char *common,
    const char *table, bool clock, uint8_t key[32], bool *recent)
{
	static const char *const in_gitdir[] = { "HEAD", "config.worktree", "refs" };
	static const char *const in_common[] = { "packed-refs", "config", "refs", "reftable" };
	struct review_stamp s;
	size_t i;
	bool sure;

	review_stamp_init(&s, REVIEW_GATE_FRESH_MS);
	if (clock)
		review_stamp_clock(&s, g->checkout);
	review_stamp_add(&s, g->checkout, REVIEW_STAMP_TREE | REVIEW_STAMP_NO_GIT);
	review_stamp_add(&s, table, 0);
	{
		_cleanup_free_ char *dotgit = xasprintf("%s/.git", g->repo);

		review_stamp_add(&s, dotgit, 0);
	}
	for (i = 0; i < sizeof in_gitdir / sizeof in_gitdir[0]; i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", gitdir, in_gitdir[i]);

		review_stamp_add(&s, p, REVIEW_STAMP_TREE);
	}
	for (i = 0; i < sizeof in_common / sizeof in_common[0]; i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", common, in_common[i]);

		review_stamp_add(&s, p, REVIEW_STAMP_TREE);
	}
	sure = review_stamp_final(&s, key);
	*recent = review_stamp_only_recent(&s);
	return sure;
}

/* A file the agent wrote within the last 1 s would make every request of
 * that second run git: then the stamp is taken again with the checkout
 * filesystem's own clock, which bounds "too recent" by one timestamp tick.
 * Only then: reading that clock creates an inode (~0.3 ms on ext4). */
static bool
review_gate_stamp(const struct review_gate *g, const char *gitdir, const char *common,
    const char *table, uint8_t key[32])
{
	bool recent;

	if (review_gate_stamp_once(g, gitdir, common, table, false, key, &recent))
		return true;
	return recent && review_gate_stamp_once(g, gitdir, common, table, true, key, &recent);
}

/* The number of surface files changed (names: the first of them), or -1.
 * *sure: key is a stamp taken before git read anything. */
static int
review_gate_check(struct review_gate *gate, char **names, uint8_t key[32], bool *sure,
    lz_err_t *err)
{
	const char *hd[] = { "rev-parse", "--verify", "-q", "HEAD^{tree}", NULL };
	const char *raw_a[] = { "diff", "--raw", "-z", "--no-renames", "--no-ext-diff",
		"--no-textconv", NULL, NULL, "--", NULL };
	struct review_git *g = NULL;
	struct surface_table t = { 0 };
	struct surface_change *ch = NULL;
	struct surface_result res = { 0 };
	struct proc_result pr = { 0 };
	_cleanup_free_ char *head = NULL;
	char wt[65];
	size_t n = 0, i, k, shown = 0;
	int ret = -1;

	*names = NULL;
	*sure = false;
	if (surface_table_load(&t, err) < 0 || review_git_open(gate->repo, &g, err) < 0)
		goto out;
	*sure = review_gate_stamp(gate, g->gitdir, g->common, t.source, key);
	uv_mutex_lock(&gate->mu);
	if (gate->gitdir == NULL) {
		gate->gitdir = xstrdup(g->gitdir);
		gate->common = xstrdup(g->common);
		gate->table = xstrdup(t.source);
	}
	gate->ran++;
	uv_mutex_unlock(&gate->mu);
	if (review_git_ok(g, true, NULL, hd, &head, err) < 0 ||
	    review_git_tree_of(g, gate->checkout, head, true, NULL, wt, err) < 0)
		goto out;
	if (strcmp(wt, head) == 0) {
		ret = 0;
		goto out;
	}
	raw_a[6] = head;
	raw_a[7] = wt;
	if (review_git_run(g, false, NULL, raw_a, NULL, 0, &pr, err) < 0)
		goto out;
	if (pr.status != 0) {
		lz_err_set(err, EIO, "git diff --raw failed (exit %d)", pr.status);
		goto out;
	}
	if (surface_raw_parse(pr.out != NULL ? pr.out : "", pr.out_len, &ch, &n, err) < 0 ||
	    surface_classify(&t, ch, n, review_git_blob_cb, g, &res, err) < 0)
		goto out;
	for (i = 0; i < res.n; i++) {
		char *j;

		for (k = 0; k < i && strcmp(res.flags[k].path, res.flags[i].path) != 0; k++)
			;
		if (k < i)
			continue;	/* one path, several flags */
		if (shown++ == REVIEW_GATE_NAMES) {
			j = xasprintf("%s, ...", *names);
		} else if (shown > REVIEW_GATE_NAMES) {
			continue;
		} else {
			j = *names == NULL ? xstrdup(res.flags[i].path) :
			    xasprintf("%s, %s", *names, res.flags[i].path);
		}
		free(*names);
		*names = j;
	}
	ret = (int)shown;
out:
	proc_result_clear(&pr);
	surface_result_clear(&res);
	surface_changes_free(ch, n);
	surface_table_clear(&t);
	review_git_free(g);
	return ret;
}

/* The kept verdict (owned copy) if its stamp still holds, in *why. */
static bool
review_gate_kept(struct review_gate *g, char **why)
{
	_cleanup_free_ char *gitdir = NULL, *common = NULL, *table = NULL;
	uint8_t key[32];
	bool hit;

	uv_mutex_lock(&g->mu);
	if (g->have) {
		gitdir = xstrdup(g->gitdir);
		common = xstrdup(g->common);
		table = xstrdup(g->table);
	}
	uv_mutex_unlock(&g->mu);
	if (gitdir == NULL || !review_gate_stamp(g, gitdir, common, table, key))
		return false;
	uv_mutex_lock(&g->mu);
	if ((hit = g->have && memcmp(key, g->key, sizeof key) == 0)) {
		*why = g->why != NULL ? xstrdup(g->why) : NULL;
		g->reused++;
	}
	uv_mutex_unlock(&g->mu);
	return hit;
}

char *
review_gate_autoapprove(struct review_gate *gate, bool *kept)
{
	lz_err_t err = LZ_ERR_INIT;
	char *names = NULL, *why = NULL;
	uint8_t key[32];
	bool sure;
	int n;

	if ((*kept = review_gate_kept(gate, &why)))
		return why;
	if ((n = review_gate_check(gate, &names, key, &sure, &err)) < 0) {
		why = xasprintf("auto_approve suspended: the executable surface of the agent's "
		    "checkout could not be checked (%s)", err.msg);
		lz_err_clear(&err);
		return why;
	}
	if (n > 0)
		why = xasprintf("auto_approve suspended: the agent changed the executable "
		    "surface: %s", names);
	free(names);
	uv_mutex_lock(&gate->mu);
	if (sure) {
		free(gate->why);
		gate->why = why != NULL ? xstrdup(why) : NULL;
		memcpy(gate->key, key, sizeof key);
		gate->have = true;
	}
	uv_mutex_unlock(&gate->mu);
	return why;
}

static void
review_gate_work_cb(uv_work_t *w)
{
	struct review_gate_work *x = w->data;

	x->why = review_gate_autoapprove(x->g, &x->kept);
}

static void
review_gate_after_cb(uv_work_t *w, int status)
{
	struct review_gate_work *x = w->data;

	(void)status;	/* UV_ECANCELED: never cancelled */
	x->done(x->arg, x->why, x->kept);
	free(x);
}

void
review_gate_start(struct review_gate *g, uv_loop_t *loop, review_gate_done_fn done, void *arg)
{
	struct review_gate_work *x = xcalloc(1, sizeof *x);
	int r;

	x->w.data = x;
	x->g = g;
	x->done = done;
	x->arg = arg;
	/* uv_queue_work fails only for a NULL callback: never here. */
	r = uv_queue_work(loop, &x->w, review_gate_work_cb, review_gate_after_cb);
	LZ_ASSERT(r == 0);
}

struct review_gate *
review_gate_new(const char *repo, const char *checkout)
{
	struct review_gate *g = xcalloc(1, sizeof *g);

	g->repo = xstrdup(repo);
	g->checkout = xstrdup(checkout);
	LZ_ASSERT(uv_mutex_init(&g->mu) == 0);
	return g;
}

void
review_gate_counts(struct review_gate *g, uint64_t *ran, uint64_t *reused)
{
	uv_mutex_lock(&g->mu);
	*ran = g->ran;
	*reused = g->reused;
	uv_mutex_unlock(&g->mu);
}

void
review_gate_free(struct review_gate *g)
{
	if (g == NULL)
		return;
	uv_mutex_destroy(&g->mu);
	free(g->repo);
	free(g->checkout);
	free(g->gitdir);
	free(g->common);
	free(g->table);
	free(g->why);
	free(g);
}
