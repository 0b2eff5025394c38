/* side-log.c - flow events from the nflog group the ruleset logs to.
 *
 * nflog, not conntrack events: a refused packet never becomes a confirmed
 * conntrack entry, so conntrack would not see blocked flows at all, and the
 * log prefix carries the rule that decided (allowed entry, guard, default).
 * The kernel rate-limits the refused side (nft limit); this side is bounded by
 * the socket buffer (overflow counts as lost) and by side_event's own limit. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>

#include "side.h"

static int
log_config(struct side *s, uint16_t type, const void *data, size_t len, lz_err_t *err)
{
	char buf[8192];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;
	uint32_t seq = (uint32_t)time(NULL), portid = mnl_socket_get_portid(s->log);
	ssize_t n;

	nlh->nlmsg_type = (NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_CONFIG;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof *nfg);
	nfg->nfgen_family = AF_UNSPEC;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = htons(s->nflog_group);
	mnl_attr_put(nlh, type, len, data);
	if (mnl_socket_sendto(s->log, nlh, nlh->nlmsg_len) < 0)
		return lz_err_sys(err, errno, "nflog: configuring group %u", s->nflog_group);
	n = mnl_socket_recvfrom(s->log, buf, sizeof buf);
	if (n < 0 || mnl_cb_run(buf, (size_t)n, seq, portid, NULL, NULL) < 0)
		return lz_err_sys(err, errno, "nflog: binding group %u", s->nflog_group);
	return 0;
}

int
side_log_open(struct side *s, lz_err_t *err)
{
	struct nfulnl_msg_config_cmd cmd = { .command = NFULNL_CFG_CMD_BIND };
	struct nfulnl_msg_config_mode mode = { .copy_range = htonl(80),
		.copy_mode = NFULNL_COPY_PACKET };
	/* each flow's first packet at once: the kernel otherwise holds up to 100
	 * of them for up to a second (its default flush timeout), late in the
	 * panel and lost if the router dies meanwhile */
	uint32_t qthresh = htonl(1);
	int fd;

	s->log = mnl_socket_open(NETLINK_NETFILTER);
	if (s->log == NULL)
		return lz_err_sys(err, errno, "nflog: netlink socket");
	if (mnl_socket_bind(s->log, 0, MNL_SOCKET_AUTOPID) < 0)
		return lz_err_sys(err, errno, "nflog: netlink bind");
	if (log_config(s, NFULA_CFG_CMD, &cmd, sizeof cmd, err) < 0 ||
	    log_config(s, NFULA_CFG_MODE, &mode, sizeof mode, err) < 0 ||
	    log_config(s, NFULA_CFG_QTHRESH, &qthresh, sizeof qthresh, err) < 0)
		return -1;
	fd = mnl_socket_get_fd(s->log);
	/* Never block the loop; an overflowing buffer reports ENOBUFS (counted). */
	return side_nonblock(fd, err);
}

int
side_log_fd(struct side *s)
{
	return s->log ? mnl_socket_get_fd(s->log) : -1;
}

static int
log_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (mnl_attr_type_valid(a, NFULA_MAX) > 0)
		tb[type] = a;
	return MNL_CB_OK;
}

int
side_packet_dest(const uint8_t *p, size_t n, int *family, uint8_t addr[16], uint8_t *proto,
    uint16_t *port)
{
	size_t l4;

	*port = 0;
	if (n < 1)
		return -1;
	if (p[0] >> 4 == 4) {
		if (n < 20 || (size_t)(p[0] & 0xf) * 4 < 20)
			return -1;
		l4 = (size_t)(p[0] & 0xf) * 4;
		*proto = p[9];
		*family = AF_INET;
		memcpy(addr, p + 16, 4);
	} else if (p[0] >> 4 == 6) {
		if (n < 40)
			return -1;
		l4 = 40;
		*proto = p[6];
		*family = AF_INET6;
		memcpy(addr, p + 24, 16);
	} else
		return -1;
	if ((*proto == IPPROTO_TCP || *proto == IPPROTO_UDP) && n >= l4 + 4)
		*port = (uint16_t)(p[l4 + 2] << 8 | p[l4 + 3]);
	return 0;
}

/* Destination of the logged packet into the event. */
static int
log_packet(const uint8_t *p, size_t n, struct netctl_event *ev)
{
	int family;
	uint8_t addr[16], proto;
	uint16_t port;

	if (side_packet_dest(p, n, &family, addr, &proto, &port) < 0)
		return -1;
	ev->proto = proto;
	ev->port = port;
	inet_ntop(family, addr, ev->addr, sizeof ev->addr);
	return 0;
}

static int
log_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct side *s = data;
	const struct nlattr *tb[NFULA_MAX + 1] = { 0 };
	struct netctl_event ev = { .kind = NETCTL_EV_FLOW };
	const char *prefix;
	const uint8_t *pl;
	uint8_t a[16];

	if (mnl_attr_parse(nlh, sizeof(struct nfgenmsg), log_attr_cb, tb) < 0 ||
	    tb[NFULA_PREFIX] == NULL || tb[NFULA_PAYLOAD] == NULL)
		return MNL_CB_OK;
	prefix = mnl_attr_get_str(tb[NFULA_PREFIX]);
	pl = mnl_attr_get_payload(tb[NFULA_PAYLOAD]);
	if (strnlen(prefix, mnl_attr_get_payload_len(tb[NFULA_PREFIX])) < 2 ||
	    log_packet(pl, mnl_attr_get_payload_len(tb[NFULA_PAYLOAD]), &ev) < 0)
		return MNL_CB_OK;
	ev.allowed = prefix[0] == 'a';
	snprintf(ev.rule, sizeof ev.rule, "%s", prefix + 2);
	if (inet_pton(AF_INET, ev.addr, a) == 1 || inet_pton(AF_INET6, ev.addr, a) == 1) {
		const struct side_learned *l = side_learned_find(s,
		    strchr(ev.addr, ':') ? AF_INET6 : AF_INET, a);

		if (l != NULL)
			snprintf(ev.name, sizeof ev.name, "%s", l->name);
	}
	side_event(s, &ev);
	return MNL_CB_OK;
}

void
side_log_read(struct side *s)
{
	static char buf[256 * 1024];

	for (int i = 0; i < 64; i++) {
		ssize_t n = mnl_socket_recvfrom(s->log, buf, sizeof buf);

		if (n < 0) {
			if (errno == ENOBUFS)	/* the kernel dropped log messages */
				s->ev_lost++;
			else
				return;
			continue;
		}
		(void)mnl_cb_run(buf, (size_t)n, 0, 0, log_msg_cb, s);
	}
}
