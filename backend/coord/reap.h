/* reap.h - clean up a domain whose coordinator is gone (issue 10 item 2).
 *
 * A coordinator records its domain in <domain_root>/coordinator.up before it
 * creates anything, and removes the record after a clean teardown. A record
 * whose coordinator's lifetime lock is free marks a dead domain: reap_domain
 * stops and removes its containers (every one labelled lazaret.domain=<H>:
 * the sandbox, the network sidecar), unmounts its State Anchor overlays,
 * releases the Git Sentry, removes its sockets and TLS files and audits what
 * it did. The guard (guard.c) calls it the moment its coordinator dies;
 * `lazaret stop` and `lazaret stop --all` call it for what a dead guard left.
 */
#ifndef LZ_REAP_H
#define LZ_REAP_H

#include <stdbool.h>

#include "anchor.h"
#include "err.h"
#include "sandbox/driver.h"

#define REAP_MARK_NAME	"coordinator.up"

/* Record a's domain as served (written atomically, 0600). */
int reap_mark(const struct anchor *a, lz_err_t *err);
/* Remove the record (after a clean teardown). */
void reap_unmark(const struct anchor *a);
/* Read the record of the domain in domain_root: *profile and *workspace
 * (caller frees); checked against the directory's name (the Domain Anchor
 * hash). err->code ENOENT when there is none. */
int reap_mark_read(const char *domain_root, char **profile, char **workspace, lz_err_t *err);

/* Remove everything a dead coordinator of a left. The caller holds the
 * domain's lifetime lock. why goes to the log and the audit trail. Every
 * step runs even when one fails; -1 with the first failure in err. */
int reap_domain(const struct anchor *a, const struct drv_ops *drv, const char *why,
    lz_err_t *err);

/* Take the domain's lifetime lock (waiting up to wait_ms for a guard that is
 * reaping) and reap it when its record is there or one of its containers
 * exists. 1 reaped, 0 nothing was left, -1 error (EBUSY: a coordinator
 * holds the lock). */
int reap_if_dead(const struct anchor *a, const struct drv_ops *drv, int wait_ms,
    lz_err_t *err);

/* Each dead domain under data_root: the record is there and no coordinator
 * holds the lifetime lock. cb gets its anchor; a non-zero return stops. */
typedef int (*reap_dead_cb)(const struct anchor *a, void *arg);
int reap_each_dead(const char *data_root, const char *socket_dir, reap_dead_cb cb, void *arg,
    lz_err_t *err);

#endif
