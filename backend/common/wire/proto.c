/* proto.c - control protocol framing: the header, the bounded reader, the
 * output buffer (pure); the messages are in proto-msg.c.
 *
 * Every decoder reads through struct proto_rd, which checks each length
 * against what is left before touching a byte; a short or overlong payload is
 * an error, never a read past the end.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "xmalloc.h"

static const char *const proto_names[] = {
	[PROTO_HELLO] = "HELLO", [PROTO_ERROR] = "ERROR", [PROTO_OK] = "OK",
	[PROTO_NEW_SESSION] = "NEW_SESSION", [PROTO_SESSION] = "SESSION",
	[PROTO_ATTACH] = "ATTACH", [PROTO_DATA] = "DATA", [PROTO_EOF] = "EOF",
	[PROTO_RESIZE] = "RESIZE", [PROTO_SESSION_EXIT] = "SESSION_EXIT",
	[PROTO_DETACH] = "DETACH", [PROTO_STATUS_REQ] = "STATUS_REQ",
	[PROTO_STATUS] = "STATUS", [PROTO_LIST] = "LIST", [PROTO_STOP] = "STOP",
	[PROTO_EGRESS_REQ] = "EGRESS_REQ", [PROTO_EGRESS_EDIT] = "EGRESS_EDIT",
	[ESC_CTL_NEW_SESSION] = "ESC_NEW_SESSION", [ESC_CTL_PROMPT] = "ESC_PROMPT",
	[ESC_CTL_DECISION] = "ESC_DECISION", [ESC_CTL_WITHDRAWN] = "ESC_WITHDRAWN",
	[ESC_CTL_AUDIT_REQ] = "ESC_AUDIT_REQ", [ESC_CTL_AUDIT] = "ESC_AUDIT",
	[ESC_CTL_LIST] = "ESC_LIST", [ESC_CTL_DECIDE] = "ESC_DECIDE",
	[NETCTL_POLICY_SET] = "NET_POLICY_SET", [NETCTL_POLICY_ADD] = "NET_POLICY_ADD",
	[NETCTL_POLICY_DEL] = "NET_POLICY_DEL", [NETCTL_POLICY_GET] = "NET_POLICY_GET",
	[NETCTL_POLICY] = "NET_POLICY", [NETCTL_SUBSCRIBE] = "NET_SUBSCRIBE",
	[NETCTL_EVENT] = "NET_EVENT",
	[PROTO_SNAPSHOT] = "SNAPSHOT", [PROTO_KILL] = "KILL", [PROTO_SUSPECT] = "SUSPECT",
	[PROTO_NOTE] = "NOTE",
	[REVIEW_CTL_AUDIT] = "REVIEW_AUDIT",
	[SENTRY_CTL_SYNC] = "SENTRY_SYNC",
	[NETREQ_LIST] = "NETREQ_LIST", [NETREQ_ITEM] = "NETREQ_ITEM",
	[NETREQ_SUMMARY] = "NETREQ_SUMMARY", [NETREQ_DECIDE] = "NETREQ_DECIDE",
	[NETREQ_RESULT] = "NETREQ_RESULT", [NETREQ_GRANTS_REQ] = "NETREQ_GRANTS_REQ",
	[NETREQ_GRANTS] = "NETREQ_GRANTS", [NETREQ_REVOKE] = "NETREQ_REVOKE",
	[NETCTL_ASK] = "NET_ASK", [NETCTL_VERDICT] = "NET_VERDICT", [NETREQ_HOLD] = "NETREQ_HOLD",
};

bool
proto_type_known(uint16_t type)
{
	return type < sizeof proto_names / sizeof proto_names[0] && proto_names[type] != NULL;
}

const char *
proto_type_name(uint16_t type)
{
	return proto_type_known(type) ? proto_names[type] : "?";
}

uint32_t
proto_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static uint16_t
proto_get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return ntohs(v);
}

int
proto_frame_parse(const uint8_t *buf, size_t len, struct proto_header *hdr,
    const uint8_t **payload, lz_err_t *err)
{
	uint32_t magic;

	if (len < 4)
		return PROTO_NEED_MORE;
	magic = proto_get32(buf);
	if (magic != PROTO_MAGIC)
		return lz_err_set(err, PROTO_E_BAD_FRAME, "bad frame magic 0x%08x", magic);
	if (len < PROTO_HEADER_LEN)
		return PROTO_NEED_MORE;
	hdr->version = buf[4];
	hdr->flags = buf[5];
	hdr->type = proto_get16(buf + 6);
	hdr->length = proto_get32(buf + 8);
	if (hdr->version != PROTO_VERSION)
		return lz_err_set(err, PROTO_E_VERSION, "protocol version %u, expected %u",
		    hdr->version, PROTO_VERSION);
	if (hdr->length > PROTO_MAX_PAYLOAD)
		return lz_err_set(err, PROTO_E_BAD_FRAME, "frame of %u bytes exceeds the %u limit",
		    hdr->length, PROTO_MAX_PAYLOAD);
	if (len - PROTO_HEADER_LEN < hdr->length)
		return PROTO_NEED_MORE;
	*payload = buf + PROTO_HEADER_LEN;
	return PROTO_FRAME;
}

/* Reader: every get checks the remaining length first. */

