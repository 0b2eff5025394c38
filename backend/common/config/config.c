/* config.c - load the YAML configuration: read the file, walk the schema.
 *
 * Theory of operation: config-tree.c turns the bytes into a tree of nodes
 * with line numbers; the schema walk here fills struct cfg from it, failing
 * on the first problem with "FILE:LINE: KEY: what is wrong" (value checks in
 * config-check.c). Everything that does not depend on a workspace is checked
 * at load time, so `lazaret config check` catches it; cfg_profile_resolve()
 * (config-expand.c) only expands and canonicalizes.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config-int.h"
#include "paths.h"
#include "policy.h"
#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

const char cfg_default_yaml[] =
    "# Lazaret embedded default configuration, used when no config file exists.\n"
    "# Copy it to ~/.config/lazaret/config.yaml to change it (docs/config.md).\n"
    "escalation:\n"
    "  enabled: true\n"
    "profiles:\n"
    "  default:\n"
    "    image: localhost/lazaret-default:latest\n";

static int
load_dns_upstream(const struct cfg_ctx *c, const struct cfg_node *n)
{
	const char *s;

	if (cfg_get_str(c, n, "dns_upstream", 0, &s) < 0)
		return -1;
	if (cfg_hostport_check(s, c->err) < 0)
		return cfg_ctx_wrap(c, n->line, "dns_upstream");
	c->cfg->dns_upstream = xstrdup(s);
	return 0;
}

/* network: settings of the Network Sidecar that are not per profile. */
static int
load_network_top(const struct cfg_ctx *c, const struct cfg_node *n)
{
	static const char *const keys[] = { "ask_timeout", NULL };
	const struct cfg_node *v;

	c->cfg->ask_timeout = CFG_ASK_TIMEOUT_DEFAULT;
	if (n == NULL)
		return 0;
	if (cfg_get_map(c, n, "network", keys) < 0)
		return -1;
	if ((v = cfg_map_get(n, "ask_timeout")) != NULL &&
	    cfg_get_int(c, v, "network.ask_timeout", 0, CFG_ASK_TIMEOUT_MAX,
	    &c->cfg->ask_timeout) < 0)
		return -1;
	return 0;
}

static int
load_network(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    struct cfg_profile *p)
{
	const char *s;

	if (cfg_get_str(c, n, key, 0, &s) < 0)
		return -1;
	if (strcmp(s, "sidecar") == 0)
		p->network = CFG_NET_SIDECAR;
	else if (strcmp(s, "none") == 0)
		p->network = CFG_NET_NONE;
	else {
		_cleanup_free_ char *q = cfg_esc(s, 64);

		return cfg_ctx_fail(c, n->line, key, "expected 'sidecar' or 'none', got '%s'", q);
	}
	if (p->network == CFG_NET_NONE && p->n_allow_egress > 0)
		cfg_ctx_warn(c, n->line, key, "none: the profile's allow_egress has no effect");
	return 0;
}

/* user: agent (uid 1000), root (0), a uid that podman's rootless mapping
 * covers, or auto (the default: agent when the image has uid 1000). */
static int
load_user(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    struct cfg_profile *p)
{
	const char *s;
	char *end;
	long v;

	if (cfg_get_str(c, n, key, 0, &s) < 0)
		return -1;
	if (strcmp(s, "agent") == 0 || strcmp(s, "auto") == 0) {
		p->user = s[1] == 'g' ? CFG_USER_AGENT : CFG_USER_AUTO;
		return 0;
	}
	if (strcmp(s, "root") == 0) {
		p->user = 0;
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || v > CFG_USER_MAX) {
		_cleanup_free_ char *q = cfg_esc(s, 64);

		return cfg_ctx_fail(c, n->line, key, "expected 'agent', 'root', 'auto' or a uid "
		    "from 0 to %d, got '%s'", CFG_USER_MAX, q);
	}
	p->user = (int)v;
	return 0;
}

static int
load_data_root(const struct cfg_ctx *c, const struct cfg_node *n)
{
	_cleanup_free_ char *dflt = NULL, *tilde = NULL;
	const char *s;
	int line = n ? n->line : 1;

	if (n == NULL) {
		if (lz_path_xdg("XDG_DATA_HOME", ".local/share", &tilde, c->err) < 0)
			return cfg_ctx_wrap(c, line, "data_root (default)");
		dflt = xasprintf("%s/lazaret", tilde);
		s = dflt;
	} else {
		if (cfg_get_str(c, n, "data_root", 0, &s) < 0)
			return -1;
		if (strchr(s, '{') != NULL)
			return cfg_ctx_fail(c, line, "data_root", "tokens are not allowed here: data_root "
			    "is what {profile_dir} and {domain_dir} are built from");
	}
	free(tilde);
	tilde = NULL;
	if (lz_path_expand_tilde(s, &tilde, c->err) < 0 ||
	    lz_path_canon(tilde, &c->cfg->data_root, c->err) < 0)
		return cfg_ctx_wrap(c, line, n ? "data_root" : "data_root (default)");
	c->cfg->data_root_line = line;
	return 0;
}

