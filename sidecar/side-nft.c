/* side-nft.c - the router's nftables table, built with libnftnl and sent as
 * one libmnl batch (one transaction: the table is never half there).
 *
 *   chain out (hook output, policy drop):
 *     oifname "lo" accept                     the agent's own servers
 *     ct state established,related accept     replies, running flows
 *     mark SIDE_MARK to upstream:53 accept    the router's own DNS queries
 *     mark SIDE_BROKER_MARK tcp accept        the credential broker's upstreams
 *     icmpv6 ND, router solicitation, MLD     IPv6 needs them on the link
 *     entries inside a guard or = a host address (listed exactly): log, accept
 *     each guard: log (limited), refuse       link-local, metadata, host
 *     daddr in @h4/@h6: log (limited), refuse  the host's own addresses
 *     CIDR entries [l4proto, dport]: log, accept
 *     daddr in @d4/@d6, daddr . dport in @d4p/@d6p: log, accept
 *   with --ask-timeout:
 *     (second rule) mark SIDE_REFUSE_MARK: refuse   a held packet refused
 *     tcp/udp, ct state new: queue SIDE_QUEUE_NUM   held, asked (side-ask.c)
 *     log (limited), refuse                   everything else
 *   chain refuse: tcp -> reset; else icmpx port-unreachable
 */
#include <errno.h>
#include <netinet/in.h>
#include <net/if.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_NFQUEUE.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>

#include "side.h"
#include "xmalloc.h"

#define NFT_TYPE_IPADDR		7	/* nft's datatype ids, for `nft list` to print sets */
#define NFT_TYPE_IP6ADDR	8
#define NFT_TYPE_INET_SERVICE	13
#define NFT_TYPE_BITS		6
#define NFT_BATCH_MAX		(2u * 1024 * 1024)
#define NFT_ELEM_BUDGET		(96u * 1024)	/* set elements per batch: the kernel takes
						 * one batch in one sendmsg (SO_SNDBUF) */

enum { SET_D4 = 1, SET_D6, SET_D4P, SET_D6P, SET_H4, SET_H6 };
static const char *const set_names[] = { [SET_D4] = "d4", [SET_D6] = "d6", [SET_D4P] = "d4p",
	[SET_D6P] = "d6p", [SET_H4] = "h4", [SET_H6] = "h6" };

struct nft_batch {
	struct side *s;
	char *buf;
	struct mnl_nlmsg_batch *b;
	size_t nmsg;		/* messages that will be ACKed */
};

int
side_nft_open(struct side *s, lz_err_t *err)
{
	s->nl = mnl_socket_open(NETLINK_NETFILTER);
	if (s->nl == NULL)
		return lz_err_sys(err, errno, "netlink socket for nftables");
	if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int e = errno;

		mnl_socket_close(s->nl);
		s->nl = NULL;
		return lz_err_sys(err, e, "netlink bind for nftables");
	}
	s->nl_seq = (uint32_t)time(NULL);
	{
		/* A missing answer must not hang the router. */
		struct timeval tv = { 5, 0 };

		setsockopt(mnl_socket_get_fd(s->nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	}
	return 0;
}

void
side_nft_close(struct side *s)
{
	if (s->nl != NULL)
		mnl_socket_close(s->nl);
	s->nl = NULL;
}

static void
batch_start(struct nft_batch *nb, struct side *s)
{
	nb->s = s;
	nb->buf = xmalloc(NFT_BATCH_MAX);
	nb->b = mnl_nlmsg_batch_start(nb->buf, NFT_BATCH_MAX);
	nb->nmsg = 0;
	nftnl_batch_begin(mnl_nlmsg_batch_current(nb->b), s->nl_seq++);
	mnl_nlmsg_batch_next(nb->b);
}

static struct nlmsghdr *
batch_hdr(struct nft_batch *nb, uint16_t type, uint16_t flags)
{
	/* The batch buffer is sized for the largest policy; running out is a bug. */
	LZ_ASSERT(mnl_nlmsg_batch_size(nb->b) + 64 * 1024 < NFT_BATCH_MAX);
	nb->nmsg++;
	return nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(nb->b), type, NFPROTO_INET,
	    flags | NLM_F_ACK, nb->s->nl_seq++);
}

