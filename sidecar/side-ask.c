/* side-ask.c - requests: destinations outside the policy held while the
 * coordinator asks a human (netreq.h).
 *
 * One entry per destination (address, protocol, port; a name for queries)
 * with a counter, at most SIDE_MAX_ASKS of them and SIDE_ASK_HELD packets
 * each: past that an attempt is refused at once and counted (overflow), so a
 * flood of destinations costs a counter, not memory. A verdict accepts or
 * refuses what is held; DENY also remembers the destination for this run so
 * it is refused without asking again (counted). Unanswered by the deadline:
 * refused, as without asking. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "side.h"
#include "xmalloc.h"

static size_t
alen(int family)
{
	return family == AF_INET ? 4 : 16;
}

static struct side_ask *
ask_by_id(struct side *s, uint32_t id)
{
	for (size_t i = 0; i < SIDE_MAX_ASKS; i++)
		if (s->asks[i].used && s->asks[i].id == id)
			return &s->asks[i];
	return NULL;
}

static struct side_ask *
ask_find(struct side *s, uint32_t kind, int family, const uint8_t *addr, uint8_t proto,
    uint16_t port, const char *name)
{
	for (size_t i = 0; i < SIDE_MAX_ASKS; i++) {
		struct side_ask *a = &s->asks[i];

		if (!a->used || a->kind != kind)
			continue;
		if (kind == NETREQ_KIND_DNS ? strcmp(a->name, name) == 0 :
		    a->family == family && a->proto == proto && a->port == port &&
		    memcmp(a->addr, addr, alen(family)) == 0)
			return a;
	}
	return NULL;
}

static bool
denied_find(struct side *s, uint32_t kind, int family, const uint8_t *addr, uint8_t proto,
    uint16_t port, const char *name)
{
	for (size_t i = 0; i < s->ndenied; i++) {
		const struct side_denied *d = &s->denied[i];

		if (d->kind != kind)
			continue;
		if (kind == NETREQ_KIND_DNS ? strcmp(d->name, name) == 0 :
		    d->family == family && d->proto == proto && d->port == port &&
		    memcmp(d->addr, addr, alen(family)) == 0)
			return true;
	}
	return false;
}

static void
denied_put(struct side *s, const struct side_ask *a)
{
	struct side_denied *d;

	if (s->denied == NULL)
		s->denied = xcalloc(SIDE_MAX_DENIED, sizeof *s->denied);
	/* Full: the oldest denial goes (that destination may be asked about again). */
	if (s->ndenied == SIDE_MAX_DENIED)
		memmove(s->denied, s->denied + 1, (SIDE_MAX_DENIED - 1) * sizeof *s->denied);
	else
		s->ndenied++;
	d = &s->denied[s->ndenied - 1];
	memset(d, 0, sizeof *d);
	d->kind = a->kind;
	d->family = a->family;
	memcpy(d->addr, a->addr, sizeof d->addr);
	d->proto = a->proto;
	d->port = a->port;
	snprintf(d->name, sizeof d->name, "%s", a->name);
}

static void
ask_item(const struct side_ask *a, uint32_t state, struct netreq_item *it)
{
	memset(it, 0, sizeof *it);
	it->id = a->id;
	it->state = state;
	it->kind = a->kind;
	it->proto = a->kind == NETREQ_KIND_DNS ? a->qtype : a->proto;
	it->port = a->port;
	it->attempts = a->attempts;
	it->first_ms = a->first_wall;
	it->last_ms = a->last_wall;
	it->expires_ms = a->expires_wall;
	if (a->kind == NETREQ_KIND_FLOW)
		inet_ntop(a->family, a->addr, it->addr, sizeof it->addr);
	snprintf(it->name, sizeof it->name, "%s", a->name);
}

static void
ask_send(struct side *s, struct side_ask *a, uint32_t state)
{
	struct proto_buf b = { 0 };
	struct netreq_item it;

	ask_item(a, state, &it);
	netreq_encode_item(&b, NETCTL_ASK, &it);
	side_event_broadcast(s, &b);
	proto_buf_clear(&b);
	a->dirty = false;
	a->sent_ms = side_now_ms();
}

