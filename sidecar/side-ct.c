/* side-ct.c - a learned address stays allowed while flows to it are live.
 *
 * Clients keep what a lookup returned for as long as they like (connection
 * pools, runtimes that cache for the process's life), so the set element of
 * an address in use must not age out under a running client. Before a
 * learned address expires the router dumps this namespace's conntrack table
 * (ctnetlink, the sandbox's flows only) and gives every learned address that
 * still has a live flow another floor: TCP from SYN to ESTABLISHED (not the
 * closing states, which linger for minutes), any UDP/other entry. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <libmnl/libmnl.h>

#include "side.h"

#define CT_LIVE_MAX	4096	/* destinations kept from one dump */
#define CT_TCP_SYN_SENT		1
#define CT_TCP_ESTABLISHED	3

struct ct_live {
	struct side_host d[CT_LIVE_MAX];
	size_t n;
};

static int
ct_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (type <= CTA_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

/* Attributes of a nested one into tb (max + 1 entries, zeroed here). */
static void
ct_nest(const struct nlattr *a, const struct nlattr **tb)
{
	memset(tb, 0, (CTA_MAX + 1) * sizeof *tb);
	if (a != NULL)
		mnl_attr_parse_nested(a, ct_attr_cb, tb);
}

static int
ct_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ct_live *live = data;
	const struct nlattr *tb[CTA_MAX + 1] = { 0 }, *t[CTA_MAX + 1], *ip[CTA_MAX + 1];
	const struct nlattr *pi[CTA_MAX + 1], *tcp[CTA_MAX + 1], *a;
	struct side_host *h;

	mnl_attr_parse(nlh, sizeof(struct nfgenmsg), ct_attr_cb, tb);
	ct_nest(tb[CTA_PROTOINFO], pi);
	if (pi[CTA_PROTOINFO_TCP] != NULL) {
		uint8_t st;

		ct_nest(pi[CTA_PROTOINFO_TCP], tcp);
		if (tcp[CTA_PROTOINFO_TCP_STATE] == NULL)
			return MNL_CB_OK;
		st = mnl_attr_get_u8(tcp[CTA_PROTOINFO_TCP_STATE]);
		if (st < CT_TCP_SYN_SENT || st > CT_TCP_ESTABLISHED)
			return MNL_CB_OK;	/* closing: it goes by itself */
	}
	ct_nest(tb[CTA_TUPLE_ORIG], t);
	ct_nest(t[CTA_TUPLE_IP], ip);
	if (live->n == CT_LIVE_MAX)
		return MNL_CB_OK;
	h = &live->d[live->n];
	if ((a = ip[CTA_IP_V4_DST]) != NULL && mnl_attr_get_payload_len(a) == 4)
		h->family = AF_INET;
	else if ((a = ip[CTA_IP_V6_DST]) != NULL && mnl_attr_get_payload_len(a) == 16)
		h->family = AF_INET6;
	else
		return MNL_CB_OK;
	memcpy(h->addr, mnl_attr_get_payload(a), h->family == AF_INET ? 4 : 16);
	live->n++;
	return MNL_CB_OK;
}

/* The destinations of this namespace's live flows; -1 with err. */
static int
ct_dump(struct ct_live *live, lz_err_t *err)
{
	static char buf[65536];
	struct mnl_socket *nl = mnl_socket_open(NETLINK_NETFILTER);
	struct timeval tv = { 2, 0 };
	struct nlmsghdr *nlh;
	struct nfgenmsg *g;
	uint32_t seq = (uint32_t)time(NULL), portid;
	int r = MNL_CB_OK, ret = -1;

	live->n = 0;
	if (nl == NULL)
		return lz_err_sys(err, errno, "conntrack: netlink socket");
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		lz_err_sys(err, errno, "conntrack: netlink bind");
		goto out;
	}
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_GET;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof *g);
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		lz_err_sys(err, errno, "conntrack: dump request");
		goto out;
	}
	while (r > MNL_CB_STOP) {
		ssize_t got = mnl_socket_recvfrom(nl, buf, sizeof buf);

		if (got < 0) {
			lz_err_sys(err, errno, "conntrack: reading the dump");
			goto out;
		}
		r = mnl_cb_run(buf, (size_t)got, seq, portid, ct_msg_cb, live);
	}
	if (r < 0) {
		lz_err_sys(err, errno, "conntrack: the dump");
		goto out;
	}
	ret = 0;
out:
	mnl_socket_close(nl);
	return ret;
}

static bool
ct_is_live(const struct ct_live *live, const struct side_learned *l)
{
	for (size_t i = 0; i < live->n; i++)
		if (live->d[i].family == l->family &&
		    memcmp(live->d[i].addr, l->addr, l->family == AF_INET ? 4 : 16) == 0)
			return true;
	return false;
}

void
side_ct_refresh(struct side *s, uint64_t within_ms)
{
	static struct ct_live live;
	static bool said;
	const struct side_learned *l[SIDE_LEARN_MAX];
	uint64_t now = side_now_ms();
	lz_err_t err = LZ_ERR_INIT;
	size_t n = 0;
	bool due = false;

	for (size_t i = 0; i < s->nlearned && !due; i++)
		due = s->learned[i].expires_ms <= now + within_ms;
	if (!due)
		return;
	if (ct_dump(&live, &err) < 0) {
		/* Without conntrack the TTL and floor alone decide; said once. */
		if (!said)
			fprintf(stderr, "lazaret-sidecar: %s: learned addresses expire by TTL "
			    "and floor only\n", err.msg);
		said = true;
		lz_err_clear(&err);
		return;
	}
	for (size_t i = 0; i < s->nlearned; i++) {
		struct side_learned *e = &s->learned[i];

		if (e->expires_ms > now + within_ms || e->expires_ms <= now || !ct_is_live(&live, e))
			continue;
		e->expires_ms = now + (uint64_t)s->ttl_floor * 1000;
		l[n++] = e;
		if (n == SIDE_LEARN_MAX) {
			if (side_nft_learn(s, l, n, &err) < 0)
				lz_err_clear(&err);
			n = 0;
		}
	}
	if (n > 0 && side_nft_learn(s, l, n, &err) < 0) {
		fprintf(stderr, "lazaret-sidecar: %s\n", err.msg);
		lz_err_clear(&err);
	}
}
