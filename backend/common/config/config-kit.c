/* config-kit.c - agent kits: kits/NAME/kit.yaml read and checked, and their
 * profile defaults merged under the user's own profile of the same name.
 *
 * A kit is found like a preset (cfg_data_dirs: the user's
 * $XDG_CONFIG_HOME/lazaret/kits first, then the installed and the source
 * tree's). Its `profile:` mapping is read by the config loader's own profile
 * reader; the user's profiles.NAME then wins key by key, env variable by
 * variable (config-print.c says which key came from where). A kit no profile
 * names is an implicit profile: `lazaret run claude` works with no config.
 * The recipe (base, suite, packages, run lines) is hashed into the image's
 * tag, so an edited recipe is a new image and an unchanged one is reused.
 */
#include <dirent.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "config-int.h"
#include "paths.h"
#include "strv.h"
#include "xmalloc.h"

#define KIT_FILE	"kit.yaml"
#define KIT_MAX		64	/* kits loaded */

static bool
kit_chars_ok(const char *s, const char *extra, bool lower_only)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++) {
		unsigned char b = (unsigned char)s[i];
		bool alnum = (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') ||
		    (!lower_only && b >= 'A' && b <= 'Z');

		if (!alnum && strchr(extra, b) == NULL)
			return false;
	}
	return i > 0;
}

/* A list of strings, each checked by ok() (NULL: anything one line long). */
static int
kit_list(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    bool (*ok)(const char *), const char *what, char ***out)
{
	const char *s;
	size_t i;

	if (cfg_get_seq(c, n, key) < 0)
		return -1;
	for (i = 0; i < n->n_kids; i++) {
		_cleanup_free_ char *sub = xasprintf("%s[%zu]", key, i), *q = NULL;

		if (cfg_get_str(c, n->kids[i], sub, 0, &s) < 0)
			return -1;
		if (ok != NULL && !ok(s)) {
			q = cfg_esc(s, 100);
			return cfg_ctx_fail(c, n->kids[i]->line, sub, "'%s' is not %s", q, what);
		}
		lz_strv_push(out, s);
	}
	return 0;
}

/* Debian's package name rule (policy 5.6.7), optionally "=version". */
static bool
kit_deb_ok(const char *s)
{
	const char *eq = strchr(s, '=');
	_cleanup_free_ char *name = eq ? xstrndup(s, (size_t)(eq - s)) : xstrdup(s);

	return strlen(name) >= 2 && kit_chars_ok(name, "+.-", true) && name[0] != '-' &&
	    name[0] != '+' && name[0] != '.' && (eq == NULL || kit_chars_ok(eq + 1, ".+~:-", false));
}

/* [@scope/]name[@version-or-range]: never an option or a path to npm. */
static bool
kit_npm_ok(const char *s)
{
	const char *p = s, *at;

	if (*p == '@') {
		const char *slash = strchr(p, '/');

		if (slash == NULL || slash == p + 1)
			return false;
		p = slash + 1;
	}
	if (*p == '\0' || *p == '.' || *p == '_' || *p == '-')
		return false;
	at = strchr(p, '@');
	{
		_cleanup_free_ char *name = at ? xstrndup(s, (size_t)(at - s)) : xstrdup(s);

		if (!kit_chars_ok(name + (name[0] == '@'), "._-/", true) ||
		    (at != NULL && !kit_chars_ok(at + 1, ".^~<>=*-_", false)))
			return false;
	}
	return true;
}

static bool
kit_suite_ok(const char *s)
{
	return kit_chars_ok(s, "-", true);
}

static bool
kit_base_ok(const char *s)
{
	return kit_chars_ok(s, "._-/:@", false) && s[0] != '.' && s[0] != '-' && s[0] != '/';
}

