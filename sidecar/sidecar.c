/* sidecar.c - lazaret-sidecar: arguments, start-up order, the poll loop.
 *
 * Start-up order is the fail-closed promise: the ruleset (default deny) is in
 * the kernel before the DNS forwarder answers, and the control socket, which
 * the coordinator waits for, exists only after both. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "side.h"
#include "strv.h"
#include "xmalloc.h"

static const char usage[] =
    "usage: lazaret-sidecar --ctl PATH [--allow ENTRY]... [--dns ADDR:PORT]\n"
    "                       [--upstream ADDR[:PORT]] [--table NAME] [--nflog-group N]\n"
    "                       [--ttl-floor SECONDS] [--ask-timeout MS] [--host-addr ADDR]...\n"
    "                       [--verbose]\n"
    "   or: lazaret-sidecar --check\n"
    "\n"
    "The network router of one Lazaret domain: nftables default deny, allowed CIDRs\n"
    "and domain names, the sandbox's DNS forwarder, flow events on the control socket.\n"
    "  --ctl PATH          control socket (created; its directory should be 0700)\n"
    "  --allow ENTRY       initial policy entry: CIDR or domain, optional :ports\n"
    "  --dns ADDR:PORT     where the sandbox's resolver listens (127.0.0.1:53)\n"
    "  --upstream ADDR     resolver allowed names are forwarded to (10.0.2.3:53)\n"
    "  --table NAME        nftables inet table (lazaret)\n"
    "  --nflog-group N     nflog group for flow events (4242)\n"
    "  --ttl-floor S       shortest life of a learned address, renewed while a flow\n"
    "                      to it is live (300)\n"
    "  --ask-timeout MS    hold a new flow or query outside the policy this long and\n"
    "                      ask the coordinator (NETCTL_ASK); 0: refuse at once (0)\n"
    "  --host-addr ADDR    an address of the host itself: refused like 10.0.2.2 unless an\n"
    "                      entry lists it exactly, never learned from a name, never asked\n"
    "                      about (the coordinator sends changes on the control socket)\n"
    "  --check             install the default-deny table and bind the nflog group in\n"
    "                      this namespace, then exit (lazaret doctor --deep)\n";

/* "1.2.3.4:53", "[::1]:53", or without the port (dflt). */
static int
side_addr(const char *s, uint16_t dflt, struct sockaddr_storage *ss, socklen_t *len,
    lz_err_t *err)
{
	char host[64];
	const char *port = NULL, *c;
	unsigned long p = dflt;

	memset(ss, 0, sizeof *ss);
	if (s[0] == '[') {
		c = strchr(s, ']');
		if (c == NULL || (size_t)(c - s - 1) >= sizeof host)
			goto bad;
		memcpy(host, s + 1, (size_t)(c - s - 1));
		host[c - s - 1] = '\0';
		if (c[1] == ':')
			port = c + 2;
		else if (c[1] != '\0')
			goto bad;
	} else {
		c = strrchr(s, ':');
		if (c != NULL && strchr(s, ':') == c) {
			if ((size_t)(c - s) >= sizeof host)
				goto bad;
			memcpy(host, s, (size_t)(c - s));
			host[c - s] = '\0';
			port = c + 1;
		} else if (strlen(s) < sizeof host)
			memcpy(host, s, strlen(s) + 1);
		else
			goto bad;
	}
	if (port != NULL) {
		char *end;

		p = strtoul(port, &end, 10);
		if (*port == '\0' || *end != '\0' || p == 0 || p > 65535)
			goto bad;
	}
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		ss->ss_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)p);
		*len = sizeof(struct sockaddr_in);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		ss->ss_family = AF_INET6;
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)p);
		*len = sizeof(struct sockaddr_in6);
		return 0;
	}
bad:
	return lz_err_set(err, LZ_EUSAGE, "'%s' is not ADDR:PORT (IPv6 as [ADDR]:PORT)", s);
}

static bool side_check_only;

