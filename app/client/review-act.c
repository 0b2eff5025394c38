/* review-act.c - merge, discard and sync with their audit rows (see
 * review-act.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "jsonw.h"
#include "review-act.h"
#include "review/review-audit.h"
#include "xmalloc.h"

int
review_act_open(struct review_act *m, const char *action, const struct cfg *cfg,
    const char *profile, const char *workspace, const char *into, lz_err_t *err)
{
	memset(m, 0, sizeof *m);
	m->action = action;
	if (cli_domain(cfg, profile, workspace, &m->a, NULL, err) < 0)
		return -1;
	if (client_connect(m->a, NULL, &m->cl, err) < 0) {
		if (err->code != ENOENT && err->code != ECONNREFUSED)
			return -1;
		lz_err_clear(err);	/* no coordinator: the row goes to state.db */
	}
	if (surface_table_load(&m->t, err) < 0 || review_open(m->a, into, true, &m->r, err) < 0 ||
	    review_surface(m->r, &m->t, m->r->base, m->r->tip, &m->s, err) < 0)
		return -1;
	return 0;
}

void
review_act_close(struct review_act *m)
{
	surface_result_clear(&m->s);
	review_free(m->r);
	surface_table_clear(&m->t);
	client_free(m->cl);
	anchor_free(m->a);
	free(m->warn);
	memset(m, 0, sizeof *m);
}

int
review_act_audit(struct review_act *m, const char *outcome, const char *mode, bool accepted,
    const char *result, const char *why, lz_err_t *err)
{
	_cleanup_free_ char *kind = xasprintf("review.%s", m->action), *detail = NULL;
	_cleanup_free_ char *range = xasprintf("%s..%s", m->r->base, m->r->tip);
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	struct lz_jsonw w;
	int ret, tries;

	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "outcome"); lz_jsonw_str(&w, outcome);
	lz_jsonw_key(&w, "branch"); lz_jsonw_str(&w, m->a->branch);
	lz_jsonw_key(&w, "target"); lz_jsonw_str(&w, m->r->target);
	lz_jsonw_key(&w, "base"); lz_jsonw_str(&w, m->r->base);
	lz_jsonw_key(&w, "tip"); lz_jsonw_str(&w, m->r->tip);
	lz_jsonw_key(&w, "range"); lz_jsonw_str(&w, range);
	lz_jsonw_key(&w, "commits"); lz_jsonw_int(&w, m->r->commits);
	if (mode != NULL) {
		lz_jsonw_key(&w, "mode"); lz_jsonw_str(&w, mode);
		lz_jsonw_key(&w, "accept_surface"); lz_jsonw_bool(&w, accepted);
	}
	lz_jsonw_key(&w, "result"); lz_jsonw_str(&w, result);
	lz_jsonw_key(&w, "why"); lz_jsonw_str(&w, why);
	lz_jsonw_key(&w, "surface"); review_surface_json(&w, &m->s);
	lz_jsonw_obj_close(&w);
	detail = lz_jsonw_steal(&w);
	/* No coordinator at open: one may be starting (it holds the store, then
	 * listens) or tearing down; ask it or the store, for up to 5 s. */
	for (tries = 0; m->cl == NULL; tries++) {
		if (client_connect(m->a, NULL, &m->cl, err) == 0)
			break;
		lz_err_clear(err);
		if (review_audit_direct(m->a, kind, detail, NULL, err) == 0)
			return 0;
		if (err->code != EBUSY)
			return -1;	/* review_audit_direct said what */
		if (tries == 50)
			return lz_err_wrap(err, "cannot write the audit row");
		lz_err_clear(err);
		usleep(100 * 1000);
	}
	review_audit_encode(&b, kind, detail);
	ret = client_request(m->cl, &b, PROTO_OK, 30000, &h, &p, err);
	free(b.data);
	return ret;
}

