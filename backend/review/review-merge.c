/* review-merge.c - lazaret merge, discard and sync on the user's
 * repository (see review.h). Every ref update names the value it expects
 * (update-ref's <oldvalue>), so a ref that moved since review_open fails
 * the update instead of being overwritten. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "review/review.h"
#include "xmalloc.h"

static void
review_stamp(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y%m%dT%H%M%SZ", &tm);
}

static char *
review_message(struct review *r, const char *what)
{
	return xasprintf("%s %s into %s\n\nReviewed with lazaret diff: %s..%s (%ld commit%s).",
	    what, r->a->branch, r->target, r->base, r->tip, r->commits, r->commits == 1 ? "" : "s");
}

int
review_check_clean(struct review *r, lz_err_t *err)
{
	const char *st[] = { "status", "--porcelain=v1", "-z", "--untracked-files=no",
		"--ignore-submodules=none", NULL };
	_cleanup_free_ char *o = NULL;
	size_t n = 0, i;

	if (review_git_ok(r->g, true, NULL, st, &o, err) < 0)
		return -1;
	for (i = 0; o[i] != '\0'; i += strlen(o + i) + 1)
		n++;
	if (n > 0)
		return lz_err_set(err, LZ_EINVAL, "your working tree %s has uncommitted changes to "
		    "%zu tracked file%s: commit or stash them first (nothing was touched)",
		    r->a->workspace, n, n == 1 ? "" : "s");
	return 0;
}

/* Is branch ref checked out in another worktree of the repository? */
static int
review_checked_out_elsewhere(struct review *r, char **where, lz_err_t *err)
{
	const char *wl[] = { "worktree", "list", "--porcelain", NULL };
	_cleanup_free_ char *o = NULL;
	char *line, *save = NULL, *wt = NULL;

	*where = NULL;
	if (review_git_ok(r->g, true, NULL, wl, &o, err) < 0)
		return -1;
	for (line = strtok_r(o, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "worktree ", 9) == 0)
			wt = line + 9;
		else if (strncmp(line, "branch ", 7) == 0 && strcmp(line + 7, r->target_ref) == 0 &&
		    wt != NULL) {
			*where = xstrdup(wt);
			return 1;
		}
	}
	return 0;
}

static int
review_update_ref(struct review *r, const char *ref, const char *to, const char *from,
    const char *why, lz_err_t *err)
{
	const char *args[] = { "update-ref", "-m", why, ref, to, from, NULL };

	return review_git_ok(r->g, true, NULL, args, NULL, err);
}

/* The merged tree of target_tip and tip, written to the host repository;
 * conflicts refused. */
static int
review_merge_tree(struct review *r, char tree[REVIEW_OID_MAX + 1], lz_err_t *err)
{
	const char *mt[] = { "merge-tree", "--write-tree", "--no-messages", "--name-only",
		r->target_tip, r->tip, NULL };
	struct proc_result res = { 0 };
	size_t l;

	if (review_git_run(r->g, true, NULL, mt, NULL, 0, &res, err) < 0)
		return -1;
	if (res.status == 1) {
		char *files = res.out != NULL ? strchr(res.out, '\n') : NULL;

		lz_err_set(err, LZ_EINVAL, "%s does not merge cleanly into %s (conflicts in:%s): "
		    "merge it by hand with git merge %s", r->a->branch, r->target,
		    files != NULL ? files : " ?", r->tip);
		proc_result_clear(&res);
		return -1;
	}
	l = res.out != NULL ? strcspn(res.out, "\n") : 0;
	if (res.status != 0 || l == 0 || l > REVIEW_OID_MAX) {
		lz_err_set(err, EIO, "git merge-tree failed (exit %d): %s", res.status,
		    res.errout != NULL ? res.errout : "");
		proc_result_clear(&res);
		return -1;
	}
	memcpy(tree, res.out, l);
	tree[l] = '\0';
	proc_result_clear(&res);
	return 0;
}

