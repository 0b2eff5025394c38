/* side-broker.c - the credential broker: the agent's plain-HTTP requests to
 * 127.0.0.1:<port> (the namespace's own loopback, which only the sandbox and
 * the router share) are checked (httpreq.c, the entry's allow rules, Host),
 * given the real secret in the entry's header, and forwarded over verified
 * TLS to the entry's upstream; the response is relayed as it arrives, never
 * followed (a redirect goes back to the agent, which holds only a sentinel).
 *
 * Theory of operation: the secrets come from the coordinator on the control
 * socket (NETCTL_CRED_SET), once per router run, into sodium_malloc'd memory
 * (locked from swap, guard pages; wiped by sodium_free at exit). One thread
 * accepts for each entry and one thread serves each connection (bounded),
 * blocking I/O with timeouts, one request per connection ("Connection:
 * close" both ways): nothing pipelined after a request is ever read. Each
 * request's outcome goes to the poll loop through a pipe as one
 * NETCTL_EV_BROKER event (never a header value or a body).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sodium.h>

#include "dns.h"
#include "httpreq.h"
#include "pktline.h"
#include "side.h"
#include "side-broker.h"
#include "strv.h"
#include "xmalloc.h"

#define BROKER_FIELDS		NETCTL_CRED_FIELDS
#define BROKER_MAX_CONNS	64
#define BROKER_IO_TIMEOUT_S	600	/* a stream quiet this long is cut */
#define BROKER_CONNECT_MS	10000
#define BROKER_PUSH_MAX		(64u << 20)	/* a push is read whole before it goes out */


static struct side_broker_cred *broker_creds;
static size_t broker_ncreds;
static atomic_int broker_conns;

struct broker_conn {
	struct side_broker_cred *c;
	int fd;
};

static int
ssl_write_all(SSL *ssl, const void *p, size_t n)
{
	return n == 0 || (n <= INT32_MAX && SSL_write(ssl, p, (int)n) == (int)n) ? 0 : -1;
}

/* The upstream's name, asked of the router's own upstream resolver (its
 * marked socket, like side-dns.c's): an IPv4 address as text, or -1. */
static int
broker_resolve(const struct side_broker_cred *c, char *out, size_t outlen, char *why, size_t whylen)
{
	struct dns_msg q = { .qtype = 1, .qclass = 1 }, a;
	struct dns_addr ad[DNS_MAX_ADDRS];
	uint8_t buf[512];
	uint32_t mark = SIDE_MARK;
	uint16_t id = (uint16_t)randombytes_uniform(65536);
	size_t n;
	ssize_t got;
	struct timeval tv = { 5, 0 };
	lz_err_t err = LZ_ERR_INIT;
	int fd = -1, ret = -1;

	snprintf(q.qname, sizeof q.qname, "%s", c->host);
	if ((n = dns_query_build(&q, id, buf, sizeof buf)) == 0)
		goto fail;
	fd = socket(c->s->upstream.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof mark) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 ||
	    connect(fd, (struct sockaddr *)&c->s->upstream, c->s->upstream_len) < 0 ||
	    send(fd, buf, n, 0) != (ssize_t)n)
		goto fail;
	while ((got = recv(fd, buf, sizeof buf, 0)) > 0) {
		if (dns_parse(buf, (size_t)got, &a, &err) < 0 || a.id != id) {
			lz_err_clear(&err);
			continue;
		}
		n = dns_answer_addrs(&a, ad, DNS_MAX_ADDRS);
		dns_msg_clear(&a);
		for (size_t i = 0; i < n; i++)
			if (ad[i].family == AF_INET && inet_ntop(AF_INET, ad[i].addr, out,
			    (socklen_t)outlen) != NULL) {
				ret = 0;
				goto out;
			}
		break;
	}
