/* coord-dash.c - the domain's row on the dashboard (`lazaret ls`, the
 * workbench's prefix w): who needs the user (tabstate.h's words, for the
 * whole domain), its sessions, uptime, memory and CPU now (the domain's
 * cgroups), egress flows and blocks, requests waiting for a human. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord/coord.h"
#include "coord/coord-int.h"
#include "coord/screen.h"
#include "jsonw.h"
#include "netreq.h"
#include "tabstate.h"
#include "xmalloc.h"

/* A number from a cgroup file; -1 when there is none. */
static int64_t
coord_dash_read(const char *dir, const char *file)
{
	char *p, buf[64];
	FILE *f;
	long long v = -1;

	if (dir == NULL)
		return -1;
	p = xasprintf("%s/%s", dir, file);
	if ((f = fopen(p, "re")) != NULL) {
		if (fgets(buf, sizeof buf, f) == NULL || sscanf(buf, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	free(p);
	return v;
}

/* The CPU use since the ask before, read when a row is asked for (the
 * dashboard asks every few seconds): no timer of its own wakes an idle
 * domain. Asks closer than COORD_DASH_CPU_MIN_MS keep the last figure. */
#define COORD_DASH_CPU_MIN_MS	500
static void
coord_dash_sample(struct coord *c)
{
	int64_t ns;
	uint64_t now = uv_now(c->loop);

	if (c->cpu_at_ms != 0 && now - c->cpu_at_ms < COORD_DASH_CPU_MIN_MS)
		return;
	if ((ns = coord_dash_read(c->ldom.dir[LIMITS_CPU], "cpuacct.usage")) < 0) {
		c->cpu_permille = -1;
		return;
	}
	if (c->cpu_at_ms != 0 && now > c->cpu_at_ms && (uint64_t)ns >= c->cpu_ns)
		c->cpu_permille = (int)(((uint64_t)ns - c->cpu_ns) / 1000 / (now - c->cpu_at_ms));
	c->cpu_ns = (uint64_t)ns;
	c->cpu_at_ms = now;
}

/* Quiet at a prompt (the screen the coordinator keeps of it). */
static bool
coord_dash_input(struct coord *c, struct session *s)
{
	return s->screen != NULL && uv_now(c->loop) - s->last_out_ms >= TABSTATE_QUIET_MS &&
	    screen_input_line(s->screen);
}

const char *
coord_dash_session_state(struct coord *c, struct session *s)
{
	if (c->limit_hit != NULL)
		return tabstate_name(TABSTATE_LIMIT);	/* a session the limit ends */
	if (esc_coord_waiting(c->esc, s->uuid) > 0)
		return tabstate_name(TABSTATE_APPROVAL);
	return tabstate_name(coord_dash_input(c, s) ? TABSTATE_INPUT : TABSTATE_RUNNING);
}

/* The domain's word: the most pressing of its sessions'. */
static const char *
coord_dash_state(struct coord *c, const char *container_state, size_t pending)
{
	size_t i;

	if (c->limit_hit != NULL)
		return tabstate_name(TABSTATE_LIMIT);
	if (strcmp(container_state, "running") != 0)
		return container_state;
	if (pending > 0)
		return tabstate_name(TABSTATE_APPROVAL);
	for (i = 0; i < c->n_sessions; i++)
		if (coord_dash_input(c, c->sessions[i]))
			return tabstate_name(TABSTATE_INPUT);
	return c->n_sessions == 0 ? "idle" : tabstate_name(TABSTATE_RUNNING);
}

static size_t
coord_dash_pending(struct coord *c)
{
	struct netreq_summary q = { 0 };

	coord_netreq_counts(c, &q);
	return esc_coord_waiting(c->esc, NULL) + q.pending;
}

void
coord_dash_json(struct coord *c, const char *container_state, struct lz_jsonw *w)
{
	size_t pending = coord_dash_pending(c);

	coord_dash_sample(c);
	lz_jsonw_key(w, "state"); lz_jsonw_str(w, coord_dash_state(c, container_state, pending));
	lz_jsonw_key(w, "pending"); lz_jsonw_int(w, (int64_t)pending);
	lz_jsonw_key(w, "memory_bytes");
	lz_jsonw_int(w, coord_dash_read(c->ldom.dir[LIMITS_MEMORY], "memory.usage_in_bytes"));
	lz_jsonw_key(w, "cpu_permille"); lz_jsonw_int(w, c->cpu_permille);
	lz_jsonw_key(w, "flows_allowed"); lz_jsonw_int(w, (int64_t)c->net_flows);
	lz_jsonw_key(w, "blocked"); lz_jsonw_int(w, (int64_t)c->net_blocked);
}

char *
coord_dash_row(struct coord *c, const char *container_state)
{
	int64_t up = (coord_now_ms() - c->started_ms) / 1000;
	int64_t mem = coord_dash_read(c->ldom.dir[LIMITS_MEMORY], "memory.usage_in_bytes");
	size_t pending = coord_dash_pending(c), clients = ctl_server_clients(c->srv);

	coord_dash_sample(c);
	return xasprintf("%s\t%s\t%s\t%zu\t%lld\t%lld\t%d\t%" PRIu64 "\t%" PRIu64 "\t%zu\t%s\t%s\t%s"
	    "\t%s\t%zu", c->a->hash, c->a->profile, coord_dash_state(c, container_state, pending),
	    c->n_sessions, (long long)up, (long long)mem, c->cpu_permille, c->net_flows,
	    c->net_blocked, pending, c->a->workspace, c->a->container, container_state,
	    c->o->mode == SENTRY_DIRECT ? "direct" : "isolated", clients > 0 ? clients - 1 : 0);
}
