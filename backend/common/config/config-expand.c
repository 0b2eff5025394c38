/* config-expand.c - resolve a profile for one workspace: tilde and the five
 * tokens expanded, `..` refused after expansion, host paths canonicalized and
 * kept inside the directory their token names, host env values pulled in.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "config-int.h"
#include "egress.h"
#include "paths.h"
#include "strv.h"
#include "xmalloc.h"

/* ---- resolve ---- */

static bool
hash_valid(const char *h)
{
	size_t i;

	for (i = 0; h[i] != '\0'; i++)
		if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f')))
			return false;
	return i == 12;
}

/* Tilde (host only), tokens, then the `..` interception on the result. */
static int
expand_path(const struct cfg_ctx *c, int line, const char *key, const char *s,
    const struct lz_path_tokens *t, bool host, char **out)
{
	_cleanup_free_ char *tilde = NULL, *q = NULL;

	*out = NULL;
	if (host && lz_path_expand_tilde(s, &tilde, c->err) < 0)
		return cfg_ctx_wrap(c, line, key);
	if (lz_path_expand_tokens(tilde ? tilde : s, t, out, c->err) < 0)
		return cfg_ctx_wrap(c, line, key);
	if (lz_path_has_dotdot(*out) || strpbrk(*out, ":,") != NULL) {
		q = cfg_esc(*out, 200);
		free(*out);
		*out = NULL;
		if (strpbrk(q, ":,") != NULL && !lz_path_has_dotdot(q))
			return cfg_ctx_fail(c, line, key, "'%s' after expansion: ':' and ',' are not "
			    "allowed in mount paths", q);
		return cfg_ctx_fail(c, line, key, "security: '%s' after expansion has a '..' path "
		    "segment; refused (path traversal)", q);
	}
	return 0;
}

/* A host path written under {workspace_dir}, {profile_dir} or {domain_dir}
 * must stay there once symlinks are resolved: the agent can write symlinks
 * into those trees, and one pointing out (say to ~/.ssh) would otherwise be
 * mounted at the next start. */
static int
check_contained(const struct cfg_ctx *c, int line, const char *key, const char *raw,
    const struct lz_path_tokens *t, const char *canon)
{
	static const char *const names[] = { "{workspace_dir}", "{profile_dir}", "{domain_dir}" };
	const char *base[3] = { t->workspace_dir, t->profile_dir, t->domain_dir };
	_cleanup_free_ char *q = NULL;
	size_t i, l;

	for (i = 0; i < 3 && strncmp(raw, names[i], strlen(names[i])) != 0; i++)
		;
	if (i == 3)
		return 0;
	l = strlen(base[i]);
	if (strcmp(base[i], "/") == 0 ||
	    (strncmp(canon, base[i], l) == 0 && (canon[l] == '\0' || canon[l] == '/')))
		return 0;
	q = cfg_esc(canon, 200);
	return cfg_ctx_fail(c, line, key, "security: resolves to '%s', outside %s ('%s'): a "
	    "symlink on the way points out; refused", q, names[i], base[i]);
}

static int
resolve_volumes(const struct cfg_ctx *c, const struct cfg *cfg, const struct cfg_profile *p,
    const struct lz_path_tokens *t, struct cfg_resolved *r)
{
	size_t i;

	r->volumes = xcalloc(p->n_volumes + 1, sizeof *r->volumes);
	for (i = 0; i < p->n_volumes; i++) {
		const struct cfg_volume *v = &p->volumes[i];
		struct cfg_volume *o = &r->volumes[r->n_volumes];
		_cleanup_free_ char *hk = xasprintf("profiles.%s.volumes[%zu].host", p->name, i);
		_cleanup_free_ char *ck = xasprintf("profiles.%s.volumes[%zu].container", p->name, i);
		_cleanup_free_ char *h = NULL, *ct = NULL;

		if (expand_path(c, v->line, hk, v->host, t, true, &h) < 0)
			return -1;
		if (lz_path_canon(h, &o->host, c->err) < 0)
			return cfg_ctx_wrap(c, v->line, hk);
		r->n_volumes++;
		if (check_contained(c, v->line, hk, v->host, t, o->host) < 0 ||
		    cfg_protect_volume(c, cfg, v->line, hk, o->host, v->mode) < 0)
			return -1;
		if (expand_path(c, v->line, ck, v->container, t, false, &ct) < 0 ||
		    cfg_container_path(c, v->line, ck, ct, &o->container) < 0)
			return -1;
		o->mode = xstrdup(v->mode);
		o->line = v->line;
	}
	return 0;
}