/* Send the batch and read one ACK per message (NLM_F_ACK): the kernel runs
 * the whole transaction inside sendmsg, so the answers are all queued then. */
static int
batch_send(struct nft_batch *nb, const char *what, lz_err_t *err)
{
	static char rbuf[65536];
	uint32_t portid = mnl_socket_get_portid(nb->s->nl);
	size_t acks = 0;
	int ret = 0, first_err = 0;
	ssize_t n;

	nftnl_batch_end(mnl_nlmsg_batch_current(nb->b), nb->s->nl_seq++);
	mnl_nlmsg_batch_next(nb->b);
	if (mnl_socket_sendto(nb->s->nl, mnl_nlmsg_batch_head(nb->b),
	    mnl_nlmsg_batch_size(nb->b)) < 0) {
		ret = lz_err_sys(err, errno, "nftables: sending %s", what);
		goto out;
	}
	while (acks < nb->nmsg) {
		const struct nlmsghdr *h;
		int left;

		n = mnl_socket_recvfrom(nb->s->nl, rbuf, sizeof rbuf);
		if (n <= 0) {
			ret = lz_err_sys(err, n < 0 ? errno : EPROTO, "nftables: reading the answer to %s",
			    what);
			goto out;
		}
		left = (int)n;
		for (h = (const struct nlmsghdr *)rbuf; mnl_nlmsg_ok(h, left);
		    h = mnl_nlmsg_next(h, &left)) {
			const struct nlmsgerr *e;

			if (h->nlmsg_pid != portid || h->nlmsg_type != NLMSG_ERROR)
				continue;
			e = mnl_nlmsg_get_payload(h);
			acks++;
			if (e->error != 0 && first_err == 0)
				first_err = -e->error;
		}
	}
	if (first_err != 0)
		ret = lz_err_sys(err, first_err, "nftables: %s", what);
out:
	mnl_nlmsg_batch_stop(nb->b);
	free(nb->buf);
	return ret;
}

/* ---- expressions ---- */

static void
x_add(struct nftnl_rule *r, struct nftnl_expr *e)
{
	nftnl_rule_add_expr(r, e);
}

static void
x_meta(struct nftnl_rule *r, uint32_t key, uint32_t dreg)
{
	struct nftnl_expr *e = nftnl_expr_alloc("meta");

	nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, dreg);
	x_add(r, e);
}

static void
x_cmp(struct nftnl_rule *r, uint32_t sreg, uint32_t op, const void *data, size_t len)
{
	struct nftnl_expr *e = nftnl_expr_alloc("cmp");

	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, sreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
	nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, (uint32_t)len);
	x_add(r, e);
}

static void
x_payload(struct nftnl_rule *r, uint32_t base, uint32_t off, uint32_t len, uint32_t dreg)
{
	struct nftnl_expr *e = nftnl_expr_alloc("payload");

	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, off);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, dreg);
	x_add(r, e);
}

static void
x_bitwise(struct nftnl_rule *r, uint32_t reg, uint32_t len, const void *mask)
{
	struct nftnl_expr *e = nftnl_expr_alloc("bitwise");
	uint8_t zero[16] = { 0 };

	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, reg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, reg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask, len);
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, zero, len);
	x_add(r, e);
}

static void
x_verdict(struct nftnl_rule *r, int verdict, const char *chain)
{
	struct nftnl_expr *e = nftnl_expr_alloc("immediate");

	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, (uint32_t)verdict);
	if (chain != NULL)
		nftnl_expr_set_str(e, NFTNL_EXPR_IMM_CHAIN, chain);
	x_add(r, e);
}

static void
x_counter(struct nftnl_rule *r)
{
	x_add(r, nftnl_expr_alloc("counter"));
}

static void
x_limit(struct nftnl_rule *r)
{
	struct nftnl_expr *e = nftnl_expr_alloc("limit");

	nftnl_expr_set_u64(e, NFTNL_EXPR_LIMIT_RATE, SIDE_EV_RATE);
	nftnl_expr_set_u64(e, NFTNL_EXPR_LIMIT_UNIT, 1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LIMIT_BURST, 2 * SIDE_EV_RATE);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LIMIT_TYPE, NFT_LIMIT_PKTS);
	x_add(r, e);
}

