/* surface.c - the executable-surface table and classifier (see surface.h).
 * The table is read from one file; every decision a rule makes is a line
 * of that file, so extending the surface is a one-line change there. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prefix.h"
#include "review/surface.h"
#include "surface-json.h"
#include "xmalloc.h"

static const char *const surface_kinds[] = { "path", "attr", "json", "mode" };
static const char *const surface_modes[] = {
	"exec", "shebang", "binary", "symlink", "symlink-out", "gitlink", NULL,
};

const char *
surface_kind_name(enum surface_kind k)
{
	return (unsigned)k < 4 ? surface_kinds[k] : "?";
}

static int
surface_line_fail(lz_err_t *err, const char *source, unsigned line, const char *what)
{
	return lz_err_set(err, LZ_EINVAL, "%s:%u: %s", source, line, what);
}

int
surface_table_parse(const char *buf, size_t len, const char *source,
    struct surface_table *out, lz_err_t *err)
{
	size_t pos = 0;
	unsigned line = 0;

	memset(out, 0, sizeof *out);
	out->source = xstrdup(source);
	if (len > SURFACE_TABLE_MAX)
		return surface_line_fail(err, source, 0, "table too large"), surface_table_clear(out), -1;
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl != NULL ? (size_t)(nl - (buf + pos)) : len - pos;
		_cleanup_free_ char *l = xstrndup(buf + pos, ll);
		char *col[4], *save = NULL, *s;
		size_t nc = 0, k;
		struct surface_rule *r;

		pos += ll + (nl != NULL);
		line++;
		if (strlen(l) != ll) {
			surface_line_fail(err, source, line, "NUL byte");
			goto fail;
		}
		if (ll > 0 && l[ll - 1] == '\r')
			l[--ll] = '\0';
		if (ll == 0 || l[0] == '#')
			continue;
		for (s = strtok_r(l, "\t", &save); s != NULL && nc < 4; s = strtok_r(NULL, "\t", &save))
			col[nc++] = s;
		if (nc != 4 || s != NULL) {
			surface_line_fail(err, source, line,
			    "expected 4 tab-separated columns: kind pattern key reason");
			goto fail;
		}
		out->rules = xreallocarray(out->rules, out->n + 1, sizeof *out->rules);
		r = &out->rules[out->n];
		memset(r, 0, sizeof *r);
		for (k = 0; k < 4 && strcmp(col[0], surface_kinds[k]) != 0; k++)
			;
		if (k == 4) {
			surface_line_fail(err, source, line, "kind must be path, attr, json or mode");
			goto fail;
		}
		r->kind = (enum surface_kind)k;
		if (r->kind == SURFACE_MODE) {
			for (k = 0; surface_modes[k] != NULL && strcmp(col[1], surface_modes[k]) != 0; k++)
				;
			if (surface_modes[k] == NULL) {
				surface_line_fail(err, source, line, "mode pattern must be exec, shebang, "
				    "binary, symlink, symlink-out or gitlink");
				goto fail;
			}
		}
		if ((r->kind == SURFACE_JSON) == (strcmp(col[2], "-") == 0)) {
			surface_line_fail(err, source, line, r->kind == SURFACE_JSON ?
			    "a json rule needs a key" : "key must be '-' except for json rules");
			goto fail;
		}
		r->pattern = xstrdup(col[1]);
		r->key = r->kind == SURFACE_JSON ? xstrdup(col[2]) : NULL;
		r->reason = xstrdup(col[3]);
		r->line = line;
		out->n++;
	}
	if (out->n == 0) {
		surface_line_fail(err, source, line, "no rules");
		goto fail;
	}
	return 0;
fail:
	surface_table_clear(out);
	return -1;
}

static int
surface_table_read(const char *path, struct surface_table *out, lz_err_t *err)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;
	int r;

	if (f == NULL)
		return lz_err_sys(err, errno, "cannot read the executable-surface table %s", path);
	buf = xmalloc(SURFACE_TABLE_MAX + 1);
	n = fread(buf, 1, SURFACE_TABLE_MAX + 1, f);
	fclose(f);
	r = surface_table_parse(buf, n, path, out, err);
	free(buf);
	return r;
}

int
surface_table_load(struct surface_table *out, lz_err_t *err)
{
	/* The source tree, from build/lazaret, build/san/lazaret, build/tests/x. */
	static const char *const rel[] = { "../data/", "../../data/" };
	const char *env = getenv(SURFACE_TABLE_ENV);
	_cleanup_free_ char *inst = lz_prefix_data(SURFACE_TABLE_NAME), *dir = NULL;
	size_t i;

	if (env != NULL && env[0] != '\0')
		return surface_table_read(env, out, err);
	if (inst != NULL && access(inst, F_OK) == 0)
		return surface_table_read(inst, out, err);
	if (lz_prefix_exe_dir(&dir, err) < 0)
		return lz_err_wrap(err, "cannot find the executable-surface table");
	for (i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s%s", dir, rel[i], SURFACE_TABLE_NAME);

		if (access(p, F_OK) == 0)
			return surface_table_read(p, out, err);
	}
	return lz_err_set(err, ENOENT, "executable-surface table not found: install it as %s, "
	    "or set %s", inst != NULL ? inst : "PREFIX/share/lazaret/" SURFACE_TABLE_NAME,
	    SURFACE_TABLE_ENV);
}

