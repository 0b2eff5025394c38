/* httpreq.c - the credential broker's HTTP/1.1 request reader (httpreq.h).
 * Every length is checked against the buffer before a byte is read. */
#include <string.h>
#include <strings.h>

#include "httpreq.h"

static int
refuse(struct httpreq *r, int status, const char *reason)
{
	r->status = status;
	r->reason = reason;
	return -1;
}

static bool
is_tchar(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* A target's byte: visible ASCII, no backslash (some servers read it as '/'). */
static bool
is_target_char(uint8_t c)
{
	return c > 0x20 && c < 0x7f && c != '\\' && c != '#';
}

bool
httpreq_hdr_is(const uint8_t *buf, const struct httpreq_hdr *h, const char *name)
{
	size_t n = strlen(name);

	return h->name.len == n && strncasecmp((const char *)buf + h->name.off, name, n) == 0;
}

static bool
span_is(const uint8_t *buf, struct httpreq_span s, const char *v)
{
	size_t n = strlen(v);

	return s.len == n && strncasecmp((const char *)buf + s.off, v, n) == 0;
}

/* Whether a token list ("keep-alive, Upgrade") holds tok. */
static bool
list_has(const uint8_t *buf, struct httpreq_span s, const char *tok)
{
	size_t i = 0, n = strlen(tok);
	const char *p = (const char *)buf + s.off;

	while (i < s.len) {
		size_t b, e;

		while (i < s.len && (p[i] == ' ' || p[i] == '\t' || p[i] == ','))
			i++;
		b = i;
		while (i < s.len && p[i] != ',')
			i++;
		e = i;
		while (e > b && (p[e - 1] == ' ' || p[e - 1] == '\t'))
			e--;
		if (e - b == n && strncasecmp(p + b, tok, n) == 0)
			return true;
	}
	return false;
}

/* The path part must not climb: no "." or ".." segment, plain or %-encoded,
 * so that a prefix rule means what it says at the upstream too. */
static bool
path_ok(const uint8_t *t, size_t len)
{
	size_t i = 0;

	for (i = 0; i < len && t[i] != '?'; i++) {
		if (t[i] == '%' && i + 2 < len) {
			/* %2e, %2f, %5c: an encoded dot or slash hides a segment */
			if (t[i + 1] == '2' && (t[i + 2] == 'e' || t[i + 2] == 'E' ||
			    t[i + 2] == 'f' || t[i + 2] == 'F'))
				return false;
			if (t[i + 1] == '5' && (t[i + 2] == 'c' || t[i + 2] == 'C'))
				return false;
		}
		if (t[i] == '/' && i + 1 < len && t[i + 1] == '/')
			return false;
		if (t[i] == '/' && i + 1 < len && t[i + 1] == '.') {
			size_t j = i + 2;

			if (j < len && t[j] == '.')
				j++;
			if (j == len || t[j] == '/' || t[j] == '?')
				return false;
		}
	}
	return true;
}

static int
parse_length(const uint8_t *buf, struct httpreq_span s, uint64_t *out)
{
	uint64_t v = 0;

	if (s.len == 0 || s.len > 15)
		return -1;
	for (uint32_t i = 0; i < s.len; i++) {
		uint8_t c = buf[s.off + i];

		if (c < '0' || c > '9')
			return -1;
		v = v * 10 + (uint64_t)(c - '0');
	}
	*out = v;
	return 0;
}

int
httpreq_parse(const uint8_t *buf, size_t len, struct httpreq *r)
{
	size_t i, end = 0, line_end;
	size_t mlen;

	memset(r, 0, sizeof *r);
	r->host = -1;
	/* The head ends at the first blank line; bounded before anything else. */
	for (i = 0; i + 3 < len && i + 4 <= HTTPREQ_HEAD_MAX; i++)
		if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') {
			end = i + 4;
			break;
		}
	if (end == 0)
		return len >= HTTPREQ_HEAD_MAX ? refuse(r, 431, "request head over 32 KiB") : 0;
	r->head_len = end;

	/* request line: METHOD SP origin-form SP HTTP/1.1 CRLF */
	for (mlen = 0; mlen < end && is_tchar(buf[mlen]); mlen++)
		;
	if (mlen == 0 || mlen >= HTTPREQ_METHOD_MAX || buf[mlen] != ' ')
		return refuse(r, 400, "malformed request line");
	memcpy(r->method, buf, mlen);
	r->method[mlen] = '\0';
	if (strcmp(r->method, "CONNECT") == 0)
		return refuse(r, 405, "CONNECT refused: the broker only talks to its own upstream");
	i = mlen + 1;
	r->target.off = (uint32_t)i;
	while (i < end && is_target_char(buf[i]))
		i++;
	r->target.len = (uint32_t)(i - r->target.off);
	if (r->target.len == 0 || buf[i] != ' ')
		return refuse(r, 400, "malformed request target");
	if (r->target.len > HTTPREQ_TARGET_MAX)
		return refuse(r, 414, "request target over 4 KiB");
	if (buf[r->target.off] != '/')
		return refuse(r, 400, "only origin-form targets (/path): absolute URLs and "
		    "authorities are refused, the broker talks to its own upstream only");
	if (!path_ok(buf + r->target.off, r->target.len))
		return refuse(r, 400, "a path with '.', '..', '//' or encoded '/', '.' or '\\' "
		    "segments is refused");
	i++;
	if (end - i < 10 || memcmp(buf + i, "HTTP/1.1\r\n", 10) != 0)
		return refuse(r, 505, "only HTTP/1.1 is brokered");
	i += 10;

	/* headers: name ":" OWS value OWS CRLF; no obs-fold */
	while (i < end - 2) {
		struct httpreq_hdr *h;
		size_t b, ve;

		for (line_end = i; line_end + 1 < end && !(buf[line_end] == '\r' &&
		    buf[line_end + 1] == '\n'); line_end++)
			if (buf[line_end] == '\r' || buf[line_end] == '\n' || buf[line_end] == '\0')
				return refuse(r, 400, "a bare CR, LF or NUL in a header");
		if (r->nhdr == HTTPREQ_MAX_HEADERS)
			return refuse(r, 431, "more than 100 headers");
		h = &r->hdr[r->nhdr];
		b = i;
		while (i < line_end && is_tchar(buf[i]))
			i++;
		if (i == b || i == line_end || buf[i] != ':')
			return refuse(r, 400, b < line_end && (buf[b] == ' ' || buf[b] == '\t') ?
			    "folded header lines (obs-fold) are refused" : "malformed header line");
		h->name = (struct httpreq_span){ (uint32_t)b, (uint32_t)(i - b) };
		i++;
		while (i < line_end && (buf[i] == ' ' || buf[i] == '\t'))
			i++;
		ve = line_end;
		while (ve > i && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t'))
			ve--;
		for (size_t k = i; k < ve; k++)
			if (buf[k] < 0x20 && buf[k] != '\t')
				return refuse(r, 400, "a control byte in a header value");
		h->value = (struct httpreq_span){ (uint32_t)i, (uint32_t)(ve - i) };
		r->nhdr++;
		i = line_end + 2;

		if (httpreq_hdr_is(buf, h, "host")) {
			if (r->host >= 0)
				return refuse(r, 400, "more than one Host header");
			r->host = (int)(r->nhdr - 1);
		} else if (httpreq_hdr_is(buf, h, "content-length")) {
			uint64_t v;

			if (parse_length(buf, h->value, &v) < 0)
				return refuse(r, 400, "malformed Content-Length");
			if (r->has_length && v != r->length)
				return refuse(r, 400, "conflicting Content-Length headers");
			r->has_length = true;
			r->length = v;
		} else if (httpreq_hdr_is(buf, h, "transfer-encoding")) {
			if (r->chunked || !span_is(buf, h->value, "chunked"))
				return refuse(r, 501, "only 'Transfer-Encoding: chunked' is brokered");
			r->chunked = true;
		} else if (httpreq_hdr_is(buf, h, "upgrade")) {
			/* 426, not 400: a client that tries a WebSocket first (Codex's
			 * Responses WebSocket) reads it as "none here" and falls back
			 * to plain HTTP; a 400 ends its turn */
			return refuse(r, 426, "Upgrade refused: the broker forwards plain requests only");
		} else if (httpreq_hdr_is(buf, h, "connection")) {
			if (list_has(buf, h->value, "upgrade"))
				return refuse(r, 426, "Connection: upgrade refused");
		}
	}
	if (r->chunked && r->has_length)
		return refuse(r, 400, "both Content-Length and Transfer-Encoding");
	return 1;
}

bool
httpreq_allowed(const struct httpreq *r, const uint8_t *buf, char *const *rules, size_t n)
{
	const char *t = (const char *)buf + r->target.off;
	size_t tl = r->target.len, pl;

	for (pl = 0; pl < tl && t[pl] != '?'; pl++)
		;
	if (n == 0)
		return true;
	for (size_t i = 0; i < n; i++) {
		const char *sp = strchr(rules[i], ' '), *pre;
		size_t ml, prl;

		if (sp == NULL)
			continue;
		ml = (size_t)(sp - rules[i]);
		pre = sp + 1;
		prl = strlen(pre);
		if (!(ml == 1 && rules[i][0] == '*') &&
		    (strlen(r->method) != ml || memcmp(r->method, rules[i], ml) != 0))
			continue;
		if (prl > pl || memcmp(t, pre, prl) != 0)
			continue;
		/* at a boundary: the whole path, a '/', or the prefix ends in '/' */
		if (prl == pl || t[prl] == '/' || (prl > 0 && pre[prl - 1] == '/'))
			return true;
	}
	return false;
}

enum { CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF, CH_TRAILER,
	CH_TRAILER_LINE, CH_TRAILER_LF, CH_END_LF };

long
httpreq_chunk_scan(struct httpreq_chunk *c, const uint8_t *buf, size_t len)
{
	return httpreq_chunk_data(c, buf, len, NULL, 0, NULL);
}

long
httpreq_chunk_data(struct httpreq_chunk *c, const uint8_t *buf, size_t len, uint8_t *out,
    size_t cap, size_t *outlen)
{
	size_t i = 0;

	while (i < len && !c->done) {
		uint8_t b = buf[i];

		switch (c->state) {
		case CH_SIZE:
			if ((b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F')) {
				if (++c->digits > 15)
					return -1;
				c->left = c->left * 16 + (uint64_t)(b <= '9' ? b - '0' :
				    (b | 0x20) - 'a' + 10);
				i++;
				break;
			}
			if (c->digits == 0)
				return -1;
			c->state = b == ';' ? CH_EXT : b == '\r' ? CH_SIZE_LF : -1;
			if (c->state < 0)
				return -1;
			i++;
			break;
		case CH_EXT:
			if (b == '\r')
				c->state = CH_SIZE_LF;
			else if (b == '\n' || (b < 0x20 && b != '\t'))
				return -1;
			i++;
			break;
		case CH_SIZE_LF:
			if (b != '\n')
				return -1;
			i++;
			c->digits = 0;
			c->state = c->left == 0 ? CH_TRAILER : CH_DATA;
			break;
		case CH_DATA: {
			size_t take = len - i < c->left ? len - i : (size_t)c->left;

			if (out != NULL) {	/* the data, as far as it fits */
				size_t k = cap - *outlen < take ? cap - *outlen : take;

				memcpy(out + *outlen, buf + i, k);
				*outlen += k;
			}
			i += take;
			c->left -= take;
			if (c->left == 0)
				c->state = CH_DATA_CR;
			break;
		}
		case CH_DATA_CR:
			if (b != '\r')
				return -1;
			c->state = CH_DATA_LF;
			i++;
			break;
		case CH_DATA_LF:
			if (b != '\n')
				return -1;
			c->state = CH_SIZE;
			i++;
			break;
		case CH_TRAILER:	/* at the start of a trailer line */
			c->state = b == '\r' ? CH_END_LF : CH_TRAILER_LINE;
			if (b == '\n')
				return -1;
			i++;
			break;
		case CH_TRAILER_LINE:
			if (b == '\r')
				c->state = CH_TRAILER_LF;
			else if (b == '\n')
				return -1;
			i++;
			break;
		case CH_TRAILER_LF:
			if (b != '\n')
				return -1;
			c->state = CH_TRAILER;
			i++;
			break;
		case CH_END_LF:
			if (b != '\n')
				return -1;
			c->done = true;
			i++;
			break;
		default:
			return -1;
		}
	}
	return (long)i;
}
