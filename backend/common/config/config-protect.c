/* config-protect.c - a volume must not expose Lazaret's own files.
 *
 * Threat: the agent owns whatever a writable volume shows. A volume that
 * holds the configuration directory (a common mount for ~/.config) let it
 * write config.yaml or its own grants file and turn a `network: none`
 * profile's network on; one holding data_root reaches every domain's
 * state.db (the audit trail) and Sentry files. So at resolve time each
 * volume's canonical host path is checked against the places below, in both
 * directions (the volume holds the place, or lies inside it):
 *
 *   refused unless `mode: ro`: the grants directory, the configuration
 *	directory (the loaded file's and $XDG_CONFIG_HOME/lazaret), the preset
 *	directories, data_root (a volume inside it only under a profile's
 *	directory or a name of its own in a Domain Root, as {domain_dir}/scratch:
 *	never state.db, git, sentry, overlay, ...) and Podman's container storage;
 *   refused in every mode: socket_dir (a UNIX socket on a read-only mount
 *	still connects: the control and escalation sockets would answer the
 *	agent) and the grants MAC key (read-only it still signs: grants.h).
 *
 * Symlinks do not help: the path is canonical, and a host path under a token
 * must stay under it (config-expand.c).
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-int.h"
#include "grants.h"
#include "paths.h"
#include "strv.h"
#include "xmalloc.h"

/* What Lazaret itself keeps in a Domain Root (anchor.c, sentry-repo.c,
 * overlay.c, coord.c, reap.c, store.c): a volume may not be one of them,
 * nor hold the Domain Root. A trailing '*' matches a prefix. */
static const char *const protect_domain_own[] = {
	"state*", "coordinator*", "lazaret-*", "git", "sentry", "quarantine", "objects", "host-view",
	"overlay",
};

#define PROTECT_MAX	24	/* places checked (20 today: 5 preset and 5 kit dirs at most) */

struct protect_place {
	const char *what;	/* "the grants directory" */
	const char *why;	/* what the agent could do with it */
	char *path;		/* canonical */
	bool any_mode;		/* refused read-only too */
};

static void
protect_push(struct protect_place *v, size_t *n, size_t max, const char *what,
    const char *why, const char *path, bool any_mode)
{
	char *canon = NULL;

	if (path == NULL || *n == max || lz_path_canon(path, &canon, NULL) < 0)
		return;
	v[(*n)++] = (struct protect_place){ what, why, canon, any_mode };
}

/* Is mode's option list holding "ro"? */
static bool
protect_mode_ro(const char *mode)
{
	const char *s = mode;
	size_t l;

	for (;;) {
		l = strcspn(s, ",");
		if (l == 2 && strncmp(s, "ro", 2) == 0)
			return true;
		if (s[l] == '\0')
			return false;
		s += l + 1;
	}
}

/* host lies inside <data_root>/domains/H on one of Lazaret's own names,
 * or is a Domain Root or the domains directory itself. */
static bool
protect_domain_file(const char *domains, const char *host)
{
	const char *rel, *name;
	size_t i, l;

	if (!lz_path_within(domains, host))
		return false;
	rel = host + strlen(domains);
	if (*rel == '\0' || (name = strchr(rel + 1, '/')) == NULL)
		return true;
	name++;
	l = strcspn(name, "/");
	for (i = 0; i < sizeof protect_domain_own / sizeof protect_domain_own[0]; i++) {
		const char *o = protect_domain_own[i];
		size_t ol = strlen(o);

		if (o[ol - 1] == '*' ? l >= ol - 1 && strncmp(name, o, ol - 1) == 0 :
		    l == ol && strncmp(name, o, ol) == 0)
			return true;
	}
	return false;
}

