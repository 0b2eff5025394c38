/* coord-netreq-decide.c - the clients' side of network requests: the
 * NETREQ_* frames (coord_netreq_frame), a decision turned into a router
 * verdict, a grant for the run or the profile and its audit rows, and the
 * profile's saved grants listed and revoked. The list, its followers and
 * the audit helpers are coord-netreq.c's (coord-netreq-int.h); it calls
 * nothing here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord/coord.h"
#include "coord/coord-int.h"
#include "coord/coord-netreq-int.h"
#include "grant.h"
#include "jsonw.h"
#include "netreq.h"
#include "net/net-grants.h"
#include "netreq-text.h"
#include "xmalloc.h"

/* ---- decisions ---- */

static void
nr_reply(struct ctl_server_client *cl, const struct netreq_result *res)
{
	struct proto_buf b = { 0 };

	netreq_encode_result(&b, res);
	ctl_server_send(cl, &b);
	proto_buf_clear(&b);
}

/* The grant a decision adds and its reach; -1 with err when the widen
 * pattern is no entry or does not let the request's destination through. */
static int
nr_grant(const struct netreq_item *it, const struct netreq_decision *d,
    struct netreq_result *res, lz_err_t *err)
{
	struct grant_dest dest;
	struct grant_reach r;
	struct egress_entry e;
	char *canon;
	char dst[320];

	coord_netreq_dest(it, &dest);
	netreq_text_dest(it, dst, sizeof dst);
	if (d->scope == NETREQ_SCOPE_ONCE) {
		snprintf(res->preview, sizeof res->preview, "only the %u attempt%s held now for %s; "
		    "the next connection asks again", it->attempts, it->attempts == 1 ? "" : "s", dst);
		return 0;
	}
	if (d->scope == NETREQ_SCOPE_DENY) {
		snprintf(res->preview, sizeof res->preview, "nothing: %s is refused, and refused "
		    "without asking until lazaret stop", dst);
		return 0;
	}
	snprintf(res->grant, sizeof res->grant, "%s", d->widen[0] != '\0' ? d->widen : it->grant);
	if (res->grant[0] == '\0')
		return lz_err_set(err, LZ_EINVAL, "request %u has no destination to grant", it->id);
	if (egress_entry_parse(res->grant, &e, err) < 0)
		return lz_err_wrap(err, "--widen '%s'", d->widen);
	canon = egress_entry_format(&e);
	snprintf(res->grant, sizeof res->grant, "%s", canon);
	free(canon);
	grant_preview_entry(&e, &dest, &r);
	if (!r.covers)
		return lz_err_set(err, LZ_EINVAL, "'%s' does not let %s%s%s%s through (widen to a "
		    "pattern that matches it, e.g. %s)", res->grant, dst, it->name[0] ? " (" : "",
		    it->name, it->name[0] ? ")" : "", it->grant);
	snprintf(res->preview, sizeof res->preview, "%s", r.text);
	if (r.broad)
		snprintf(res->broad, sizeof res->broad, "%s", r.why_broad);
	return 0;
}

