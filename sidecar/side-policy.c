/* side-policy.c - the policy in force and the addresses learned through DNS. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "side.h"
#include "strv.h"
#include "xmalloc.h"

int
side_policy_parse(char *const *v, size_t n, struct side_policy *out, lz_err_t *err)
{
	struct side_policy p = { 0 };
	size_t rules = 0;

	p.e = xcalloc(n + 1, sizeof *p.e);
	p.text = xcalloc(n + 1, sizeof *p.text);
	for (size_t i = 0; i < n; i++) {
		struct egress_entry e;
		bool dup = false;

		if (egress_entry_parse(v[i], &e, err) < 0) {
			side_policy_clear(&p);
			return -1;
		}
		for (size_t j = 0; j < p.n && !dup; j++)
			dup = egress_entry_equal(&p.e[j], &e);
		if (dup)
			continue;
		p.e[p.n] = e;
		p.text[p.n++] = egress_entry_format(&e);
		rules += egress_entry_rules(&e);
	}
	/* One ruleset goes to the kernel in one message. */
	if (rules > EGRESS_MAX_RULES) {
		side_policy_clear(&p);
		return lz_err_set(err, LZ_EINVAL, "the policy needs %zu rules (at most %d): list "
		    "fewer ports per CIDR, or merge CIDRs", rules, EGRESS_MAX_RULES);
	}
	*out = p;
	return 0;
}

void
side_policy_clear(struct side_policy *p)
{
	lz_strv_free(p->text);
	free(p->e);
	memset(p, 0, sizeof *p);
}

const char *
side_policy_name_ports(const struct side_policy *p, const char *name, bool *any,
    uint16_t *ports, size_t *nports)
{
	const char *first = NULL;

	*any = false;
	*nports = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct egress_entry *e = &p->e[i];

		if (!egress_domain_match(e, name))
			continue;
		if (first == NULL)
			first = p->text[i];
		if (e->nports == 0)
			*any = true;
		for (size_t k = 0; k < e->nports; k++) {
			size_t j;

			for (j = 0; j < *nports && ports[j] != e->ports[k]; j++)
				;
			if (j == *nports && *nports < EGRESS_MAX_PORTS)
				ports[(*nports)++] = e->ports[k];
		}
	}
	if (*any)
		*nports = 0;
	return first;
}

int
side_hosts_parse(char *const *v, size_t n, struct side_host **out, size_t *nout, lz_err_t *err)
{
	struct side_host *h;

	if (n > SIDE_MAX_HOSTS)
		return lz_err_set(err, LZ_EINVAL, "%zu host addresses (at most %d)", n, SIDE_MAX_HOSTS);
	h = xcalloc(n + 1, sizeof *h);
	for (size_t i = 0; i < n; i++) {
		if (inet_pton(AF_INET, v[i], h[i].addr) == 1)
			h[i].family = AF_INET;
		else if (inet_pton(AF_INET6, v[i], h[i].addr) == 1)
			h[i].family = AF_INET6;
		else {
			free(h);
			return lz_err_set(err, LZ_EINVAL, "host address '%s' is not an IPv4 or IPv6 "
			    "address", v[i]);
		}
	}
	*out = h;
	*nout = n;
	return 0;
}

bool
side_host_find(const struct side *s, int family, const uint8_t *addr)
{
	for (size_t i = 0; i < s->nhosts; i++)
		if (s->hosts[i].family == family &&
		    memcmp(s->hosts[i].addr, addr, family == AF_INET ? 4 : 16) == 0)
			return true;
	return false;
}

bool
side_host_listed(const struct side *s, const struct egress_entry *e)
{
	return e->kind == EGRESS_CIDR && e->prefix == (e->family == AF_INET ? 32u : 128u) &&
	    side_host_find(s, e->family, e->addr);
}

const struct side_learned *
side_learned_find(struct side *s, int family, const uint8_t *addr)
{
	size_t alen = family == AF_INET ? 4 : 16;

	for (size_t i = 0; i < s->nlearned; i++)
		if (s->learned[i].family == family && memcmp(s->learned[i].addr, addr, alen) == 0)
			return &s->learned[i];
	return NULL;
}

/* An expired or evicted learned address: its name is kept (a later request
 * for the bare address can say which host it was). */
