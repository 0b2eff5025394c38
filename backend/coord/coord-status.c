/* coord-status.c - what `lazaret status` and `lazaret ls` print: the domain,
 * its container's state (podman inspect, off the loop) and its sessions, as
 * text, one tab-separated row, or JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <uv.h>

#include "coord/coord.h"
#include "coord/coord-int.h"
#include "jsonw.h"
#include "xmalloc.h"

/* A STATUS request waiting on the threadpool (podman inspect). */
struct coord_status_job {
	uv_work_t req;
	struct coord *c;
	struct ctl_server_client *client;
	enum proto_status_fmt fmt;
	enum drv_state state;
	bool state_ok;
};

static const char *
coord_state_name(const struct coord_status_job *j)
{
	if (!j->state_ok)
		return "unknown";
	switch (j->state) {
	case DRV_STATE_ABSENT: return "absent";
	case DRV_STATE_RUNNING: return "running";
	case DRV_STATE_STOPPED: return "stopped";
	}
	return "unknown";
}

/* Clients other than the one asking. */
static size_t
coord_other_clients(const struct coord *c)
{
	size_t n = ctl_server_clients(c->srv);

	return n > 0 ? n - 1 : 0;
}

/* The limits' use now (the workbench's gauges): bytes of memory in the
 * domain's cgroup, host tasks against the pids backstop, the disk
 * watchdog's last walk; -1 where not measured, a max of 0: no bound. */
static void
coord_status_usage(const struct coord *c, struct lz_jsonw *w)
{
	const struct cfg_limits *l = &c->o->resolved->profile->limits;

	lz_jsonw_obj_open(w);
	lz_jsonw_key(w, "memory");
	lz_jsonw_int(w, limits_domain_read(&c->ldom, LIMITS_MEMORY, "memory.usage_in_bytes", NULL));
	lz_jsonw_key(w, "memory_max"); lz_jsonw_int(w, (int64_t)l->memory);
	lz_jsonw_key(w, "pids");
	lz_jsonw_int(w, limits_domain_read(&c->ldom, LIMITS_PIDS, "pids.current", NULL));
	lz_jsonw_key(w, "pids_max");
	lz_jsonw_int(w, limits_domain_read(&c->ldom, LIMITS_PIDS, "pids.max", NULL));
	lz_jsonw_key(w, "disk"); lz_jsonw_int(w, c->disk_paths != NULL ? (int64_t)c->disk_used : -1);
	lz_jsonw_key(w, "disk_max"); lz_jsonw_int(w, (int64_t)l->disk);
	lz_jsonw_obj_close(w);
}

