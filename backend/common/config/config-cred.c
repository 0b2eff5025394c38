/* config-cred.c - a profile's `credentials:` list (the Network Sidecar's
 * credential broker, docs/config.md "Credentials"): each entry names a
 * secret, where the host reads it (env:, file:, command:), the HTTPS upstream it is for, the
 * header it goes in and the requests it may serve. The secret itself is
 * read by the coordinator at start (backend/net/net-secret.c), never here:
 * config check shows where a secret comes from, not what it is. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-int.h"
#include "paths.h"
#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

static bool
cred_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 32)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
		    s[i] == '_'))
			return false;
	return true;
}

static bool
cred_token_ok(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || strchr("-_.", s[i]) != NULL))
			return false;
	return true;
}

/* https://HOST[:PORT][/] : HOST a name, an IPv4 address or [IPv6]. */
static int
cred_upstream(const struct cfg_ctx *c, int line, const char *key, const char *u,
    struct cfg_cred *cr)
{
	const char *h, *e, *port = NULL;
	unsigned long p = 443;

	if (strncmp(u, "https://", 8) != 0)
		return cfg_ctx_fail(c, line, key, "'%s': the upstream is an https:// URL (the broker "
		    "never sends a secret in clear)", u);
	h = u + 8;
	if (*h == '[') {
		e = strchr(h, ']');
		if (e == NULL)
			goto bad;
		cr->host = xstrndup(h + 1, (size_t)(e - h - 1));
		e++;
	} else {
		for (e = h; *e != '\0' && *e != ':' && *e != '/'; e++)
			;
		cr->host = xstrndup(h, (size_t)(e - h));
		if (!cred_token_ok(cr->host, strlen(cr->host)))
			goto bad;
	}
	if (*e == ':') {
		char *end;

		port = e + 1;
		p = strtoul(port, &end, 10);
		if (end == port || p == 0 || p > 65535)
			goto bad;
		e = end;
	}
	if (cr->git && e[0] == '/' && e[1] != '\0') {
		if (strspn(e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/-_.") !=
		    strlen(e) || strstr(e, "..") != NULL || strstr(e, "//") != NULL)
			return cfg_ctx_fail(c, line, key, "'%s': the repository path has odd characters",
			    u);
		cr->path = xstrndup(e, strlen(e) - (e[strlen(e) - 1] == '/'));
	} else if (cr->git)
		return cfg_ctx_fail(c, line, key, "'%s': a git upstream names its repository "
		    "(https://HOST/OWNER/REPO.git)", u);
	else if (!(*e == '\0' || (e[0] == '/' && e[1] == '\0')))
		return cfg_ctx_fail(c, line, key, "'%s': the upstream is a scheme, host and port, "
		    "no path (allow: rules restrict paths)", u);
	if (cr->host[0] == '\0')
		goto bad;
	cr->port = (int)p;
	return 0;
bad:
	return cfg_ctx_fail(c, line, key, "'%s' is not https://HOST[:PORT]", u);
}

static int
cred_from(const struct cfg_ctx *c, int line, const char *key, const char *v, struct cfg_cred *cr)
{
	if (strncmp(v, "env:", 4) == 0) {
		if (!cfg_name_is_env(v + 4))
			return cfg_ctx_fail(c, line, key, "'%s': after 'env:' comes a host variable name",
			    v);
	} else if (strncmp(v, "file:", 5) == 0) {
		_cleanup_free_ char *p = NULL;
		const char *f = v + 5;

		while (*f == ' ')
			f++;
		if (lz_path_expand_tilde(f, &p, c->err) < 0)
			return cfg_ctx_wrap(c, line, key);
		if (p[0] != '/' || lz_path_has_dotdot(p))
			return cfg_ctx_fail(c, line, key, "'%s': file: takes an absolute path or ~/...",
			    v);
		cr->from = xasprintf("file:%s", p);
		return 0;
	} else if (strncmp(v, "command:", 8) == 0) {
		char **argv = NULL;
		const char *cmd = v + 8;

		if (lz_shellwords_split(cmd, strlen(cmd), &argv, c->err) < 0)
			return cfg_ctx_wrap(c, line, key);
		if (argv == NULL || argv[0] == NULL) {
			lz_strv_free(argv);
			return cfg_ctx_fail(c, line, key, "'command:' names no program");
		}
		lz_strv_free(argv);
	} else
		return cfg_ctx_fail(c, line, key, "'%s': a secret comes from env:VAR, file:PATH or "
		    "command: PROGRAM ARGS", v);
	cr->from = xstrdup(v);
	return 0;
}

static int
cred_allow(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    struct cfg_cred *cr)
{
	if (cfg_get_seq(c, n, key) < 0)
		return -1;
	for (size_t i = 0; i < n->n_kids; i++) {
		const char *v, *sp;

		if (cfg_get_str(c, n->kids[i], key, 0, &v) < 0)
			return -1;
		sp = strchr(v, ' ');
		{
			bool ok = sp != NULL && sp > v && sp[1] == '/' && strchr(sp + 1, ' ') == NULL;

			if (ok && !(sp - v == 1 && v[0] == '*'))
				for (const char *m = v; m < sp; m++)
					ok = ok && *m >= 'A' && *m <= 'Z';
			if (!ok)
				return cfg_ctx_fail(c, n->kids[i]->line, key, "'%s' is not 'METHOD "
				    "/path-prefix' (METHOD in capitals, or *)", v);
		}
		lz_strv_push(&cr->allow, v);
		cr->n_allow++;
	}
	return 0;
}

static int
cred_one(const struct cfg_ctx *c, const struct cfg_node *n, const char *key, struct cfg_cred *cr)
{
	static const char *const keys[] = { "name", "from", "upstream", "header", "allow",
	    "ca_file", "base_env", "base_path", "key_env", "required", "kind", "refs", "user", "force",
	    NULL };
	const struct cfg_node *v;
	const char *s;
	_cleanup_free_ char *k = NULL;

	cr->line = n->line;
	cr->required = true;
	if (cfg_get_map(c, n, key, keys) < 0)
		return -1;
	for (size_t i = 0; i < 3; i++)	/* name, from, upstream */
		if (cfg_map_get(n, keys[i]) == NULL)
			return cfg_ctx_fail(c, n->line, key, "'%s' is missing", keys[i]);
	k = cfg_key_join(key, "name");
	if (cfg_get_str(c, cfg_map_get(n, "name"), k, 0, &s) < 0)
		return -1;
	if (!cred_name_ok(s))
		return cfg_ctx_fail(c, cfg_map_get(n, "name")->line, k, "'%s': a name is 1 to 32 of "
		    "a-z, 0-9, - and _", s);
	cr->name = xstrdup(s);
	free(k);
	k = cfg_key_join(key, "from");
	if (cfg_get_str(c, cfg_map_get(n, "from"), k, 0, &s) < 0 ||
	    cred_from(c, cfg_map_get(n, "from")->line, k, s, cr) < 0)
		return -1;
	free(k);
	k = cfg_key_join(key, "kind");
	if ((v = cfg_map_get(n, "kind")) != NULL) {
		if (cfg_get_str(c, v, k, 0, &s) < 0)
			return -1;
		if (strcmp(s, "git") != 0 && strcmp(s, "http") != 0)
			return cfg_ctx_fail(c, v->line, k, "'%s': kind is http (the default) or git", s);
		cr->git = strcmp(s, "git") == 0;
	}
	free(k);
	k = cfg_key_join(key, "upstream");
	if (cfg_get_str(c, cfg_map_get(n, "upstream"), k, 0, &s) < 0 ||
	    cred_upstream(c, cfg_map_get(n, "upstream")->line, k, s, cr) < 0)
		return -1;
	free(k);
	k = cfg_key_join(key, "header");
	s = cr->git ? "authorization: Basic" : "authorization: Bearer";
	if (cr->git && cfg_map_get(n, "header") != NULL)
		return cfg_ctx_fail(c, cfg_map_get(n, "header")->line, k, "a git credential goes in "
		    "Basic authorization (see user:)");
	if ((v = cfg_map_get(n, "header")) != NULL && cfg_get_str(c, v, k, 0, &s) < 0)
		return -1;
	{
		const char *colon = strchr(s, ':');
		size_t hl = colon ? (size_t)(colon - s) : strlen(s);

		if (!cred_token_ok(s, hl) || (colon != NULL && strchr(colon + 1, ':') != NULL))
			return cfg_ctx_fail(c, v ? v->line : n->line, k, "'%s' is not a header name, "
			    "optionally with a value prefix ('authorization: Bearer')", s);
		cr->header = xstrndup(s, hl);
		for (char *h = cr->header; *h; h++)
			*h = (char)(*h >= 'A' && *h <= 'Z' ? *h + 32 : *h);
		if (colon != NULL) {
			colon++;
			while (*colon == ' ')
				colon++;
			cr->prefix = *colon ? xasprintf("%s ", colon) : xstrdup("");
		} else
			cr->prefix = xstrdup("");
	}
	free(k);
	k = cfg_key_join(key, "allow");
	if ((v = cfg_map_get(n, "allow")) != NULL && cr->git)
		return cfg_ctx_fail(c, v->line, k, "a git credential allows fetch and push of its "
		    "repository only; refs: says which refs a push may update");
	if ((v = cfg_map_get(n, "allow")) != NULL && cred_allow(c, v, k, cr) < 0)
		return -1;
	if (cr->git) {	/* smart HTTP, that repository only */
		lz_strv_pushf(&cr->allow, "GET %s/info/refs", cr->path);
		lz_strv_pushf(&cr->allow, "POST %s/git-upload-pack", cr->path);
		lz_strv_pushf(&cr->allow, "POST %s/git-receive-pack", cr->path);
		cr->n_allow = 3;
	}
	free(k);
	k = cfg_key_join(key, "refs");
	if ((v = cfg_map_get(n, "refs")) != NULL) {
		if (!cr->git)
			return cfg_ctx_fail(c, v->line, k, "refs: is for kind: git");
		if (cfg_get_seq(c, v, k) < 0)
			return -1;
		for (size_t i = 0; i < v->n_kids; i++) {
			if (cfg_get_str(c, v->kids[i], k, 0, &s) < 0)
				return -1;
			if (strncmp(s, "refs/", 5) != 0 || strchr(s, ' ') != NULL ||
			    (strchr(s, '*') != NULL && strchr(s, '*') != s + strlen(s) - 1) ||
			    (strchr(s, '*') != NULL && s[strlen(s) - 2] != '/'))
				return cfg_ctx_fail(c, v->kids[i]->line, k, "'%s' is not a ref or a "
				    "prefix ending in /* under refs/", s);
			lz_strv_push(&cr->refs, s);
			cr->n_refs++;
		}
	} else if (cr->git) {
		lz_strv_push(&cr->refs, "refs/heads/lazaret/*");
		cr->n_refs = 1;
	}
	free(k);
	k = cfg_key_join(key, "force");
	if ((v = cfg_map_get(n, "force")) != NULL) {
		if (!cr->git)
			return cfg_ctx_fail(c, v->line, k, "force: is for kind: git");
		if (cfg_get_bool(c, v, k, &cr->force) < 0)
			return -1;
	}
	free(k);
	k = cfg_key_join(key, "user");
	cr->user = xstrdup("x-access-token");
	if ((v = cfg_map_get(n, "user")) != NULL) {
		if (!cr->git)
			return cfg_ctx_fail(c, v->line, k, "user: is for kind: git");
		if (cfg_get_str(c, v, k, 0, &s) < 0)
			return -1;
		if (!cred_token_ok(s, strlen(s)))
			return cfg_ctx_fail(c, v->line, k, "'%s' is not a user name", s);
		free(cr->user);
		cr->user = xstrdup(s);
	}
	free(k);
	k = cfg_key_join(key, "ca_file");
	if ((v = cfg_map_get(n, "ca_file")) != NULL) {
		if (cfg_get_str(c, v, k, 0, &s) < 0)
			return -1;
		if (lz_path_expand_tilde(s, &cr->ca_file, c->err) < 0)
			return cfg_ctx_wrap(c, v->line, k);
		if (cr->ca_file[0] != '/')
			return cfg_ctx_fail(c, v->line, k, "'%s': an absolute path or ~/...", s);
	}
	free(k);
	k = cfg_key_join(key, "base_path");
	if ((v = cfg_map_get(n, "base_path")) != NULL) {
		if (cfg_get_str(c, v, k, 0, &s) < 0)
			return -1;
		if (s[0] != '/' || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789/-_.") != strlen(s) || strstr(s, "..") != NULL)
			return cfg_ctx_fail(c, v->line, k, "'%s' is not a path like /v1", s);
		cr->base_path = xstrdup(s);
	}
	free(k);
	k = cfg_key_join(key, "required");
	if ((v = cfg_map_get(n, "required")) != NULL && cfg_get_bool(c, v, k, &cr->required) < 0)
		return -1;
	for (int e = 0; e < 2; e++) {
		const char *name = e == 0 ? "base_env" : "key_env";

		free(k);
		k = cfg_key_join(key, name);
		if ((v = cfg_map_get(n, name)) == NULL)
			continue;
		if (cfg_get_str(c, v, k, 0, &s) < 0)
			return -1;
		if (!cfg_name_is_env(s) || strncmp(s, "LAZARET_", 8) == 0)
			return cfg_ctx_fail(c, v->line, k, "'%s' is not a variable name of yours", s);
		*(e == 0 ? &cr->base_env : &cr->key_env) = xstrdup(s);
	}
	return 0;
}

int
cfg_load_creds(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    struct cfg_profile *p)
{
	if (cfg_get_seq(c, n, key) < 0)
		return -1;
	if (n->n_kids > CFG_CREDS_MAX)
		return cfg_ctx_fail(c, n->line, key, "more than %d credentials", CFG_CREDS_MAX);
	p->creds = xcalloc(n->n_kids + 1, sizeof *p->creds);
	for (size_t i = 0; i < n->n_kids; i++) {
		_cleanup_free_ char *k = xasprintf("%s[%zu]", key, i);

		if (cred_one(c, n->kids[i], k, &p->creds[i]) < 0) {
			p->n_creds = i + 1;
			return -1;
		}
		p->n_creds = i + 1;
		for (size_t j = 0; j < i; j++)
			if (strcmp(p->creds[j].name, p->creds[i].name) == 0)
				return cfg_ctx_fail(c, n->kids[i]->line, k, "a second credential "
				    "named '%s'", p->creds[i].name);
	}
	return 0;
}

void
cfg_creds_free(struct cfg_cred *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].from);
		free(v[i].host);
		free(v[i].header);
		free(v[i].prefix);
		lz_strv_free(v[i].allow);
		free(v[i].ca_file);
		free(v[i].base_env);
		free(v[i].base_path);
		free(v[i].path);
		lz_strv_free(v[i].refs);
		free(v[i].user);
		free(v[i].key_env);
	}
	free(v);
}

