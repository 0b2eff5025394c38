/* httpreq.h - the credential broker's HTTP/1.1 request reader: a pure
 * function over the bytes the agent sent (no I/O, fuzzable), strict on
 * purpose. The broker forwards one request per connection to one upstream,
 * so anything that could address another host or smuggle a second request
 * (absolute-form or authority-form targets, CONNECT, Upgrade, obs-fold,
 * Content-Length with Transfer-Encoding, a Host naming someone else) is
 * refused here, with the HTTP status and a one-line reason for the agent.
 */
#ifndef LZ_HTTPREQ_H
#define LZ_HTTPREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTTPREQ_HEAD_MAX	32768	/* request line and headers, bytes */
#define HTTPREQ_TARGET_MAX	4096
#define HTTPREQ_MAX_HEADERS	100
#define HTTPREQ_METHOD_MAX	16

struct httpreq_span {
	uint32_t off, len;	/* into the buffer given to httpreq_parse */
};

struct httpreq_hdr {
	struct httpreq_span name, value;	/* value without surrounding spaces */
};

struct httpreq {
	size_t head_len;	/* bytes up to and with the blank line */
	char method[HTTPREQ_METHOD_MAX];
	struct httpreq_span target;	/* origin-form: starts with '/' */
	struct httpreq_hdr hdr[HTTPREQ_MAX_HEADERS];
	size_t nhdr;
	int host;		/* index of the Host header, -1: none */
	bool chunked;		/* Transfer-Encoding: chunked */
	bool has_length;
	uint64_t length;	/* Content-Length */
	int status;		/* on refusal: the HTTP status to answer */
	const char *reason;	/* on refusal: one line, static */
};

/* Read a request head from buf[0..len). Returns 1 when a whole head was read
 * and accepted (r filled), 0 when more bytes are needed (len below the
 * bound), -1 when refused (r->status, r->reason). */
int httpreq_parse(const uint8_t *buf, size_t len, struct httpreq *r);

/* Whether the header is name (case-insensitive). */
bool httpreq_hdr_is(const uint8_t *buf, const struct httpreq_hdr *h, const char *name);

/* Whether "METHOD /prefix" rules allow the request: n == 0 allows all; a
 * prefix matches at a path boundary ("/v1/messages" allows
 * "/v1/messages?x", "/v1/messages/count" but not "/v1/messagesX"). */
bool httpreq_allowed(const struct httpreq *r, const uint8_t *buf, char *const *rules, size_t n);

/* A chunked body, read incrementally so that the broker forwards exactly
 * the body and nothing pipelined after it. */
struct httpreq_chunk {
	int state;
	uint64_t left;		/* data bytes left in the current chunk */
	unsigned digits;
	bool done;
};

/* Consume up to len body bytes; returns how many belong to the body (<= len)
 * or -1 on malformed framing. c->done once the last chunk and trailers end. */
long httpreq_chunk_scan(struct httpreq_chunk *c, const uint8_t *buf, size_t len);
/* The same, also appending the chunks' data to out (up to cap; *outlen
 * counts what is there), for a reader that must see the body itself. */
long httpreq_chunk_data(struct httpreq_chunk *c, const uint8_t *buf, size_t len, uint8_t *out,
    size_t cap, size_t *outlen);

#endif
