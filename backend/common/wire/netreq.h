/* netreq.h - network requests (issue 13): a destination the agent tried that
 * the policy does not allow, held by the router while a human decides. Wire
 * format only (proto.h frames, version PROTO_VERSION): pure, no I/O, fuzzable
 * (tests/fuzz/fuzz-netreq.c).
 *
 * Client <-> coordinator, on the control socket:
 *
 *	NETREQ_LIST     c->s  u32 flags (NETREQ_FOLLOW)
 *	                      -> one NETREQ_ITEM per request the coordinator keeps
 *	                      (pending, then the last decided/expired ones), one
 *	                      NETREQ_SUMMARY, OK(number of items); with FOLLOW
 *	                      then an ITEM whenever a request is new or changes
 *	                      (state, attempts; at most NETREQ_FOLLOW_HZ per
 *	                      second for counter-only changes) and a SUMMARY when
 *	                      the counters move.
 *	NETREQ_ITEM     s->c  struct netreq_item
 *	NETREQ_SUMMARY  s->c  struct netreq_summary
 *	NETREQ_DECIDE   c->s  struct netreq_decision
 *	                      -> NETREQ_RESULT, or ERROR (no such request, already
 *	                      decided, a widen pattern that is not an entry or does
 *	                      not cover the destination, no sidecar)
 *	NETREQ_RESULT   s->c  struct netreq_result: APPLIED, PREVIEW (dry run: the
 *	                      grant and its reach, nothing done), or NEED_BROAD (the
 *	                      grant is broad and NETREQ_BROAD_OK was not set:
 *	                      nothing done; ask the human again, then resend)
 *	NETREQ_GRANTS_REQ c->s  -               -> NETREQ_GRANTS
 *	NETREQ_GRANTS   s->c  u32 n, n x struct netreq_grant (the profile's
 *	                      persisted grants)
 *	NETREQ_REVOKE   c->s  string: a grant's entry text or "#N" (its index)
 *	                      -> NETREQ_REVOKE s->c with the removed entry's text
 *	                      (also taken out of the running policy), or ERROR
 *
 * Router -> coordinator, on the sidecar's control socket (netctl.h):
 *	NETCTL_ASK      r->c  struct netreq_item, id = the router's own id
 *	NETCTL_VERDICT  c->r  u32 router id, u32 verdict (NETCTL_V_*), string
 *	                      entry to add to the policy first ("" none) -> OK |
 *	                      ERROR
 */
#ifndef LZ_NETREQ_H
#define LZ_NETREQ_H

#include <stdbool.h>
#include <stdint.h>

#include "egress.h"
#include "err.h"
#include "proto.h"

/* Message numbers NETREQ_* and NETCTL_ASK/VERDICT: proto.h (220..239). */

#define NETREQ_FOLLOW		0x1	/* LIST flag: stay subscribed */
#define NETREQ_MAX_PENDING	256	/* pending requests; more are blocked unasked */
#define NETREQ_KEEP_DONE	64	/* decided/expired requests kept for display */
#define NETREQ_FOLLOW_HZ	4	/* counter-only ITEM updates per second */
#define NETREQ_WHO_MAX		64
#define NETREQ_PREVIEW_MAX	512
#define NETREQ_WHY_MAX		160
#define NETREQ_NOTE_MAX		256
#define NETREQ_MAX_GRANTS	1024

enum netreq_state {
	NETREQ_PENDING = 1,	/* held, waiting for a decision */
	NETREQ_APPROVED = 2,	/* let through (scope says how far) */
	NETREQ_DENIED = 3,	/* refused by a human; no more prompts this run */
	NETREQ_EXPIRED = 4,	/* nobody answered in network.ask_timeout: refused */
	NETREQ_GONE = 5,	/* the router restarted; its held packets are gone */
	NETREQ_UNASKED = 6,	/* no one attached could answer: refused at once, kept for review */
};

enum netreq_kind {
	NETREQ_KIND_FLOW = 1,	/* a first packet: TCP SYN, UDP datagram */
	NETREQ_KIND_DNS = 2,	/* a query for a name outside the policy */
};

enum netreq_scope {
	NETREQ_SCOPE_NONE = 0,	/* not decided */
	NETREQ_SCOPE_ONCE = 1,	/* the attempts held now; the next connection asks again */
	NETREQ_SCOPE_RUN = 2,	/* the grant is in the policy until `lazaret stop` */
	NETREQ_SCOPE_PROFILE = 3,	/* and in the profile's grants file (persisted) */
	NETREQ_SCOPE_DENY = 4,	/* refused; later attempts refused silently, counted */
};

/* DECIDE flags. */
#define NETREQ_DRY_RUN		0x1	/* say the grant and its reach; do nothing */
#define NETREQ_BROAD_OK		0x2	/* the human confirmed a broad grant a second time */

/* RESULT status. */
enum netreq_status {
	NETREQ_APPLIED = 0,
	NETREQ_PREVIEW = 1,
	NETREQ_NEED_BROAD = 2,
};

/* Router verdicts (NETCTL_VERDICT). */
enum netctl_verdict {
	NETCTL_V_ACCEPT = 1,	/* accept the held attempts (after adding entry, if any) */
	NETCTL_V_REFUSE = 2,	/* refuse them (RST / unreachable, REFUSED for DNS) */
	NETCTL_V_DENY = 3,	/* refuse them, and every later attempt without asking */
};

