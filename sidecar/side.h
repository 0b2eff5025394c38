/* side.h - lazaret-sidecar, the network router of one Domain Anchor.
 *
 * Theory of operation: the router owns one nftables `inet` table in the
 * namespace the Agent Sandbox shares (DESIGN "Network topology"). Its output
 * chain drops by default; loopback, established flows, the router's own
 * upstream DNS (by socket mark), allowed CIDR:ports and the addresses learned
 * from allowed domain names (nft sets with timeouts) are accepted; the rest is
 * refused (TCP reset, ICMP unreachable) and logged to an nflog group, which
 * the router reads back as flow events. Its DNS forwarder is the sandbox's
 * only resolver: a name outside the policy is answered REFUSED locally and
 * never forwarded; an allowed name's addresses go into the sets before the
 * answer is sent. A control socket takes policy changes and streams events.
 * Rules stay in place when the router dies: the namespace fails closed.
 */
#ifndef LZ_SIDE_H
#define LZ_SIDE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "dns.h"
#include "egress.h"
#include "err.h"
#include "netctl.h"
#include "proto.h"

#define SIDE_TABLE_DEFAULT	"lazaret"
#define SIDE_MARK		0x4c5a0053u	/* the router's upstream DNS socket */
#define SIDE_NFLOG_GROUP	4242
#define SIDE_TTL_FLOOR		30	/* s: a learned address lives at least this long */
#define SIDE_TTL_CEIL		86400
#define SIDE_MAX_LEARNED	4096
#define SIDE_LEARN_MAX		32	/* addresses learned from one answer */
#define SIDE_MAX_PENDING	256	/* DNS queries waiting for upstream */
#define SIDE_DNS_TIMEOUT_MS	5000
#define SIDE_MAX_CLIENTS	8
#define SIDE_CLIENT_OUT_MAX	(256u * 1024)	/* queued event bytes per subscriber */
#define SIDE_EV_RATE		200	/* events per second, burst twice that */
#define SIDE_EV_RING		256	/* recent events replayed to a new subscriber */

struct side_policy {
	struct egress_entry *e;
	char **text;		/* canonical form of each entry */
	size_t n;
};

/* An address learned from an allowed name, as it is in the nft sets. */
struct side_learned {
	int family;
	uint8_t addr[16];
	char name[DNS_NAME_MAX + 1];
	uint16_t ports[EGRESS_MAX_PORTS];
	size_t nports;		/* 0: any port */
	uint64_t expires_ms;	/* monotonic */
};

struct side_pending {
	bool used;
	uint16_t client_id, up_id;
	struct sockaddr_storage client;
	socklen_t client_len;
	uint64_t deadline_ms;
	char qname[DNS_NAME_MAX + 1];
	uint16_t qtype;
	uint8_t q[512];		/* the query up to its question, for a SERVFAIL */
	struct dns_msg qm;	/* its header and question (no records) */
};

struct side_client {
	int fd;
	bool subscribed;
	struct proto_buf in, out;
	uint32_t lost;		/* events not queued since the last LOST */
};

struct side {
	const char *table;
	const char *ctl_path;
	uint16_t nflog_group;
	unsigned ttl_floor;
	bool verbose;
	struct sockaddr_storage dns_listen, upstream;
	socklen_t dns_listen_len, upstream_len;

	struct side_policy pol;
	struct side_learned *learned;
	size_t nlearned;

	struct mnl_socket *nl;	/* nf_tables batches */
	uint32_t nl_seq;
	struct mnl_socket *log;	/* nflog group */
	int dns_fd, up_fd, ctl_fd;
	struct side_pending pending[SIDE_MAX_PENDING];
	struct side_client clients[SIDE_MAX_CLIENTS];

	struct netctl_event ring[SIDE_EV_RING];
	size_t ring_head, ring_len;
	double ev_tokens;
	uint64_t ev_last_ms;
	uint32_t ev_lost;
};

uint64_t side_now_ms(void);	/* monotonic */
int side_nonblock(int fd, lz_err_t *err);
uint64_t side_wall_ms(void);

/* side-policy.c */
int side_policy_parse(char *const *v, size_t n, struct side_policy *out, lz_err_t *err);
void side_policy_clear(struct side_policy *);
/* Ports an address learned for name may use: *any when an entry matching name
 * has no ports, else the union of the matching entries' ports. Returns the
 * text of the first matching entry (for events), or NULL when none matches. */
const char *side_policy_name_ports(const struct side_policy *, const char *name, bool *any,
    uint16_t *ports, size_t *nports);
/* Remember (or refresh) a learned address; returns it. */
struct side_learned *side_learned_put(struct side *, int family, const uint8_t *addr,
    const char *name, const uint16_t *ports, size_t nports, uint64_t expires_ms);
const struct side_learned *side_learned_find(struct side *, int family, const uint8_t *addr);
/* Drop expired entries and entries no policy entry matches any more. */
void side_learned_prune(struct side *);

/* side-nft.c */
int side_nft_open(struct side *, lz_err_t *err);
/* Replace the whole table atomically: chains, sets, rules and the learned
 * addresses that still match the policy. */
int side_nft_apply(struct side *, lz_err_t *err);
/* Add (or refresh the timeout of) learned addresses in one transaction. */
int side_nft_learn(struct side *, const struct side_learned *const *l, size_t n, lz_err_t *err);
void side_nft_close(struct side *);

/* side-dns.c */
int side_dns_open(struct side *, lz_err_t *err);
void side_dns_query(struct side *);	/* dns_fd readable */
void side_dns_answer(struct side *);	/* up_fd readable */
void side_dns_expire(struct side *);
int side_dns_timeout_ms(struct side *);	/* for poll(), -1 when nothing waits */

/* side-log.c */
int side_log_open(struct side *, lz_err_t *err);
void side_log_read(struct side *);
int side_log_fd(struct side *);

/* side-ctl.c */
int side_ctl_open(struct side *, lz_err_t *err);
void side_ctl_accept(struct side *);
void side_ctl_read(struct side *, struct side_client *);
void side_ctl_write(struct side *, struct side_client *);
/* Rate-limit, keep in the ring, queue to every subscriber. */
void side_event(struct side *, struct netctl_event *);

#endif
