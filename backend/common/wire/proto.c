/* proto.c - control protocol framing, encoders and decoders (pure).
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
	[NETCTL_POLICY_SET] = "NET_POLICY_SET", [NETCTL_POLICY_ADD] = "NET_POLICY_ADD",
	[NETCTL_POLICY_DEL] = "NET_POLICY_DEL", [NETCTL_POLICY_GET] = "NET_POLICY_GET",
	[NETCTL_POLICY] = "NET_POLICY", [NETCTL_SUBSCRIBE] = "NET_SUBSCRIBE",
	[NETCTL_EVENT] = "NET_EVENT",
	[PROTO_SNAPSHOT] = "SNAPSHOT", [PROTO_KILL] = "KILL", [PROTO_SUSPECT] = "SUSPECT",
	[PROTO_NOTE] = "NOTE",
	[REVIEW_CTL_AUDIT] = "REVIEW_AUDIT",
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

static uint32_t
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

static uint16_t
proto_rd_u16(struct proto_rd *r)
{
	const uint8_t *p = proto_rd_take(r, 2);

	return p != NULL ? proto_get16(p) : 0;
}

static uint8_t
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
proto_decode_hello(const uint8_t *p, size_t len, struct proto_hello *out, lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	out->version = proto_rd_u32(&r);
	out->pid = proto_rd_u32(&r);
	out->uid = proto_rd_u32(&r);
	return proto_rd_end(&r, "HELLO", err);
}

int
proto_decode_error(const uint8_t *p, size_t len, struct proto_error *out, lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	out->code = proto_rd_u32(&r);
	out->text = proto_rd_str(&r);
	if (proto_rd_end(&r, "ERROR", err) < 0) {
		proto_error_clear(out);
		return -1;
	}
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
proto_decode_new_session(const uint8_t *p, size_t len, struct proto_new_session *out,
    lz_err_t *err)
{
	struct proto_rd r;
	uint32_t argc, i;

	memset(out, 0, sizeof *out);
	proto_rd_init(&r, p, len);
	out->flags = proto_rd_u32(&r);
	out->rows = proto_rd_u16(&r);
	out->cols = proto_rd_u16(&r);
	out->term = proto_rd_str(&r);
	argc = proto_rd_u32(&r);
	/* Each string takes at least 4 bytes: bound argc before allocating. */
	if (!r.bad && (argc > PROTO_MAX_ARGS || argc > r.left / 4)) {
		lz_err_set(err, PROTO_E_BAD_PAYLOAD, "NEW_SESSION: bad argument count %u", argc);
		goto fail;
	}
	if (!r.bad) {
		out->argv = xcalloc((size_t)argc + 1, sizeof *out->argv);
		for (i = 0; i < argc && !r.bad; i++)
			out->argv[i] = proto_rd_str(&r);
	}
	if (proto_rd_end(&r, "NEW_SESSION", err) < 0)
		goto fail;
	return 0;
fail:
	proto_new_session_clear(out);
	return -1;
}

int
proto_decode_session(const uint8_t *p, size_t len, struct proto_session *out, lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	out->id = proto_rd_u32(&r);
	out->pid = proto_rd_u32(&r);
	return proto_rd_end(&r, "SESSION", err);
}

int
proto_decode_data(const uint8_t *p, size_t len, struct proto_data *out, lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	out->id = proto_rd_u32(&r);
	out->stream = proto_rd_u8(&r);
	if (r.bad)
		return proto_rd_end(&r, "DATA", err);
	if (out->stream > PROTO_STREAM_ERR)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "DATA: unknown stream %u", out->stream);
	out->data = r.p;
	out->len = r.left;
	return 0;
}

int
proto_decode_eof(const uint8_t *p, size_t len, uint32_t *id, lz_err_t *err)
{
	return proto_decode_u32(p, len, id, err);
}

int
proto_decode_snapshot(const uint8_t *p, size_t len, uint32_t *id, const uint8_t **snap,
    size_t *snap_len, lz_err_t *err)
{
	if (len < 4)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "SNAPSHOT: %zu bytes, expected at least 4",
		    len);
	*id = proto_get32(p);
	*snap = p + 4;
	*snap_len = len - 4;
	return 0;
}

int
proto_decode_resize(const uint8_t *p, size_t len, struct proto_resize *out, lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	out->id = proto_rd_u32(&r);
	out->rows = proto_rd_u16(&r);
	out->cols = proto_rd_u16(&r);
	return proto_rd_end(&r, "RESIZE", err);
}

int
proto_decode_exit(const uint8_t *p, size_t len, struct proto_exit *out, lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	out->id = proto_rd_u32(&r);
	out->status = (int32_t)proto_rd_u32(&r);
	return proto_rd_end(&r, "SESSION_EXIT", err);
}

