/* grant.c - preview an allow_egress grant's reach and offer widenings (pure). */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "grant.h"
#include "xmalloc.h"

/* Second-level labels that make "LABEL.CC" (CC a two-letter ccTLD) a public
 * suffix: co.uk, com.au, co.jp, org.nz... Not the whole Public Suffix List,
 * the common registries' generic second levels; a name below them belongs
 * to anyone who registers it. */
static const char *const grant_cc_second[] = {
	"ac", "co", "com", "edu", "go", "gob", "gov", "govt", "ltd", "me", "mil", "ne",
	"net", "nom", "or", "org", "plc", "sch",
};

/* Shared-hosting suffixes (the Public Suffix List's private section, the
 * ones agents meet): anyone can publish a name below them. A wildcard on one
 * of them, or on a parent of one ("*.amazonaws.com"), is broad. */
static const char *const grant_shared[] = {
	"github.io", "gitlab.io", "pages.dev", "workers.dev", "netlify.app", "vercel.app",
	"web.app", "firebaseapp.com", "appspot.com", "blogspot.com", "herokuapp.com",
	"azurewebsites.net", "cloudfront.net", "s3.amazonaws.com", "ngrok.io",
	"ngrok-free.app", "trycloudflare.com", "onrender.com", "fly.dev", "glitch.me",
};

#define N(a)	(sizeof (a) / sizeof (a)[0])

/* snprintf that may cut: every text here is capped on purpose. */
static void __attribute__((format(printf, 3, 4)))
grant_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

bool
grant_public_suffix(const char *name)
{
	const char *dot = strchr(name, '.');
	size_t i;

	if (name[0] == '\0' || dot == NULL)
		return true;			/* a top-level domain */
	for (i = 0; i < N(grant_shared); i++)
		if (strcmp(name, grant_shared[i]) == 0)
			return true;
	if (strchr(dot + 1, '.') != NULL || strlen(dot + 1) != 2)
		return false;
	for (i = 0; i < N(grant_cc_second); i++)
		if (strlen(grant_cc_second[i]) == (size_t)(dot - name) &&
		    strncmp(name, grant_cc_second[i], (size_t)(dot - name)) == 0)
			return true;
	return false;
}

/* The shared-hosting suffix at or below name, if any ("*.amazonaws.com"
 * reaches every S3 bucket). */
static const char *
grant_shared_below(const char *name)
{
	size_t i, l = strlen(name), sl;

	for (i = 0; i < N(grant_shared); i++) {
		sl = strlen(grant_shared[i]);
		if (sl == l && strcmp(grant_shared[i], name) == 0)
			return grant_shared[i];
		if (sl > l && grant_shared[i][sl - l - 1] == '.' &&
		    strcmp(grant_shared[i] + sl - l, name) == 0)
			return grant_shared[i];
	}
	return NULL;
}

static void
grant_why(struct grant_reach *out, const char *why)
{
	size_t l = strlen(out->why_broad);

	out->broad = true;
	snprintf(out->why_broad + l, sizeof out->why_broad - l, "%s%s", l ? "; " : "", why);
}

static void
grant_addr_text(int family, const uint8_t *a, char *buf, size_t size)
{
	if (inet_ntop(family, a, buf, (socklen_t)size) == NULL)
		grant_fmt(buf, size, "?");
}

static void
grant_ports_text(const struct egress_entry *e, char *buf, size_t size)
{
	size_t i, l;

	if (e->nports == 0) {
		grant_fmt(buf, size, "any port");
		return;
	}
	l = (size_t)snprintf(buf, size, "port%s ", e->nports > 1 ? "s" : "");
	for (i = 0; i < e->nports && l < size; i++)
		l += (size_t)snprintf(buf + l, size - l, "%s%u", i ? ", " : "", e->ports[i]);
}

static void
grant_domain_text(const struct egress_entry *e, char *buf, size_t size,
    struct grant_reach *out)
{
	const char *shared;

	if (!e->wildcard) {
		grant_fmt(buf, size, "only %s", e->domain);
		return;
	}
	if (strchr(e->domain, '.') == NULL) {
		grant_fmt(buf, size, "every name under the top-level domain .%s", e->domain);
		grant_why(out, "a wildcard on a top-level domain");
	} else if (grant_public_suffix(e->domain)) {
		grant_fmt(buf, size, "every name under the public suffix .%s (anyone can register "
		    "there)", e->domain);
		grant_why(out, "a wildcard on a public suffix");
	} else {
		grant_fmt(buf, size, "every subdomain of %s (not %s itself)", e->domain, e->domain);
		if ((shared = grant_shared_below(e->domain)) != NULL) {
			char why[GRANT_WHY_MAX];

			grant_fmt(why, sizeof why, "covers %s, where anyone can publish", shared);
			grant_why(out, why);
		}
	}
}