static int
load_socket_dir(const struct cfg_ctx *c, const struct cfg_node *n)
{
	_cleanup_free_ char *dflt = NULL, *tilde = NULL;
	const char *s, *rt = getenv("XDG_RUNTIME_DIR");
	int line = n ? n->line : 1;

	if (n == NULL) {
		if (rt != NULL && rt[0] == '/' && strlen(rt) < LZ_PATH_MAX)
			dflt = xasprintf("%s/lazaret", rt);
		else
			dflt = xasprintf("/tmp/lazaret-%u", (unsigned)getuid());
		s = dflt;
	} else {
		if (cfg_get_str(c, n, "escalation.socket_dir", 0, &s) < 0)
			return -1;
		if (strchr(s, '{') != NULL)
			return cfg_ctx_fail(c, line, "escalation.socket_dir", "tokens are not allowed "
			    "here (one socket directory serves every profile)");
	}
	/* Not symlink-resolved: the socket code lstat()s it and refuses a symlink. */
	if (lz_path_expand_tilde(s, &tilde, c->err) < 0 ||
	    lz_path_normalize(tilde, &c->cfg->esc_socket_dir, c->err) < 0)
		return cfg_ctx_wrap(c, line, n ? "escalation.socket_dir" : "escalation.socket_dir "
		    "(default)");
	return 0;
}

static int
load_escalation(const struct cfg_ctx *c, const struct cfg_node *n)
{
	static const char *const keys[] = { "enabled", "socket_dir", "auto_approve", "timeout",
	    NULL };
	const struct cfg_node *v;
	const char *s;
	size_t i;

	c->cfg->esc_enabled = true;
	c->cfg->esc_timeout = CFG_ESC_TIMEOUT_DEFAULT;
	if (n != NULL && cfg_get_map(c, n, "escalation", keys) < 0)
		return -1;
	if (n != NULL && (v = cfg_map_get(n, "enabled")) != NULL &&
	    cfg_get_bool(c, v, "escalation.enabled", &c->cfg->esc_enabled) < 0)
		return -1;
	if (n != NULL && (v = cfg_map_get(n, "timeout")) != NULL &&
	    cfg_get_int(c, v, "escalation.timeout", 1, CFG_ESC_TIMEOUT_MAX,
	    &c->cfg->esc_timeout) < 0)
		return -1;
	if (load_socket_dir(c, n ? cfg_map_get(n, "socket_dir") : NULL) < 0)
		return -1;
	if (n == NULL || (v = cfg_map_get(n, "auto_approve")) == NULL)
		return 0;
	if (cfg_get_seq(c, v, "escalation.auto_approve") < 0)
		return -1;
	for (i = 0; i < v->n_kids; i++) {
		_cleanup_free_ char *sub = xasprintf("escalation.auto_approve[%zu]", i);

		if (cfg_get_str(c, v->kids[i], sub, 0, &s) < 0)
			return -1;
		if (s[strspn(s, " \t")] == '\0')
			return cfg_ctx_fail(c, v->kids[i]->line, sub, "empty command");
		/* policy check: see policy.h (banned executables, metacharacters) */
		if (policy_entry_validate(s, c->err) < 0)
			return cfg_ctx_wrap(c, v->kids[i]->line, sub);
		lz_strv_push(&c->cfg->esc_auto_approve, s);
		c->cfg->n_esc_auto_approve++;
	}
	return 0;
}

/* workbench.notify: a command line split as shell words, run without a
 * shell when a tab starts to need the user. */
static int
load_workbench_notify(const struct cfg_ctx *c, const struct cfg_node *v)
{
	const char *s;
	char **argv = NULL;

	if (cfg_get_str(c, v, "workbench.notify", 0, &s) < 0)
		return -1;
	if (lz_shellwords_split(s, strlen(s), &argv, c->err) < 0)
		return cfg_ctx_wrap(c, v->line, "workbench.notify");
	if (argv == NULL || argv[0] == NULL) {
		lz_strv_free(argv);
		return cfg_ctx_fail(c, v->line, "workbench.notify", "empty: write a command "
		    "(notify-send Lazaret), or leave the key out");
	}
	c->cfg->wb_notify = argv;
	return 0;
}