int
proto_decode_status_req(const uint8_t *p, size_t len, enum proto_status_fmt *out,
    lz_err_t *err)
{
	struct proto_rd r;
	uint8_t f;

	proto_rd_init(&r, p, len);
	f = proto_rd_u8(&r);
	if (proto_rd_end(&r, "STATUS_REQ", err) < 0)
		return -1;
	if (f > PROTO_STATUS_CONFIG)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "STATUS_REQ: unknown format %u", f);
	*out = (enum proto_status_fmt)f;
	return 0;
}

int
proto_decode_text(const uint8_t *p, size_t len, char **out, lz_err_t *err)
{
	if (memchr(p, '\0', len) != NULL)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "NUL byte in text payload");
	*out = xstrndup((const char *)p, len);
	return 0;
}

void
proto_error_clear(struct proto_error *e)
{
	free(e->text);
	e->text = NULL;
}

void
proto_new_session_clear(struct proto_new_session *s)
{
	size_t i;

	free(s->term);
	if (s->argv != NULL)
		for (i = 0; s->argv[i] != NULL; i++)
			free(s->argv[i]);
	free(s->argv);
	memset(s, 0, sizeof *s);
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

static void
proto_put16(struct proto_buf *b, uint16_t v)
{
	v = htons(v);
	proto_put(b, &v, 2);
}

static void
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

void
proto_encode_hello(struct proto_buf *b, const struct proto_hello *h)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_HELLO);

	proto_put32(b, h->version);
	proto_put32(b, h->pid);
	proto_put32(b, h->uid);
	proto_end(b, at);
}

void
proto_encode_error(struct proto_buf *b, uint32_t code, const char *text)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_ERROR);
	size_t n = strnlen(text, 4096);

	proto_put32(b, code);
	proto_put32(b, (uint32_t)n);
	proto_put(b, text, n);
	proto_end(b, at);
}

static void
proto_encode_u32(struct proto_buf *b, uint16_t type, uint32_t v)
{
	size_t at = proto_begin(b, PROTO_VERSION, type);

	proto_put32(b, v);
	proto_end(b, at);
}

void
proto_encode_ok(struct proto_buf *b, uint32_t value)
{
	proto_encode_u32(b, PROTO_OK, value);
}

void
proto_encode_new_session(struct proto_buf *b, const struct proto_new_session *s)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_NEW_SESSION);
	size_t i, n = 0;

	proto_put32(b, s->flags);
	proto_put16(b, s->rows);
	proto_put16(b, s->cols);
	proto_putstr(b, s->term);
	if (s->argv != NULL)
		while (s->argv[n] != NULL)
			n++;
	proto_put32(b, (uint32_t)n);
	for (i = 0; i < n; i++)
		proto_putstr(b, s->argv[i]);
	proto_end(b, at);
}

void
proto_encode_session(struct proto_buf *b, const struct proto_session *s)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_SESSION);

	proto_put32(b, s->id);
	proto_put32(b, s->pid);
	proto_end(b, at);
}

void
proto_encode_attach(struct proto_buf *b, uint32_t id)
{
	proto_encode_u32(b, PROTO_ATTACH, id);
}

void
proto_encode_data(struct proto_buf *b, uint32_t id, uint8_t stream, const void *data,
    size_t len)
{
	size_t at;

	LZ_ASSERT(len <= PROTO_MAX_PAYLOAD - 5);
	at = proto_begin(b, PROTO_VERSION, PROTO_DATA);
	proto_put32(b, id);
	proto_put8(b, stream);
	proto_put(b, data, len);
	proto_end(b, at);
}

void
proto_encode_eof(struct proto_buf *b, uint32_t id)
{
	proto_encode_u32(b, PROTO_EOF, id);
}

void
proto_encode_resize(struct proto_buf *b, const struct proto_resize *r)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_RESIZE);

	proto_put32(b, r->id);
	proto_put16(b, r->rows);
	proto_put16(b, r->cols);
	proto_end(b, at);
}

void
proto_encode_exit(struct proto_buf *b, const struct proto_exit *e)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_SESSION_EXIT);

	proto_put32(b, e->id);
	proto_put32(b, (uint32_t)e->status);
	proto_end(b, at);
}

void
proto_encode_detach(struct proto_buf *b, uint32_t id)
{
	proto_encode_u32(b, PROTO_DETACH, id);
}

void
proto_encode_kill(struct proto_buf *b, uint32_t id)
{
	proto_encode_u32(b, PROTO_KILL, id);
}

void
proto_encode_suspect(struct proto_buf *b, const struct proto_suspect *s)
{
	const char *str[] = { s->request_id, s->what, s->sample };
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_SUSPECT);

	proto_put8(b, PROTO_SUSPECT_LAYOUT);
	proto_put32(b, s->session);
	for (size_t i = 0; i < sizeof str / sizeof str[0]; i++) {
		size_t n = str[i] != NULL ? strlen(str[i]) : 0;

		n = n < PROTO_SUSPECT_MAX ? n : PROTO_SUSPECT_MAX;
		proto_put32(b, (uint32_t)n);
		proto_put(b, str[i], n);
	}
	proto_end(b, at);
}