/* Log to the router's nflog group; prefix = "a " or "d " + the rule. */
static void
x_log(struct nftnl_rule *r, struct side *s, char verdict, const char *rule)
{
	struct nftnl_expr *e = nftnl_expr_alloc("log");
	char prefix[128];

	snprintf(prefix, sizeof prefix, "%c %s", verdict, rule);
	nftnl_expr_set_str(e, NFTNL_EXPR_LOG_PREFIX, prefix);
	nftnl_expr_set_u16(e, NFTNL_EXPR_LOG_GROUP, s->nflog_group);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOG_SNAPLEN, 80);	/* headers are enough */
	x_add(r, e);
}

static void
x_reject(struct nftnl_rule *r, uint32_t type, uint8_t code)
{
	struct nftnl_expr *e = nftnl_expr_alloc("reject");

	nftnl_expr_set_u32(e, NFTNL_EXPR_REJECT_TYPE, type);
	nftnl_expr_set_u8(e, NFTNL_EXPR_REJECT_CODE, code);
	x_add(r, e);
}

static void
x_lookup(struct nftnl_rule *r, uint32_t sreg, int set)
{
	struct nftnl_expr *e = nftnl_expr_alloc("lookup");

	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, sreg);
	nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, set_names[set]);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SET_ID, (uint32_t)set);
	x_add(r, e);
}

static void
m_nfproto(struct nftnl_rule *r, int family)
{
	uint8_t p = family == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6;

	x_meta(r, NFT_META_NFPROTO, NFT_REG_1);
	x_cmp(r, NFT_REG_1, NFT_CMP_EQ, &p, 1);
}

static void
m_l4proto(struct nftnl_rule *r, uint8_t proto)
{
	x_meta(r, NFT_META_L4PROTO, NFT_REG_1);
	x_cmp(r, NFT_REG_1, NFT_CMP_EQ, &proto, 1);
}

static void
m_dport(struct nftnl_rule *r, uint16_t port)
{
	uint16_t be = htons(port);

	x_payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, NFT_REG_1);
	x_cmp(r, NFT_REG_1, NFT_CMP_EQ, &be, 2);
}

/* nfproto, then daddr inside net/prefix. */
static void
m_daddr(struct nftnl_rule *r, int family, const uint8_t *net, unsigned prefix)
{
	uint32_t alen = family == AF_INET ? 4 : 16;
	uint8_t mask[16] = { 0 };

	m_nfproto(r, family);
	if (prefix == 0)
		return;
	x_payload(r, NFT_PAYLOAD_NETWORK_HEADER, family == AF_INET ? 16 : 24, alen, NFT_REG_1);
	if (prefix < alen * 8) {
		for (unsigned i = 0; i < prefix; i++)
			mask[i / 8] |= (uint8_t)(0x80 >> (i % 8));
		x_bitwise(r, NFT_REG_1, alen, mask);
	}
	x_cmp(r, NFT_REG_1, NFT_CMP_EQ, net, alen);
}

static struct nftnl_rule *
rule_new(struct side *s, const char *chain)
{
	struct nftnl_rule *r = nftnl_rule_alloc();

	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, s->table);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain);
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_INET);
	return r;
}

static void
rule_put(struct nft_batch *nb, struct nftnl_rule *r)
{
	struct nlmsghdr *nlh = batch_hdr(nb, NFT_MSG_NEWRULE, NLM_F_APPEND | NLM_F_CREATE);

	nftnl_rule_nlmsg_build_payload(nlh, r);
	mnl_nlmsg_batch_next(nb->b);
	nftnl_rule_free(r);
}

/* ---- the table ---- */

static void
put_table(struct nft_batch *nb, uint16_t type, uint16_t flags)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;

	nftnl_table_set_str(t, NFTNL_TABLE_NAME, nb->s->table);
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, NFPROTO_INET);
	nlh = batch_hdr(nb, type, flags);
	nftnl_table_nlmsg_build_payload(nlh, t);
	mnl_nlmsg_batch_next(nb->b);
	nftnl_table_free(t);
}

static void
put_chain(struct nft_batch *nb, const char *name, bool hook)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nlmsghdr *nlh;

	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, nb->s->table);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name);
	if (hook) {
		nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, NF_INET_LOCAL_OUT);
		nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, 0);
		nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, NF_DROP);
		nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
	}
	nlh = batch_hdr(nb, NFT_MSG_NEWCHAIN, NLM_F_CREATE);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	mnl_nlmsg_batch_next(nb->b);
	nftnl_chain_free(c);
}

