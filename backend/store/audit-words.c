/* audit-words.c - an audit row in words (see audit-words.h). The detail is
 * read with the configuration's YAML tree builder (JSON is YAML) and its
 * top-level scalars picked by key, as audit-line.c does for the table. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit-words.h"
#include "config-int.h"
#include "shellwords.h"
#include "xmalloc.h"

struct audit_words_req {
	char *id;
	char *command;
	char *how;		/* "auto-approved", "approved", "edited", "denied"... */
};

struct audit_words_ctx {
	struct audit_words_req req[AUDIT_WORDS_REMEMBER];
	size_t next;		/* the slot the next request takes (a ring) */
};

struct audit_words_ctx *
audit_words_ctx_new(void)
{
	return xcalloc(1, sizeof(struct audit_words_ctx));
}

void
audit_words_ctx_free(struct audit_words_ctx *ctx)
{
	if (ctx == NULL)
		return;
	for (size_t i = 0; i < AUDIT_WORDS_REMEMBER; i++) {
		free(ctx->req[i].id);
		free(ctx->req[i].command);
		free(ctx->req[i].how);
	}
	free(ctx);
}

static struct audit_words_req *
aw_req_find(struct audit_words_ctx *ctx, const char *id)
{
	for (size_t i = 0; ctx != NULL && id != NULL && *id != '\0' && i < AUDIT_WORDS_REMEMBER; i++)
		if (ctx->req[i].id != NULL && strcmp(ctx->req[i].id, id) == 0)
			return &ctx->req[i];
	return NULL;
}

static struct audit_words_req *
aw_req_add(struct audit_words_ctx *ctx, const char *id, const char *command)
{
	struct audit_words_req *r;

	if (ctx == NULL || id == NULL || *id == '\0' || command == NULL)
		return NULL;
	if ((r = aw_req_find(ctx, id)) == NULL) {
		r = &ctx->req[ctx->next];
		ctx->next = (ctx->next + 1) % AUDIT_WORDS_REMEMBER;
		free(r->id);
		free(r->how);
		r->id = xstrdup(id);
		r->how = NULL;
	} else
		free(r->command);
	r->command = xstrdup(command);
	return r;
}

static void
aw_req_how(struct audit_words_req *r, const char *how)
{
	if (r == NULL)
		return;
	free(r->how);
	r->how = xstrdup(how);
}

/* The detail's top-level scalar under key ("" for an empty one), or NULL. */
static const char *
aw_get(const struct cfg_node *d, const char *key)
{
	if (d == NULL || d->kind != NODE_MAP)
		return NULL;
	for (size_t i = 0; i + 1 < d->n_kids; i += 2) {
		const struct cfg_node *k = d->kids[i], *v = d->kids[i + 1];

		if (k->kind == NODE_SCALAR && v->kind == NODE_SCALAR && strcmp(k->str, key) == 0)
			return v->plain && strcmp(v->str, "null") == 0 ? NULL : v->str;
	}
	return NULL;
}

static bool
aw_is(const struct cfg_node *d, const char *key, const char *value)
{
	const char *v = aw_get(d, key);

	return v != NULL && strcmp(v, value) == 0;
}

static long long
aw_num(const struct cfg_node *d, const char *key)
{
	const char *v = aw_get(d, key);

	return v != NULL ? strtoll(v, NULL, 10) : -1;
}

/* s made visible, or "?" when missing or empty. Caller frees. */
static char *
aw_vis(const char *s)
{
	if (s == NULL || *s == '\0')
		return xstrdup("?");
	return lz_shellwords_visible(s, strlen(s));
}

/* The summary from a format whose %s arguments are all visible already. */
static void __attribute__((format(printf, 2, 3)))
aw_say(struct audit_words *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	free(out->summary);
	out->summary = xvasprintf(fmt, ap);
	va_end(ap);
}

static void
aw_duration(char *buf, size_t n, long long ms)
{
	if (ms < 1000)
		snprintf(buf, n, "%lld ms", ms > 0 ? ms : 0);
	else
		snprintf(buf, n, "%.1f s", (double)ms / 1000);
}