/* A string of at most max bytes: the length is checked before anything is read. */
static char *
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

int
proto_decode_suspect(const uint8_t *p, size_t len, struct proto_suspect *out, lz_err_t *err)
{
	struct proto_rd r;
	uint8_t layout;

	memset(out, 0, sizeof *out);
	proto_rd_init(&r, p, len);
	layout = proto_rd_u8(&r);
	if (!r.bad && layout != PROTO_SUSPECT_LAYOUT)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "SUSPECT payload layout %u, this "
		    "coordinator reads %u", layout, PROTO_SUSPECT_LAYOUT);
	out->session = proto_rd_u32(&r);
	out->request_id = proto_rd_str_max(&r, PROTO_SUSPECT_MAX);
	out->what = proto_rd_str_max(&r, PROTO_SUSPECT_MAX);
	out->sample = proto_rd_str_max(&r, PROTO_SUSPECT_MAX);
	if (proto_rd_end(&r, "SUSPECT", err) < 0) {
		proto_suspect_clear(out);
		return -1;
	}
	return 0;
}

void
proto_suspect_clear(struct proto_suspect *s)
{
	free(s->request_id);
	free(s->what);
	free(s->sample);
	memset(s, 0, sizeof *s);
}

void
proto_encode_snapshot(struct proto_buf *b, uint32_t id, const void *snap, size_t len)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_SNAPSHOT);

	LZ_ASSERT(len <= PROTO_MAX_PAYLOAD - 4);
	proto_put32(b, id);
	proto_put(b, snap, len);
	proto_end(b, at);
}

void
proto_encode_status_req(struct proto_buf *b, enum proto_status_fmt fmt)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_STATUS_REQ);

	proto_put8(b, (uint8_t)fmt);
	proto_end(b, at);
}

void
proto_encode_status(struct proto_buf *b, const char *text)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_STATUS);

	proto_put(b, text, strnlen(text, PROTO_MAX_PAYLOAD));
	proto_end(b, at);
}

void
proto_encode_list(struct proto_buf *b)
{
	proto_end(b, proto_begin(b, PROTO_VERSION, PROTO_LIST));
}

void
proto_encode_stop(struct proto_buf *b)
{
	proto_end(b, proto_begin(b, PROTO_VERSION, PROTO_STOP));
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

static void
proto_putstr_max(struct proto_buf *b, const char *s, size_t max)
{
	size_t n = s != NULL ? strnlen(s, max) : 0;

	proto_put32(b, (uint32_t)n);
	proto_put(b, s, n);
}

void
proto_encode_note(struct proto_buf *b, const struct proto_note *n)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_NOTE);

	proto_put8(b, PROTO_NOTE_LAYOUT);
	proto_put32(b, n->session);
	proto_putstr_max(b, n->kind, PROTO_NOTE_KIND_MAX);
	proto_putstr_max(b, n->request_id, PROTO_NOTE_ID_MAX);
	proto_putstr_max(b, n->text, PROTO_NOTE_TEXT_MAX);
	proto_end(b, at);
}

static bool
proto_note_kind_ok(const char *k)
{
	if (*k == '\0')
		return false;
	for (; *k != '\0'; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '.' ||
		    *k == '-'))
			return false;
	return true;
}

int
proto_decode_note(const uint8_t *p, size_t len, struct proto_note *out, lz_err_t *err)
{
	struct proto_rd r;
	uint8_t layout;

	memset(out, 0, sizeof *out);
	proto_rd_init(&r, p, len);
	layout = proto_rd_u8(&r);
	if (!r.bad && layout != PROTO_NOTE_LAYOUT)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "NOTE: layout %u, this coordinator "
		    "reads layout %u", layout, PROTO_NOTE_LAYOUT);
	out->session = proto_rd_u32(&r);
	out->kind = proto_rd_str(&r);
	out->request_id = proto_rd_str(&r);
	out->text = proto_rd_str(&r);
	if (proto_rd_end(&r, "NOTE", err) < 0)
		goto fail;
	if (strlen(out->kind) > PROTO_NOTE_KIND_MAX || !proto_note_kind_ok(out->kind)) {
		lz_err_set(err, PROTO_E_BAD_PAYLOAD, "NOTE: kind must be 1 to %d of [a-z0-9.-]",
		    PROTO_NOTE_KIND_MAX);
		goto fail;
	}
	if (strlen(out->request_id) > PROTO_NOTE_ID_MAX ||
	    strlen(out->text) > PROTO_NOTE_TEXT_MAX) {
		lz_err_set(err, PROTO_E_BAD_PAYLOAD, "NOTE: request id over %d or text over %d "
		    "bytes", PROTO_NOTE_ID_MAX, PROTO_NOTE_TEXT_MAX);
		goto fail;
	}
	return 0;
fail:
	proto_note_clear(out);
	return -1;
}

void
proto_note_clear(struct proto_note *n)
{
	free(n->kind);
	free(n->request_id);
	free(n->text);
	memset(n, 0, sizeof *n);
}
