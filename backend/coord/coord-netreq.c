/* coord-netreq.c - network requests in the coordinator (issue 13).
 *
 * Theory of operation: the router holds a new destination outside the
 * policy and sends NETCTL_ASK (net-coord.c calls coord_netreq_ask). Here each
 * request gets an id of ours (stable across router restarts), the exact grant
 * an approval would add, and the session that caused it when only one can
 * have; clients read and follow the list (NETREQ_LIST) and answer
 * (NETREQ_DECIDE). A decision is turned into a router verdict (with the
 * entry to add for run and profile), the profile's grants file gains the
 * entry for profile, and everything lands in the audit trail: the request
 * (once per destination per run), the decision with its exact grant and
 * reach, grant changes, and the first allow/block of each destination.
 * Bounded: the router keeps at most NETREQ_MAX_PENDING requests, we keep as
 * many plus NETREQ_KEEP_DONE decided ones, and at most COORD_NETREQ_ASKED
 * request rows and COORD_NETREQ_SEEN first allow/block rows
 * destinations' first allow/block rows a run.
 *
 * The clients' frames, decisions and grants are coord-netreq-decide.c's;
 * what the two share is coord-netreq-int.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coord/coord.h"
#include "coord/coord-int.h"
#include "coord/coord-netreq-int.h"
#include "grant.h"
#include "jsonw.h"
#include "netreq.h"
#include "net/net-grants.h"
#include "netreq-text.h"
#include "store/audit.h"
#include "xmalloc.h"

struct coord_netreq *
coord_netreq_get(struct coord *c)
{
	if (c->netreq == NULL) {
		c->netreq = xcalloc(1, sizeof *c->netreq);
		c->netreq->sum.ask_timeout_ms = (uint32_t)c->o->cfg->ask_timeout * 1000;
		c->netreq->asked = (struct coord_netreq_seen){ .max = COORD_NETREQ_ASKED,
			.what = "net.request" };
		c->netreq->seen = (struct coord_netreq_seen){ .max = COORD_NETREQ_SEEN,
			.what = "net.first-allow/block" };
	}
	return c->netreq;
}

void
coord_netreq_free(struct coord *c)
{
	struct coord_netreq *nr = c->netreq;

	if (nr == NULL)
		return;
	for (size_t i = 0; i < nr->nfollow; i++)
		ctl_server_client_unref(nr->follow[i]);
	free(nr->follow);
	free(nr->asked.h);
	free(nr->seen.h);
	free(nr);
	c->netreq = NULL;
}

/* ---- audit ---- */

static void
nr_audit_done(void *arg, int status, int64_t seq, lz_err_t *err)
{
	(void)arg;
	(void)seq;
	if (status < 0)
		coord_log("audit: %s", err != NULL && err->msg != NULL ? err->msg : "failed");
}

/* One row; w is an open object, closed and freed here. request: our id or 0. */
void
coord_netreq_audit(struct coord *c, const char *kind, const char *actor, uint32_t request,
    struct lz_jsonw *w)
{
	char rid[24], *detail;
	struct audit_rec rec = { 0 };

	lz_jsonw_obj_close(w);
	detail = lz_jsonw_steal(w);
	snprintf(rid, sizeof rid, "net-%u", request);
	rec.kind = kind;
	rec.actor = actor;
	rec.request_id = request != 0 ? rid : NULL;
	rec.detail = detail;
	coord_log("audit %s %s", kind, detail);
	if (c->store != NULL)
		audit_submit(c->loop, c->store, &rec, nr_audit_done, NULL);
	free(detail);
}

void
coord_netreq_json_dest(struct lz_jsonw *w, const struct netreq_item *it)
{
	char dst[320];

	netreq_text_dest(it, dst, sizeof dst);
	lz_jsonw_key(w, "dest");
	lz_jsonw_str(w, dst);
	lz_jsonw_key(w, "name");
	lz_jsonw_str(w, it->name);
}

/* FNV-1a of a destination: is this its first row of set's kind this run?
 * Bounded: past set->max one row says the rest are not audited. */
