/* cmd-egress.c - lazaret egress: the domain's egress log, and run-time
 * changes to its network policy (the Network Sidecar). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "cmd-egress.h"
#include "commands.h"
#include "egress.h"
#include "netctl-text.h"
#include "netreq.h"
#include "store/egress-log.h"
#include "store/store.h"

#define EGRESS_USAGE "lazaret egress [-p P] [-w DIR] [--follow] [--json] [-n N]\n" \
	"   or: lazaret egress [-p P] [-w DIR] allow|deny ENTRY\n" \
	"   or: lazaret egress [-p P] [-w DIR] --pending [--json] [--follow]\n" \
	"   or: lazaret egress [-p P] [-w DIR] approve ID [--scope once|run|profile]\n" \
	"                                      [--widen PATTERN] [--yes-broad]\n" \
	"   or: lazaret egress [-p P] [-w DIR] deny ID\n" \
	"   or: lazaret egress [-p P] [-w DIR] grants [--json]\n" \
	"   or: lazaret egress [-p P] [-w DIR] revoke ENTRY|N"

static const char egress_help[] =
    "Show the domain's egress log: every new flow the network sidecar allowed\n"
    "or blocked (time, protocol, destination, the name it was learned from,\n"
    "the rule) and every DNS query it refused. Read through the running\n"
    "coordinator, or from state.db when none runs.\n\n"
    "`allow ENTRY` / `deny ENTRY` add or remove one policy entry of the running\n"
    "domain, for this run only (put it in allow_egress to keep it). ENTRY is a\n"
    "CIDR or a domain name, with optional ports: 10.0.0.0/8:5432,\n"
    "github.com:22,443, *.npmjs.org, [fd00::/8]:443.\n\n"
    "Requests: a new destination outside the policy (the first packet of a\n"
    "flow, or a DNS query) is held for network.ask_timeout seconds (default\n"
    "30; 0 blocks at once) while you decide; unanswered, it is blocked. It is\n"
    "held only while a workbench is attached or `--pending --follow` runs;\n"
    "with no one to answer it is blocked at once and listed as `unasked`.\n"
    "`--pending` lists them (ID, destination, the name it was resolved from,\n"
    "attempts) and the recent decisions. `approve ID` lets it through:\n"
    "  --scope once     only the attempts held now; the next connection asks\n"
    "                   again (the default)\n"
    "  --scope run      adds the grant to the policy until `lazaret stop`\n"
    "  --scope profile  also saves it in the profile's grants file (next to\n"
    "                   config.yaml: grants/PROFILE.list; never in your YAML)\n"
    "  --widen PATTERN  grant PATTERN instead of the exact destination\n"
    "                   (*.example.com:443, 10.1.2.0/24:443, name without :port)\n"
    "  --yes-broad      confirm a broad grant (a TLD or public-suffix wildcard,\n"
    "                   a CIDR wider than /16, any port on a range); without it\n"
    "                   a terminal asks you to type the pattern again, a script\n"
    "                   is refused\n"
    "The grant and what it reaches are printed. `deny ID` refuses it, and later\n"
    "attempts silently (counted) until `lazaret stop`. `grants` lists the\n"
    "profile's saved grants with their reach; `revoke ENTRY|N` removes one\n"
    "(from the running domain too). Every request, decision and grant change\n"
    "is in `lazaret audit`.\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory)\n"
    "  -f, --follow         keep printing events (or requests) as they happen\n"
    "  --json               one JSON object per event, request or grant\n"
    "  -n, --lines N        the last N events (default 50; 0: all kept)\n"
    "  --pending            the network requests instead of the log\n";

static int
egress_print_cb(const struct netctl_event *e, void *arg)
{
	const bool *json = arg;
	char *t = netctl_text_event(e, *json);

	puts(t);
	free(t);
	return 0;
}

static int
egress_edit(struct client *cl, bool add, const char *entry, lz_err_t *err)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	struct egress_entry e;

	/* Said here, before a round trip, exactly as the sidecar would say it. */
	if (egress_entry_parse(entry, &e, err) < 0)
		return -1;
	netctl_encode_egress_edit(&b, add, entry);
	return client_request(cl, &b, PROTO_OK, 30000, &h, &p, err);
}

/* One frame of the egress log: events are printed, anything else skipped. */
static void
egress_frame_cb(const struct proto_header *h, const uint8_t *p, void *arg)
{
	struct netctl_event e;

	if (h->type == NETCTL_EVENT && netctl_decode_event(p, h->length, &e, NULL) == 0)
		egress_print_cb(&e, arg);
}

static int
egress_stream(struct client *cl, bool follow, bool json, unsigned last, lz_err_t *err)
{
	struct proto_buf b = { 0 };

	netctl_encode_egress_req(&b, follow ? NETCTL_FOLLOW : 0, last);
	return client_stream(cl, &b, follow, egress_frame_cb, &json, err);
}

