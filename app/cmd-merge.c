/* cmd-merge.c - lazaret merge, discard and sync: take the reviewed agent
 * work or leave it (backend/review/), each an audit row with the commit
 * range and the executable surface shown at the time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client.h"
#include "commands.h"
#include "jsonw.h"
#include "review/review-audit.h"
#include "review/review.h"
#include "xmalloc.h"

#define MERGE_USAGE "lazaret merge [--profile P] [--workspace DIR] [--ff-only | --squash] " \
	"[--into BRANCH] [--accept-surface]"
#define DISCARD_USAGE "lazaret discard [--profile P] [--workspace DIR] [--into BRANCH]"
#define SYNC_USAGE "lazaret sync [--profile P] [--workspace DIR] [--into BRANCH]"

static const char merge_help[] =
    "Merge the agent branch (lazaret/agent-<profile>), exactly the tip that\n"
    "lazaret diff shows now, into the branch you have checked out (or\n"
    "--into's, updated without a checkout). Refused, with nothing touched,\n"
    "when your working tree has uncommitted changes to tracked files, when\n"
    "it would conflict, or when the executable surface changed (see\n"
    "lazaret diff --surface) unless --accept-surface. Hooks do not run.\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory)\n"
    "  --ff-only            only a fast-forward\n"
    "  --squash             one new commit with the agent's changes\n"
    "  --into BRANCH        merge into BRANCH instead of the checked-out one\n"
    "  --accept-surface     merge although the executable surface changed\n";

static const char discard_help[] =
    "Reset the agent branch to its base (the merge base with your branch);\n"
    "the old tip stays reachable as refs/lazaret/discarded/<profile>/<time>.\n"
    "The agent checkout is rebuilt at the next session (moved aside first\n"
    "when it holds uncommitted work). The domain must not be running.\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory)\n"
    "  --into BRANCH        the base is taken against BRANCH\n";

static const char sync_help[] =
    "Start the agent branch afresh at your branch's tip, so the next agent\n"
    "session continues from your latest work. It recreates the branch, it\n"
    "does not rebase: refused while the agent branch has commits your\n"
    "branch lacks (merge or discard them first), so no commit you have not\n"
    "reviewed is ever rewritten. The domain must not be running.\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory)\n"
    "  --into BRANCH        sync to BRANCH instead of the checked-out one\n";

/* The state of one review command, for its audit row. */
struct merge_run {
	const char *action;		/* "merge", "discard", "sync" */
	struct anchor *a;
	struct cfg *cfg;
	struct client *cl;
	struct review *r;
	struct surface_table t;
	struct surface_result s;
};

/* The audit row: through the coordinator when one runs, else state.db. */
static int
merge_audit(struct merge_run *m, const char *outcome, const char *mode, bool accepted,
    const char *result, const char *why, lz_err_t *err)
{
	_cleanup_free_ char *kind = xasprintf("review.%s", m->action), *detail = NULL;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	struct lz_jsonw w;
	int ret;

	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "outcome"); lz_jsonw_str(&w, outcome);
	lz_jsonw_key(&w, "branch"); lz_jsonw_str(&w, m->a->branch);
	lz_jsonw_key(&w, "target"); lz_jsonw_str(&w, m->r->target);
	lz_jsonw_key(&w, "base"); lz_jsonw_str(&w, m->r->base);
	lz_jsonw_key(&w, "tip"); lz_jsonw_str(&w, m->r->tip);
	{
		_cleanup_free_ char *range = xasprintf("%s..%s", m->r->base, m->r->tip);

		lz_jsonw_key(&w, "range"); lz_jsonw_str(&w, range);
	}
	lz_jsonw_key(&w, "commits"); lz_jsonw_int(&w, m->r->commits);
	if (mode != NULL) {
		lz_jsonw_key(&w, "mode"); lz_jsonw_str(&w, mode);
		lz_jsonw_key(&w, "accept_surface"); lz_jsonw_bool(&w, accepted);
	}
	lz_jsonw_key(&w, "result"); lz_jsonw_str(&w, result);
	lz_jsonw_key(&w, "why"); lz_jsonw_str(&w, why);
	lz_jsonw_key(&w, "surface"); review_surface_json(&w, &m->s);
	lz_jsonw_obj_close(&w);
	detail = lz_jsonw_steal(&w);
	if (m->cl == NULL)
		return review_audit_direct(m->a, kind, detail, NULL, err);
	review_audit_encode(&b, kind, detail);
	ret = client_request(m->cl, &b, PROTO_OK, 30000, &h, &p, err);
	free(b.data);
	return ret;
}

/* Parse, load, connect (when a coordinator runs) and open the review.
 * Returns CLI_GO_ON or the exit status. */
static int
merge_begin(struct merge_run *m, const char *profile, const char *workspace, const char *into)
{
	lz_err_t err = LZ_ERR_INIT;
	int r;

	if ((r = cli_connect(profile, workspace, &m->cfg, &m->a, &m->cl, &err)) < 0)
		return cli_fail(&err);
	lz_err_clear(&err);
	if (surface_table_load(&m->t, &err) < 0 || review_open(m->a, into, true, &m->r, &err) < 0 ||
	    review_surface(m->r, &m->t, m->r->base, m->r->tip, &m->s, &err) < 0)
		return cli_fail(&err);
	return CLI_GO_ON;
}

static void
merge_end(struct merge_run *m)
{
	surface_result_clear(&m->s);
	review_free(m->r);
	surface_table_clear(&m->t);
	client_free(m->cl);
	anchor_free(m->a);
	cfg_free(m->cfg);
}