static int
resolve_env(const struct cfg_ctx *c, const struct cfg_profile *p,
    const struct lz_path_tokens *t, struct cfg_resolved *r)
{
	size_t i;

	for (i = 0; i < p->n_env; i++) {
		const struct cfg_env *e = &p->env[i];
		_cleanup_free_ char *key = xasprintf("profiles.%s.env.%s", p->name, e->name);
		_cleanup_free_ char *val = NULL;
		const char *hv;

		if (strncmp(e->value, "env:", 4) == 0) {
			/* Host values go in verbatim: never token-expanded. */
			if ((hv = getenv(e->value + 4)) == NULL) {
				lz_strv_pushf(&r->warnings, "%s:%d: %s: host variable %s is unset; "
				    "%s is not passed", e->from_kit && p->kit != NULL ? p->kit->file :
				    c->file, e->line, key, e->value + 4, e->name);
				continue;
			}
			if (strlen(hv) > CFG_HOSTENV_MAX)
				return cfg_ctx_fail(c, e->line, key, "host variable %s is longer than %d "
				    "bytes", e->value + 4, CFG_HOSTENV_MAX);
			lz_strv_pushf(&r->env, "%s=%s", e->name, hv);
		} else {
			if (lz_path_expand_tokens(e->value, t, &val, c->err) < 0)
				return cfg_ctx_wrap(c, e->line, key);
			lz_strv_pushf(&r->env, "%s=%s", e->name, val);
		}
		r->n_env++;
	}
	return 0;
}

/* trust_host_ca: the host's CA bundle (its extra CAs, a TLS-intercepting
 * proxy's among them, included) read-only over the sandbox's own, and the
 * variables Node, Python and OpenSSL read; a variable the profile sets wins. */
static void
resolve_host_ca(const struct cfg_profile *p, struct cfg_resolved *r)
{
	static const char *const vars[] = { "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
	    "SSL_CERT_FILE" };
	_cleanup_free_ char *host = NULL;
	struct cfg_volume *v;
	size_t i, j, l;

	if (!p->trust_host_ca)
		return;
	if (lz_path_canon(CFG_HOST_CA, &host, NULL) < 0 || access(host, R_OK) != 0) {
		lz_strv_pushf(&r->warnings, "profiles.%s.trust_host_ca: %s is not readable on this "
		    "host; the sandbox keeps its own CA certificates", p->name, CFG_HOST_CA);
		return;
	}
	r->volumes = xreallocarray(r->volumes, r->n_volumes + 1, sizeof *r->volumes);
	v = &r->volumes[r->n_volumes++];
	v->host = lz_steal_ptr(&host);
	v->container = xstrdup(CFG_HOST_CA);
	v->mode = xstrdup("ro");
	v->line = p->line;
	for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		l = strlen(vars[i]);
		for (j = 0; j < r->n_env; j++)
			if (strncmp(r->env[j], vars[i], l) == 0 && r->env[j][l] == '=')
				break;
		if (j == r->n_env) {
			lz_strv_pushf(&r->env, "%s=%s", vars[i], CFG_HOST_CA);
			r->n_env++;
		}
	}
}

static void
egress_merge(struct cfg_resolved *r, char *const *add, char *const *from, size_t n_add)
{
	struct cfg_egress_list l = { &r->allow_egress, &r->allow_egress_from,
	    &r->n_allow_egress };
	size_t i;

	for (i = 0; i < n_add; i++)
		if (!lz_strv_contains(r->allow_egress, add[i]))
			cfg_egress_push(&l, add[i], from != NULL ? from[i] : "");
}