/* "~/.claude" or "/home/agent/.claude": absolute, normalized, in the home. */
static int
kit_state(const struct cfg_ctx *c, const struct cfg_node *n, struct cfg_kit *k)
{
	char **raw = NULL;
	size_t i;
	int ret = -1;

	if (kit_list(c, n, "state", NULL, NULL, &raw) < 0)
		goto out;
	for (i = 0; raw != NULL && raw[i] != NULL; i++) {
		_cleanup_free_ char *sub = xasprintf("state[%zu]", i), *abs = NULL, *norm = NULL;
		int line = n->kids[i]->line;

		abs = strncmp(raw[i], "~/", 2) == 0 ? xasprintf(CFG_KIT_HOME "/%s", raw[i] + 2) :
		    xstrdup(raw[i]);
		if (cfg_mount_chars(c, line, sub, abs) < 0 ||
		    cfg_container_path(c, line, sub, abs, &norm) < 0)
			goto out;
		if (strncmp(norm, CFG_KIT_HOME "/", sizeof CFG_KIT_HOME) != 0) {
			cfg_ctx_fail(c, line, sub, "'%s' is not in the agent's home (write ~/DIR)", norm);
			goto out;
		}
		if (!lz_strv_contains(k->state, norm))
			lz_strv_push(&k->state, norm);
	}
	ret = 0;
out:
	lz_strv_free(raw);
	return ret;
}

static void
kit_hash_add(crypto_generichash_state *st, const char *tag, char *const *v)
{
	crypto_generichash_update(st, (const unsigned char *)tag, strlen(tag) + 1);
	for (; v != NULL && *v != NULL; v++)
		crypto_generichash_update(st, (const unsigned char *)*v, strlen(*v) + 1);
}

/* What the image is made of, hashed: a changed recipe is another image. */
static void
kit_hash(struct cfg_kit *k)
{
	char *one[2] = { NULL, NULL }, hex[2 * 16 + 1];
	unsigned char d[16];
	crypto_generichash_state st;
	char version[32];

	snprintf(version, sizeof version, "lazaret-kit %d", CFG_KIT_RECIPE_VERSION);
	crypto_generichash_init(&st, NULL, 0, sizeof d);
	one[0] = version;
	kit_hash_add(&st, "v", one);
	one[0] = k->base != NULL ? k->base : (char *)"";
	kit_hash_add(&st, "base", one);
	one[0] = k->suite != NULL ? k->suite : (char *)"";
	kit_hash_add(&st, "suite", one);
	if (k->mirror != NULL) {
		one[0] = k->mirror;
		kit_hash_add(&st, "mirror", one);
	}
	kit_hash_add(&st, "debian", k->debian);
	kit_hash_add(&st, "npm", k->npm);
	kit_hash_add(&st, "run", k->run);
	kit_hash_add(&st, "state", k->state);
	crypto_generichash_final(&st, d, sizeof d);
	sodium_bin2hex(hex, sizeof hex, d, sizeof d);
	hex[12] = '\0';
	k->hash = xstrdup(hex);
	k->image = xasprintf("localhost/lazaret-kit-%s:%s", k->name, k->hash);
}

static int
kit_image(const struct cfg_ctx *c, const struct cfg_node *n, struct cfg_kit *k)
{
	static const char *const keys[] = { "base", "suite", "mirror", "debian", "npm", "run",
	    NULL };
	const struct cfg_node *v;
	const char *s;
	_cleanup_free_ char *q = NULL;

	if (cfg_get_map(c, n, "image", keys) < 0)
		return -1;
	if ((v = cfg_map_get(n, "base")) != NULL) {
		if (cfg_get_str(c, v, "image.base", 0, &s) < 0)
			return -1;
		if (!kit_base_ok(s)) {
			q = cfg_esc(s, 100);
			return cfg_ctx_fail(c, v->line, "image.base", "'%s' is not \"debian\" nor an "
			    "image reference", q);
		}
		if (strcmp(s, "debian") != 0)
			k->base = xstrdup(s);
	}
	if ((v = cfg_map_get(n, "suite")) != NULL) {
		if (cfg_get_str(c, v, "image.suite", 0, &s) < 0)
			return -1;
		if (!kit_suite_ok(s)) {
			q = cfg_esc(s, 100);
			return cfg_ctx_fail(c, v->line, "image.suite", "'%s' is not a Debian suite "
			    "name (bookworm, trixie, stable...)", q);
		}
		k->suite = xstrdup(s);
	}
	if ((v = cfg_map_get(n, "mirror")) != NULL) {
		if (cfg_get_str(c, v, "image.mirror", 0, &s) < 0)
			return -1;
		if ((strncmp(s, "http://", 7) != 0 && strncmp(s, "https://", 8) != 0) ||
		    !kit_chars_ok(s, ":/._-~%@+", false)) {
			q = cfg_esc(s, 100);
			return cfg_ctx_fail(c, v->line, "image.mirror", "'%s' is not an http:// or "
			    "https:// URL of a Debian mirror", q);
		}
		k->mirror = xstrdup(s);
	}
	if ((v = cfg_map_get(n, "debian")) != NULL &&
	    kit_list(c, v, "image.debian", kit_deb_ok, "a Debian package name", &k->debian) < 0)
		return -1;
	if ((v = cfg_map_get(n, "npm")) != NULL &&
	    kit_list(c, v, "image.npm", kit_npm_ok, "an npm package name", &k->npm) < 0)
		return -1;
	if ((v = cfg_map_get(n, "run")) != NULL &&
	    kit_list(c, v, "image.run", NULL, NULL, &k->run) < 0)
		return -1;
	return 0;
}

