/* cmd-coordinator.c - lazaret coordinator: the hidden entry the leader spawns
 * (detached, stdio on /dev/null, the ready pipe on --ready-fd). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "coord/coord.h"
#include "steps.h"
#include "trace.h"

#define COORDINATOR_USAGE "lazaret coordinator --profile P --workspace DIR " \
	"[--mode isolated|direct] [--ready-fd N]"

int
cmd_coordinator(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "mode", required_argument, NULL, 'm' },
		{ "config", required_argument, NULL, 'c' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "allow-unsafe-workspace", no_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile = NULL, *workspace = NULL, *mode = "isolated";
	struct coord_opts o;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	struct cfg_resolved *res = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int c, ready_fd = -1, rc = 1;
	bool allow_unsafe = false;
	char *end;
	long v;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'p': profile = optarg; break;
		case 'w': workspace = optarg; break;
		case 'm': mode = optarg; break;
		case 'U': allow_unsafe = true; break;
		case 'c': setenv(CLI_CONFIG_ENV, optarg, 1); break;
		case 'r':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || v < 3 || v > 1024)
				return cli_usage_error("coordinator", COORDINATOR_USAGE,
				    "bad --ready-fd '%s'", optarg);
			ready_fd = (int)v;
			/* Our children (podman, fuse-overlayfs daemons) must not hold it:
			 * the leader waits for its EOF. */
			if (fcntl(ready_fd, F_SETFD, FD_CLOEXEC) < 0)
				return cli_usage_error("coordinator", COORDINATOR_USAGE,
				    "--ready-fd %ld is not open", v);
			break;
		default:
			return cli_usage_error("coordinator", COORDINATOR_USAGE,
			    "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("coordinator", COORDINATOR_USAGE,
		    "unexpected argument '%s'", argv[optind]);
	lz_trace_start("coordinator");
	memset(&o, 0, sizeof o);
	o.ready_fd = ready_fd;
	if (cli_refuse_root(&err) < 0 || sentry_mode_parse(mode, &o.mode, &err) < 0 ||
	    cli_load_config(&cfg, &err) < 0 ||
	    cli_domain_exact(cfg, profile, workspace, &a, &res, &err) < 0 ||
	    sentry_workspace_check(a->workspace, cfg->data_root, cfg->esc_socket_dir,
	    allow_unsafe, &err) < 0) {
		if (ready_fd >= 0) {
			(void)!write(ready_fd, err.msg, strlen(err.msg));
			close(ready_fd);
		}
		rc = cli_fail(&err);
		goto out;
	}
	o.cfg = cfg;
	o.anchor = a;
	o.resolved = res;
	if (coord_main(&o, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	rc = 0;
out:
	cfg_resolved_free(res);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
