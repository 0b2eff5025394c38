/* wb-egroup.h - the Egress list's events grouped by destination: one row
 * per (destination, port, protocol, verdict), with how many events, when
 * the last came, the verdict and the policy entry or grant that decided it
 *   allow   47 07:14 deb.debian.org:443  via *.debian.org
 *   block    3 07:15 203.0.113.9:53/udp  via default
 *   allow    2 07:14 dns deb.debian.org  via *.debian.org
 * so 50 flows to 3 destinations are 3 rows. A flow is grouped under the
 * name its address was learned from when there is one (every address of a
 * CDN name is one row), else under its address; TCP goes unnamed, other
 * protocols are named. The router's own events are no destination and
 * are left out; lost events are a row. Rows are in the order of their
 * last event, the newest at the bottom (a live list shows fresh activity
 * where it looks, like tail -f); at most WB_EGROUP_MAX rows (the group
 * quiet the longest goes). Pure: no curses, no sockets.
 */
#ifndef LZ_WB_EGROUP_H
#define LZ_WB_EGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netctl.h"

#define WB_EGROUP_MAX	400

struct wb_egroup;

struct wb_egroup *wb_egroup_new(void);
void wb_egroup_free(struct wb_egroup *);
void wb_egroup_clear(struct wb_egroup *);
/* Count one event in its group; true when it made a new group (a new
 * destination: the coordinator audits its first allow or block). */
bool wb_egroup_add(struct wb_egroup *, const struct netctl_event *e);
size_t wb_egroup_count(const struct wb_egroup *);
/* Groups shown with blocked_only: the refused ones alone. */
size_t wb_egroup_count_shown(const struct wb_egroup *, bool blocked_only);
/* Row i of those shown as text (caller frees); *blocked: its verdict. */
char *wb_egroup_row(const struct wb_egroup *, size_t i, bool blocked_only, bool *blocked);

/* A brokered request the broker refused (allow list, ref rule, Host...), as
 * a notice: "broker refused testapi: DELETE /v1/admin (why)". The method,
 * path and reason are the agent's bytes: every byte that is not printable
 * ASCII becomes '?', and each is cut to a bound. NULL for any other event.
 * Caller frees. */
char *wb_egroup_refused_text(const struct netctl_event *e);

#endif
