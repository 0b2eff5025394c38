/* side-dns.c - the sandbox's only resolver: names outside the policy are
 * refused here and never leave the namespace; allowed names are forwarded to
 * the upstream resolver and their addresses are in the nft sets before the
 * answer goes back, so the first connect works. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "side.h"

#define DNS_BUF 65536

int
side_dns_open(struct side *s, lz_err_t *err)
{
	int one = 1;
	uint32_t mark = SIDE_MARK;

	s->dns_fd = socket(s->dns_listen.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->dns_fd < 0)
		return lz_err_sys(err, errno, "dns: socket");
	setsockopt(s->dns_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(s->dns_fd, (struct sockaddr *)&s->dns_listen, s->dns_listen_len) < 0)
		return lz_err_sys(err, errno, "dns: bind the resolver address");
	s->up_fd = socket(s->upstream.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->up_fd < 0)
		return lz_err_sys(err, errno, "dns: upstream socket");
	/* Only this marked socket may reach the upstream (side-nft.c). */
	if (setsockopt(s->up_fd, SOL_SOCKET, SO_MARK, &mark, sizeof mark) < 0)
		return lz_err_sys(err, errno, "dns: marking the upstream socket (needs CAP_NET_ADMIN)");
	/* Connected: the kernel drops answers from any other source. */
	if (connect(s->up_fd, (struct sockaddr *)&s->upstream, s->upstream_len) < 0)
		return lz_err_sys(err, errno, "dns: upstream address");
	return 0;
}

static void
dns_reply(struct side *s, const uint8_t *q, const struct dns_msg *m, unsigned rcode,
    const struct sockaddr_storage *to, socklen_t tolen)
{
	uint8_t out[512];
	size_t n = dns_reply_empty(q, m, rcode, out, sizeof out);

	if (n > 0)
		(void)sendto(s->dns_fd, out, n, MSG_DONTWAIT, (const struct sockaddr *)to, tolen);
}

static void
dns_event(struct side *s, bool allowed, const char *name, unsigned qtype, const char *rule,
    uint32_t count)
{
	struct netctl_event ev = { .kind = NETCTL_EV_DNS, .allowed = allowed, .proto = qtype,
		.count = count };

	snprintf(ev.name, sizeof ev.name, "%s", name);
	snprintf(ev.rule, sizeof ev.rule, "%s", rule);
	side_event(s, &ev);
}

static struct side_pending *
dns_slot(struct side *s)
{
	for (size_t i = 0; i < SIDE_MAX_PENDING; i++)
		if (!s->pending[i].used)
			return &s->pending[i];
	return NULL;
}

static uint16_t
dns_new_id(struct side *s)
{
	uint16_t id;

	for (;;) {
		bool taken = false;

		if (getrandom(&id, sizeof id, 0) != sizeof id)
			id = (uint16_t)(side_now_ms() * 2654435761u >> 16);
		for (size_t i = 0; i < SIDE_MAX_PENDING && !taken; i++)
			taken = s->pending[i].used && s->pending[i].up_id == id;
		if (!taken)
			return id;
	}
}

/* once: forward even though the name is outside the policy (a human said
 * so for this query); its addresses become hints, not allowed addresses.
 * What goes upstream is the question alone (dns_query_build): records or
 * bytes the agent put after it never leave the namespace. */
