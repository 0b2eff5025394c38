/* review-gate.h - auto-approval that reads agent files (issue 14 item 6).
 *
 * An auto_approve entry such as `make test` runs a host tool on files the
 * agent controls. Before such a request runs automatically, Host
 * Escalation asks here whether the executable surface of the agent's
 * checkout (its files as they are, uncommitted included) differs from the
 * user's checked-out branch; if it does, the request is prompted instead.
 *
 * The check runs git (a few processes, ~100 ms), so it runs on the libuv
 * threadpool, never on the caller's loop, and its verdict is kept: while
 * the checkout, the user's HEAD and the surface table are unchanged (a
 * stamp of their inode data, review-stamp.h), the next request reuses it.
 */
#ifndef LZ_REVIEW_GATE_H
#define LZ_REVIEW_GATE_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

/* One per domain: the repository pair and the last verdict. */
struct review_gate;

/* repo is the user's checkout, checkout the directory the approved
 * command would run in (both copied). */
struct review_gate *review_gate_new(const char *repo, const char *checkout);
/* Not while a review_gate_start is in flight. */
void review_gate_free(struct review_gate *);

/* The verdict: NULL when the surface of checkout equals that of repo's
 * HEAD; else the reason to prompt, naming the changed surface files
 * (owned). Fails closed: when the check itself fails, the reason says so.
 * Blocks (runs git unless the kept verdict still holds); *kept tells
 * which. */
char *review_gate_autoapprove(struct review_gate *, bool *kept);

/* The same on loop's threadpool; done(arg, why, kept) on the loop's thread. */
typedef void (*review_gate_done_fn)(void *arg, char *why, bool kept);
void review_gate_start(struct review_gate *, uv_loop_t *loop, review_gate_done_fn done,
    void *arg);

/* Counters (tests, bench): checks that ran git, verdicts reused. */
void review_gate_counts(struct review_gate *, uint64_t *ran, uint64_t *reused);

#endif