static void
grant_cidr_text(const struct egress_entry *e, const struct grant_dest *dest, char *buf,
    size_t size, struct grant_reach *out)
{
	unsigned bits = (e->family == AF_INET6 ? 128 : 32) - e->prefix;
	char net[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], count[32], less[40];
	bool in = dest != NULL && dest->family == e->family &&
	    egress_cidr_contains(e->family, e->addr, e->prefix, dest->addr);

	grant_addr_text(e->family, e->addr, net, sizeof net);
	if (bits == 0) {
		grant_fmt(buf, size, "only %s", net);
		return;
	}
	if (e->prefix == 0)
		grant_fmt(buf, size, "every IPv%d address (%s/0)", e->family == AF_INET6 ? 6 : 4, net);
	else {
		/* IPv6 ranges count as 2^n: the decimal number says nothing. */
		if (bits < 32) {
			snprintf(count, sizeof count, "%llu", 1ULL << bits);
			snprintf(less, sizeof less, "%llu", (1ULL << bits) - 1);
		} else {
			snprintf(count, sizeof count, "2^%u", bits);
			snprintf(less, sizeof less, "2^%u - 1", bits);
		}
		if (in) {
			grant_addr_text(dest->family, dest->addr, d, sizeof d);
			grant_fmt(buf, size, "%s addresses in %s/%u (%s besides %s)", count, net, e->prefix,
			    less, d);
		} else
			grant_fmt(buf, size, "%s addresses in %s/%u", count, net, e->prefix);
	}
	if (e->family == AF_INET && e->prefix < GRANT_CIDR4_BROAD)
		grant_why(out, "an IPv4 CIDR wider than /16");
	else if (e->family == AF_INET6 && e->prefix < GRANT_CIDR6_BROAD)
		grant_why(out, "an IPv6 CIDR wider than /48");
}

static bool
grant_covers(const struct egress_entry *e, const struct grant_dest *dest)
{
	size_t i;

	if (dest == NULL)
		return true;
	if (dest->port != 0 && e->nports > 0) {
		for (i = 0; i < e->nports && e->ports[i] != dest->port; i++)
			;
		if (i == e->nports)
			return false;
	}
	if (e->kind == EGRESS_DOMAIN) {
		char name[256];
		size_t l;

		/* DNS names arrive in any case and may end in a dot. */
		if (dest->name == NULL || (l = strlen(dest->name)) >= sizeof name)
			return false;
		for (i = 0; i <= l; i++)
			name[i] = (char)(dest->name[i] >= 'A' && dest->name[i] <= 'Z' ?
			    dest->name[i] - 'A' + 'a' : dest->name[i]);
		if (l > 0 && name[l - 1] == '.')
			name[l - 1] = '\0';
		return egress_domain_match(e, name);
	}
	return dest->family == e->family &&
	    egress_cidr_contains(e->family, e->addr, e->prefix, dest->addr);
}

void
grant_preview_entry(const struct egress_entry *e, const struct grant_dest *dest,
    struct grant_reach *out)
{
	char host[GRANT_TEXT_MAX], ports[EGRESS_MAX_PORTS * 7 + 8];
	const struct egress_guard *g;
	size_t room;
	bool range;

	memset(out, 0, sizeof *out);
	if (e->kind == EGRESS_DOMAIN) {
		grant_domain_text(e, host, sizeof host, out);
		range = e->wildcard;
	} else {
		grant_cidr_text(e, dest, host, sizeof host, out);
		range = e->prefix < (e->family == AF_INET6 ? 128u : 32u);
	}
	grant_ports_text(e, ports, sizeof ports);
	if (e->nports == 0 && range)
		grant_why(out, e->kind == EGRESS_DOMAIN ? "any port on a wildcard" :
		    "any port on a range of addresses");
	if ((g = egress_entry_guard(e)) != NULL) {
		char why[GRANT_WHY_MAX];

		grant_fmt(why, sizeof why, "opens %s", g->what);
		grant_why(out, why);
	}
	/* The ports always show: cut the host part (a long name) instead. */
	room = sizeof out->text - 1 - strlen(ports) - 2;
	if (strlen(host) > room)
		snprintf(out->text, sizeof out->text, "%.*s..., %s", (int)(room - 3), host, ports);
	else
		grant_fmt(out->text, sizeof out->text, "%s, %s", host, ports);
	out->covers = grant_covers(e, dest);
}

