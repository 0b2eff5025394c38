/* sync-live.h - `lazaret sync` on a running domain (issue 30): offer the
 * user's branch to the agent at once, or start the agent branch afresh
 * from it with the agent's old work kept. Blocking (control socket, git). */
#ifndef LZ_SYNC_LIVE_H
#define LZ_SYNC_LIVE_H

#include "err.h"
#include "review-act.h"

/* Refresh host/<target> in the agent's repository now and tell its running
 * sessions (notice NULL: the coordinator's words). *reply (owned) says what
 * the agent sees. */
int sync_live_offer(struct review_act *m, const char *notice, char **reply, lz_err_t *err);

/* --reset while it runs: the agent tip kept on the host as *kept, the
 * agent's HEAD with its uncommitted work committed on its branch
 * lazaret-saved/<stamp> inside (imported as *wip, on the host too), then
 * the agent branch checked out afresh at host/<target>, and the sessions
 * told. All owned; *wip NULL when the import did not show it in time. */
int sync_live_reset(struct review_act *m, char **kept, char **wip, char **reply, lz_err_t *err);

/* One of the two with its audit row (review.sync, mode live or
 * live-reset) and *msg (owned) the line to show: -1 refused or failed
 * (audited; err says why), -2 done but the audit row failed. */
int sync_live(struct review_act *m, bool reset, char **msg, lz_err_t *err);

#endif
