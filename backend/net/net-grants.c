/* net-grants.c - the persisted grants (see net-grants.h) over grants.h (the
 * file, its lock and atomic writes) and grant.h (each grant's reach). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grant.h"
#include "grants.h"
#include "net/net-grants.h"
#include "xmalloc.h"

int
net_grants_path(const struct cfg *cfg, const char *profile, char **out, lz_err_t *err)
{
	return grants_path(cfg->file, profile, out, err);
}

int
net_grants_list(const char *path, struct netreq_grant **out, size_t *n, lz_err_t *err)
{
	struct grants g = { NULL, 0 };

	*out = NULL;
	*n = 0;
	if (grants_load(path, &g, err) < 0)
		return -1;
	*out = xcalloc(g.n + 1, sizeof **out);
	for (size_t i = 0; i < g.n; i++) {
		struct netreq_grant *o = &(*out)[i];
		struct grant_reach r;
		lz_err_t e = LZ_ERR_INIT;

		o->index = (uint32_t)(i + 1);
		snprintf(o->entry, sizeof o->entry, "%s", g.v[i].entry);
		snprintf(o->note, sizeof o->note, "%s", g.v[i].note);
		if (grant_preview(g.v[i].entry, NULL, &r, &e) == 0)
			snprintf(o->preview, sizeof o->preview, "%s%s%s", r.text,
			    r.broad ? "; broad: " : "", r.broad ? r.why_broad : "");
		else
			snprintf(o->preview, sizeof o->preview, "(not an entry: %s)", e.msg);
		lz_err_clear(&e);
	}
	*n = g.n;
	grants_clear(&g);
	return 0;
}

int
net_grants_add(const char *path, const char *entry, const char *who, const char *why,
    bool *added, lz_err_t *err)
{
	char *note = grants_note(time(NULL), who, why);
	int ret = grants_add(path, entry, note, added, err);

	free(note);
	return ret;
}

int
net_grants_remove(const char *path, const char *what, char **removed, lz_err_t *err)
{
	/* `revoke #3` and `revoke 3` are the same. */
	return grants_remove(path, what[0] == '#' ? what + 1 : what, removed, err);
}
