/* esc-payload.c - strict reader and writer of the escalation request JSON,
 * its canonical signing bytes, and the escalation frames.
 *
 * The reader accepts exactly one flat object of the eight known keys. Each
 * string is scanned once to learn its decoded length (refused above the
 * field's cap before anything is allocated), then decoded into a buffer of
 * exactly that size. Offsets in messages are byte offsets into the request.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "esc-payload.h"
#include "jsonw.h"
#include "paths.h"
#include "shellwords.h"
#include "xmalloc.h"

enum esc_key {
	K_REQUEST_ID, K_SESSION_ID, K_COMMAND, K_JUSTIFICATION, K_CWD, K_TIMESTAMP,
	K_CREDENTIAL, K_SIGNATURE, K_COUNT
};

static const char *const key_names[K_COUNT] = {
	"request_id", "session_id", "command", "justification", "cwd", "timestamp",
	"credential", "signature",
};

struct jr {
	const uint8_t *p;
	size_t len, i;
	lz_err_t *err;
};

static int
jr_fail(struct jr *r, const char *what)
{
	return lz_err_set(r->err, LZ_EINVAL, "escalation request: byte %zu: %s", r->i, what);
}

static void
jr_ws(struct jr *r)
{
	while (r->i < r->len && strchr(" \t\r\n", r->p[r->i]) != NULL && r->p[r->i] != '\0')
		r->i++;
}

static int
jr_hex4(const uint8_t *p, uint32_t *v)
{
	*v = 0;
	for (int k = 0; k < 4; k++) {
		uint8_t c = p[k];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v |= c - 'A' + 10;
		else
			return -1;
	}
	return 0;
}

static size_t
utf8_put(uint32_t cp, uint8_t *o)
{
	if (cp < 0x80) {
		o[0] = (uint8_t)cp;
		return 1;
	} else if (cp < 0x800) {
		o[0] = (uint8_t)(0xc0 | (cp >> 6));
		o[1] = (uint8_t)(0x80 | (cp & 0x3f));
		return 2;
	} else if (cp < 0x10000) {
		o[0] = (uint8_t)(0xe0 | (cp >> 12));
		o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (uint8_t)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (uint8_t)(0xf0 | (cp >> 18));
	o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (uint8_t)(0x80 | (cp & 0x3f));
	return 4;
}

/* Scan (dst NULL) or decode the string whose opening quote is at r->i.
 * Scanning stops with an error once the decoded length exceeds cap; on
 * success *n is the decoded length and r->i is past the closing quote. */