/* One flow event for what happened to a destination (the egress log). */
static void
ask_event(struct side *s, const struct side_ask *a, bool allowed, const char *rule)
{
	struct netctl_event ev = { .kind = a->kind == NETREQ_KIND_DNS ? NETCTL_EV_DNS : NETCTL_EV_FLOW,
		.allowed = allowed };

	if (a->kind == NETREQ_KIND_FLOW) {
		inet_ntop(a->family, a->addr, ev.addr, sizeof ev.addr);
		ev.proto = a->proto;
		ev.port = a->port;
	} else
		ev.proto = a->qtype;
	snprintf(ev.name, sizeof ev.name, "%s", a->name);
	snprintf(ev.rule, sizeof ev.rule, "%s", rule);
	side_event(s, &ev);
}

static struct side_ask *
ask_new(struct side *s, uint32_t kind)
{
	uint64_t wall = side_wall_ms();

	for (size_t i = 0; i < SIDE_MAX_ASKS; i++) {
		struct side_ask *a = &s->asks[i];

		if (a->used)
			continue;
		memset(a, 0, sizeof *a);
		a->used = true;
		a->id = ++s->next_ask;
		a->kind = kind;
		a->first_wall = a->last_wall = wall;
		a->expires_wall = wall + s->ask_ms;
		a->deadline_ms = side_now_ms() + s->ask_ms;
		return a;
	}
	return NULL;
}

/* The held queries of a, answered or released; none left held after. */
static void
ask_release_queries(struct side *s, const struct side_ask *a, bool accept, bool once)
{
	for (size_t i = 0; i < SIDE_MAX_HELDQ; i++) {
		struct side_heldq *h = &s->heldq[i];

		if (!h->used || h->ask != a->id)
			continue;
		h->used = false;
		if (accept)
			side_dns_release(s, h->q, h->len, &h->client, h->client_len, once);
		else
			side_dns_refuse(s, h->q, h->len, &h->client, h->client_len);
	}
}

static void
ask_finish(struct side *s, struct side_ask *a, bool accept)
{
	for (size_t i = 0; i < a->nheld; i++)
		side_queue_verdict(s, a->held[i], accept);
	a->nheld = 0;
	if (!accept)
		ask_release_queries(s, a, false, false);
}

static void
side_ask_packet(struct side *s, uint32_t packet_id, const uint8_t *pkt, size_t len)
{
	int family;
	uint8_t addr[16] = { 0 }, proto;
	uint16_t port;
	struct side_ask *a;

	if (s->ask_ms == 0 || side_packet_dest(pkt, len, &family, addr, &proto, &port) < 0) {
		side_queue_verdict(s, packet_id, false);
		return;
	}
	if (denied_find(s, NETREQ_KIND_FLOW, family, addr, proto, port, NULL)) {
		s->denied_hits++;
		s->summary_dirty = true;
		side_queue_verdict(s, packet_id, false);
		return;
	}
	if ((a = ask_find(s, NETREQ_KIND_FLOW, family, addr, proto, port, NULL)) != NULL) {
		a->attempts++;
		a->last_wall = side_wall_ms();
		a->dirty = true;
		if (a->nheld < SIDE_ASK_HELD)
			a->held[a->nheld++] = packet_id;
		else
			side_queue_verdict(s, packet_id, false);
		return;
	}
	if ((a = ask_new(s, NETREQ_KIND_FLOW)) == NULL) {
		struct side_ask tmp = { .kind = NETREQ_KIND_FLOW, .family = family, .proto = proto,
			.port = port };

		memcpy(tmp.addr, addr, sizeof tmp.addr);
		s->overflow++;
		s->summary_dirty = true;
		side_queue_verdict(s, packet_id, false);
		ask_event(s, &tmp, false, "pending requests full");
		return;
	}
	a->family = family;
	memcpy(a->addr, addr, sizeof a->addr);
	a->proto = proto;
	a->port = port;
	{
		const struct side_learned *l = side_learned_find(s, family, addr);
		const char *h = l != NULL ? l->name : side_hint_find(s, family, addr);

		/* Learned once and expired: still say which host it was. */
		if (h == NULL)
			h = side_past_find(s, family, addr);

		snprintf(a->name, sizeof a->name, "%s", h != NULL ? h : "");
	}
	a->attempts = 1;
	a->held[a->nheld++] = packet_id;
	ask_send(s, a, NETREQ_PENDING);
}

