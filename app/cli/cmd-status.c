/* cmd-status.c - lazaret status: what the domain's coordinator runs. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "client.h"
#include "commands.h"
#include "jsonw.h"

#define STATUS_USAGE "lazaret status [--profile P] [--workspace DIR] [--json]"

static const char status_help[] =
    "Ask the domain's Session Coordinator what runs: container and its\n"
    "state, sessions (id, pid, command, attached clients), uptime.\n"
    "Exit status 0 when a coordinator runs, 1 when none does (like\n"
    "'podman container exists').\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory)\n"
    "  --json               print JSON\n";

static void
status_not_running(const struct anchor *a, bool json)
{
	/* Its lifetime lock held but no socket: between start-up and listening,
	 * or tearing down. */
	const char *what = client_coordinator_alive(a) ? "starting or stopping" : "not running";
	struct lz_jsonw w;
	char *s;

	if (!json) {
		printf("domain:      %s\nprofile:     %s\nworkspace:   %s\n"
		    "coordinator: %s\n", a->hash, a->profile, a->workspace, what);
		return;
	}
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "running"); lz_jsonw_bool(&w, false);
	lz_jsonw_key(&w, "coordinator"); lz_jsonw_str(&w, what);
	lz_jsonw_key(&w, "domain_hash"); lz_jsonw_str(&w, a->hash);
	lz_jsonw_key(&w, "profile"); lz_jsonw_str(&w, a->profile);
	lz_jsonw_key(&w, "workspace"); lz_jsonw_str(&w, a->workspace);
	lz_jsonw_obj_close(&w);
	s = lz_jsonw_steal(&w);
	printf("%s\n", s);
	free(s);
}

int
cmd_status(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL;
	struct client *cl = NULL;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;
	char *text = NULL;
	bool json = false;
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_FLAG("json", 0, &json), CLI_END,
	};
	const struct cli_cmd cmd = { "status", STATUS_USAGE, status_help, opts, false };
	int r, rc = 1;

	if ((r = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return r;
	if ((r = cli_connect(profile, workspace, &cfg, &a, &cl, &err)) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (r > 0) {
		lz_err_clear(&err);
		status_not_running(a, json);
		rc = 1;
		goto out;
	}
	proto_encode_status_req(&b, json ? PROTO_STATUS_JSON : PROTO_STATUS_TEXT);
	if (client_request(cl, &b, PROTO_STATUS, 30000, &h, &p, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (proto_decode_text(p, h.length, &text, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	fputs(text, stdout);
	if (json)
		fputc('\n', stdout);
	rc = 0;
out:
	free(text);
	client_free(cl);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