static void
dns_one_query(struct side *s, uint8_t *buf, size_t len, const struct sockaddr_storage *from,
    socklen_t fromlen, bool once)
{
	lz_err_t err = LZ_ERR_INIT;
	struct dns_msg m;
	struct side_pending *p;
	uint16_t ports[EGRESS_MAX_PORTS];
	uint8_t up[512];
	size_t np, uplen;
	bool any;

	if (dns_parse(buf, len, &m, &err) < 0) {
		char why[96];

		/* Hostile or broken: dropped, and said in the egress log. */
		snprintf(why, sizeof why, "malformed query: %s", err.msg);
		dns_event(s, false, "", 0, why, 0);
		lz_err_clear(&err);
		return;
	}
	if (dns_is_response(&m))
		goto out;
	if ((m.flags & 0x7800) != 0 || m.qclass != DNS_CLASS_IN) {
		dns_reply(s, buf, &m, DNS_RCODE_REFUSED, from, fromlen);
		dns_event(s, false, m.qname, m.qtype, "not a standard query", 0);
		goto out;
	}
	if (!once && side_policy_name_ports(&s->pol, m.qname, &any, ports, &np) == NULL) {
		/* Outside the policy: held while a human is asked, or answered here;
		 * never forwarded without a decision (a lookup's other types follow
		 * the decision on its first). */
		enum side_q q = s->ask->query(s, m.qname, m.qtype, buf, len, from, fromlen);

		if (q == SIDE_Q_HELD)
			goto out;
		if (q == SIDE_Q_REFUSE) {
			dns_reply(s, buf, &m, DNS_RCODE_REFUSED, from, fromlen);
			dns_event(s, false, m.qname, m.qtype, "not in policy", 0);
			goto out;
		}
		once = true;
	}
	if ((p = dns_slot(s)) == NULL || m.question_end > sizeof p->q) {
		dns_reply(s, buf, &m, DNS_RCODE_SERVFAIL, from, fromlen);
		goto out;
	}
	memset(p, 0, sizeof *p);
	p->used = true;
	p->once = once;
	p->client_id = m.id;
	p->up_id = dns_new_id(s);
	p->client = *from;
	p->client_len = fromlen;
	p->deadline_ms = side_now_ms() + SIDE_DNS_TIMEOUT_MS;
	memcpy(p->qname, m.qname, sizeof p->qname);
	p->qtype = m.qtype;
	memcpy(p->q, buf, m.question_end);
	p->qm = m;
	p->qm.rr = NULL;
	p->qm.nrr = p->qm.rr_cap = 0;
	/* Only the question leaves: rebuilt from the parsed name, under our id. */
	if ((uplen = dns_query_build(&m, p->up_id, up, sizeof up)) == 0 ||
	    send(s->up_fd, up, uplen, MSG_DONTWAIT) < 0) {
		dns_reply(s, p->q, &p->qm, DNS_RCODE_SERVFAIL, from, fromlen);
		p->used = false;
	}
out:
	dns_msg_clear(&m);
}

void
side_dns_query(struct side *s)
{
	static uint8_t buf[DNS_BUF];

	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage from;
		socklen_t fromlen = sizeof from;
		ssize_t n = recvfrom(s->dns_fd, buf, sizeof buf, MSG_DONTWAIT,
		    (struct sockaddr *)&from, &fromlen);

		if (n < 0)
			return;
		dns_one_query(s, buf, (size_t)n, &from, fromlen, false);
	}
}

void
side_dns_release(struct side *s, const uint8_t *q, size_t len,
    const struct sockaddr_storage *from, socklen_t fromlen, bool once)
{
	uint8_t buf[512];

	if (len > sizeof buf)
		return;
	memcpy(buf, q, len);
	dns_one_query(s, buf, len, from, fromlen, once);
}

void
side_dns_refuse(struct side *s, const uint8_t *q, size_t len,
    const struct sockaddr_storage *from, socklen_t fromlen)
{
	lz_err_t err = LZ_ERR_INIT;
	struct dns_msg m;

	if (dns_parse(q, len, &m, &err) < 0) {
		lz_err_clear(&err);
		return;
	}
	dns_reply(s, q, &m, DNS_RCODE_REFUSED, from, fromlen);
	dns_msg_clear(&m);
}

/* An answer to a query approved once: its addresses are remembered as the
 * name's, so a connection to one is asked about under that name. */
static void
dns_hints(struct side *s, const struct dns_msg *m, const char *qname, uint32_t *count)
{
	struct dns_addr a[DNS_MAX_ADDRS];
	size_t n = dns_answer_addrs(m, a, DNS_MAX_ADDRS);
	uint64_t now = side_now_ms();

	for (size_t i = 0; i < n; i++) {
		uint32_t ttl = a[i].ttl < s->ttl_floor ? s->ttl_floor : a[i].ttl;

		if (ttl > SIDE_TTL_CEIL)
			ttl = SIDE_TTL_CEIL;
		side_hint_put(s, a[i].family, a[i].addr, qname, now + (uint64_t)ttl * 1000);
	}
	*count = (uint32_t)n;
}

/* Put an answer's addresses into the sets; 0, or -1 when nft refused. */
static int
dns_learn(struct side *s, const struct dns_msg *m, const char *qname, uint32_t *count)
{
	struct dns_addr a[DNS_MAX_ADDRS];
	const struct side_learned *l[DNS_MAX_ADDRS];
	size_t n = dns_answer_addrs(m, a, DNS_MAX_ADDRS), nl = 0;
	uint16_t ports[EGRESS_MAX_PORTS];
	size_t np;
	bool any;
	lz_err_t err = LZ_ERR_INIT;
	uint64_t now = side_now_ms();

	if (side_policy_name_ports(&s->pol, qname, &any, ports, &np) == NULL)
		return -1;	/* the policy changed while the query was out */
	for (size_t i = 0; i < n && nl < SIDE_LEARN_MAX; i++) {
		uint32_t ttl = a[i].ttl;

		/* A name must not open the host, link-local or metadata (DNS rebinding). */
		if (egress_addr_guard(a[i].family, a[i].addr) != NULL ||
		    side_host_find(s, a[i].family, a[i].addr))
			continue;
		if (ttl < s->ttl_floor)
			ttl = s->ttl_floor;
		if (ttl > SIDE_TTL_CEIL)
			ttl = SIDE_TTL_CEIL;
		l[nl++] = side_learned_put(s, a[i].family, a[i].addr, qname, ports, any ? 0 : np,
		    now + (uint64_t)ttl * 1000);
	}
	*count = (uint32_t)nl;
	if (side_nft_learn(s, l, nl, &err) < 0) {
		fprintf(stderr, "lazaret-sidecar: %s\n", err.msg);
		lz_err_clear(&err);
		return -1;
	}
	return 0;
}