static struct nftnl_set *
set_new(struct side *s, int set)
{
	struct nftnl_set *st = nftnl_set_alloc();

	nftnl_set_set_str(st, NFTNL_SET_TABLE, s->table);
	nftnl_set_set_str(st, NFTNL_SET_NAME, set_names[set]);
	nftnl_set_set_u32(st, NFTNL_SET_FAMILY, NFPROTO_INET);
	nftnl_set_set_u32(st, NFTNL_SET_ID, (uint32_t)set);
	return st;
}

static void
put_set(struct nft_batch *nb, int set)
{
	struct nftnl_set *st = set_new(nb->s, set);
	bool v6 = set == SET_D6 || set == SET_D6P || set == SET_H6;
	bool port = set == SET_D4P || set == SET_D6P;
	uint32_t atype = v6 ? NFT_TYPE_IP6ADDR : NFT_TYPE_IPADDR;
	struct nlmsghdr *nlh;

	/* Concatenated keys: each field padded to 4 bytes. */
	nftnl_set_set_u32(st, NFTNL_SET_KEY_LEN, (v6 ? 16 : 4) + (port ? 4 : 0));
	nftnl_set_set_u32(st, NFTNL_SET_KEY_TYPE,
	    port ? atype << NFT_TYPE_BITS | NFT_TYPE_INET_SERVICE : atype);
	/* Learned addresses time out; the host's stay until the coordinator says. */
	nftnl_set_set_u32(st, NFTNL_SET_FLAGS, set >= SET_H4 ? 0 : NFT_SET_TIMEOUT);
	nlh = batch_hdr(nb, NFT_MSG_NEWSET, NLM_F_CREATE);
	nftnl_set_nlmsg_build_payload(nlh, st);
	mnl_nlmsg_batch_next(nb->b);
	nftnl_set_free(st);
}

static void
elem_add(struct nftnl_set *st, const uint8_t *addr, size_t alen, const uint16_t *port,
    uint64_t timeout_ms)
{
	struct nftnl_set_elem *el = nftnl_set_elem_alloc();
	uint8_t key[20] = { 0 };
	size_t klen = alen;

	memcpy(key, addr, alen);
	if (port != NULL) {
		uint16_t be = htons(*port);

		memcpy(key + alen, &be, 2);
		klen += 4;
	}
	nftnl_set_elem_set(el, NFTNL_SET_ELEM_KEY, key, (uint32_t)klen);
	if (timeout_ms > 0)
		nftnl_set_elem_set_u64(el, NFTNL_SET_ELEM_TIMEOUT, timeout_ms);
	nftnl_set_elem_add(st, el);
}

/* Elements of learned addresses into their set, as NEWSETELEM (or DEL). */
static void
put_elems(struct nft_batch *nb, const struct side_learned *const *l, size_t n, uint16_t type,
    uint64_t now)
{
	for (int set = SET_D4; set <= SET_D6P; set++) {
		bool v6 = set == SET_D6 || set == SET_D6P, port = set == SET_D4P || set == SET_D6P;
		struct nftnl_set *st = set_new(nb->s, set);
		struct nlmsghdr *nlh;
		size_t count = 0;

		for (size_t i = 0; i < n; i++) {
			uint64_t left = l[i]->expires_ms > now ? l[i]->expires_ms - now : 1000;

			/* Past the budget the rest is left out: relearned at its next query. */
			if (count * 64 > NFT_ELEM_BUDGET / 4)
				break;

			if ((l[i]->family == AF_INET6) != v6 || (l[i]->nports > 0) != port)
				continue;
			if (!port) {
				elem_add(st, l[i]->addr, v6 ? 16 : 4, NULL, left);
				count++;
			}
			for (size_t k = 0; port && k < l[i]->nports; k++, count++)
				elem_add(st, l[i]->addr, v6 ? 16 : 4, &l[i]->ports[k], left);
		}
		if (count > 0) {
			nlh = batch_hdr(nb, type, type == NFT_MSG_NEWSETELEM ? NLM_F_CREATE : 0);
			nftnl_set_elems_nlmsg_build_payload(nlh, st);
			mnl_nlmsg_batch_next(nb->b);
		}
		nftnl_set_free(st);
	}
}

