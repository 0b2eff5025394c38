/* netreq-text.c - network requests as text and JSON (see netreq-text.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "jsonw.h"
#include "netctl-text.h"
#include "netreq-text.h"
#include "shellwords.h"
#include "xmalloc.h"

static const char *
netreq_text_proto(const struct netreq_item *it, char buf[16])
{
	struct netctl_event e = { .kind = it->kind == NETREQ_KIND_DNS ? NETCTL_EV_DNS : NETCTL_EV_FLOW,
		.proto = it->proto };

	return netctl_text_proto(&e, buf);
}

void
netreq_text_dest(const struct netreq_item *it, char *buf, size_t size)
{
	char pb[16];
	const char *proto = netreq_text_proto(it, pb);

	if (it->kind == NETREQ_KIND_DNS)
		snprintf(buf, size, "dns %s %s", proto, it->name);
	else
		snprintf(buf, size, strchr(it->addr, ':') ? "[%s]:%u/%s" : "%s:%u/%s", it->addr,
		    it->port, proto);
}

char *
netreq_text_item(const struct netreq_item *it, bool json)
{
	char dst[320], pb[16], when[16];
	time_t t = (time_t)(it->first_ms / 1000);
	struct tm tm;

	if (json) {
		struct lz_jsonw w;

		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "id");
		lz_jsonw_int(&w, it->id);
		lz_jsonw_key(&w, "state");
		lz_jsonw_str(&w, netreq_state_name(it->state));
		lz_jsonw_key(&w, "kind");
		lz_jsonw_str(&w, netreq_kind_name(it->kind));
		lz_jsonw_key(&w, "proto");
		lz_jsonw_str(&w, netreq_text_proto(it, pb));
		lz_jsonw_key(&w, "addr");
		lz_jsonw_str(&w, it->addr);
		lz_jsonw_key(&w, "port");
		lz_jsonw_int(&w, it->port);
		lz_jsonw_key(&w, "name");
		lz_jsonw_str(&w, it->name);
		lz_jsonw_key(&w, "attempts");
		lz_jsonw_int(&w, it->attempts);
		lz_jsonw_key(&w, "first_ms");
		lz_jsonw_int(&w, (int64_t)it->first_ms);
		lz_jsonw_key(&w, "last_ms");
		lz_jsonw_int(&w, (int64_t)it->last_ms);
		lz_jsonw_key(&w, "expires_ms");
		lz_jsonw_int(&w, (int64_t)it->expires_ms);
		lz_jsonw_key(&w, "session");
		lz_jsonw_int(&w, it->session);
		lz_jsonw_key(&w, "scope");
		lz_jsonw_str(&w, netreq_scope_name(it->scope));
		lz_jsonw_key(&w, "grant");
		lz_jsonw_str(&w, it->grant);
		lz_jsonw_key(&w, "who");
		lz_jsonw_str(&w, it->who);
		lz_jsonw_obj_close(&w);
		return lz_jsonw_steal(&w);
	}
	netreq_text_dest(it, dst, sizeof dst);
	gmtime_r(&t, &tm);
	strftime(when, sizeof when, "%H:%M:%S", &tm);
	if (it->kind == NETREQ_KIND_FLOW && it->name[0] != '\0') {
		size_t n = strlen(dst);

		snprintf(dst + n, sizeof dst - n, " (%s)", it->name);
	}
	{
		/* For a terminal: nothing from the wire may move the cursor. */
		char *v = lz_shellwords_visible(dst, strlen(dst)),
		    *g = lz_shellwords_visible(it->grant, strlen(it->grant));
		char *out = xasprintf("%4u  %-8s %s  %-40s x%-4u %s%s%s", it->id,
		    netreq_state_name(it->state), when, v, it->attempts,
		    it->state == NETREQ_PENDING ? "grant: " : netreq_scope_name(it->scope),
		    it->state == NETREQ_PENDING ? "" : " ", g);

		free(v);
		free(g);
		return out;
	}
}
