/* dns.c - the sidecar's DNS parser (pure; see dns.h for the rules it keeps). */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "dns.h"
#include "xmalloc.h"

static uint16_t
dns_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
dns_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Decode the name at *off into out (DNS_NAME_MAX + 1 bytes), lower case, bytes
 * outside [a-z0-9_-] as '?' so they never match a policy pattern. *off moves
 * past the name as written at that place (a pointer counts 2 bytes). */
static int
dns_name(const uint8_t *buf, size_t len, size_t *off, char *out, lz_err_t *err)
{
	size_t pos = *off, end = 0, limit = *off, n = 0;
	int jumped = 0;

	for (;;) {
		uint8_t l;

		if (pos >= len)
			return lz_err_set(err, LZ_EINVAL, "dns: name at offset %zu runs past the end", *off);
		l = buf[pos];
		if ((l & 0xc0) == 0xc0) {
			size_t ptr;

			if (pos + 1 >= len)
				return lz_err_set(err, LZ_EINVAL, "dns: compression pointer at offset %zu cut short", pos);
			ptr = (size_t)(l & 0x3f) << 8 | buf[pos + 1];
			/* Strictly backwards from every place visited: no loop can form. */
			if (ptr >= limit)
				return lz_err_set(err, LZ_EINVAL,
				    "dns: compression pointer at offset %zu does not point back (%zu)", pos, ptr);
			if (!jumped)
				end = pos + 2;
			jumped = 1;
			limit = ptr;
			pos = ptr;
			continue;
		}
		if (l & 0xc0)
			return lz_err_set(err, LZ_EINVAL, "dns: reserved label type 0x%02x at offset %zu", l, pos);
		if (l == 0) {
			pos++;
			break;
		}
		if (l > len - pos - 1)
			return lz_err_set(err, LZ_EINVAL, "dns: label at offset %zu runs past the end", pos);
		if (n + (n > 0) + l > DNS_NAME_MAX)
			return lz_err_set(err, LZ_EINVAL, "dns: name at offset %zu longer than %d bytes",
			    *off, DNS_NAME_MAX);
		if (n > 0)
			out[n++] = '.';
		for (size_t i = 0; i < l; i++) {
			uint8_t c = buf[pos + 1 + i];

			if (c >= 'A' && c <= 'Z')
				c = (uint8_t)(c - 'A' + 'a');
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
				c = '?';
			out[n++] = (char)c;
		}
		pos += 1 + (size_t)l;
	}
	out[n] = '\0';
	*off = jumped ? end : pos;
	return 0;
}

void
dns_msg_clear(struct dns_msg *m)
{
	free(m->rr);
	memset(m, 0, sizeof *m);
}

static struct dns_rr *
dns_keep(struct dns_msg *m)
{
	if (m->nrr == m->rr_cap) {
		m->rr_cap = m->rr_cap == 0 ? 8 : m->rr_cap * 2;
		m->rr = xreallocarray(m->rr, m->rr_cap, sizeof *m->rr);
	}
	memset(&m->rr[m->nrr], 0, sizeof m->rr[0]);
	return &m->rr[m->nrr++];
}

