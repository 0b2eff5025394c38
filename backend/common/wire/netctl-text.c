/* netctl-text.c - egress events as text and JSON (see netctl-text.h). */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "jsonw.h"
#include "netctl-text.h"
#include "xmalloc.h"

const char *
netctl_text_proto(const struct netctl_event *e, char buf[16])
{
	if (e->kind == NETCTL_EV_DNS) {
		switch (e->proto) {
		case 1: return "A";
		case 5: return "CNAME";
		case 28: return "AAAA";
		case 33: return "SRV";
		case 16: return "TXT";
		case 15: return "MX";
		case 65: return "HTTPS";
		default: snprintf(buf, 16, "TYPE%u", e->proto); return buf;
		}
	}
	switch (e->proto) {
	case IPPROTO_TCP: return "tcp";
	case IPPROTO_UDP: return "udp";
	case IPPROTO_ICMP: return "icmp";
	case IPPROTO_ICMPV6: return "icmpv6";
	default: snprintf(buf, 16, "%u", e->proto); return buf;
	}
}

char *
netctl_text_event(const struct netctl_event *e, bool json)
{
	char when[32], pb[16], dst[80];
	const char *verdict = e->allowed ? "allow" : "deny", *proto = netctl_text_proto(e, pb);
	time_t t = (time_t)(e->time_ms / 1000);
	struct tm tm;

	if (json) {
		struct lz_jsonw w;

		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "ts_ms");
		lz_jsonw_int(&w, (int64_t)e->time_ms);
		lz_jsonw_key(&w, "kind");
		lz_jsonw_str(&w, netctl_ev_kind_name(e->kind));
		lz_jsonw_key(&w, "verdict");
		lz_jsonw_str(&w, verdict);
		lz_jsonw_key(&w, "proto");
		lz_jsonw_str(&w, proto);
		lz_jsonw_key(&w, "addr");
		lz_jsonw_str(&w, e->addr);
		lz_jsonw_key(&w, "port");
		lz_jsonw_int(&w, e->port);
		lz_jsonw_key(&w, "name");
		lz_jsonw_str(&w, e->name);
		lz_jsonw_key(&w, "rule");
		lz_jsonw_str(&w, e->rule);
		lz_jsonw_key(&w, "count");
		lz_jsonw_int(&w, e->count);
		if (e->kind == NETCTL_EV_BROKER) {
			char cred[40] = "";
			unsigned long long up = 0, down = 0;

			/* rule: "credential NAME up N down N[: why]" (side-broker.c) */
			(void)sscanf(e->rule, "credential %39s up %llu down %llu", cred, &up, &down);
			lz_jsonw_key(&w, "credential");
			lz_jsonw_str(&w, cred);
			lz_jsonw_key(&w, "status");
			lz_jsonw_int(&w, e->proto);
			lz_jsonw_key(&w, "bytes_up");
			lz_jsonw_int(&w, (int64_t)up);
			lz_jsonw_key(&w, "bytes_down");
			lz_jsonw_int(&w, (int64_t)down);
			lz_jsonw_key(&w, "duration_ms");
			lz_jsonw_int(&w, e->count);
		}
		lz_jsonw_obj_close(&w);
		return lz_jsonw_steal(&w);
	}
	gmtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	switch (e->kind) {
	case NETCTL_EV_FLOW:
		snprintf(dst, sizeof dst, strchr(e->addr, ':') ? "[%s]:%u" : "%s:%u", e->addr, e->port);
		return xasprintf("%s  %-5s  %-6s  %-24s %s%s(%s)", when, verdict, proto, dst,
		    e->name, e->name[0] ? "  " : "", e->rule);
	case NETCTL_EV_DNS:
		return xasprintf("%s  %-5s  dns     %-6s %s  (%s%s%u addresses)", when, verdict, proto,
		    e->name, e->rule, e->rule[0] ? "; " : "", e->count);
	case NETCTL_EV_BROKER:
		return xasprintf("%s  %-5s  broker  %s  -> %s:%u  status %u, %u ms  (%s)", when, verdict,
		    e->name, e->addr, e->port, e->proto, e->count, e->rule);
	case NETCTL_EV_LOST:
		return xasprintf("%s  lost   %u events (rate limit or full queue)", when, e->count);
	default:
		return xasprintf("%s  router %s", when, e->rule);
	}
}
