/* netreq.c - network request frames (pure; see netreq.h). */
#include <stdio.h>
#include <string.h>

#include "netreq.h"
#include "xmalloc.h"

/* A fixed field, the error naming it. */
static int
rdfield(struct proto_rd *r, char *dst, size_t cap, const char *what, lz_err_t *err)
{
	switch (proto_rd_field(r, dst, cap)) {
	case 0:
		return 0;
	case PROTO_FIELD_LONG:
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "%s: longer than %zu bytes", what, cap - 1);
	case PROTO_FIELD_NUL:
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "%s: NUL inside", what);
	default:
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "%s: payload cut short", what);
	}
}

void
netreq_encode_list(struct proto_buf *b, uint32_t flags)
{
	size_t at = proto_begin(b, PROTO_VERSION, NETREQ_LIST);

	proto_put32(b, flags);
	proto_end(b, at);
}

void
netreq_encode_hold(struct proto_buf *b, uint32_t id, bool on)
{
	size_t at = proto_begin(b, PROTO_VERSION, NETREQ_HOLD);

	proto_put32(b, id);
	proto_put32(b, on ? 1 : 0);
	proto_end(b, at);
}

int
netreq_decode_hold(const uint8_t *p, size_t len, uint32_t *id, bool *on, lz_err_t *err)
{
	struct proto_rd r;
	uint32_t v;

	proto_rd_init(&r, p, len);
	*id = proto_rd_u32(&r);
	v = proto_rd_u32(&r);
	if (proto_rd_end(&r, "NETREQ_HOLD", err) < 0)
		return -1;
	if (v > 1)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "NETREQ_HOLD: on is %u, not 0 or 1", v);
	*on = v == 1;
	return 0;
}

int
netreq_decode_list(const uint8_t *p, size_t len, uint32_t *flags, lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	*flags = proto_rd_u32(&r);
	if (proto_rd_end(&r, "NETREQ_LIST", err) < 0)
		return -1;
	if ((*flags & ~(uint32_t)NETREQ_FOLLOW) != 0)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "NETREQ_LIST: unknown flags 0x%x", *flags);
	return 0;
}

void
netreq_encode_item(struct proto_buf *b, uint16_t type, const struct netreq_item *it)
{
	size_t at = proto_begin(b, PROTO_VERSION, type);

	proto_put32(b, it->id);
	proto_put32(b, it->state);
	proto_put32(b, it->kind);
	proto_put32(b, it->proto);
	proto_put32(b, it->port);
	proto_put32(b, it->attempts);
	proto_put32(b, it->session);
	proto_put32(b, it->scope);
	proto_put64(b, it->first_ms);
	proto_put64(b, it->last_ms);
	proto_put64(b, it->expires_ms);
	proto_putfield(b, it->addr, sizeof it->addr);
	proto_putfield(b, it->name, sizeof it->name);
	proto_putfield(b, it->grant, sizeof it->grant);
	proto_putfield(b, it->who, sizeof it->who);
	proto_end(b, at);
}

int
netreq_decode_item(const uint8_t *p, size_t len, struct netreq_item *it, lz_err_t *err)
{
	struct proto_rd r;

	memset(it, 0, sizeof *it);
	proto_rd_init(&r, p, len);
	it->id = proto_rd_u32(&r);
	it->state = proto_rd_u32(&r);
	it->kind = proto_rd_u32(&r);
	it->proto = proto_rd_u32(&r);
	it->port = proto_rd_u32(&r);
	it->attempts = proto_rd_u32(&r);
	it->session = proto_rd_u32(&r);
	it->scope = proto_rd_u32(&r);
	it->first_ms = proto_rd_u64(&r);
	it->last_ms = proto_rd_u64(&r);
	it->expires_ms = proto_rd_u64(&r);
	if (rdfield(&r, it->addr, sizeof it->addr, "request address", err) < 0 ||
	    rdfield(&r, it->name, sizeof it->name, "request name", err) < 0 ||
	    rdfield(&r, it->grant, sizeof it->grant, "request grant", err) < 0 ||
	    rdfield(&r, it->who, sizeof it->who, "request who", err) < 0 ||
	    proto_rd_end(&r, "NETREQ_ITEM", err) < 0)
		return -1;
	if (it->state < NETREQ_PENDING || it->state > NETREQ_UNASKED)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "request state %u unknown", it->state);
	if (it->kind != NETREQ_KIND_FLOW && it->kind != NETREQ_KIND_DNS)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "request kind %u unknown", it->kind);
	if (it->scope > NETREQ_SCOPE_DENY)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "request scope %u unknown", it->scope);
	if (it->port > 65535)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "request port %u out of range", it->port);
	return 0;
}