/* Report a refusal or failure (err), audit it, return 1. */
static int
merge_refused(struct merge_run *m, const char *mode, bool accepted, lz_err_t *err)
{
	lz_err_t aerr = LZ_ERR_INIT;

	lz_err_print(err);
	if (merge_audit(m, "refused", mode, accepted, NULL, err->msg, &aerr) < 0) {
		lz_err_wrap(&aerr, "audit");
		lz_err_print(&aerr);
		lz_err_clear(&aerr);
	}
	lz_err_clear(err);
	return 1;
}

int
cmd_merge(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL, *into = NULL, *mname;
	bool ff = false, squash = false, accept = false;
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_STR("into", 0, &into),
		CLI_FLAG("ff-only", 0, &ff), CLI_FLAG("squash", 0, &squash),
		CLI_FLAG("accept-surface", 0, &accept), CLI_END,
	};
	const struct cli_cmd cmd = { "merge", MERGE_USAGE, merge_help, opts, false };
	struct merge_run m = { .action = "merge" };
	enum review_merge_mode mode;
	char result[REVIEW_OID_MAX + 1] = "";
	lz_err_t err = LZ_ERR_INIT;
	int rc;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	if (ff && squash)
		return cli_usage_error("merge", MERGE_USAGE, "--ff-only and --squash exclude each other");
	mode = ff ? REVIEW_MERGE_FF_ONLY : squash ? REVIEW_MERGE_SQUASH : REVIEW_MERGE_DEFAULT;
	mname = ff ? "ff-only" : squash ? "squash" : "merge";
	if ((rc = merge_begin(&m, profile, workspace, into)) != CLI_GO_ON)
		goto out;
	if (m.s.n > 0 && !accept) {
		fprintf(stderr, "executable surface of %s (%.12s..%.12s):\n", m.a->branch,
		    m.r->base, m.r->tip);
		review_surface_print(stderr, &m.s);
		lz_err_set(&err, LZ_EINVAL, "merge refused: %zu executable-surface flag%s "
		    "(above); review them with lazaret diff, then lazaret merge --accept-surface",
		    m.s.n, m.s.n == 1 ? "" : "s");
		rc = merge_refused(&m, mname, accept, &err);
		goto out;
	}
	if (review_merge(m.r, mode, result, &err) < 0) {
		rc = merge_refused(&m, mname, accept, &err);
		goto out;
	}
	if (merge_audit(&m, "merged", mname, accept, result, NULL, &err) < 0) {
		lz_err_wrap(&err, "merged %.12s into %s, but the audit row failed", m.r->tip,
		    m.r->target);
		rc = cli_fail(&err);
		goto out;
	}
	printf("merged %s %.12s..%.12s (%ld commit%s) into %s: now %.12s%s\n", m.a->branch,
	    m.r->base, m.r->tip, m.r->commits, m.r->commits == 1 ? "" : "s", m.r->target, result,
	    m.s.n > 0 ? " (executable surface accepted)" : "");
	rc = 0;
out:
	merge_end(&m);
	return rc;
}

/* discard and sync: the same shape, different step. */
static int
merge_reset_cmd(int argc, char **argv, bool discard)
{
	const char *profile = NULL, *workspace = NULL, *into = NULL;
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_STR("into", 0, &into), CLI_END,
	};
	const struct cli_cmd cmd = { discard ? "discard" : "sync", discard ? DISCARD_USAGE :
		SYNC_USAGE, discard ? discard_help : sync_help, opts, false };
	struct merge_run m = { .action = discard ? "discard" : "sync" };
	_cleanup_free_ char *kept = NULL, *aside = NULL, *what = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int rc;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	if ((rc = merge_begin(&m, profile, workspace, into)) != CLI_GO_ON)
		goto out;
	if (m.cl != NULL) {
		/* The agent's checkout and its repository are in use. */
		lz_err_set(&err, LZ_EINVAL, "domain %s is running: lazaret stop -p %s -w %s first",
		    m.a->hash, m.a->profile, m.a->workspace);
		rc = merge_refused(&m, NULL, false, &err);
		goto out;
	}
	if ((discard ? review_discard(m.r, &kept, &err) : review_sync(m.r, &err)) < 0) {
		rc = merge_refused(&m, NULL, false, &err);
		goto out;
	}
	if (review_checkout_reset(m.r, &aside, &err) < 0)
		lz_err_print(&err);	/* the branch moved; the checkout is rebuilt anyway */
	lz_err_clear(&err);
	what = discard ? xasprintf("old tip kept as %s", kept) :
	    xasprintf("%s", m.r->target_tip);
	if (merge_audit(&m, discard ? "discarded" : "synced", NULL, false,
	    discard ? m.r->base : m.r->target_tip, what, &err) < 0) {
		lz_err_wrap(&err, "%s done, but the audit row failed", m.action);
		rc = cli_fail(&err);
		goto out;
	}
	if (discard)
		printf("discarded %s %.12s..%.12s (%ld commit%s): reset to %.12s, old tip kept as %s\n",
		    m.a->branch, m.r->base, m.r->tip, m.r->commits, m.r->commits == 1 ? "" : "s",
		    m.r->base, kept);
	else
		printf("synced %s to %s at %.12s\n", m.a->branch, m.r->target, m.r->target_tip);
	if (aside != NULL)
		printf("the agent checkout held uncommitted work: moved aside to %s\n", aside);
	rc = 0;
out:
	merge_end(&m);
	return rc;
}

int
cmd_discard(int argc, char **argv)
{
	return merge_reset_cmd(argc, argv, true);
}

int
cmd_sync(int argc, char **argv)
{
	return merge_reset_cmd(argc, argv, false);
}