/* Who acted, in a word. */
static char *
aw_actor(const char *kind, const char *actor)
{
	if (actor == NULL || *actor == '\0')
		return xstrdup("-");
	if (strlen(actor) == 32 && strspn(actor, "0123456789abcdef") == 32)
		return xstrdup("agent");	/* a session id: the agent's own request */
	if (strcmp(actor, "policy") == 0)
		return xstrdup("policy");
	if (strcmp(actor, "coordinator") == 0 || strcmp(actor, "guard") == 0)
		return xstrdup("lazaret");
	if (strcmp(actor, "router") == 0 || strcmp(actor, "sidecar") == 0)
		return xstrdup("network");
	/* a human at a workbench or a CLI ("workbench (uid 1000 pid 42)") */
	if (strcmp(actor, "user") == 0 || strncmp(actor, "uid ", 4) == 0 ||
	    strncmp(actor, "workbench", 9) == 0 || strcmp(actor, "client") == 0 ||
	    strncmp(kind, "review.", 7) == 0)
		return xstrdup("you");
	return aw_vis(actor);
}

/* esc.*: the agent's requests to run a host command and what came of them. */
static void
aw_esc(struct audit_words_ctx *ctx, const char *kind, const char *rid, const struct cfg_node *d,
    struct audit_words *out)
{
	struct audit_words_req *r = aw_req_find(ctx, rid);
	_cleanup_free_ char *cmd = NULL, *reason = aw_vis(aw_get(d, "reason"));
	const char *k = kind + 4, *v;
	char dur[32];

	if (strcmp(k, "request") == 0) {
		r = aw_req_add(ctx, rid, aw_get(d, "command"));
		cmd = aw_vis(aw_get(d, "command"));
		out->kind = xstrdup("request");
		v = aw_get(d, "verdict");
		if (v != NULL && strcmp(v, "auto-approve") == 0)
			aw_say(out, "asked to run %s (auto-approved)", cmd);
		else if (v != NULL && strcmp(v, "invalid") == 0) {
			aw_say(out, "asked to run %s, which does not parse", cmd);
			out->tone = AUDIT_WORDS_BAD;
		} else
			aw_say(out, "asked to run %s (needs your approval)", cmd);
		return;
	}
	cmd = aw_vis(r != NULL ? r->command : NULL);
	if (strcmp(k, "decision") == 0) {
		out->kind = xstrdup("decision");
		v = aw_get(d, "action");
		if (v == NULL)
			v = "?";
		if (strcmp(v, "auto-approve") == 0) {
			aw_say(out, "auto-approved %s", cmd);
			aw_req_how(r, "auto-approved");
			out->tone = AUDIT_WORDS_GOOD;
		} else if (strcmp(v, "approve") == 0) {
			aw_say(out, "approved %s", cmd);
			aw_req_how(r, "approved");
			out->tone = AUDIT_WORDS_GOOD;
		} else if (strcmp(v, "edit") == 0) {
			_cleanup_free_ char *ed = aw_vis(aw_get(d, "edited"));

			aw_say(out, "edited %s into %s and approved it", cmd, ed);
			aw_req_how(r, "edited");
			out->tone = AUDIT_WORDS_GOOD;
		} else if (strcmp(v, "deny") == 0) {
			aw_say(out, "denied %s", cmd);
			out->tone = AUDIT_WORDS_BAD;
		} else if (strcmp(v, "quit") == 0) {
			aw_say(out, "stopped the domain at %s", cmd);
			out->tone = AUDIT_WORDS_BAD;
		} else if (strcmp(v, "abandoned") == 0) {
			aw_say(out, "gave up on %s: %s", cmd, reason);
			out->tone = AUDIT_WORDS_BAD;
		} else {
			_cleanup_free_ char *vv = aw_vis(v);

			aw_say(out, "%s %s", vv, cmd);
		}
	} else if (strcmp(k, "result") == 0) {
		out->kind = xstrdup("result");
		if (aw_is(d, "outcome", "ran")) {
			long long st = aw_num(d, "exit_status");

			aw_duration(dur, sizeof dur, aw_num(d, "duration_ms"));
			aw_say(out, "ran %s%s%s%s: exit %lld in %s", cmd, r != NULL && r->how ? " (" : "",
			    r != NULL && r->how ? r->how : "", r != NULL && r->how ? ")" : "", st, dur);
			out->tone = st == 0 ? AUDIT_WORDS_GOOD : AUDIT_WORDS_BAD;
		} else {
			aw_say(out, "did not run %s: %s", cmd, reason);
			out->tone = AUDIT_WORDS_BAD;
		}
	} else if (strcmp(k, "refused") == 0) {
		out->kind = xstrdup("refused");
		aw_say(out, "refused a request: %s", reason);
		out->tone = AUDIT_WORDS_BAD;
	} else if (strcmp(k, "suspicious") == 0) {
		out->kind = xstrdup("input");
		aw_say(out, "threw away input at a prompt that no human typed");
		out->tone = AUDIT_WORDS_BAD;
	} else if (strcmp(k, "decision-how") == 0) {
		_cleanup_free_ char *how = aw_vis(aw_get(d, "how"));

		out->kind = xstrdup("decision");
		aw_say(out, "decided %s at lazaret run's prompt (%s)", cmd, how);
	}
}

