/* coord-effcfg.c - the effective configuration this coordinator's sandbox
 * runs (effcfg.h), as the CONFIG frame gives it to clients: built at start,
 * the image id filled in off the loop, and profile grants applied or revoked
 * at run time edited in. */
#include <stdlib.h>
#include <uv.h>

#include "coord/coord.h"
#include "coord/coord-int.h"
#include "sandbox/driver.h"
#include "sandbox/sentry/sentry.h"
#include "effcfg.h"
#include "strv.h"
#include "xmalloc.h"

/* One "+ENTRY" or "-ENTRY" edit applied to c->effcfg. */
static void
coord_effcfg_apply(struct coord *c, const char *edit)
{
	char *t = effcfg_egress_edit(c->effcfg != NULL ? c->effcfg : "", edit + 1, edit[0] == '+');

	free(c->effcfg);
	c->effcfg = t;
}

/* A grant for the profile applied at run time (add), or revoked: the
 * running configuration is what the grants file now says, so that a client
 * reading that file sees no difference (issue 24 item 13). */
void
coord_effcfg_egress(struct coord *c, const char *entry, bool add)
{
	lz_strv_pushf(&c->effcfg_edits, "%c%s", add ? '+' : '-', entry);
	coord_effcfg_apply(c, c->effcfg_edits[lz_strv_len(c->effcfg_edits) - 1]);
}

static void
coord_effcfg_work_cb(uv_work_t *req)
{
	struct coord *c = req->data;
	lz_err_t err = LZ_ERR_INIT;

	c->image_id = NULL;
	if (c->drv->image_id(c->o->resolved->profile->image, &c->image_id, &err) < 0)
		coord_log("image id: %s", err.msg);
	lz_err_clear(&err);
}

static void
coord_effcfg_after_cb(uv_work_t *req, int status)
{
	struct coord *c = req->data;

	free(req);
	if (status == 0 && c->image_id != NULL) {
		free(c->effcfg);
		c->effcfg = effcfg_build(c->o->resolved, c->image_id,
		    c->o->mode == SENTRY_DIRECT ? "direct" : "isolated");
		for (size_t i = 0; c->effcfg_edits != NULL && c->effcfg_edits[i] != NULL; i++)
			coord_effcfg_apply(c, c->effcfg_edits[i]);
	}
	free(c->image_id);
	c->image_id = NULL;
}

/* What this sandbox really runs, for clients to compare theirs with; the
 * image id (a podman call) is filled in off the loop, "-" until then. */
void
coord_effcfg(struct coord *c)
{
	uv_work_t *req = xcalloc(1, sizeof *req);

	c->effcfg = effcfg_build(c->o->resolved, NULL,
	    c->o->mode == SENTRY_DIRECT ? "direct" : "isolated");
	req->data = c;
	if (uv_queue_work(c->loop, req, coord_effcfg_work_cb, coord_effcfg_after_cb) != 0)
		free(req);
}
