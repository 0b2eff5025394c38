/* cmd-egress.c - lazaret egress: the domain's egress log, and run-time
 * changes to its network policy (the Network Sidecar). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "commands.h"
#include "egress.h"
#include "netctl-text.h"
#include "store/egress-log.h"
#include "store/store.h"

#define EGRESS_USAGE "lazaret egress [-p P] [-w DIR] [--follow] [--json] [-n N]\n" \
	"   or: lazaret egress [-p P] [-w DIR] allow|deny ENTRY"

static const char egress_help[] =
    "Show the domain's egress log: every new flow the network sidecar allowed\n"
    "or blocked (time, protocol, destination, the name it was learned from,\n"
    "the rule) and every DNS query it refused. Read through the running\n"
    "coordinator, or from state.db when none runs.\n\n"
    "`allow ENTRY` / `deny ENTRY` add or remove one policy entry of the running\n"
    "domain, for this run only (put it in allow_egress to keep it). ENTRY is a\n"
    "CIDR or a domain name, with optional ports: 10.0.0.0/8:5432,\n"
    "github.com:22,443, *.npmjs.org, [fd00::/8]:443.\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory)\n"
    "  -f, --follow         keep printing events as they happen\n"
    "  --json               one JSON object per event\n"
    "  -n, --lines N        the last N events (default 50; 0: all kept)\n";

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

static int
egress_stream(struct client *cl, bool follow, bool json, unsigned last, lz_err_t *err)
{
	struct proto_buf b = { 0 };

	netctl_encode_egress_req(&b, follow ? NETCTL_FOLLOW : 0, last);
	if (client_send(cl, &b, err) < 0)
		return -1;
	for (;;) {
		struct proto_header h;
		const uint8_t *p;
		struct netctl_event e;
		int r = client_recv(cl, follow ? -1 : 30000, &h, &p, err);

		if (r <= 0)
			return r < 0 ? -1 : 0;
		if (h.type == PROTO_ERROR)
			return client_error_frame(p, h.length, err);
		if (h.type == PROTO_OK) {
			fflush(stdout);
			if (!follow)
				return 0;
			continue;
		}
		if (h.type != NETCTL_EVENT || netctl_decode_event(p, h.length, &e, err) < 0)
			continue;
		egress_print_cb(&e, &json);
		if (follow)
			fflush(stdout);
	}
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

int
cmd_egress(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL, *lines = NULL;
	bool json = false, follow = false;
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_FLAG("json", 0, &json),
		CLI_FLAG("follow", 'f', &follow), CLI_STR("lines", 'n', &lines), CLI_END,
	};
	const struct cli_cmd cmd = { "egress", EGRESS_USAGE, egress_help, opts, true };
	struct client *cl = NULL;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT;
	const char *verb = NULL, *entry = NULL;
	unsigned long last = 50;
	int r, rc = 1;

	if ((r = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return r;
	if (optind < argc) {
		verb = argv[optind];
		if (strcmp(verb, "allow") != 0 && strcmp(verb, "deny") != 0)
			return cli_usage_error("egress", EGRESS_USAGE, "unknown action '%s'", verb);
		if (optind + 2 != argc)
			return cli_usage_error("egress", EGRESS_USAGE, "%s takes one ENTRY", verb);
		entry = argv[optind + 1];
		if (json || follow || lines != NULL)
			return cli_usage_error("egress", EGRESS_USAGE, "--json, --follow and -n show "
			    "the log; they do not go with %s", verb);
	}
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
		if (verb != NULL || follow) {
			lz_err_wrap(&err, "no coordinator runs for this domain (%s changes a running "
			    "domain; put the entry in allow_egress to use it next time)",
			    verb != NULL ? "lazaret egress allow/deny" : "--follow");
			rc = cli_fail(&err);
			goto out;
		}
		lz_err_clear(&err);
	}
	if (verb != NULL)
		r = egress_edit(cl, strcmp(verb, "allow") == 0, entry, &err);
	else if (cl != NULL)
		r = egress_stream(cl, follow, json, (unsigned)last, &err);
	else
		r = egress_direct(a, json, (unsigned)last, &err);
	if (r < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (verb != NULL)
		fprintf(stderr, "%s %s for this run\n", strcmp(verb, "allow") == 0 ? "allowed" : "denied",
		    entry);
	rc = 0;
out:
	client_free(cl);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
