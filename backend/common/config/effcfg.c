/* effcfg.c - effective configuration text and its differences (effcfg.h). */
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "effcfg.h"
#include "strv.h"
#include "xmalloc.h"

static int
effcfg_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
effcfg_sorted(char **v, char **out)
{
	size_t i, n = lz_strv_len(v);

	if (n > 1)
		qsort(v, n, sizeof *v, effcfg_cmp);
	for (i = 0; i < n; i++) {
		char *t = xasprintf("%s%s\n", *out, v[i]);

		free(*out);
		*out = t;
	}
	lz_strv_free(v);
}

char *
effcfg_build(const struct cfg_resolved *r, const char *image_id, const char *mode)
{
	const struct cfg_profile *p = r->profile;
	const struct cfg_limits *l = &p->limits;
	_cleanup_free_ char *mem = cfg_size_text(l->memory), *disk = cfg_size_text(l->disk);
	_cleanup_free_ char *cpus = cfg_cpus_text(l->cpus_milli);
	char **v = NULL, *out;
	size_t i;

	out = xasprintf("image\t%s\nimage_id\t%s\nmode\t%s\nlimits\tmemory %s, pids %ld, "
	    "disk %s, cpus %s\n", p->image, image_id != NULL ? image_id : "-", mode, mem, l->pids,
	    disk, cpus);
	/* How long a new destination is held is part of the policy the agent meets. */
	lz_strv_pushf(&v, "network\t%s", r->sidecar ? "sidecar" : "none");
	if (r->sidecar)
		lz_strv_pushf(&v, "ask_timeout\t%ds", r->ask_timeout);
	effcfg_sorted(v, &out);
	v = NULL;
	for (i = 0; i < r->n_env; i++) {
		const char *eq = strchr(r->env[i], '=');
		unsigned char h[crypto_hash_sha256_BYTES];
		char hex[2 * crypto_hash_sha256_BYTES + 1];

		if (eq == NULL)
			continue;
		crypto_hash_sha256(h, (const unsigned char *)eq + 1, strlen(eq + 1));
		sodium_bin2hex(hex, sizeof hex, h, sizeof h);
		lz_strv_pushf(&v, "env\t%.*s\t%.16s", (int)(eq - r->env[i]), r->env[i], hex);
	}
	effcfg_sorted(v, &out);
	v = NULL;
	for (i = 0; i < r->n_volumes; i++)
		lz_strv_pushf(&v, "volume\t%s\t%s\t%s", r->volumes[i].host, r->volumes[i].container,
		    r->volumes[i].mode != NULL ? r->volumes[i].mode : "");
	effcfg_sorted(v, &out);
	v = NULL;
	for (i = 0; i < p->n_persistent_dirs; i++)
		lz_strv_pushf(&v, "persist\t%s", p->persistent_dirs[i]);
	effcfg_sorted(v, &out);
	v = NULL;
	for (i = 0; i < r->n_allow_egress; i++)
		lz_strv_pushf(&v, "egress\t%s", r->allow_egress[i]);
	effcfg_sorted(v, &out);
	return out;
}

char *
effcfg_egress_edit(const char *text, const char *entry, bool add)
{
	_cleanup_free_ char *line = xasprintf("egress\t%s\n", entry);
	size_t ll = strlen(line);
	const char *at = NULL;

	for (const char *s = text; s != NULL && *s != '\0'; s = strchr(s, '\n'), s = s != NULL ? s + 1 : s)
		if (strncmp(s, line, ll) == 0) {
			at = s;
			break;
		}
	if (add)
		return at != NULL ? xstrdup(text) : xasprintf("%s%s", text, line);
	if (at == NULL)
		return xstrdup(text);
	return xasprintf("%.*s%s", (int)(at - text), text, at + ll);
}

/* Lines of text with key k (each "k\t..."), as the part after the tab. */
static char **
effcfg_lines(char *const *all, const char *k)
{
	char **v = NULL;
	size_t i, kl = strlen(k);

	for (i = 0; all != NULL && all[i] != NULL; i++)
		if (strncmp(all[i], k, kl) == 0 && all[i][kl] == '\t')
			lz_strv_push(&v, all[i] + kl + 1);
	return v;
}

