/* net-hostaddr.c - the host's own addresses from rtnetlink (see net-hostaddr.h).
 *
 * One socket joins the IPv4 and IPv6 address groups and only says "something
 * changed" (an overrun, ENOBUFS, says so too); a short timer then reads the
 * whole list again with a dump on a socket of its own, so a lost or partial
 * event never leaves the list wrong. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <libmnl/libmnl.h>

#include "net/net-hostaddr.h"
#include "strv.h"
#include "xmalloc.h"

struct net_hostaddr {
	struct mnl_socket *ev;
	uv_poll_t poll;
	uv_timer_t timer;
	int open_handles;
	char **list;
	size_t n;
	void (*cb)(void *arg);
	void *arg;
};

struct hostaddr_dump {
	char **v;
	size_t n;
};

static int
hostaddr_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (mnl_attr_type_valid(a, IFA_MAX) < 0)
		return MNL_CB_OK;
	tb[type] = a;
	return MNL_CB_OK;
}

static int
hostaddr_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct hostaddr_dump *d = data;
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[IFA_MAX + 1] = { 0 };
	const struct nlattr *a;
	size_t alen = ifa->ifa_family == AF_INET ? 4 : 16;
	char text[INET6_ADDRSTRLEN];
	const uint8_t *p;

	if (nlh->nlmsg_type != RTM_NEWADDR ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof *ifa, hostaddr_attr_cb, tb);
	/* IFA_LOCAL is the address itself (IFA_ADDRESS is the peer on a
	 * point-to-point link); IPv6 gives IFA_ADDRESS alone. */
	a = tb[IFA_LOCAL] != NULL ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if (a == NULL || mnl_attr_get_payload_len(a) != alen)
		return MNL_CB_OK;
	p = mnl_attr_get_payload(a);
	/* Loopback inside the sandbox is the namespace's own, not the host's. */
	if ((alen == 4 && p[0] == 127) ||
	    (alen == 16 && memcmp(p, &in6addr_loopback, 16) == 0))
		return MNL_CB_OK;
	if (inet_ntop(ifa->ifa_family, p, text, sizeof text) == NULL ||
	    lz_strv_contains(d->v, text) || d->n >= NET_HOSTADDR_MAX)
		return MNL_CB_OK;
	lz_strv_push(&d->v, text);
	d->n++;
	return MNL_CB_OK;
}

static int
hostaddr_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
net_hostaddr_read(char ***out, size_t *n, lz_err_t *err)
{
	static char buf[32768];
	struct hostaddr_dump d = { 0 };
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	struct timeval tv = { 2, 0 };
	struct nlmsghdr *nlh;
	struct rtgenmsg *g;
	uint32_t seq = (uint32_t)time(NULL), portid;
	int r = MNL_CB_OK;

	if (nl == NULL)
		return lz_err_sys(err, errno, "the host's addresses: netlink socket");
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		lz_err_sys(err, errno, "the host's addresses: netlink bind");
		goto fail;
	}
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof *g);
	g->rtgen_family = AF_UNSPEC;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		lz_err_sys(err, errno, "the host's addresses: netlink dump request");
		goto fail;
	}
	while (r > MNL_CB_STOP) {
		ssize_t got = mnl_socket_recvfrom(nl, buf, sizeof buf);

		if (got < 0) {
			lz_err_sys(err, errno, "the host's addresses: reading the dump");
			goto fail;
		}
		r = mnl_cb_run(buf, (size_t)got, seq, portid, hostaddr_msg_cb, &d);
	}
	if (r < 0) {
		lz_err_sys(err, errno, "the host's addresses: the dump");
		goto fail;
	}
	mnl_socket_close(nl);
	if (d.n > 1)
		qsort(d.v, d.n, sizeof *d.v, hostaddr_cmp);
	if (d.v == NULL)
		d.v = xcalloc(1, sizeof *d.v);
	*out = d.v;
	*n = d.n;
	return 0;
fail:
	mnl_socket_close(nl);
	lz_strv_free(d.v);
	return -1;
}

static bool
hostaddr_same(char *const *a, size_t na, char *const *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

static void
hostaddr_timer_cb(uv_timer_t *t)
{
	struct net_hostaddr *h = t->data;
	lz_err_t err = LZ_ERR_INIT;
	char **v;
	size_t n;

	if (net_hostaddr_read(&v, &n, &err) < 0) {
		/* Keep the list we have (addresses only ever went into the guard)
		 * and read again soon. */
		lz_err_clear(&err);
		uv_timer_start(&h->timer, hostaddr_timer_cb, 1000, 0);
		return;
	}
	if (hostaddr_same(v, n, h->list, h->n)) {
		lz_strv_free(v);
		return;
	}
	lz_strv_free(h->list);
	h->list = v;
	h->n = n;
	h->cb(h->arg);
}

static void
hostaddr_poll_cb(uv_poll_t *p, int status, int events)
{
	struct net_hostaddr *h = p->data;
	char buf[8192];

	(void)events;
	/* Drain; what changed is read back whole by the timer. ENOBUFS (events
	 * lost) means the same. */
	while (status == 0 && recv(mnl_socket_get_fd(h->ev), buf, sizeof buf, MSG_DONTWAIT) >= 0)
		;
	if (!uv_is_active((uv_handle_t *)&h->timer))
		uv_timer_start(&h->timer, hostaddr_timer_cb, NET_HOSTADDR_SETTLE_MS, 0);
}

int
net_hostaddr_new(uv_loop_t *loop, void (*cb)(void *arg), void *arg,
    struct net_hostaddr **out, lz_err_t *err)
{
	struct net_hostaddr *h = xcalloc(1, sizeof *h);

	h->cb = cb;
	h->arg = arg;
	h->ev = mnl_socket_open(NETLINK_ROUTE);
	if (h->ev == NULL) {
		lz_err_sys(err, errno, "the host's addresses: netlink socket");
		goto fail;
	}
	/* Joined before the first read: no change can fall between the two. */
	if (mnl_socket_bind(h->ev, RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR, MNL_SOCKET_AUTOPID) < 0) {
		lz_err_sys(err, errno, "the host's addresses: joining the address events");
		goto fail;
	}
	if (net_hostaddr_read(&h->list, &h->n, err) < 0)
		goto fail;
	uv_poll_init(loop, &h->poll, mnl_socket_get_fd(h->ev));
	uv_timer_init(loop, &h->timer);
	h->poll.data = h->timer.data = h;
	h->open_handles = 2;
	uv_poll_start(&h->poll, UV_READABLE, hostaddr_poll_cb);
	*out = h;
	return 0;
fail:
	if (h->ev != NULL)
		mnl_socket_close(h->ev);
	lz_strv_free(h->list);
	free(h);
	return -1;
}

char *const *
net_hostaddr_list(const struct net_hostaddr *h, size_t *n)
{
	*n = h->n;
	return h->list;
}

static void
hostaddr_close_cb(uv_handle_t *hd)
{
	struct net_hostaddr *h = hd->data;

	if (--h->open_handles > 0)
		return;
	mnl_socket_close(h->ev);
	lz_strv_free(h->list);
	free(h);
}

void
net_hostaddr_close(struct net_hostaddr *h)
{
	if (h == NULL)
		return;
	uv_close((uv_handle_t *)&h->poll, hostaddr_close_cb);
	uv_close((uv_handle_t *)&h->timer, hostaddr_close_cb);
}
