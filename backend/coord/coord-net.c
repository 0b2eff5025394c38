/* coord-net.c - the coordinator's side of the Network Sidecar: start it
 * before the sandbox (net-coord.c), keep its events in the state store's
 * egress log and stream them to `lazaret egress --follow`, take run-time
 * allow/deny from clients, and audit what happens to the router. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord/coord.h"
#include "coord/coord-int.h"
#include "jsonw.h"
#include "net/net-coord.h"
#include "net/net-secret.h"
#include "netctl.h"
#include "netreq.h"
#include "store/audit.h"
#include "store/egress-log.h"
#include "xmalloc.h"

/* A client reading the egress log; live events wait until its backlog is out. */
struct coord_net_follower {
	struct ctl_server_client *cl;
	bool ready;
	struct proto_buf pending;
};

struct coord_net_job {
	struct coord *c;
	struct netctl_event ev;		/* add */
	struct ctl_server_client *cl;	/* list */
	uint32_t last;
	bool follow;
	struct proto_buf out;
};

static void
coord_net_log_cb(const char *msg, void *arg)
{
	(void)arg;
	coord_log("%s", msg);
}

static void
coord_net_audit_done(void *arg, int status, int64_t seq, lz_err_t *err)
{
	(void)arg;
	(void)seq;
	if (status < 0)
		coord_log("audit: %s", err != NULL && err->msg != NULL ? err->msg : "failed");
}

static void
coord_net_audit(struct coord *c, const char *kind, const char *actor, const char *detail)
{
	struct lz_jsonw w;
	char *json;
	struct audit_rec rec = { 0 };

	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "sidecar");
	lz_jsonw_str(&w, c->a->sidecar);
	lz_jsonw_key(&w, "detail");
	lz_jsonw_str(&w, detail);
	lz_jsonw_obj_close(&w);
	json = lz_jsonw_steal(&w);
	coord_log("audit %s %s", kind, detail);
	rec.kind = kind;
	rec.actor = actor;
	rec.detail = json;
	if (c->store != NULL)
		audit_submit(c->loop, c->store, &rec, coord_net_audit_done, NULL);
	free(json);
}

static void
coord_net_audit_cb(const char *kind, const char *detail, void *arg)
{
	coord_net_audit(arg, kind, "coordinator", detail);
}

static int
coord_net_add_work(struct store *st, void *arg, lz_err_t *err)
{
	struct coord_net_job *j = arg;

	return egress_log_add(st, &j->ev, err);
}

static void
coord_net_add_done(void *arg, int status, lz_err_t *err)
{
	if (status < 0)
		coord_log("egress log: %s", err != NULL && err->msg != NULL ? err->msg : "failed");
	free(arg);
}

static void
coord_net_event_cb(const struct netctl_event *ev, void *arg)
{
	struct coord *c = arg;
	struct proto_buf b = { 0 };
	struct coord_net_job *j;

	coord_netreq_event(c, ev);
	if (ev->kind == NETCTL_EV_BROKER) {
		/* every brokered request is an audit row: who, what, how much, never a value */
		char *d = xasprintf("%s %s -> %s:%u: status %u, %u ms (%s)", ev->allowed ?
		    "brokered" : "refused", ev->name, ev->addr, ev->port, ev->proto, ev->count,
		    ev->rule);

		coord_net_audit(c, ev->allowed ? "net.broker" : "net.broker-refused", "sidecar", d);
		free(d);
	}
	if (c->store != NULL) {
		j = xcalloc(1, sizeof *j);
		j->ev = *ev;
		store_submit(c->loop, c->store, coord_net_add_work, coord_net_add_done, j);
	}
	for (size_t i = 0; i < c->n_followers; i++) {
		struct coord_net_follower *f = c->followers[i];

		if (f->ready) {
			netctl_encode_event(&b, ev);
			ctl_server_send(f->cl, &b);
		} else
			netctl_encode_event(&f->pending, ev);
	}
}

static void
coord_net_ask_cb(const struct netreq_item *it, void *arg)
{
	coord_netreq_ask(arg, it);
}

static void
coord_net_summary_cb(const struct netreq_summary *s, void *arg)
{
	coord_netreq_summary(arg, s);
}

static void
coord_net_gone_cb(void *arg)
{
	coord_netreq_gone(arg);
}

