/* egress.c - allow_egress entries: parse, format, compare, match (pure). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "egress.h"
#include "xmalloc.h"

const struct egress_guard egress_guards[] = {
	{ AF_INET, { 169, 254 }, 16, "link-local and cloud metadata" },
	{ AF_INET, { 100, 100, 100, 200 }, 32, "cloud metadata" },
	{ AF_INET, { 168, 63, 129, 16 }, 32, "cloud metadata" },
	{ AF_INET, { 10, 0, 2, 2 }, 32, "the host's loopback (slirp4netns gateway)" },
	{ AF_INET, { 10, 0, 2, 3 }, 32, "the host's resolver (slirp4netns DNS)" },
	{ AF_INET6, { 0xfe, 0x80 }, 10, "IPv6 link-local" },
	{ AF_INET6, { 0xfd, 0x00, 0x0e, 0xc2, [15] = 0x54, [14] = 0x02 }, 128, "cloud metadata" },
	{ AF_INET6, { 0xfd, 0x00, [15] = 2 }, 128, "the host's loopback (slirp4netns gateway)" },
	{ AF_INET6, { 0xfd, 0x00, [15] = 3 }, 128, "the host's resolver (slirp4netns DNS)" },
};
const size_t egress_nguards = sizeof egress_guards / sizeof egress_guards[0];

bool
egress_cidr_contains(int family, const uint8_t *net, unsigned prefix, const uint8_t *a)
{
	unsigned full = prefix / 8, rest = prefix % 8;

	(void)family;
	if (memcmp(net, a, full) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((net[full] ^ a[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

const struct egress_guard *
egress_addr_guard(int family, const uint8_t *a)
{
	for (size_t i = 0; i < egress_nguards; i++)
		if (egress_guards[i].family == family &&
		    egress_cidr_contains(family, egress_guards[i].addr, egress_guards[i].prefix, a))
			return &egress_guards[i];
	return NULL;
}

const struct egress_guard *
egress_entry_guard(const struct egress_entry *e)
{
	const struct egress_guard *g;

	if (e->kind != EGRESS_CIDR)
		return NULL;
	g = egress_addr_guard(e->family, e->addr);
	return g != NULL && e->prefix >= g->prefix ? g : NULL;
}

static int
egress_cmp16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

static int
egress_ports(const char *s, const char *all, struct egress_entry *e, lz_err_t *err)
{
	while (*s != '\0') {
		unsigned long v = 0;
		size_t n = 0;

		while (s[n] >= '0' && s[n] <= '9' && n < 6)
			v = v * 10 + (unsigned long)(s[n++] - '0');
		if (n == 0 || v == 0 || v > 65535 || (s[n] != ',' && s[n] != '\0'))
			return lz_err_set(err, LZ_EINVAL, "'%s': ports must be numbers from 1 to 65535, "
			    "separated by commas (e.g. host:22,443)", all);
		if (e->nports == EGRESS_MAX_PORTS)
			return lz_err_set(err, LZ_EINVAL, "'%s': more than %d ports; use separate entries",
			    all, EGRESS_MAX_PORTS);
		e->ports[e->nports++] = (uint16_t)v;
		s += n + (s[n] == ',');
		if (s[-1] == ',' && *s == '\0')
			return lz_err_set(err, LZ_EINVAL, "'%s': empty port after ','", all);
	}
	qsort(e->ports, e->nports, sizeof e->ports[0], egress_cmp16);
	for (size_t i = 1; i < e->nports; i++)
		if (e->ports[i] == e->ports[i - 1]) {
			memmove(&e->ports[i], &e->ports[i + 1], (e->nports - i - 1) * sizeof e->ports[0]);
			e->nports--, i--;
		}
	return 0;
}

static int
egress_cidr(const char *host, const char *all, struct egress_entry *e, lz_err_t *err)
{
	char abuf[64], out[INET6_ADDRSTRLEN];
	const char *slash = strchr(host, '/');
	size_t alen = slash ? (size_t)(slash - host) : strlen(host);
	unsigned bits, prefix = 0;
	uint8_t net[16];

	e->family = strchr(host, ':') ? AF_INET6 : AF_INET;
	bits = e->family == AF_INET6 ? 128 : 32;
	if (alen == 0 || alen >= sizeof abuf)
		return lz_err_set(err, LZ_EINVAL, "'%s' is not an IPv%d address", all,
		    e->family == AF_INET6 ? 6 : 4);
	memcpy(abuf, host, alen);
	abuf[alen] = '\0';
	if (inet_pton(e->family, abuf, e->addr) != 1)
		return lz_err_set(err, LZ_EINVAL, "'%s': '%s' is not an IPv%d address", all, abuf,
		    e->family == AF_INET6 ? 6 : 4);
	if (slash == NULL)
		prefix = bits;
	else {
		const char *pl = slash + 1;
		size_t i;

		if (pl[0] == '\0' || strlen(pl) > 3 || (pl[0] == '0' && pl[1] != '\0'))
			goto bad_prefix;
		for (i = 0; pl[i] != '\0'; i++) {
			if (pl[i] < '0' || pl[i] > '9')
				goto bad_prefix;
			prefix = prefix * 10 + (unsigned)(pl[i] - '0');
		}
		if (prefix > bits)
			goto bad_prefix;
	}
	e->prefix = prefix;
	memcpy(net, e->addr, sizeof net);
	for (unsigned i = 0; i < bits / 8; i++) {
		int keep = (int)prefix - (int)i * 8;

		if (keep <= 0)
			net[i] = 0;
		else if (keep < 8)
			net[i] &= (uint8_t)(0xff << (8 - keep));
	}
	if (memcmp(net, e->addr, bits / 8) != 0) {
		inet_ntop(e->family, net, out, sizeof out);
		return lz_err_set(err, LZ_EINVAL, "'%s': host bits set; did you mean '%s/%u'?", all, out,
		    prefix);
	}
	return 0;
bad_prefix:
	return lz_err_set(err, LZ_EINVAL, "'%s': prefix length must be a number from 0 to %u", all,
	    bits);
}

static int
egress_domain(const char *host, const char *all, struct egress_entry *e, lz_err_t *err)
{
	size_t n, label = 0;
	bool numeric = true;

	if (strncmp(host, "*.", 2) == 0) {
		e->wildcard = true;
		host += 2;
	}
	n = strlen(host);
	if (n > 0 && host[n - 1] == '.')
		n--;
	if (n == 0 || n > 253)
		return lz_err_set(err, LZ_EINVAL, "'%s' is not a CIDR or a domain name", all);
	for (size_t i = 0; i <= n; i++) {
		char c = i < n ? host[i] : '.';

		if (c == '.') {
			if (label == 0 || label > 63)
				return lz_err_set(err, LZ_EINVAL, "'%s': each part of a domain name must be 1 "
				    "to 63 characters", all);
			if (host[i - 1] == '-' || host[i - label] == '-')
				return lz_err_set(err, LZ_EINVAL, "'%s': a part of a domain name cannot start "
				    "or end with '-'", all);
			label = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_') {
			numeric = false;
			label++;
		} else if (c >= '0' && c <= '9')
			label++;
		else if (c == '*')
			return lz_err_set(err, LZ_EINVAL, "'%s': '*' is only allowed as a whole first "
			    "part ('*.example.com')", all);
		else
			return lz_err_set(err, LZ_EINVAL, "'%s': '%c' is not allowed in a domain name", all, c);
		if (c != '.')
			e->domain[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
		else if (i < n)
			e->domain[i] = '.';
	}
	e->domain[n] = '\0';
	if (numeric)
		return lz_err_set(err, LZ_EINVAL, "'%s' is not a valid IPv4 address", all);
	if (strchr(e->domain, '.') == NULL)
		return lz_err_set(err, LZ_EINVAL, "'%s' is not a CIDR, an address or a domain name "
		    "(a domain name has a dot: 'example.com')", all);
	e->kind = EGRESS_DOMAIN;
	return 0;
}

int
egress_entry_parse(const char *s, struct egress_entry *e, lz_err_t *err)
{
	char host[EGRESS_ENTRY_MAX + 1];
	const char *ports = NULL, *colon;
	size_t n = strlen(s);

	memset(e, 0, sizeof *e);
	if (n == 0)
		return lz_err_set(err, LZ_EINVAL, "empty entry; expected a CIDR or a domain name");
	if (n > EGRESS_ENTRY_MAX)
		return lz_err_set(err, LZ_EINVAL, "entry longer than %d characters", EGRESS_ENTRY_MAX);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return lz_err_set(err, LZ_EINVAL, "entry has a space, a control or a non-ASCII "
			    "character at offset %zu", i);
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (close == NULL || (close[1] != '\0' && close[1] != ':'))
			return lz_err_set(err, LZ_EINVAL, "'%s': expected '[IPv6/prefix]:ports'", s);
		memcpy(host, s + 1, (size_t)(close - s - 1));
		host[close - s - 1] = '\0';
		if (close[1] == ':')
			ports = close + 2;
		if (strchr(host, ':') == NULL)
			return lz_err_set(err, LZ_EINVAL, "'%s': brackets are for IPv6 addresses", s);
	} else if ((colon = strchr(s, ':')) != NULL && strchr(colon + 1, ':') == NULL) {
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = '\0';
		ports = colon + 1;
	} else
		memcpy(host, s, n + 1);
	if (ports != NULL && *ports == '\0')
		return lz_err_set(err, LZ_EINVAL, "'%s': no port after ':'", s);
	if (ports != NULL && egress_ports(ports, s, e, err) < 0)
		return -1;
	if (strchr(host, ':') != NULL || strchr(host, '/') != NULL) {
		e->kind = EGRESS_CIDR;
		return egress_cidr(host, s, e, err);
	}
	{
		uint8_t a4[4];

		if (inet_pton(AF_INET, host, a4) == 1) {
			e->kind = EGRESS_CIDR;
			return egress_cidr(host, s, e, err);
		}
	}
	return egress_domain(host, s, e, err);
}

char *
egress_entry_format(const struct egress_entry *e)
{
	char host[300], ports[EGRESS_MAX_PORTS * 6 + 1] = "";
	size_t off = 0;

	for (size_t i = 0; i < e->nports; i++)
		off += (size_t)snprintf(ports + off, sizeof ports - off, "%s%u", i ? "," : "",
		    e->ports[i]);
	if (e->kind == EGRESS_DOMAIN)
		snprintf(host, sizeof host, "%s%s", e->wildcard ? "*." : "", e->domain);
	else {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(e->family, e->addr, a, sizeof a);
		snprintf(host, sizeof host, "%s/%u", a, e->prefix);
		if (e->family == AF_INET6 && e->nports > 0)
			return xasprintf("[%s]:%s", host, ports);
	}
	return e->nports > 0 ? xasprintf("%s:%s", host, ports) : xstrdup(host);
}

bool
egress_entry_equal(const struct egress_entry *a, const struct egress_entry *b)
{
	if (a->kind != b->kind || a->nports != b->nports ||
	    memcmp(a->ports, b->ports, a->nports * sizeof a->ports[0]) != 0)
		return false;
	if (a->kind == EGRESS_DOMAIN)
		return a->wildcard == b->wildcard && strcmp(a->domain, b->domain) == 0;
	return a->family == b->family && a->prefix == b->prefix && memcmp(a->addr, b->addr, 16) == 0;
}

size_t
egress_entry_rules(const struct egress_entry *e)
{
	if (e->kind != EGRESS_CIDR)
		return 0;
	return e->nports == 0 ? 1 : 2 * e->nports;
}

bool
egress_domain_match(const struct egress_entry *e, const char *name)
{
	size_t n = strlen(name), d = strlen(e->domain);

	if (e->kind != EGRESS_DOMAIN)
		return false;
	if (!e->wildcard)
		return strcmp(name, e->domain) == 0;
	/* "*.example.com": a longer name ending in ".example.com". */
	return n > d + 1 && name[n - d - 1] == '.' && strcmp(name + n - d, e->domain) == 0;
}
