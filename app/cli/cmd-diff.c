/* cmd-diff.c - lazaret diff: what the agent changed on its branch, and the
 * executable surface of it (backend/review/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "diff-follow.h"
#include "jsonw.h"
#include "review/review.h"
#include "review/review-git.h"

#define DIFF_USAGE "lazaret diff [--profile P] [--workspace DIR] [--into BRANCH] " \
	"[--stat] [--json] [--surface] [--follow]"

static const char diff_help[] =
    "Show the agent branch (lazaret/agent-<profile>) against its base, the\n"
    "merge base with the branch you have checked out (or --into's), and\n"
    "the agent checkout's uncommitted changes after it. git's diff runs in\n"
    "a scratch repository that reads no configuration of yours or the\n"
    "repository's: no external diff, textconv, filter, pager, fsmonitor or\n"
    "hook can run; control characters in the agent's bytes are shown as ^X.\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory)\n"
    "  --into BRANCH        compare against BRANCH instead of the checked-out one\n"
    "  --stat               a diffstat instead of the patch\n"
    "  --surface            only the executable surface: changed paths your host\n"
    "                       may run, each with its reason\n"
    "  --json               print JSON (files, surface, uncommitted)\n"
    "  --follow             keep running: show it again each time a new commit of\n"
    "                       the agent's is imported (after a line naming the new\n"
    "                       tip; with --json one object a line), until interrupted\n";

static const char *
diff_status_name(char st)
{
	switch (st) {
	case 'A': return "added";
	case 'D': return "deleted";
	case 'T': return "type-changed";
	default: return "modified";
	}
}

static void
diff_files_json(struct lz_jsonw *w, const struct surface_change *ch, size_t n)
{
	size_t i;

	lz_jsonw_arr_open(w);
	for (i = 0; i < n; i++) {
		lz_jsonw_obj_open(w);
		lz_jsonw_key(w, "path"); lz_jsonw_str(w, ch[i].path);
		lz_jsonw_key(w, "status"); lz_jsonw_str(w, diff_status_name(ch[i].status));
		lz_jsonw_key(w, "binary"); lz_jsonw_bool(w, ch[i].binary);
		lz_jsonw_obj_close(w);
	}
	lz_jsonw_arr_close(w);
}

static int
diff_json(struct review *r, const struct surface_table *t, lz_err_t *err)
{
	struct surface_change *ch = NULL, *uch = NULL;
	size_t n = 0, un = 0;
	struct surface_result s = { 0 }, us = { 0 };
	struct lz_jsonw w;
	char *out;
	int ret = -1;

	lz_jsonw_init(&w);
	if (review_changes(r, r->base, r->tip, &ch, &n, err) < 0 ||
	    review_surface(r, t, r->base, r->tip, &s, err) < 0)
		goto out;
	if (r->wt_tree[0] != '\0' && (review_changes(r, r->tip_tree, r->wt_tree, &uch, &un, err) < 0 ||
	    review_surface(r, t, r->tip_tree, r->wt_tree, &us, err) < 0))
		goto out;
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "profile"); lz_jsonw_str(&w, r->a->profile);
	lz_jsonw_key(&w, "workspace"); lz_jsonw_str(&w, r->a->workspace);
	lz_jsonw_key(&w, "branch"); lz_jsonw_str(&w, r->a->branch);
	lz_jsonw_key(&w, "target"); lz_jsonw_str(&w, r->target);
	lz_jsonw_key(&w, "base"); lz_jsonw_str(&w, r->base);
	lz_jsonw_key(&w, "tip"); lz_jsonw_str(&w, r->tip);
	lz_jsonw_key(&w, "commits"); lz_jsonw_int(&w, r->commits);
	lz_jsonw_key(&w, "files"); diff_files_json(&w, ch, n);
	lz_jsonw_key(&w, "surface"); review_surface_json(&w, &s);
	lz_jsonw_key(&w, "uncommitted"); diff_files_json(&w, uch, un);
	lz_jsonw_key(&w, "uncommitted_surface"); review_surface_json(&w, &us);
	lz_jsonw_obj_close(&w);
	out = lz_jsonw_steal(&w);
	printf("%s\n", out);
	free(out);
	ret = 0;
out:
	lz_jsonw_free(&w);
	surface_changes_free(ch, n);
	surface_changes_free(uch, un);
	surface_result_clear(&s);
	surface_result_clear(&us);
	return ret;
}

static int
diff_text(struct review *r, const struct surface_table *t, bool stat, bool surface_only,
    lz_err_t *err)
{
	struct surface_result s = { 0 }, us = { 0 };
	int ret = -1;

	if (review_surface(r, t, r->base, r->tip, &s, err) < 0)
		goto out;
	if (r->wt_tree[0] != '\0' && review_surface(r, t, r->tip_tree, r->wt_tree, &us, err) < 0)
		goto out;
	printf("%s: %ld commit%s on %s (base %.12s, tip %.12s)\n", r->a->branch, r->commits,
	    r->commits == 1 ? "" : "s", r->target, r->base, r->tip);
	if (s.n > 0) {
		printf("executable surface (%zu flag%s; lazaret merge needs --accept-surface):\n",
		    s.n, s.n == 1 ? "" : "s");
		review_surface_print(stdout, &s);
	} else {
		printf("executable surface: nothing flagged\n");
	}
	if (us.n > 0) {
		printf("executable surface of the uncommitted changes:\n");
		review_surface_print(stdout, &us);
	}
	if (surface_only) {
		ret = 0;
		goto out;
	}
	putchar('\n');
	if (review_diff_print(r, r->base, r->tip, stat, err) < 0)
		goto out;
	if (r->wt_tree[0] != '\0') {
		printf("\nuncommitted in the agent checkout %s (not part of lazaret merge):\n",
		    r->a->worktree);
		if (review_diff_print(r, r->tip_tree, r->wt_tree, stat, err) < 0)
			goto out;
	}
	ret = 0;
out:
	surface_result_clear(&s);
	surface_result_clear(&us);
	return ret;
}

int
cmd_diff(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL, *into = NULL;
	bool stat = false, json = false, surface = false, follow = false;
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_STR("into", 0, &into),
		CLI_FLAG("stat", 0, &stat), CLI_FLAG("json", 0, &json),
		CLI_FLAG("surface", 0, &surface), CLI_FLAG("follow", 0, &follow), CLI_END,
	};
	struct diff_follow *f = NULL;
	char last[REVIEW_OID_MAX + 1];
	const struct cli_cmd cmd = { "diff", DIFF_USAGE, diff_help, opts, false };
	struct surface_table t = { 0 };
	struct review *r = NULL;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int rc = 1, p;

	if ((p = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return p;
	if (cli_load_config(&cfg, &err) < 0 || cli_domain(cfg, profile, workspace, &a, NULL, &err) < 0 ||
	    surface_table_load(&t, &err) < 0 || review_open(a, into, true, &r, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	for (;;) {
		if ((json ? diff_json(r, &t, &err) : diff_text(r, &t, stat, surface, &err)) < 0) {
			rc = cli_fail(&err);
			goto out;
		}
		fflush(stdout);
		if (!follow)
			break;
		if (f == NULL && diff_follow_open(r->g->common, &f, &err) < 0) {
			rc = cli_fail(&err);
			goto out;
		}
		/* The next imported commit: the agent tip moved (not each ref write). */
		snprintf(last, sizeof last, "%s", r->tip);
		while (strcmp(last, r->tip) == 0) {
			if (diff_follow_wait(f, -1, &err) < 0) {
				rc = cli_fail(&err);
				goto out;
			}
			review_free(r);
			r = NULL;
			if (review_open(a, into, true, &r, &err) < 0) {
				rc = cli_fail(&err);
				goto out;
			}
		}
		if (!json)
			printf("\n--- %s now at %.12s (was %.12s): a new commit imported ---\n",
			    r->a->branch, r->tip, last);
	}
	rc = 0;
out:
	diff_follow_free(f);
	review_free(r);
	surface_table_clear(&t);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
