/* proto-msg.c - the control protocol's messages (proto.h): each frame's
 * encoder right above its decoder, over proto.c's header, reader and buffer.
 * Pure: no I/O. Every decoder reads through struct proto_rd, which checks
 * each length against what is left before touching a byte. */
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "xmalloc.h"

void
proto_encode_hello(struct proto_buf *b, const struct proto_hello *h)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_HELLO);

	proto_put32(b, h->version);
	proto_put32(b, h->pid);
	proto_put32(b, h->uid);
	proto_end(b, at);
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

void
proto_encode_pair(struct proto_buf *b, uint16_t type, const char *first, const char *second)
{
	size_t at = proto_begin(b, PROTO_VERSION, type);

	proto_putstr(b, first);
	proto_putstr(b, second);
	proto_end(b, at);
}

int
proto_decode_pair(const uint8_t *p, size_t len, char **first, char **second)
{
	struct proto_rd r;

	*second = NULL;
	proto_rd_init(&r, p, len);
	*first = proto_rd_str(&r);
	if (*first != NULL)
		*second = proto_rd_str(&r);
	if (r.bad || *first == NULL || *second == NULL || r.left != 0) {
		free(*first);
		free(*second);
		*first = *second = NULL;
		return -1;
	}
	return 0;
}

void
proto_error_clear(struct proto_error *e)
{
	free(e->text);
	e->text = NULL;
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

void
proto_encode_session(struct proto_buf *b, const struct proto_session *s)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_SESSION);

	proto_put32(b, s->id);
	proto_put32(b, s->pid);
	proto_end(b, at);
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

void
proto_encode_eof(struct proto_buf *b, uint32_t id)
{
	proto_encode_u32(b, PROTO_EOF, id);
}

int
proto_decode_eof(const uint8_t *p, size_t len, uint32_t *id, lz_err_t *err)
{
	return proto_decode_u32(p, len, id, err);
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

void
proto_encode_resize(struct proto_buf *b, const struct proto_resize *r)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_RESIZE);

	proto_put32(b, r->id);
	proto_put16(b, r->rows);
	proto_put16(b, r->cols);
	proto_end(b, at);
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

void
proto_encode_exit(struct proto_buf *b, const struct proto_exit *e)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_SESSION_EXIT);

	proto_put32(b, e->id);
	proto_put32(b, (uint32_t)e->status);
	proto_put32(b, e->flags);
	proto_end(b, at);
}

int
proto_decode_exit(const uint8_t *p, size_t len, struct proto_exit *out, lz_err_t *err)
{
	struct proto_rd r;

	proto_rd_init(&r, p, len);
	out->id = proto_rd_u32(&r);
	out->status = (int32_t)proto_rd_u32(&r);
	/* The flags came later: a coordinator started before them sends none. */
	out->flags = r.left > 0 ? proto_rd_u32(&r) : 0;
	return proto_rd_end(&r, "SESSION_EXIT", err);
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
proto_encode_status_req(struct proto_buf *b, enum proto_status_fmt fmt)
{
	size_t at = proto_begin(b, PROTO_VERSION, PROTO_STATUS_REQ);

	proto_put8(b, (uint8_t)fmt);
	proto_end(b, at);
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
