/* netctl.c - coordinator <-> network sidecar messages (pure; see netctl.h). */
#include <string.h>

#include "netctl.h"
#include "strv.h"
#include "xmalloc.h"

void
netctl_encode_list(struct proto_buf *b, uint16_t type, char *const *v, size_t n)
{
	size_t at = proto_begin(b, PROTO_VERSION, type);

	proto_put32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		proto_putstr(b, v[i]);
	proto_end(b, at);
}

int
netctl_decode_list(const uint8_t *p, size_t len, char ***out, size_t *n, lz_err_t *err)
{
	struct proto_rd r;
	uint32_t count;
	char **v;

	*out = NULL;
	*n = 0;
	proto_rd_init(&r, p, len);
	count = proto_rd_u32(&r);
	if (r.bad || count > NETCTL_MAX_ENTRIES)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "policy of %u entries (at most %d)", count,
		    NETCTL_MAX_ENTRIES);
	/* Each entry takes at least its 4-byte length: checked before allocating. */
	if ((size_t)count > r.left / 4)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "policy list shorter than its count");
	v = xcalloc((size_t)count + 1, sizeof *v);
	for (uint32_t i = 0; i < count; i++)
		if ((v[i] = proto_rd_str(&r)) == NULL)
			break;
	if (r.bad || r.left != 0) {
		lz_strv_free(v);
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "malformed policy list");
	}
	*out = v;
	*n = count;
	return 0;
}

void
netctl_encode_str(struct proto_buf *b, uint16_t type, const char *s)
{
	size_t at = proto_begin(b, PROTO_VERSION, type);

	proto_putstr(b, s);
	proto_end(b, at);
}

int
netctl_decode_str(const uint8_t *p, size_t len, char **out, lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	*out = proto_rd_str(&r);
	if (r.bad || r.left != 0) {
		free(*out);
		*out = NULL;
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "malformed string payload");
	}
	return 0;
}

void
netctl_encode_empty(struct proto_buf *b, uint16_t type)
{
	proto_end(b, proto_begin(b, PROTO_VERSION, type));
}

void
netctl_encode_event(struct proto_buf *b, const struct netctl_event *e)
{
	size_t at = proto_begin(b, PROTO_VERSION, NETCTL_EVENT);

	proto_put32(b, e->kind);
	proto_put32(b, e->allowed);
	proto_put32(b, (uint32_t)(e->time_ms >> 32));
	proto_put32(b, (uint32_t)e->time_ms);
	proto_put32(b, e->proto);
	proto_put32(b, e->port);
	proto_put32(b, e->count);
	proto_putstr(b, e->addr);
	proto_putstr(b, e->name);
	proto_putstr(b, e->rule);
	proto_end(b, at);
}

int
netctl_decode_event(const uint8_t *p, size_t len, struct netctl_event *e, lz_err_t *err)
{
	struct proto_rd r;
	uint32_t hi, lo;

	memset(e, 0, sizeof *e);
	proto_rd_init(&r, p, len);
	e->kind = proto_rd_u32(&r);
	e->allowed = proto_rd_u32(&r);
	hi = proto_rd_u32(&r);
	lo = proto_rd_u32(&r);
	e->time_ms = (uint64_t)hi << 32 | lo;
	e->proto = proto_rd_u32(&r);
	e->port = proto_rd_u32(&r);
	e->count = proto_rd_u32(&r);
	if (r.bad || proto_rd_field(&r, e->addr, sizeof e->addr) < 0 ||
	    proto_rd_field(&r, e->name, sizeof e->name) < 0 ||
	    proto_rd_field(&r, e->rule, sizeof e->rule) < 0 || r.left != 0)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "malformed egress event");
	return 0;
}

void
netctl_encode_egress_req(struct proto_buf *b, uint32_t flags, uint32_t last)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_EGRESS_REQ);

	proto_put32(b, flags);
	proto_put32(b, last);
	proto_end(b, at);
}

int
netctl_decode_egress_req(const uint8_t *p, size_t len, uint32_t *flags, uint32_t *last,
    lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	*flags = proto_rd_u32(&r);
	*last = proto_rd_u32(&r);
	if (r.bad || r.left != 0 || (*flags & ~(uint32_t)NETCTL_FOLLOW) != 0)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "malformed EGRESS_REQ payload");
	return 0;
}

void
netctl_encode_egress_edit(struct proto_buf *b, uint32_t add, const char *entry)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_EGRESS_EDIT);

	proto_put32(b, add);
	proto_putstr(b, entry);
	proto_end(b, at);
}

int
netctl_decode_egress_edit(const uint8_t *p, size_t len, uint32_t *add, char **entry,
    lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	*add = proto_rd_u32(&r);
	*entry = proto_rd_str(&r);
	if (r.bad || r.left != 0 || *add > 1) {
		free(*entry);
		*entry = NULL;
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "malformed EGRESS_EDIT payload");
	}
	return 0;
}

const char *
netctl_ev_kind_name(uint32_t kind)
{
	switch (kind) {
	case NETCTL_EV_FLOW: return "flow";
	case NETCTL_EV_DNS: return "dns";
	case NETCTL_EV_LOST: return "lost";
	case NETCTL_EV_ROUTER: return "router";
	case NETCTL_EV_BROKER: return "broker";
	default: return "?";
	}
}