static bool
nr_first(struct coord *c, struct coord_netreq_seen *set, const char *key)
{
	uint64_t h = 1469598103934665603ull;
	size_t cap = 2 * set->max, i;

	for (const char *p = key; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	h |= 1;		/* 0 marks a free slot */
	if (set->h == NULL)
		set->h = xcalloc(cap, sizeof *set->h);
	for (i = h % cap; set->h[i] != 0; i = (i + 1) % cap)
		if (set->h[i] == h)
			return false;
	if (set->n >= set->max) {
		if (!set->full) {
			struct lz_jsonw w;

			set->full = true;
			lz_jsonw_init(&w);
			lz_jsonw_obj_open(&w);
			lz_jsonw_key(&w, "rows");
			lz_jsonw_str(&w, set->what);
			lz_jsonw_key(&w, "limit");
			lz_jsonw_int(&w, (int64_t)set->max);
			lz_jsonw_key(&w, "what");
			lz_jsonw_str(&w, "more destinations than this run audits one by one; the "
			    "egress log keeps their events");
			coord_netreq_audit(c, "net.audit-limit", "coordinator", 0, &w);
		}
		return false;
	}
	set->h[i] = h;
	set->n++;
	return true;
}

void
coord_netreq_event(struct coord *c, const struct netctl_event *ev)
{
	char key[640];
	struct lz_jsonw w;
	char dst[320];

	if (ev->kind != NETCTL_EV_FLOW && ev->kind != NETCTL_EV_DNS)
		return;
	/* The dashboard's counters (coord-dash.c). */
	if (ev->kind == NETCTL_EV_FLOW && ev->allowed)
		c->net_flows++;
	else if (!ev->allowed)
		c->net_blocked++;
	if (ev->kind == NETCTL_EV_DNS)
		snprintf(dst, sizeof dst, "dns %s", ev->name);
	else
		snprintf(dst, sizeof dst, strchr(ev->addr, ':') ? "[%s]:%u/%u" : "%s:%u/%u", ev->addr,
		    ev->port, ev->proto);
	snprintf(key, sizeof key, "%c %s %s", ev->allowed ? 'a' : 'b', dst,
	    ev->kind == NETCTL_EV_DNS ? "" : ev->name);
	if (!nr_first(c, &coord_netreq_get(c)->seen, key))
		return;
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "dest");
	lz_jsonw_str(&w, dst);
	lz_jsonw_key(&w, "name");
	lz_jsonw_str(&w, ev->name);
	lz_jsonw_key(&w, "rule");
	lz_jsonw_str(&w, ev->rule);
	coord_netreq_audit(c, ev->allowed ? "net.first-allow" : "net.first-block", "coordinator", 0, &w);
}

/* ---- the list and its followers ---- */

static void
nr_done_push(struct coord_netreq *nr, const struct netreq_item *it)
{
	nr->done[(nr->done_head + nr->ndone) % NETREQ_KEEP_DONE] = *it;
	if (nr->ndone < NETREQ_KEEP_DONE)
		nr->ndone++;
	else
		nr->done_head = (nr->done_head + 1) % NETREQ_KEEP_DONE;
}

/* Every follower gets the item; one whose output is backed up misses it (it
 * can list again), so a stuck client costs no memory. */
static void
nr_broadcast(struct coord *c, uint16_t type, const struct netreq_item *it,
    const struct netreq_summary *sum)
{
	struct coord_netreq *nr = coord_netreq_get(c);
	struct proto_buf b = { 0 };

	for (size_t i = 0; i < nr->nfollow; i++) {
		struct ctl_server_client *cl = nr->follow[i];

		if (cl->closing || cl->queued > CTL_SERVER_HIGH_WATER)
			continue;
		if (it != NULL)
			netreq_encode_item(&b, type, it);
		else if (sum != NULL)
			netreq_encode_summary(&b, sum);
		ctl_server_send(cl, &b);	/* takes b's bytes: encoded again for the next */
	}
	proto_buf_clear(&b);
}

static void
nr_summary(struct coord *c)
{
	struct coord_netreq *nr = coord_netreq_get(c);

	nr->sum.pending = (uint32_t)nr->npend;
	nr_broadcast(c, NETREQ_SUMMARY, NULL, &nr->sum);
}

static struct coord_netreq_ent *
nr_by_rid(struct coord_netreq *nr, uint32_t rid)
{
	for (size_t i = 0; i < nr->npend; i++)
		if (nr->pend[i].rid == rid)
			return &nr->pend[i];
	return NULL;
}

struct coord_netreq_ent *
coord_netreq_by_id(struct coord_netreq *nr, uint32_t id)
{
	for (size_t i = 0; i < nr->npend; i++)
		if (nr->pend[i].it.id == id)
			return &nr->pend[i];
	return NULL;
}