static char *
coord_status_text(struct coord *c, const struct coord_status_job *j)
{
	int64_t up = (coord_now_ms() - c->started_ms) / 1000;
	struct lz_jsonw w;
	_cleanup_free_ char *lim = coord_limits_text(c);
	char *s, *t;
	size_t i;

	switch (j->fmt) {
	case PROTO_STATUS_JSON:
		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "running"); lz_jsonw_bool(&w, true);
		lz_jsonw_key(&w, "domain_hash"); lz_jsonw_str(&w, c->a->hash);
		lz_jsonw_key(&w, "profile"); lz_jsonw_str(&w, c->a->profile);
		lz_jsonw_key(&w, "workspace"); lz_jsonw_str(&w, c->a->workspace);
		lz_jsonw_key(&w, "mode");
		lz_jsonw_str(&w, c->o->mode == SENTRY_DIRECT ? "direct" : "isolated");
		lz_jsonw_key(&w, "coordinator_pid"); lz_jsonw_int(&w, getpid());
		lz_jsonw_key(&w, "uptime_s"); lz_jsonw_int(&w, up);
		lz_jsonw_key(&w, "control_socket"); lz_jsonw_str(&w, c->a->ctl_socket);
		lz_jsonw_key(&w, "container");
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "name"); lz_jsonw_str(&w, c->a->container);
		lz_jsonw_key(&w, "state"); lz_jsonw_str(&w, coord_state_name(j));
		lz_jsonw_obj_close(&w);
		lz_jsonw_key(&w, "limits"); lz_jsonw_str(&w, lim);
		lz_jsonw_key(&w, "stopped_by_limit"); lz_jsonw_str(&w, c->limit_hit);
		lz_jsonw_key(&w, "usage");
		coord_status_usage(c, &w);
		lz_jsonw_key(&w, "clients"); lz_jsonw_int(&w, (int64_t)coord_other_clients(c));
		coord_dash_json(c, coord_state_name(j), &w);
		lz_jsonw_key(&w, "network");
		coord_net_status_json(c, &w);
		lz_jsonw_key(&w, "sessions");
		lz_jsonw_arr_open(&w);
		for (i = 0; i < c->n_sessions; i++) {
			const struct session *ss = c->sessions[i];

			lz_jsonw_obj_open(&w);
			lz_jsonw_key(&w, "id"); lz_jsonw_int(&w, ss->id);
			lz_jsonw_key(&w, "session_id"); lz_jsonw_str(&w, ss->uuid);
			lz_jsonw_key(&w, "pid"); lz_jsonw_int(&w, ss->pid);
			lz_jsonw_key(&w, "command"); lz_jsonw_str(&w, ss->command);
			lz_jsonw_key(&w, "tty"); lz_jsonw_bool(&w, ss->tty);
			lz_jsonw_key(&w, "clients"); lz_jsonw_int(&w, (int64_t)ss->n_clients);
			lz_jsonw_key(&w, "state");
			lz_jsonw_str(&w, coord_dash_session_state(c, c->sessions[i]));
			lz_jsonw_key(&w, "started_ms"); lz_jsonw_int(&w, ss->started_ms);
			lz_jsonw_obj_close(&w);
		}
		lz_jsonw_arr_close(&w);
		lz_jsonw_obj_close(&w);
		return lz_jsonw_steal(&w);
	case PROTO_STATUS_ROW:
		return coord_dash_row(c, coord_state_name(j));
	case PROTO_STATUS_CONFIG:
		return xstrdup(c->effcfg != NULL ? c->effcfg : "");
	case PROTO_STATUS_TEXT:
		break;
	}
	s = xasprintf("domain:      %s\nprofile:     %s\nworkspace:   %s\nmode:        %s\n"
	    "container:   %s (%s)\nlimits:      %s\n%s%s%scoordinator: pid %ld, up %llds\n"
	    "clients:     %zu\nsessions:    %zu\n", c->a->hash, c->a->profile, c->a->workspace,
	    c->o->mode == SENTRY_DIRECT ? "direct" : "isolated", c->a->container,
	    coord_state_name(j), lim, c->limit_hit ? "stopped:     " : "",
	    c->limit_hit ? c->limit_hit : "", c->limit_hit ? "\n" : "", (long)getpid(),
	    (long long)up, coord_other_clients(c), c->n_sessions);
	{
		char *net = coord_net_status_text(c);

		t = xasprintf("%s%s", s, net);
		free(s);
		free(net);
		s = t;
	}
	if (c->n_sessions > 0) {
		t = xasprintf("%s  %-4s %-8s %-7s %-4s %-8s %s\n", s, "ID", "PID", "CLIENTS", "TTY",
		    "STATE", "COMMAND");
		free(s);
		s = t;
	}
	for (i = 0; i < c->n_sessions; i++) {
		const struct session *ss = c->sessions[i];

		t = xasprintf("%s  %-4u %-8ld %-7zu %-4s %-8s %s\n", s, ss->id, (long)ss->pid,
		    ss->n_clients, ss->tty ? "yes" : "no",
		    coord_dash_session_state(c, c->sessions[i]), ss->command);
		free(s);
		s = t;
	}
	return s;
}

static void
coord_status_work_cb(uv_work_t *req)
{
	struct coord_status_job *j = req->data;
	lz_err_t err = LZ_ERR_INIT;

	j->state_ok = j->c->drv->inspect(j->c->a->container, &j->state, &err) == 0;
	lz_err_clear(&err);
}

static void
coord_status_after_cb(uv_work_t *req, int status)
{
	struct coord_status_job *j = req->data;
	struct proto_buf b = { 0 };
	char *text;

	(void)status;
	if (!j->client->closing) {
		/* The task backstop sends no event (coord-limits.c): read it now. */
		coord_limits_check(j->c);
		text = coord_status_text(j->c, j);
		proto_encode_status(&b, text);
		free(text);
		ctl_server_send(j->client, &b);
	}
	ctl_server_client_unref(j->client);
	free(j);
}

void
coord_status(struct coord *c, struct ctl_server_client *cl, enum proto_status_fmt fmt)
{
	struct coord_status_job *j = xcalloc(1, sizeof *j);

	j->c = c;
	j->client = cl;
	j->fmt = fmt;
	j->req.data = j;
	ctl_server_client_ref(cl);
	/* The configuration needs no podman inspect: answer at once (a client that
	 * compares it waits for this before its session starts). */
	if (fmt == PROTO_STATUS_CONFIG) {
		coord_status_after_cb(&j->req, 0);
		return;
	}
	if (uv_queue_work(c->loop, &j->req, coord_status_work_cb, coord_status_after_cb) != 0) {
		coord_status_after_cb(&j->req, -1);
	}
}