/* The verdict on name's lookup, if one was given in the last SIDE_LOOKUP_MS. */
static const struct side_lookup *
lookup_find(struct side *s, const char *name)
{
	uint64_t now = side_now_ms();

	for (size_t i = 0; i < SIDE_MAX_LOOKUPS; i++)
		if (s->lookups[i].until_ms > now && strcmp(s->lookups[i].name, name) == 0)
			return &s->lookups[i];
	return NULL;
}

static void
lookup_put(struct side *s, const struct side_ask *a, bool accept)
{
	struct side_lookup *l = (struct side_lookup *)lookup_find(s, a->name);

	if (a->kind != NETREQ_KIND_DNS)
		return;
	if (l == NULL) {
		l = &s->lookups[s->lookup_next];
		s->lookup_next = (s->lookup_next + 1) % SIDE_MAX_LOOKUPS;
	}
	snprintf(l->name, sizeof l->name, "%s", a->name);
	l->accept = accept;
	l->until_ms = side_now_ms() + SIDE_LOOKUP_MS;
}

static enum side_q
side_ask_query(struct side *s, const char *name, uint16_t qtype, const uint8_t *q, size_t len,
    const struct sockaddr_storage *from, socklen_t fromlen)
{
	struct side_ask *a;
	struct side_heldq *slot = NULL;
	const struct side_lookup *lk;
	size_t held = 0;

	if (s->ask_ms == 0 || len > sizeof slot->q)
		return SIDE_Q_REFUSE;
	if (denied_find(s, NETREQ_KIND_DNS, 0, NULL, 0, 0, name)) {
		s->denied_hits++;
		s->summary_dirty = true;
		return SIDE_Q_REFUSE;
	}
	/* One lookup, one request: its other types follow the verdict given. */
	if ((lk = lookup_find(s, name)) != NULL)
		return lk->accept ? SIDE_Q_ONCE : SIDE_Q_REFUSE;
	if ((a = ask_find(s, NETREQ_KIND_DNS, 0, NULL, 0, 0, name)) != NULL) {
		a->attempts++;
		a->last_wall = side_wall_ms();
		a->dirty = true;
	} else if ((a = ask_new(s, NETREQ_KIND_DNS)) != NULL) {
		snprintf(a->name, sizeof a->name, "%s", name);
		a->qtype = qtype;
		a->attempts = 1;
		ask_send(s, a, NETREQ_PENDING);
	} else {
		s->overflow++;
		s->summary_dirty = true;
		return SIDE_Q_REFUSE;
	}
	for (size_t i = 0; i < SIDE_MAX_HELDQ; i++) {
		if (s->heldq[i].used && s->heldq[i].ask == a->id)
			held++;
		else if (!s->heldq[i].used && slot == NULL)
			slot = &s->heldq[i];
	}
	if (slot == NULL || held >= SIDE_ASK_HELDQ)
		return SIDE_Q_REFUSE;
	slot->used = true;
	slot->ask = a->id;
	slot->client = *from;
	slot->client_len = fromlen;
	slot->len = len;
	memcpy(slot->q, q, len);
	return SIDE_Q_HELD;
}

/* Addresses resolved "once" for names the policy now allows: into the sets,
 * so the connection that follows the approval works. */
static void
ask_learn_hints(struct side *s)
{
	const struct side_learned *l[SIDE_MAX_HINTS];
	size_t nl = 0;
	lz_err_t err = LZ_ERR_INIT;

	for (size_t i = 0; i < s->nhints;) {
		struct side_hint *h = &s->hints[i];
		uint16_t ports[EGRESS_MAX_PORTS];
		size_t np;
		bool any;

		if (side_policy_name_ports(&s->pol, h->name, &any, ports, &np) == NULL) {
			i++;
			continue;
		}
		l[nl++] = side_learned_put(s, h->family, h->addr, h->name, ports, any ? 0 : np,
		    h->expires_ms);
		*h = s->hints[--s->nhints];
	}
	if (side_nft_learn(s, l, nl, &err) < 0) {
		fprintf(stderr, "lazaret-sidecar: %s\n", err.msg);
		lz_err_clear(&err);
	}
}