/* A pending request is decided or gone: into the done ring, told to followers. */
void
coord_netreq_retire(struct coord *c, struct coord_netreq_ent *e)
{
	struct coord_netreq *nr = coord_netreq_get(c);
	struct netreq_item it = e->it;

	nr_done_push(nr, &it);
	*e = nr->pend[--nr->npend];
	nr_broadcast(c, NETREQ_ITEM, &it, NULL);
	nr_summary(c);
}

/* The destination as grant.h takes it. */
void
coord_netreq_dest(const struct netreq_item *it, struct grant_dest *d)
{
	memset(d, 0, sizeof *d);
	d->name = it->name[0] != '\0' ? it->name : NULL;
	if (inet_pton(AF_INET, it->addr, d->addr) == 1)
		d->family = AF_INET;
	else if (inet_pton(AF_INET6, it->addr, d->addr) == 1)
		d->family = AF_INET6;
	d->port = (uint16_t)it->port;
}

/* The only session that can have caused it, or 0. */
static uint32_t
nr_session(struct coord *c)
{
	uint32_t id = 0;
	size_t live = 0;

	for (size_t i = 0; i < c->n_sessions; i++)
		if (!c->sessions[i]->exited) {
			id = c->sessions[i]->id;
			live++;
		}
	return live == 1 ? id : 0;
}

static bool
nr_same_dest(const struct netreq_item *a, const struct netreq_item *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == NETREQ_KIND_DNS)
		return strcmp(a->name, b->name) == 0;
	return a->proto == b->proto && a->port == b->port && strcmp(a->addr, b->addr) == 0;
}

void
coord_netreq_deny_keep(struct coord_netreq *nr, const struct netreq_item *it)
{
	if (nr->ndenied == COORD_NETREQ_DENIED) {
		memmove(nr->denied, nr->denied + 1, (COORD_NETREQ_DENIED - 1) * sizeof *nr->denied);
		nr->ndenied--;
	}
	nr->denied[nr->ndenied++] = *it;
}

/* A new request for a destination denied this run: refused at once, unasked. */
static bool
nr_deny_again(struct coord *c, const struct netreq_item *in)
{
	struct coord_netreq *nr = coord_netreq_get(c);
	lz_err_t err = LZ_ERR_INIT;
	int held;

	for (size_t i = 0; i < nr->ndenied; i++) {
		if (!nr_same_dest(&nr->denied[i], in))
			continue;
		if (net_coord_verdict(c->net, in->id, NETCTL_V_DENY, NULL, &held, &err) < 0) {
			coord_log("network request: denying again: %s", err.msg);
			lz_err_clear(&err);
		}
		nr->denied_here++;
		nr->sum.denied_hits++;
		nr_summary(c);
		return true;
	}
	return false;
}

/* The request row (once per destination per run); for one refused unasked,
 * why. */
static void
nr_audit_request(struct coord *c, const struct netreq_item *it)
{
	struct coord_netreq *nr = coord_netreq_get(c);
	char key[640], dst[320];
	struct lz_jsonw w;

	netreq_text_dest(it, dst, sizeof dst);
	snprintf(key, sizeof key, "r %s %s", dst, it->name);
	if (!nr_first(c, &nr->asked, key))
		return;
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "id");
	lz_jsonw_int(&w, it->id);
	coord_netreq_json_dest(&w, it);
	lz_jsonw_key(&w, "session");
	lz_jsonw_int(&w, it->session);
	lz_jsonw_key(&w, "grant");
	lz_jsonw_str(&w, it->grant);
	if (it->state == NETREQ_UNASKED) {
		lz_jsonw_key(&w, "refused");
		lz_jsonw_str(&w, it->who);
	}
	coord_netreq_audit(c, "net.request", "router", it->id, &w);
}

/* Someone who can answer follows the requests: a workbench attached to the
 * domain, or `lazaret egress --pending --follow`. */
static bool
nr_anyone(struct coord_netreq *nr)
{
	for (size_t i = 0; i < nr->nfollow; i++)
		if (!nr->follow[i]->closing)
			return true;
	return false;
}

/* No one could answer: refused now (the agent is not kept waiting for
 * network.ask_timeout) and kept in the list and the audit for review. */
static void
nr_unasked(struct coord *c, struct netreq_item *it, uint32_t rid)
{
	struct coord_netreq *nr = coord_netreq_get(c);
	lz_err_t err = LZ_ERR_INIT;
	int held;

	if (net_coord_verdict(c->net, rid, NETCTL_V_REFUSE, NULL, &held, &err) < 0) {
		coord_log("network request: refusing unasked: %s", err.msg);
		lz_err_clear(&err);
	}
	it->state = NETREQ_UNASKED;
	snprintf(it->who, sizeof it->who, "no one attached to answer");
	nr_done_push(nr, it);
	nr_broadcast(c, NETREQ_ITEM, it, NULL);
	nr_summary(c);
	nr_audit_request(c, it);
}

