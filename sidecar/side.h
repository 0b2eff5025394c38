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
 * answer is sent. Every address of the host itself (the coordinator sends
 * them: slirp reaches the host's services there) is refused like slirp's
 * gateway, before any broad entry, learned set or queue: never learned from
 * a name, never asked about; only an entry equal to it opens it.
 * A control socket takes policy changes and streams events.
 * With --ask-timeout, a new TCP/UDP flow or a query outside the policy is
 * held (nfqueue; the DNS query in the forwarder) and raised to the
 * coordinator as a request (netreq.h) until a verdict or the timeout; held
 * packets refused later are re-run through the chain with SIDE_REFUSE_MARK,
 * which sends them to the refuse chain (TCP reset, unreachable). Nothing
 * listening on the queue drops the packet: still fail closed.
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
#include "netreq.h"
#include "proto.h"

#define SIDE_TABLE_DEFAULT	"lazaret"
#define SIDE_MARK		0x4c5a0053u	/* the router's upstream DNS socket */
#define SIDE_NFLOG_GROUP	4242
#define SIDE_TTL_FLOOR		300	/* s: a learned address lives at least this long
					 * (what common clients cache a lookup for) */
#define SIDE_TTL_CEIL		86400
#define SIDE_MAX_LEARNED	4096
#define SIDE_LEARN_MAX		32	/* addresses learned from one answer */
#define SIDE_MAX_PENDING	256	/* DNS queries waiting for upstream */
#define SIDE_DNS_TIMEOUT_MS	5000
#define SIDE_MAX_CLIENTS	8
#define SIDE_CLIENT_OUT_MAX	(256u * 1024)	/* queued event bytes per subscriber */
#define SIDE_EV_RATE		200	/* events per second, burst twice that */
#define SIDE_EV_RING		256	/* recent events replayed to a new subscriber */
#define SIDE_BROKER_MARK	0x4c5a0042u	/* the credential broker's upstream sockets */
#define SIDE_REFUSE_MARK	0x4c5a0052u	/* a held packet refused: re-run, then refused */
#define SIDE_QUEUE_NUM		4242	/* nfqueue the new flows outside the policy go to */
#define SIDE_QUEUE_MAXLEN	2048	/* packets the kernel holds; more are dropped */
#define SIDE_MAX_ASKS		NETREQ_MAX_PENDING	/* pending destinations */
#define SIDE_ASK_HELD		4	/* packets held per destination; more are refused */
#define SIDE_ASK_HELDQ		4	/* DNS queries held per name */
#define SIDE_MAX_HELDQ		64	/* DNS queries held in all */
#define SIDE_MAX_DENIED		1024	/* destinations denied for this run */
#define SIDE_MAX_HINTS		256	/* addresses of names resolved "once" */
#define SIDE_MAX_PAST		1024	/* expired learned addresses whose name is kept */
#define SIDE_LOOKUP_MS		10000	/* a name's verdict covers its other queries this long */
#define SIDE_MAX_LOOKUPS	64	/* names decided within SIDE_LOOKUP_MS */
#define SIDE_ASK_UPDATE_MS	(1000 / NETREQ_FOLLOW_HZ)	/* counter updates, at most */
#define SIDE_MAX_HOSTS		NETCTL_MAX_ENTRIES	/* the host's own addresses, guarded */

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
	bool once;		/* approved once: answer, keep the addresses as hints */
	uint16_t client_id, up_id;
	struct sockaddr_storage client;
	socklen_t client_len;
	uint64_t deadline_ms;
	char qname[DNS_NAME_MAX + 1];
	uint16_t qtype;
	uint8_t q[512];		/* the query up to its question, for a SERVFAIL */
	struct dns_msg qm;	/* its header and question (no records) */
};

/* A destination outside the policy, waiting for a verdict. Flows are one
 * entry per (address, protocol, port); queries one per name. */
struct side_ask {
	bool used;
	bool dirty;		/* attempts changed since the last ASK frame */
	uint32_t id;
	uint32_t kind;		/* NETREQ_KIND_FLOW / NETREQ_KIND_DNS */
	int family;
	uint8_t addr[16];
	uint8_t proto;		/* flow: IPPROTO_TCP/UDP */
	uint16_t port;
	uint16_t qtype;		/* DNS: the first query's type */
	char name[DNS_NAME_MAX + 1];	/* DNS: the name; flow: the name it came from */
	uint32_t attempts;
	uint64_t first_wall, last_wall, expires_wall;
	uint64_t deadline_ms;	/* monotonic */
	uint64_t sent_ms;	/* last ASK frame */
	uint32_t held[SIDE_ASK_HELD];	/* nfqueue packet ids */
	size_t nheld;
};