static void
nr_decide(struct coord *c, struct ctl_server_client *cl, const uint8_t *p, size_t len)
{
	struct coord_netreq *nr = coord_netreq_get(c);
	struct coord_netreq_ent *e;
	struct netreq_decision d;
	struct netreq_result res = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	char who[NETREQ_WHO_MAX + 48], *gpath = NULL;
	int held = 0;
	uint32_t verdict;

	if (netreq_decode_decision(p, len, &d, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		goto out;
	}
	if (c->net == NULL) {
		ctl_server_send_error(cl, PROTO_E_STATE, "domain %s runs with network: none: there "
		    "is nothing to ask about", c->a->hash);
		goto out;
	}
	if ((e = coord_netreq_by_id(nr, d.id)) == NULL) {
		for (size_t i = 0; i < nr->ndone; i++) {
			const struct netreq_item *x = &nr->done[(nr->done_head + i) % NETREQ_KEEP_DONE];

			if (x->id != d.id)
				continue;
			ctl_server_send_error(cl, PROTO_E_STATE, "request %u is no longer pending: %s%s%s "
			    "by %s", d.id, netreq_state_name(x->state), x->scope ? " " : "",
			    netreq_scope_name(x->scope), x->who);
			goto out;
		}
		ctl_server_send_error(cl, PROTO_E_STATE, "no request %u (see lazaret egress --pending)",
		    d.id);
		goto out;
	}
	res.id = d.id;
	res.scope = d.scope;
	if (nr_grant(&e->it, &d, &res, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		goto out;
	}
	if (res.broad[0] != '\0' && !(d.flags & NETREQ_BROAD_OK)) {
		res.status = NETREQ_NEED_BROAD;
		nr_reply(cl, &res);
		goto out;
	}
	if (d.flags & NETREQ_DRY_RUN) {
		res.status = NETREQ_PREVIEW;
		nr_reply(cl, &res);
		goto out;
	}
	snprintf(who, sizeof who, "%s (uid %u pid %ld)", d.who[0] ? d.who : "client",
	    (unsigned)cl->uid, (long)cl->pid);
	if (d.scope == NETREQ_SCOPE_PROFILE) {
		bool added;
		char why[400];

		snprintf(why, sizeof why, "request %u for %s", d.id, e->it.grant);
		if (net_grants_path(c->o->cfg, c->a->profile, &gpath, &err) < 0 ||
		    net_grants_add(gpath, res.grant, who, why, &added, &err) < 0) {
			ctl_server_send_error(cl, PROTO_E_STATE, "the grant was not saved: %s", err.msg);
			goto out;
		}
		if (added) {
			struct lz_jsonw w;

			lz_jsonw_init(&w);
			lz_jsonw_obj_open(&w);
			lz_jsonw_key(&w, "entry");
			lz_jsonw_str(&w, res.grant);
			lz_jsonw_key(&w, "profile");
			lz_jsonw_str(&w, c->a->profile);
			lz_jsonw_key(&w, "file");
			lz_jsonw_str(&w, gpath);
			lz_jsonw_key(&w, "preview");
			lz_jsonw_str(&w, res.preview);
			coord_netreq_audit(c, "net.grant.add", who, d.id, &w);
		}
	}
	verdict = d.scope == NETREQ_SCOPE_DENY ? NETCTL_V_DENY : NETCTL_V_ACCEPT;
	if (net_coord_verdict(c->net, e->rid, verdict, res.grant, &held, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_STATE, "%s%s", d.scope == NETREQ_SCOPE_PROFILE ?
		    "saved in the profile's grants, but not applied to this run: " : "", err.msg);
		goto out;
	}
	if (d.scope == NETREQ_SCOPE_PROFILE)
		coord_effcfg_egress(c, res.grant, true);	/* applied: what the grants file says */
	/* The router may have expired it between the list and the answer. */
	e = coord_netreq_by_id(nr, d.id);
	if (held == 0 && d.scope == NETREQ_SCOPE_ONCE) {
		ctl_server_send_error(cl, PROTO_E_STATE, "request %u expired before the decision: "
		    "nothing was let through (the next attempt asks again)", d.id);
		goto out;
	}
	{
		struct lz_jsonw w;
		struct netreq_item it;

		if (e != NULL && d.scope == NETREQ_SCOPE_DENY)
			coord_netreq_deny_keep(nr, &e->it);
		if (e != NULL) {
			e->it.state = d.scope == NETREQ_SCOPE_DENY ? NETREQ_DENIED : NETREQ_APPROVED;
			e->it.scope = d.scope;
			snprintf(e->it.grant, sizeof e->it.grant, "%s", res.grant);
			snprintf(e->it.who, sizeof e->it.who, "%s", d.who[0] ? d.who : "client");
			it = e->it;
			coord_netreq_retire(c, e);
		} else {
			memset(&it, 0, sizeof it);
			it.id = d.id;
		}
		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "id");
		lz_jsonw_int(&w, d.id);
		coord_netreq_json_dest(&w, &it);
		lz_jsonw_key(&w, "scope");
		lz_jsonw_str(&w, netreq_scope_name(d.scope));
		lz_jsonw_key(&w, "grant");
		lz_jsonw_str(&w, res.grant);
		lz_jsonw_key(&w, "preview");
		lz_jsonw_str(&w, res.preview);
		lz_jsonw_key(&w, "broad");
		lz_jsonw_str(&w, res.broad);
		lz_jsonw_key(&w, "attempts_held");
		lz_jsonw_int(&w, held);
		coord_netreq_audit(c, "net.decision", who, d.id, &w);
	}
	res.status = NETREQ_APPLIED;
	nr_reply(cl, &res);
out:
	free(gpath);
	lz_err_clear(&err);
}

/* ---- grants ---- */

static void
nr_grants(struct coord *c, struct ctl_server_client *cl)
{
	struct netreq_grant *g = NULL;
	struct proto_buf b = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	char *path = NULL;
	size_t n = 0;

	if (net_grants_path(c->o->cfg, c->a->profile, &path, &err) < 0 ||
	    net_grants_list(path, &g, &n, &err) < 0)
		ctl_server_send_error(cl, PROTO_E_STATE, "%s", err.msg);
	else {
		netreq_encode_grants(&b, g, n);
		ctl_server_send(cl, &b);
	}
	proto_buf_clear(&b);
	free(g);
	free(path);
	lz_err_clear(&err);
}

static void
nr_revoke(struct coord *c, struct ctl_server_client *cl, const uint8_t *p, size_t len)
{
	lz_err_t err = LZ_ERR_INIT;
	char *what = NULL, *path = NULL, *removed = NULL, who[96];
	struct proto_buf b = { 0 };
	struct lz_jsonw w;
	bool live = false;

	if (netctl_decode_str(p, len, &what, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		goto out;
	}
	if (net_grants_path(c->o->cfg, c->a->profile, &path, &err) < 0 ||
	    net_grants_remove(path, what, &removed, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_STATE, "%s", err.msg);
		goto out;
	}
	/* Revoked means revoked now, not at the next start. */
	if (c->net != NULL) {
		lz_err_t e2 = LZ_ERR_INIT;

		live = net_coord_edit(c->net, false, removed, &e2) == 0;
		lz_err_clear(&e2);
		if (live)
			coord_effcfg_egress(c, removed, false);
	}
	snprintf(who, sizeof who, "client (uid %u pid %ld)", (unsigned)cl->uid, (long)cl->pid);
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "entry");
	lz_jsonw_str(&w, removed);
	lz_jsonw_key(&w, "profile");
	lz_jsonw_str(&w, c->a->profile);
	lz_jsonw_key(&w, "file");
	lz_jsonw_str(&w, path);
	lz_jsonw_key(&w, "removed_from_run");
	lz_jsonw_bool(&w, live);
	coord_netreq_audit(c, "net.grant.revoke", who, 0, &w);
	netctl_encode_str(&b, NETREQ_REVOKE, removed);
	ctl_server_send(cl, &b);
	proto_buf_clear(&b);
out:
	free(what);
	free(path);
	free(removed);
	lz_err_clear(&err);
}

void
coord_netreq_frame(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p)
{
	switch (h->type) {
	case NETREQ_LIST:
		coord_netreq_list(c, cl, p, h->length);
		break;
	case NETREQ_DECIDE:
		nr_decide(c, cl, p, h->length);
		break;
	case NETREQ_GRANTS_REQ:
		nr_grants(c, cl);
		break;
	case NETREQ_REVOKE:
		nr_revoke(c, cl, p, h->length);
		break;
	case NETREQ_HOLD:
		coord_netreq_hold(c, cl, p, h->length);
		break;
	default:
		ctl_server_send_error(cl, PROTO_E_STATE, "%s is not a request",
		    proto_type_name(h->type));
		break;
	}
}
