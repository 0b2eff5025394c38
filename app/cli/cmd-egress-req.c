/* cmd-egress-req.c - lazaret egress --pending / approve / deny / grants /
 * revoke: answer the network requests of a running domain from any terminal
 * (netreq.h), and keep the profile's grants honest. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "cmd-egress.h"
#include "jsonw.h"
#include "net/net-grants.h"
#include "netctl.h"
#include "netreq-text.h"
#include "store/audit.h"
#include "store/store.h"
#include "xmalloc.h"

static void
egress_summary_text(const struct netreq_summary *s)
{
	if (s->ask_timeout_ms == 0)
		printf("# nothing is asked: new destinations are blocked at once (network.ask_timeout "
		    "is 0, or this kernel cannot hold packets: see lazaret doctor --deep)\n");
	printf("# %u pending; %u attempts blocked unasked (the list was full); %u attempts to "
	    "denied destinations\n", s->pending, s->overflow, s->denied_hits);
}

struct egress_pending_out {
	bool json;
	bool header;	/* the text table's header is out */
};

/* One frame of the pending list: the summary, or one request. */
static void
egress_pending_cb(const struct proto_header *h, const uint8_t *p, void *arg)
{
	struct egress_pending_out *o = arg;
	struct netreq_summary s;
	struct netreq_item it;
	char *t;

	if (h->type == NETREQ_SUMMARY && netreq_decode_summary(p, h->length, &s, NULL) == 0) {
		if (!o->json)
			egress_summary_text(&s);
		fflush(stdout);
		return;
	}
	if (h->type != NETREQ_ITEM || netreq_decode_item(p, h->length, &it, NULL) < 0)
		return;
	if (!o->json && !o->header) {
		printf("  ID  STATE    FIRST     DESTINATION                              "
		    "TRIES GRANT\n");
		o->header = true;
	}
	t = netreq_text_item(&it, o->json);
	puts(t);
	free(t);
}

int
egress_pending(struct client *cl, bool json, bool follow, lz_err_t *err)
{
	struct proto_buf b = { 0 };
	struct egress_pending_out o = { .json = json };

	netreq_encode_list(&b, follow ? NETREQ_FOLLOW : 0);
	return client_stream(cl, &b, follow, egress_pending_cb, &o, err);
}

/* Ask the human at the terminal to type the broad pattern again. */
static bool
egress_confirm_broad(const struct netreq_result *res)
{
	char line[EGRESS_ENTRY_MAX + 8];

	fprintf(stderr, "lazaret egress: '%s' is a broad grant (%s).\n  It allows: %s\n"
	    "Type the pattern again to confirm (anything else cancels): ", res->grant, res->broad,
	    res->preview);
	fflush(stderr);
	if (fgets(line, sizeof line, stdin) == NULL)
		return false;
	line[strcspn(line, "\n")] = '\0';
	return strcmp(line, res->grant) == 0;
}

int
egress_decide(struct client *cl, const char *idtext, int scope, const char *widen,
    bool yes_broad, lz_err_t *err)
{
	struct netreq_decision d = { .scope = (uint32_t)scope };
	struct netreq_result res;
	char *end;
	unsigned long id = strtoul(idtext, &end, 10);

	if (*idtext == '\0' || *end != '\0' || id == 0 || id > UINT32_MAX)
		return lz_err_set(err, LZ_EUSAGE, "'%s' is not a request id (see lazaret egress "
		    "--pending)", idtext);
	d.id = (uint32_t)id;
	if (widen != NULL)
		snprintf(d.widen, sizeof d.widen, "%s", widen);
	snprintf(d.who, sizeof d.who, "cli");
	if (yes_broad)
		d.flags |= NETREQ_BROAD_OK;
	for (;;) {
		struct proto_buf b = { 0 };
		struct proto_header h;
		const uint8_t *p;

		netreq_encode_decision(&b, &d);
		if (client_request(cl, &b, NETREQ_RESULT, 30000, &h, &p, err) < 0 ||
		    netreq_decode_result(p, h.length, &res, err) < 0)
			return -1;
		if (res.status != NETREQ_NEED_BROAD)
			break;
		if (!isatty(STDIN_FILENO))
			return lz_err_set(err, LZ_EINVAL, "'%s' is a broad grant (%s): it allows %s; "
			    "nothing was changed. Confirm with --yes-broad, or approve something "
			    "narrower", res.grant, res.broad, res.preview);
		if (!egress_confirm_broad(&res))
			return lz_err_set(err, LZ_EINVAL, "not confirmed: nothing was changed");
		d.flags |= NETREQ_BROAD_OK;
	}
	switch (scope) {
	case NETREQ_SCOPE_ONCE:
		fprintf(stderr, "approved request %u once: %s\n", d.id, res.preview);
		break;
	case NETREQ_SCOPE_DENY:
		fprintf(stderr, "denied request %u: %s\n", d.id, res.preview);
		break;
	default:
		fprintf(stderr, "approved request %u for the %s: %s\n  reaches: %s%s%s\n", d.id,
		    scope == NETREQ_SCOPE_RUN ? "run" : "profile (saved; lazaret egress grants)",
		    res.grant, res.preview, res.broad[0] ? "\n  broad: " : "", res.broad);
	}
	return 0;
}