void
proto_rd_init(struct proto_rd *r, const uint8_t *p, size_t len)
{
	r->p = p;
	r->left = len;
	r->bad = 0;
}

const uint8_t *
proto_rd_take(struct proto_rd *r, size_t n)
{
	const uint8_t *p;

	if (r->bad || r->left < n) {
		r->bad = 1;
		return NULL;
	}
	p = r->p;
	r->p += n;
	r->left -= n;
	return p;
}

uint32_t
proto_rd_u32(struct proto_rd *r)
{
	const uint8_t *p = proto_rd_take(r, 4);

	return p != NULL ? proto_get32(p) : 0;
}

uint16_t
proto_rd_u16(struct proto_rd *r)
{
	const uint8_t *p = proto_rd_take(r, 2);

	return p != NULL ? proto_get16(p) : 0;
}

uint8_t
proto_rd_u8(struct proto_rd *r)
{
	const uint8_t *p = proto_rd_take(r, 1);

	return p != NULL ? *p : 0;
}

/* A string: u32 length, checked against what is left, no NUL inside. */
char *
proto_rd_str(struct proto_rd *r)
{
	uint32_t n = proto_rd_u32(r);
	const uint8_t *p;

	if (r->bad)
		return NULL;
	if ((p = proto_rd_take(r, n)) == NULL)
		return NULL;
	if (memchr(p, '\0', n) != NULL) {
		r->bad = 1;
		return NULL;
	}
	return xstrndup((const char *)p, n);
}

int
proto_rd_field(struct proto_rd *r, char *dst, size_t cap)
{
	uint32_t n = proto_rd_u32(r);
	const uint8_t *p;

	if (r->bad)
		return PROTO_FIELD_SHORT;
	if (n >= cap) {
		r->bad = 1;
		return PROTO_FIELD_LONG;
	}
	if ((p = proto_rd_take(r, n)) == NULL)
		return PROTO_FIELD_SHORT;
	if (memchr(p, '\0', n) != NULL) {
		r->bad = 1;
		return PROTO_FIELD_NUL;
	}
	memcpy(dst, p, n);
	dst[n] = '\0';
	return 0;
}

uint64_t
proto_rd_u64(struct proto_rd *r)
{
	uint64_t hi = proto_rd_u32(r);

	return hi << 32 | proto_rd_u32(r);
}

void
proto_put64(struct proto_buf *b, uint64_t v)
{
	proto_put32(b, (uint32_t)(v >> 32));
	proto_put32(b, (uint32_t)v);
}

void
proto_putfield(struct proto_buf *b, const char *s, size_t cap)
{
	size_t n = strnlen(s, cap - 1);

	proto_put32(b, (uint32_t)n);
	proto_put(b, s, n);
}

int
proto_rd_end(struct proto_rd *r, const char *what, lz_err_t *err)
{
	if (r->bad)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "malformed %s payload", what);
	if (r->left != 0)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "%zu trailing bytes in %s payload",
		    r->left, what);
	return 0;
}

