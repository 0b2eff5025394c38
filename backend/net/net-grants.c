/* net-grants.c - the persisted grants (see net-grants.h).
 * Interim: a plain list file next to the configuration; replaced by the
 * shared grants module once it lands (same place, same format). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "egress.h"
#include "grant.h"
#include "net/net-grants.h"
#include "paths.h"
#include "strv.h"
#include "xmalloc.h"

int
net_grants_path(const struct cfg *cfg, const char *profile, char **out, lz_err_t *err)
{
	char *dir, *copy;

	if (strcmp(cfg->file, CFG_EMBEDDED_NAME) == 0) {
		if (lz_path_xdg("XDG_CONFIG_HOME", ".config", &dir, err) < 0)
			return -1;
		*out = xasprintf("%s/lazaret/grants/%s.list", dir, profile);
		free(dir);
		return 0;
	}
	copy = xstrdup(cfg->file);
	*out = xasprintf("%s/grants/%s.list", dirname(copy), profile);
	free(copy);
	return 0;
}

/* Lines of the file: entries in *v, the note above each in *notes. */
static int
grants_read(const char *path, char ***v, char ***notes, lz_err_t *err)
{
	FILE *f = fopen(path, "re");
	char line[1024], *note = NULL;

	*v = *notes = NULL;
	if (f == NULL)
		return errno == ENOENT ? 0 : lz_err_sys(err, errno, "cannot read %s", path);
	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#') {
			free(note);
			note = xstrdup(line[1] == ' ' ? line + 2 : line + 1);
		} else if (line[0] != '\0') {
			lz_strv_push(v, line);
			lz_strv_push(notes, note != NULL ? note : "");
			free(note);
			note = NULL;
		}
	}
	free(note);
	fclose(f);
	return 0;
}

static int
grants_write(const char *path, char **v, char **notes, lz_err_t *err)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid()), *dcopy = xstrdup(path);
	FILE *f;
	int ret = -1;

	if (mkdir(dirname(dcopy), 0700) < 0 && errno != EEXIST) {
		lz_err_sys(err, errno, "cannot create the directory of %s", path);
		goto out;
	}
	if ((f = fopen(tmp, "wxe")) == NULL) {
		lz_err_sys(err, errno, "cannot write %s", tmp);
		goto out;
	}
	fputs("# lazaret: egress grants approved for this profile (lazaret egress grants)\n", f);
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		fprintf(f, "# %s\n%s\n", notes[i], v[i]);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0 || fclose(f) != 0 || rename(tmp, path) < 0) {
		lz_err_sys(err, errno, "cannot write %s", path);
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	free(dcopy);
	return ret;
}

int
net_grants_list(const char *path, struct netreq_grant **out, size_t *n, lz_err_t *err)
{
	char **v, **notes;
	size_t k;

	*out = NULL;
	*n = 0;
	if (grants_read(path, &v, &notes, err) < 0)
		return -1;
	k = lz_strv_len(v);
	*out = xcalloc(k + 1, sizeof **out);
	for (size_t i = 0; i < k; i++) {
		struct netreq_grant *g = &(*out)[i];
		struct grant_reach r;
		lz_err_t e = LZ_ERR_INIT;

		g->index = (uint32_t)(i + 1);
		snprintf(g->entry, sizeof g->entry, "%s", v[i]);
		snprintf(g->who, sizeof g->who, "%s", notes[i]);
		if (grant_preview(v[i], NULL, &r, &e) == 0)
			snprintf(g->preview, sizeof g->preview, "%s", r.text);
		else
			snprintf(g->preview, sizeof g->preview, "(not an entry: %s)", e.msg);
		lz_err_clear(&e);
	}
	*n = k;
	lz_strv_free(v);
	lz_strv_free(notes);
	return 0;
}

int
net_grants_add(const char *path, const char *entry, const char *who, const char *why,
    bool *added, lz_err_t *err)
{
	struct egress_entry e, x;
	char **v, **notes, when[32], *note;
	time_t t = time(NULL);
	struct tm tm;
	int ret;

	*added = false;
	if (egress_entry_parse(entry, &e, err) < 0 || grants_read(path, &v, &notes, err) < 0)
		return -1;
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		if (egress_entry_parse(v[i], &x, NULL) == 0 && egress_entry_equal(&x, &e)) {
			lz_strv_free(v);
			lz_strv_free(notes);
			return 0;
		}
	gmtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	note = xasprintf("%s by %s: %s", when, who, why);
	{
		char *c = egress_entry_format(&e);

		lz_strv_push(&v, c);
		free(c);
	}
	lz_strv_push(&notes, note);
	free(note);
	ret = grants_write(path, v, notes, err);
	*added = ret == 0;
	lz_strv_free(v);
	lz_strv_free(notes);
	return ret;
}

int
net_grants_remove(const char *path, const char *what, char **removed, lz_err_t *err)
{
	char **v, **notes, **nv = NULL, **nn = NULL, *end;
	const char *num = what[0] == '#' ? what + 1 : what;
	unsigned long idx = strtoul(num, &end, 10);
	bool by_index = *num != '\0' && *end == '\0';
	struct egress_entry e, x;
	int ret = -1;

	*removed = NULL;
	if (!by_index && egress_entry_parse(what, &e, err) < 0)
		return -1;
	if (grants_read(path, &v, &notes, err) < 0)
		return -1;
	for (size_t i = 0; v != NULL && v[i] != NULL; i++) {
		bool hit = *removed == NULL && (by_index ? i + 1 == idx :
		    egress_entry_parse(v[i], &x, NULL) == 0 && egress_entry_equal(&x, &e));

		if (hit) {
			*removed = xstrdup(v[i]);
			continue;
		}
		lz_strv_push(&nv, v[i]);
		lz_strv_push(&nn, notes[i]);
	}
	if (*removed == NULL)
		lz_err_set(err, ENOENT, "no grant %s in %s (see lazaret egress grants)", what, path);
	else if ((ret = grants_write(path, nv, nn, err)) < 0) {
		free(*removed);
		*removed = NULL;
	}
	lz_strv_free(v);
	lz_strv_free(notes);
	lz_strv_free(nv);
	lz_strv_free(nn);
	return ret;
}
