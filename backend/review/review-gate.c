/* review-gate.c - should an auto-approved request still run by itself?
 * (see review-gate.h). Same machinery as lazaret diff: the checkout's
 * files become a tree in the scratch repository, compared with the user's
 * HEAD under the surface table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "review/review-gate.h"
#include "review/review-git.h"
#include "review/surface.h"
#include "xmalloc.h"

/* Surface files named in a prompt, at most. */
#define REVIEW_GATE_NAMES 8

static int
review_gate_check(const char *repo, const char *checkout, char **names, lz_err_t *err)
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
	if (surface_table_load(&t, err) < 0 || review_git_open(repo, &g, err) < 0 ||
	    review_git_ok(g, true, NULL, hd, &head, err) < 0 ||
	    review_git_tree_of(g, checkout, head, true, wt, err) < 0)
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

char *
review_gate_autoapprove(const char *repo, const char *checkout)
{
	lz_err_t err = LZ_ERR_INIT;
	char *names = NULL, *why;
	int n;

	if ((n = review_gate_check(repo, checkout, &names, &err)) < 0) {
		why = xasprintf("auto_approve suspended: the executable surface of the agent's "
		    "checkout could not be checked (%s)", err.msg);
		lz_err_clear(&err);
		return why;
	}
	if (n == 0)
		return NULL;
	why = xasprintf("auto_approve suspended: the agent changed the executable surface: %s",
	    names);
	free(names);
	return why;
}
