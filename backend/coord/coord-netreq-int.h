/* coord-netreq-int.h - what coord-netreq.c (the requests from the router,
 * their list, followers and audit rows) and coord-netreq-decide.c (the
 * clients' frames: decisions and grants) share, and no other code includes.
 * coord-netreq-decide.c calls coord-netreq.c, never the other way.
 */
#ifndef LZ_COORD_NETREQ_INT_H
#define LZ_COORD_NETREQ_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord/coord-int.h"
#include "grant.h"
#include "jsonw.h"
#include "netreq.h"

#define COORD_NETREQ_SEEN	1024	/* destinations whose first allow/block is audited */
#define COORD_NETREQ_ASKED	4096	/* destinations whose request is audited */
#define COORD_NETREQ_DENIED	256	/* denied destinations remembered here */

/* Hashes of the destinations already audited, open addressing, bounded. */
struct coord_netreq_seen {
	uint64_t *h;
	size_t n, max;
	bool full;
	const char *what;	/* for the one row saying the limit was reached */
};

struct coord_netreq_ent {
	struct netreq_item it;	/* it.id is ours */
	uint32_t rid;		/* the router's */
	uint64_t due_wall;	/* network.ask_timeout after it came: refused then, unless held */
	struct ctl_server_client *holder;	/* its view is open there (not a ref) */
};

struct coord_netreq {
	struct coord_netreq_ent pend[NETREQ_MAX_PENDING];
	size_t npend;
	struct netreq_item done[NETREQ_KEEP_DONE];	/* ring, oldest first */
	size_t done_head, ndone;
	uint32_t next_id;
	struct netreq_summary sum;
	struct ctl_server_client **follow;
	size_t nfollow;
	struct coord_netreq_seen asked, seen;
	/* Denied this run, kept here too: a restarted router has forgotten them,
	 * and one whose request had just expired never learned them. */
	struct netreq_item denied[COORD_NETREQ_DENIED];
	size_t ndenied;
	uint32_t denied_here;	/* attempts refused here for that reason */
};

struct coord_netreq *coord_netreq_get(struct coord *c);
/* One row; w is an open object, closed and freed here. request: our id or 0. */
void coord_netreq_audit(struct coord *c, const char *kind, const char *actor, uint32_t request,
    struct lz_jsonw *w);
void coord_netreq_json_dest(struct lz_jsonw *w, const struct netreq_item *it);
struct coord_netreq_ent *coord_netreq_by_id(struct coord_netreq *nr, uint32_t id);
/* A pending request is decided or gone: into the done ring, told to followers. */
void coord_netreq_retire(struct coord *c, struct coord_netreq_ent *e);
/* The destination as grant.h takes it. */
void coord_netreq_dest(const struct netreq_item *it, struct grant_dest *d);
/* Remember a denied destination here too (a restarted router forgot it). */
void coord_netreq_deny_keep(struct coord_netreq *nr, const struct netreq_item *it);
/* NETREQ_LIST: the list, and with NETREQ_FOLLOW what comes after. */
void coord_netreq_list(struct coord *c, struct ctl_server_client *cl, const uint8_t *p,
    size_t len);
/* NETREQ_HOLD: a client's view of a request opened or closed. */
void coord_netreq_hold(struct coord *c, struct ctl_server_client *cl, const uint8_t *p,
    size_t len);

#endif