static int
load_workbench(const struct cfg_ctx *c, const struct cfg_node *n)
{
	static const char *const keys[] = { "theme", "prefix", "history", "mouse", "notify", "bell",
	    NULL };
	const struct cfg_node *v;
	const char *s;

	c->cfg->wb_history = CFG_WB_HISTORY_DEFAULT;
	if (n == NULL)
		return 0;
	if (cfg_get_map(c, n, "workbench", keys) < 0)
		return -1;
	if ((v = cfg_map_get(n, "theme")) != NULL) {
		if (cfg_get_str(c, v, "workbench.theme", 0, &s) < 0)
			return -1;
		if (*s == '\0')
			return cfg_ctx_fail(c, v->line, "workbench.theme", "empty: write a theme name "
			    "(default, light, high-contrast) or a file");
		if (strchr(s, '{') != NULL)
			return cfg_ctx_fail(c, v->line, "workbench.theme", "tokens are not allowed here "
			    "(the theme is not tied to a profile)");
		if (lz_path_expand_tilde(s, &c->cfg->wb_theme, c->err) < 0)
			return cfg_ctx_wrap(c, v->line, "workbench.theme");
		c->cfg->wb_theme_line = v->line;
	}
	if ((v = cfg_map_get(n, "prefix")) != NULL) {
		if (cfg_get_str(c, v, "workbench.prefix", 0, &s) < 0 ||
		    cfg_check_key_name(c, v->line, "workbench.prefix", s) < 0)
			return -1;
		c->cfg->wb_prefix = xstrdup(s);
		c->cfg->wb_prefix_line = v->line;
	}
	if ((v = cfg_map_get(n, "history")) != NULL &&
	    cfg_get_int(c, v, "workbench.history", 0, CFG_WB_HISTORY_MAX, &c->cfg->wb_history) < 0)
		return -1;
	if ((v = cfg_map_get(n, "mouse")) != NULL &&
	    cfg_get_bool(c, v, "workbench.mouse", &c->cfg->wb_mouse) < 0)
		return -1;
	if ((v = cfg_map_get(n, "bell")) != NULL &&
	    cfg_get_bool(c, v, "workbench.bell", &c->cfg->wb_bell) < 0)
		return -1;
	if ((v = cfg_map_get(n, "notify")) != NULL)
		return load_workbench_notify(c, v);
	return 0;
}

static int
load_image(const struct cfg_ctx *c, const struct cfg_node *n, const char *key, char **out)
{
	const char *s;
	size_t i;

	if (cfg_get_str(c, n, key, 0, &s) < 0)
		return -1;
	if (*s == '\0')
		return cfg_ctx_fail(c, n->line, key, "empty image name");
	/* Never an option to podman: the image is one argv entry after "--". */
	if (!isalnum((unsigned char)s[0]))
		return cfg_ctx_fail(c, n->line, key, "an image reference starts with a letter or digit");
	for (i = 0; s[i] != '\0'; i++) {
		if (!isalnum((unsigned char)s[i]) && strchr("._-/:@", s[i]) == NULL) {
			_cleanup_free_ char *q = cfg_esc(s, 200);

			return cfg_ctx_fail(c, n->line, key, "'%s': character '%c' is not allowed in an "
			    "image reference", q, s[i]);
		}
	}
	*out = xstrdup(s);
	return 0;
}

static int
load_persistent(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    struct cfg_profile *p)
{
	size_t i, j;
	const char *s;
	char *norm;

	if (cfg_get_seq(c, n, key) < 0)
		return -1;
	for (i = 0; i < n->n_kids; i++) {
		_cleanup_free_ char *sub = xasprintf("%s[%zu]", key, i);
		int line = n->kids[i]->line;

		if (cfg_get_str(c, n->kids[i], sub, 0, &s) < 0)
			return -1;
		if (strchr(s, '{') != NULL)
			return cfg_ctx_fail(c, line, sub, "tokens are not allowed in persistent_dirs");
		if (cfg_mount_chars(c, line, sub, s) < 0 ||
		    cfg_container_path(c, line, sub, s, &norm) < 0)
			return -1;
		for (j = 0; j < p->n_persistent_dirs; j++) {
			if (strcmp(p->persistent_dirs[j], norm) == 0) {
				free(norm);
				return cfg_ctx_fail(c, line, sub, "'%s' is listed twice",
				    p->persistent_dirs[j]);
			}
		}
		lz_strv_push(&p->persistent_dirs, norm);
		free(norm);
		p->n_persistent_dirs++;
	}
	return 0;
}

