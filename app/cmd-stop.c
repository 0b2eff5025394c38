/* cmd-stop.c - lazaret stop: tear the domain's sandbox down. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "client.h"

#define STOP_USAGE "lazaret stop [--profile P] [--workspace DIR]"

static const char stop_help[] =
    "Ask the domain's Session Coordinator to tear down: every session\n"
    "ends (its clients see it exit), the container is removed, the\n"
    "mounts released and the sockets removed. Waits until it is done.\n"
    "Exit status 1 when no coordinator runs.\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory)\n";

int
cmd_stop(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL;
	const struct cli_opt opts[] = { CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_END };
	const struct cli_cmd cmd = { "stop", STOP_USAGE, stop_help, opts, false };
	struct client *cl = NULL;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;
	int r, rc = 1;

	if ((r = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return r;
	if (cli_connect(profile, workspace, &cfg, &a, &cl, &err) != 0) {
		rc = cli_fail(&err);
		goto out;
	}
	proto_encode_stop(&b);
	if (client_request(cl, &b, PROTO_OK, 30000, &h, &p, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	client_free(cl);
	cl = NULL;
	/* Done when the coordinator has removed everything and exited. */
	if (client_wait_coordinator_exit(a, 60000, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	printf("stopped domain %s (%s)\n", a->hash, a->container);
	rc = 0;
out:
	client_free(cl);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
