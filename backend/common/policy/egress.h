/* egress.h - one allow_egress entry: a CIDR or a domain name pattern, each with
 * optional ports. Shared by the config loader, the coordinator and the network
 * sidecar, so every place reads an entry the same way. Pure, fuzzable.
 *
 *	10.0.0.0/8            a CIDR, any port (an address alone is /32 or /128)
 *	10.0.0.0/8:5432       the same, port 5432 (TCP and UDP)
 *	fd00::/8              IPv6 without ports; with ports in brackets:
 *	[fd00::/8]:443,8443
 *	api.example.com       a domain name, any port
 *	*.example.com:443     every name below example.com (not example.com itself)
 */
#ifndef LZ_EGRESS_H
#define LZ_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define EGRESS_MAX_PORTS	16
#define EGRESS_ENTRY_MAX	300	/* longest entry text accepted */
#define EGRESS_MAX_RULES	512	/* nft rules a policy's CIDR entries may need */

enum egress_kind {
	EGRESS_CIDR = 1,
	EGRESS_DOMAIN = 2,
};

struct egress_entry {
	enum egress_kind kind;
	int family;			/* CIDR: AF_INET or AF_INET6 */
	uint8_t addr[16];		/* CIDR: network address (host bits zero) */
	unsigned prefix;		/* CIDR: 0..32 or 0..128 */
	char domain[256];		/* DOMAIN: lower case, no "*." and no final dot */
	bool wildcard;			/* DOMAIN: "*." form */
	uint16_t ports[EGRESS_MAX_PORTS];	/* sorted, no duplicates */
	size_t nports;			/* 0 = every port */
};

/* Parse one entry; returns 0, or -1 with err (LZ_EINVAL) saying what is wrong
 * with it (the caller adds file:line:key). */
int egress_entry_parse(const char *s, struct egress_entry *out, lz_err_t *err);
/* The entry in its canonical text form (caller frees). */
char *egress_entry_format(const struct egress_entry *);
/* Same entry (kind, address or pattern, ports). */
bool egress_entry_equal(const struct egress_entry *, const struct egress_entry *);
/* nft accept rules the sidecar makes for e: 1 for a CIDR without ports, 2 per
 * port (TCP, UDP); 0 for a domain name (it uses sets). */
size_t egress_entry_rules(const struct egress_entry *);
/* Does a DOMAIN entry's pattern match name (lower case, no final dot)? */
bool egress_domain_match(const struct egress_entry *, const char *name);
/* Is address a (family, 4 or 16 bytes) inside the CIDR net/prefix? */
bool egress_cidr_contains(int family, const uint8_t *net, unsigned prefix, const uint8_t *a);

/* Addresses no broad CIDR and no learned domain address may reach: link-local
 * and cloud metadata, and the host's side of slirp4netns (gateway = host
 * loopback, DNS). Only an entry inside one of them ("listed exactly") opens it. */
struct egress_guard {
	int family;
	uint8_t addr[16];
	unsigned prefix;
	const char *what;
};
extern const struct egress_guard egress_guards[];
extern const size_t egress_nguards;
/* The guard a CIDR entry lies inside (it is listed exactly), or NULL. */
const struct egress_guard *egress_entry_guard(const struct egress_entry *);
/* The guard an address falls in, or NULL. */
const struct egress_guard *egress_addr_guard(int family, const uint8_t *a);

#endif