static int
dns_answer(const uint8_t *buf, size_t len, size_t *off, struct dns_msg *m, unsigned i,
    lz_err_t *err)
{
	char name[DNS_NAME_MAX + 1];
	uint16_t type, class, rdlen;
	uint32_t ttl;
	size_t rd;
	struct dns_rr *rr;

	if (dns_name(buf, len, off, name, err) < 0)
		return lz_err_wrap(err, "answer %u", i);
	if (len - *off < 10)
		return lz_err_set(err, LZ_EINVAL, "dns: answer %u: record header runs past the end", i);
	type = dns_get16(buf + *off);
	class = dns_get16(buf + *off + 2);
	ttl = dns_get32(buf + *off + 4);
	rdlen = dns_get16(buf + *off + 8);
	rd = *off + 10;
	if (rdlen > len - rd)
		return lz_err_set(err, LZ_EINVAL, "dns: answer %u: data length %u runs past the end", i,
		    rdlen);
	*off = rd + rdlen;
	if (ttl & 0x80000000u)	/* RFC 2181 8: a TTL with the top bit set is zero */
		ttl = 0;
	if (class != DNS_CLASS_IN || (type != DNS_TYPE_A && type != DNS_TYPE_AAAA &&
	    type != DNS_TYPE_CNAME) || m->nrr >= DNS_MAX_KEEP) {
		m->skipped++;
		return 0;
	}
	if ((type == DNS_TYPE_A && rdlen != 4) || (type == DNS_TYPE_AAAA && rdlen != 16))
		return lz_err_set(err, LZ_EINVAL, "dns: answer %u: %s record of %u bytes", i,
		    type == DNS_TYPE_A ? "A" : "AAAA", rdlen);
	rr = dns_keep(m);
	rr->type = type;
	rr->ttl = ttl;
	memcpy(rr->name, name, sizeof name);
	if (type == DNS_TYPE_CNAME) {
		size_t t = rd;

		if (dns_name(buf, len, &t, rr->u.target, err) < 0)
			return lz_err_wrap(err, "answer %u: CNAME", i);
		if (t != rd + rdlen)
			return lz_err_set(err, LZ_EINVAL, "dns: answer %u: CNAME name does not fill its %u bytes",
			    i, rdlen);
	} else
		memcpy(rr->u.addr, buf + rd, rdlen);
	return 0;
}

/* Whether a query's answer, authority or additional section holds an OPT
 * record; stops quietly at the first record that does not parse. */
static bool
dns_query_has_opt(const uint8_t *buf, size_t len, size_t off)
{
	unsigned an = dns_get16(buf + 6), ns = dns_get16(buf + 8), ar = dns_get16(buf + 10);
	char name[DNS_NAME_MAX + 1];
	lz_err_t err = LZ_ERR_INIT;

	for (unsigned i = 0; i < an + ns + ar; i++) {
		uint16_t type, rdlen;

		if (dns_name(buf, len, &off, name, &err) < 0 || len - off < 10) {
			lz_err_clear(&err);
			return false;
		}
		type = dns_get16(buf + off);
		rdlen = dns_get16(buf + off + 8);
		if (rdlen > len - off - 10)
			return false;
		if (type == DNS_TYPE_OPT && i >= an + ns)
			return true;
		off += 10 + (size_t)rdlen;
	}
	return false;
}

int
dns_parse(const uint8_t *buf, size_t len, struct dns_msg *m, lz_err_t *err)
{
	size_t off = DNS_HEADER_LEN;

	memset(m, 0, sizeof *m);
	if (len < DNS_HEADER_LEN)
		return lz_err_set(err, LZ_EINVAL, "dns: message of %zu bytes is shorter than a header", len);
	m->id = dns_get16(buf);
	m->flags = dns_get16(buf + 2);
	m->qdcount = dns_get16(buf + 4);
	m->ancount = dns_get16(buf + 6);
	if (m->qdcount != 1)
		return lz_err_set(err, LZ_EINVAL, "dns: %u questions (expected 1)", m->qdcount);
	if (dns_name(buf, len, &off, m->qname, err) < 0)
		return lz_err_wrap(err, "question");
	if (len - off < 4)
		return lz_err_set(err, LZ_EINVAL, "dns: question type and class run past the end");
	m->qtype = dns_get16(buf + off);
	m->qclass = dns_get16(buf + off + 2);
	off += 4;
	m->question_end = off;
	if (!dns_is_response(m)) {
		m->edns = dns_query_has_opt(buf, len, off);
		return 0;
	}
	for (unsigned i = 0; i < m->ancount; i++)
		if (dns_answer(buf, len, &off, m, i, err) < 0) {
			free(m->rr);
			m->rr = NULL;
			m->nrr = m->rr_cap = 0;
			return -1;
		}
	return 0;
}

static bool
dns_in_chain(char chain[][DNS_NAME_MAX + 1], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(chain[i], name) == 0)
			return true;
	return false;
}