/* net.*: connections, DNS, network requests, grants, the router. */
static void
aw_net(const char *kind, const struct cfg_node *d, struct audit_words *out)
{
	const char *k = kind + 4, *name = aw_get(d, "name"), *dest = aw_get(d, "dest");
	_cleanup_free_ char *dv = aw_vis(dest), *nv = aw_vis(name), *what = NULL;
	size_t dl = strlen(dv);

	/* "addr:port/6" or "/tcp": TCP goes without saying, UDP is named */
	if (dl > 2 && strcmp(dv + dl - 2, "/6") == 0)
		dv[dl - 2] = '\0';
	else if (dl > 4 && strcmp(dv + dl - 4, "/tcp") == 0)
		dv[dl - 4] = '\0';
	else if (dl > 3 && strcmp(dv + dl - 3, "/17") == 0) {
		char *u = xasprintf("%.*s/udp", (int)(dl - 3), dv);

		free(dv);
		dv = u;
	}
	_cleanup_free_ char *grant = aw_vis(aw_get(d, "grant")), *entry = aw_vis(aw_get(d, "entry"));
	_cleanup_free_ char *detail = aw_vis(aw_get(d, "detail"));

	out->kind = xstrdup("egress");
	/* "name (dest)" when the name says more than the address */
	if (name != NULL && *name != '\0' && (dest == NULL || strncmp(dest, "dns ", 4) != 0))
		what = xasprintf("%s (%s)", nv, dv);
	else
		what = xstrdup(dv);
	if (strcmp(k, "first-allow") == 0) {
		aw_say(out, "connected to %s", what);
		out->tone = AUDIT_WORDS_GOOD;
	} else if (strcmp(k, "first-block") == 0) {
		aw_say(out, "blocked %s", what);
		out->tone = AUDIT_WORDS_BAD;
	} else if (strcmp(k, "request") == 0) {
		if (aw_get(d, "refused") != NULL) {
			aw_say(out, "wanted %s; nobody was asked", what);
			out->tone = AUDIT_WORDS_BAD;
		} else
			aw_say(out, "asked to reach %s", what);
	} else if (strcmp(k, "decision") == 0) {
		const char *scope = aw_get(d, "scope");

		if (scope != NULL && strcmp(scope, "deny") == 0) {
			aw_say(out, "denied %s", what);
			out->tone = AUDIT_WORDS_BAD;
		} else {
			aw_say(out, "allowed %s %s as %s", what, scope != NULL && strcmp(scope, "once") == 0 ?
			    "once" : scope != NULL && strcmp(scope, "run") == 0 ? "for this run" :
			    "in the profile", grant);
			out->tone = AUDIT_WORDS_GOOD;
		}
	} else if (strcmp(k, "grant.add") == 0) {
		aw_say(out, "granted %s", entry);
		out->tone = AUDIT_WORDS_GOOD;
	} else if (strcmp(k, "grant.revoke") == 0) {
		aw_say(out, "revoked %s", entry);
	} else if (strcmp(k, "broker") == 0) {
		aw_say(out, "brokered %s", detail);
	} else if (strcmp(k, "broker-refused") == 0) {
		aw_say(out, "broker refused %s", detail);
		out->tone = AUDIT_WORDS_BAD;
	} else if (strcmp(k, "policy") == 0) {
		aw_say(out, "changed the egress policy: %s", detail);
	} else if (strcmp(k, "start") == 0) {
		aw_say(out, "started the network router");
	} else if (strcmp(k, "restart") == 0) {
		aw_say(out, "restarted the network router: %s", detail);
		out->tone = AUDIT_WORDS_BAD;
	} else if (strcmp(k, "router-exit") == 0) {
		aw_say(out, "the network router exited: %s", detail);
		out->tone = AUDIT_WORDS_BAD;
	} else if (strcmp(k, "down") == 0) {
		aw_say(out, "the network is down: %s", detail);
		out->tone = AUDIT_WORDS_BAD;
	} else {
		/* audit-limit and what this version does not know */
		_cleanup_free_ char *kv = aw_vis(k);

		aw_say(out, "network %s: %s", kv, detail);
	}
}