int
coord_net_begin(struct coord *c, lz_err_t *err)
{
	const struct cfg_resolved *r = c->o->resolved;
	const char *end = strrchr(c->a->ctl_socket, '/');
	char *socket_dir = xstrndup(c->a->ctl_socket, (size_t)(end - c->a->ctl_socket));
	struct net_coord_opts no = {
		.loop = c->loop, .a = c->a, .drv = c->drv, .socket_dir = socket_dir,
		.policy = r->allow_egress, .n_policy = r->n_allow_egress,
		.upstream = c->o->cfg->dns_upstream,
		/* The router holds a request up to escalation.timeout (a view open on
		 * it holds it, coord-netreq.c); network.ask_timeout is ours to keep. */
		.ask_timeout_ms = c->o->cfg->ask_timeout == 0 ? 0 : (unsigned)(c->o->cfg->esc_timeout >
		    c->o->cfg->ask_timeout ? c->o->cfg->esc_timeout : c->o->cfg->ask_timeout) * 1000,
		.ask_cb = coord_net_ask_cb, .summary_cb = coord_net_summary_cb,
		.asks_gone_cb = coord_net_gone_cb,
		.event_cb = coord_net_event_cb, .audit_cb = coord_net_audit_cb,
		.log_cb = coord_net_log_cb, .arg = c,
	};
	int ret;
	size_t ncreds = 0;

	/* Secrets are read here, on the host, before anything starts: a missing
	 * source is a start error naming the entry. */
	if (c->creds == NULL && net_secret_frame(r->profile, &c->creds, &ncreds, err) < 0) {
		free(socket_dir);
		return -1;
	}
	no.creds = c->creds;
	coord_log("starting the network sidecar %s (%zu policy entries, %zu credentials)",
	    c->a->sidecar, r->n_allow_egress, ncreds);
	ret = net_coord_new(&no, &c->net, err) < 0 ? -1 : net_coord_begin(c->net, err);
	free(socket_dir);
	return ret;
}

int
coord_net_start(struct coord *c, lz_err_t *err)
{
	if (c->net == NULL && coord_net_begin(c, err) < 0)
		return -1;
	return net_coord_start(c->net, err);
}

int
coord_net_ready(struct coord *c, lz_err_t *err)
{
	return net_coord_ready(c->net, err);
}

static int
coord_net_list_cb(const struct netctl_event *ev, void *arg)
{
	netctl_encode_event(arg, ev);
	return 0;
}

static int
coord_net_list_work(struct store *st, void *arg, lz_err_t *err)
{
	struct coord_net_job *j = arg;

	return egress_log_list(st, j->last, coord_net_list_cb, &j->out, err);
}

static struct coord_net_follower *
coord_net_follower(struct coord *c, struct ctl_server_client *cl)
{
	for (size_t i = 0; i < c->n_followers; i++)
		if (c->followers[i]->cl == cl)
			return c->followers[i];
	return NULL;
}

static void
coord_net_list_done(void *arg, int status, lz_err_t *err)
{
	struct coord_net_job *j = arg;
	struct coord_net_follower *f = coord_net_follower(j->c, j->cl);

	if (!j->cl->closing) {
		if (status < 0)
			ctl_server_send_error(j->cl, PROTO_E_STATE, "%s",
			    err != NULL && err->msg != NULL ? err->msg : "egress log unreadable");
		else {
			proto_encode_ok(&j->out, 0);
			ctl_server_send(j->cl, &j->out);
		}
		if (f != NULL) {
			f->ready = true;
			ctl_server_send(j->cl, &f->pending);
		}
	}
	proto_buf_clear(&j->out);
	ctl_server_client_unref(j->cl);
	free(j);
}

