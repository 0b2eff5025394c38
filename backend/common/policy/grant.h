/* grant.h - what an allow_egress grant would let through, said before it is
 * saved: its reach as one short line ("every subdomain of github.com (not
 * github.com itself), port 443"), whether it is BROAD (needs a second
 * confirmation) and why, and the widenings a prompt can offer for a blocked
 * destination (exact, *.parent, the /24, any port), each with its preview.
 * Pure: no I/O, fuzzable (tests/fuzz/fuzz-grant.c).
 *
 * BROAD: a wildcard on a top-level domain ("*.com") or on a public suffix
 * (a generic second level under a two-letter ccTLD such as "*.co.uk", or a
 * shared-hosting suffix such as "*.github.io" where anyone can publish: the
 * lists are in grant.c); an IPv4 CIDR wider than /16 or an IPv6 one wider
 * than /48; any port on a wildcard or a CIDR; an entry that opens a guarded
 * range (cloud metadata, the host's side of slirp4netns: egress.h).
 */
#ifndef LZ_GRANT_H
#define LZ_GRANT_H

#include <stdbool.h>
#include <stdint.h>

#include "egress.h"
#include "err.h"

#define GRANT_TEXT_MAX	256
#define GRANT_WHY_MAX	128
#define GRANT_CIDR4_BROAD	16	/* an IPv4 CIDR with a shorter prefix is broad */
#define GRANT_CIDR6_BROAD	48	/* an IPv6 CIDR with a shorter prefix is broad */

/* The destination that triggered a request; every field is optional. */
struct grant_dest {
	const char *name;	/* domain name it was resolved from, or NULL */
	int family;		/* AF_INET, AF_INET6, or 0: no address */
	uint8_t addr[16];
	uint16_t port;		/* 0: unknown */
};

struct grant_reach {
	char text[GRANT_TEXT_MAX];	/* "only api.github.com, port 443" */
	bool broad;
	char why_broad[GRANT_WHY_MAX];	/* "" unless broad */
	bool covers;			/* the entry lets dest through (true without a dest) */
};

/* Preview one entry (egress.h grammar; an "@preset" is not an entry). dest may
 * be NULL. Returns 0, or -1 with err (LZ_EINVAL) when entry does not parse. */
int grant_preview(const char *entry, const struct grant_dest *dest, struct grant_reach *out,
    lz_err_t *err);
/* The same for an entry already parsed. */
void grant_preview_entry(const struct egress_entry *e, const struct grant_dest *dest,
    struct grant_reach *out);

/* Ways to widen a grant for a destination. */
enum grant_how {
	GRANT_EXACT = 0,	/* the name (or the address) and the port */
	GRANT_SUBDOMAINS,	/* *.parent-domain and the port; never a TLD or public suffix */
	GRANT_SUBNET,		/* the /24 (IPv4) or /64 (IPv6) and the port */
	GRANT_ANY_PORT,		/* the name (or the address), every port */
	GRANT_HOW_N
};

/* "exact", "subdomains", "subnet", "any-port" (also the names the CLI takes). */
const char *grant_how_name(enum grant_how);

struct grant_candidate {
	enum grant_how how;
	char entry[EGRESS_ENTRY_MAX + 1];	/* canonical entry text */
	struct grant_reach reach;
};

/* The entry that widens dest the way how says into buf; 0, or -1 when that
 * way does not apply (no name for subdomains, parent is a public suffix, no
 * address for a subnet, no port to drop, nothing to grant at all). */
int grant_widen(const struct grant_dest *dest, enum grant_how how, char *buf, size_t size);

/* Every widening that applies, in enum order (exact first), each with its
 * preview; at most max. Returns how many were written. */
size_t grant_candidates(const struct grant_dest *dest, struct grant_candidate *out,
    size_t max);

/* Is name (lower case, no final dot) a top-level domain or a public suffix
 * (so "*.name" reaches anyone's names)? */
bool grant_public_suffix(const char *name);

#endif