static void
past_put(struct side *s, const struct side_learned *l)
{
	struct side_hint *h = NULL;

	for (size_t i = 0; i < SIDE_MAX_PAST && h == NULL; i++)
		if (s->past[i].family == l->family &&
		    memcmp(s->past[i].addr, l->addr, l->family == AF_INET ? 4 : 16) == 0)
			h = &s->past[i];
	if (h == NULL) {
		h = &s->past[s->past_next];
		s->past_next = (s->past_next + 1) % SIDE_MAX_PAST;
	}
	memset(h, 0, sizeof *h);
	h->family = l->family;
	memcpy(h->addr, l->addr, sizeof h->addr);
	snprintf(h->name, sizeof h->name, "%s", l->name);
}

const char *
side_past_find(struct side *s, int family, const uint8_t *addr)
{
	for (size_t i = 0; i < SIDE_MAX_PAST; i++)
		if (s->past[i].family == family &&
		    memcmp(s->past[i].addr, addr, family == AF_INET ? 4 : 16) == 0)
			return s->past[i].name;
	return NULL;
}

struct side_learned *
side_learned_put(struct side *s, int family, const uint8_t *addr, const char *name,
    const uint16_t *ports, size_t nports, uint64_t expires_ms)
{
	struct side_learned *l = (struct side_learned *)side_learned_find(s, family, addr);

	if (l == NULL) {
		if (s->nlearned == SIDE_MAX_LEARNED) {
			/* Full: forget the one closest to expiry (its set element ages out itself). */
			size_t old = 0;

			for (size_t i = 1; i < s->nlearned; i++)
				if (s->learned[i].expires_ms < s->learned[old].expires_ms)
					old = i;
			past_put(s, &s->learned[old]);
			s->learned[old] = s->learned[--s->nlearned];
		}
		if (s->learned == NULL)
			s->learned = xcalloc(SIDE_MAX_LEARNED, sizeof *s->learned);
		l = &s->learned[s->nlearned++];
		memset(l, 0, sizeof *l);
		l->family = family;
		memcpy(l->addr, addr, family == AF_INET ? 4 : 16);
	}
	snprintf(l->name, sizeof l->name, "%s", name);
	memcpy(l->ports, ports, nports * sizeof ports[0]);
	l->nports = nports;
	if (expires_ms > l->expires_ms)
		l->expires_ms = expires_ms;
	return l;
}

void
side_learned_prune(struct side *s)
{
	uint64_t now = side_now_ms();

	for (size_t i = 0; i < s->nlearned;) {
		struct side_learned *l = &s->learned[i];
		uint16_t ports[EGRESS_MAX_PORTS];
		size_t np;
		bool any;

		if (l->expires_ms <= now ||
		    side_policy_name_ports(&s->pol, l->name, &any, ports, &np) == NULL) {
			past_put(s, l);
			s->learned[i] = s->learned[--s->nlearned];
			continue;
		}
		/* The policy may have changed the ports of this name. */
		memcpy(l->ports, ports, np * sizeof ports[0]);
		l->nports = any ? 0 : np;
		i++;
	}
}

const char *
side_hint_find(struct side *s, int family, const uint8_t *addr)
{
	uint64_t now = side_now_ms();

	for (size_t i = 0; i < s->nhints; i++)
		if (s->hints[i].family == family && s->hints[i].expires_ms > now &&
		    memcmp(s->hints[i].addr, addr, family == AF_INET ? 4 : 16) == 0)
			return s->hints[i].name;
	return NULL;
}

void
side_hint_put(struct side *s, int family, const uint8_t *addr, const char *name,
    uint64_t expires_ms)
{
	struct side_hint *h = NULL;

	for (size_t i = 0; i < s->nhints && h == NULL; i++)
		if (s->hints[i].family == family &&
		    memcmp(s->hints[i].addr, addr, family == AF_INET ? 4 : 16) == 0)
			h = &s->hints[i];
	if (h == NULL && s->nhints < SIDE_MAX_HINTS)
		h = &s->hints[s->nhints++];
	if (h == NULL) {
		/* Full: the one closest to expiry goes. */
		h = &s->hints[0];
		for (size_t i = 1; i < s->nhints; i++)
			if (s->hints[i].expires_ms < h->expires_ms)
				h = &s->hints[i];
	}
	memset(h, 0, sizeof *h);
	h->family = family;
	memcpy(h->addr, addr, family == AF_INET ? 4 : 16);
	snprintf(h->name, sizeof h->name, "%s", name);
	h->expires_ms = expires_ms;
}