/* The host's addresses into @h4/@h6. */
static void
put_host_elems(struct nft_batch *nb)
{
	for (int set = SET_H4; set <= SET_H6; set++) {
		int fam = set == SET_H4 ? AF_INET : AF_INET6;
		struct nftnl_set *st = set_new(nb->s, set);
		size_t count = 0;

		for (size_t i = 0; i < nb->s->nhosts; i++)
			if (nb->s->hosts[i].family == fam) {
				elem_add(st, nb->s->hosts[i].addr, fam == AF_INET ? 4 : 16, NULL, 0);
				count++;
			}
		if (count > 0) {
			struct nlmsghdr *nlh = batch_hdr(nb, NFT_MSG_NEWSETELEM, NLM_F_CREATE);

			nftnl_set_elems_nlmsg_build_payload(nlh, st);
			mnl_nlmsg_batch_next(nb->b);
		}
		nftnl_set_free(st);
	}
}

/* Accept rules of one entry: per port, TCP and UDP; no ports: any protocol. */
static void
put_entry(struct nft_batch *nb, const struct egress_entry *e, const char *text)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP };
	struct nftnl_rule *r;

	if (e->nports == 0) {
		r = rule_new(nb->s, "out");
		m_daddr(r, e->family, e->addr, e->prefix);
		x_log(r, nb->s, 'a', text);
		x_verdict(r, NF_ACCEPT, NULL);
		rule_put(nb, r);
		return;
	}
	for (size_t k = 0; k < e->nports; k++)
		for (size_t p = 0; p < sizeof protos; p++) {
			r = rule_new(nb->s, "out");
			m_daddr(r, e->family, e->addr, e->prefix);
			m_l4proto(r, protos[p]);
			m_dport(r, e->ports[k]);
			x_log(r, nb->s, 'a', text);
			x_verdict(r, NF_ACCEPT, NULL);
			rule_put(nb, r);
		}
}

/* Log (rate-limited, the rule goes on when over the limit) and refuse. */
static void
put_refuse(struct nft_batch *nb, const struct egress_guard *g, const char *text)
{
	for (int logged = 1; logged >= 0; logged--) {
		struct nftnl_rule *r = rule_new(nb->s, "out");

		if (g != NULL)
			m_daddr(r, g->family, g->addr, g->prefix);
		if (logged) {
			x_limit(r);
			x_log(r, nb->s, 'd', text);
		} else
			x_counter(r);
		x_verdict(r, NFT_JUMP, "refuse");
		rule_put(nb, r);
	}
}

/* ct state & bits != 0 */
static void
m_ctstate(struct nftnl_rule *r, uint32_t bits)
{
	struct nftnl_expr *e = nftnl_expr_alloc("ct");
	uint32_t zero = 0;

	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_STATE);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	x_add(r, e);
	x_bitwise(r, NFT_REG_1, 4, &bits);
	x_cmp(r, NFT_REG_1, NFT_CMP_NEQ, &zero, 4);
}

/* New TCP/UDP flows to the queue: no bypass, so without a reader they drop. */
static void
put_queue(struct nft_batch *nb)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP };

	for (size_t i = 0; i < sizeof protos; i++) {
		struct nftnl_rule *r = rule_new(nb->s, "out");
		struct nftnl_expr *e;

		m_l4proto(r, protos[i]);
		m_ctstate(r, NF_CT_STATE_BIT(IP_CT_NEW));
		/* The kernels here lack nft_queue (CONFIG_NFT_QUEUE) but have
		 * nft_compat and xt_NFQUEUE: the same queue through the xtables
		 * target (what iptables-nft emits), revision 3, no bypass flag. */
		{
			struct xt_NFQ_info_v3 info = { .queuenum = SIDE_QUEUE_NUM, .queues_total = 1 };
			/* libnftnl takes this buffer over (frees it with the rule). */
			uint8_t *pad = xcalloc(1, XT_ALIGN(sizeof info));

			memcpy(pad, &info, sizeof info);
			e = nftnl_expr_alloc("target");
			nftnl_expr_set_str(e, NFTNL_EXPR_TG_NAME, "NFQUEUE");
			nftnl_expr_set_u32(e, NFTNL_EXPR_TG_REV, 3);
			nftnl_expr_set(e, NFTNL_EXPR_TG_INFO, pad, XT_ALIGN(sizeof info));
			x_add(r, e);
		}
		rule_put(nb, r);
	}
}