static void
coord_net_edit(struct coord *c, struct ctl_server_client *cl, const uint8_t *p, size_t len)
{
	lz_err_t err = LZ_ERR_INIT;
	struct proto_buf b = { 0 };
	char *entry = NULL;
	uint32_t add;

	if (netctl_decode_egress_edit(p, len, &add, &entry, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
	} else if (c->net == NULL) {
		ctl_server_send_error(cl, PROTO_E_STATE, "domain %s runs with network: none (no "
		    "sidecar): set 'network: sidecar' in profile %s and restart it", c->a->hash,
		    c->a->profile);
	} else if (net_coord_edit(c->net, add != 0, entry, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
	} else {
		char *d = xasprintf("%s %s (client pid %ld)", add ? "allow" : "deny", entry,
		    (long)cl->pid);

		coord_net_audit(c, "net.policy", "user", d);
		free(d);
		proto_encode_ok(&b, 0);
		ctl_server_send(cl, &b);
	}
	free(entry);
	lz_err_clear(&err);
}

void
coord_net_frame(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p)
{
	lz_err_t err = LZ_ERR_INIT;
	struct coord_net_job *j;
	uint32_t flags, last;

	if (h->type == PROTO_EGRESS_EDIT) {
		coord_net_edit(c, cl, p, h->length);
		return;
	}
	if (netctl_decode_egress_req(p, h->length, &flags, &last, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if ((flags & NETCTL_FOLLOW) && coord_net_follower(c, cl) == NULL) {
		struct coord_net_follower *f = xcalloc(1, sizeof *f);

		f->cl = cl;
		ctl_server_client_ref(cl);
		c->followers = xreallocarray(c->followers, c->n_followers + 1, sizeof *c->followers);
		c->followers[c->n_followers++] = f;
	}
	j = xcalloc(1, sizeof *j);
	j->c = c;
	j->cl = cl;
	j->last = last;
	ctl_server_client_ref(cl);
	if (c->store == NULL) {
		coord_net_list_done(j, 0, NULL);
		return;
	}
	store_submit(c->loop, c->store, coord_net_list_work, coord_net_list_done, j);
}

void
coord_net_client_gone(struct coord *c, struct ctl_server_client *cl)
{
	for (size_t i = 0; i < c->n_followers; i++) {
		struct coord_net_follower *f = c->followers[i];

		if (f->cl != cl)
			continue;
		proto_buf_clear(&f->pending);
		ctl_server_client_unref(cl);
		free(f);
		c->followers[i] = c->followers[--c->n_followers];
		return;
	}
}

void
coord_net_status_json(struct coord *c, struct lz_jsonw *w)
{
	char *const *pol = NULL;
	size_t n = 0;

	lz_jsonw_obj_open(w);
	lz_jsonw_key(w, "mode");
	lz_jsonw_str(w, c->net != NULL ? "sidecar" : "none");
	if (c->net != NULL) {
		pol = net_coord_policy(c->net, &n);
		lz_jsonw_key(w, "sidecar");
		lz_jsonw_str(w, c->a->sidecar);
		lz_jsonw_key(w, "router");
		lz_jsonw_str(w, net_coord_state(c->net));
		lz_jsonw_key(w, "restarts");
		lz_jsonw_int(w, net_coord_restarts(c->net));
		lz_jsonw_key(w, "policy");
		lz_jsonw_arr_open(w);
		for (size_t i = 0; i < n; i++)
			lz_jsonw_str(w, pol[i]);
		lz_jsonw_arr_close(w);
		{
			struct netreq_summary s;

			coord_netreq_counts(c, &s);
			lz_jsonw_key(w, "requests");
			lz_jsonw_obj_open(w);
			lz_jsonw_key(w, "ask_timeout_s");
			lz_jsonw_int(w, s.ask_timeout_ms / 1000);
			lz_jsonw_key(w, "pending");
			lz_jsonw_int(w, s.pending);
			lz_jsonw_key(w, "blocked_unasked");
			lz_jsonw_int(w, s.overflow);
			lz_jsonw_key(w, "denied_attempts");
			lz_jsonw_int(w, s.denied_hits);
			lz_jsonw_obj_close(w);
		}
	}
	lz_jsonw_obj_close(w);
}

char *
coord_net_status_text(struct coord *c)
{
	char *const *pol;
	size_t n = 0;
	char *s, *t;

	if (c->net == NULL)
		return xstrdup("network:     none (no sidecar; --network none)\n");
	pol = net_coord_policy(c->net, &n);
	s = xasprintf("network:     sidecar %s, router %s (%u restarts), default deny\n"
	    "policy:      %s", c->a->sidecar, net_coord_state(c->net), net_coord_restarts(c->net),
	    n == 0 ? "(empty: nothing allowed)" : "");
	for (size_t i = 0; i < n; i++) {
		t = xasprintf("%s%s%s", s, i ? ", " : "", pol[i]);
		free(s);
		s = t;
	}
	{
		struct netreq_summary q;

		coord_netreq_counts(c, &q);
		if (q.ask_timeout_ms == 0)
			t = xasprintf("%s\nrequests:    none: new destinations are blocked at once "
			    "(network.ask_timeout is 0, or this kernel cannot hold packets)\n", s);
		else
			t = xasprintf("%s\nrequests:    %u pending (lazaret egress --pending), held up to "
			    "%u s; %u blocked unasked, %u to denied destinations%s\n", s, q.pending,
			    q.ask_timeout_ms / 1000, q.overflow, q.denied_hits,
			    coord_netreq_answerable(c) ? "" : "\n             no one attached to answer "
			    "(workbench, egress --pending --follow): refused at once");
	}
	free(s);
	/* the brokered credentials: where the agent reaches each, never its secret */
	{
		const struct cfg_profile *p = c->o->resolved->profile;
		size_t shown = 0;

		for (size_t i = 0; c->creds != NULL && i < p->n_creds; i++) {
			const struct cfg_cred *cr = &p->creds[i];
			char *u = cfg_cred_base_url(cr, i);

			if (!cfg_cred_active(cr))
				continue;
			s = xasprintf("%s%s%s -> https://%s:%d%s (%s)\n", t, shown++ == 0 ?
			    "credentials: " : "             ", u, cr->host, cr->port,
			    cr->path ? cr->path : "", cr->name);
			free(u);
			free(t);
			t = s;
		}
	}
	return t;
}
