/* config.c - load the YAML configuration: read the file, walk the schema.
 *
 * Theory of operation: config-tree.c turns the bytes into a tree of nodes
 * with line numbers; the schema walk here fills struct cfg from it (each
 * profile's mapping in config-profile.c), failing on the first problem with
 * "FILE:LINE: KEY: what is wrong" (value checks in config-check.c).
 * Everything that does not depend on a workspace is checked at load time,
 * so `lazaret config check` catches it; cfg_profile_resolve()
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
