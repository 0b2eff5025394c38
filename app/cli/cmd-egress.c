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

/* The verbs: what each takes. */
enum egress_verb { EV_LOG, EV_ALLOW, EV_DENY_ENTRY, EV_APPROVE, EV_DENY_ID, EV_GRANTS, EV_REVOKE };

/* "deny 12" answers request 12; "deny 10.0.0.0/8" removes an entry. */
static bool
egress_is_id(const char *s)
{
	return s[0] != '\0' && strspn(s, "0123456789") == strlen(s);
}

int
cmd_egress(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL, *lines = NULL, *scope_s = NULL,
	    *widen = NULL;
	bool json = false, follow = false, pending = false, yes_broad = false;
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_FLAG("json", 0, &json),
		CLI_FLAG("follow", 'f', &follow), CLI_STR("lines", 'n', &lines),
		CLI_FLAG("pending", 0, &pending), CLI_STR("scope", 0, &scope_s),
		CLI_STR("widen", 0, &widen), CLI_FLAG("yes-broad", 0, &yes_broad), CLI_END,
	};
	const struct cli_cmd cmd = { "egress", EGRESS_USAGE, egress_help, opts, true };
	struct client *cl = NULL;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT;
	const char *verb = NULL, *arg = NULL;
	enum egress_verb ev = EV_LOG;
	unsigned long last = 50;
	int r, rc = 1, scope = NETREQ_SCOPE_ONCE;

	if ((r = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return r;
	if (optind < argc) {
		verb = argv[optind];
		if (strcmp(verb, "allow") == 0)
			ev = EV_ALLOW;
		else if (strcmp(verb, "deny") == 0)
			ev = optind + 1 < argc && egress_is_id(argv[optind + 1]) ? EV_DENY_ID :
			    EV_DENY_ENTRY;
		else if (strcmp(verb, "approve") == 0)
			ev = EV_APPROVE;
		else if (strcmp(verb, "grants") == 0)
			ev = EV_GRANTS;
		else if (strcmp(verb, "revoke") == 0)
			ev = EV_REVOKE;
		else
			return cli_usage_error("egress", EGRESS_USAGE, "unknown action '%s'", verb);
		if (ev == EV_GRANTS ? optind + 1 != argc : optind + 2 != argc)
			return cli_usage_error("egress", EGRESS_USAGE, "%s takes %s", verb,
			    ev == EV_GRANTS ? "no argument" : ev == EV_APPROVE || ev == EV_DENY_ID ?
			    "one request ID" : ev == EV_REVOKE ? "one ENTRY or index" : "one ENTRY");
		arg = ev == EV_GRANTS ? NULL : argv[optind + 1];
		if (follow || lines != NULL || pending || (json && ev != EV_GRANTS))
			return cli_usage_error("egress", EGRESS_USAGE, "--follow, -n and --pending "
			    "show the log or the requests; they do not go with %s", verb);
	}
	if ((scope_s != NULL || widen != NULL || yes_broad) && ev != EV_APPROVE)
		return cli_usage_error("egress", EGRESS_USAGE, "--scope, --widen and --yes-broad "
		    "go with approve ID");
	if (scope_s != NULL) {
		scope = netreq_scope_parse(scope_s);
		if (scope < 0 || scope == NETREQ_SCOPE_DENY)
			return cli_usage_error("egress", EGRESS_USAGE, "--scope: '%s' is not once, run "
			    "or profile", scope_s);
	}
	if (widen != NULL && scope == NETREQ_SCOPE_ONCE)
		return cli_usage_error("egress", EGRESS_USAGE, "--widen makes a grant: it goes with "
		    "--scope run or --scope profile");
	if (pending && lines != NULL)
		return cli_usage_error("egress", EGRESS_USAGE, "-n goes with the log, not --pending");
	if (lines != NULL) {
		char *end;

		last = strtoul(lines, &end, 10);
		if (*lines == '\0' || *end != '\0' || last > 1000000)
			return cli_usage_error("egress", EGRESS_USAGE, "-n: '%s' is not a count", lines);
	}
	if ((r = cli_connect(profile, workspace, &cfg, &a, &cl, &err)) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (r > 0) {
		if (ev == EV_LOG && !follow && !pending) {
			lz_err_clear(&err);
		} else if (ev == EV_GRANTS || ev == EV_REVOKE) {
			lz_err_clear(&err);
		} else {
			lz_err_wrap(&err, "no coordinator runs for this domain (%s)",
			    ev == EV_ALLOW || ev == EV_DENY_ENTRY ? "lazaret egress allow/deny changes "
			    "a running domain; put the entry in allow_egress to use it next time" :
			    pending || ev == EV_APPROVE || ev == EV_DENY_ID ? "requests exist only "
			    "while a domain runs" : "--follow");
			rc = cli_fail(&err);
			goto out;
		}
	}
	switch (ev) {
	case EV_ALLOW:
	case EV_DENY_ENTRY:
		r = egress_edit(cl, ev == EV_ALLOW, arg, &err);
		if (r == 0)
			fprintf(stderr, "%s %s for this run\n", ev == EV_ALLOW ? "allowed" : "denied", arg);
		break;
	case EV_APPROVE:
		r = egress_decide(cl, arg, scope, widen, yes_broad, &err);
		break;
	case EV_DENY_ID:
		r = egress_decide(cl, arg, NETREQ_SCOPE_DENY, NULL, false, &err);
		break;
	case EV_GRANTS:
		r = egress_grants(cl, cfg, a->profile, json, &err);
		break;
	case EV_REVOKE:
		r = egress_revoke(cl, cfg, a, arg, &err);
		break;
	case EV_LOG:
	default:
		if (pending)
			r = egress_pending(cl, json, follow, &err);
		else if (cl != NULL)
			r = egress_stream(cl, follow, json, (unsigned)last, &err);
		else
			r = egress_direct(a, json, (unsigned)last, &err);
		break;
	}
	if (r < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	rc = 0;
out:
	client_free(cl);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