/* Into a branch that is not checked out: no work tree is involved. */
static int
review_merge_refs(struct review *r, enum review_merge_mode mode, char result[REVIEW_OID_MAX + 1],
    lz_err_t *err)
{
	_cleanup_free_ char *where = NULL, *msg = NULL, *c = NULL;
	char tree[REVIEW_OID_MAX + 1];
	bool ff = strcmp(r->base, r->target_tip) == 0;
	int e;

	if ((e = review_checked_out_elsewhere(r, &where, err)) < 0)
		return -1;
	if (e > 0)
		return lz_err_set(err, LZ_EINVAL, "%s is checked out in %s: run lazaret merge "
		    "there, or check it out here", r->target, where);
	if (mode == REVIEW_MERGE_FF_ONLY && !ff)
		return lz_err_set(err, LZ_EINVAL, "%s has moved on since %s branched off: not a "
		    "fast-forward (drop --ff-only, or lazaret sync after a merge)", r->target,
		    r->a->branch);
	if (ff && mode != REVIEW_MERGE_SQUASH) {
		strcpy(result, r->tip);
		return review_update_ref(r, r->target_ref, r->tip, r->target_tip,
		    "lazaret merge: fast-forward", err);
	}
	if (ff)
		strcpy(tree, r->tip_tree);
	else if (review_merge_tree(r, tree, err) < 0)
		return -1;
	msg = review_message(r, mode == REVIEW_MERGE_SQUASH ? "Squash" : "Merge");
	{
		const char *two[] = { "commit-tree", tree, "-p", r->target_tip, "-p", r->tip,
			"-m", msg, NULL };
		const char *one[] = { "commit-tree", tree, "-p", r->target_tip, "-m", msg, NULL };

		if (review_git_ok(r->g, true, NULL, mode == REVIEW_MERGE_SQUASH ? one : two, &c, err) < 0)
			return -1;
	}
	if (strlen(c) > REVIEW_OID_MAX)
		return lz_err_set(err, EIO, "git commit-tree: unexpected output");
	strcpy(result, c);
	return review_update_ref(r, r->target_ref, c, r->target_tip, "lazaret merge", err);
}

int
review_merge(struct review *r, enum review_merge_mode mode, char result[REVIEW_OID_MAX + 1],
    lz_err_t *err)
{
	_cleanup_free_ char *msg = NULL, *head = NULL;
	char tree[REVIEW_OID_MAX + 1];
	const char *hd[] = { "rev-parse", "--verify", "HEAD", NULL };

	if (r->commits == 0)
		return lz_err_set(err, LZ_EINVAL, "nothing to merge: %s has no commits that %s "
		    "lacks", r->a->branch, r->target);
	if (!r->target_checked_out)
		return review_merge_refs(r, mode, result, err);
	if (review_check_clean(r, err) < 0)
		return -1;
	/* Refuse conflicts before the checkout is touched. */
	if (mode != REVIEW_MERGE_FF_ONLY && strcmp(r->base, r->target_tip) != 0 &&
	    review_merge_tree(r, tree, err) < 0)
		return -1;
	msg = review_message(r, mode == REVIEW_MERGE_SQUASH ? "Squash" : "Merge");
	{
		const char *ff[] = { "merge", "-q", "--ff-only", r->tip, NULL };
		const char *sq[] = { "merge", "-q", "--squash", r->tip, NULL };
		const char *mg[] = { "merge", "-q", "--no-edit", "-m", msg, r->tip, NULL };
		const char *cm[] = { "commit", "-q", "--no-verify", "-m", msg, NULL };

		if (mode == REVIEW_MERGE_FF_ONLY && strcmp(r->base, r->target_tip) != 0)
			return lz_err_set(err, LZ_EINVAL, "%s has moved on since %s branched off: "
			    "not a fast-forward (drop --ff-only)", r->target, r->a->branch);
		if (review_git_ok(r->g, true, NULL, mode == REVIEW_MERGE_FF_ONLY ? ff :
		    mode == REVIEW_MERGE_SQUASH ? sq : mg, NULL, err) < 0)
			return -1;
		if (mode == REVIEW_MERGE_SQUASH && review_git_ok(r->g, true, NULL, cm, NULL, err) < 0)
			return -1;
	}
	if (review_git_ok(r->g, true, NULL, hd, &head, err) < 0)
		return -1;
	snprintf(result, REVIEW_OID_MAX + 1, "%s", head);
	return 0;
}

