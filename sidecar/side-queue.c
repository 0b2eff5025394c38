/* side-queue.c - the nfqueue that holds a new flow outside the policy
 * (nfnetlink_queue messages built on libmnl, like side-log.c's nflog).
 *
 * No fail-open flag and no `bypass` in the rule: a full queue, or no router
 * bound to it, drops the packet. A refused packet is handed back with
 * NF_REPEAT and SIDE_REFUSE_MARK: the chain runs again and its first rule
 * sends it to `refuse`, so the agent gets a reset, not a silent timeout. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>

#include "side.h"

static struct nlmsghdr *
queue_hdr(char *buf, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (uint16_t)((NFNL_SUBSYS_QUEUE << 8) | type);
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof *nfg);
	nfg->nfgen_family = AF_UNSPEC;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = htons(SIDE_QUEUE_NUM);
	return nlh;
}

static int
queue_config(struct side *s, uint16_t attr, const void *data, size_t len, lz_err_t *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = queue_hdr(buf, NFQNL_MSG_CONFIG, NLM_F_ACK);
	uint32_t portid = mnl_socket_get_portid(s->queue);
	ssize_t n;

	nlh->nlmsg_seq = (uint32_t)time(NULL);
	mnl_attr_put(nlh, attr, len, data);
	if (mnl_socket_sendto(s->queue, nlh, nlh->nlmsg_len) < 0)
		return lz_err_sys(err, errno, "nfqueue: configuring queue %u", SIDE_QUEUE_NUM);
	n = mnl_socket_recvfrom(s->queue, buf, sizeof buf);
	if (n < 0 || mnl_cb_run(buf, (size_t)n, nlh->nlmsg_seq, portid, NULL, NULL) < 0)
		return lz_err_sys(err, errno, "nfqueue: binding queue %u", SIDE_QUEUE_NUM);
	return 0;
}

int
side_queue_open(struct side *s, lz_err_t *err)
{
	struct nfqnl_msg_config_cmd cmd = { .command = NFQNL_CFG_CMD_BIND };
	struct nfqnl_msg_config_params params = { .copy_range = htonl(128),
		.copy_mode = NFQNL_COPY_PACKET };
	uint32_t maxlen = htonl(SIDE_QUEUE_MAXLEN);
	int rcv = 1 << 20;

	s->queue = mnl_socket_open(NETLINK_NETFILTER);
	if (s->queue == NULL)
		return lz_err_sys(err, errno, "nfqueue: netlink socket");
	if (mnl_socket_bind(s->queue, 0, MNL_SOCKET_AUTOPID) < 0)
		return lz_err_sys(err, errno, "nfqueue: netlink bind");
	if (queue_config(s, NFQA_CFG_CMD, &cmd, sizeof cmd, err) < 0 ||
	    queue_config(s, NFQA_CFG_PARAMS, &params, sizeof params, err) < 0 ||
	    queue_config(s, NFQA_CFG_QUEUE_MAXLEN, &maxlen, sizeof maxlen, err) < 0)
		return -1;
	setsockopt(mnl_socket_get_fd(s->queue), SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
	/* A flood overflowing the socket loses packets (ENOBUFS): dropped, fail closed. */
	return side_nonblock(mnl_socket_get_fd(s->queue), err);
}

int
side_queue_fd(struct side *s)
{
	return s->queue ? mnl_socket_get_fd(s->queue) : -1;
}

void
side_queue_verdict(struct side *s, uint32_t packet_id, bool accept)
{
	char buf[256];
	struct nlmsghdr *nlh = queue_hdr(buf, NFQNL_MSG_VERDICT, 0);
	struct nfqnl_msg_verdict_hdr vh = {
		.verdict = htonl(accept ? NF_ACCEPT : NF_REPEAT), .id = htonl(packet_id) };

	mnl_attr_put(nlh, NFQA_VERDICT_HDR, sizeof vh, &vh);
	if (!accept)
		mnl_attr_put_u32(nlh, NFQA_MARK, htonl(SIDE_REFUSE_MARK));
	/* A packet the kernel already dropped (table replaced) answers ENOENT: ignored. */
	(void)mnl_socket_sendto(s->queue, nlh, nlh->nlmsg_len);
}

static int
queue_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (mnl_attr_type_valid(a, NFQA_MAX) > 0)
		tb[type] = a;
	return MNL_CB_OK;
}

static int
queue_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct side *s = data;
	const struct nlattr *tb[NFQA_MAX + 1] = { 0 };
	const struct nfqnl_msg_packet_hdr *ph;

	if ((nlh->nlmsg_type & 0xff) != NFQNL_MSG_PACKET ||
	    mnl_attr_parse(nlh, sizeof(struct nfgenmsg), queue_attr_cb, tb) < 0 ||
	    tb[NFQA_PACKET_HDR] == NULL ||
	    mnl_attr_get_payload_len(tb[NFQA_PACKET_HDR]) < sizeof *ph)
		return MNL_CB_OK;
	ph = mnl_attr_get_payload(tb[NFQA_PACKET_HDR]);
	/* Ids are sequential: a gap is messages the socket lost (ENOBUFS), whose
	 * packets would sit in the queue forever. Refuse them (bounded). */
	{
		uint32_t id = ntohl(ph->packet_id);

		if (s->queue_next != 0 && id > s->queue_next && id - s->queue_next <= 2 * SIDE_QUEUE_MAXLEN)
			for (uint32_t k = s->queue_next; k != id; k++)
				side_queue_verdict(s, k, false);
		s->queue_next = id + 1;
	}
	if (tb[NFQA_PAYLOAD] == NULL) {
		side_queue_verdict(s, ntohl(ph->packet_id), false);
		return MNL_CB_OK;
	}
	s->ask->packet(s, ntohl(ph->packet_id), mnl_attr_get_payload(tb[NFQA_PAYLOAD]),
	    mnl_attr_get_payload_len(tb[NFQA_PAYLOAD]));
	return MNL_CB_OK;
}

void
side_queue_read(struct side *s)
{
	static char buf[256 * 1024];

	for (int i = 0; i < 64; i++) {
		ssize_t n = mnl_socket_recvfrom(s->queue, buf, sizeof buf);

		if (n < 0) {
			if (errno == ENOBUFS) {	/* the kernel dropped queued packets */
				s->overflow++;
				s->summary_dirty = true;
				continue;
			}
			return;
		}
		(void)mnl_cb_run(buf, (size_t)n, 0, 0, queue_msg_cb, s);
	}
}