int
cfg_protect_volume(const struct cfg_ctx *c, const struct cfg *cfg, int line,
    const char *key, const char *host, const char *mode)
{
	static const char cfg_why[] = "the agent could rewrite the configuration and its "
	    "grants and open the network";
	struct protect_place v[PROTECT_MAX];
	_cleanup_free_ char *cfgdir = NULL, *xdg = NULL, *xdgl = NULL, *gdir = NULL;
	_cleanup_free_ char *keyp = NULL, *xdata = NULL, *cstore = NULL, *domains = NULL;
	_cleanup_free_ char *home = NULL, *hstore = NULL;
	char **presets = cfg_data_dirs(CFG_PRESET_DIR), **kits = cfg_data_dirs(CFG_KIT_DIR);
	bool ro = protect_mode_ro(mode);
	size_t n = 0, i;
	int ret = 0;

	/* Those refused in every mode first: their advice is the one that holds. */
	protect_push(v, &n, PROTECT_MAX, "socket_dir", "a UNIX socket on a read-only mount still "
	    "connects: the agent would reach the coordinator's sockets", cfg->esc_socket_dir,
	    true);
	if (grants_mac_key_path(&keyp, NULL) == 0)
		protect_push(v, &n, PROTECT_MAX, "the grants key", "read-only it still lets the agent "
		    "sign grants", keyp, true);
	if (grants_path(cfg->file, "xx", &gdir, NULL) == 0)
		*strrchr(gdir, '/') = '\0';
	protect_push(v, &n, PROTECT_MAX, "the grants directory", "the agent could grant itself "
	    "network access", gdir, false);
	if (strcmp(cfg->file, CFG_EMBEDDED_NAME) != 0 && cfg->file[0] == '/') {
		cfgdir = xstrdup(cfg->file);
		*strrchr(cfgdir, '/') = '\0';
		protect_push(v, &n, PROTECT_MAX, "the configuration directory", cfg_why,
		    cfgdir[0] != '\0' ? cfgdir : "/", false);
	}
	if (lz_path_xdg("XDG_CONFIG_HOME", ".config", &xdg, NULL) == 0) {
		xdgl = xasprintf("%s/lazaret", xdg);
		protect_push(v, &n, PROTECT_MAX, "the configuration directory", cfg_why, xdgl, false);
	}
	for (i = 0; presets != NULL && presets[i] != NULL; i++)
		protect_push(v, &n, PROTECT_MAX, "a preset directory", "the agent could widen a preset "
		    "a profile uses", presets[i], false);
	for (i = 0; kits != NULL && kits[i] != NULL; i++)
		protect_push(v, &n, PROTECT_MAX, "a kit directory", "the agent could change a kit's "
		    "image recipe or profile defaults", kits[i], false);
	protect_push(v, &n, PROTECT_MAX, "the Storage Root (data_root)", "the agent could rewrite "
	    "every domain's state.db (the audit trail) and Sentry files", cfg->data_root, false);
	/* Where Podman keeps images by default ($XDG_DATA_HOME), and where
	 * setup-host's storage.conf pins it whatever the variable says. */
	if (lz_path_xdg("XDG_DATA_HOME", ".local/share", &xdata, NULL) == 0) {
		cstore = xasprintf("%s/containers", xdata);
		protect_push(v, &n, PROTECT_MAX, "Podman's container storage", "the agent could change "
		    "the images Lazaret runs", cstore, false);
	}
	if (lz_path_home(&home, NULL) == 0) {
		hstore = xasprintf("%s/.local/share/containers", home);
		protect_push(v, &n, PROTECT_MAX, "Podman's container storage", "the agent could change "
		    "the images Lazaret runs", hstore, false);
	}
	for (i = 0; i < n && ret == 0; i++) {
		_cleanup_free_ char *q = cfg_esc(host, 200);
		bool holds = lz_path_within(host, v[i].path);

		/* Inside data_root: a profile's directory is the user's, and a
		 * Domain Root's own names are Lazaret's. */
		if (!holds && strcmp(v[i].what, "the Storage Root (data_root)") == 0) {
			free(domains);
			domains = xasprintf("%s/domains", v[i].path);
			if (!protect_domain_file(domains, host))
				continue;
		} else if (!holds && !lz_path_within(v[i].path, host))
			continue;
		if (v[i].any_mode)
			ret = cfg_ctx_fail(c, line, key, "security: '%s' %s %s ('%s'): %s; refused "
			    "in every mode (mount a directory that does not hold it)", q,
			    holds ? "holds" : "is inside", v[i].what, v[i].path, v[i].why);
		else if (!ro)
			ret = cfg_ctx_fail(c, line, key, "security: '%s' %s %s ('%s'): %s; refused "
			    "unless read-only (add mode: ro, or mount a directory that does not "
			    "hold it)", q, holds ? "holds" : "is inside", v[i].what, v[i].path,
			    v[i].why);
	}
	for (i = 0; i < n; i++)
		free(v[i].path);
	lz_strv_free(presets);
	lz_strv_free(kits);
	return ret;
}