/* The kit's profile defaults; trust_host_ca is on unless the kit says no. */
static int
kit_profile(const struct cfg_ctx *c, const struct cfg_node *n, struct cfg_kit *k)
{
	struct cfg_profile *p = xcalloc(1, sizeof *p);
	size_t i;

	k->defaults = p;
	if (n != NULL) {
		if (n->kind == NODE_MAP && cfg_map_get(n, "image") != NULL)
			return cfg_ctx_fail(c, cfg_map_get(n, "image")->line, "profile.image",
			    "a kit's image comes from its recipe (image: base: ...)");
		if (cfg_profile_load(c, k->name, n->line, "profile", n, p) < 0)
			return -1;
	} else {
		p->name = xstrdup(k->name);
		p->persist_usr = true;
		p->user = CFG_USER_AUTO;
		p->limits = cfg_limits_default();
		cfg_profile_persist_usr(p);	/* /usr, /etc, /var: what apt and dpkg keep */
	}
	if (!(p->keys & CFG_PK_TRUST_HOST_CA)) {
		p->trust_host_ca = true;
		p->keys |= CFG_PK_TRUST_HOST_CA;
	}
	/* The agent's state: persistent like any State Anchor dir. */
	for (i = 0; k->state != NULL && k->state[i] != NULL; i++) {
		if (lz_strv_contains(p->persistent_dirs, k->state[i]))
			continue;
		lz_strv_push(&p->persistent_dirs, k->state[i]);
		p->n_persistent_dirs++;
		p->keys |= CFG_PK_PERSISTENT;
	}
	return 0;
}

int
cfg_kit_load_buf(const char *file, const char *name, const char *buf, size_t len,
    struct cfg_kit **out, lz_err_t *err)
{
	static const char *const keys[] = { "description", "image", "command", "state",
	    "profile", NULL };
	struct cfg_ctx c = { file, err, NULL };
	struct cfg_node *root = NULL;
	const struct cfg_node *v;
	struct cfg_kit *k = xcalloc(1, sizeof *k);
	const char *s;
	int ret = -1;

	*out = NULL;
	k->name = xstrdup(name);
	k->file = xstrdup(file);
	if (!cfg_profile_name_valid(name) || strcmp(name, "net") == 0 ||
	    strcmp(name, "default") == 0) {
		_cleanup_free_ char *q = cfg_esc(name, 64);

		lz_err_set(err, LZ_EINVAL, "%s: kit name '%s' is not usable as a profile name "
		    "(^[a-z0-9_-]{2,32}$, not 'net' nor 'default'): rename its directory", file, q);
		goto out;
	}
	if (len > CFG_FILE_MAX) {
		lz_err_set(err, LZ_EINVAL, "%s: larger than %d bytes", file, CFG_FILE_MAX);
		goto out;
	}
	if (cfg_tree_build(&c, buf, len, &root) < 0)
		goto out;
	if (root == NULL || root->kind != NODE_MAP) {
		lz_err_set(err, LZ_EINVAL, "%s:%d: expected a mapping (description, image, "
		    "command, state, profile)", file, root != NULL ? root->line : 1);
		goto out;
	}
	if (cfg_get_map(&c, root, "", keys) < 0)
		goto out;
	if ((v = cfg_map_get(root, "description")) != NULL) {
		if (cfg_get_str(&c, v, "description", 0, &s) < 0)
			goto out;
		k->description = xstrdup(s);
	}
	if ((v = cfg_map_get(root, "image")) != NULL && kit_image(&c, v, k) < 0)
		goto out;
	if ((v = cfg_map_get(root, "command")) == NULL) {
		cfg_ctx_fail(&c, root->line, "command", "missing (the command `lazaret run %s` "
		    "starts, e.g. [claude])", name);
		goto out;
	}
	if (kit_list(&c, v, "command", NULL, NULL, &k->command) < 0)
		goto out;
	if (k->command == NULL) {
		cfg_ctx_fail(&c, v->line, "command", "empty (name the program to start)");
		goto out;
	}
	if ((v = cfg_map_get(root, "state")) != NULL && kit_state(&c, v, k) < 0)
		goto out;
	if (kit_profile(&c, cfg_map_get(root, "profile"), k) < 0)
		goto out;
	kit_hash(k);
	*out = lz_steal_ptr(&k);
	ret = 0;
out:
	cfg_node_free(root);
	cfg_kit_free(k);
	return ret;
}