static int
egress_direct(const struct anchor *a, bool json, unsigned last, lz_err_t *err)
{
	struct store *st = NULL;
	int ret;

	if (access(a->state_db, F_OK) < 0)
		return lz_err_sys(err, errno, "no egress log for domain %s (%s)", a->hash, a->state_db);
	if (store_open(a->state_db, &st, err) < 0)
		return -1;
	ret = egress_log_list(st, last, egress_print_cb, &json, err);
	store_close(st);
	return ret;
}

/* "deny 12" answers request 12; "deny 10.0.0.0/8" removes an entry. */
static bool
egress_is_id(const char *s)
{
	return s[0] != '\0' && strspn(s, "0123456789") == strlen(s);
}

/* What a verb runs with: its argument, the options, the connection. */
struct egress_ctx {
	const char *arg;	/* the verb's one argument; NULL for grants and the log */
	bool json, follow, pending, yes_broad;
	const char *widen;
	int scope;		/* NETREQ_SCOPE_*: --scope, once by default */
	unsigned last;		/* -n */
	struct client *cl;	/* NULL: no coordinator runs (the verb can do without) */
	struct cfg *cfg;
	struct anchor *a;
};

#define EGRESS_V_NOARG	0x1	/* takes no argument (else exactly one) */
#define EGRESS_V_JSON	0x2	/* --json goes with it */
#define EGRESS_V_GRANT	0x4	/* --scope, --widen and --yes-broad go with it */

/* One verb of `lazaret egress VERB [ARG]`, like git's commands[]. */
struct egress_verb {
	const char *name;
	/* NULL, or whether ARG is this verb's (two verbs share "deny"). */
	bool (*fits)(const char *arg);
	const char *takes;	/* "VERB takes ..." when the count is wrong */
	unsigned flags;		/* EGRESS_V_* */
	/* NULL: it runs without a coordinator too; else why it cannot. */
	const char *needs_coord;
	int (*run)(const struct egress_ctx *, lz_err_t *err);
};

static int
egress_verb_edit(const struct egress_ctx *o, bool add, lz_err_t *err)
{
	if (egress_edit(o->cl, add, o->arg, err) < 0)
		return -1;
	fprintf(stderr, "%s %s for this run\n", add ? "allowed" : "denied", o->arg);
	return 0;
}

static int
egress_verb_allow(const struct egress_ctx *o, lz_err_t *err)
{
	return egress_verb_edit(o, true, err);
}

static int
egress_verb_deny_entry(const struct egress_ctx *o, lz_err_t *err)
{
	return egress_verb_edit(o, false, err);
}

static int
egress_verb_approve(const struct egress_ctx *o, lz_err_t *err)
{
	return egress_decide(o->cl, o->arg, o->scope, o->widen, o->yes_broad, err);
}

static int
egress_verb_deny_id(const struct egress_ctx *o, lz_err_t *err)
{
	return egress_decide(o->cl, o->arg, NETREQ_SCOPE_DENY, NULL, false, err);
}

static int
egress_verb_grants(const struct egress_ctx *o, lz_err_t *err)
{
	return egress_grants(o->cl, o->cfg, o->a->profile, o->json, err);
}

static int
egress_verb_revoke(const struct egress_ctx *o, lz_err_t *err)
{
	return egress_revoke(o->cl, o->cfg, o->a, o->arg, err);
}

/* No verb: the log (through the coordinator, else from state.db), or the
 * requests with --pending. */
static int
egress_verb_log(const struct egress_ctx *o, lz_err_t *err)
{
	if (o->pending)
		return egress_pending(o->cl, o->json, o->follow, err);
	if (o->cl != NULL)
		return egress_stream(o->cl, o->follow, o->json, o->last, err);
	return egress_direct(o->a, o->json, o->last, err);
}

#define EGRESS_EDIT_NEEDS "lazaret egress allow/deny changes a running domain; put the " \
	"entry in allow_egress to use it next time"
#define EGRESS_REQ_NEEDS "requests exist only while a domain runs"

static const struct egress_verb egress_verbs[] = {
	{ "allow", NULL, "one ENTRY", 0, EGRESS_EDIT_NEEDS, egress_verb_allow },
	{ "deny", egress_is_id, "one request ID", 0, EGRESS_REQ_NEEDS, egress_verb_deny_id },
	{ "deny", NULL, "one ENTRY", 0, EGRESS_EDIT_NEEDS, egress_verb_deny_entry },
	{ "approve", NULL, "one request ID", EGRESS_V_GRANT, EGRESS_REQ_NEEDS,
	    egress_verb_approve },
	{ "grants", NULL, "no argument", EGRESS_V_NOARG | EGRESS_V_JSON, NULL,
	    egress_verb_grants },
	{ "revoke", NULL, "one ENTRY or index", 0, NULL, egress_verb_revoke },
};

/* The verb argv[optind] names (NULL: none, the log), its argument checked;
 * 0, or the usage error's exit code. */