/* review.*: merge, discard, sync of the agent's branch (app/client/review-act.c). */
static void
aw_review(const char *kind, const struct cfg_node *d, struct audit_words *out)
{
	long long n = aw_num(d, "commits");
	_cleanup_free_ char *target = aw_vis(aw_get(d, "target")), *why = aw_vis(aw_get(d, "why"));
	_cleanup_free_ char *kv = aw_vis(kind + 7);
	const char *outcome = aw_get(d, "outcome");

	out->kind = xstrdup("review");
	if (outcome != NULL && strcmp(outcome, "refused") == 0) {
		aw_say(out, "%s refused: %s", kv, why);
		out->tone = AUDIT_WORDS_BAD;
	} else if (outcome != NULL && strcmp(outcome, "merged") == 0) {
		aw_say(out, "merged %lld commit%s into %s", n, n == 1 ? "" : "s", target);
		out->tone = AUDIT_WORDS_GOOD;
	} else if (outcome != NULL && strcmp(outcome, "discarded") == 0)
		aw_say(out, "discarded %lld commit%s", n, n == 1 ? "" : "s");
	else if (outcome != NULL && strcmp(outcome, "synced") == 0)
		aw_say(out, "synced the agent's branch with %s", target);
	else
		aw_say(out, "%s", kv);
}

/* The first line of s, made visible. */
static char *
aw_first_line(const char *s)
{
	_cleanup_free_ char *one = s != NULL ? xstrndup(s, strcspn(s, "\n")) : NULL;

	return aw_vis(one);
}

void
audit_words_render(struct audit_words_ctx *ctx, const char *kind, const char *actor,
    const char *request_id, const char *detail, struct audit_words *out)
{
	lz_err_t err = LZ_ERR_INIT;
	struct cfg_ctx c = { "audit detail", &err, NULL };
	struct cfg_node *d = NULL;
	_cleanup_free_ char *a = NULL, *b = NULL;

	memset(out, 0, sizeof *out);
	if (kind == NULL)
		kind = "";
	if (detail != NULL && cfg_tree_build(&c, detail, strlen(detail), &d) < 0)
		lz_err_clear(&err);	/* shown as stored */
	out->actor = aw_actor(kind, actor);
	if (strncmp(kind, "esc.", 4) == 0)
		aw_esc(ctx, kind, request_id, d, out);
	else if (strncmp(kind, "net.", 4) == 0)
		aw_net(kind, d, out);
	else if (strncmp(kind, "review.", 7) == 0)
		aw_review(kind, d, out);
	else if (strcmp(kind, "session.start") == 0) {
		out->kind = xstrdup("session");
		a = aw_vis(aw_get(d, "command"));
		aw_say(out, "started session %lld: %s", aw_num(d, "id"), a);
	} else if (strcmp(kind, "session.end") == 0) {
		long long st = aw_num(d, "exit_status");

		out->kind = xstrdup("session");
		aw_say(out, "session %lld ended: exit %lld", aw_num(d, "id"), st);
		out->tone = st == 0 ? AUDIT_WORDS_INFO : AUDIT_WORDS_BAD;
	} else if (strcmp(kind, "domain.start") == 0) {
		out->kind = xstrdup("sandbox");
		a = aw_vis(aw_get(d, "mode"));
		b = aw_vis(aw_get(d, "image"));
		aw_say(out, "started the sandbox (%s, %s)", a, b);
	} else if (strcmp(kind, "domain.stop") == 0) {
		out->kind = xstrdup("sandbox");
		a = aw_vis(aw_get(d, "reason"));
		aw_say(out, "stopped the sandbox: %s", a);
	} else if (strcmp(kind, "domain.reap") == 0) {
		out->kind = xstrdup("sandbox");
		aw_say(out, "cleaned up after a coordinator that died");
		out->tone = AUDIT_WORDS_BAD;
	} else if (strncmp(kind, "limit.", 6) == 0) {
		out->kind = xstrdup("limit");
		a = aw_first_line(aw_get(d, "message"));
		aw_say(out, "stopped the sandbox: %s", a);
		out->tone = AUDIT_WORDS_BAD;
	} else if (strncmp(kind, "sentry.", 7) == 0) {
		out->kind = xstrdup("git");
		a = aw_first_line(aw_get(d, "report"));
		if (strcmp(kind, "sentry.import") == 0)
			aw_say(out, "imported the agent's commits: %s", a);
		else if (strcmp(kind, "sentry.sync") == 0)
			aw_say(out, "refreshed the agent's view of your branches");
		else if (strcmp(kind, "sentry.prepare") == 0)
			aw_say(out, "prepared the agent's repository: %s", a);
		else
			aw_say(out, "released the agent's repository: %s", a);
	}
	if (out->kind == NULL)
		out->kind = aw_vis(kind);
	if (out->summary == NULL) {
		/* a kind this version does not know: its fields as key=value */
		for (size_t i = 0; d != NULL && d->kind == NODE_MAP && i + 1 < d->n_kids; i += 2) {
			char *k = aw_vis(d->kids[i]->str), *v = d->kids[i + 1]->kind == NODE_SCALAR ?
			    aw_vis(d->kids[i + 1]->str) : xstrdup("{...}"), *s;

			s = xasprintf("%s%s%s=%s", out->summary != NULL ? out->summary : "",
			    out->summary != NULL ? " " : "", k, v);
			free(out->summary);
			out->summary = s;
			free(k);
			free(v);
		}
		if (out->summary == NULL)
			out->summary = aw_vis(detail != NULL ? detail : "{}");
	}
	cfg_node_free(d);
}

