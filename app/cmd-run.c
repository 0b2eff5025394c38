/* cmd-run.c - lazaret run: a shell or a command in the domain's sandbox. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "sentry.h"
#include "xmalloc.h"

#define RUN_USAGE "lazaret run [--profile P] [--workspace DIR] [--mode isolated|direct] " \
	"[-T] [-- CMD [ARGS...]]"
#define RUN_RETRIES 3

static void
run_help(void)
{
	printf("usage: %s\n\n"
	    "Run an interactive shell (default) or CMD in the sandbox of the domain\n"
	    "(profile, workspace), starting its Session Coordinator and container when\n"
	    "none runs. With a terminal on stdin the session gets one (raw mode; window\n"
	    "size changes follow); without one, stdin, stdout and stderr stay apart and\n"
	    "EOF is passed on. The exit status is CMD's. The session ends when lazaret\n"
	    "exits; the sandbox is torn down when its last session ends.\n\n"
	    "  -p, --profile P      agent profile (default: \"default\")\n"
	    "  -w, --workspace DIR  workspace (default: the current directory)\n"
	    "  -m, --mode MODE      isolated (default: a private worktree on branch\n"
	    "                       lazaret/agent-<profile>) or direct (the checkout itself)\n"
	    "  -T, --no-tty         no terminal even when stdin is one\n"
	    "  --config FILE        configuration file\n", RUN_USAGE);
}

int
cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "mode", required_argument, NULL, 'm' },
		{ "config", required_argument, NULL, 'c' },
		{ "no-tty", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile = NULL, *workspace = NULL, *mode = "isolated";
	struct client_start start;
	struct client_run_opts ro;
	struct client *cl = NULL;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	enum sentry_mode sm;
	lz_err_t err = LZ_ERR_INIT;
	int c, rc = 1, status, attempt;
	bool no_tty = false;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+p:w:m:Th", opts, NULL)) != -1) {
		switch (c) {
		case 'p': profile = optarg; break;
		case 'w': workspace = optarg; break;
		case 'm': mode = optarg; break;
		case 'c': setenv(CLI_CONFIG_ENV, optarg, 1); break;
		case 'T': no_tty = true; break;
		case 'h': run_help(); return 0;
		default:
			return cli_usage_error("run", RUN_USAGE, "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (cli_refuse_root(&err) < 0 || sentry_mode_parse(mode, &sm, &err) < 0 ||
	    cli_load_config(&cfg, &err) < 0 ||
	    cli_domain(cfg, profile, workspace, &a, NULL, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	memset(&ro, 0, sizeof ro);
	ro.argv = optind < argc ? argv + optind : NULL;
	ro.direct = sm == SENTRY_DIRECT;
	ro.tty = !no_tty && isatty(STDIN_FILENO);
	start.mode = sm == SENTRY_DIRECT ? "direct" : "isolated";
	for (attempt = 0; ; attempt++) {
		if (client_connect(a, &start, &cl, &err) < 0) {
			rc = cli_fail(&err);
			goto out;
		}
		if (client_run(cl, &ro, &status, &err) == 0) {
			rc = status;
			break;
		}
		/* The coordinator was tearing down as we came: start a new one. */
		if (err.code != EAGAIN || attempt + 1 >= RUN_RETRIES) {
			rc = err.code == ECONNRESET ? 255 : 1;
			lz_err_print(&err);
			lz_err_clear(&err);
			break;
		}
		lz_err_clear(&err);
		client_free(cl);
		cl = NULL;
		(void)client_wait_coordinator_exit(a, 30000, NULL);
	}
out:
	client_free(cl);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