/* Split text into lines; every line "key\t..." of printable bytes. */
static int
effcfg_split(const char *text, size_t len, char ***out, lz_err_t *err)
{
	const char *s = text, *end = text + len, *nl;
	size_t i;

	*out = NULL;
	if (len > EFFCFG_MAX)
		return lz_err_set(err, LZ_EINVAL, "configuration text longer than %d bytes",
		    EFFCFG_MAX);
	while (s < end) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (nl == NULL)
			nl = end;
		for (i = 0; s + i < nl; i++)
			if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
				goto bad;
		if (nl > s) {
			if (memchr(s, '\t', (size_t)(nl - s)) == NULL)
				goto bad;
			lz_strv_pushf(out, "%.*s", (int)(nl - s), s);
		}
		s = nl + 1;
	}
	return 0;
bad:
	lz_strv_free(*out);
	*out = NULL;
	return lz_err_set(err, LZ_EINVAL, "malformed configuration line");
}

/* The first field of a "NAME\t..." entry, to name what differs. */
static char *
effcfg_head(const char *e, int fields)
{
	const char *t = e;
	int i;

	for (i = 0; i < fields && t != NULL; i++)
		t = strchr(t + (i > 0), '\t');
	return t != NULL ? xstrndup(e, (size_t)(t - e)) : xstrdup(e);
}

/* A keyed set (env NAME HASH; volume HOST CONTAINER MODE by CONTAINER...). */
static void
effcfg_diff_set(char **run, char **our, const char *what, bool secret, int name_fields,
    char ***lines)
{
	size_t i, j;

	for (i = 0; our != NULL && our[i] != NULL; i++) {
		_cleanup_free_ char *n = effcfg_head(our[i], name_fields);
		size_t nl = strlen(n);
		bool found = false, same = false;

		for (j = 0; run != NULL && run[j] != NULL; j++) {
			if (strncmp(run[j], n, nl) == 0 && (run[j][nl] == '\t' || run[j][nl] == '\0')) {
				found = true;
				same = strcmp(run[j], our[i]) == 0;
			}
		}
		if (!found)
			lz_strv_pushf(lines, "%s%s: in your configuration, not in the running sandbox",
			    what, n);
		else if (!same)
			lz_strv_pushf(lines, "%s%s: %s", what, n, secret ? "a different value" :
			    "set differently");
	}
	for (j = 0; run != NULL && run[j] != NULL; j++) {
		_cleanup_free_ char *n = effcfg_head(run[j], name_fields);
		size_t nl = strlen(n);
		bool found = false;

		for (i = 0; our != NULL && our[i] != NULL; i++)
			if (strncmp(our[i], n, nl) == 0 && (our[i][nl] == '\t' || our[i][nl] == '\0'))
				found = true;
		if (!found)
			lz_strv_pushf(lines, "%s%s: in the running sandbox, not in your "
			    "configuration", what, n);
	}
}

/* "HOST\tCONTAINER\tMODE" -> "CONTAINER\tMODE\tHOST", in place. */
static void
effcfg_rotate(char **v)
{
	size_t k;

	for (k = 0; v != NULL && v[k] != NULL; k++) {
		char *t = strchr(v[k], '\t'), *u;

		if (t == NULL)
			continue;
		u = xasprintf("%s\t%.*s", t + 1, (int)(t - v[k]), v[k]);
		free(v[k]);
		v[k] = u;
	}
}

/* The configuration key a compared key comes from, as the user writes it;
 * a set's label ends where the entry's name follows. Caller frees. */
static char *
effcfg_label(const char *key, const char *profile)
{
	if (strcmp(key, "image") == 0)
		return xasprintf("profiles.%s.image", profile);
	if (strcmp(key, "image_id") == 0)
		return xasprintf("profiles.%s.image (its image id)", profile);
	if (strcmp(key, "network") == 0)
		return xasprintf("profiles.%s.network", profile);
	if (strcmp(key, "ask_timeout") == 0)
		return xstrdup("network.ask_timeout");
	if (strcmp(key, "env") == 0)
		return xasprintf("profiles.%s.env.", profile);
	if (strcmp(key, "volume") == 0)
		return xasprintf("profiles.%s.volumes, container ", profile);
	if (strcmp(key, "persist") == 0)
		return xasprintf("profiles.%s.persistent_dirs ", profile);
	if (strcmp(key, "egress") == 0)
		return xasprintf("allow_egress (the global list, profiles.%s.allow_egress or "
		    "grants/%s.list) ", profile, profile);
	return xasprintf("--%s", key);	/* mode */
}