/* err is a refusal: audit it; an audit that fails is added to err. */
static int
review_act_refuse(struct review_act *m, const char *mode, bool accepted, lz_err_t *err)
{
	lz_err_t aerr = LZ_ERR_INIT;
	char *msg;

	if (review_act_audit(m, "refused", mode, accepted, NULL, err->msg, &aerr) < 0) {
		msg = xasprintf("%s (and its audit row failed: %s)", err->msg, aerr.msg);
		lz_err_clear(&aerr);
		lz_err_set(err, err->code, "%s", msg);
		free(msg);
	}
	return -1;
}

/* The review is not the one the user was shown. */
static int
review_act_moved(struct review_act *m, const char *expect_tip, const char *expect_base,
    lz_err_t *err)
{
	if ((expect_tip == NULL || strcmp(expect_tip, m->r->tip) == 0) &&
	    (expect_base == NULL || strcmp(expect_base, m->r->base) == 0))
		return 0;
	return lz_err_set(err, LZ_EINVAL, "%s moved since the review was shown (now %.12s..%.12s): "
	    "reload the review (r) and look again", m->a->branch, m->r->base, m->r->tip);
}

int
review_act_merge(struct review_act *m, enum review_merge_mode mode, bool accept,
    const char *expect_tip, const char *expect_base, char result[REVIEW_OID_MAX + 1],
    bool *surface_refused, lz_err_t *err)
{
	const char *mname = mode == REVIEW_MERGE_FF_ONLY ? "ff-only" :
	    mode == REVIEW_MERGE_SQUASH ? "squash" : "merge";

	*surface_refused = false;
	result[0] = '\0';
	if (review_act_moved(m, expect_tip, expect_base, err) < 0)
		return review_act_refuse(m, mname, accept, err);
	if (m->s.n > 0 && !accept) {
		*surface_refused = true;
		lz_err_set(err, LZ_EINVAL, "merge refused: %zu executable-surface flag%s (above); review "
		    "them with lazaret diff, then lazaret merge --accept-surface", m->s.n,
		    m->s.n == 1 ? "" : "s");
		return review_act_refuse(m, mname, accept, err);
	}
	if (review_merge(m->r, mode, result, err) < 0)
		return review_act_refuse(m, mname, accept, err);
	if (review_act_audit(m, "merged", mname, accept, result, NULL, err) < 0) {
		lz_err_wrap(err, "merged %.12s into %s, but the audit row failed", m->r->tip,
		    m->r->target);
		return -2;
	}
	return 0;
}

int
review_act_reset(struct review_act *m, const char *expect_tip, bool reset, char **kept,
    char **aside, lz_err_t *err)
{
	char stamp[32];

	bool discard = strcmp(m->action, "discard") == 0;
	_cleanup_free_ char *what = NULL;
	lz_err_t cerr = LZ_ERR_INIT;

	*kept = *aside = NULL;
	if (review_act_moved(m, expect_tip, NULL, err) < 0)
		return review_act_refuse(m, NULL, false, err);
	if (m->cl != NULL) {
		/* The agent's checkout and its repository are in use. */
		lz_err_set(err, LZ_EINVAL, "domain %s is running: lazaret stop -p %s -w %s first",
		    m->a->hash, m->a->profile, m->a->workspace);
		return review_act_refuse(m, NULL, false, err);
	}
	review_utc_stamp(stamp);
	if ((discard ? review_discard(m->r, kept, err) : reset ?
	    review_sync_reset(m->r, stamp, kept, err) : review_sync(m->r, err)) < 0)
		return review_act_refuse(m, NULL, false, err);
	if (review_checkout_reset(m->r, aside, &cerr) < 0)
		m->warn = xstrdup(cerr.msg);	/* the branch moved; the checkout is rebuilt anyway */
	lz_err_clear(&cerr);
	what = *kept != NULL ? xasprintf("old tip kept as %s", *kept) : xstrdup(m->r->target_tip);
	if (review_act_audit(m, discard ? "discarded" : "synced", reset ? "reset" : NULL, false,
	    discard ? m->r->base : m->r->target_tip, what, err) < 0) {
		lz_err_wrap(err, "%s done, but the audit row failed", m->action);
		return -2;
	}
	return 0;
}