static void
egress_grant_print(const struct netreq_grant *g, bool json)
{
	if (json) {
		struct lz_jsonw w;
		char *t;

		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "index");
		lz_jsonw_int(&w, g->index);
		lz_jsonw_key(&w, "entry");
		lz_jsonw_str(&w, g->entry);
		lz_jsonw_key(&w, "note");
		lz_jsonw_str(&w, g->note);
		lz_jsonw_key(&w, "reach");
		lz_jsonw_str(&w, g->preview);
		lz_jsonw_obj_close(&w);
		t = lz_jsonw_steal(&w);
		puts(t);
		free(t);
		return;
	}
	printf("%3u  %-40s %s\n     %s\n", g->index, g->entry, g->preview, g->note);
}

int
egress_grants(struct client *cl, const struct cfg *cfg, const char *profile, bool json,
    lz_err_t *err)
{
	struct netreq_grant *g = NULL;
	size_t n = 0;
	char *path = NULL;
	int ret = -1;

	if (cl != NULL) {
		struct proto_buf b = { 0 };
		struct proto_header h;
		const uint8_t *p;

		netctl_encode_empty(&b, NETREQ_GRANTS_REQ);
		if (client_request(cl, &b, NETREQ_GRANTS, 30000, &h, &p, err) < 0 ||
		    netreq_decode_grants(p, h.length, &g, &n, err) < 0)
			goto out;
	} else if (net_grants_path(cfg, profile, &path, err) < 0 ||
	    net_grants_list(path, &g, &n, err) < 0)
		goto out;
	if (n == 0 && !json)
		printf("no grants saved for profile %s (lazaret egress approve ID --scope profile "
		    "adds one)\n", profile);
	for (size_t i = 0; i < n; i++)
		egress_grant_print(&g[i], json);
	ret = 0;
out:
	free(g);
	free(path);
	return ret;
}

/* No coordinator: the file is edited here, and the revocation audited in
 * the domain's own trail when it has one. */
static int
egress_revoke_direct(const struct cfg *cfg, const struct anchor *a, const char *what,
    char **removed, lz_err_t *err)
{
	char *path = NULL, *detail = NULL;
	struct store *st = NULL;
	struct lz_jsonw w;
	int ret = -1;

	if (net_grants_path(cfg, a->profile, &path, err) < 0 ||
	    net_grants_remove(path, what, removed, err) < 0)
		goto out;
	ret = 0;
	if (access(a->state_db, F_OK) < 0 || store_open(a->state_db, &st, err) < 0) {
		lz_err_clear(err);
		goto out;
	}
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "entry");
	lz_jsonw_str(&w, *removed);
	lz_jsonw_key(&w, "profile");
	lz_jsonw_str(&w, a->profile);
	lz_jsonw_key(&w, "file");
	lz_jsonw_str(&w, path);
	lz_jsonw_key(&w, "removed_from_run");
	lz_jsonw_bool(&w, false);
	lz_jsonw_obj_close(&w);
	detail = lz_jsonw_steal(&w);
	{
		char who[64];
		struct audit_rec rec = { .kind = "net.grant.revoke", .actor = who, .detail = detail };
		int64_t seq;

		snprintf(who, sizeof who, "cli (uid %u pid %ld)", (unsigned)getuid(), (long)getpid());
		if (audit_append(st, &rec, &seq, err) < 0) {
			fprintf(stderr, "lazaret egress: revoked, but not audited: %s\n", err->msg);
			lz_err_clear(err);
		}
	}
out:
	store_close(st);
	free(detail);
	free(path);
	return ret;
}

int
egress_revoke(struct client *cl, const struct cfg *cfg, const struct anchor *a,
    const char *what, lz_err_t *err)
{
	char *removed = NULL;

	if (cl != NULL) {
		struct proto_buf b = { 0 };
		struct proto_header h;
		const uint8_t *p;

		netctl_encode_str(&b, NETREQ_REVOKE, what);
		if (client_request(cl, &b, NETREQ_REVOKE, 30000, &h, &p, err) < 0 ||
		    netctl_decode_str(p, h.length, &removed, err) < 0)
			return -1;
		fprintf(stderr, "revoked %s (saved grants and this run)\n", removed);
	} else {
		if (egress_revoke_direct(cfg, a, what, &removed, err) < 0)
			return -1;
		fprintf(stderr, "revoked %s (from the next start)\n", removed);
	}
	free(removed);
	return 0;
}