int
grant_preview(const char *entry, const struct grant_dest *dest, struct grant_reach *out,
    lz_err_t *err)
{
	struct egress_entry e;

	memset(out, 0, sizeof *out);
	if (entry[0] == '@')
		return lz_err_set(err, LZ_EINVAL, "'%s' is a preset, not one entry", entry);
	if (egress_entry_parse(entry, &e, err) < 0) {
		/* allow_egress refuses "*.com" (no dot), but a --widen typed by
		 * hand deserves the reason it is a bad idea: parse "*.x.com". */
		char again[EGRESS_ENTRY_MAX + 3];
		size_t host = strcspn(entry, ":");

		if (strncmp(entry, "*.", 2) != 0 || memchr(entry + 2, '.', host - 2) != NULL ||
		    strlen(entry) > EGRESS_ENTRY_MAX)
			return -1;
		grant_fmt(again, sizeof again, "*.x.%s", entry + 2);
		if (egress_entry_parse(again, &e, NULL) < 0)
			return -1;
		memmove(e.domain, e.domain + 2, strlen(e.domain + 2) + 1);
		lz_err_clear(err);
	}
	grant_preview_entry(&e, dest, out);
	return 0;
}

const char *
grant_how_name(enum grant_how how)
{
	static const char *const names[GRANT_HOW_N] = { "exact", "subdomains", "subnet",
	    "any-port" };

	return (unsigned)how < GRANT_HOW_N ? names[how] : "?";
}

/* host (a name, "*.name", an address or a CIDR) with the port, canonical. */
static int
grant_entry_text(const char *host, bool v6, uint16_t port, char *buf, size_t size)
{
	char raw[EGRESS_ENTRY_MAX + 16];
	struct egress_entry e;
	_cleanup_free_ char *canon = NULL;

	if (port == 0)
		snprintf(raw, sizeof raw, "%s", host);
	else
		snprintf(raw, sizeof raw, v6 ? "[%s]:%u" : "%s:%u", host, port);
	if (strlen(host) > EGRESS_ENTRY_MAX || egress_entry_parse(raw, &e, NULL) < 0)
		return -1;
	canon = egress_entry_format(&e);
	if (strlen(canon) >= size)
		return -1;
	memcpy(buf, canon, strlen(canon) + 1);
	return 0;
}

int
grant_widen(const struct grant_dest *dest, enum grant_how how, char *buf, size_t size)
{
	char host[EGRESS_ENTRY_MAX + 8], a[INET6_ADDRSTRLEN];
	bool has_addr = dest->family == AF_INET || dest->family == AF_INET6;
	bool v6 = dest->family == AF_INET6;
	const char *parent;
	uint8_t net[16];

	struct egress_entry e;

	/* The name comes from the agent's DNS query: it must be one valid name. */
	if (dest->name != NULL && (strlen(dest->name) > EGRESS_ENTRY_MAX ||
	    strchr(dest->name, ':') != NULL || egress_entry_parse(dest->name, &e, NULL) < 0 ||
	    e.kind != EGRESS_DOMAIN || e.wildcard))
		return -1;
	if (has_addr)
		grant_addr_text(dest->family, dest->addr, a, sizeof a);
	switch (how) {
	case GRANT_EXACT:
	case GRANT_ANY_PORT:
		if (how == GRANT_ANY_PORT && dest->port == 0)
			return -1;
		if (dest->name != NULL && dest->name[0] != '\0')
			return grant_entry_text(dest->name, false,
			    how == GRANT_EXACT ? dest->port : 0, buf, size);
		if (!has_addr)
			return -1;
		return grant_entry_text(a, v6, how == GRANT_EXACT ? dest->port : 0, buf, size);
	case GRANT_SUBDOMAINS:
		if (dest->name == NULL || (parent = strchr(dest->name, '.')) == NULL ||
		    grant_public_suffix(++parent))
			return -1;
		snprintf(host, sizeof host, "*.%s", parent);
		return grant_entry_text(host, false, dest->port, buf, size);
	case GRANT_SUBNET:
		if (!has_addr)
			return -1;
		memcpy(net, dest->addr, sizeof net);
		if (v6)
			memset(net + 8, 0, 8);	/* the /64: one IPv6 subnet */
		else
			net[3] = 0;
		grant_addr_text(dest->family, net, a, sizeof a);
		snprintf(host, sizeof host, "%s/%d", a, v6 ? 64 : 24);
		return grant_entry_text(host, v6, dest->port, buf, size);
	case GRANT_HOW_N:
		break;
	}
	return -1;
}

size_t
grant_candidates(const struct grant_dest *dest, struct grant_candidate *out, size_t max)
{
	struct egress_entry e;
	size_t n = 0, i;
	int how;

	for (how = 0; how < GRANT_HOW_N && n < max; how++) {
		struct grant_candidate *c = &out[n];

		if (grant_widen(dest, (enum grant_how)how, c->entry, sizeof c->entry) < 0 ||
		    egress_entry_parse(c->entry, &e, NULL) < 0)
			continue;
		for (i = 0; i < n && strcmp(out[i].entry, c->entry) != 0; i++)
			;
		if (i < n)
			continue;
		c->how = (enum grant_how)how;
		grant_preview_entry(&e, dest, &c->reach);
		n++;
	}
	return n;
}