void
netreq_encode_summary(struct proto_buf *b, const struct netreq_summary *s)
{
	size_t at = proto_begin(b, PROTO_VERSION, NETREQ_SUMMARY);

	proto_put32(b, s->pending);
	proto_put32(b, s->overflow);
	proto_put32(b, s->denied_hits);
	proto_put32(b, s->ask_timeout_ms);
	proto_end(b, at);
}

int
netreq_decode_summary(const uint8_t *p, size_t len, struct netreq_summary *s, lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	s->pending = proto_rd_u32(&r);
	s->overflow = proto_rd_u32(&r);
	s->denied_hits = proto_rd_u32(&r);
	s->ask_timeout_ms = proto_rd_u32(&r);
	return proto_rd_end(&r, "NETREQ_SUMMARY", err);
}

void
netreq_encode_decision(struct proto_buf *b, const struct netreq_decision *d)
{
	size_t at = proto_begin(b, PROTO_VERSION, NETREQ_DECIDE);

	proto_put32(b, d->id);
	proto_put32(b, d->scope);
	proto_put32(b, d->flags);
	proto_putfield(b, d->widen, sizeof d->widen);
	proto_putfield(b, d->who, sizeof d->who);
	proto_end(b, at);
}

int
netreq_decode_decision(const uint8_t *p, size_t len, struct netreq_decision *d, lz_err_t *err)
{
	struct proto_rd r;

	memset(d, 0, sizeof *d);
	proto_rd_init(&r, p, len);
	d->id = proto_rd_u32(&r);
	d->scope = proto_rd_u32(&r);
	d->flags = proto_rd_u32(&r);
	if (rdfield(&r, d->widen, sizeof d->widen, "widen pattern", err) < 0 ||
	    rdfield(&r, d->who, sizeof d->who, "who", err) < 0 ||
	    proto_rd_end(&r, "NETREQ_DECIDE", err) < 0)
		return -1;
	if (d->scope < NETREQ_SCOPE_ONCE || d->scope > NETREQ_SCOPE_DENY)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "decision scope %u unknown (once, run, "
		    "profile or deny)", d->scope);
	if ((d->flags & ~(uint32_t)(NETREQ_DRY_RUN | NETREQ_BROAD_OK)) != 0)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "decision flags 0x%x unknown", d->flags);
	if (d->widen[0] != '\0' && (d->scope == NETREQ_SCOPE_ONCE || d->scope == NETREQ_SCOPE_DENY))
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "a widen pattern goes with scope run or "
		    "profile, not %s", netreq_scope_name(d->scope));
	return 0;
}

void
netreq_encode_result(struct proto_buf *b, const struct netreq_result *res)
{
	size_t at = proto_begin(b, PROTO_VERSION, NETREQ_RESULT);

	proto_put32(b, res->id);
	proto_put32(b, res->status);
	proto_put32(b, res->scope);
	proto_putfield(b, res->grant, sizeof res->grant);
	proto_putfield(b, res->preview, sizeof res->preview);
	proto_putfield(b, res->broad, sizeof res->broad);
	proto_end(b, at);
}

int
netreq_decode_result(const uint8_t *p, size_t len, struct netreq_result *res, lz_err_t *err)
{
	struct proto_rd r;

	memset(res, 0, sizeof *res);
	proto_rd_init(&r, p, len);
	res->id = proto_rd_u32(&r);
	res->status = proto_rd_u32(&r);
	res->scope = proto_rd_u32(&r);
	if (rdfield(&r, res->grant, sizeof res->grant, "result grant", err) < 0 ||
	    rdfield(&r, res->preview, sizeof res->preview, "result preview", err) < 0 ||
	    rdfield(&r, res->broad, sizeof res->broad, "result broad", err) < 0 ||
	    proto_rd_end(&r, "NETREQ_RESULT", err) < 0)
		return -1;
	if (res->status > NETREQ_NEED_BROAD)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "result status %u unknown", res->status);
	if (res->scope < NETREQ_SCOPE_ONCE || res->scope > NETREQ_SCOPE_DENY)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "result scope %u unknown", res->scope);
	return 0;
}

