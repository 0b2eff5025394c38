/* wb-egroup.c - egress events grouped by destination (see wb-egroup.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <time.h>

#include "netctl-text.h"
#include "wb-egroup.h"
#include "xmalloc.h"

struct wb_egroup_row {
	char key[400];		/* kind, verdict, destination, port, protocol */
	char dest[320];		/* as shown */
	char rule[96];
	uint32_t kind;
	bool blocked;
	uint64_t count;
	uint64_t last_ms;
};

struct wb_egroup {
	struct wb_egroup_row *rows;
	size_t n, cap;
};

#define WB_EGROUP_REQ_MAX	80	/* bytes of "METHOD /path" in a notice */
#define WB_EGROUP_WHY_MAX	100	/* bytes of the reason */

/* n bytes of s at most into out (size n + 4), the agent's bytes made
 * printable ASCII; "..." marks a cut. */
static void
wb_egroup_clean(char *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i] != '\0'; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	strcpy(out + i, s[i] != '\0' ? "..." : "");
}

char *
wb_egroup_refused_text(const struct netctl_event *e)
{
	char cred[40] = "?", req[WB_EGROUP_REQ_MAX + 4], why[WB_EGROUP_WHY_MAX + 4] = "";
	const char *w;

	if (e->kind != NETCTL_EV_BROKER || e->allowed)
		return NULL;
	/* rule: "credential NAME up N down N[: why]" (side-broker.c); the
	 * credential's name is the user's, from the profile */
	(void)sscanf(e->rule, "credential %39s", cred);
	wb_egroup_clean(cred, cred, 36);
	wb_egroup_clean(req, e->name[0] != '\0' ? e->name : "?", WB_EGROUP_REQ_MAX);
	if ((w = strstr(e->rule, ": ")) != NULL)
		wb_egroup_clean(why, w + 2, WB_EGROUP_WHY_MAX);
	return xasprintf("broker refused %s: %s%s%s%s", cred, req, why[0] != '\0' ? " (" : "",
	    why, why[0] != '\0' ? ")" : "");
}

struct wb_egroup *
wb_egroup_new(void)
{
	return xcalloc(1, sizeof(struct wb_egroup));
}

void
wb_egroup_free(struct wb_egroup *g)
{
	if (g == NULL)
		return;
	free(g->rows);
	free(g);
}

void
wb_egroup_clear(struct wb_egroup *g)
{
	g->n = 0;
}

/* The destination as shown, and the key that groups it. */
static void
wb_egroup_dest(const struct netctl_event *e, char *dest, size_t dn, char *key, size_t kn)
{
	char pb[16];
	const char *proto = netctl_text_proto(e, pb);
	const char *host = e->name[0] != '\0' ? e->name : e->addr;

	switch (e->kind) {
	case NETCTL_EV_FLOW:
		/* TCP goes without saying; any other protocol is named */
		if (e->proto == IPPROTO_TCP)
			snprintf(dest, dn, strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, e->port);
		else
			snprintf(dest, dn, strchr(host, ':') ? "[%s]:%u/%s" : "%s:%u/%s", host, e->port,
			    proto);
		break;
	case NETCTL_EV_DNS:
		snprintf(dest, dn, "dns %s", e->name);
		break;
	case NETCTL_EV_BROKER:
		snprintf(dest, dn, "broker %s:%u", e->addr, e->port);
		break;
	case NETCTL_EV_LOST:
		snprintf(dest, dn, "events lost (rate limit or full queue)");
		break;
	default:
		snprintf(dest, dn, "router %s", e->rule);
		break;
	}
	snprintf(key, kn, "%u %u %s", e->kind, e->allowed, dest);
}

bool
wb_egroup_add(struct wb_egroup *g, const struct netctl_event *e)
{
	struct wb_egroup_row *r = NULL;
	char dest[320], key[400];
	bool made = false;

	if (e->kind == NETCTL_EV_ROUTER)
		return false;	/* the router's life is no destination (the audit has it) */
	wb_egroup_dest(e, dest, sizeof dest, key, sizeof key);
	for (size_t i = g->n; i-- > 0;)
		if (strcmp(g->rows[i].key, key) == 0) {
			/* the newest activity goes to the bottom, where a live list looks */
			if (i + 1 < g->n) {
				struct wb_egroup_row t = g->rows[i];

				memmove(&g->rows[i], &g->rows[i + 1], (g->n - i - 1) * sizeof g->rows[0]);
				g->rows[g->n - 1] = t;
			}
			r = &g->rows[g->n - 1];
			break;
		}
	if (r == NULL) {
		if (g->n == WB_EGROUP_MAX) {
			memmove(&g->rows[0], &g->rows[1], (g->n - 1) * sizeof g->rows[0]);
			g->n--;
		}
		if (g->n == g->cap) {
			g->cap = g->cap == 0 ? 16 : 2 * g->cap;
			g->rows = xreallocarray(g->rows, g->cap, sizeof *g->rows);
		}
		r = &g->rows[g->n++];
		memset(r, 0, sizeof *r);
		snprintf(r->key, sizeof r->key, "%s", key);
		snprintf(r->dest, sizeof r->dest, "%s", dest);
		r->kind = e->kind;
		r->blocked = !e->allowed;
		made = true;
	}
	/* LOST carries how many were lost; every other event is one */
	r->count += e->kind == NETCTL_EV_LOST ? e->count : 1;
	if (e->time_ms >= r->last_ms)
		r->last_ms = e->time_ms;
	if (e->kind != NETCTL_EV_BROKER && e->rule[0] != '\0')
		snprintf(r->rule, sizeof r->rule, "%s", e->rule);
	return made;
}

size_t
wb_egroup_count(const struct wb_egroup *g)
{
	return g->n;
}

size_t
wb_egroup_count_shown(const struct wb_egroup *g, bool blocked_only)
{
	size_t n = 0;

	for (size_t i = 0; i < g->n; i++)
		n += !blocked_only || g->rows[i].blocked;
	return n;
}

char *
wb_egroup_row(const struct wb_egroup *g, size_t i, bool blocked_only, bool *blocked)
{
	const struct wb_egroup_row *r = NULL;
	char when[16] = "--:--", count[24];
	time_t t;
	struct tm tm;

	for (size_t k = 0; k < g->n; k++)
		if ((!blocked_only || g->rows[k].blocked) && i-- == 0) {
			r = &g->rows[k];
			break;
		}
	if (r == NULL)
		return NULL;
	*blocked = r->blocked;
	t = (time_t)(r->last_ms / 1000);
	if (localtime_r(&t, &tm) != NULL)
		strftime(when, sizeof when, "%H:%M", &tm);
	if (r->count < 100000)
		snprintf(count, sizeof count, "%llu", (unsigned long long)r->count);
	else
		snprintf(count, sizeof count, "%lluk", (unsigned long long)(r->count / 1000));
	return xasprintf("%-5s %4s %s %s%s%s", r->kind == NETCTL_EV_LOST ? "lost" :
	    r->blocked ? "block" : "allow", count, when, r->dest,
	    r->rule[0] != '\0' ? "  via " : "", r->rule);
}