struct cfg_limits
cfg_limits_default(void)
{
	return (struct cfg_limits){ CFG_LIMIT_MEMORY_DEFAULT, CFG_LIMIT_PIDS_DEFAULT,
	    CFG_LIMIT_DISK_DEFAULT, CFG_LIMIT_CPUS_DEFAULT, 0, CFG_LIMIT_GIT_OBJECT_DEFAULT };
}

/* Spec 4.3.3: /usr is always a State Anchor (what apt or pip installs there
 * survives), and so are /etc and /var, where dpkg and apt keep what they know
 * of it (/var/lib/dpkg, /var/lib/apt, conffiles): /usr alone left `node`
 * running while `dpkg -s nodejs` said "not installed". Added first, in that
 * order, unless listed; the overlays mount parents first whatever the order.
 * persist_usr: false opts out of all three. */
void
cfg_profile_persist_usr(struct cfg_profile *p)
{
	static const char *const pkg_dirs[] = { "/usr", "/etc", "/var" };
	char **v = NULL;
	size_t i, added = 0;

	if (!p->persist_usr)
		return;
	for (i = 0; i < sizeof pkg_dirs / sizeof pkg_dirs[0]; i++)
		if (!lz_strv_contains(p->persistent_dirs, pkg_dirs[i])) {
			lz_strv_push(&v, pkg_dirs[i]);
			added++;
		}
	if (added == 0)
		return;
	for (i = 0; i < p->n_persistent_dirs; i++)
		lz_strv_push(&v, p->persistent_dirs[i]);
	lz_strv_free(p->persistent_dirs);
	p->persistent_dirs = v;
	p->n_persistent_dirs += added;
}

static int
load_env(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    struct cfg_profile *p)
{
	size_t i;
	const char *k, *v;

	if (cfg_get_map(c, n, key, NULL) < 0)
		return -1;
	p->env = xcalloc(n->n_kids / 2 + 1, sizeof *p->env);
	for (i = 0; i < n->n_kids; i += 2) {
		const struct cfg_node *kn = n->kids[i], *vn = n->kids[i + 1];
		_cleanup_free_ char *sub = NULL, *q = NULL;

		k = kn->str;
		if (!cfg_name_is_env(k)) {
			q = cfg_esc(k, 64);
			return cfg_ctx_fail(c, kn->line, key, "invalid variable name '%s': must match "
			    "^[A-Za-z_][A-Za-z0-9_]*$", q);
		}
		sub = cfg_key_join(key, k);
		if (strncmp(k, "LAZARET_", 8) == 0)
			return cfg_ctx_fail(c, kn->line, sub, "names starting with LAZARET_ are reserved "
			    "for Lazaret itself");
		if (cfg_get_str(c, vn, sub, STR_MULTILINE, &v) < 0)
			return -1;
		if (strncmp(v, "env:", 4) == 0) {
			if (!cfg_name_is_env(v + 4)) {
				q = cfg_esc(v, 64);
				return cfg_ctx_fail(c, vn->line, sub, "'%s': after 'env:' comes a host "
				    "variable name matching ^[A-Za-z_][A-Za-z0-9_]*$", q);
			}
		} else if (lz_path_tokens_check(v, c->err) < 0)
			return cfg_ctx_wrap(c, vn->line, sub);
		p->env[p->n_env].name = xstrdup(k);
		p->env[p->n_env].value = xstrdup(v);
		p->env[p->n_env].line = kn->line;
		p->n_env++;
	}
	return 0;
}