fail:
	snprintf(why, whylen, "cannot resolve %s", c->host);
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The upstream's TCP connection, marked so the ruleset lets it out. */
static int
broker_connect(const struct side_broker_cred *c, char *why, size_t whylen)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	uint32_t mark = SIDE_BROKER_MARK;
	struct pollfd p;
	int fd = -1, e = 0;
	socklen_t el = sizeof e;
	char addr[INET6_ADDRSTRLEN];

	snprintf(addr, sizeof addr, "%s", c->addr);
	if (addr[0] == '\0' && broker_resolve(c, addr, sizeof addr, why, whylen) < 0)
		return -1;
	if (inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		ss.ss_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons(c->port);
		len = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		ss.ss_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(c->port);
		len = sizeof(struct sockaddr_in6);
	} else {
		snprintf(why, whylen, "bad upstream address %s", addr);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof mark) < 0)
		goto fail;
	if (connect(fd, (struct sockaddr *)&ss, len) < 0 && errno != EINPROGRESS)
		goto fail;
	p = (struct pollfd){ fd, POLLOUT, 0 };
	if (poll(&p, 1, BROKER_CONNECT_MS) != 1) {
		errno = ETIMEDOUT;
		goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 || e != 0) {
		errno = e;
		goto fail;
	}
	{
		int fl = fcntl(fd, F_GETFL);
		struct timeval tv = { BROKER_IO_TIMEOUT_S, 0 };

		if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
			goto fail;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	}
	return fd;
