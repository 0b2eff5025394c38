/* egress-log.h - the domain's egress log in the state store: flow and DNS
 * events from the network sidecar, bounded (the oldest rows go beyond
 * EGRESS_LOG_MAX), with per-kind counts that are never dropped. */
#ifndef LZ_EGRESS_LOG_H
#define LZ_EGRESS_LOG_H

#include <stdint.h>

#include "netctl.h"
#include "store/store.h"

#define EGRESS_LOG_MAX	10000

/* Append one event (its time_ms kept); drops the oldest rows beyond the bound. */
int egress_log_add(struct store *, const struct netctl_event *, lz_err_t *err);
/* Call cb for the last `last` rows (0: all kept), oldest first; non-zero stops. */
typedef int (*egress_log_cb)(const struct netctl_event *, void *arg);
int egress_log_list(struct store *, unsigned last, egress_log_cb cb, void *arg, lz_err_t *err);
/* Events ever recorded: allowed and blocked flows, forwarded and refused queries. */
struct egress_log_counts {
	int64_t flows_allowed, flows_blocked, dns_forwarded, dns_refused, lost;
};
int egress_log_counts(struct store *, struct egress_log_counts *out, lz_err_t *err);

#endif