void
surface_table_clear(struct surface_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->rules[i].pattern);
		free(t->rules[i].key);
		free(t->rules[i].reason);
	}
	free(t->rules);
	free(t->source);
	memset(t, 0, sizeof *t);
}

bool
surface_path_match(const char *pattern, const char *path)
{
	size_t pl = strlen(pattern);
	const char *s;

	if (pl == 0)
		return false;
	if (strchr(pattern, '/') == NULL) {
		s = strrchr(path, '/');
		return fnmatch(pattern, s != NULL ? s + 1 : path, FNM_CASEFOLD) == 0;
	}
	if (pattern[pl - 1] == '/') {
		/* A directory of that name at any depth: "x/" matches "x/..." and "a/x/...". */
		for (s = path; s != NULL; s = (s = strchr(s, '/')) != NULL ? s + 1 : NULL)
			if (strncasecmp(s, pattern, pl) == 0 && s[pl] != '\0')
				return true;
		return false;
	}
	for (s = path; s != NULL; s = (s = strchr(s, '/')) != NULL ? s + 1 : NULL)
		if (fnmatch(pattern, s, FNM_PATHNAME | FNM_CASEFOLD) == 0)
			return true;
	return false;
}

/* Parsing git's output. */

static bool
surface_oid_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > SURFACE_OID_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

int
surface_raw_parse(const char *buf, size_t len, struct surface_change **out, size_t *n,
    lz_err_t *err)
{
	struct surface_change *ch = NULL;
	size_t nc = 0, pos = 0;

	while (pos < len) {
		const char *end = memchr(buf + pos, '\0', len - pos), *pend;
		char om[8], nm[8], oo[SURFACE_OID_MAX + 1], no[SURFACE_OID_MAX + 1], st;
		struct surface_change *c;
		int used = 0;

		if (end == NULL || buf[pos] != ':')
			goto bad;
		if (end - (buf + pos) > 8 + 8 + 2 * (SURFACE_OID_MAX + 1) + 8)
			goto bad;
		if (sscanf(buf + pos, ":%7[0-7] %7[0-7] %64[0-9a-f] %64[0-9a-f] %c%n",
		    om, nm, oo, no, &st, &used) != 5 || strchr("AMDT", st) == NULL)
			goto bad;
		pos = (size_t)(end - buf) + 1;
		if (pos >= len || (pend = memchr(buf + pos, '\0', len - pos)) == NULL || pend == buf + pos)
			goto bad;
		if (!surface_oid_ok(oo, strlen(oo)) || !surface_oid_ok(no, strlen(no)))
			goto bad;
		ch = xreallocarray(ch, nc + 1, sizeof *ch);
		c = &ch[nc++];
		memset(c, 0, sizeof *c);
		c->status = st;
		c->old_mode = (unsigned)strtoul(om, NULL, 8);
		c->new_mode = (unsigned)strtoul(nm, NULL, 8);
		memcpy(c->old_oid, oo, strlen(oo) + 1);
		memcpy(c->new_oid, no, strlen(no) + 1);
		c->path = xstrdup(buf + pos);
		pos = (size_t)(pend - buf) + 1;
	}
	*out = ch;
	*n = nc;
	return 0;
bad:
	surface_changes_free(ch, nc);
	return lz_err_set(err, LZ_EINVAL, "cannot read git diff --raw output at byte %zu", pos);
}