/* A query held while its name is asked about. */
struct side_heldq {
	bool used;
	uint32_t ask;		/* side_ask id */
	struct sockaddr_storage client;
	socklen_t client_len;
	size_t len;
	uint8_t q[512];
};

/* A destination denied for this run: refused without asking. */
struct side_denied {
	uint32_t kind;
	int family;
	uint8_t addr[16];
	uint8_t proto;
	uint16_t port;
	char name[DNS_NAME_MAX + 1];
};

/* An address a query approved "once" resolved to: not allowed, but a flow
 * to it is asked about under that name. */
struct side_hint {
	int family;
	uint8_t addr[16];
	char name[DNS_NAME_MAX + 1];
	uint64_t expires_ms;
};

/* An address of the host itself (the coordinator reads them): slirp reaches
 * the host's services there, so it is guarded like 10.0.2.2. */
struct side_host {
	int family;
	uint8_t addr[16];
};

/* A query's verdict, kept for the rest of that lookup: its other record
 * types (AAAA, A, AAAA again) follow the same answer, unasked. */
struct side_lookup {
	char name[DNS_NAME_MAX + 1];
	bool accept;
	uint64_t until_ms;
};

enum side_q { SIDE_Q_REFUSE, SIDE_Q_HELD, SIDE_Q_ONCE };

struct side_client {
	int fd;
	bool subscribed;
	struct proto_buf in, out;
	uint32_t lost;		/* events not queued since the last LOST */
};

/* The requests (side-ask.c) as the files below them reach them: side-queue.c
 * brings a held packet, side-dns.c a query outside the policy, side-ctl.c a
 * verdict and a new subscriber. side-ask.c calls each of those files back
 * (a packet's verdict, a held query released, an entry added), so they call
 * it through this table, which sidecar.c sets at start-up (side_ask_ops):
 * no call circle between the files. */
struct side;

struct side_ask_ops {
	/* A held packet: ask (or refuse at once: denied, list full, too many held). */
	void (*packet)(struct side *, uint32_t packet_id, const uint8_t *pkt, size_t len);
	/* A query for a name outside the policy: held (asked about), refused, or
	 * forwarded once (the lookup it belongs to was approved once). */
	enum side_q (*query)(struct side *, const char *name, uint16_t qtype, const uint8_t *q,
	    size_t len, const struct sockaddr_storage *from, socklen_t fromlen);
	/* NETCTL_VERDICT: 1 when attempts were held, 0 when the request was gone
	 * (an entry is still added), -1 with err. */
	int (*verdict)(struct side *, uint32_t id, uint32_t verdict, const char *entry,
	    lz_err_t *err);
	/* Every pending request and the counters, to one new subscriber. */
	void (*replay)(struct side *, struct side_client *);
};

struct side {
	const struct side_ask_ops *ask;	/* &side_ask_ops, set by sidecar.c */
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
	struct side_host *hosts;
	size_t nhosts;

	struct mnl_socket *nl;	/* nf_tables batches */
	uint32_t nl_seq;
	struct mnl_socket *log;	/* nflog group */
	int dns_fd, up_fd, ctl_fd;
	struct side_pending pending[SIDE_MAX_PENDING];
	struct side_client clients[SIDE_MAX_CLIENTS];

	/* Requests (side-ask.c); ask_ms 0: nothing is asked, all refused. */
	unsigned ask_ms;
	struct mnl_socket *queue;
	uint32_t queue_next;	/* the packet id expected next (ids are sequential) */
	struct side_ask asks[SIDE_MAX_ASKS];
	uint32_t next_ask;
	struct side_heldq heldq[SIDE_MAX_HELDQ];
	struct side_denied *denied;
	size_t ndenied;
	struct side_hint hints[SIDE_MAX_HINTS];
	size_t nhints;
	struct side_hint past[SIDE_MAX_PAST];	/* ring: the name an address was last learned from */
	size_t past_next;
	struct side_lookup lookups[SIDE_MAX_LOOKUPS];	/* ring */
	size_t lookup_next;
	uint32_t overflow, denied_hits;
	bool summary_dirty;
	uint64_t summary_ms;	/* last SUMMARY frame */

	struct netctl_event ring[SIDE_EV_RING];
	size_t ring_head, ring_len;
	double ev_tokens;
	uint64_t ev_last_ms;
	uint32_t ev_lost;
};

/* side-base.c: what every file calls */
uint64_t side_now_ms(void);	/* monotonic */
uint64_t side_wall_ms(void);
int side_nonblock(int fd, lz_err_t *err);

