/* wb-netreq-text.c - network requests as the workbench shows them (see
 * wb-netreq-text.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netreq-text.h"
#include "strv.h"
#include "wb-netreq-text.h"
#include "xmalloc.h"

void
wb_netreq_dest(const struct netreq_item *it, struct grant_dest *out)
{
	memset(out, 0, sizeof *out);
	out->name = it->name[0] != '\0' ? it->name : NULL;
	if (it->kind == NETREQ_KIND_DNS)
		return;
	if (inet_pton(AF_INET, it->addr, out->addr) == 1)
		out->family = AF_INET;
	else if (inet_pton(AF_INET6, it->addr, out->addr) == 1)
		out->family = AF_INET6;
	out->port = (uint16_t)(it->port <= 65535 ? it->port : 0);
}

size_t
wb_netreq_candidates(const struct netreq_item *it, struct grant_candidate *out)
{
	struct grant_dest d;

	wb_netreq_dest(it, &d);
	return grant_candidates(&d, out, WB_NETREQ_CANDIDATES);
}

static long
wb_netreq_left(const struct netreq_item *it, uint64_t now_ms)
{
	if (it->expires_ms == 0)
		return -1;
	return it->expires_ms > now_ms ? (long)((it->expires_ms - now_ms + 999) / 1000) : 0;
}

char *
wb_netreq_line(const struct netreq_item *it, uint64_t now_ms)
{
	char dst[320], left[24] = "";
	const char *name = it->kind != NETREQ_KIND_DNS && it->name[0] != '\0' ? it->name : NULL;
	long l = wb_netreq_left(it, now_ms);

	netreq_text_dest(it, dst, sizeof dst);
	if (it->state == NETREQ_PENDING) {
		if (l >= 0)
			snprintf(left, sizeof left, " %lds", l);
		return xasprintf("? %s%s%s x%u%s", name != NULL ? name : "", name != NULL ? " " : "",
		    dst, it->attempts, left);
	}
	return xasprintf("%s%s%s %s%s%s x%u", netreq_state_name(it->state),
	    it->scope == NETREQ_SCOPE_RUN || it->scope == NETREQ_SCOPE_PROFILE ? " " : "",
	    it->scope == NETREQ_SCOPE_RUN || it->scope == NETREQ_SCOPE_PROFILE ?
	    netreq_scope_name(it->scope) : "", name != NULL ? name : "", name != NULL ? " " : "",
	    dst, it->attempts);
}

static const char *
wb_netreq_scope_text(uint32_t scope)
{
	switch (scope) {
	case NETREQ_SCOPE_ONCE: return "once: the attempts held now (the next connection asks again)";
	case NETREQ_SCOPE_RUN: return "for this run: until lazaret stop";
	case NETREQ_SCOPE_PROFILE: return "for the profile: saved in its grants file";
	default: return "";
	}
}

char **
wb_netreq_detail(const struct netreq_item *it, const struct grant_candidate *c, size_t n,
    size_t sel, uint32_t scope, uint64_t now_ms)
{
	char **l = NULL, dst[320];
	long left = wb_netreq_left(it, now_ms);

	netreq_text_dest(it, dst, sizeof dst);
	lz_strv_pushf(&l, "Destination:  %s", dst);
	if (it->kind != NETREQ_KIND_DNS)
		lz_strv_pushf(&l, "Name:         %s", it->name[0] != '\0' ? it->name :
		    "(none: the agent used the address itself)");
	lz_strv_pushf(&l, "Attempts:     %u (%s)", it->attempts, netreq_state_name(it->state));
	if (it->session != 0)
		lz_strv_pushf(&l, "Session:      %u", it->session);
	if (it->state == NETREQ_PENDING && left >= 0)
		lz_strv_pushf(&l, "Blocked in:   %lds unless decided", left);
	lz_strv_push(&l, "");
	lz_strv_pushf(&l, "Allow %s", wb_netreq_scope_text(scope));
	if (scope == NETREQ_SCOPE_ONCE || n == 0) {
		lz_strv_pushf(&l, "  this flow only: %s", dst);
		return l;
	}
	if (sel >= n)
		sel = 0;
	lz_strv_pushf(&l, "Grant (Up/Down to choose):");
	for (size_t i = 0; i < n; i++) {
		lz_strv_pushf(&l, "%s %-10s %s", i == sel ? ">" : " ", grant_how_name(c[i].how),
		    c[i].entry);
		lz_strv_pushf(&l, "             this allows %s", c[i].reach.text);
		if (c[i].reach.broad)
			lz_strv_pushf(&l, "             BROAD: %s", c[i].reach.why_broad);
	}
	if (c[sel].reach.broad) {
		lz_strv_push(&l, "");
		lz_strv_pushf(&l, "BROAD grant (%s): approving asks a second time.", c[sel].reach.why_broad);
	}
	return l;
}
