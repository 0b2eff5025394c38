/* wb-netreq-text.h - a network request (netreq.h) as the workbench shows it:
 * its line in the side panel's Egress list and the lines of its detail
 * view (destination, attempts, the grant each scope would save and what that
 * grant also allows, from grant.h). Pure: no curses, no I/O.
 */
#ifndef LZ_WB_NETREQ_TEXT_H
#define LZ_WB_NETREQ_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "grant.h"
#include "netreq.h"

#define WB_NETREQ_CANDIDATES	GRANT_HOW_N

/* The destination of it for grant.h (addr parsed; port; the DNS name). */
void wb_netreq_dest(const struct netreq_item *it, struct grant_dest *out);
/* The grants an approval can save for it (exact first), each with its
 * reach; a DNS request's name only. Returns how many. */
size_t wb_netreq_candidates(const struct netreq_item *it, struct grant_candidate *out);
/* "? api.example.com 10.0.0.3:443/tcp x3 8s" (pending: the seconds left),
 * "allowed (run) ...", "denied ...": one panel line; caller frees. */
char *wb_netreq_line(const struct netreq_item *it, uint64_t now_ms);
/* The detail view's lines (NULL-terminated; lz_strv_free): what the agent
 * tried, then for scope the grant chosen (sel among c[0..n)) and its reach,
 * the other candidates with theirs, and a BROAD warning when it is one. */
char **wb_netreq_detail(const struct netreq_item *it, const struct grant_candidate *c, size_t n,
    size_t sel, uint32_t scope, uint64_t now_ms);

#endif