/* side-event.c: to the control socket's subscribers */
/* Rate-limit, keep in the ring, queue to every subscriber. */
void side_event(struct side *, struct netctl_event *);
/* Queue one frame (ASK, SUMMARY) to every subscriber (bounded like events). */
void side_event_broadcast(struct side *, const struct proto_buf *frame);
/* The recent events in the ring, to one new subscriber. */
void side_event_replay(struct side *, struct side_client *);

/* side-policy.c */
int side_policy_parse(char *const *v, size_t n, struct side_policy *out, lz_err_t *err);
void side_policy_clear(struct side_policy *);
/* Ports an address learned for name may use: *any when an entry matching name
 * has no ports, else the union of the matching entries' ports. Returns the
 * text of the first matching entry (for events), or NULL when none matches. */
const char *side_policy_name_ports(const struct side_policy *, const char *name, bool *any,
    uint16_t *ports, size_t *nports);
/* Parse the host's addresses (text, one each); replaces nothing on error. */
int side_hosts_parse(char *const *v, size_t n, struct side_host **out, size_t *nout,
    lz_err_t *err);
bool side_host_find(const struct side *, int family, const uint8_t *addr);
/* A CIDR entry that is exactly one of the host's addresses (it opens it). */
bool side_host_listed(const struct side *, const struct egress_entry *e);
/* Remember (or refresh) a learned address; returns it. */
struct side_learned *side_learned_put(struct side *, int family, const uint8_t *addr,
    const char *name, const uint16_t *ports, size_t nports, uint64_t expires_ms);
const struct side_learned *side_learned_find(struct side *, int family, const uint8_t *addr);
/* The name an address was last learned from, after it expired; or NULL. */
const char *side_past_find(struct side *, int family, const uint8_t *addr);
/* Drop expired entries and entries no policy entry matches any more. */
void side_learned_prune(struct side *);
/* The name an address was resolved from "once" (side-dns.c puts the
 * addresses a query approved once resolved to), or NULL. */
const char *side_hint_find(struct side *, int family, const uint8_t *addr);
void side_hint_put(struct side *, int family, const uint8_t *addr, const char *name,
    uint64_t expires_ms);

/* side-ct.c: learned addresses expiring within within_ms that still have a
 * live flow (conntrack) get another floor. */
void side_ct_refresh(struct side *, uint64_t within_ms);

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
/* A held query after its verdict: forwarded as if just asked; once: even
 * though its name is outside the policy, its addresses kept as hints only. */
void side_dns_release(struct side *, const uint8_t *q, size_t len,
    const struct sockaddr_storage *from, socklen_t fromlen, bool once);
/* Answer a held query REFUSED. */
void side_dns_refuse(struct side *, const uint8_t *q, size_t len,
    const struct sockaddr_storage *from, socklen_t fromlen);

/* side-log.c */
/* Destination of an IP packet (network header first); 0 or -1. */
int side_packet_dest(const uint8_t *p, size_t n, int *family, uint8_t addr[16], uint8_t *proto,
    uint16_t *port);
int side_log_open(struct side *, lz_err_t *err);
void side_log_read(struct side *);
int side_log_fd(struct side *);

/* side-queue.c: the nfqueue the new flows outside the policy are held in */
int side_queue_open(struct side *, lz_err_t *err);
int side_queue_fd(struct side *);
void side_queue_read(struct side *);
/* NF_ACCEPT, or refuse (re-run with SIDE_REFUSE_MARK). */
void side_queue_verdict(struct side *, uint32_t packet_id, bool accept);

/* side-ask.c: the requests. The files it calls (side-queue.c, side-dns.c,
 * side-ctl.c) reach it only through s->ask (struct side_ask_ops). */
extern const struct side_ask_ops side_ask_ops;
/* Timeouts and counter updates; returns the poll timeout in ms (-1: none). */
int side_ask_tick(struct side *);

/* side-broker.c, side-broker-io.c: the credential broker (NETCTL_CRED_SET) */
int side_broker_set(struct side *, char **v, size_t n, lz_err_t *err);
int side_broker_fd(void);	/* events from its threads; -1 before any credential */
void side_broker_read(struct side *);
void side_broker_wipe(void);

/* side-ctl.c */
int side_ctl_open(struct side *, lz_err_t *err);
void side_ctl_accept(struct side *);
void side_ctl_read(struct side *, struct side_client *);
void side_ctl_write(struct side *, struct side_client *);
/* Apply a policy with one more entry (no-op when it is there). */
int side_ctl_add_entry(struct side *, const char *entry, lz_err_t *err);

#endif
