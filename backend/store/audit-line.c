/* audit-line.c - one audit event as a person reads it (see audit-line.h).
 * The detail is read with the configuration's YAML tree builder (JSON is
 * YAML), its top-level scalars picked by key. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit-line.h"
#include "config-int.h"
#include "shellwords.h"
#include "xmalloc.h"

#define AUDIT_LINE_WHO_W	18

/* SEQ, then TIME WHO EVENT VERDICT REQUEST WHAT; the header uses it too. */
#define AUDIT_LINE_FMT(seq)	"%5" seq "  %-20s  %-*s  %-13s  %-12s  %-32s  %s\n"

char *
audit_line_header(void)
{
	return xasprintf(AUDIT_LINE_FMT("s"), "SEQ", "TIME", AUDIT_LINE_WHO_W, "WHO", "EVENT",
	    "VERDICT", "REQUEST", "WHAT");
}

/* Whether pair i of mapping d is scalar: scalar (a stored detail is ours, but
 * it is read as any YAML: a key may be a mapping). */
static bool
audit_line_scalar_pair(const struct cfg_node *d, size_t i)
{
	return d->kids[i]->kind == NODE_SCALAR && d->kids[i + 1]->kind == NODE_SCALAR;
}

/* The detail's top-level scalar under key, or NULL. */
static const char *
audit_line_get(const struct cfg_node *d, const char *key)
{
	size_t i;

	for (i = 0; d != NULL && d->kind == NODE_MAP && i + 1 < d->n_kids; i += 2)
		if (audit_line_scalar_pair(d, i) && strcmp(d->kids[i]->str, key) == 0)
			return d->kids[i + 1]->str;
	return NULL;
}

/* The detail's number under key; -1 when missing. */
static long long
audit_line_num(const struct cfg_node *d, const char *key)
{
	const char *v = audit_line_get(d, key);

	return v != NULL ? strtoll(v, NULL, 10) : -1;
}

/* s made visible (NULL: "-"), appended to *out after sep. */
static void
audit_line_add(char **out, const char *sep, const char *s)
{
	_cleanup_free_ char *v = lz_shellwords_visible(s != NULL ? s : "-", s != NULL ? strlen(s) : 1);
	char *n = xasprintf("%s%s%s", *out != NULL ? *out : "", *out != NULL ? sep : "", v);

	free(*out);
	*out = n;
}

/* pre, s, post appended when s is there and not empty (pre only after text). */
static void
audit_line_opt(char **out, const char *pre, const char *s, const char *post)
{
	char *n;

	if (s == NULL || *s == '\0')
		return;
	audit_line_add(out, pre, s);
	n = xasprintf("%s%s", *out, post);
	free(*out);
	*out = n;
}

static void
audit_line_size(char *buf, size_t n, long long bytes)
{
	if (bytes < 1024)
		snprintf(buf, n, "%lld B", bytes);
	else if (bytes < 1024 * 1024)
		snprintf(buf, n, "%.1f KiB", (double)bytes / 1024);
	else
		snprintf(buf, n, "%.1f MiB", (double)bytes / (1024 * 1024));
}

