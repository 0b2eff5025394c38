/* probe-net.c - lazaret-probe's network operations, run INSIDE the sandbox to
 * show from there what the Network Sidecar allows. The resolver is our own
 * (backend/common/dns.c over UDP to /etc/resolv.conf's first nameserver), so
 * a static binary needs no NSS.
 *
 *   lazaret-probe resolve NAME            "resolve NAME: 10.0.0.1 ..." | REFUSED | timeout
 *   lazaret-probe connect HOST PORT [udp] "connect HOST:PORT: ok REPLY" | ECONNREFUSED | ...
 *   lazaret-probe nft-delete TABLE        delete an nftables inet table: ok | errno
 *   lazaret-probe bench-tcp HOST PORT MB  send MB megabytes on one connection: MB/s
 *   lazaret-probe bench-conn HOST PORT N  N connect+close in a row: connections/s
 *   lazaret-probe bench-first NAME PORT   resolve then connect: ms for both (bench/)
 *   lazaret-probe bench-held HOST PORT    the wall clock at connect(), then ms until
 *                                         connected (a held destination, bench/)
 *   lazaret-probe connect-many HOST PORT0 N   N non-blocking TCP connects to
 *                                         PORT0.. (N distinct destinations: a flood)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../sidecar/dns.h"
#include "probe-net.h"

/* Long enough to outwait a destination the router holds while it asks
 * (network.ask_timeout in the tests is shorter). */
#define PROBE_WAIT_MS 20000

static int
probe_wait(int fd, short ev)
{
	struct pollfd p = { fd, ev, 0 };
	int r = poll(&p, 1, PROBE_WAIT_MS);

	if (r == 0)
		errno = ETIMEDOUT;
	return r > 0 ? 0 : -1;
}

static int
probe_nameserver(struct sockaddr_in *sa)
{
	char line[256];
	FILE *f = fopen("/etc/resolv.conf", "r");

	if (f == NULL)
		return -1;
	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_port = htons(53);
	while (fgets(line, sizeof line, f) != NULL) {
		char addr[64];

		if (sscanf(line, "nameserver %63s", addr) == 1 &&
		    inet_pton(AF_INET, addr, &sa->sin_addr) == 1) {
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	errno = ENOENT;
	return -1;
}

/* A query for name; returns 0 with the answer's addresses (IPv4 first), or -1
 * with *why ("REFUSED", "timeout", ...). */
static int
probe_query(const char *name, uint16_t type, struct dns_addr *out, size_t *n, const char **why)
{
	static char rc[16];
	uint8_t q[300], r[4096];
	size_t len = 12;
	struct sockaddr_in ns;
	struct dns_msg m;
	lz_err_t err = LZ_ERR_INIT;
	uint16_t id;
	int fd;
	ssize_t got;

	*n = 0;
	if (getrandom(&id, sizeof id, 0) != sizeof id)
		id = (uint16_t)time(NULL);
	memset(q, 0, 12);
	q[0] = (uint8_t)(id >> 8), q[1] = (uint8_t)id, q[2] = 0x01, q[5] = 1;
	for (const char *p = name; *p != '\0';) {
		const char *dot = strchr(p, '.');
		size_t l = dot ? (size_t)(dot - p) : strlen(p);

		if (l == 0 || l > 63 || len + l + 6 > sizeof q) {
			*why = "bad name";
			return -1;
		}
		q[len++] = (uint8_t)l;
		memcpy(q + len, p, l);
		len += l;
		p += l + (dot != NULL);
	}
	q[len++] = 0;
	q[len++] = (uint8_t)(type >> 8), q[len++] = (uint8_t)type, q[len++] = 0, q[len++] = 1;
	if (probe_nameserver(&ns) < 0) {
		*why = "no nameserver in /etc/resolv.conf";
		return -1;
	}
	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&ns, sizeof ns) < 0 || send(fd, q, len, 0) < 0 ||
	    probe_wait(fd, POLLIN) < 0 || (got = recv(fd, r, sizeof r, 0)) < 0) {
		*why = errno == ETIMEDOUT ? "timeout" : probe_errname(errno);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (dns_parse(r, (size_t)got, &m, &err) < 0) {
		lz_err_clear(&err);
		*why = "bad answer";
		return -1;
	}
	if (dns_rcode(&m) != DNS_RCODE_NOERROR) {
		static const char *const names[] = { "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN",
			"NOTIMP", "REFUSED" };

		snprintf(rc, sizeof rc, "%s", dns_rcode(&m) < 6 ? names[dns_rcode(&m)] : "RCODE?");
		*why = rc;
		dns_msg_clear(&m);
		return -1;
	}
	*n = dns_answer_addrs(&m, out, DNS_MAX_ADDRS);
	dns_msg_clear(&m);
	if (*n == 0) {
		*why = "no address";
		return -1;
	}
	return 0;
}

static int
probe_resolve(const char *name)
{
	struct dns_addr a[DNS_MAX_ADDRS];
	const char *why;
	size_t n;

	if (probe_query(name, DNS_TYPE_A, a, &n, &why) < 0) {
		printf("resolve %s: %s\n", name, why);
		return 0;
	}
	printf("resolve %s:", name);
	for (size_t i = 0; i < n; i++) {
		char s[INET6_ADDRSTRLEN];

		inet_ntop(a[i].family, a[i].addr, s, sizeof s);
		printf(" %s", s);
	}
	printf("\n");
	return 0;
}

static int
probe_connect(const char *host, const char *port, bool udp)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t sl;
	char reply[128];
	int fd = -1, p = atoi(port);
	ssize_t n;

	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET, s4->sin_port = htons((uint16_t)p), sl = sizeof *s4;
	} else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6, s6->sin6_port = htons((uint16_t)p), sl = sizeof *s6;
	} else {
		struct dns_addr a[DNS_MAX_ADDRS];
		const char *why;
		size_t na;

		if (probe_query(host, DNS_TYPE_A, a, &na, &why) < 0) {
			printf("connect %s:%s: resolve %s\n", host, port, why);
			return 0;
		}
		s4->sin_family = AF_INET, s4->sin_port = htons((uint16_t)p), sl = sizeof *s4;
		memcpy(&s4->sin_addr, a[0].addr, 4);
	}
	fd = socket(ss.ss_family, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	if (connect(fd, (struct sockaddr *)&ss, sl) < 0) {
		int e = 0;
		socklen_t el = sizeof e;

		if (errno != EINPROGRESS || probe_wait(fd, POLLOUT) < 0)
			goto fail;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 || e != 0) {
			errno = e ? e : errno;
			goto fail;
		}
	}
	if (send(fd, "ping\n", 5, 0) < 0 || probe_wait(fd, POLLIN) < 0 ||
	    (n = recv(fd, reply, sizeof reply - 1, 0)) < 0)
		goto fail;
	reply[n] = '\0';
	reply[strcspn(reply, "\r\n")] = '\0';
	printf("connect %s:%s: ok %s\n", host, port, reply);
	close(fd);
	return 0;
