/* coord-netreq.h - network requests in the coordinator (issue 13): the
 * router's held destinations as a list clients follow and answer, decisions
 * turned into verdicts and grants, and their audit rows. */
#ifndef LZ_COORD_NETREQ_H
#define LZ_COORD_NETREQ_H

#include "coord/ctl-server.h"
#include "netctl.h"
#include "netreq.h"

struct coord;

/* From the router (net-coord.c callbacks). */
void coord_netreq_ask(struct coord *, const struct netreq_item *);
void coord_netreq_summary(struct coord *, const struct netreq_summary *);
/* The router died: every pending request is gone. */
void coord_netreq_gone(struct coord *);
/* Every flow/DNS event: the first allow/block of a destination is audited. */
void coord_netreq_event(struct coord *, const struct netctl_event *);
/* NETREQ_LIST, NETREQ_DECIDE, NETREQ_GRANTS_REQ, NETREQ_REVOKE. */
void coord_netreq_frame(struct coord *, struct ctl_server_client *, const struct proto_header *,
    const uint8_t *p);
void coord_netreq_client_gone(struct coord *, struct ctl_server_client *);
void coord_netreq_free(struct coord *);

#endif