fail:
	snprintf(why, whylen, "connecting to %s:%u: %s", c->host, c->port, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The Host the agent may name: none, the broker itself, or the upstream. */
static bool
broker_host_ok(const struct side_broker_cred *c, const uint8_t *buf, const struct httpreq *r)
{
	char want[3][300];
	const struct httpreq_span v = r->hdr[r->host].value;

	snprintf(want[0], sizeof want[0], "127.0.0.1:%u", c->listen_port);
	snprintf(want[1], sizeof want[1], "localhost:%u", c->listen_port);
	snprintf(want[2], sizeof want[2], c->port == 443 ? "%s" : "%s:%u", c->host, c->port);
	for (size_t i = 0; i < 3; i++)
		if (v.len == strlen(want[i]) && strncasecmp((const char *)buf + v.off, want[i],
		    v.len) == 0)
			return true;
	return false;
}

/* Headers the broker sets itself or that belong to one hop only. */
static bool
broker_hdr_dropped(const struct side_broker_cred *c, const uint8_t *buf, const struct httpreq_hdr *h)
{
	static const char *const hop[] = { "host", "connection", "keep-alive", "proxy-connection",
		"proxy-authorization", "te", "upgrade", "expect", NULL };

	for (size_t i = 0; hop[i] != NULL; i++)
		if (httpreq_hdr_is(buf, h, hop[i]))
			return true;
	return httpreq_hdr_is(buf, h, c->header);
}

/* The request body: exactly Content-Length bytes, or the chunks to their
 * end (nothing pipelined after it is read), starting with the bytes after
 * the head in buf; each piece to ssl, or appended to keep (-2 over max).
 * -1: malformed (why), -3: the agent went away, -4: the upstream write failed.
 * Kept bodies are read into a buffer of their own: the head in buf is still
 * to be forwarded (a push's is sent after its body was read and checked). */
static int
broker_body(int fd, const struct httpreq *r, uint8_t *buf, size_t len, SSL *ssl,
    struct proto_buf *keep, uint64_t *sent, char *why, size_t whylen)
{
	size_t have = len - r->head_len;
	uint8_t *p = buf + r->head_len;
	uint64_t left = r->has_length ? r->length : 0;
	struct httpreq_chunk ch = { 0 };
	_cleanup_free_ uint8_t *own = keep != NULL ? xmalloc(HTTPREQ_HEAD_MAX) : NULL;

	if (own != NULL)
		buf = own;
	*sent = 0;
	for (;;) {
		size_t take;

		if (r->chunked) {
			long k = httpreq_chunk_scan(&ch, p, have);

			if (k < 0) {
				snprintf(why, whylen, "malformed chunked body");
				return -1;
			}
			take = (size_t)k;
		} else
			take = have < left ? have : (size_t)left;
		if (ssl != NULL && ssl_write_all(ssl, p, take) < 0)
			return -4;
		if (keep != NULL) {
			if (keep->len + take > BROKER_PUSH_MAX) {
				snprintf(why, whylen, "a push over 64 MiB is not brokered");
				return -2;
			}
			proto_put(keep, p, take);
		}
		*sent += take;
		left -= r->chunked ? 0 : take;
		if (r->chunked ? ch.done : left == 0)
			return 0;
		{
			ssize_t n = recv(fd, buf, HTTPREQ_HEAD_MAX, 0);

			if (n <= 0)
				return -3;
			p = buf;
			have = (size_t)n;
		}
	}
}

/* The response head gathered in h (*hl bytes, HTTPREQ_HEAD_MAX at most)
 * from the piece p; once whole, sent on with Connection and Keep-Alive
 * replaced by "Connection: close" (the broker serves one request a
 * connection: a client told it may reuse one would send its next request,
 * say a push's body, into a closed socket), then the rest of the piece.
 * 1: sent, 0: more needed, -1: the agent went away. A head over the bound
 * goes on as it came. */
static int
broker_relay_head(int fd, uint8_t *h, size_t *hl, const uint8_t *p, size_t n)
{
	size_t take = n < HTTPREQ_HEAD_MAX - *hl ? n : HTTPREQ_HEAD_MAX - *hl;
	const uint8_t *end;
	size_t hend, at = 0;

	memcpy(h + *hl, p, take);
	*hl += take;
	end = memmem(h, *hl, "\r\n\r\n", 4);
	if (end == NULL) {
		if (*hl < HTTPREQ_HEAD_MAX)
			return 0;
		return side_broker_write_all(fd, h, *hl) < 0 ||
		    side_broker_write_all(fd, p + take, n - take) < 0 ? -1 : 1;
	}
	hend = (size_t)(end - h) + 2;	/* up to and with the last header's CRLF */
	while (at < hend) {
		const uint8_t *eol = memmem(h + at, hend - at, "\r\n", 2);
		size_t ll = (size_t)(eol - (h + at)) + 2;

		if (!(at > 0 && ((ll >= 11 && strncasecmp((const char *)h + at, "connection:", 11) == 0) ||
		    (ll >= 11 && strncasecmp((const char *)h + at, "keep-alive:", 11) == 0))) &&
		    side_broker_write_all(fd, h + at, ll) < 0)
			return -1;
		at += ll;
	}
	if (side_broker_write_all(fd, "Connection: close\r\n\r\n", 21) < 0 ||
	    side_broker_write_all(fd, h + hend + 2, *hl - hend - 2) < 0 ||
	    side_broker_write_all(fd, p + take, n - take) < 0)
		return -1;
	return 1;
}

static void *
broker_serve(void *arg)
{
	struct broker_conn *bc = arg;
	struct side_broker_cred *c = bc->c;
	int fd = bc->fd, up = -1;
	uint8_t *buf = xmalloc(HTTPREQ_HEAD_MAX + 16384);
	size_t len = 0;
	struct httpreq r;
	struct proto_buf head = { 0 }, keep = { 0 };
	uint8_t *rhead = NULL;	/* the response head until it is whole */
	size_t rhl = 0;
	bool push = false;
	SSL *ssl = NULL;
	uint64_t t0 = side_now_ms(), sent = 0, got = 0;
	int status = 0, rc = 0;
	char why[256] = "";
	const char *path = "";
	size_t path_len = 0;
	char shown[201] = "";

	free(bc);
	for (;;) {
		ssize_t n = recv(fd, buf + len, HTTPREQ_HEAD_MAX - len, 0);

		if (n <= 0)
			goto done;	/* the agent went away before a whole head */
		len += (size_t)n;
		if ((rc = httpreq_parse(buf, len, &r)) != 0)
			break;
	}
	if (rc < 0) {
		side_broker_answer(fd, r.status, r.reason);
		side_broker_report(c, false, r.status, r.method, "", 0, 0, 0, side_now_ms() - t0, r.reason);
		goto done;
	}
	path = (const char *)buf + r.target.off;
	path_len = r.target.len;
	/* the path as reports show it: buf is reused for the response */
	snprintf(shown, sizeof shown, "%.*s", (int)(path_len > 200 ? 200 : path_len), path);
	if (r.host >= 0 && !broker_host_ok(c, buf, &r)) {
		snprintf(why, sizeof why, "Host names another server: this broker talks to %s only",
		    c->host);
		side_broker_answer(fd, 421, why);
		side_broker_report(c, false, 421, r.method, shown, strlen(shown), 0, 0, side_now_ms() - t0, why);
		goto done;
	}
	if (!httpreq_allowed(&r, buf, c->allow, c->nallow)) {
		snprintf(why, sizeof why, "%s %.*s is outside credential %s's allow list", r.method,
		    (int)(path_len > 120 ? 120 : path_len), path, c->name);
		side_broker_answer(fd, 403, why);
		side_broker_report(c, false, 403, r.method, shown, strlen(shown), 0, 0, side_now_ms() - t0,
		    "outside allow");
		goto done;
	}
	push = c->git_path[0] != '\0' && strcmp(r.method, "POST") == 0 &&
	    path_len == strlen(c->git_path) + 17 && memcmp(path, c->git_path, path_len - 17) == 0 &&
	    memcmp(path + path_len - 17, "/git-receive-pack", 17) == 0;
	if (push) {
		/* the whole push first: its commands decide whether it goes out */
		if ((rc = broker_body(fd, &r, buf, len, NULL, &keep, &sent, why, sizeof why)) < 0) {
			if (rc == -1 || rc == -2) {
				side_broker_answer(fd, rc == -1 ? 400 : 413, why);
				side_broker_report(c, false, rc == -1 ? 400 : 413, r.method, path, path_len,
				    sent, 0, side_now_ms() - t0, why);
			}
			goto done;
		}
		if (side_broker_git_push(c, fd, &r, &keep, t0) == 0)
			goto done;
	}
	if ((up = broker_connect(c, why, sizeof why)) < 0)
		goto bad_gateway;
	ssl = SSL_new(c->ctx);
	if (ssl == NULL || SSL_set_fd(ssl, up) != 1 || SSL_set1_host(ssl, c->host) != 1)
		goto tls_fail;
	if (inet_pton(AF_INET, c->host, buf + len) != 1 && inet_pton(AF_INET6, c->host,
	    buf + len) != 1)
		SSL_set_tlsext_host_name(ssl, c->host);
	if (SSL_connect(ssl) != 1)
		goto tls_fail;

	/* the head, rebuilt: the secret added, hop-by-hop and Host set here */
	proto_put(&head, r.method, strlen(r.method));
	proto_put(&head, " ", 1);
	proto_put(&head, path, path_len);
	proto_put(&head, " HTTP/1.1\r\nHost: ", 17);
	{
		char hp[300];
		int n = snprintf(hp, sizeof hp, c->port == 443 ? "%s\r\n" : "%s:%u\r\n", c->host,
		    c->port);

		proto_put(&head, hp, (size_t)n);
	}
	for (size_t i = 0; i < r.nhdr; i++) {
		const struct httpreq_hdr *h = &r.hdr[i];

		if (broker_hdr_dropped(c, buf, h))
			continue;
		proto_put(&head, buf + h->name.off, h->name.len);
		proto_put(&head, ": ", 2);
		proto_put(&head, buf + h->value.off, h->value.len);
		proto_put(&head, "\r\n", 2);
	}
	proto_put(&head, c->header, strlen(c->header));
	proto_put(&head, ": ", 2);
	proto_put(&head, c->prefix, strlen(c->prefix));
	proto_put(&head, c->secret, c->secret_len);
	proto_put(&head, "\r\nConnection: close\r\n\r\n", 23);
	rc = ssl_write_all(ssl, head.data, head.len);
	sodium_memzero(head.data, head.len);
	rhead = xmalloc(HTTPREQ_HEAD_MAX);
	if (rc < 0)
		goto tls_fail;

	/* the body: a push's was read and checked already */
	if (push) {
		if (ssl_write_all(ssl, keep.data, keep.len) < 0)
			goto tls_fail;
		sent = keep.len;
	} else if ((rc = broker_body(fd, &r, buf, len, ssl, NULL, &sent, why, sizeof why)) < 0) {
		if (rc == -1)
			goto refused_body;
		if (rc == -4)
			goto tls_fail;
		goto done;
	}

	/* the response, relayed as it comes (server-sent events piece by piece),
	 * its head first with Connection: close */
	for (;;) {
		int n = SSL_read(ssl, buf, HTTPREQ_HEAD_MAX);

		if (n <= 0)
			break;
		if (got == 0 && n >= 12 && memcmp(buf, "HTTP/1.", 7) == 0)
			status = atoi((const char *)buf + 9);
		got += (uint64_t)n;
		if (rhead != NULL) {
			rc = broker_relay_head(fd, rhead, &rhl, buf, (size_t)n);
			if (rc < 0)
				break;
			if (rc == 1) {
				free(rhead);
				rhead = NULL;
			}
		} else if (side_broker_write_all(fd, buf, (size_t)n) < 0)
			break;
	}
	if (rhead != NULL && rhl > 0)	/* a head cut short: what came, as it came */
		(void)side_broker_write_all(fd, rhead, rhl);
	side_broker_report(c, true, status, r.method, shown, strlen(shown), sent, got, side_now_ms() - t0, NULL);
	goto done;

refused_body:
	side_broker_answer(fd, 400, why);
	side_broker_report(c, false, 400, r.method, shown, strlen(shown), sent, 0, side_now_ms() - t0, why);
	goto done;
tls_fail:
	{
		unsigned long e = ERR_get_error();
		long v = ssl != NULL ? SSL_get_verify_result(ssl) : X509_V_OK;

		if (v != X509_V_OK)
			snprintf(why, sizeof why, "TLS to %s:%u failed: certificate: %s", c->host,
			    c->port, X509_verify_cert_error_string(v));
		else
			snprintf(why, sizeof why, "TLS to %s:%u failed: %s", c->host, c->port,
			    e ? ERR_reason_error_string(e) : "connection closed");
		ERR_clear_error();
	}
bad_gateway:
	if (got == 0) {
		side_broker_answer(fd, 502, why);
		side_broker_report(c, false, 502, r.method, shown, strlen(shown), sent, 0, side_now_ms() - t0, why);
	}
done:
	if (ssl != NULL) {
		SSL_shutdown(ssl);
		SSL_free(ssl);
	}
	if (up >= 0)
		close(up);
	close(fd);
	sodium_memzero(buf, HTTPREQ_HEAD_MAX + 16384);
	free(buf);
	proto_buf_clear(&head);
	proto_buf_clear(&keep);
	free(rhead);
	atomic_fetch_sub(&broker_conns, 1);
	return NULL;
}

static void *
broker_accept(void *arg)
{
	struct side_broker_cred *c = arg;

	for (;;) {
		int fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		struct broker_conn *bc;
		pthread_t t;
		pthread_attr_t at;
		struct timeval tv = { BROKER_IO_TIMEOUT_S, 0 };

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE)
				continue;
			return NULL;
		}
		if (atomic_fetch_add(&broker_conns, 1) >= BROKER_MAX_CONNS) {
			atomic_fetch_sub(&broker_conns, 1);
			side_broker_answer(fd, 503, "too many requests at once");
			close(fd);
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
		bc = xmalloc(sizeof *bc);
		bc->c = c;
		bc->fd = fd;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &at, broker_serve, bc) != 0) {
			atomic_fetch_sub(&broker_conns, 1);
			close(fd);
			free(bc);
		}
		pthread_attr_destroy(&at);
	}
}