struct netreq_item {
	uint32_t id;		/* coordinator's id (router's id on NETCTL_ASK) */
	uint32_t state;		/* enum netreq_state */
	uint32_t kind;		/* enum netreq_kind */
	uint32_t proto;		/* IPPROTO_TCP / IPPROTO_UDP; DNS: the query type */
	uint32_t port;		/* destination port; 0 for DNS */
	uint32_t attempts;	/* packets or queries seen for this destination */
	uint32_t session;	/* the session (tab) that caused it; 0: not known */
	uint32_t scope;		/* enum netreq_scope once decided, else 0 */
	uint64_t first_ms;	/* wall clock, ms since the epoch */
	uint64_t last_ms;
	uint64_t expires_ms;	/* wall clock: blocked if unanswered by then; 0 never */
	char addr[48];		/* destination address; "" for DNS */
	char name[256];		/* the DNS name (asked, or the address was resolved from) */
	/* Pending: the exact grant an approval for the run adds; decided: what
	 * was granted ("" for once and deny). */
	char grant[EGRESS_ENTRY_MAX + 1];
	char who[NETREQ_WHO_MAX];	/* who decided ("" pending; "timeout") */
};

struct netreq_summary {
	uint32_t pending;	/* requests waiting */
	uint32_t overflow;	/* attempts blocked unasked: the pending list was full */
	uint32_t denied_hits;	/* attempts to denied destinations, blocked silently */
	uint32_t ask_timeout_ms;	/* network.ask_timeout; 0: nothing is asked */
};

struct netreq_decision {
	uint32_t id;
	uint32_t scope;		/* enum netreq_scope, not NONE */
	uint32_t flags;		/* NETREQ_DRY_RUN, NETREQ_BROAD_OK */
	char widen[EGRESS_ENTRY_MAX + 1];	/* "" = the exact destination */
	char who[NETREQ_WHO_MAX];	/* the client says what it is: "cli", "workbench" */
};

struct netreq_result {
	uint32_t id;
	uint32_t status;	/* enum netreq_status */
	uint32_t scope;
	char grant[EGRESS_ENTRY_MAX + 1];	/* the policy entry ("" for once/deny) */
	char preview[NETREQ_PREVIEW_MAX];	/* what the grant reaches, one line */
	char broad[NETREQ_WHY_MAX];	/* why it is broad; "" when it is not */
};

struct netreq_grant {
	uint32_t index;		/* 1-based, as `lazaret egress revoke #N` takes it */
	uint64_t added_ms;	/* wall clock; 0 unknown */
	char entry[EGRESS_ENTRY_MAX + 1];
	char note[NETREQ_NOTE_MAX];	/* when, who, why ("2026-12-03T10:20:00Z by ...") */
	char preview[NETREQ_PREVIEW_MAX];
};

/* Encoders append one whole frame; strings longer than their field are cut.
 * ITEM is also NETCTL_ASK (type says which). */
void netreq_encode_list(struct proto_buf *b, uint32_t flags);
void netreq_encode_item(struct proto_buf *b, uint16_t type, const struct netreq_item *);
void netreq_encode_summary(struct proto_buf *b, const struct netreq_summary *);
void netreq_encode_decision(struct proto_buf *b, const struct netreq_decision *);
void netreq_encode_result(struct proto_buf *b, const struct netreq_result *);
void netreq_encode_grants(struct proto_buf *b, const struct netreq_grant *g, size_t n);
void netreq_encode_verdict(struct proto_buf *b, uint32_t rid, uint32_t verdict,
    const char *entry);

/* Decoders accept exactly the layout: a short or long payload, a string longer
 * than its field, an unknown state/kind/scope/flag is an error
 * (PROTO_E_BAD_PAYLOAD) naming what is wrong. */
int netreq_decode_list(const uint8_t *p, size_t len, uint32_t *flags, lz_err_t *err);
/* NETREQ_HOLD: request id's view is open (on: held past network.ask_timeout,
 * up to escalation.timeout from its first attempt) or closed. */
void netreq_encode_hold(struct proto_buf *b, uint32_t id, bool on);
int netreq_decode_hold(const uint8_t *p, size_t len, uint32_t *id, bool *on, lz_err_t *err);
int netreq_decode_item(const uint8_t *p, size_t len, struct netreq_item *out, lz_err_t *err);
int netreq_decode_summary(const uint8_t *p, size_t len, struct netreq_summary *out,
    lz_err_t *err);
int netreq_decode_decision(const uint8_t *p, size_t len, struct netreq_decision *out,
    lz_err_t *err);
int netreq_decode_result(const uint8_t *p, size_t len, struct netreq_result *out,
    lz_err_t *err);
/* *out is owned (free()); n <= NETREQ_MAX_GRANTS. */
int netreq_decode_grants(const uint8_t *p, size_t len, struct netreq_grant **out, size_t *n,
    lz_err_t *err);
/* *entry is owned. */
int netreq_decode_verdict(const uint8_t *p, size_t len, uint32_t *rid, uint32_t *verdict,
    char **entry, lz_err_t *err);

/* Names for text, JSON and audit rows: "pending", "flow", "once", "deny". */
const char *netreq_state_name(uint32_t);
const char *netreq_kind_name(uint32_t);
const char *netreq_scope_name(uint32_t);
/* "once" | "run" | "profile" | "deny" -> scope; -1 when none of them. */
int netreq_scope_parse(const char *s);

#endif