fail:
	printf("connect %s:%s: %s\n", host, port, probe_errname(errno));
	if (fd >= 0)
		close(fd);
	return 0;
}

/* One nf_tables batch deleting `inet TABLE`, as `nft delete table` sends it. */
static int
probe_nft_delete(const char *table)
{
	uint8_t buf[512] = { 0 };
	size_t off = 0, tl = strlen(table) + 1;
	struct nlmsghdr *h;
	struct nfgenmsg *g;
	struct nlattr *a;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	uint32_t seq = (uint32_t)time(NULL);

	if (fd < 0 || tl > 64) {
		printf("nft-delete %s: %s\n", table, fd < 0 ? probe_errname(errno) : "name too long");
		return 0;
	}
	/* batch begin, DELTABLE, batch end */
	for (int i = 0; i < 3; i++) {
		h = (struct nlmsghdr *)(buf + off);
		h->nlmsg_len = NLMSG_LENGTH(sizeof *g);
		h->nlmsg_type = i == 0 ? NFNL_MSG_BATCH_BEGIN : i == 2 ? NFNL_MSG_BATCH_END :
		    (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_DELTABLE;
		h->nlmsg_flags = NLM_F_REQUEST | (i == 1 ? NLM_F_ACK : 0);
		h->nlmsg_seq = seq + (uint32_t)i;
		g = NLMSG_DATA(h);
		g->nfgen_family = i == 1 ? NFPROTO_INET : AF_UNSPEC;
		g->version = NFNETLINK_V0;
		g->res_id = i == 1 ? 0 : htons(NFNL_SUBSYS_NFTABLES);
		if (i == 1) {
			a = (struct nlattr *)(buf + off + NLMSG_ALIGN(h->nlmsg_len));
			a->nla_type = NFTA_TABLE_NAME;
			a->nla_len = (uint16_t)(NLA_HDRLEN + tl);
			memcpy((uint8_t *)a + NLA_HDRLEN, table, tl);
			h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
		}
		off += NLMSG_ALIGN(h->nlmsg_len);
	}
	if (send(fd, buf, off, 0) < 0 || probe_wait(fd, POLLIN) < 0) {
		printf("nft-delete %s: %s\n", table, probe_errname(errno));
	} else {
		uint8_t r[4096];
		ssize_t n = recv(fd, r, sizeof r, 0);
		const struct nlmsghdr *rh = (const struct nlmsghdr *)r;

		if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) || rh->nlmsg_type != NLMSG_ERROR)
			printf("nft-delete %s: %s\n", table, n < 0 ? probe_errname(errno) : "no answer");
		else {
			const struct nlmsgerr *e = NLMSG_DATA(rh);

			printf("nft-delete %s: %s\n", table, e->error == 0 ? "ok" : probe_errname(-e->error));
		}
	}
	close(fd);
	return 0;
}