static void
put_rules(struct nft_batch *nb)
{
	struct side *s = nb->s;
	struct nftnl_rule *r;
	char lo[IFNAMSIZ] = "lo";
	uint32_t mark = SIDE_MARK;
	/* router solicitation, neighbour solicitation/advertisement, MLDv2 report */
	static const uint8_t nd[] = { 133, 135, 136, 143 };

	r = rule_new(s, "out");
	x_meta(r, NFT_META_OIFNAME, NFT_REG_1);
	x_cmp(r, NFT_REG_1, NFT_CMP_EQ, lo, sizeof lo);
	x_verdict(r, NF_ACCEPT, NULL);
	rule_put(nb, r);

	if (s->ask_ms > 0) {
		uint32_t refuse = SIDE_REFUSE_MARK;

		r = rule_new(s, "out");
		x_meta(r, NFT_META_MARK, NFT_REG_1);
		x_cmp(r, NFT_REG_1, NFT_CMP_EQ, &refuse, 4);
		x_counter(r);
		x_verdict(r, NFT_JUMP, "refuse");
		rule_put(nb, r);
	}

	r = rule_new(s, "out");
	m_ctstate(r, NF_CT_STATE_BIT(IP_CT_ESTABLISHED) | NF_CT_STATE_BIT(IP_CT_RELATED));
	x_verdict(r, NF_ACCEPT, NULL);
	rule_put(nb, r);

	/* The router's upstream queries: its marked socket, to the upstream only. */
	{
		int fam = s->upstream.ss_family;
		const uint8_t *ua = fam == AF_INET
		    ? (const uint8_t *)&((struct sockaddr_in *)&s->upstream)->sin_addr
		    : (const uint8_t *)&((struct sockaddr_in6 *)&s->upstream)->sin6_addr;
		uint16_t up = ntohs(fam == AF_INET ? ((struct sockaddr_in *)&s->upstream)->sin_port
		    : ((struct sockaddr_in6 *)&s->upstream)->sin6_port);

		r = rule_new(s, "out");
		x_meta(r, NFT_META_MARK, NFT_REG_1);
		x_cmp(r, NFT_REG_1, NFT_CMP_EQ, &mark, 4);
		m_daddr(r, fam, ua, fam == AF_INET ? 32 : 128);
		m_l4proto(r, IPPROTO_UDP);
		m_dport(r, up);
		x_verdict(r, NF_ACCEPT, NULL);
		rule_put(nb, r);
	}

	/* The credential broker's own sockets: it connects only to the upstreams
	 * the coordinator gave it, which need no allow_egress entry. */
	{
		uint32_t bmark = SIDE_BROKER_MARK;

		r = rule_new(s, "out");
		x_meta(r, NFT_META_MARK, NFT_REG_1);
		x_cmp(r, NFT_REG_1, NFT_CMP_EQ, &bmark, 4);
		m_l4proto(r, IPPROTO_TCP);
		x_verdict(r, NF_ACCEPT, NULL);
		rule_put(nb, r);
	}

	for (size_t i = 0; i < sizeof nd; i++) {
		r = rule_new(s, "out");
		m_nfproto(r, AF_INET6);
		m_l4proto(r, IPPROTO_ICMPV6);
		x_payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, 0, 1, NFT_REG_1);
		x_cmp(r, NFT_REG_1, NFT_CMP_EQ, &nd[i], 1);
		x_verdict(r, NF_ACCEPT, NULL);
		rule_put(nb, r);
	}

	for (size_t i = 0; i < s->pol.n; i++)
		if (egress_entry_guard(&s->pol.e[i]) != NULL || side_host_listed(s, &s->pol.e[i]))
			put_entry(nb, &s->pol.e[i], s->pol.text[i]);
	for (size_t i = 0; i < egress_nguards; i++) {
		char what[96];

		snprintf(what, sizeof what, "guard: %s", egress_guards[i].what);
		put_refuse(nb, &egress_guards[i], what);
	}
	/* Before every broad entry, learned set and the queue: never asked about. */
	for (int set = SET_H4; set <= SET_H6; set++)
		for (int logged = 1; logged >= 0; logged--) {
			r = rule_new(s, "out");
			m_nfproto(r, set == SET_H4 ? AF_INET : AF_INET6);
			x_payload(r, NFT_PAYLOAD_NETWORK_HEADER, set == SET_H4 ? 16 : 24,
			    set == SET_H4 ? 4 : 16, NFT_REG32_00);
			x_lookup(r, NFT_REG32_00, set);
			if (logged) {
				x_limit(r);
				x_log(r, s, 'd', "guard: an address of this host");
			} else
				x_counter(r);
			x_verdict(r, NFT_JUMP, "refuse");
			rule_put(nb, r);
		}
	for (size_t i = 0; i < s->pol.n; i++)
		if (s->pol.e[i].kind == EGRESS_CIDR && egress_entry_guard(&s->pol.e[i]) == NULL &&
		    !side_host_listed(s, &s->pol.e[i]))
			put_entry(nb, &s->pol.e[i], s->pol.text[i]);

	for (int set = SET_D4; set <= SET_D6P; set++) {
		bool v6 = set == SET_D6 || set == SET_D6P;
		uint32_t alen = v6 ? 16 : 4;

		for (size_t p = 0; p < 2; p++) {
			if (set <= SET_D6 && p == 1)
				continue;
			r = rule_new(s, "out");
			m_nfproto(r, v6 ? AF_INET6 : AF_INET);
			if (set >= SET_D4P)
				m_l4proto(r, p == 0 ? IPPROTO_TCP : IPPROTO_UDP);
			x_payload(r, NFT_PAYLOAD_NETWORK_HEADER, v6 ? 24 : 16, alen, NFT_REG32_00);
			if (set >= SET_D4P)
				x_payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, NFT_REG32_00 + alen / 4);
			x_lookup(r, NFT_REG32_00, set);
			x_log(r, s, 'a', "dns");
			x_verdict(r, NF_ACCEPT, NULL);
			rule_put(nb, r);
		}
	}
	if (s->ask_ms > 0)
		put_queue(nb);
	put_refuse(nb, NULL, "default");

	r = rule_new(s, "refuse");
	m_l4proto(r, IPPROTO_TCP);
	x_reject(r, NFT_REJECT_TCP_RST, 0);
	rule_put(nb, r);
	r = rule_new(s, "refuse");
	x_reject(r, NFT_REJECT_ICMPX_UNREACH, NFT_REJECT_ICMPX_PORT_UNREACH);
	rule_put(nb, r);
}

