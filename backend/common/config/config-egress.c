/* config-egress.c - allow_egress lists: entries checked, "@preset" names
 * expanded from their data files, and each profile's grants file (grants.h)
 * merged in, every entry remembering where it came from for `config check`.
 *
 * A preset is a file presets/NAME in the grants file format (one entry a
 * line, a '#' comment above each saying why), looked up in order in
 * $XDG_CONFIG_HOME/lazaret/presets (the user's own), PREFIX/share/lazaret/
 * presets (make install) and the source tree above a build (build/../presets).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config-int.h"
#include "grants.h"
#include "paths.h"
#include "prefix.h"
#include "strv.h"
#include "xmalloc.h"

#define CFG_PRESET_NAME_MAX	32

static bool
preset_name_valid(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		    (i > 0 && (s[i] == '-' || s[i] == '_'))))
			return false;
	return i > 0 && i <= CFG_PRESET_NAME_MAX;
}

static int
preset_cmp_cb(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **
cfg_data_dirs(const char *sub)
{
	/* build/lazaret, build/tests/x or build/san/lazaret, build/san/tests/x */
	static const char *const rel[] = { "..", "../..", "../../.." };
	_cleanup_free_ char *xdg = NULL, *inst = lz_prefix_data(sub), *exe = NULL;
	char **dirs = NULL;
	size_t i;

	if (lz_path_xdg("XDG_CONFIG_HOME", ".config", &xdg, NULL) == 0)
		lz_strv_pushf(&dirs, "%s/lazaret/%s", xdg, sub);
	if (inst != NULL)
		lz_strv_push(&dirs, inst);
	if (lz_prefix_exe_dir(&exe, NULL) == 0)
		for (i = 0; i < sizeof rel / sizeof rel[0]; i++)
			lz_strv_pushf(&dirs, "%s/%s/%s", exe, rel[i], sub);
	return dirs;
}

/* Preset names found in dirs, for "did you mean" and the list. */
static char **
preset_names(char *const *dirs)
{
	char **names = NULL;
	struct dirent *de;
	DIR *d;
	size_t i;

	for (i = 0; dirs != NULL && dirs[i] != NULL; i++) {
		if ((d = opendir(dirs[i])) == NULL)
			continue;
		while ((de = readdir(d)) != NULL && lz_strv_len(names) < CFG_LIST_MAX)
			if (preset_name_valid(de->d_name) && !lz_strv_contains(names, de->d_name))
				lz_strv_push(&names, de->d_name);
		closedir(d);
	}
	if (names != NULL)
		qsort(names, lz_strv_len(names), sizeof *names, preset_cmp_cb);
	return names;
}

static int
preset_unknown(const struct cfg_ctx *c, int line, const char *key, const char *name,
    char *const *dirs)
{
	char **names = preset_names(dirs);
	size_t n = lz_strv_len(names), i;
	const char *near = cfg_did_you_mean(name, (const char *const *)names, n);
	_cleanup_free_ char *list = xstrdup(""), *q = cfg_esc(name, 64), *mean = NULL;

	for (i = 0; i < n; i++) {
		char *t = xasprintf("%s%s@%s", list, i ? ", " : "", names[i]);

		free(list);
		list = t;
	}
	mean = near != NULL ? xasprintf("; did you mean @%s?", near) : xstrdup("");
	cfg_ctx_fail(c, line, key, "unknown preset '@%s'%s (presets: %s)", q, mean,
	    n > 0 ? list : "none installed");
	lz_strv_free(names);
	return -1;
}

/* A preset is hand-written, so it has no MAC (grants.h): only the user
 * or root (make install) may have written it; its directory is guarded from
 * volumes (config-protect.c). */
static int
preset_owner_check(const char *path, const struct stat *st, lz_err_t *err)
{
	bool other = st->st_uid != getuid() && st->st_uid != 0;

	if (other || (st->st_mode & 022) != 0)
		return lz_err_set(err, EPERM, "%s: security: %s; refused (chown it to you and "
		    "chmod 644 it)", path, other ? "owned by another user" :
		    "writable by group or others");
	return 0;
}