static int
jr_string_pass(struct jr *r, uint8_t *dst, size_t cap, size_t *n, const char *field)
{
	size_t i = r->i + 1, o = 0;
	char msg[96];

	for (;;) {
		uint8_t tmp[4];
		size_t k;
		uint32_t cp;

		if (i >= r->len) {
			r->i = i;
			return jr_fail(r, "unterminated string");
		}
		if (r->p[i] == '"')
			break;
		if (r->p[i] < 0x20) {
			r->i = i;
			return jr_fail(r, "control character in a string (escape it)");
		}
		if (r->p[i] == '\\') {
			if (i + 1 >= r->len) {
				r->i = i;
				return jr_fail(r, "unterminated string");
			}
			switch (r->p[i + 1]) {
			case '"': cp = '"'; break;
			case '\\': cp = '\\'; break;
			case '/': cp = '/'; break;
			case 'b': cp = '\b'; break;
			case 'f': cp = '\f'; break;
			case 'n': cp = '\n'; break;
			case 'r': cp = '\r'; break;
			case 't': cp = '\t'; break;
			case 'u':
				if (r->len - i < 6 || jr_hex4(r->p + i + 2, &cp) < 0) {
					r->i = i;
					return jr_fail(r, "bad \\u escape");
				}
				if (cp >= 0xd800 && cp <= 0xdbff) {
					uint32_t lo;

					if (r->len - i < 12 || r->p[i + 6] != '\\' || r->p[i + 7] != 'u' ||
					    jr_hex4(r->p + i + 8, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff) {
						r->i = i;
						return jr_fail(r, "unpaired surrogate in \\u escape");
					}
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					i += 6;
				} else if (cp >= 0xdc00 && cp <= 0xdfff) {
					r->i = i;
					return jr_fail(r, "unpaired surrogate in \\u escape");
				}
				if (cp == 0) {
					r->i = i;
					return jr_fail(r, "NUL (\\u0000) in a string");
				}
				i += 4;
				break;
			default:
				r->i = i;
				return jr_fail(r, "bad escape in a string");
			}
			i += 2;
			k = utf8_put(cp, tmp);
			if (o + k > cap)
				goto too_long;
			if (dst != NULL)
				memcpy(dst + o, tmp, k);
			o += k;
			continue;
		}
		k = lz_shellwords_utf8(r->p + i, r->len - i, &cp);
		if (k == 0) {
			r->i = i;
			return jr_fail(r, "invalid UTF-8 in a string");
		}
		if (o + k > cap)
			goto too_long;
		if (dst != NULL)
			memcpy(dst + o, r->p + i, k);
		o += k;
		i += k;
	}
	r->i = i + 1;
	*n = o;
	return 0;
too_long:
	snprintf(msg, sizeof msg, "%s is longer than %zu bytes", field, cap);
	return jr_fail(r, msg);
}

/* Read a string value of at most cap decoded bytes into *out (allocated). */
static int
jr_string(struct jr *r, size_t cap, char **out, size_t *outlen, const char *field)
{
	size_t start = r->i, n = 0, n2 = 0;
	char *s;

	if (r->i >= r->len || r->p[r->i] != '"') {
		char msg[64];

		snprintf(msg, sizeof msg, "%s: expected a string", field);
		return jr_fail(r, msg);
	}
	if (jr_string_pass(r, NULL, cap, &n, field) < 0)
		return -1;
	s = xmalloc(n + 1);
	r->i = start;
	if (jr_string_pass(r, (uint8_t *)s, n, &n2, field) < 0) {
		free(s);
		return -1;
	}
	LZ_ASSERT(n2 == n);
	s[n] = '\0';
	*out = s;
	if (outlen != NULL)
		*outlen = n;
	return 0;
}

static int
jr_hexfield(struct jr *r, uint8_t *bin, size_t n, const char *field)
{
	char *s = NULL, msg[96];
	size_t slen = 0;
	int rc;

	if (jr_string(r, 2 * n, &s, &slen, field) < 0)
		return -1;
	rc = esc_payload_unhex(s, slen, bin, n);
	free(s);
	if (rc < 0) {
		snprintf(msg, sizeof msg, "%s: expected %zu lowercase hex digits", field, 2 * n);
		return jr_fail(r, msg);
	}
	return 0;
}

static int
jr_uint(struct jr *r, int64_t *out, const char *field)
{
	size_t start = r->i;
	int64_t v = 0;
	char msg[64];

	snprintf(msg, sizeof msg, "%s: expected a non-negative integer", field);
	if (r->i >= r->len || r->p[r->i] < '0' || r->p[r->i] > '9')
		return jr_fail(r, msg);
	while (r->i < r->len && r->p[r->i] >= '0' && r->p[r->i] <= '9') {
		if (r->i - start >= 15)
			return jr_fail(r, msg);
		v = v * 10 + (r->p[r->i] - '0');
		r->i++;
	}
	if (r->p[start] == '0' && r->i - start > 1)
		return jr_fail(r, "leading zero in a number");
	if (r->i < r->len && strchr(".eE", r->p[r->i]) != NULL && r->p[r->i] != '\0')
		return jr_fail(r, msg);
	*out = v;
	return 0;
}

static int
jr_value(struct jr *r, enum esc_key k, struct esc_payload *out)
{
	const char *f = key_names[k];

	switch (k) {
	case K_REQUEST_ID: return jr_hexfield(r, out->request_id, ESC_ID_LEN, f);
	case K_SESSION_ID: return jr_hexfield(r, out->session_id, ESC_ID_LEN, f);
	case K_CREDENTIAL: return jr_hexfield(r, out->credential, ESC_CRED_LEN, f);
	case K_SIGNATURE: return jr_hexfield(r, out->signature, ESC_SIG_LEN, f);
	case K_COMMAND: return jr_string(r, ESC_COMMAND_MAX, &out->command, NULL, f);
	case K_JUSTIFICATION: return jr_string(r, ESC_JUSTIFY_MAX, &out->justification, NULL, f);
	case K_CWD: return jr_string(r, ESC_CWD_MAX, &out->cwd, NULL, f);
	case K_TIMESTAMP: return jr_uint(r, &out->timestamp, f);
	case K_COUNT: break;
	}
	return jr_fail(r, "internal: bad key");
}

int
esc_payload_parse(const uint8_t *buf, size_t len, struct esc_payload *out, lz_err_t *err)
{
	struct jr r = { buf, len, 0, err };
	bool seen[K_COUNT] = { false };
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (len > ESC_PAYLOAD_MAX) {
		lz_err_set(err, LZ_EINVAL, "escalation request of %zu bytes exceeds the %u limit",
		    len, ESC_PAYLOAD_MAX);
		goto cleanup;
	}
	jr_ws(&r);
	if (r.i >= r.len || buf[r.i] != '{') {
		jr_fail(&r, "expected a JSON object");
		goto cleanup;
	}
	r.i++;
	jr_ws(&r);
	if (r.i < r.len && buf[r.i] == '}') {
		r.i++;
	} else for (;;) {
		char *key = NULL;
		size_t at = r.i, klen = 0;
		int k;

		if (jr_string(&r, 32, &key, &klen, "key") < 0)
			goto cleanup;
		LZ_ASSERT(key != NULL);
		for (k = 0; k < K_COUNT; k++)
			if (strcmp(key, key_names[k]) == 0)
				break;
		if (k == K_COUNT || seen[k]) {
			char msg[96];

			snprintf(msg, sizeof msg, "%s key \"%.32s\"",
			    k == K_COUNT ? "unknown" : "duplicate", key);
			free(key);
			r.i = at;
			jr_fail(&r, msg);
			goto cleanup;
		}
		free(key);
		seen[k] = true;
		jr_ws(&r);
		if (r.i >= r.len || buf[r.i] != ':') {
			jr_fail(&r, "expected ':'");
			goto cleanup;
		}
		r.i++;
		jr_ws(&r);
		if (jr_value(&r, (enum esc_key)k, out) < 0)
			goto cleanup;
		jr_ws(&r);
		if (r.i < r.len && buf[r.i] == ',') {
			r.i++;
			jr_ws(&r);
			continue;
		}
		if (r.i < r.len && buf[r.i] == '}') {
			r.i++;
			break;
		}
		jr_fail(&r, "expected ',' or '}'");
		goto cleanup;
	}
	jr_ws(&r);
	if (r.i != r.len) {
		jr_fail(&r, "trailing bytes after the object");
		goto cleanup;
	}
	for (int k = 0; k < K_COUNT; k++) {
		if (!seen[k]) {
			lz_err_set(err, LZ_EINVAL, "escalation request: missing key \"%s\"", key_names[k]);
			goto cleanup;
		}
	}
	if (out->cwd[0] != '/' || lz_path_has_dotdot(out->cwd)) {
		lz_err_set(err, LZ_EINVAL, "escalation request: cwd must be an absolute path without '..'");
		goto cleanup;
	}
	rc = 0;
cleanup:
	if (rc < 0)
		esc_payload_clear(out);
	return rc;
}

void
esc_payload_clear(struct esc_payload *p)
{
	if (p == NULL)
		return;
	free(p->command);
	free(p->justification);
	free(p->cwd);
	memset(p, 0, sizeof *p);
}

void
esc_payload_hex(const uint8_t *bin, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[bin[i] >> 4];
		out[2 * i + 1] = digits[bin[i] & 0xf];
	}
	out[2 * n] = '\0';
}

