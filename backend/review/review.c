/* review.c - opening a review and reading the agent's changes (see
 * review.h). Everything the agent wrote is read in the scratch repository
 * of review-git.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonw.h"
#include "review/review.h"
#include "sandbox/sentry/sentry.h"
#include "xmalloc.h"

static int
review_oid(struct review *r, bool host, const char *rev, char out[REVIEW_OID_MAX + 1],
    lz_err_t *err)
{
	const char *args[] = { "rev-parse", "--verify", "-q", "--end-of-options", rev, NULL };
	_cleanup_free_ char *o = NULL;

	if (review_git_ok(r->g, host, NULL, args, &o, err) < 0)
		return -1;
	if (strlen(o) == 0 || strlen(o) > REVIEW_OID_MAX)
		return lz_err_set(err, EIO, "git rev-parse %s: unexpected output", rev);
	strcpy(out, o);
	return 0;
}

/* The agent checkout's files, uncommitted changes included, as a tree
 * (review_git_tree_of); wt_tree stays "" when it is the tip's. */
static int
review_checkout_tree(struct review *r, lz_err_t *err)
{
	char t[REVIEW_OID_MAX + 1];
	struct review_big big = { 0 };
	struct stat st;
	int ret;

	if (r->a->worktree == NULL || lstat(r->a->worktree, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	/* Files over limits.git_object are stood for, never read. */
	if (review_big_find(r->a->worktree, sentry_object_cap_of(r->a->domain_root), &big,
	    err) < 0)
		return -1;
	ret = review_git_tree_of(r->g, r->a->worktree, r->tip_tree, false, &big, t, err);
	review_big_clear(&big);
	if (ret < 0)
		return lz_err_wrap(err, "the agent checkout %s", r->a->worktree);
	if (strcmp(t, r->tip_tree) != 0)
		strcpy(r->wt_tree, t);
	return 0;
}

int
review_open(const struct anchor *a, const char *into, bool with_checkout,
    struct review **out, lz_err_t *err)
{
	struct review *r = xcalloc(1, sizeof *r);
	const char *a_head[] = { "symbolic-ref", "-q", "HEAD", NULL };
	_cleanup_free_ char *head = NULL, *range = NULL, *cnt = NULL, *tt = NULL;
	struct proc_result res = { 0 };
	_cleanup_close_ int lock = -1;

	r->a = a;
	/* Never the agent tip of an import that is still writing it. */
	if (sentry_import_lock(a->domain_root, false, SENTRY_LOCK_MS, &lock, err) < 0 ||
	    review_git_open(a->workspace, &r->g, err) < 0)
		goto fail;
	r->agent_ref = xasprintf("refs/heads/%s", a->branch);
	if (review_oid(r, true, r->agent_ref, r->tip, err) < 0) {
		lz_err_clear(err);
		lz_err_set(err, ENOENT, "no agent branch %s in %s yet: start an agent session "
		    "(lazaret run -p %s) first", a->branch, a->workspace, a->profile);
		goto fail;
	}
	if (review_git_run(r->g, true, NULL, a_head, NULL, 0, &res, err) < 0)
		goto fail;
	if (res.status == 0 && res.out != NULL) {
		head = xstrndup(res.out, strcspn(res.out, "\n"));
	}
	proc_result_clear(&res);
	if (into != NULL) {
		const char *chk[] = { "check-ref-format", "--branch", into, NULL };

		if (review_git_ok(r->g, true, NULL, chk, NULL, err) < 0) {
			lz_err_clear(err);
			lz_err_set(err, LZ_EUSAGE, "'%s' is not a valid branch name", into);
			goto fail;
		}
		r->target_ref = xasprintf("refs/heads/%s", into);
	} else if (head != NULL && strncmp(head, "refs/heads/", 11) == 0) {
		r->target_ref = xstrdup(head);
	} else {
		lz_err_set(err, LZ_EINVAL, "HEAD of %s is detached: check out the branch to "
		    "review against, or pass --into BRANCH", a->workspace);
		goto fail;
	}
	r->target = r->target_ref + 11;
	if (strcmp(r->target_ref, r->agent_ref) == 0) {
		lz_err_set(err, LZ_EINVAL, "the target branch is the agent branch %s itself: "
		    "check out your own branch or pass --into BRANCH", a->branch);
		goto fail;
	}
	r->target_checked_out = head != NULL && strcmp(head, r->target_ref) == 0;
	if (review_oid(r, true, r->target_ref, r->target_tip, err) < 0) {
		lz_err_clear(err);
		lz_err_set(err, ENOENT, "branch %s does not exist in %s", r->target, a->workspace);
		goto fail;
	}
	{
		const char *mb[] = { "merge-base", r->target_tip, r->tip, NULL };
		_cleanup_free_ char *o = NULL;

		if (review_git_ok(r->g, false, NULL, mb, &o, err) < 0 || strlen(o) > REVIEW_OID_MAX) {
			lz_err_clear(err);
			lz_err_set(err, LZ_EINVAL, "%s and %s share no history", a->branch, r->target);
			goto fail;
		}
		strcpy(r->base, o);
	}
	range = xasprintf("%s..%s", r->base, r->tip);
	tt = xasprintf("%s^{tree}", r->tip);
	{
		const char *rl[] = { "rev-list", "--count", range, NULL };

		if (review_git_ok(r->g, false, NULL, rl, &cnt, err) < 0 ||
		    review_oid(r, false, tt, r->tip_tree, err) < 0)
			goto fail;
		r->commits = strtol(cnt, NULL, 10);
	}
	if (with_checkout && review_checkout_tree(r, err) < 0)
		goto fail;
	*out = r;
	return 0;
fail:
	review_free(r);
	return -1;
}

void
review_free(struct review *r)
{
	if (r == NULL)
		return;
	review_git_free(r->g);
	free(r->agent_ref);
	free(r->target_ref);
	free(r);
}

int
review_changes(struct review *r, const char *from, const char *to,
    struct surface_change **ch, size_t *n, lz_err_t *err)
{
	const char *raw[] = { "diff", "--raw", "-z", "--no-renames", "--no-ext-diff",
		"--no-textconv", "--ignore-submodules=none", from, to, "--", NULL };
	const char *num[] = { "diff", "--numstat", "-z", "--no-renames", "--no-ext-diff",
		"--no-textconv", from, to, "--", NULL };
	struct proc_result res = { 0 };
	int ret = -1;

	*ch = NULL;
	*n = 0;
	if (review_git_run(r->g, false, NULL, raw, NULL, 0, &res, err) < 0)
		return -1;
	if (res.status != 0) {
		lz_err_set(err, EIO, "git diff --raw failed (exit %d): %s", res.status,
		    res.errout != NULL ? res.errout : "");
		goto out;
	}
	if (surface_raw_parse(res.out != NULL ? res.out : "", res.out_len, ch, n, err) < 0)
		goto out;
	proc_result_clear(&res);
	if (review_git_run(r->g, false, NULL, num, NULL, 0, &res, err) < 0)
		goto out;
	if (res.status != 0) {
		lz_err_set(err, EIO, "git diff --numstat failed (exit %d)", res.status);
		goto out;
	}
	if (surface_numstat_apply(res.out != NULL ? res.out : "", res.out_len, *ch, *n, err) < 0)
		goto out;
	ret = 0;
out:
	proc_result_clear(&res);
	if (ret < 0) {
		surface_changes_free(*ch, *n);
		*ch = NULL;
		*n = 0;
	}
	return ret;
}

int
review_surface(struct review *r, const struct surface_table *t, const char *from,
    const char *to, struct surface_result *out, lz_err_t *err)
{
	struct surface_change *ch = NULL;
	size_t n = 0;
	int ret;

	if (review_changes(r, from, to, &ch, &n, err) < 0)
		return -1;
	ret = surface_classify(t, ch, n, review_git_blob_cb, r->g, out, err);
	surface_changes_free(ch, n);
	return ret;
}

/* n bytes of s to f, control bytes but tab as ^X, C1 controls as \u00XX. */
static void
review_put_safe(FILE *f, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
			fprintf(f, "^%c", ch == 0x7f ? '?' : ch + '@');
		} else if (ch == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f) {
			/* A C1 control in UTF-8 (U+009B is CSI to some terminals). */
			fprintf(f, "\\u%04x", (unsigned char)s[++i]);
		} else {
			fputc(ch, f);
		}
	}
}