/* The entry's trust: its CA file's certificates (PEM, read by the
 * coordinator), or the host's bundle it sent. */
static SSL_CTX *
broker_ctx(const char *pem, lz_err_t *err)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	BIO *bio = BIO_new_mem_buf(pem, -1);
	X509_STORE *st;
	X509 *x;
	int n = 0;

	if (ctx == NULL || bio == NULL)
		goto fail;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	st = SSL_CTX_get_cert_store(ctx);
	while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
		if (X509_STORE_add_cert(st, x) == 1)
			n++;
		X509_free(x);
	}
	ERR_clear_error();
	BIO_free(bio);
	if (n == 0) {
		SSL_CTX_free(ctx);
		lz_err_set(err, EINVAL, "no certificate in the CA bundle");
		return NULL;
	}
	return ctx;
fail:
	BIO_free(bio);
	SSL_CTX_free(ctx);
	lz_err_set(err, ENOMEM, "TLS context");
	return NULL;
}

static int
broker_listen(struct side_broker_cred *c, lz_err_t *err)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(c->listen_port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return lz_err_sys(err, errno, "broker socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) < 0 || listen(fd, 64) < 0) {
		int e = errno;

		close(fd);
		return lz_err_sys(err, e, "credential %s: listening on 127.0.0.1:%u", c->name,
		    c->listen_port);
	}
	c->listen_fd = fd;
	return 0;
}