/* VERDICT and WHAT of an event, from its kind and detail. */
static void
audit_line_what(const char *kind, const struct cfg_node *d, const char *raw, char **verdict,
    char **what)
{
	if (d == NULL && *what != NULL)
		goto out;
	const char *s, *reason = audit_line_get(d, "reason");
	char dur[32], size[32], *t;
	size_t i;

	if (strcmp(kind, "esc.request") == 0) {
		audit_line_add(verdict, "", audit_line_get(d, "verdict"));
		audit_line_add(what, "", audit_line_get(d, "command"));
		if ((s = audit_line_get(d, "host_cwd")) != NULL && *s != '\0') {
			audit_line_add(what, " (in ", s);
			audit_line_add(what, "", ")");
		}
	} else if (strcmp(kind, "esc.decision") == 0) {
		audit_line_add(verdict, "", audit_line_get(d, "action"));
		if ((s = audit_line_get(d, "edited")) != NULL) {
			audit_line_add(what, "", audit_line_get(d, "original"));
			audit_line_add(what, " -> ", s);
		} else if (reason != NULL)
			audit_line_add(what, "", reason);
	} else if (strcmp(kind, "esc.result") == 0 &&
	    (s = audit_line_get(d, "outcome")) != NULL && strcmp(s, "ran") == 0) {
		long long ms = audit_line_num(d, "duration_ms"), out = audit_line_num(d, "output_bytes");

		*verdict = xasprintf("exit %lld", audit_line_num(d, "exit_status"));
		if (ms < 1000)
			snprintf(dur, sizeof dur, "%lld ms", ms > 0 ? ms : 0);
		else
			snprintf(dur, sizeof dur, "%.1f s", (double)ms / 1000);
		audit_line_size(size, sizeof size, out > 0 ? out : 0);
		*what = xasprintf("%s, %s of output%s", dur, size,
		    (s = audit_line_get(d, "sandbox_gone")) != NULL && strcmp(s, "true") == 0 ?
		    ", the sandbox was gone" : "");
	} else if (strcmp(kind, "esc.result") == 0 || strcmp(kind, "esc.refused") == 0) {
		audit_line_add(verdict, "", strcmp(kind, "esc.refused") == 0 ? "refused" :
		    audit_line_get(d, "outcome"));
		audit_line_add(what, "", reason);
	} else if (strcmp(kind, "session.start") == 0) {
		audit_line_add(what, "", audit_line_get(d, "command"));
		t = *what;
		*what = xasprintf("%s (session %lld, pid %lld, %s)", t, audit_line_num(d, "id"),
		    audit_line_num(d, "pid"), (s = audit_line_get(d, "tty")) != NULL &&
		    strcmp(s, "true") == 0 ? "terminal" : "pipes");
		free(t);
	} else if (strcmp(kind, "session.end") == 0) {
		*verdict = xasprintf("exit %lld", audit_line_num(d, "exit_status"));
		*what = xasprintf("session %lld", audit_line_num(d, "id"));
	} else if (strcmp(kind, "domain.start") == 0) {
		audit_line_add(what, "", audit_line_get(d, "container"));
		audit_line_add(what, " (", audit_line_get(d, "mode"));
		audit_line_add(what, ", ", audit_line_get(d, "image"));
		audit_line_add(what, "", ")");
	} else if (strcmp(kind, "domain.stop") == 0) {
		audit_line_add(what, "", reason);
	} else if (strncmp(kind, "net.", 4) == 0 && (audit_line_get(d, "dest") != NULL ||
	    audit_line_get(d, "entry") != NULL)) {
		/* Network requests, decisions, grants, first allow/block (coord-netreq.c). */
		const char *dest = audit_line_get(d, "dest"), *name = audit_line_get(d, "name");

		s = kind + 4;
		audit_line_add(verdict, "", strcmp(s, "decision") == 0 ? audit_line_get(d, "scope") :
		    strcmp(s, "request") == 0 ? (audit_line_get(d, "refused") != NULL ? "unasked" :
		    "asked") : strcmp(s, "grant.add") == 0 ? "grant" :
		    strcmp(s, "grant.revoke") == 0 ? "revoke" : strcmp(s, "first-allow") == 0 ?
		    "allow" : strcmp(s, "first-block") == 0 ? "block" : s);
		audit_line_opt(what, "", dest, "");
		if (dest != NULL && strncmp(dest, "dns ", 4) != 0)
			audit_line_opt(what, " (", name, ")");
		audit_line_opt(what, " -> ", audit_line_get(d, "grant"), "");
		audit_line_opt(what, "", audit_line_get(d, "entry"), "");
		audit_line_opt(what, ": ", audit_line_get(d, "preview"), "");
		audit_line_opt(what, " (", audit_line_get(d, "rule"), ")");
		audit_line_opt(what, " (refused: ", audit_line_get(d, "refused"), ")");
	} else if (d != NULL && d->kind == NODE_MAP) {
		/* an event this version does not know: its fields as key=value */
		for (i = 0; i + 1 < d->n_kids; i += 2)
			if (audit_line_scalar_pair(d, i)) {
				audit_line_add(what, " ", d->kids[i]->str);
				audit_line_add(what, "=", d->kids[i + 1]->str);
			}
	} else
		audit_line_add(what, "", raw);
out:
	if (*verdict == NULL)
		*verdict = xstrdup("-");
	if (*what == NULL)
		*what = xstrdup("-");
}

/* WHO: a session id as the sandbox's session, the rest as recorded. */
static char *
audit_line_who(const char *kind, const char *actor)
{
	char *v, *who;

	if (actor == NULL || *actor == '\0')
		return xstrdup("-");
	if (strcmp(kind, "esc.request") == 0 && strlen(actor) == 32 &&
	    strspn(actor, "0123456789abcdef") == 32)
		return xasprintf("session %.8s", actor);
	v = lz_shellwords_visible(actor, strlen(actor));
	if (strlen(v) <= AUDIT_LINE_WHO_W)
		return v;
	who = xasprintf("%.*s~", AUDIT_LINE_WHO_W - 1, v);
	free(v);
	return who;
}

char *
audit_line_format(int64_t seq, int64_t ts_ms, const char *kind, const char *actor,
    const char *request_id, const char *detail)
{
	lz_err_t err = LZ_ERR_INIT;
	struct cfg_ctx c = { "audit detail", &err, NULL };
	struct cfg_node *d = NULL;
	char ts[32], *verdict = NULL, *what = NULL, *who, *ev = NULL, *req = NULL, *line;
	time_t t = (time_t)(ts_ms / 1000);
	struct tm tm;

	if (kind == NULL)
		kind = "";
	if (detail != NULL && cfg_tree_build(&c, detail, strlen(detail), &d) < 0)
		lz_err_clear(&err);	/* shown raw */
	if (gmtime_r(&t, &tm) == NULL || strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(ts, sizeof ts, "%lld", (long long)ts_ms);
	if (d == NULL && detail != NULL)	/* unparsable: as stored */
		audit_line_add(&what, "", detail);
	audit_line_what(kind, d, detail != NULL ? detail : "{}", &verdict, &what);
	who = audit_line_who(kind, actor);
	audit_line_add(&ev, "", strncmp(kind, "esc.", 4) == 0 ? kind + 4 : kind);
	audit_line_add(&req, "", request_id != NULL && *request_id != '\0' ? request_id : NULL);
	line = xasprintf(AUDIT_LINE_FMT("lld"), (long long)seq, ts, AUDIT_LINE_WHO_W, who, ev,
	    verdict, req, what);
	cfg_node_free(d);
	free(verdict);
	free(what);
	free(who);
	free(ev);
	free(req);
	return line;
}