void
coord_netreq_ask(struct coord *c, const struct netreq_item *in)
{
	struct coord_netreq *nr = coord_netreq_get(c);
	struct coord_netreq_ent *e = nr_by_rid(nr, in->id);
	struct netreq_item it;
	struct grant_dest d;

	if (e != NULL) {
		e->it.attempts = in->attempts;
		e->it.last_ms = in->last_ms;
		if (e->holder != NULL)
			e->it.expires_ms = in->expires_ms;
		if (in->state == NETREQ_EXPIRED) {
			e->it.state = NETREQ_EXPIRED;
			snprintf(e->it.who, sizeof e->it.who, "timeout");
			e->it.grant[0] = '\0';
			coord_netreq_retire(c, e);
		} else
			nr_broadcast(c, NETREQ_ITEM, &e->it, NULL);
		return;
	}
	if (in->state != NETREQ_PENDING || nr->npend == NETREQ_MAX_PENDING)
		return;	/* the router keeps no more than we do */
	if (c->net != NULL && nr_deny_again(c, in))
		return;
	it = *in;
	it.id = ++nr->next_id;
	it.session = nr_session(c);
	it.scope = NETREQ_SCOPE_NONE;
	it.who[0] = '\0';
	coord_netreq_dest(&it, &d);
	if (grant_widen(&d, GRANT_EXACT, it.grant, sizeof it.grant) < 0)
		it.grant[0] = '\0';
	if (c->net != NULL && !nr_anyone(nr)) {
		nr_unasked(c, &it, in->id);
		return;
	}
	e = &nr->pend[nr->npend++];
	e->it = it;
	e->rid = in->id;
	e->holder = NULL;
	/* The router holds it up to the bound (coord-net.c); ask_timeout is ours. */
	e->due_wall = in->first_ms + (uint64_t)c->o->cfg->ask_timeout * 1000;
	if (e->due_wall < e->it.expires_ms)
		e->it.expires_ms = e->due_wall;
	nr_broadcast(c, NETREQ_ITEM, &e->it, NULL);
	nr_summary(c);
	coord_netreq_arm(c);
	nr_audit_request(c, &e->it);
}

void
coord_netreq_summary(struct coord *c, const struct netreq_summary *s)
{
	struct coord_netreq *nr = coord_netreq_get(c);

	if (s->overflow == nr->sum.overflow && s->denied_hits + nr->denied_here == nr->sum.denied_hits &&
	    (s->ask_timeout_ms == 0) == (nr->sum.ask_timeout_ms == 0))
		return;
	nr->sum.overflow = s->overflow;
	nr->sum.denied_hits = s->denied_hits + nr->denied_here;
	/* The router's word: 0 when this kernel cannot hold packets; else ours
	 * (the router's is the bound a held request can reach). */
	nr->sum.ask_timeout_ms = s->ask_timeout_ms == 0 ? 0 : (uint32_t)c->o->cfg->ask_timeout * 1000;
	nr_summary(c);
}

bool
coord_netreq_answerable(struct coord *c)
{
	return nr_anyone(coord_netreq_get(c));
}

void
coord_netreq_counts(struct coord *c, struct netreq_summary *out)
{
	struct coord_netreq *nr = coord_netreq_get(c);

	*out = nr->sum;
	out->pending = (uint32_t)nr->npend;
}

void
coord_netreq_gone(struct coord *c)
{
	struct coord_netreq *nr = coord_netreq_get(c);

	while (nr->npend > 0) {
		nr->pend[0].it.state = NETREQ_GONE;
		snprintf(nr->pend[0].it.who, sizeof nr->pend[0].it.who, "router restart");
		coord_netreq_retire(c, &nr->pend[0]);
	}
}