void
cfg_kit_free(struct cfg_kit *k)
{
	if (k == NULL)
		return;
	free(k->name);
	free(k->file);
	free(k->description);
	free(k->base);
	free(k->suite);
	free(k->mirror);
	lz_strv_free(k->debian);
	lz_strv_free(k->npm);
	lz_strv_free(k->run);
	lz_strv_free(k->command);
	lz_strv_free(k->state);
	free(k->hash);
	free(k->image);
	if (k->defaults != NULL) {
		cfg_profile_clear(k->defaults);
		free(k->defaults);
	}
	free(k);
}

const struct cfg_kit *
cfg_kit_find(const struct cfg *cfg, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < cfg->n_kits; i++)
		if (strcmp(cfg->kits[i]->name, name) == 0)
			return cfg->kits[i];
	return NULL;
}

/* Kit directories in dirs holding a kit.yaml, first of a name wins. */
static void
kit_paths(char *const *dirs, char ***names, char ***files)
{
	struct dirent *de;
	DIR *d;
	size_t i;

	for (i = 0; dirs != NULL && dirs[i] != NULL; i++) {
		if ((d = opendir(dirs[i])) == NULL)
			continue;
		while ((de = readdir(d)) != NULL && lz_strv_len(*names) < KIT_MAX) {
			_cleanup_free_ char *f = NULL;

			if (de->d_name[0] == '.' || lz_strv_contains(*names, de->d_name))
				continue;
			f = xasprintf("%s/%s/" KIT_FILE, dirs[i], de->d_name);
			if (access(f, F_OK) != 0)
				continue;
			lz_strv_push(names, de->d_name);
			lz_strv_push(files, f);
		}
		closedir(d);
	}
}

static struct cfg_profile *
kit_profile_of(struct cfg *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n_profiles; i++)
		if (strcmp(cfg->profiles[i].name, name) == 0)
			return &cfg->profiles[i];
	return NULL;
}

static void
kit_strv_take(char ***dst, char ***src)
{
	lz_strv_free(*dst);
	*dst = *src;
	*src = NULL;
}