static int
egress_verb_find(int argc, char **argv, const struct egress_ctx *o, bool lines,
    const struct egress_verb **out, const char **arg)
{
	const char *name, *next;
	const struct egress_verb *v = NULL;

	*out = NULL;
	*arg = NULL;
	if (optind >= argc)
		return 0;
	name = argv[optind];
	next = optind + 1 < argc ? argv[optind + 1] : NULL;
	for (size_t i = 0; i < sizeof egress_verbs / sizeof egress_verbs[0] && v == NULL; i++)
		if (strcmp(egress_verbs[i].name, name) == 0 &&
		    (egress_verbs[i].fits == NULL || (next != NULL && egress_verbs[i].fits(next))))
			v = &egress_verbs[i];
	if (v == NULL)
		return cli_usage_error("egress", EGRESS_USAGE, "unknown action '%s'", name);
	if ((v->flags & EGRESS_V_NOARG) ? optind + 1 != argc : optind + 2 != argc)
		return cli_usage_error("egress", EGRESS_USAGE, "%s takes %s", name, v->takes);
	if (o->follow || lines || o->pending || (o->json && !(v->flags & EGRESS_V_JSON)))
		return cli_usage_error("egress", EGRESS_USAGE, "--follow, -n and --pending "
		    "show the log or the requests; they do not go with %s", name);
	*out = v;
	*arg = (v->flags & EGRESS_V_NOARG) ? NULL : next;
	return 0;
}

/* The options that do not go with what was asked for; 0 or the exit code. */
static int
egress_check_opts(const struct egress_verb *v, struct egress_ctx *o, const char *scope_s,
    const char *lines)
{
	if ((scope_s != NULL || o->widen != NULL || o->yes_broad) &&
	    (v == NULL || !(v->flags & EGRESS_V_GRANT)))
		return cli_usage_error("egress", EGRESS_USAGE, "--scope, --widen and --yes-broad "
		    "go with approve ID");
	if (scope_s != NULL) {
		o->scope = netreq_scope_parse(scope_s);
		if (o->scope < 0 || o->scope == NETREQ_SCOPE_DENY)
			return cli_usage_error("egress", EGRESS_USAGE, "--scope: '%s' is not once, run "
			    "or profile", scope_s);
	}
	if (o->widen != NULL && o->scope == NETREQ_SCOPE_ONCE)
		return cli_usage_error("egress", EGRESS_USAGE, "--widen makes a grant: it goes with "
		    "--scope run or --scope profile");
	if (o->pending && lines != NULL)
		return cli_usage_error("egress", EGRESS_USAGE, "-n goes with the log, not --pending");
	if (lines != NULL) {
		char *end;
		unsigned long n = strtoul(lines, &end, 10);

		if (*lines == '\0' || *end != '\0' || n > 1000000)
			return cli_usage_error("egress", EGRESS_USAGE, "-n: '%s' is not a count", lines);
		o->last = (unsigned)n;
	}
	return 0;
}

/* Why v (NULL: the log) cannot run without a coordinator, or NULL when it can. */
static const char *
egress_needs_coord(const struct egress_verb *v, const struct egress_ctx *o)
{
	if (v != NULL)
		return v->needs_coord;
	if (!o->follow && !o->pending)
		return NULL;
	return o->pending ? EGRESS_REQ_NEEDS : "--follow";
}

int
cmd_egress(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL, *lines = NULL, *scope_s = NULL;
	struct egress_ctx o = { .scope = NETREQ_SCOPE_ONCE, .last = 50 };
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_FLAG("json", 0, &o.json),
		CLI_FLAG("follow", 'f', &o.follow), CLI_STR("lines", 'n', &lines),
		CLI_FLAG("pending", 0, &o.pending), CLI_STR("scope", 0, &scope_s),
		CLI_STR("widen", 0, &o.widen), CLI_FLAG("yes-broad", 0, &o.yes_broad), CLI_END,
	};
	const struct cli_cmd cmd = { "egress", EGRESS_USAGE, egress_help, opts, true };
	const struct egress_verb *v;
	lz_err_t err = LZ_ERR_INIT;
	const char *why;
	int r, rc = 1;

	if ((r = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return r;
	if ((r = egress_verb_find(argc, argv, &o, lines != NULL, &v, &o.arg)) != 0 ||
	    (r = egress_check_opts(v, &o, scope_s, lines)) != 0)
		return r;
	if ((r = cli_connect(profile, workspace, &o.cfg, &o.a, &o.cl, &err)) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (r > 0) {
		if ((why = egress_needs_coord(v, &o)) == NULL) {
			lz_err_clear(&err);
		} else {
			lz_err_wrap(&err, "no coordinator runs for this domain (%s)", why);
			rc = cli_fail(&err);
			goto out;
		}
	}
	if ((v != NULL ? v->run(&o, &err) : egress_verb_log(&o, &err)) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	rc = 0;
out:
	client_free(o.cl);
	anchor_free(o.a);
	cfg_free(o.cfg);
	return rc;
}