static int
side_ask_verdict(struct side *s, uint32_t id, uint32_t verdict, const char *entry,
    lz_err_t *err)
{
	struct side_ask *a = ask_by_id(s, id);
	bool accept = verdict == NETCTL_V_ACCEPT;
	char rule[96];

	/* Held packets first: a policy change replaces the table, and the kernel
	 * drops what is queued from a chain that goes away. */
	if (a != NULL)
		ask_finish(s, a, accept);
	if (entry != NULL && entry[0] != '\0') {
		if (side_ctl_add_entry(s, entry, err) < 0) {
			if (a != NULL) {
				ask_release_queries(s, a, false, false);
				a->used = false;
			}
			return -1;
		}
		ask_learn_hints(s);
	}
	if (a == NULL)
		return 0;
	if (accept)
		ask_release_queries(s, a, true, entry == NULL || entry[0] == '\0');
	if (verdict == NETCTL_V_DENY)
		denied_put(s, a);
	lookup_put(s, a, accept);
	if (accept && entry != NULL && entry[0] != '\0')
		snprintf(rule, sizeof rule, "approved: %s", entry);
	else
		snprintf(rule, sizeof rule, "%s", accept ? "approved once" : verdict == NETCTL_V_DENY ?
		    "denied" : "refused");
	ask_event(s, a, accept, rule);
	a->used = false;
	return 1;
}

int
side_ask_tick(struct side *s)
{
	uint64_t now = side_now_ms(), next = UINT64_MAX;

	for (size_t i = 0; i < SIDE_MAX_ASKS; i++) {
		struct side_ask *a = &s->asks[i];

		if (!a->used)
			continue;
		if (a->deadline_ms <= now) {
			ask_finish(s, a, false);
			lookup_put(s, a, false);
			ask_send(s, a, NETREQ_EXPIRED);
			ask_event(s, a, false, "not answered in time");
			a->used = false;
			continue;
		}
		if (a->dirty && now >= a->sent_ms + SIDE_ASK_UPDATE_MS)
			ask_send(s, a, NETREQ_PENDING);
		if (a->deadline_ms < next)
			next = a->deadline_ms;
		if (a->dirty && a->sent_ms + SIDE_ASK_UPDATE_MS < next)
			next = a->sent_ms + SIDE_ASK_UPDATE_MS;
	}
	if (s->summary_dirty && now >= s->summary_ms + SIDE_ASK_UPDATE_MS) {
		struct proto_buf b = { 0 };
		struct netreq_summary sum = { .overflow = s->overflow, .denied_hits = s->denied_hits,
			.ask_timeout_ms = s->ask_ms };

		for (size_t i = 0; i < SIDE_MAX_ASKS; i++)
			sum.pending += s->asks[i].used;
		netreq_encode_summary(&b, &sum);
		side_event_broadcast(s, &b);
		proto_buf_clear(&b);
		s->summary_dirty = false;
		s->summary_ms = now;
	}
	if (s->summary_dirty && s->summary_ms + SIDE_ASK_UPDATE_MS < next)
		next = s->summary_ms + SIDE_ASK_UPDATE_MS;
	if (next == UINT64_MAX)
		return -1;
	return next <= now ? 0 : (int)(next - now);
}

static void
side_ask_replay(struct side *s, struct side_client *c)
{
	struct netreq_summary sum = { .overflow = s->overflow, .denied_hits = s->denied_hits,
		.ask_timeout_ms = s->ask_ms };

	for (size_t i = 0; i < SIDE_MAX_ASKS; i++) {
		struct netreq_item it;

		if (!s->asks[i].used)
			continue;
		sum.pending++;
		ask_item(&s->asks[i], NETREQ_PENDING, &it);
		netreq_encode_item(&c->out, NETCTL_ASK, &it);
	}
	netreq_encode_summary(&c->out, &sum);
}

const struct side_ask_ops side_ask_ops = {
	.packet = side_ask_packet,
	.query = side_ask_query,
	.verdict = side_ask_verdict,
	.replay = side_ask_replay,
};
