/* dns.h - DNS messages as the network sidecar sees them (RFC 1035): one pure
 * parser over a byte buffer, the CNAME-chain walk that turns an answer into the
 * addresses to allow, and the local refusal. No I/O, fuzzable.
 *
 * Every length is checked against the buffer before it is read; a compression
 * pointer must point before the label it replaces, so a name decode ends after
 * at most len steps and never loops; names longer than 255 bytes are errors.
 */
#ifndef LZ_DNS_H
#define LZ_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define DNS_HEADER_LEN	12
#define DNS_NAME_MAX	255	/* presentation form, without the final dot */
#define DNS_MAX_ADDRS	64	/* addresses kept from one answer */
#define DNS_MAX_CNAMES	16	/* CNAME hops followed from the question */
#define DNS_MAX_KEEP	256	/* A/AAAA/CNAME records kept from one answer */

#define DNS_TYPE_A	1
#define DNS_TYPE_CNAME	5
#define DNS_TYPE_AAAA	28
#define DNS_TYPE_OPT	41
#define DNS_CLASS_IN	1

#define DNS_EDNS_SIZE	1232	/* the UDP payload size the router advertises upstream */

#define DNS_RCODE_NOERROR	0
#define DNS_RCODE_SERVFAIL	2
#define DNS_RCODE_NXDOMAIN	3
#define DNS_RCODE_REFUSED	5

/* A kept answer record: A, AAAA or CNAME of class IN. */
struct dns_rr {
	uint16_t type;
	uint32_t ttl;
	char name[DNS_NAME_MAX + 1];	/* lower case; odd bytes shown as '?' */
	union {
		uint8_t addr[16];	/* A: 4 bytes, AAAA: 16 */
		char target[DNS_NAME_MAX + 1];	/* CNAME, lower case */
	} u;
};

struct dns_msg {
	uint16_t id;
	uint16_t flags;		/* QR, opcode, AA, TC, RD, RA, rcode as on the wire */
	uint16_t qdcount, ancount;
	char qname[DNS_NAME_MAX + 1];	/* lower case; "" for the root */
	uint16_t qtype, qclass;
	size_t question_end;	/* offset just past the (single) question */
	bool edns;		/* query: it carries an OPT record (its contents are not kept) */
	size_t nrr;		/* kept answer records */
	size_t skipped;		/* answer records not kept (other types, over the cap) */
	struct dns_rr *rr;	/* owned, nrr entries; dns_msg_clear frees */
	size_t rr_cap;
};

/* An address taken from an answer, with the TTL of its record. */
struct dns_addr {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t addr[16];
	uint32_t ttl;
};

/* Parse buf: header, exactly one question, and (when the QR bit is set) the
 * answer section; a query's other sections are only walked to see whether it
 * carries an OPT record (bytes that do not parse there are ignored: they are
 * never sent on). Returns 0, or -1 with err (LZ_EINVAL) naming what is wrong.
 * *out is cleared first. */
int dns_parse(const uint8_t *buf, size_t len, struct dns_msg *out, lz_err_t *err);
void dns_msg_clear(struct dns_msg *);

static inline unsigned dns_rcode(const struct dns_msg *m) { return m->flags & 0xf; }
static inline bool dns_is_response(const struct dns_msg *m) { return (m->flags & 0x8000) != 0; }

/* The A/AAAA addresses that answer m's question: records owned by the question
 * name or by a name reached from it through CNAME records (at most
 * DNS_MAX_CNAMES hops). Fills out[0..max) and returns how many. */
size_t dns_answer_addrs(const struct dns_msg *m, struct dns_addr *out, size_t max);

/* Write to out (cap bytes) the query that goes upstream for m: a fresh header
 * (id, RD, one question), m's question rebuilt from its parsed name, and an
 * empty OPT record of the router's own (DNS_EDNS_SIZE) when m carried one.
 * Nothing else of the client's datagram. Returns its length, or 0 when cap is
 * too small. */
size_t dns_query_build(const struct dns_msg *m, uint16_t id, uint8_t *out, size_t cap);

/* Write to out (cap bytes) an answer to the query q (raw bytes qbuf, parsed as
 * m) with no records and the given rcode: header + the question, as sent.
 * Returns its length, or 0 when cap is too small. */
size_t dns_reply_empty(const uint8_t *qbuf, const struct dns_msg *m, unsigned rcode,
    uint8_t *out, size_t cap);

#endif