int
surface_numstat_apply(const char *buf, size_t len, struct surface_change *ch, size_t n,
    lz_err_t *err)
{
	size_t pos = 0, i;

	while (pos < len) {
		const char *end = memchr(buf + pos, '\0', len - pos), *t1, *t2;

		if (end == NULL || (t1 = memchr(buf + pos, '\t', (size_t)(end - buf) - pos)) == NULL ||
		    (t2 = memchr(t1 + 1, '\t', (size_t)(end - t1) - 1)) == NULL)
			return lz_err_set(err, LZ_EINVAL, "cannot read git diff --numstat output at byte %zu", pos);
		/* "-\t-\tpath": git found the file binary. */
		if (buf[pos] == '-' && t1 == buf + pos + 1)
			for (i = 0; i < n; i++)
				if (strcmp(ch[i].path, t2 + 1) == 0)
					ch[i].binary = true;
		pos = (size_t)(end - buf) + 1;
	}
	return 0;
}

void
surface_changes_free(struct surface_change *ch, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(ch[i].path);
	free(ch);
}

/* Classification. */

static void
surface_add(struct surface_result *o, const char *path, const struct surface_rule *r,
    char *detail)
{
	struct surface_flag *f;
	size_t i;

	/* Two rules saying the same of one path (GNUmakefile, makefile) are one flag. */
	for (i = 0; i < o->n; i++)
		if (strcmp(o->flags[i].path, path) == 0 && strcmp(o->flags[i].reason, r->reason) == 0) {
			free(detail);
			return;
		}
	o->flags = xreallocarray(o->flags, o->n + 1, sizeof *o->flags);
	f = &o->flags[o->n++];
	f->path = xstrdup(path);
	f->kind = surface_kind_name(r->kind);
	f->rule = r->pattern;
	f->reason = xstrdup(r->reason);
	f->detail = detail;
}

static const struct surface_rule *
surface_mode_rule(const struct surface_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->rules[i].kind == SURFACE_MODE && strcmp(t->rules[i].pattern, name) == 0)
			return &t->rules[i];
	return NULL;
}

static bool
surface_oid_null(const char *oid)
{
	return oid[strspn(oid, "0")] == '\0';
}

/* Does a symlink at path pointing to target leave the tree? */
static bool
surface_link_escapes(const char *path, const char *target, size_t tlen)
{
	long depth = 0;
	const char *s, *e, *end = target + tlen;

	if (tlen == 0 || target[0] == '/')
		return true;
	for (s = path; (s = strchr(s, '/')) != NULL; s++)
		depth++;
	for (s = target; s < end; s = e + 1) {
		e = memchr(s, '/', (size_t)(end - s));
		if (e == NULL)
			e = end;
		if (e - s == 2 && s[0] == '.' && s[1] == '.') {
			if (--depth < 0)
				return true;
		} else if (e - s > 0 && !(e - s == 1 && s[0] == '.')) {
			depth++;
		}
	}
	return false;
}

