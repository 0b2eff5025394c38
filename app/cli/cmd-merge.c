/* cmd-merge.c - lazaret merge, discard and sync: take the reviewed agent
 * work or leave it (backend/review/), each an audit row with the commit
 * range and the executable surface shown at the time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client.h"
#include "commands.h"
#include "review-act.h"
#include "sync-live.h"
#include "xmalloc.h"

#define MERGE_USAGE "lazaret merge [--profile P] [--workspace DIR] [--ff-only | --squash] " \
	"[--into BRANCH] [--accept-surface]"
#define DISCARD_USAGE "lazaret discard [--profile P] [--workspace DIR] [--into BRANCH]"
#define SYNC_USAGE "lazaret sync [--profile P] [--workspace DIR] [--into BRANCH] [--reset]"

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
    "Give the agent your latest work (your checked-out branch, or --into's).\n"
    "Your checkout, index and branches are never touched.\n\n"
    "While the domain runs, the agent always sees your branches, read-only\n"
    "and live, as host/<branch> in its repository. lazaret sync refreshes\n"
    "host/<branch> at once and prints a one-line notice in the domain's\n"
    "running sessions, so the agent (or you in its tab) can git rebase or\n"
    "git merge host/<branch>; any conflict happens in the agent's repository.\n"
    "This is the default because it rewrites nothing of the agent's.\n\n"
    "--reset starts the agent branch afresh at your branch's tip instead.\n"
    "Nothing is lost: the old agent tip is kept on your side as\n"
    "refs/lazaret/saved/<profile>/<time>; while the domain runs, the agent's\n"
    "HEAD with its uncommitted files (as a commit) is kept on its branch\n"
    "lazaret-saved/<time> (on your side also as .../<time>-wip), then its\n"
    "checkout is reset. Both are named in the message and the audit row.\n"
    "Refused in direct mode while it runs (the checkout is yours).\n\n"
    "With the domain stopped, sync recreates the agent branch at your tip\n"
    "for the next session; without --reset it is refused while the agent\n"
    "branch has commits your branch lacks (merge or discard them first).\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory)\n"
    "  --into BRANCH        sync to BRANCH instead of the checked-out one\n"
    "  --reset              start the agent branch afresh, its work kept\n";

/* Open the review for m's action. Returns CLI_GO_ON or the exit status. */
static int
merge_begin(struct review_act *m, const char *action, struct cfg **cfg, const char *profile,
    const char *workspace, const char *into)
{
	lz_err_t err = LZ_ERR_INIT;

	if (cli_refuse_root(&err) < 0 || cli_load_config(cfg, &err) < 0 ||
	    review_act_open(m, action, *cfg, profile, workspace, into, &err) < 0)
		return cli_fail(&err);
	return CLI_GO_ON;
}

/* A refusal or failure (err, audited by review-act.c): print it, return 1. */
static int
merge_refused(lz_err_t *err)
{
	lz_err_print(err);
	lz_err_clear(err);
	return 1;
}

int
cmd_merge(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL, *into = NULL;
	bool ff = false, squash = false, accept = false, surface_refused;
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_STR("into", 0, &into),
		CLI_FLAG("ff-only", 0, &ff), CLI_FLAG("squash", 0, &squash),
		CLI_FLAG("accept-surface", 0, &accept), CLI_END,
	};
	const struct cli_cmd cmd = { "merge", MERGE_USAGE, merge_help, opts, false };
	struct review_act m = { 0 };
	struct cfg *cfg = NULL;
	enum review_merge_mode mode;
	char result[REVIEW_OID_MAX + 1] = "";
	lz_err_t err = LZ_ERR_INIT;
	int rc;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	if (ff && squash)
		return cli_usage_error("merge", MERGE_USAGE, "--ff-only and --squash exclude each other");
	mode = ff ? REVIEW_MERGE_FF_ONLY : squash ? REVIEW_MERGE_SQUASH : REVIEW_MERGE_DEFAULT;
	if ((rc = merge_begin(&m, "merge", &cfg, profile, workspace, into)) != CLI_GO_ON)
		goto out;
	if (m.s.n > 0 && !accept) {
		fprintf(stderr, "executable surface of %s (%.12s..%.12s):\n", m.a->branch,
		    m.r->base, m.r->tip);
		review_surface_print(stderr, &m.s);
	}
	if ((rc = review_act_merge(&m, mode, accept, NULL, NULL, result, &surface_refused,
	    &err)) < 0) {
		rc = rc == -2 ? cli_fail(&err) : merge_refused(&err);
		goto out;
	}
	printf("merged %s %.12s..%.12s (%ld commit%s) into %s: now %.12s%s\n", m.a->branch,
	    m.r->base, m.r->tip, m.r->commits, m.r->commits == 1 ? "" : "s", m.r->target, result,
	    m.s.n > 0 ? " (executable surface accepted)" : "");
	rc = 0;
out:
	review_act_close(&m);
	cfg_free(cfg);
	return rc;
}

/* lazaret sync on a running domain: offer (default) or --reset. */
static int
merge_sync_live(struct review_act *m, bool reset)
{
	_cleanup_free_ char *msg = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int rc;

	if ((rc = sync_live(m, reset, &msg, &err)) < 0)
		return rc == -2 ? cli_fail(&err) : merge_refused(&err);
	printf("%s\n", msg);
	return 0;
}

/* discard and sync: the same shape, different step. */
static int
merge_reset_cmd(int argc, char **argv, bool discard)
{
	const char *profile = NULL, *workspace = NULL, *into = NULL;
	bool reset = false;
	const struct cli_opt sync_opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_STR("into", 0, &into),
		CLI_FLAG("reset", 0, &reset), CLI_END,
	};
	const struct cli_opt discard_opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_STR("into", 0, &into), CLI_END,
	};
	const struct cli_opt *opts = discard ? discard_opts : sync_opts;
	const struct cli_cmd cmd = { discard ? "discard" : "sync", discard ? DISCARD_USAGE :
		SYNC_USAGE, discard ? discard_help : sync_help, opts, false };
	struct review_act m = { 0 };
	struct cfg *cfg = NULL;
	_cleanup_free_ char *kept = NULL, *aside = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int rc;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	if ((rc = merge_begin(&m, discard ? "discard" : "sync", &cfg, profile, workspace, into)) !=
	    CLI_GO_ON)
		goto out;
	if (!discard && m.cl != NULL) {
		rc = merge_sync_live(&m, reset);
		goto out;
	}
	if ((rc = review_act_reset(&m, NULL, reset, &kept, &aside, &err)) < 0) {
		rc = rc == -2 ? cli_fail(&err) : merge_refused(&err);
		goto out;
	}
	if (m.warn != NULL)
		fprintf(stderr, "lazaret: %s\n", m.warn);
	if (discard)
		printf("discarded %s %.12s..%.12s (%ld commit%s): reset to %.12s, old tip kept as %s\n",
		    m.a->branch, m.r->base, m.r->tip, m.r->commits, m.r->commits == 1 ? "" : "s",
		    m.r->base, kept);
	else
		printf("synced %s to %s at %.12s%s%s\n", m.a->branch, m.r->target, m.r->target_tip,
		    kept != NULL ? ": old tip kept as " : "", kept != NULL ? kept : "");
	if (aside != NULL)
		printf("the agent checkout held uncommitted work: moved aside to %s\n", aside);
	rc = 0;
out:
	review_act_close(&m);
	cfg_free(cfg);
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
