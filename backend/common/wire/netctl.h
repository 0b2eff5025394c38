/* netctl.h - the control channel between the Session Coordinator and the
 * network sidecar (lazaret-sidecar): proto.h frames ("LZCT", version, type,
 * length) on a UNIX socket, with the NETCTL_* types of proto.h. Pure, no I/O,
 * fuzzable.
 *
 *	POLICY_SET  c->r  u32 n, n strings   replace the whole policy (OK | ERROR)
 *	POLICY_ADD  c->r  string             add one entry             (OK | ERROR)
 *	POLICY_DEL  c->r  string             remove one entry          (OK | ERROR)
 *	POLICY_GET  c->r  -                  -> POLICY u32 n, n strings
 *	SUBSCRIBE   c->r  -                  -> OK, then EVENT frames as they happen
 *	EVENT       r->c  see netctl_encode_event
 *	CRED_SET    c->r  u32 n, n strings   the credential broker's entries, once a
 *	                                     router run: NETCTL_CRED_FIELDS strings each
 *	                                     (name, host, port, address, header,
 *	                                     value prefix, allow rules joined by
 *	                                     newlines, CA PEM, secret, listen port,
 *	                                     git repository path or "", git ref
 *	                                     patterns joined by newlines, "+" before
 *	                                     a pattern whose refs may be forced)
 */
#ifndef LZ_NETCTL_H
#define LZ_NETCTL_H

#include <stdint.h>

#include "proto.h"

#define NETCTL_MAX_ENTRIES	1024
#define NETCTL_CRED_FIELDS	12
#define NETCTL_BROKER_PORT	4780	/* 127.0.0.1:4780 + i in the namespace: entry i */

enum netctl_ev_kind {
	NETCTL_EV_FLOW = 1,	/* a new flow, allowed or blocked */
	NETCTL_EV_DNS = 2,	/* a query answered: forwarded or refused */
	NETCTL_EV_LOST = 3,	/* count events were dropped (rate limit, full queue) */
	NETCTL_EV_ROUTER = 4,	/* the router started (rule: "start") */
	NETCTL_EV_BROKER = 5,	/* a brokered request: proto = HTTP status, port =
				 * upstream port, count = ms, addr = upstream host,
				 * name = "METHOD /path", rule = "credential NAME up N
				 * down N[: why]" */
};

struct netctl_event {
	uint32_t kind;		/* enum netctl_ev_kind */
	uint32_t allowed;	/* 1 allowed / forwarded, 0 blocked / refused */
	uint64_t time_ms;	/* wall clock, ms since the epoch */
	uint32_t proto;		/* IPPROTO_TCP, IPPROTO_UDP, ...; DNS: the query type */
	uint32_t port;		/* destination port, 0 if none */
	uint32_t count;		/* LOST: how many */
	char addr[48];		/* destination address, "" for DNS */
	char name[256];		/* DNS name, or the name an address was learned from */
	char rule[96];		/* the policy entry (or "default", "guard: ...") */
};

/* One string-list message (POLICY_SET, POLICY): n <= NETCTL_MAX_ENTRIES. */
void netctl_encode_list(struct proto_buf *b, uint16_t type, char *const *v, size_t n);
/* Decode it: *out is a NULL-terminated owned vector (lz_strv_free). */
int netctl_decode_list(const uint8_t *p, size_t len, char ***out, size_t *n, lz_err_t *err);
/* One string (POLICY_ADD, POLICY_DEL). */
void netctl_encode_str(struct proto_buf *b, uint16_t type, const char *s);
int netctl_decode_str(const uint8_t *p, size_t len, char **out, lz_err_t *err);
/* A message with no payload (POLICY_GET, SUBSCRIBE). */
void netctl_encode_empty(struct proto_buf *b, uint16_t type);
void netctl_encode_event(struct proto_buf *b, const struct netctl_event *);
int netctl_decode_event(const uint8_t *p, size_t len, struct netctl_event *out, lz_err_t *err);
/* Client <-> coordinator (proto.h PROTO_EGRESS_*): the egress log, the last
 * `last` rows (0: all kept) then OK, then live events when following. */
#define NETCTL_FOLLOW	0x1
void netctl_encode_egress_req(struct proto_buf *b, uint32_t flags, uint32_t last);
int netctl_decode_egress_req(const uint8_t *p, size_t len, uint32_t *flags, uint32_t *last,
    lz_err_t *err);
/* Allow (add = 1) or deny (add = 0) one entry for this run. */
void netctl_encode_egress_edit(struct proto_buf *b, uint32_t add, const char *entry);
int netctl_decode_egress_edit(const uint8_t *p, size_t len, uint32_t *add, char **entry,
    lz_err_t *err);
/* Name of an event kind for logs and JSON ("flow"). */
const char *netctl_ev_kind_name(uint32_t kind);

#endif
