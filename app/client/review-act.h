/* review-act.h - taking the agent's work or leaving it, the one code path
 * behind `lazaret merge`, `lazaret discard`, `lazaret sync` and the
 * workbench's review view: open the review and its executable surface,
 * connect to the domain's coordinator when one runs, do the step, and
 * write its audit row (through the coordinator, else state.db) with the
 * commit range and the surface shown at the time. Blocking (git, the
 * control socket): the workbench calls it on libuv's threadpool.
 */
#ifndef LZ_REVIEW_ACT_H
#define LZ_REVIEW_ACT_H

#include <stdbool.h>

#include "anchor.h"
#include "config.h"
#include "err.h"
#include "review/review.h"

struct client;

struct review_act {
	const char *action;		/* "merge", "discard", "sync" */
	struct anchor *a;
	struct client *cl;		/* the running coordinator, or NULL */
	struct review *r;
	struct surface_table t;
	struct surface_result s;
	char *warn;			/* reset: the checkout could not be reset (why) */
};

/* Open the review of (profile, workspace) under cfg against into (NULL:
 * the checked-out branch) for action; m is zeroed first. */
int review_act_open(struct review_act *m, const char *action, const struct cfg *cfg,
    const char *profile, const char *workspace, const char *into, lz_err_t *err);
void review_act_close(struct review_act *m);

/* The audit row "review.<action>" (mode NULL but for merge). */
int review_act_audit(struct review_act *m, const char *outcome, const char *mode, bool accepted,
    const char *result, const char *why, lz_err_t *err);

/* Merge (lazaret merge). Refused (-1, err says why; the refusal audited)
 * when the surface changed and !accept, when expect_tip/expect_base (may
 * be NULL: the CLI) are not the review's (the branch moved since it was
 * shown), or when review_merge refuses. *surface_refused tells the first
 * case. result gets the target's new tip. -2: done, but the audit row
 * failed (err says so). */
int review_act_merge(struct review_act *m, enum review_merge_mode mode, bool accept,
    const char *expect_tip, const char *expect_base, char result[REVIEW_OID_MAX + 1],
    bool *surface_refused, lz_err_t *err);

/* Discard (or sync, for action "sync"; reset: sync --reset, the old tip
 * kept, commits or not): refused while the domain runs;
 * *kept (discard, sync --reset: the ref keeping the old tip) and *aside (the agent
 * checkout moved aside, or NULL) are owned by the caller; -1 refused (and
 * audited), -2 done but the audit row failed. */
int review_act_reset(struct review_act *m, const char *expect_tip, bool reset, char **kept,
    char **aside, lz_err_t *err);

#endif