int
esc_payload_unhex(const char *s, size_t slen, uint8_t *bin, size_t n)
{
	if (slen != 2 * n)
		return -1;
	for (size_t i = 0; i < slen; i++) {
		char c = s[i];
		uint8_t v;

		if (c >= '0' && c <= '9')
			v = (uint8_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = (uint8_t)(c - 'a' + 10);
		else
			return -1;
		if (i % 2 == 0)
			bin[i / 2] = (uint8_t)(v << 4);
		else
			bin[i / 2] |= v;
	}
	return 0;
}

static void
jw_hex(struct lz_jsonw *w, const char *key, const uint8_t *bin, size_t n)
{
	char *h = xmalloc(2 * n + 1);

	esc_payload_hex(bin, n, h);
	lz_jsonw_key(w, key);
	lz_jsonw_str(w, h);
	free(h);
}

char *
esc_payload_encode(const struct esc_payload *p)
{
	struct lz_jsonw w;

	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	jw_hex(&w, "request_id", p->request_id, ESC_ID_LEN);
	jw_hex(&w, "session_id", p->session_id, ESC_ID_LEN);
	lz_jsonw_key(&w, "command");
	lz_jsonw_str(&w, p->command != NULL ? p->command : "");
	lz_jsonw_key(&w, "justification");
	lz_jsonw_str(&w, p->justification != NULL ? p->justification : "");
	lz_jsonw_key(&w, "cwd");
	lz_jsonw_str(&w, p->cwd != NULL ? p->cwd : "");
	lz_jsonw_key(&w, "timestamp");
	lz_jsonw_int(&w, p->timestamp);
	jw_hex(&w, "credential", p->credential, ESC_CRED_LEN);
	jw_hex(&w, "signature", p->signature, ESC_SIG_LEN);
	lz_jsonw_obj_close(&w);
	return lz_jsonw_steal(&w);
}

static void
put_bytes(struct proto_buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 16;
		b->data = xrealloc(b->data, b->cap);
	}
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

/* Big-endian integer of 4 or 8 bytes. */
static void
put_be(struct proto_buf *b, uint64_t v, size_t bytes)
{
	uint8_t tmp[8] = { 0 };

	LZ_ASSERT(bytes <= sizeof tmp);
	for (size_t k = 0; k < bytes; k++)
		tmp[k] = (uint8_t)(v >> (8 * (bytes - 1 - k)));
	put_bytes(b, tmp, bytes);
}

static void
put_str(struct proto_buf *b, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	put_be(b, n, 4);
	put_bytes(b, s, n);
}

void
esc_payload_canonical(const struct esc_payload *p, uint8_t **out, size_t *len)
{
	struct proto_buf b = { NULL, 0, 0 };

	put_bytes(&b, "LZESC1\0\0", 8);
	put_bytes(&b, p->request_id, ESC_ID_LEN);
	put_bytes(&b, p->session_id, ESC_ID_LEN);
	put_be(&b, (uint64_t)p->timestamp, 8);
	put_str(&b, p->command);
	put_str(&b, p->justification);
	put_str(&b, p->cwd);
	put_bytes(&b, p->credential, ESC_CRED_LEN);
	*out = b.data;
	*len = b.len;
}

void
esc_payload_frame_request(struct proto_buf *b, const char *json)
{
	proto_encode_raw(b, PROTO_VERSION, ESC_MSG_REQUEST, json, strlen(json));
}

void
esc_payload_frame_pending(struct proto_buf *b, const char *text)
{
	proto_encode_raw(b, PROTO_VERSION, ESC_MSG_PENDING, text, strlen(text));
}

void
esc_payload_frame_output(struct proto_buf *b, uint8_t stream, const void *data, size_t len)
{
	struct proto_buf t = { NULL, 0, 0 };

	LZ_ASSERT(len <= ESC_OUTPUT_MAX);
	put_bytes(&t, &stream, 1);
	put_bytes(&t, data, len);
	proto_encode_raw(b, PROTO_VERSION, ESC_MSG_OUTPUT, t.data, t.len);
	free(t.data);
}

void
esc_payload_frame_result(struct proto_buf *b, const struct esc_payload_result *r)
{
	struct proto_buf t = { NULL, 0, 0 };
	uint8_t o = (uint8_t)r->outcome;
	const char *m = r->message != NULL ? r->message : "";
	size_t n = strnlen(m, 4096);

	put_bytes(&t, &o, 1);
	put_be(&t, (uint32_t)r->status, 4);
	put_be(&t, n, 4);
	put_bytes(&t, m, n);
	proto_encode_raw(b, PROTO_VERSION, ESC_MSG_RESULT, t.data, t.len);
	free(t.data);
}

int
esc_payload_decode_output(const uint8_t *p, size_t len, uint8_t *stream,
    const uint8_t **data, size_t *dlen, lz_err_t *err)
{
	if (len < 1 || len - 1 > ESC_OUTPUT_MAX || (p[0] != 1 && p[0] != 2))
		return lz_err_set(err, LZ_EINVAL, "bad OUTPUT frame");
	*stream = p[0];
	*data = p + 1;
	*dlen = len - 1;
	return 0;
}

static int
text_dup(const uint8_t *p, size_t n, char **out, lz_err_t *err)
{
	if (n > 4096 || memchr(p, '\0', n) != NULL)
		return lz_err_set(err, LZ_EINVAL, "bad text in frame");
	*out = xstrndup((const char *)p, n);
	return 0;
}

int
esc_payload_decode_result(const uint8_t *p, size_t len, struct esc_payload_result *out, lz_err_t *err)
{
	uint32_t n;

	memset(out, 0, sizeof *out);
	if (len < 9 || p[0] > ESC_OUTCOME_FAILED)
		return lz_err_set(err, LZ_EINVAL, "bad RESULT frame");
	n = (uint32_t)p[5] << 24 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 8 | p[8];
	if (n != len - 9)
		return lz_err_set(err, LZ_EINVAL, "bad RESULT frame length");
	out->outcome = (enum esc_payload_outcome)p[0];
	out->status = (int32_t)((uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 8 | p[4]);
	return text_dup(p + 9, n, &out->message, err);
}

int
esc_payload_decode_text(const uint8_t *p, size_t len, char **out, lz_err_t *err)
{
	return text_dup(p, len, out, err);
}

void
esc_payload_result_clear(struct esc_payload_result *r)
{
	if (r == NULL)
		return;
	free(r->message);
	memset(r, 0, sizeof *r);
}