int
cfg_profile_resolve(const struct cfg *cfg, const struct cfg_profile *p,
    const char *workspace_canon, const char *domain_hash, struct cfg_resolved **out,
    lz_err_t *err)
{
	struct cfg_ctx c = { cfg->file, err, NULL };
	struct cfg_resolved *r = xcalloc(1, sizeof *r);
	struct lz_path_tokens t;
	_cleanup_free_ char *pd = NULL, *dd = NULL;
	int ret = -1;

	*out = NULL;
	r->profile = p;
	if (workspace_canon == NULL || workspace_canon[0] != '/' ||
	    lz_path_has_dotdot(workspace_canon)) {
		lz_err_set(err, LZ_EINVAL, "security: workspace '%s' is not a canonical absolute "
		    "path", workspace_canon ? workspace_canon : "(null)");
		goto out;
	}
	if (domain_hash == NULL || !hash_valid(domain_hash)) {
		lz_err_set(err, LZ_EINVAL, "domain hash '%s' is not 12 lowercase hex characters",
		    domain_hash ? domain_hash : "(null)");
		goto out;
	}
	if (lz_path_canon(workspace_canon, &r->workspace_dir, err) < 0) {
		lz_err_wrap(err, "workspace");
		goto out;
	}
	if (strcmp(r->workspace_dir, workspace_canon) != 0) {
		lz_err_set(err, LZ_EINVAL, "security: workspace '%s' is not canonical (it "
		    "resolves to '%s')", workspace_canon, r->workspace_dir);
		goto out;
	}
	r->domain_hash = xstrdup(domain_hash);
	pd = xasprintf("%s/%s", cfg->data_root, p->name);
	dd = xasprintf("%s/domains/%s", cfg->data_root, domain_hash);
	if (lz_path_canon(pd, &r->profile_dir, err) < 0 ||
	    lz_path_canon(dd, &r->domain_dir, err) < 0) {
		cfg_ctx_wrap(&c, p->line, "data_root");
		goto out;
	}
	t = (struct lz_path_tokens){ p->name, r->profile_dir, r->domain_hash, r->domain_dir,
	    r->workspace_dir };
	if (resolve_volumes(&c, cfg, p, &t, r) < 0 || resolve_env(&c, p, &t, r) < 0)
		goto out;
	resolve_host_ca(p, r);
	cfg_creds_env(p, &r->env, &r->n_env, &r->warnings);
	egress_merge(r, cfg->allow_egress, cfg->allow_egress_from, cfg->n_allow_egress);
	egress_merge(r, p->allow_egress, p->allow_egress_from, p->n_allow_egress);
	{
		size_t rules = 0;
		struct egress_entry e;

		for (size_t i = 0; i < r->n_allow_egress; i++)
			if (egress_entry_parse(r->allow_egress[i], &e, NULL) == 0)
				rules += egress_entry_rules(&e);
		if (rules > EGRESS_MAX_RULES) {
			cfg_ctx_fail(&c, p->line, "allow_egress", "with profile %s, the CIDR entries need "
			    "%zu rules (at most %d: one per CIDR without ports, two per port): list "
			    "fewer ports per CIDR, or merge CIDRs", p->name, rules, EGRESS_MAX_RULES);
			goto out;
		}
	}
	/* Not set: no entry means nothing to allow, and --network none keeps the
	 * host's socket layer out of gVisor's reach (runsc network=host). */
	r->sidecar = p->network == CFG_NET_SIDECAR ||
	    (p->network == CFG_NET_AUTO && (r->n_allow_egress > 0 || p->n_creds > 0));
	if (p->n_creds > 0 && !r->sidecar)
		lz_strv_pushf(&r->warnings, "profile %s: network: none, so its %zu credentials are "
		    "not brokered", p->name, p->n_creds);
	r->ask_timeout = cfg->ask_timeout;
	*out = lz_steal_ptr(&r);
	ret = 0;
out:
	cfg_resolved_free(r);
	return ret;
}

void
cfg_resolved_free(struct cfg_resolved *r)
{
	if (r == NULL)
		return;
	free(r->profile_dir);
	free(r->domain_hash);
	free(r->domain_dir);
	free(r->workspace_dir);
	lz_strv_free(r->env);
	cfg_volumes_free(r->volumes, r->n_volumes);
	lz_strv_free(r->allow_egress);
	lz_strv_free(r->allow_egress_from);
	lz_strv_free(r->warnings);
	free(r);
}