int
side_nft_apply(struct side *s, lz_err_t *err)
{
	struct nft_batch nb;
	const struct side_learned **l;
	size_t n = 0;
	int ret;

	side_learned_prune(s);
	l = xcalloc(s->nlearned + 1, sizeof *l);
	for (size_t i = 0; i < s->nlearned; i++)
		l[n++] = &s->learned[i];
	batch_start(&nb, s);
	/* Create, delete, create: the table is replaced whether it existed or not. */
	put_table(&nb, NFT_MSG_NEWTABLE, NLM_F_CREATE);
	put_table(&nb, NFT_MSG_DELTABLE, 0);
	put_table(&nb, NFT_MSG_NEWTABLE, NLM_F_CREATE);
	put_chain(&nb, "refuse", false);
	put_chain(&nb, "out", true);
	for (int set = SET_D4; set <= SET_H6; set++)
		put_set(&nb, set);
	put_elems(&nb, l, n, NFT_MSG_NEWSETELEM, side_now_ms());
	put_host_elems(&nb);
	put_rules(&nb);
	ret = batch_send(&nb, "replacing the ruleset", err);
	free(l);
	return ret;
}

int
side_nft_learn(struct side *s, const struct side_learned *const *l, size_t n, lz_err_t *err)
{
	struct nft_batch nb;
	uint64_t now = side_now_ms();

	if (n == 0)
		return 0;
	batch_start(&nb, s);
	/* Add (a no-op if there), delete, add: a fresh timeout either way. */
	put_elems(&nb, l, n, NFT_MSG_NEWSETELEM, now);
	put_elems(&nb, l, n, NFT_MSG_DELSETELEM, now);
	put_elems(&nb, l, n, NFT_MSG_NEWSETELEM, now);
	return batch_send(&nb, "adding learned addresses", err);
}