void
side_dns_answer(struct side *s)
{
	static uint8_t buf[DNS_BUF];

	for (int i = 0; i < 64; i++) {
		lz_err_t err = LZ_ERR_INIT;
		struct dns_msg m;
		struct side_pending *p = NULL;
		ssize_t n = recv(s->up_fd, buf, sizeof buf, MSG_DONTWAIT);
		uint32_t count = 0;

		if (n < 0)
			return;
		if (dns_parse(buf, (size_t)n, &m, &err) < 0) {
			/* A hostile or broken answer: the client gets SERVFAIL. */
			if (n >= 2)
				for (size_t k = 0; k < SIDE_MAX_PENDING && p == NULL; k++)
					if (s->pending[k].used &&
					    s->pending[k].up_id == (uint16_t)(buf[0] << 8 | buf[1]))
						p = &s->pending[k];
			fprintf(stderr, "lazaret-sidecar: upstream answer rejected: %s\n", err.msg);
			lz_err_clear(&err);
			if (p != NULL) {
				dns_reply(s, p->q, &p->qm, DNS_RCODE_SERVFAIL, &p->client, p->client_len);
				dns_event(s, false, p->qname, p->qtype, "bad upstream answer", 0);
				p->used = false;
			}
			continue;
		}
		for (size_t k = 0; k < SIDE_MAX_PENDING && p == NULL; k++)
			if (s->pending[k].used && s->pending[k].up_id == m.id &&
			    s->pending[k].qtype == m.qtype && strcmp(s->pending[k].qname, m.qname) == 0)
				p = &s->pending[k];
		if (p == NULL || !dns_is_response(&m)) {
			dns_msg_clear(&m);
			continue;
		}
		if (p->once) {
			if (dns_rcode(&m) == DNS_RCODE_NOERROR)
				dns_hints(s, &m, p->qname, &count);
			buf[0] = (uint8_t)(p->client_id >> 8);
			buf[1] = (uint8_t)p->client_id;
			(void)sendto(s->dns_fd, buf, (size_t)n, MSG_DONTWAIT,
			    (struct sockaddr *)&p->client, p->client_len);
			dns_event(s, true, p->qname, p->qtype, "approved once", count);
		} else if (dns_rcode(&m) == DNS_RCODE_NOERROR && dns_learn(s, &m, p->qname, &count) < 0) {
			dns_reply(s, p->q, &p->qm, DNS_RCODE_SERVFAIL, &p->client, p->client_len);
			dns_event(s, false, p->qname, p->qtype, "could not add the addresses", 0);
		} else {
			bool any;
			uint16_t ports[EGRESS_MAX_PORTS];
			size_t np;
			const char *rule = side_policy_name_ports(&s->pol, p->qname, &any, ports, &np);

			buf[0] = (uint8_t)(p->client_id >> 8);
			buf[1] = (uint8_t)p->client_id;
			(void)sendto(s->dns_fd, buf, (size_t)n, MSG_DONTWAIT,
			    (struct sockaddr *)&p->client, p->client_len);
			dns_event(s, true, p->qname, p->qtype, rule ? rule : "", count);
		}
		p->used = false;
		dns_msg_clear(&m);
	}
}

void
side_dns_expire(struct side *s)
{
	uint64_t now = side_now_ms();

	for (size_t i = 0; i < SIDE_MAX_PENDING; i++) {
		struct side_pending *p = &s->pending[i];

		if (!p->used || p->deadline_ms > now)
			continue;
		dns_reply(s, p->q, &p->qm, DNS_RCODE_SERVFAIL, &p->client, p->client_len);
		dns_event(s, false, p->qname, p->qtype, "upstream timeout", 0);
		p->used = false;
	}
}

int
side_dns_timeout_ms(struct side *s)
{
	uint64_t now = side_now_ms(), next = UINT64_MAX;

	for (size_t i = 0; i < SIDE_MAX_PENDING; i++)
		if (s->pending[i].used && s->pending[i].deadline_ms < next)
			next = s->pending[i].deadline_ms;
	if (next == UINT64_MAX)
		return -1;
	return next <= now ? 0 : (int)(next - now);
}