/* Append preset name's entries to the list, each from "@name". */
static int
load_preset(const struct cfg_ctx *c, int line, const char *key, const char *name,
    struct cfg_egress_list *l)
{
	char **dirs = cfg_data_dirs(CFG_PRESET_DIR);
	_cleanup_free_ char *path = NULL, *buf = NULL, *from = xasprintf("@%s", name);
	struct grants g = { NULL, 0 };
	struct stat st;
	size_t i, len;
	int ret = -1;

	if (!preset_name_valid(name)) {
		_cleanup_free_ char *q = cfg_esc(name, 64);

		cfg_ctx_fail(c, line, key, "'@%s' is not a preset name (lowercase letters, digits, "
		    "'-' and '_', at most %d)", q, CFG_PRESET_NAME_MAX);
		goto out;
	}
	for (i = 0; dirs != NULL && dirs[i] != NULL && path == NULL; i++) {
		char *p = xasprintf("%s/%s", dirs[i], name);

		if (access(p, F_OK) == 0)
			path = p;
		else
			free(p);
	}
	if (path == NULL) {
		preset_unknown(c, line, key, name, dirs);
		goto out;
	}
	if (lz_path_read(path, CFG_FILE_MAX, &buf, &len, &st, c->err) < 0 ||
	    preset_owner_check(path, &st, c->err) < 0 ||
	    grants_parse(path, buf, len, &g, c->err) < 0) {
		lz_err_wrap(c->err, "@%s", name);
		cfg_ctx_wrap(c, line, key);
		goto out;
	}
	for (i = 0; i < g.n; i++)
		cfg_egress_push(l, g.v[i].entry, from);
	ret = 0;
out:
	grants_clear(&g);
	lz_strv_free(dirs);
	return ret;
}

void
cfg_egress_push(struct cfg_egress_list *l, const char *entry, const char *from)
{
	lz_strv_push(l->v, entry);
	lz_strv_push(l->from, from);
	(*l->n)++;
}

int
cfg_load_egress(const struct cfg_ctx *c, const struct cfg_node *n, const char *key,
    struct cfg_egress_list *l)
{
	size_t i;
	const char *s;

	if (cfg_get_seq(c, n, key) < 0)
		return -1;
	for (i = 0; i < n->n_kids; i++) {
		_cleanup_free_ char *sub = xasprintf("%s[%zu]", key, i), *norm = NULL;

		if (cfg_get_str(c, n->kids[i], sub, 0, &s) < 0)
			return -1;
		if (s[0] == '@') {
			if (load_preset(c, n->kids[i]->line, sub, s + 1, l) < 0)
				return -1;
			continue;
		}
		if (cfg_egress_parse(s, &norm, c->err) < 0)
			return cfg_ctx_wrap(c, n->kids[i]->line, sub);
		if (strcmp(norm, "0.0.0.0/0") == 0 || strcmp(norm, "::/0") == 0)
			cfg_ctx_warn(c, n->kids[i]->line, sub, "allows egress to every address");
		cfg_egress_push(l, norm, "");
	}
	return 0;
}

int
cfg_merge_grants(struct cfg *cfg, lz_err_t *err)
{
	size_t i, j;

	for (i = 0; i < cfg->n_profiles; i++) {
		struct cfg_profile *p = &cfg->profiles[i];
		struct cfg_egress_list l = { &p->allow_egress, &p->allow_egress_from,
		    &p->n_allow_egress };
		_cleanup_free_ char *path = NULL, *from = NULL;
		lz_err_t e = LZ_ERR_INIT;
		struct grants g;

		if (grants_path(cfg->file, p->name, &path, err) < 0)
			return -1;
		if (grants_load(path, &g, &e) < 0) {
			if (e.code != EPERM) {
				lz_err_set(err, e.code, "%s", e.msg);
				lz_err_clear(&e);
				return -1;
			}
			/* Fail closed but keep going: the sandbox starts without
			 * them, the user is told, the coordinator audits it. */
			lz_strv_push(&cfg->warnings, e.msg);
			lz_strv_push(&cfg->refused, e.msg);
			lz_err_clear(&e);
			continue;
		}
		from = xasprintf(GRANTS_DIR "/%s" GRANTS_EXT, p->name);
		for (j = 0; j < g.n; j++)
			if (!lz_strv_contains(p->allow_egress, g.v[j].entry))
				cfg_egress_push(&l, g.v[j].entry, from);
		grants_clear(&g);
	}
	return 0;
}