/* A printable copy of at most 200 bytes of s (control bytes as '?'). */
static char *
surface_printable(const uint8_t *s, size_t n)
{
	char *o;
	size_t i, m = n > 200 ? 200 : n;

	o = xmalloc(m + 4);
	for (i = 0; i < m; i++)
		o[i] = (s[i] < 0x20 || s[i] == 0x7f) ? '?' : (char)s[i];
	strcpy(o + m, n > m ? "..." : "");
	return o;
}

/* The driver attributes (filter=, diff=, merge=) a .gitattributes sets. */
static char *
surface_attr_drivers(const uint8_t *b, size_t n)
{
	char *found = NULL;
	size_t i = 0;

	while (i < n) {
		size_t s = i, tl;
		char *tok;

		while (i < n && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r')
			i++;
		tl = i - s;
		if ((tl > 7 && memcmp(b + s, "filter=", 7) == 0) ||
		    (tl > 5 && (memcmp(b + s, "diff=", 5) == 0 || memcmp(b + s, "merge=", 6) == 0))) {
			tok = surface_printable(b + s, tl > 64 ? 64 : tl);
			if (found == NULL) {
				found = tok;
			} else if (strstr(found, tok) == NULL && strlen(found) < 512) {
				char *j = xasprintf("%s, %s", found, tok);

				free(found);
				free(tok);
				found = j;
			} else {
				free(tok);
			}
		}
		i++;
	}
	return found;
}

struct surface_names {
	char *s;
};

static void
surface_names_cb(const char *name, void *arg)
{
	struct surface_names *nm = arg;
	char *j;

	if (nm->s == NULL) {
		nm->s = xstrdup(name);
		return;
	}
	j = xasprintf("%s, %s", nm->s, name);
	free(nm->s);
	nm->s = j;
}

/* One version of a JSON file (an absent side is an empty object). */
static int
surface_json_side(const char *oid, unsigned mode, surface_blob_fn blob, void *arg,
    struct surface_json *js, char **bad, lz_err_t *err)
{
	uint8_t *b = NULL;
	size_t len = 0, size = 0;
	lz_err_t perr = LZ_ERR_INIT;

	memset(js, 0, sizeof *js);
	if (surface_oid_null(oid) || (mode & 0170000) != 0100000)
		return 0;
	if (blob(arg, oid, SURFACE_JSON_MAX, &b, &len, &size, err) < 0)
		return -1;
	if (size > len)
		*bad = xasprintf("over %u bytes, not parsed", SURFACE_JSON_MAX);
	else if (surface_json_parse(b, len, js, &perr) < 0)
		*bad = xasprintf("not read as JSON (%s)", perr.msg);
	lz_err_clear(&perr);
	free(b);
	return 0;
}

/* The json rules for one change that matches at least one of them. */
static int
surface_json_rules(const struct surface_table *t, const struct surface_change *c,
    surface_blob_fn blob, void *arg, struct surface_result *o, lz_err_t *err)
{
	struct surface_json a, b;
	char *bad = NULL;
	size_t i;
	int ret = -1;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	if (surface_json_side(c->old_oid, c->old_mode, blob, arg, &a, &bad, err) < 0 ||
	    surface_json_side(c->new_oid, c->new_mode, blob, arg, &b, &bad, err) < 0)
		goto out;
	for (i = 0; i < t->n; i++) {
		const struct surface_rule *r = &t->rules[i];
		struct surface_names nm = { NULL };

		if (r->kind != SURFACE_JSON || !surface_path_match(r->pattern, c->path))
			continue;
		if (bad != NULL) {
			/* Unreadable: every key of the rule may have changed. */
			surface_add(o, c->path, r, xasprintf("%s: %s", r->key, bad));
			continue;
		}
		if (surface_json_diff(&a, &b, r->key, surface_names_cb, &nm) > 0)
			surface_add(o, c->path, r, nm.s);
	}
	ret = 0;
out:
	free(bad);
	surface_json_clear(&a);
	surface_json_clear(&b);
	return ret;
}

static int
surface_mode_rules(const struct surface_table *t, const struct surface_change *c,
    surface_blob_fn blob, void *arg, struct surface_result *o, lz_err_t *err)
{
	const struct surface_rule *r;
	uint8_t *b = NULL;
	size_t len = 0, size = 0;

	if (c->status == 'D')
		return 0;
	if (c->new_mode == 0100755 && c->old_mode != 0100755 && (r = surface_mode_rule(t, "exec")))
		surface_add(o, c->path, r, c->status == 'A' ? NULL : xstrdup("mode changed to +x"));
	if (c->new_mode == 0160000 && (r = surface_mode_rule(t, "gitlink")))
		surface_add(o, c->path, r, xasprintf("-> %s", c->new_oid));
	if (c->new_mode == 0120000) {
		bool out;

		if (blob(arg, c->new_oid, PATH_MAX, &b, &len, &size, err) < 0)
			return -1;
		out = surface_link_escapes(c->path, (const char *)b, len) || size > len;
		if ((r = surface_mode_rule(t, out ? "symlink-out" : "symlink")) != NULL) {
			char *tg = surface_printable(b, len);

			surface_add(o, c->path, r, xasprintf("-> %s", tg));
			free(tg);
		}
		free(b);
		return 0;
	}
	if ((c->new_mode & 0170000) != 0100000)
		return 0;
	if (c->binary && (r = surface_mode_rule(t, "binary")))
		surface_add(o, c->path, r, NULL);
	if (c->status == 'A' && (r = surface_mode_rule(t, "shebang")) != NULL) {
		if (blob(arg, c->new_oid, 256, &b, &len, &size, err) < 0)
			return -1;
		if (len >= 2 && b[0] == '#' && b[1] == '!') {
			const uint8_t *nl = memchr(b, '\n', len);

			surface_add(o, c->path, r, surface_printable(b, nl ? (size_t)(nl - b) : len));
		}
		free(b);
	}
	return 0;
}

int
surface_classify(const struct surface_table *t, const struct surface_change *ch, size_t n,
    surface_blob_fn blob, void *arg, struct surface_result *out, lz_err_t *err)
{
	size_t i, k;

	memset(out, 0, sizeof *out);
	for (i = 0; i < n; i++) {
		const struct surface_change *c = &ch[i];
		bool json = false;

		for (k = 0; k < t->n; k++) {
			const struct surface_rule *r = &t->rules[k];

			if (r->kind == SURFACE_MODE || !surface_path_match(r->pattern, c->path))
				continue;
			if (r->kind == SURFACE_PATH) {
				surface_add(out, c->path, r, c->status == 'D' ? xstrdup("deleted") : NULL);
			} else if (r->kind == SURFACE_JSON) {
				json = true;
			} else if (r->kind == SURFACE_ATTR && c->status != 'D' &&
			    (c->new_mode & 0170000) == 0100000) {
				uint8_t *b = NULL;
				size_t len = 0, size = 0;
				char *drv;

				if (blob(arg, c->new_oid, SURFACE_ATTR_MAX, &b, &len, &size, err) < 0)
					goto fail;
				drv = surface_attr_drivers(b, len);
				if (drv != NULL || size > len)
					surface_add(out, c->path, r, drv != NULL ? drv :
					    xstrdup("too large to read: treated as selecting drivers"));
				free(b);
			}
		}
		if (json && surface_json_rules(t, c, blob, arg, out, err) < 0)
			goto fail;
		if (surface_mode_rules(t, c, blob, arg, out, err) < 0)
			goto fail;
	}
	return 0;
fail:
	surface_result_clear(out);
	return -1;
}

void
surface_result_clear(struct surface_result *o)
{
	size_t i;

	for (i = 0; i < o->n; i++) {
		free(o->flags[i].path);
		free(o->flags[i].reason);
		free(o->flags[i].detail);
	}
	free(o->flags);
	memset(o, 0, sizeof *o);
}
