/* cmd-guard.c - lazaret guard: the hidden entry the coordinator execs to
 * outlive it (backend/coord/guard.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "steps.h"
#include "coord/guard.h"

#define GUARD_USAGE "lazaret guard --fd N --profile P --workspace DIR --data-root DIR " \
	"--socket-dir DIR"

int
cmd_guard(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fd", required_argument, NULL, 'f' },
		{ "profile", required_argument, NULL, 'p' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "data-root", required_argument, NULL, 'd' },
		{ "socket-dir", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile = NULL, *workspace = NULL, *data_root = NULL, *socket_dir = NULL;
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int c, fd = -1, rc;
	char *end;
	long v;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || v < 3 || v > 1024 ||
			    fcntl((int)v, F_GETFD) < 0)
				return cli_usage_error("guard", GUARD_USAGE, "bad --fd '%s'", optarg);
			fd = (int)v;
			break;
		case 'p': profile = optarg; break;
		case 'w': workspace = optarg; break;
		case 'd': data_root = optarg; break;
		case 's': socket_dir = optarg; break;
		default:
			return cli_usage_error("guard", GUARD_USAGE, "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (fd < 0 || profile == NULL || workspace == NULL || data_root == NULL ||
	    socket_dir == NULL || optind < argc)
		return cli_usage_error("guard", GUARD_USAGE, "every option is required");
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (anchor_recorded(profile, workspace, data_root, socket_dir, &a, &err) < 0)
		return cli_fail(&err);
	rc = guard_main(fd, a);
	anchor_free(a);
	return rc;
}