/* The kit's defaults d under the user's profile u: u's keys win. */
static void
kit_merge(const struct cfg_kit *k, struct cfg_profile *d, struct cfg_profile *u)
{
	size_t i, j;

	u->kit = k;
#define KIT_TAKE(bit) (!(u->keys & (bit)) && ((d->keys & (bit)) ? (u->kit_keys |= (bit), 1) : 1))
	if (!(u->keys & CFG_PK_IMAGE)) {
		u->image = xstrdup(k->image);
		u->kit_keys |= CFG_PK_IMAGE;
	}
	if (KIT_TAKE(CFG_PK_PERSIST_USR))
		u->persist_usr = d->persist_usr;
	if (KIT_TAKE(CFG_PK_PERSISTENT)) {
		kit_strv_take(&u->persistent_dirs, &d->persistent_dirs);
		u->n_persistent_dirs = d->n_persistent_dirs;
	}
	/* /usr, /etc, /var first when persisted, gone when not (config.c's rule) */
	for (i = j = 0; i < u->n_persistent_dirs; i++) {
		if (strcmp(u->persistent_dirs[i], "/usr") == 0 ||
		    strcmp(u->persistent_dirs[i], "/etc") == 0 ||
		    strcmp(u->persistent_dirs[i], "/var") == 0)
			free(u->persistent_dirs[i]);
		else
			u->persistent_dirs[j++] = u->persistent_dirs[i];
	}
	u->n_persistent_dirs = j;
	if (u->persistent_dirs != NULL)
		u->persistent_dirs[j] = NULL;
	cfg_profile_persist_usr(u);
	if (KIT_TAKE(CFG_PK_TRUST_HOST_CA))
		u->trust_host_ca = d->trust_host_ca;
	if (KIT_TAKE(CFG_PK_USER))
		u->user = d->user;
	if (KIT_TAKE(CFG_PK_NETWORK))
		u->network = d->network;
	if (KIT_TAKE(CFG_PK_LIMITS))
		u->limits = d->limits;
	if (KIT_TAKE(CFG_PK_CREDENTIALS)) {
		u->creds = d->creds;
		u->n_creds = d->n_creds;
		d->creds = NULL;
		d->n_creds = 0;
	}
	if (KIT_TAKE(CFG_PK_EGRESS)) {
		for (i = 0; i < d->n_allow_egress; i++) {
			char *f = d->allow_egress_from[i][0] != '\0' ?
			    xasprintf("%s, kit %s", d->allow_egress_from[i], k->name) :
			    xasprintf("kit %s", k->name);

			free(d->allow_egress_from[i]);
			d->allow_egress_from[i] = f;
		}
		kit_strv_take(&u->allow_egress, &d->allow_egress);
		kit_strv_take(&u->allow_egress_from, &d->allow_egress_from);
		u->n_allow_egress = d->n_allow_egress;
		d->n_allow_egress = 0;
	}
	if (!(u->keys & CFG_PK_VOLUMES) && d->n_volumes > 0) {
		cfg_volumes_free(u->volumes, u->n_volumes);
		u->volumes = d->volumes;
		u->n_volumes = d->n_volumes;
		d->volumes = NULL;
		d->n_volumes = 0;
		u->kit_keys |= CFG_PK_VOLUMES;
	}
	/* env: per variable, the user's value wins */
	for (i = 0; i < d->n_env; i++) {
		for (j = 0; j < u->n_env && strcmp(u->env[j].name, d->env[i].name) != 0; j++)
			;
		if (j < u->n_env)
			continue;
		u->env = xreallocarray(u->env, u->n_env + 1, sizeof *u->env);
		u->env[u->n_env] = d->env[i];
		u->env[u->n_env].from_kit = true;
		d->env[i].name = d->env[i].value = NULL;
		u->n_env++;
		u->kit_keys |= CFG_PK_ENV;
	}
#undef KIT_TAKE
}

int
cfg_kits_apply(struct cfg *cfg, lz_err_t *err)
{
	char **dirs = cfg_data_dirs(CFG_KIT_DIR), **names = NULL, **files = NULL;
	struct cfg_profile *u;
	struct cfg_kit *k;
	size_t i;
	int ret = -1;

	kit_paths(dirs, &names, &files);
	for (i = 0; names != NULL && names[i] != NULL; i++) {
		_cleanup_free_ char *buf = NULL;
		size_t len = 0;

		u = kit_profile_of(cfg, names[i]);
		if (lz_path_read(files[i], CFG_FILE_MAX, &buf, &len, NULL, err) < 0 ||
		    cfg_kit_load_buf(files[i], names[i], buf, len, &k, err) < 0) {
			/* a broken kit no profile names must not break the others */
			if (u != NULL)
				goto out;
			lz_strv_pushf(&cfg->warnings, "kit '%s' left out: %s", names[i],
			    err->msg != NULL ? err->msg : "unreadable");
			lz_err_clear(err);
			continue;
		}
		cfg->kits = xreallocarray(cfg->kits, cfg->n_kits + 1, sizeof *cfg->kits);
		cfg->kits[cfg->n_kits++] = k;
		if (u == NULL) {
			cfg->profiles = xreallocarray(cfg->profiles, cfg->n_profiles + 1,
			    sizeof *cfg->profiles);
			u = &cfg->profiles[cfg->n_profiles++];
			memset(u, 0, sizeof *u);
			u->name = xstrdup(k->name);
			u->implicit = true;
		}
		kit_merge(k, k->defaults, u);
		cfg_profile_clear(k->defaults);
		free(k->defaults);
		k->defaults = NULL;
	}
	ret = cfg_profiles_check_image(cfg, err);
out:
	lz_strv_free(dirs);
	lz_strv_free(names);
	lz_strv_free(files);
	return ret;
}
