/* sentry-refs.c - the agent's refs as data: names and ids checked, the
 * packed-refs format parsed. Pure (no I/O): fuzzed by tests/fuzz/fuzz-refs.c.
 *
 * The agent's private repository is written by the agent: its refs may be
 * symbolic, malformed or named to escape. A ref is kept only when it names
 * an object in hex of the repository's length and its name passes a check
 * stricter than git's own check-ref-format; everything else is skipped and
 * counted, so the import can say what it left out. The files are read by
 * sentry-import.c (O_NOFOLLOW, size-capped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "xmalloc.h"

#define SENTRY_REFNAME_MAX 255

/* A ref name under refs/ made of [A-Za-z0-9._+-/] components: none empty,
 * none starting with '.', none ending in ".lock", no "..", nothing git
 * would read as a revision expression (@{, ~, ^, :, ?, *, [, \, space). */
bool
sentry_refname_ok(const char *name, size_t len)
{
	size_t i, seg = 0;

	if (len < 6 || len > SENTRY_REFNAME_MAX || strncmp(name, "refs/", 5) != 0)
		return false;
	for (i = 0; i <= len; i++) {
		char c = i < len ? name[i] : '/';

		if (c == '/') {
			if (i == seg || name[seg] == '.' ||
			    (i - seg >= 5 && memcmp(name + i - 5, ".lock", 5) == 0))
				return false;
			seg = i + 1;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c == '-' || c == '+'))
			return false;
		if (c == '.' && i + 1 < len && name[i + 1] == '.')
			return false;
	}
	return name[len - 1] != '.';
}

/* Exactly hexlen lowercase hex digits. */
bool
sentry_hex_ok(const char *s, size_t len, unsigned hexlen)
{
	size_t i;

	if (len != hexlen)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

void
sentry_refs_skip(struct sentry_refs *r, const char *name, size_t len)
{
	r->skipped++;
	if (r->first_skipped == NULL)
		r->first_skipped = xstrndup(name, len > 80 ? 80 : len);
}

/* Add or replace name -> hex (a loose ref wins over its packed line). */
void
sentry_refs_set(struct sentry_refs *r, const char *name, const char *hex)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->v[i].name, name) == 0) {
			snprintf(r->v[i].hex, sizeof r->v[i].hex, "%s", hex);
			return;
		}
	if (r->n >= SENTRY_REFS_MAX) {
		sentry_refs_skip(r, name, strlen(name));
		return;
	}
	r->v = xreallocarray(r->v, r->n + 1, sizeof *r->v);
	r->v[r->n].name = xstrdup(name);
	snprintf(r->v[r->n].hex, sizeof r->v[r->n].hex, "%s", hex);
	r->n++;
}

void
sentry_refs_clear(struct sentry_refs *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->v[i].name);
	free(r->v);
	free(r->first_skipped);
	memset(r, 0, sizeof *r);
}

/* packed-refs: "# ..." header lines, "<hex> <name>" lines, "^<hex>" peel
 * lines (ignored: the import fetches the tag object itself). Only refs
 * under refs/heads/ and refs/tags/ are kept. Returns 0, or -1 when buf
 * holds a NUL (not a text file). */
int
sentry_packed_refs_parse(const char *buf, size_t len, unsigned hexlen, struct sentry_refs *r)
{
	const char *line = buf, *end = buf + len, *nl, *name;
	char hex[65];
	size_t n;

	if (memchr(buf, '\0', len) != NULL)
		return -1;
	while (line < end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			nl = end;
		n = (size_t)(nl - line);
		if (n > 0 && line[0] != '#' && line[0] != '^') {
			name = line + hexlen + 1;
			if (n <= hexlen + 1 || line[hexlen] != ' ' || !sentry_hex_ok(line, hexlen, hexlen))
				sentry_refs_skip(r, line, n);
			else if (!sentry_refname_ok(name, (size_t)(nl - name)))
				sentry_refs_skip(r, name, (size_t)(nl - name));
			else if (((size_t)(nl - name) > 11 && memcmp(name, "refs/heads/", 11) == 0) ||
			    ((size_t)(nl - name) > 10 && memcmp(name, "refs/tags/", 10) == 0)) {
				_cleanup_free_ char *nm = xstrndup(name, (size_t)(nl - name));

				memcpy(hex, line, hexlen);
				hex[hexlen] = '\0';
				sentry_refs_set(r, nm, hex);
			}
		}
		line = nl + 1;
	}
	return 0;
}