void
audit_words_clear(struct audit_words *w)
{
	free(w->kind);
	free(w->actor);
	free(w->summary);
	memset(w, 0, sizeof *w);
}

/* Append n bytes of s to the growing buffer *b (*len used, *cap allocated). */
static void
aw_put(char **b, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*b = xrealloc(*b, *cap);
	}
	memcpy(*b + *len, s, n);
	*len += n;
	(*b)[*len] = '\0';
}

static void
aw_indent(char **b, size_t *len, size_t *cap, int depth)
{
	aw_put(b, len, cap, "\n", 1);
	for (int i = 0; i < depth; i++)
		aw_put(b, len, cap, "  ", 2);
}

char *
audit_words_pretty(const char *json)
{
	char *b = NULL;
	size_t len = 0, cap = 0;
	int depth = 0;
	bool in_str = false;

	aw_put(&b, &len, &cap, "", 0);
	for (const char *p = json != NULL ? json : ""; *p != '\0'; p++) {
		char ch = *p;

		if (in_str) {
			aw_put(&b, &len, &cap, p, 1);
			if (ch == '\\' && p[1] != '\0')
				aw_put(&b, &len, &cap, ++p, 1);
			else if (ch == '"')
				in_str = false;
			continue;
		}
		switch (ch) {
		case '"':
			in_str = true;
			aw_put(&b, &len, &cap, p, 1);
			break;
		case '{':
		case '[':
			aw_put(&b, &len, &cap, p, 1);
			/* an empty object or array stays on its line */
			if (p[1] == (ch == '{' ? '}' : ']'))
				aw_put(&b, &len, &cap, ++p, 1);
			else
				aw_indent(&b, &len, &cap, ++depth);
			break;
		case '}':
		case ']':
			aw_indent(&b, &len, &cap, depth > 0 ? --depth : 0);
			aw_put(&b, &len, &cap, p, 1);
			break;
		case ',':
			aw_put(&b, &len, &cap, p, 1);
			aw_indent(&b, &len, &cap, depth);
			break;
		case ':':
			aw_put(&b, &len, &cap, ": ", 2);
			break;
		case ' ':
		case '\t':
		case '\n':
		case '\r':
			break;
		default:
			aw_put(&b, &len, &cap, p, 1);
			break;
		}
	}
	return b;
}