/* One line of git's diff to f: bytes below 0x20 but tab, DEL and ESC made
 * visible (^X), so the agent's file contents cannot move the cursor, erase
 * lines or retitle the terminal while you read; colour ours, by prefix. */
static void
review_line_print(FILE *f, const char *l, size_t n, bool color, bool stat)
{
	const char *c = NULL;

	if (color && !stat) {
		if (n >= 4 && (memcmp(l, "+++ ", 4) == 0 || memcmp(l, "--- ", 4) == 0))
			c = "\033[1m";
		else if (n >= 5 && memcmp(l, "diff ", 5) == 0)
			c = "\033[1m";
		else if (n >= 2 && memcmp(l, "@@", 2) == 0)
			c = "\033[36m";
		else if (n >= 1 && l[0] == '+')
			c = "\033[32m";
		else if (n >= 1 && l[0] == '-')
			c = "\033[31m";
	}
	if (c != NULL)
		fputs(c, f);
	review_put_safe(f, l, n);
	if (c != NULL)
		fputs("\033[m", f);
	fputc('\n', f);
}

int
review_diff_print(struct review *r, const char *from, const char *to, bool stat,
    lz_err_t *err)
{
	const char *args[] = { "diff", "--no-ext-diff", "--no-textconv", "--color=never",
		stat ? "--stat" : "-p", from, to, "--", NULL };
	bool color = isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *in;
	pid_t pid;
	int st;

	fflush(stdout);
	if (review_git_pipe(r->g, args, &in, &pid, err) < 0)
		return -1;
	while ((n = getline(&line, &cap, in)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		review_line_print(stdout, line, (size_t)n, color, stat);
	}
	free(line);
	fflush(stdout);
	if ((st = review_git_wait(in, pid)) != 0)
		return lz_err_set(err, EIO, "git diff failed (exit %d)", st);
	return 0;
}

void
review_surface_json(struct lz_jsonw *w, const struct surface_result *s)
{
	size_t i;

	lz_jsonw_arr_open(w);
	for (i = 0; i < s->n; i++) {
		const struct surface_flag *f = &s->flags[i];

		lz_jsonw_obj_open(w);
		lz_jsonw_key(w, "path"); lz_jsonw_str(w, f->path);
		lz_jsonw_key(w, "kind"); lz_jsonw_str(w, f->kind);
		lz_jsonw_key(w, "rule"); lz_jsonw_str(w, f->rule);
		lz_jsonw_key(w, "reason"); lz_jsonw_str(w, f->reason);
		lz_jsonw_key(w, "detail"); lz_jsonw_str(w, f->detail);
		lz_jsonw_obj_close(w);
	}
	lz_jsonw_arr_close(w);
}

void
review_surface_print(FILE *f, const struct surface_result *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct surface_flag *fl = &s->flags[i];

		fputs("  ", f);
		review_put_safe(f, fl->path, strlen(fl->path));
		fprintf(f, ": %s", fl->reason);
		if (fl->detail != NULL) {
			fputs(" (", f);
			review_put_safe(f, fl->detail, strlen(fl->detail));
			fputc(')', f);
		}
		fputc('\n', f);
	}
}