char *
cfg_cred_base_url(const struct cfg_cred *cr, size_t i)
{
	return xasprintf("http://127.0.0.1:%zu%s", (size_t)CFG_CRED_PORT + i,
	    cr->base_path ? cr->base_path : cr->path ? cr->path : "");
}

char *
cfg_cred_sentinel(const struct cfg_cred *cr)
{
	return xasprintf("lazaret-sentinel-%s", cr->name);
}

/* Whether the entry's source is there (env: only; file: and command: are
 * tried by the coordinator at start). An optional entry without it is left
 * out, like an unset env:VAR. */
bool
cfg_cred_active(const struct cfg_cred *cr)
{
	return cr->required || strncmp(cr->from, "env:", 4) != 0 || getenv(cr->from + 4) != NULL;
}

/* The agent's side: the base URL and the sentinel, replacing what the env
 * had under those names unless the config file's own profile set it. */
void
cfg_creds_env(const struct cfg_profile *p, char ***env, size_t *n_env, char ***warnings)
{
	for (size_t i = 0; i < p->n_creds; i++) {
		const struct cfg_cred *cr = &p->creds[i];
		char *val[2] = { cfg_cred_base_url(cr, i), cfg_cred_sentinel(cr) };
		const char *names[2] = { cr->base_env, cr->key_env };

		if (!cfg_cred_active(cr)) {
			lz_strv_pushf(warnings, "credential %s: host variable %s is unset; not brokered",
			    cr->name, cr->from + 4);
			free(val[0]);
			free(val[1]);
			continue;
		}
		for (int k = 0; k < 2; k++) {
			size_t l, j;
			bool user = false;

			if (names[k] == NULL)
				continue;
			l = strlen(names[k]);
			for (size_t e = 0; e < p->n_env; e++)
				if (strcmp(p->env[e].name, names[k]) == 0 && !p->env[e].from_kit)
					user = true;
			if (user)
				continue;
			for (j = 0; j < *n_env; j++)
				if (strncmp((*env)[j], names[k], l) == 0 && (*env)[j][l] == '=')
					break;
			if (j < *n_env) {
				free((*env)[j]);
				(*env)[j] = xasprintf("%s=%s", names[k], val[k]);
			} else {
				lz_strv_pushf(env, "%s=%s", names[k], val[k]);
				(*n_env)++;
			}
		}
		free(val[0]);
		free(val[1]);
	}
}