size_t
dns_answer_addrs(const struct dns_msg *m, struct dns_addr *out, size_t max)
{
	char chain[DNS_MAX_CNAMES + 1][DNS_NAME_MAX + 1];
	size_t nchain = 1, n = 0;
	bool grew = true;

	memcpy(chain[0], m->qname, sizeof chain[0]);
	/* Follow CNAMEs in any order the server wrote them, hop by hop. */
	while (grew && nchain <= DNS_MAX_CNAMES) {
		grew = false;
		for (size_t i = 0; i < m->nrr && nchain <= DNS_MAX_CNAMES; i++) {
			const struct dns_rr *r = &m->rr[i];

			if (r->type == DNS_TYPE_CNAME && strcmp(r->name, chain[nchain - 1]) == 0 &&
			    !dns_in_chain(chain, nchain, r->u.target)) {
				memcpy(chain[nchain++], r->u.target, sizeof chain[0]);
				grew = true;
			}
		}
	}
	for (size_t i = 0; i < m->nrr && n < max; i++) {
		const struct dns_rr *r = &m->rr[i];

		if ((r->type != DNS_TYPE_A && r->type != DNS_TYPE_AAAA) ||
		    !dns_in_chain(chain, nchain, r->name))
			continue;
		out[n].family = r->type == DNS_TYPE_A ? AF_INET : AF_INET6;
		memset(out[n].addr, 0, sizeof out[n].addr);
		memcpy(out[n].addr, r->u.addr, r->type == DNS_TYPE_A ? 4 : 16);
		out[n].ttl = r->ttl;
		n++;
	}
	return n;
}

static void
dns_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

size_t
dns_query_build(const struct dns_msg *m, uint16_t id, uint8_t *out, size_t cap)
{
	size_t n = DNS_HEADER_LEN;
	const char *p = m->qname;

	/* Header 12, name at most 257, type and class 4, OPT 11. */
	if (cap < DNS_HEADER_LEN + DNS_NAME_MAX + 2 + 4 + 11)
		return 0;
	memset(out, 0, DNS_HEADER_LEN);
	dns_put16(out, id);
	dns_put16(out + 2, 0x0100);	/* a standard query, recursion desired */
	dns_put16(out + 4, 1);
	dns_put16(out + 10, m->edns ? 1 : 0);
	/* The parsed name: lower case, odd bytes already '?', labels 1..63. */
	while (*p != '\0') {
		const char *dot = strchr(p, '.');
		size_t l = dot != NULL ? (size_t)(dot - p) : strlen(p);

		if (l == 0 || l > 63)
			return 0;
		out[n++] = (uint8_t)l;
		memcpy(out + n, p, l);
		n += l;
		p += l + (dot != NULL);
	}
	out[n++] = 0;
	dns_put16(out + n, m->qtype);
	dns_put16(out + n + 2, m->qclass);
	n += 4;
	if (m->edns) {
		/* Root owner, OPT, our payload size, rcode/version/flags 0, no options. */
		out[n++] = 0;
		dns_put16(out + n, DNS_TYPE_OPT);
		dns_put16(out + n + 2, DNS_EDNS_SIZE);
		memset(out + n + 4, 0, 6);
		n += 10;
	}
	return n;
}

size_t
dns_reply_empty(const uint8_t *qbuf, const struct dns_msg *m, unsigned rcode, uint8_t *out,
    size_t cap)
{
	uint16_t flags;

	if (m->question_end < DNS_HEADER_LEN || cap < m->question_end)
		return 0;
	memcpy(out, qbuf, m->question_end);
	/* QR, the query's opcode and RD, RA, the rcode. */
	flags = (uint16_t)(0x8000 | (m->flags & 0x7900) | 0x0080 | (rcode & 0xf));
	out[2] = (uint8_t)(flags >> 8);
	out[3] = (uint8_t)flags;
	out[4] = 0, out[5] = 1;
	memset(out + 6, 0, 6);
	return m->question_end;
}