int
proto_decode_u32(const uint8_t *p, size_t len, uint32_t *out, lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	*out = proto_rd_u32(&r);
	return proto_rd_end(&r, "u32", err);
}

int
proto_decode_text(const uint8_t *p, size_t len, char **out, lz_err_t *err)
{
	if (memchr(p, '\0', len) != NULL)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "NUL byte in text payload");
	*out = xstrndup((const char *)p, len);
	return 0;
}

/* Encoders. */

static void
proto_buf_reserve(struct proto_buf *b, size_t n)
{
	size_t cap;

	if (b->cap - b->len >= n)
		return;
	cap = b->cap != 0 ? b->cap : 256;
	while (cap - b->len < n)
		cap *= 2;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

void
proto_put(struct proto_buf *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	proto_buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void
proto_put32(struct proto_buf *b, uint32_t v)
{
	v = htonl(v);
	proto_put(b, &v, 4);
}

void
proto_put16(struct proto_buf *b, uint16_t v)
{
	v = htons(v);
	proto_put(b, &v, 2);
}

void
proto_put8(struct proto_buf *b, uint8_t v)
{
	proto_put(b, &v, 1);
}

void
proto_putstr(struct proto_buf *b, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	proto_put32(b, (uint32_t)n);
	proto_put(b, s, n);
}

/* Start a frame; returns the offset of its header for proto_end. */
size_t
proto_begin(struct proto_buf *b, uint8_t version, uint16_t type)
{
	size_t at = b->len;

	proto_put32(b, PROTO_MAGIC);
	proto_put8(b, version);
	proto_put8(b, 0);
	proto_put16(b, type);
	proto_put32(b, 0);
	return at;
}

void
proto_end(struct proto_buf *b, size_t at)
{
	uint32_t n = htonl((uint32_t)(b->len - at - PROTO_HEADER_LEN));

	LZ_ASSERT(b->len - at - PROTO_HEADER_LEN <= PROTO_MAX_PAYLOAD);
	memcpy(b->data + at + 8, &n, 4);
}

void
proto_encode_raw(struct proto_buf *b, uint8_t version, uint16_t type, const void *payload,
    size_t len)
{
	size_t at = proto_begin(b, version, type);

	proto_put(b, payload, len);
	proto_end(b, at);
}

/* A string of at most max bytes: the length is checked before anything is read. */
char *
proto_rd_str_max(struct proto_rd *r, uint32_t max)
{
	const uint8_t *p = r->p;

	if (r->bad || r->left < 4)
		return proto_rd_str(r);
	if (proto_get32(p) > max) {
		r->bad = 1;
		return NULL;
	}
	return proto_rd_str(r);
}

void
proto_buf_consume(struct proto_buf *b, size_t n)
{
	LZ_ASSERT(n <= b->len);
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

uint8_t *
proto_buf_space(struct proto_buf *b, size_t n, size_t *avail)
{
	if (b->cap - b->len < n) {
		b->cap = b->len + n;
		b->data = xrealloc(b->data, b->cap);
	}
	if (avail != NULL)
		*avail = b->cap - b->len;
	return b->data + b->len;
}

int
proto_buf_frames(struct proto_buf *b, proto_frame_fn fn, void *arg, lz_err_t *err)
{
	struct proto_header h;
	const uint8_t *payload;
	size_t off = 0;
	int r;

	for (;;) {
		r = proto_frame_parse(b->data + off, b->len - off, &h, &payload, err);
		if (r != PROTO_FRAME)
			break;
		off += PROTO_HEADER_LEN + h.length;
		if (fn(&h, payload, arg) != 0)
			break;
	}
	if (off > 0)
		proto_buf_consume(b, off);
	return r < 0 ? -1 : 0;
}

void
proto_buf_clear(struct proto_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

uint8_t *
proto_buf_steal(struct proto_buf *b, size_t *len)
{
	uint8_t *d = b->data;

	*len = b->len;
	memset(b, 0, sizeof *b);
	return d;
}

void
proto_putstr_max(struct proto_buf *b, const char *s, size_t max)
{
	size_t n = s != NULL ? strnlen(s, max) : 0;

	proto_put32(b, (uint32_t)n);
	proto_put(b, s, n);
}