void
coord_netreq_list(struct coord *c, struct ctl_server_client *cl, const uint8_t *p, size_t len)
{
	struct coord_netreq *nr = coord_netreq_get(c);
	struct proto_buf b = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	uint32_t flags;
	size_t n = 0;

	if (netreq_decode_list(p, len, &flags, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if (c->net == NULL) {
		ctl_server_send_error(cl, PROTO_E_STATE, "domain %s runs with network: none (no "
		    "sidecar): nothing is asked; set allow_egress or 'network: sidecar' in profile %s",
		    c->a->hash, c->a->profile);
		return;
	}
	for (size_t i = 0; i < nr->npend; i++, n++)
		netreq_encode_item(&b, NETREQ_ITEM, &nr->pend[i].it);
	for (size_t i = 0; i < nr->ndone; i++, n++)
		netreq_encode_item(&b, NETREQ_ITEM, &nr->done[(nr->done_head + i) % NETREQ_KEEP_DONE]);
	nr->sum.pending = (uint32_t)nr->npend;
	netreq_encode_summary(&b, &nr->sum);
	proto_encode_ok(&b, (uint32_t)n);
	ctl_server_send(cl, &b);
	proto_buf_clear(&b);
	if (flags & NETREQ_FOLLOW) {
		for (size_t i = 0; i < nr->nfollow; i++)
			if (nr->follow[i] == cl)
				return;
		nr->follow = xreallocarray(nr->follow, nr->nfollow + 1, sizeof *nr->follow);
		nr->follow[nr->nfollow++] = cl;
		ctl_server_client_ref(cl);
	}
}

void
coord_netreq_client_gone(struct coord *c, struct ctl_server_client *cl)
{
	struct coord_netreq *nr = c->netreq;

	for (size_t i = 0; nr != NULL && i < nr->npend; i++)
		if (nr->pend[i].holder == cl)
			nr->pend[i].holder = NULL;	/* its view went with it */
	if (nr != NULL)
		coord_netreq_arm(c);
	for (size_t i = 0; nr != NULL && i < nr->nfollow; i++)
		if (nr->follow[i] == cl) {
			nr->follow[i] = nr->follow[--nr->nfollow];
			ctl_server_client_unref(cl);
			return;
		}
}

/* ---- held while a view is open (issue 24 item 11) ---- */

static uint64_t
nr_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
nr_due_cb(uv_timer_t *t)
{
	struct coord *c = t->data;
	struct coord_netreq *nr = c->netreq;
	uint64_t now = nr_wall_ms();
	lz_err_t err = LZ_ERR_INIT;
	int held;

	for (size_t i = 0; nr != NULL && i < nr->npend;) {
		struct coord_netreq_ent *e = &nr->pend[i];

		if (e->holder != NULL || e->due_wall > now) {
			i++;
			continue;
		}
		/* Nobody answered in network.ask_timeout: refused, as the router would. */
		if (c->net != NULL && net_coord_verdict(c->net, e->rid, NETCTL_V_REFUSE, NULL, &held,
		    &err) < 0) {
			coord_log("network request %u: refusing at its timeout: %s", e->it.id, err.msg);
			lz_err_clear(&err);
		}
		e->it.state = NETREQ_EXPIRED;
		snprintf(e->it.who, sizeof e->it.who, "timeout");
		e->it.grant[0] = '\0';
		coord_netreq_retire(c, e);	/* (the last entry moves to i) */
	}
	coord_netreq_arm(c);
}

void
coord_netreq_arm(struct coord *c)
{
	struct coord_netreq *nr = c->netreq;
	uint64_t now = nr_wall_ms(), next = UINT64_MAX;

	for (size_t i = 0; nr != NULL && i < nr->npend; i++)
		if (nr->pend[i].holder == NULL && nr->pend[i].due_wall < next)
			next = nr->pend[i].due_wall;
	c->nr_due.data = c;
	if (next == UINT64_MAX)
		uv_timer_stop(&c->nr_due);
	else
		uv_timer_start(&c->nr_due, nr_due_cb, next > now ? next - now : 0, 0);
}

/* A client's view of a request opened (held past ask_timeout, up to the
 * router's bound, escalation.timeout) or closed (its timeout again, and
 * a closed view past it is refused now). */
void
coord_netreq_hold(struct coord *c, struct ctl_server_client *cl, const uint8_t *p, size_t len)
{
	struct coord_netreq *nr = coord_netreq_get(c);
	struct coord_netreq_ent *e;
	lz_err_t err = LZ_ERR_INIT;
	uint32_t id;
	bool on;

	if (netreq_decode_hold(p, len, &id, &on, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if ((e = coord_netreq_by_id(nr, id)) == NULL)
		return;	/* decided or expired meanwhile: the ITEM says so */
	if (on)
		e->holder = cl;
	else if (e->holder == cl)
		e->holder = NULL;
	else
		return;
	e->it.expires_ms = on ? e->it.first_ms + (uint64_t)c->o->cfg->esc_timeout * 1000 :
	    e->due_wall;
	nr_broadcast(c, NETREQ_ITEM, &e->it, NULL);
	coord_netreq_arm(c);
}