static int
load_volumes(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    struct cfg_profile *p)
{
	static const char *const keys[] = { "host", "container", "mode", NULL };
	size_t i;

	if (cfg_get_seq(c, n, key) < 0)
		return -1;
	p->volumes = xcalloc(n->n_kids + 1, sizeof *p->volumes);
	for (i = 0; i < n->n_kids; i++) {
		const struct cfg_node *vn = n->kids[i], *h, *ct, *m;
		_cleanup_free_ char *sub = xasprintf("%s[%zu]", key, i), *hk = NULL, *ck = NULL,
		    *mk = NULL;
		const char *hs, *cs, *ms = "";
		struct cfg_volume *vol = &p->volumes[p->n_volumes];

		if (cfg_get_map(c, vn, sub, keys) < 0)
			return -1;
		hk = xasprintf("%s.host", sub);
		ck = xasprintf("%s.container", sub);
		mk = xasprintf("%s.mode", sub);
		if ((h = cfg_map_get(vn, "host")) == NULL)
			return cfg_ctx_fail(c, vn->line, hk, "missing (a volume needs host and container)");
		if ((ct = cfg_map_get(vn, "container")) == NULL)
			return cfg_ctx_fail(c, vn->line, ck, "missing (a volume needs host and container)");
		if (cfg_get_str(c, h, hk, 0, &hs) < 0 ||
		    cfg_check_volume_path(c, h->line, hk, hs, true) < 0)
			return -1;
		if (cfg_get_str(c, ct, ck, 0, &cs) < 0 ||
		    cfg_check_volume_path(c, ct->line, ck, cs, false) < 0)
			return -1;
		if ((m = cfg_map_get(vn, "mode")) != NULL &&
		    (cfg_get_str(c, m, mk, 0, &ms) < 0 || cfg_check_mode(c, m->line, mk, ms) < 0))
			return -1;
		/* A literal container path can be checked fully now. */
		if (strchr(cs, '{') == NULL) {
			_cleanup_free_ char *norm = NULL;

			if (cfg_container_path(c, ct->line, ck, cs, &norm) < 0)
				return -1;
		}
		vol->host = xstrdup(hs);
		vol->container = xstrdup(cs);
		vol->mode = xstrdup(ms);
		vol->line = vn->line;
		p->n_volumes++;
	}
	return 0;
}

/* A size, at least min (0, "none", means no limit). */
static int
load_size(const struct cfg_ctx *c, const struct cfg_node *n, const char *key, uint64_t min,
    uint64_t *out)
{
	_cleanup_free_ char *m = NULL;
	const char *s;

	if (cfg_get_str(c, n, key, 0, &s) < 0)
		return -1;
	if (cfg_size_parse(s, out, c->err) < 0)
		return cfg_ctx_wrap(c, n->line, key);
	if (*out != 0 && *out < min) {
		m = cfg_size_text(min);
		return cfg_ctx_fail(c, n->line, key, "'%s' is below the smallest sandbox that "
		    "works (%s); write none for no limit", s, m);
	}
	return 0;
}

static int
load_limits(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    struct cfg_limits *l)
{
	static const char *const keys[] = { "memory", "pids", "disk", "cpus", "git_object", NULL };
	_cleanup_free_ char *k = NULL;
	const struct cfg_node *v;
	const char *s;
	int pids;

	if (cfg_get_map(c, n, key, keys) < 0)
		return -1;
	l->line = n->line;
	if ((v = cfg_map_get(n, "memory")) != NULL) {
		k = xasprintf("%s.memory", key);
		if (load_size(c, v, k, CFG_LIMIT_MEMORY_MIN, &l->memory) < 0)
			return -1;
	}
	if ((v = cfg_map_get(n, "disk")) != NULL) {
		free(k);
		k = xasprintf("%s.disk", key);
		if (load_size(c, v, k, CFG_LIMIT_DISK_MIN, &l->disk) < 0)
			return -1;
	}
	if ((v = cfg_map_get(n, "git_object")) != NULL) {
		free(k);
		k = xasprintf("%s.git_object", key);
		if (load_size(c, v, k, CFG_LIMIT_GIT_OBJECT_MIN, &l->git_object) < 0)
			return -1;
	}
	if ((v = cfg_map_get(n, "pids")) != NULL) {
		free(k);
		k = xasprintf("%s.pids", key);
		if (v->kind == NODE_SCALAR && v->plain && strcmp(v->str, "none") == 0)
			l->pids = 0;
		else if (cfg_get_int(c, v, k, CFG_LIMIT_PIDS_MIN, 1 << 22, &pids) < 0)
			return -1;
		else
			l->pids = pids;
	}
	if ((v = cfg_map_get(n, "cpus")) != NULL) {
		free(k);
		k = xasprintf("%s.cpus", key);
		if (cfg_get_str(c, v, k, 0, &s) < 0)
			return -1;
		if (cfg_cpus_parse(s, &l->cpus_milli, c->err) < 0)
			return cfg_ctx_wrap(c, v->line, k);
	}
	return 0;
}

/* Which CFG_PK_* bit a profile key sets. */
static unsigned
profile_key_bit(const char *k)
{
	static const struct { const char *k; unsigned bit; } t[] = {
		{ "image", CFG_PK_IMAGE }, { "persistent_dirs", CFG_PK_PERSISTENT },
		{ "persist_usr", CFG_PK_PERSIST_USR }, { "allow_egress", CFG_PK_EGRESS },
		{ "network", CFG_PK_NETWORK }, { "env", CFG_PK_ENV }, { "volumes", CFG_PK_VOLUMES },
		{ "limits", CFG_PK_LIMITS }, { "trust_host_ca", CFG_PK_TRUST_HOST_CA },
		{ "user", CFG_PK_USER }, { "credentials", CFG_PK_CREDENTIALS },
	};
	size_t i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(t[i].k, k) == 0)
			return t[i].bit;
	return 0;
}