/* "a\nb" -> {a, b} (empty lines skipped) */
static void
broker_lines(const char *s, char ***v, size_t *n)
{
	char *save = NULL, *t = xstrdup(s);

	for (char *l = strtok_r(t, "\n", &save); l != NULL; l = strtok_r(NULL, "\n", &save)) {
		lz_strv_push(v, l);
		(*n)++;
	}
	free(t);
}

static int
broker_u16(const char *s, uint16_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v == 0 || v > 65535)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

/* NETCTL_CRED_SET: BROKER_FIELDS strings an entry (netctl.h); the vector's
 * secrets are wiped here whatever happens. */
int
side_broker_set(struct side *s, char **v, size_t n, lz_err_t *err)
{
	struct side_broker_cred *cs = NULL;
	size_t nc = 0, i;
	int ret = -1;

	if (broker_creds != NULL) {
		lz_err_set(err, EEXIST, "credentials are set once a router run");
		goto out;
	}
	if (n % BROKER_FIELDS != 0 || n == 0) {
		lz_err_set(err, EINVAL, "credential list of %zu strings", n);
		goto out;
	}
	if (sodium_init() < 0 || side_broker_events_open(err) < 0) {
		lz_err_sys(err, errno, "broker start");
		goto out;
	}
	cs = xcalloc(n / BROKER_FIELDS, sizeof *cs);
	for (i = 0; i < n; i += BROKER_FIELDS, nc++) {
		struct side_broker_cred *c = &cs[nc];
		char **f = v + i;
		size_t sl = strlen(f[8]);

		c->listen_fd = -1;
		c->s = s;
		c->name = xstrdup(f[0]);
		c->host = xstrdup(f[1]);
		c->addr = xstrdup(f[3]);
		c->header = xstrdup(f[4]);
		c->prefix = xstrdup(f[5]);
		if (broker_u16(f[2], &c->port) < 0 || broker_u16(f[9], &c->listen_port) < 0 ||
		    sl == 0) {
			lz_err_set(err, EINVAL, "credential %s: bad port or empty secret", c->name);
			goto fail;
		}
		broker_lines(f[6], &c->allow, &c->nallow);
		c->git_path = xstrdup(f[10]);
		broker_lines(f[11], &c->refs, &c->nrefs);
		if ((c->ctx = broker_ctx(f[7], err)) == NULL) {
			lz_err_wrap(err, "credential %s", c->name);
			goto fail;
		}
		c->secret = sodium_malloc(sl + 1);	/* locked from swap, guarded */
		if (c->secret == NULL) {
			lz_err_set(err, ENOMEM, "credential %s: cannot lock memory for the secret",
			    c->name);
			goto fail;
		}
		memcpy(c->secret, f[8], sl + 1);
		c->secret_len = sl;
		if (broker_listen(c, err) < 0)
			goto fail;
	}
	broker_creds = cs;
	broker_ncreds = nc;
	for (i = 0; i < nc; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, broker_accept, &cs[i]) != 0) {
			lz_err_set(err, EAGAIN, "credential %s: no thread", cs[i].name);
			goto out;	/* set: the others serve */
		}
		pthread_detach(t);
		fprintf(stderr, "lazaret-sidecar: credential %s: brokering 127.0.0.1:%u -> %s:%u\n",
		    cs[i].name, cs[i].listen_port, cs[i].host, cs[i].port);
	}
	ret = 0;
	goto out;
fail:
	for (i = 0; i <= nc; i++) {
		if (cs[i].listen_fd >= 0)
			close(cs[i].listen_fd);
		SSL_CTX_free(cs[i].ctx);
		sodium_free(cs[i].secret);
		free(cs[i].name);
		free(cs[i].host);
		free(cs[i].addr);
		free(cs[i].header);
		free(cs[i].prefix);
		lz_strv_free(cs[i].allow);
		free(cs[i].git_path);
		lz_strv_free(cs[i].refs);
	}
	free(cs);
out:
	for (i = 8; i < n; i += BROKER_FIELDS)
		sodium_memzero(v[i], strlen(v[i]));
	return ret;
}

/* At exit: the secrets wiped (the threads die with the process). */
void
side_broker_wipe(void)
{
	for (size_t i = 0; i < broker_ncreds; i++)
		if (broker_creds[i].secret != NULL)
			sodium_memzero(broker_creds[i].secret, broker_creds[i].secret_len);
}