void
netreq_encode_grants(struct proto_buf *b, const struct netreq_grant *g, size_t n)
{
	size_t at = proto_begin(b, PROTO_VERSION, NETREQ_GRANTS);

	if (n > NETREQ_MAX_GRANTS)
		n = NETREQ_MAX_GRANTS;
	proto_put32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		proto_put32(b, g[i].index);
		proto_put64(b, g[i].added_ms);
		proto_putfield(b, g[i].entry, sizeof g[i].entry);
		proto_putfield(b, g[i].note, sizeof g[i].note);
		proto_putfield(b, g[i].preview, sizeof g[i].preview);
	}
	proto_end(b, at);
}

int
netreq_decode_grants(const uint8_t *p, size_t len, struct netreq_grant **out, size_t *n,
    lz_err_t *err)
{
	struct proto_rd r;
	struct netreq_grant *g;
	uint32_t count;

	*out = NULL;
	*n = 0;
	proto_rd_init(&r, p, len);
	count = proto_rd_u32(&r);
	if (r.bad || count > NETREQ_MAX_GRANTS)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "grants list of %u (at most %d)", count,
		    NETREQ_MAX_GRANTS);
	/* Each grant takes at least 24 bytes: checked before allocating. */
	if ((size_t)count > r.left / 24)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "grants list shorter than its count");
	g = xcalloc((size_t)count + 1, sizeof *g);
	for (uint32_t i = 0; i < count; i++) {
		g[i].index = proto_rd_u32(&r);
		g[i].added_ms = proto_rd_u64(&r);
		if (rdfield(&r, g[i].entry, sizeof g[i].entry, "grant entry", err) < 0 ||
		    rdfield(&r, g[i].note, sizeof g[i].note, "grant note", err) < 0 ||
		    rdfield(&r, g[i].preview, sizeof g[i].preview, "grant preview", err) < 0) {
			free(g);
			return -1;
		}
	}
	if (proto_rd_end(&r, "NETREQ_GRANTS", err) < 0) {
		free(g);
		return -1;
	}
	*out = g;
	*n = count;
	return 0;
}

void
netreq_encode_verdict(struct proto_buf *b, uint32_t rid, uint32_t verdict, const char *entry)
{
	size_t at = proto_begin(b, PROTO_VERSION, NETCTL_VERDICT);

	proto_put32(b, rid);
	proto_put32(b, verdict);
	proto_putfield(b, entry != NULL ? entry : "", EGRESS_ENTRY_MAX + 1);
	proto_end(b, at);
}

int
netreq_decode_verdict(const uint8_t *p, size_t len, uint32_t *rid, uint32_t *verdict,
    char **entry, lz_err_t *err)
{
	struct proto_rd r;
	char e[EGRESS_ENTRY_MAX + 1];

	*entry = NULL;
	proto_rd_init(&r, p, len);
	*rid = proto_rd_u32(&r);
	*verdict = proto_rd_u32(&r);
	if (rdfield(&r, e, sizeof e, "verdict entry", err) < 0 ||
	    proto_rd_end(&r, "NETCTL_VERDICT", err) < 0)
		return -1;
	if (*verdict < NETCTL_V_ACCEPT || *verdict > NETCTL_V_DENY)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "verdict %u unknown", *verdict);
	if (e[0] != '\0' && *verdict != NETCTL_V_ACCEPT)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "an entry goes with accept only");
	*entry = xstrdup(e);
	return 0;
}

const char *
netreq_state_name(uint32_t s)
{
	switch (s) {
	case NETREQ_PENDING: return "pending";
	case NETREQ_APPROVED: return "approved";
	case NETREQ_DENIED: return "denied";
	case NETREQ_EXPIRED: return "expired";
	case NETREQ_GONE: return "gone";
	case NETREQ_UNASKED: return "unasked";
	default: return "?";
	}
}

const char *
netreq_kind_name(uint32_t k)
{
	switch (k) {
	case NETREQ_KIND_FLOW: return "flow";
	case NETREQ_KIND_DNS: return "dns";
	default: return "?";
	}
}

static const char *const netreq_scopes[] = {
	[NETREQ_SCOPE_NONE] = "", [NETREQ_SCOPE_ONCE] = "once", [NETREQ_SCOPE_RUN] = "run",
	[NETREQ_SCOPE_PROFILE] = "profile", [NETREQ_SCOPE_DENY] = "deny",
};

const char *
netreq_scope_name(uint32_t s)
{
	return s <= NETREQ_SCOPE_DENY ? netreq_scopes[s] : "?";
}

int
netreq_scope_parse(const char *s)
{
	for (int i = NETREQ_SCOPE_ONCE; i <= NETREQ_SCOPE_DENY; i++)
		if (strcmp(s, netreq_scopes[i]) == 0)
			return i;
	return -1;
}