int
cfg_profile_load(const struct cfg_ctx *c, const char *name, int line, const char *key,
    const struct cfg_node *n, struct cfg_profile *p)
{
	static const char *const keys[] = { "image", "persistent_dirs", "persist_usr",
	    "allow_egress", "network", "env", "volumes", "limits", "trust_host_ca", "user",
	    "credentials", NULL };
	_cleanup_free_ char *k = NULL;
	const struct cfg_node *v;
	size_t i;

	p->name = xstrdup(name);
	p->line = line;
	p->map_line = n->line;
	p->user = CFG_USER_AUTO;
	p->limits = cfg_limits_default();
	if (cfg_get_map(c, n, key, keys) < 0)
		return -1;
	for (i = 0; i < n->n_kids; i += 2)
		p->keys |= profile_key_bit(n->kids[i]->str);
	/* Missing: the kit named like the profile gives it (cfg_load checks). */
	k = xasprintf("%s.image", key);
	if ((v = cfg_map_get(n, "image")) != NULL && load_image(c, v, k, &p->image) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.persistent_dirs", key);
	if ((v = cfg_map_get(n, "persistent_dirs")) != NULL && load_persistent(c, v, k, p) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.persist_usr", key);
	p->persist_usr = true;
	if ((v = cfg_map_get(n, "persist_usr")) != NULL && cfg_get_bool(c, v, k, &p->persist_usr) < 0)
		return -1;
	cfg_profile_persist_usr(p);
	free(k);
	k = xasprintf("%s.trust_host_ca", key);
	if ((v = cfg_map_get(n, "trust_host_ca")) != NULL &&
	    cfg_get_bool(c, v, k, &p->trust_host_ca) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.allow_egress", key);
	if ((v = cfg_map_get(n, "allow_egress")) != NULL &&
	    cfg_load_egress(c, v, k, &(struct cfg_egress_list){ &p->allow_egress,
	    &p->allow_egress_from, &p->n_allow_egress }) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.network", key);
	if ((v = cfg_map_get(n, "network")) != NULL && load_network(c, v, k, p) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.env", key);
	if ((v = cfg_map_get(n, "env")) != NULL && load_env(c, v, k, p) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.credentials", key);
	if ((v = cfg_map_get(n, "credentials")) != NULL && cfg_load_creds(c, v, k, p) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.volumes", key);
	if ((v = cfg_map_get(n, "volumes")) != NULL && load_volumes(c, v, k, p) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.limits", key);
	if ((v = cfg_map_get(n, "limits")) != NULL && load_limits(c, v, k, &p->limits) < 0)
		return -1;
	free(k);
	k = xasprintf("%s.user", key);
	if ((v = cfg_map_get(n, "user")) != NULL && load_user(c, v, k, p) < 0)
		return -1;
	return 0;
}

static int
load_profile(const struct cfg_ctx *c, const struct cfg_node *kn, const struct cfg_node *n,
    struct cfg_profile *p)
{
	_cleanup_free_ char *key = NULL;

	if (!cfg_profile_name_valid(kn->str)) {
		_cleanup_free_ char *q = cfg_esc(kn->str, 64);

		return cfg_ctx_fail(c, kn->line, "profiles", "invalid profile name '%s': must match "
		    "^[a-z0-9_-]{2,32}$ (lowercase letters, digits, '_' and '-')", q);
	}
	/* Its sandbox would be lazaret-net-<H>, the network sidecar's own name. */
	if (strcmp(kn->str, "net") == 0)
		return cfg_ctx_fail(c, kn->line, "profiles", "profile name 'net' is reserved (the "
		    "network sidecar's container is lazaret-net-<domain>): rename the profile");
	key = xasprintf("profiles.%s", kn->str);
	return cfg_profile_load(c, kn->str, kn->line, key, n, p);
}

static int
load_profiles(const struct cfg_ctx *c, const struct cfg_node *root,
    const struct cfg_node *n)
{
	size_t i;

	if (n == NULL)
		return cfg_ctx_fail(c, root->line, "profiles", "missing: define at least one profile "
		    "(see docs/config.md)");
	if (cfg_get_map(c, n, "profiles", NULL) < 0)
		return -1;
	if (n->n_kids == 0)
		return cfg_ctx_fail(c, n->line, "profiles", "empty: define at least one profile");
	c->cfg->profiles = xcalloc(n->n_kids / 2, sizeof *c->cfg->profiles);
	for (i = 0; i < n->n_kids; i += 2) {
		/* Counted first so that cfg_free() sees a half-filled profile. */
		c->cfg->n_profiles++;
		if (load_profile(c, n->kids[i], n->kids[i + 1],
		    &c->cfg->profiles[c->cfg->n_profiles - 1]) < 0)
			return -1;
	}
	return 0;
}

static int
load_tree(const struct cfg_ctx *c, const struct cfg_node *root)
{
	static const char *const keys[] = { "data_root", "allow_egress", "dns_upstream",
	    "network", "escalation", "workbench", "profiles", NULL };
	const struct cfg_node *v;

	if (root == NULL || cfg_node_is_null(root))
		return lz_err_set(c->err, LZ_EINVAL, "%s:%d: empty configuration: expected a "
		    "mapping with at least 'profiles'", c->file, root ? root->line : 1);
	if (root->kind != NODE_MAP)
		return lz_err_set(c->err, LZ_EINVAL, "%s:%d: expected a mapping at the top level, "
		    "got %s", c->file, root->line, cfg_node_what(root));
	if (cfg_get_map(c, root, "", keys) < 0)
		return -1;
	if (load_data_root(c, cfg_map_get(root, "data_root")) < 0)
		return -1;
	if ((v = cfg_map_get(root, "allow_egress")) != NULL &&
	    cfg_load_egress(c, v, "allow_egress", &(struct cfg_egress_list){
	    &c->cfg->allow_egress, &c->cfg->allow_egress_from, &c->cfg->n_allow_egress }) < 0)
		return -1;
	if ((v = cfg_map_get(root, "dns_upstream")) != NULL && load_dns_upstream(c, v) < 0)
		return -1;
	if (load_network_top(c, cfg_map_get(root, "network")) < 0)
		return -1;
	if (load_escalation(c, cfg_map_get(root, "escalation")) < 0 ||
	    load_workbench(c, cfg_map_get(root, "workbench")) < 0)
		return -1;
	return load_profiles(c, root, cfg_map_get(root, "profiles"));
}

/* ---- public: load and free ---- */

int
cfg_profiles_check_image(const struct cfg *cfg, lz_err_t *err)
{
	size_t i;

	for (i = 0; i < cfg->n_profiles; i++)
		if (cfg->profiles[i].image == NULL)
			return lz_err_set(err, LZ_EINVAL, "%s:%d: profiles.%s.image: missing (every "
			    "profile names its image, unless a kit of its name gives it: see "
			    "docs/kits.md)", cfg->file, cfg->profiles[i].map_line, cfg->profiles[i].name);
	return 0;
}

/* kits: apply the installed kits (cfg_load), else only check images. */
static int
load_buf(const char *name, const char *buf, size_t len, bool kits, struct cfg **out,
    lz_err_t *err)
{
	struct cfg_ctx c = { name, err, NULL };
	struct cfg_node *root = NULL;
	int ret = -1;

	*out = NULL;
	if (len > CFG_FILE_MAX)
		return lz_err_set(err, LZ_EINVAL, "%s: larger than %d bytes", name, CFG_FILE_MAX);
	c.cfg = xcalloc(1, sizeof *c.cfg);
	c.cfg->file = xstrdup(name);
	if (cfg_tree_build(&c, buf, len, &root) < 0 || load_tree(&c, root) < 0)
		goto out;
	if ((kits ? cfg_kits_apply(c.cfg, err) : cfg_profiles_check_image(c.cfg, err)) < 0)
		goto out;
	*out = lz_steal_ptr(&c.cfg);
	ret = 0;
out:
	cfg_node_free(root);
	cfg_free(c.cfg);
	return ret;
}

int
cfg_load_buf(const char *name, const char *buf, size_t len, struct cfg **out, lz_err_t *err)
{
	return load_buf(name, buf, len, false, out, err);
}

/* The file's own entries and the kits' defaults, then the grants file of
 * each profile next to it. */
static int
load_with_grants(const char *name, const char *buf, size_t len, struct cfg **out,
    lz_err_t *err)
{
	if (load_buf(name, buf, len, true, out, err) < 0)
		return -1;
	if (cfg_merge_grants(*out, err) < 0) {
		cfg_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int
cfg_load(const char *path, struct cfg **out, lz_err_t *err)
{
	_cleanup_free_ char *dflt = NULL, *base = NULL, *buf = NULL;
	size_t len = 0;

	*out = NULL;
	if (path == NULL) {
		if (lz_path_xdg("XDG_CONFIG_HOME", ".config", &base, err) < 0)
			return lz_err_wrap(err, "cannot find the configuration file");
		dflt = xasprintf("%s/lazaret/config.yaml", base);
		if (lz_path_read(dflt, CFG_FILE_MAX, &buf, &len, NULL, err) < 0) {
			if (err == NULL || err->code != ENOENT)
				return -1;
			lz_err_clear(err);
			return load_with_grants(CFG_EMBEDDED_NAME, cfg_default_yaml,
			    sizeof cfg_default_yaml - 1, out, err);
		}
		return load_with_grants(dflt, buf, len, out, err);
	}
	if (lz_path_read(path, CFG_FILE_MAX, &buf, &len, NULL, err) < 0)
		return -1;
	return load_with_grants(path, buf, len, out, err);
}

void
cfg_volumes_free(struct cfg_volume *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].host);
		free(v[i].container);
		free(v[i].mode);
	}
	free(v);
}

void
cfg_profile_clear(struct cfg_profile *p)
{
	size_t i;

	free(p->name);
	free(p->image);
	lz_strv_free(p->persistent_dirs);
	lz_strv_free(p->allow_egress);
	lz_strv_free(p->allow_egress_from);
	for (i = 0; i < p->n_env; i++) {
		free(p->env[i].name);
		free(p->env[i].value);
	}
	free(p->env);
	cfg_creds_free(p->creds, p->n_creds);
	cfg_volumes_free(p->volumes, p->n_volumes);
}

void
cfg_free(struct cfg *cfg)
{
	size_t i;

	if (cfg == NULL)
		return;
	free(cfg->file);
	free(cfg->data_root);
	lz_strv_free(cfg->allow_egress);
	lz_strv_free(cfg->allow_egress_from);
	free(cfg->dns_upstream);
	free(cfg->esc_socket_dir);
	lz_strv_free(cfg->esc_auto_approve);
	free(cfg->wb_theme);
	free(cfg->wb_prefix);
	lz_strv_free(cfg->wb_notify);
	for (i = 0; i < cfg->n_profiles; i++)
		cfg_profile_clear(&cfg->profiles[i]);
	for (i = 0; i < cfg->n_kits; i++)
		cfg_kit_free(cfg->kits[i]);
	free(cfg->kits);
	free(cfg->profiles);
	lz_strv_free(cfg->warnings);
	lz_strv_free(cfg->refused);
	free(cfg);
}

/* ---- profiles ---- */

static char *
profile_names(const struct cfg *cfg)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < cfg->n_profiles; i++) {
		t = xasprintf("%s%s%s", s, i ? ", " : "", cfg->profiles[i].name);
		free(s);
		s = t;
	}
	return s;
}

/* Profiles the config file itself defines; *only gets the last one. */
static size_t
profile_count_own(const struct cfg *cfg, const struct cfg_profile **only)
{
	size_t i, n = 0;

	for (i = 0; i < cfg->n_profiles; i++)
		if (!cfg->profiles[i].implicit) {
			*only = &cfg->profiles[i];
			n++;
		}
	return n;
}

const struct cfg_profile *
cfg_profile_find(const struct cfg *cfg, const char *name, lz_err_t *err)
{
	const struct cfg_profile *only = NULL;
	_cleanup_free_ char *have = profile_names(cfg), *q = NULL;
	const char *names[CFG_LIST_MAX];
	const char *m;
	size_t i;

	if (name == NULL && profile_count_own(cfg, &only) == 1)
		return only;
	for (i = 0; i < cfg->n_profiles; i++) {
		if (i < CFG_LIST_MAX)
			names[i] = cfg->profiles[i].name;
		if (strcmp(cfg->profiles[i].name, name ? name : "default") == 0)
			return &cfg->profiles[i];
	}
	if (name == NULL) {
		lz_err_set(err, LZ_EUSAGE, "%s defines several profiles and none is named "
		    "'default': choose one with --profile NAME (have: %s)", cfg->file, have);
		return NULL;
	}
	q = cfg_esc(name, 64);
	if (!cfg_profile_name_valid(name)) {
		lz_err_set(err, LZ_EUSAGE, "invalid profile name '%s': must match "
		    "^[a-z0-9_-]{2,32}$", q);
		return NULL;
	}
	if ((m = cfg_did_you_mean(name, names, cfg->n_profiles < CFG_LIST_MAX ? cfg->n_profiles :
	    CFG_LIST_MAX)) != NULL)
		lz_err_set(err, LZ_EUSAGE, "no profile '%s' in %s; did you mean '%s'?", q,
		    cfg->file, m);
	else
		lz_err_set(err, LZ_EUSAGE, "no profile '%s' in %s (have: %s)", q, cfg->file, have);
	return NULL;
}