static int
side_args(struct side *s, int argc, char **argv, char ***allow, char ***hosts, lz_err_t *err)
{
	static const struct option opts[] = {
		{ "ctl", required_argument, NULL, 'c' }, { "allow", required_argument, NULL, 'a' },
		{ "dns", required_argument, NULL, 'd' }, { "upstream", required_argument, NULL, 'u' },
		{ "table", required_argument, NULL, 't' },
		{ "nflog-group", required_argument, NULL, 'g' },
		{ "ttl-floor", required_argument, NULL, 'f' }, { "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ "check", no_argument, NULL, 'C' },
		{ "ask-timeout", required_argument, NULL, 'k' },
		{ "host-addr", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dns = "127.0.0.1:53", *up = "10.0.2.3:53";
	unsigned long v;
	char *end;
	int o;

	s->table = SIDE_TABLE_DEFAULT;
	s->nflog_group = SIDE_NFLOG_GROUP;
	s->ttl_floor = SIDE_TTL_FLOOR;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'c': s->ctl_path = optarg; break;
		case 'a': lz_strv_push(allow, optarg); break;
		case 'H': lz_strv_push(hosts, optarg); break;
		case 'd': dns = optarg; break;
		case 'u': up = optarg; break;
		case 't': s->table = optarg; break;
		case 'v': s->verbose = true; break;
		case 'C': side_check_only = true; break;
		case 'g':
		case 'f':
		case 'k':
			v = strtoul(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' ||
			    v > (o == 'g' ? 65535 : o == 'k' ? 3600000 : SIDE_TTL_CEIL))
				return lz_err_set(err, LZ_EUSAGE, "--%s: '%s' is not a number in range",
				    o == 'g' ? "nflog-group" : o == 'k' ? "ask-timeout" : "ttl-floor", optarg);
			if (o == 'g')
				s->nflog_group = (uint16_t)v;
			else if (o == 'k')
				s->ask_ms = (unsigned)v;
			else
				s->ttl_floor = (unsigned)v;
			break;
		case 'h': fputs(usage, stdout); exit(0);
		case 'V': puts("lazaret-sidecar " LZ_VERSION); exit(0);
		default: return lz_err_set(err, LZ_EUSAGE, "bad option (see --help)");
		}
	}
	if (optind != argc)
		return lz_err_set(err, LZ_EUSAGE, "unexpected argument '%s'", argv[optind]);
	if (s->ctl_path == NULL && !side_check_only)
		return lz_err_set(err, LZ_EUSAGE, "--ctl PATH is required");
	if (side_addr(dns, 53, &s->dns_listen, &s->dns_listen_len, err) < 0)
		return lz_err_wrap(err, "--dns");
	if (side_addr(up, 53, &s->upstream, &s->upstream_len, err) < 0)
		return lz_err_wrap(err, "--upstream");
	return 0;
}

static int
side_loop(struct side *s, int sigfd)
{
	/* Often enough to renew an address in use before its floor runs out. */
	uint64_t every = s->ttl_floor * 1000ull / 3, next_prune;

	every = every < 500 ? 500 : every > 10000 ? 10000 : every;
	next_prune = side_now_ms() + every;

	for (;;) {
		struct pollfd p[7 + SIDE_MAX_CLIENTS];
		size_t n = 0, base;
		int to = side_dns_timeout_ms(s), ta = side_ask_tick(s);

		p[n++] = (struct pollfd){ sigfd, POLLIN, 0 };
		p[n++] = (struct pollfd){ s->ctl_fd, POLLIN, 0 };
		p[n++] = (struct pollfd){ s->dns_fd, POLLIN, 0 };
		p[n++] = (struct pollfd){ s->up_fd, POLLIN, 0 };
		p[n++] = (struct pollfd){ side_log_fd(s), POLLIN, 0 };
		p[n++] = (struct pollfd){ side_queue_fd(s), POLLIN, 0 };
		p[n++] = (struct pollfd){ side_broker_fd(), POLLIN, 0 };
		base = n;
		for (size_t i = 0; i < SIDE_MAX_CLIENTS; i++)
			p[n++] = (struct pollfd){ s->clients[i].fd,
				(short)(POLLIN | (s->clients[i].out.len ? POLLOUT : 0)), 0 };
		if (ta >= 0 && (to < 0 || ta < to))
			to = ta;
		/* Learned addresses are renewed and pruned on a clock; with none
		 * learned nothing is due until a packet, query or frame arrives: no
		 * wake-up at all while the domain idles (no 1 s tick). */
		if (s->nlearned == 0) {
			next_prune = side_now_ms() + every;
		} else {
			uint64_t now = side_now_ms();
			int tp = next_prune > now ? (int)(next_prune - now) : 0;

			if (to < 0 || tp < to)
				to = tp;
		}
		if (poll(p, n, to) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (p[0].revents & POLLIN)
			return 0;	/* SIGTERM/SIGINT: rules stay (fail closed) */
		if (p[1].revents & POLLIN)
			side_ctl_accept(s);
		if (p[2].revents & POLLIN)
			side_dns_query(s);
		if (p[3].revents & POLLIN)
			side_dns_answer(s);
		if (p[4].revents & POLLIN)
			side_log_read(s);
		if (p[5].revents & POLLIN)
			side_queue_read(s);
		if (p[6].revents & POLLIN)
			side_broker_read(s);
		for (size_t i = 0; i < SIDE_MAX_CLIENTS; i++) {
			struct side_client *c = &s->clients[i];

			if (c->fd < 0 || p[base + i].fd != c->fd)
				continue;
			if (p[base + i].revents & (POLLIN | POLLHUP | POLLERR))
				side_ctl_read(s, c);
			if (c->fd >= 0 && (p[base + i].revents & POLLOUT))
				side_ctl_write(s, c);
		}
		side_dns_expire(s);
		if (side_now_ms() >= next_prune) {
			side_ct_refresh(s, 2 * every);
			side_learned_prune(s);	/* the kernel ages the set elements itself */
			next_prune = side_now_ms() + every;
		}
	}
}

int
main(int argc, char **argv)
{
	static struct side s;
	lz_err_t err = LZ_ERR_INIT;
	char **allow = NULL, **hosts = NULL;
	sigset_t set;
	int sigfd, rc = 1;
	bool ask_missing = false;
	struct netctl_event start = { .kind = NETCTL_EV_ROUTER, .allowed = 1 };

	s.ask = &side_ask_ops;
	s.dns_fd = s.up_fd = s.ctl_fd = -1;
	s.ev_tokens = 2 * SIDE_EV_RATE;
	s.ev_last_ms = side_now_ms();
	if (side_args(&s, argc, argv, &allow, &hosts, &err) < 0) {
		fprintf(stderr, "lazaret-sidecar: %s\n", err.msg);
		return lz_err_exit_code(&err);
	}
	signal(SIGPIPE, SIG_IGN);
	/* it will hold secrets: no core dumps, no ptrace by its own uid's peers */
	prctl(PR_SET_DUMPABLE, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		lz_err_sys(&err, errno, "signalfd");
		goto out;
	}
	if (side_policy_parse(allow, lz_strv_len(allow), &s.pol, &err) < 0) {
		lz_err_wrap(&err, "--allow");
		goto out;
	}
	if (side_hosts_parse(hosts, lz_strv_len(hosts), &s.hosts, &s.nhosts, &err) < 0) {
		lz_err_wrap(&err, "--host-addr");
		goto out;
	}
	if (side_check_only)
		s.ask_ms = 1000;	/* --check tries the queue rule too */
	if (side_nft_open(&s, &err) < 0)
		goto out;
	if (side_nft_apply(&s, &err) < 0 || (s.ask_ms > 0 && side_queue_open(&s, &err) < 0)) {
		if (s.ask_ms == 0)
			goto out;
		/* No NFQUEUE here (neither nft_queue nor nft_compat's target): refuse
		 * without asking rather than not at all. */
		fprintf(stderr, "lazaret-sidecar: cannot hold packets here (%s): new destinations "
		    "are refused without asking\n", err.msg);
		ask_missing = true;
		lz_err_clear(&err);
		s.ask_ms = 0;
		if (s.queue != NULL)
			mnl_socket_close(s.queue);
		s.queue = NULL;
		if (side_nft_apply(&s, &err) < 0)
			goto out;
	}
	if (side_log_open(&s, &err) < 0)
		goto out;
	if (side_check_only) {
		printf("lazaret-sidecar: check ok: nftables table inet %s and nflog group %u work "
		    "here; %s\n", s.table, s.nflog_group, ask_missing ? "no NFQUEUE: requests "
		    "cannot be held (network.ask_timeout acts as 0)" : "new flows can be held (nfqueue)");
		rc = 0;
		goto out;
	}
	if (side_dns_open(&s, &err) < 0 || side_ctl_open(&s, &err) < 0)
		goto out;
	snprintf(start.rule, sizeof start.rule, "start");
	side_event(&s, &start);
	fprintf(stderr, "lazaret-sidecar: ready: table inet %s, %zu entries, resolver listening, "
	    "%s\n", s.table, s.pol.n, s.ask_ms > 0 ? "asking" : "not asking");
	rc = side_loop(&s, sigfd) < 0 ? 1 : 0;
out:
	if (err.msg != NULL)
		fprintf(stderr, "lazaret-sidecar: %s\n", err.msg);
	lz_err_clear(&err);
	lz_strv_free(allow);
	lz_strv_free(hosts);
	free(s.hosts);
	if (s.ctl_path != NULL && s.ctl_fd >= 0)
		unlink(s.ctl_path);
	side_policy_clear(&s.pol);
	free(s.learned);
	free(s.denied);
	if (s.queue != NULL)
		mnl_socket_close(s.queue);
	side_nft_close(&s);
	side_broker_wipe();
	return rc;
}