int
review_discard(struct review *r, char **kept, lz_err_t *err)
{
	char stamp[32];
	_cleanup_free_ char *ref = NULL;

	*kept = NULL;
	if (strcmp(r->tip, r->base) == 0)
		return lz_err_set(err, LZ_EINVAL, "nothing to discard: %s is at its base %.12s",
		    r->a->branch, r->base);
	review_stamp(stamp);
	ref = xasprintf("refs/lazaret/discarded/%s/%s", r->a->profile, stamp);
	/* "" as the old value: the keep ref must not exist yet. */
	if (review_update_ref(r, ref, r->tip, "", "lazaret discard: the old agent tip", err) < 0 ||
	    review_update_ref(r, r->agent_ref, r->base, r->tip, "lazaret discard", err) < 0)
		return -1;
	*kept = ref;
	ref = NULL;
	return 0;
}

int
review_sync(struct review *r, lz_err_t *err)
{
	if (r->commits > 0)
		return lz_err_set(err, LZ_EINVAL, "%s has %ld commit%s that %s lacks: merge or "
		    "discard them first (sync starts the branch afresh; it never rewrites "
		    "commits you have not reviewed)", r->a->branch, r->commits,
		    r->commits == 1 ? "" : "s", r->target);
	if (strcmp(r->tip, r->target_tip) == 0)
		return 0;
	return review_update_ref(r, r->agent_ref, r->target_tip, r->tip, "lazaret sync", err);
}

int
review_keep_ref(struct review *r, const char *ref, const char *hex, lz_err_t *err)
{
	/* "" as the old value: a kept ref is never overwritten. */
	return review_update_ref(r, ref, hex, "", "lazaret sync --reset: the old agent work", err);
}

char *
review_saved_ref(struct review *r, const char *stamp)
{
	return xasprintf("refs/lazaret/saved/%s/%s", r->a->profile, stamp);
}

int
review_sync_reset(struct review *r, const char *stamp, char **kept, lz_err_t *err)
{
	_cleanup_free_ char *ref = review_saved_ref(r, stamp);

	*kept = NULL;
	if (strcmp(r->tip, r->target_tip) == 0)
		return 0;
	if (review_keep_ref(r, ref, r->tip, err) < 0 ||
	    review_update_ref(r, r->agent_ref, r->target_tip, r->tip, "lazaret sync --reset", err) < 0)
		return -1;
	*kept = lz_steal_ptr(&ref);
	return 0;
}

void
review_utc_stamp(char out[32])
{
	review_stamp(out);
}

/* Remove dir, or with aside set move it to "<dir>.discarded-<stamp>"
 * (*moved, owned). Absent: nothing to do. */
static int
review_set_aside(const char *dir, bool aside, const char *stamp, char **moved, lz_err_t *err)
{
	struct stat st;

	*moved = NULL;
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (!aside) {
		if (review_rmtree(dir) < 0)
			return lz_err_sys(err, errno, "cannot remove %s", dir);
		return 0;
	}
	*moved = xasprintf("%s.discarded-%s", dir, stamp);
	if (rename(dir, *moved) < 0) {
		int e = errno;

		free(*moved);
		*moved = NULL;
		return lz_err_sys(err, e, "cannot move %s aside", dir);
	}
	return 0;
}

int
review_checkout_reset(struct review *r, char **aside, lz_err_t *err)
{
	/* The agent's own repository (the Sentry's <dr>/git, where it has one):
	 * left alone, its branch would be imported over the reset one. */
	_cleanup_free_ char *priv = xasprintf("%s/git", r->a->domain_root), *pmoved = NULL;
	bool keep = r->wt_tree[0] != '\0';	/* uncommitted work: keep it aside */
	char stamp[32];

	*aside = NULL;
	review_stamp(stamp);
	if (r->a->worktree != NULL && review_set_aside(r->a->worktree, keep, stamp, aside, err) < 0)
		return -1;
	return review_set_aside(priv, keep, stamp, &pmoved, err);
}