/* Field NAME of "memory 1g, pids 64, ...": its value, or NULL. Caller frees. */
static char *
effcfg_limit(const char *text, const char *name, size_t nl)
{
	const char *s = text;

	while (s != NULL && *s != '\0') {
		const char *end = strstr(s, ", ");
		size_t l = end != NULL ? (size_t)(end - s) : strlen(s);

		if (l > nl && strncmp(s, name, nl) == 0 && s[nl] == ' ')
			return xstrndup(s + nl + 1, l - nl - 1);
		s = end != NULL ? end + 2 : NULL;
	}
	return NULL;
}

/* The limits of each side, field by field. */
static void
effcfg_diff_limits(const char *run, const char *our, const char *profile, char ***lines)
{
	const char *s = our;

	while (s != NULL && *s != '\0') {
		const char *sp = strchr(s, ' '), *end = strstr(s, ", ");
		size_t nl = sp != NULL ? (size_t)(sp - s) : strlen(s);
		_cleanup_free_ char *a = effcfg_limit(run, s, nl), *b = effcfg_limit(our, s, nl);

		if (a != NULL && b != NULL && strcmp(a, b) != 0)
			lz_strv_pushf(lines, "profiles.%s.limits.%.*s: running %s, yours %s", profile,
			    (int)nl, s, a, b);
		s = end != NULL ? end + 2 : NULL;
	}
}

int
effcfg_diff(const char *running, size_t len, const char *ours, const char *profile,
    char ***lines, lz_err_t *err)
{
	static const char *const single[] = { "image", "image_id", "mode", "network",
		"ask_timeout" };
	static const struct { const char *key; int fields; } sets[] = {
		{ "env", 1 }, { "volume", 1 }, { "persist", 1 }, { "egress", 1 },
	};
	char **run = NULL, **our = NULL;
	size_t i;

	*lines = NULL;
	if (profile == NULL || profile[0] == '\0')
		profile = "PROFILE";
	if (effcfg_split(running, len, &run, err) < 0)
		return -1;
	if (effcfg_split(ours, strlen(ours), &our, err) < 0) {
		lz_strv_free(run);
		return -1;
	}
	for (i = 0; i < sizeof single / sizeof single[0]; i++) {
		char **a = effcfg_lines(run, single[i]), **b = effcfg_lines(our, single[i]);

		/* image_id "-": one side could not tell; an older coordinator: no key. */
		if (a != NULL && b != NULL && strcmp(a[0], b[0]) != 0 && strcmp(a[0], "-") != 0 &&
		    strcmp(b[0], "-") != 0) {
			_cleanup_free_ char *what = effcfg_label(single[i], profile);

			lz_strv_pushf(lines, "%s: running %s, yours %s", what, a[0], b[0]);
		}
		lz_strv_free(a);
		lz_strv_free(b);
	}
	{
		char **a = effcfg_lines(run, "limits"), **b = effcfg_lines(our, "limits");

		if (a != NULL && b != NULL && strcmp(a[0], b[0]) != 0)
			effcfg_diff_limits(a[0], b[0], profile, lines);
		lz_strv_free(a);
		lz_strv_free(b);
	}
	for (i = 0; i < sizeof sets / sizeof sets[0]; i++) {
		char **a = effcfg_lines(run, sets[i].key), **b = effcfg_lines(our, sets[i].key);
		_cleanup_free_ char *what = effcfg_label(sets[i].key, profile);

		/* A volume is named by its container path (field 2): host changed = differs. */
		if (strcmp(sets[i].key, "volume") == 0) {
			effcfg_rotate(a);
			effcfg_rotate(b);
		}
		effcfg_diff_set(a, b, what, strcmp(sets[i].key, "env") == 0, sets[i].fields, lines);
		lz_strv_free(a);
		lz_strv_free(b);
	}
	lz_strv_free(run);
	lz_strv_free(our);
	return 0;
}
