/* review-gate.h - auto-approval that reads agent files (issue 14 item 6).
 *
 * An auto_approve entry such as `make test` runs a host tool on files the
 * agent controls. Before such a request runs automatically, Host
 * Escalation asks here whether the executable surface of the agent's
 * checkout (its files as they are, uncommitted included) differs from the
 * user's checked-out branch; if it does, the request is prompted instead.
 */
#ifndef LZ_REVIEW_GATE_H
#define LZ_REVIEW_GATE_H

/* NULL when the surface of checkout equals that of repo's HEAD; else the
 * reason to prompt, naming the changed surface files (owned). Fails closed:
 * when the check itself fails, the reason says so. repo is the user's
 * checkout, checkout the directory the approved command would run in. */
char *review_gate_autoapprove(const char *repo, const char *checkout);

#endif
