/* review.h - the review gate (issue 14): the agent branch against its base,
 * its executable surface, and taking it (merge) or leaving it (discard,
 * sync). Git runs through review-git.h, never able to run the repository's
 * code; the surface rules are surface.h's table.
 *
 * The base is the merge base of the agent branch with the target branch:
 * the branch the user has checked out, or --into's. What is reviewed and
 * merged is the agent tip read once at review_open, so a commit the agent
 * adds meanwhile is neither merged nor flagged unseen.
 */
#ifndef LZ_REVIEW_H
#define LZ_REVIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "anchor.h"
#include "err.h"
#include "review/review-git.h"
#include "review/surface.h"

#define REVIEW_OID_MAX SURFACE_OID_MAX

struct review {
	struct review_git *g;
	const struct anchor *a;
	char *agent_ref;	/* refs/heads/lazaret/agent-<profile> */
	char *target_ref;	/* refs/heads/<branch> */
	const char *target;	/* <branch>, inside target_ref */
	bool target_checked_out;	/* the user's checkout is on it */
	char tip[REVIEW_OID_MAX + 1];		/* agent tip */
	char target_tip[REVIEW_OID_MAX + 1];
	char base[REVIEW_OID_MAX + 1];		/* merge base */
	char tip_tree[REVIEW_OID_MAX + 1];
	char wt_tree[REVIEW_OID_MAX + 1];	/* agent checkout incl. uncommitted; "" none */
	long commits;		/* base..tip */
};

/* Open the review of anchor a's agent branch against into (NULL: the
 * branch checked out in the workspace). with_checkout: also read the agent
 * checkout's uncommitted state (a tree in the scratch repository). */
int review_open(const struct anchor *a, const char *into, bool with_checkout,
    struct review **out, lz_err_t *err);
void review_free(struct review *);

/* The changed paths from..to (commits or trees), binary marked. */
int review_changes(struct review *, const char *from, const char *to,
    struct surface_change **ch, size_t *n, lz_err_t *err);

/* The executable surface of from..to under table t. */
int review_surface(struct review *, const struct surface_table *t, const char *from,
    const char *to, struct surface_result *out, lz_err_t *err);

/* git's own diff (or --stat) of from..to, straight to our stdout. */
int review_diff_print(struct review *, const char *from, const char *to, bool stat,
    lz_err_t *err);

/* The surface as a JSON array into w (jsonw.h). */
struct lz_jsonw;
void review_surface_json(struct lz_jsonw *w, const struct surface_result *s);
/* The surface as text lines "  path: reason (detail)". */
void review_surface_print(FILE *f, const struct surface_result *s);

/* Taking it or leaving it (review-merge.c). */
enum review_merge_mode {
	REVIEW_MERGE_DEFAULT,	/* git merge: fast-forward when it can, else a merge commit */
	REVIEW_MERGE_FF_ONLY,
	REVIEW_MERGE_SQUASH,	/* one commit on the target with the agent's changes */
};

/* Refuse (-1, err says what) when the user's checkout has uncommitted
 * changes to tracked files; nothing is touched. Untracked files are left to
 * git, which refuses to overwrite them. */
int review_check_clean(struct review *, lz_err_t *err);

/* Merge base..tip into the target branch. The checked-out branch goes
 * through git merge in the user's checkout (hooks disabled); another branch
 * is updated without a checkout (merge-tree, commit-tree, update-ref with
 * the old value checked). Conflicts are refused before anything moves.
 * *result gets the target's new tip. */
int review_merge(struct review *, enum review_merge_mode mode,
    char result[REVIEW_OID_MAX + 1], lz_err_t *err);

/* Reset the agent branch to the base; its old tip is kept as
 * refs/lazaret/discarded/<profile>/<UTC time> (*kept, owned). */
int review_discard(struct review *, char **kept, lz_err_t *err);

/* Point the agent branch at the target's tip (the agent starts afresh from
 * your latest work). Refused while the agent branch has commits the target
 * lacks: sync never rewrites unreviewed commits. */
int review_sync(struct review *, lz_err_t *err);

/* The agent checkout (and the agent's own repository <dr>/git, where the
 * Sentry made one) after discard or sync: removed when the checkout holds
 * nothing uncommitted, else moved aside to <path>.discarded-<UTC time>
 * (*aside names the checkout's, owned; NULL when removed or absent). The
 * Sentry rebuilds both from the branch at the next session. */
int review_checkout_reset(struct review *, char **aside, lz_err_t *err);

/* lazaret sync --reset. The time stamp kept refs are named by (UTC). */
void review_utc_stamp(char out[32]);
/* refs/lazaret/saved/<profile>/<stamp> (owned): where the old work is kept. */
char *review_saved_ref(struct review *, const char *stamp);
/* Create ref (it must not exist) at hex in the user's repository. */
int review_keep_ref(struct review *, const char *ref, const char *hex, lz_err_t *err);
/* The domain stopped: keep the agent tip as review_saved_ref (*kept,
 * owned; NULL when the branch was at the target already), then point the
 * agent branch at the target's tip, commits or not. */
int review_sync_reset(struct review *, const char *stamp, char **kept, lz_err_t *err);

#endif
