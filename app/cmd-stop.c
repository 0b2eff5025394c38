/* cmd-stop.c - lazaret stop: tear the domain's sandbox down. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "client.h"

#define STOP_USAGE "lazaret stop [--profile P] [--workspace DIR]"

int
cmd_stop(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile = NULL, *workspace = NULL;
	struct client *cl = NULL;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;
	int c, rc = 1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+p:w:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': profile = optarg; break;
		case 'w': workspace = optarg; break;
		case 'c': setenv(CLI_CONFIG_ENV, optarg, 1); break;
		case 'h':
			printf("usage: %s\n\n"
			    "Ask the domain's Session Coordinator to tear down: every session\n"
			    "ends (its clients see it exit), the container is removed, the\n"
			    "mounts released and the sockets removed. Waits until it is done.\n"
			    "Exit status 1 when no coordinator runs.\n\n"
			    "  -p, --profile P      agent profile (default: \"default\")\n"
			    "  -w, --workspace DIR  workspace (default: the current directory)\n",
			    STOP_USAGE);
			return 0;
		default:
			return cli_usage_error("stop", STOP_USAGE, "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("stop", STOP_USAGE, "unexpected argument '%s'", argv[optind]);
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