static double
probe_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* A blocking TCP connection to an IPv4 literal or a name (our resolver). */
static int
probe_tcp(const char *host, const char *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)) };
	int fd;

	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		struct dns_addr a[DNS_MAX_ADDRS];
		const char *why;
		size_t n;

		if (probe_query(host, DNS_TYPE_A, a, &n, &why) < 0) {
			errno = EHOSTUNREACH;
			return -1;
		}
		memcpy(&sa.sin_addr, a[0].addr, 4);
	}
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int
probe_bench(const char *what, const char *host, const char *port, const char *count)
{
	static char buf[1 << 16];
	long n = count != NULL ? atol(count) : 0;
	double t0 = probe_ms(), t;
	int fd;

	if (strcmp(what, "bench-tcp") == 0) {
		long long left = (long long)n << 20;

		if ((fd = probe_tcp(host, port)) < 0)
			goto fail;
		while (left > 0) {
			ssize_t w = send(fd, buf, left < (long long)sizeof buf ? (size_t)left : sizeof buf, 0);

			if (w < 0)
				goto fail;
			left -= w;
		}
		shutdown(fd, SHUT_WR);
		while (recv(fd, buf, sizeof buf, 0) > 0)
			;
		close(fd);
		t = probe_ms() - t0;
		printf("bench-tcp %s:%s: %ld MB in %.0f ms: %.1f MB/s\n", host, port, n, t, n / (t / 1e3));
	} else if (strcmp(what, "bench-conn") == 0) {
		for (long i = 0; i < n; i++) {
			if ((fd = probe_tcp(host, port)) < 0)
				goto fail;
			close(fd);
		}
		t = probe_ms() - t0;
		printf("bench-conn %s:%s: %ld connections in %.0f ms: %.0f/s\n", host, port, n, t,
		    n / (t / 1e3));
	} else if (strcmp(what, "bench-held") == 0) {
		struct timespec w;

		clock_gettime(CLOCK_REALTIME, &w);
		printf("bench-held %s:%s: start %lld\n", host, port,
		    (long long)w.tv_sec * 1000 + w.tv_nsec / 1000000);
		fflush(stdout);
		t0 = probe_ms();
		if ((fd = probe_tcp(host, port)) < 0)
			goto fail;
		t = probe_ms() - t0;
		close(fd);
		printf("bench-held %s:%s: connected after %.2f ms\n", host, port, t);
	} else {
		if ((fd = probe_tcp(host, port)) < 0)
			goto fail;
		t = probe_ms() - t0;
		close(fd);
		printf("bench-first %s:%s: %.2f ms\n", host, port, t);
	}
	return 0;
fail:
	printf("%s %s:%s: %s\n", what, host, port, probe_errname(errno));
	return 1;
}

/* n TCP connects to host:port0.. without waiting for any (closed 256 at a
 * time): n distinct destinations the router must bound. */
static int
probe_connect_many(const char *host, const char *port0, const char *count)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	long n = atol(count), p0 = atol(port0), started = 0, failed = 0;
	int fds[256];
	size_t nf = 0;

	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1 || n <= 0 || p0 <= 0 || p0 + n > 65536) {
		printf("connect-many: HOST must be an IPv4 address, PORT0+N at most 65536\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

		if (fd < 0) {
			failed++;
			continue;
		}
		sa.sin_port = htons((uint16_t)(p0 + i));
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS)
			failed++;
		started++;
		fds[nf++] = fd;
		if (nf == sizeof fds / sizeof fds[0]) {
			while (nf > 0)
				close(fds[--nf]);
		}
	}
	while (nf > 0)
		close(fds[--nf]);
	printf("connect-many %s:%ld..%ld: %ld started, %ld failed at once\n", host, p0, p0 + n - 1,
	    started, failed);
	return 0;
}

int
probe_net(int argc, char **argv)
{
	if (strcmp(argv[1], "connect-many") == 0 && argc == 5)
		return probe_connect_many(argv[2], argv[3], argv[4]);
	if (strcmp(argv[1], "resolve") == 0 && argc == 3)
		return probe_resolve(argv[2]);
	if (strcmp(argv[1], "connect") == 0 && (argc == 4 || argc == 5))
		return probe_connect(argv[2], argv[3], argc == 5 && strcmp(argv[4], "udp") == 0);
	if (strcmp(argv[1], "nft-delete") == 0 && argc == 3)
		return probe_nft_delete(argv[2]);
	if ((strcmp(argv[1], "bench-tcp") == 0 || strcmp(argv[1], "bench-conn") == 0) && argc == 5)
		return probe_bench(argv[1], argv[2], argv[3], argv[4]);
	if ((strcmp(argv[1], "bench-first") == 0 || strcmp(argv[1], "bench-held") == 0) &&
	    argc == 4)
		return probe_bench(argv[1], argv[2], argv[3], NULL);
	return -1;
}
