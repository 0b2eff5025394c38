/* cmd-run.c - lazaret run: a shell or a command in the domain's sandbox. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "sandbox/sentry.h"
#include "trace.h"
#include "xmalloc.h"

#define RUN_USAGE "lazaret run [--profile P] [--workspace DIR] [--mode isolated|direct] " \
	"[--allow-unsafe-workspace] [-T] [--] [CMD [ARG...]]"
#define RUN_RETRIES 3

static const char run_help[] =
    "Run an interactive shell (default) or CMD in the sandbox of the domain\n"
    "(profile, workspace), starting its Session Coordinator and container when\n"
    "none runs. With a terminal on stdin the session gets one (raw mode; window\n"
    "size changes follow); without one, stdin, stdout and stderr stay apart and\n"
    "EOF is passed on. The exit status is CMD's. The session ends when lazaret\n"
    "exits; the sandbox is torn down when its last session ends.\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory; inside a git\n"
    "                       repository, its top level)\n"
    "  -m, --mode MODE      isolated (default: the agent's own checkout and git\n"
    "                       repository, imported into branch lazaret/agent-<profile>)\n"
    "                       or direct (the agent edits the checkout itself)\n"
    "  --allow-unsafe-workspace  accept $HOME, / or a directory holding lazaret's\n"
    "                       data, config or sockets, ~/.ssh or container storage\n"
    "  -T, --no-tty         no terminal even when stdin is one\n"
    "  --config FILE        configuration file\n";

int
cmd_run(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL, *mode = "isolated";
	bool no_tty = false, allow_unsafe = false;
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_STR("mode", 'm', &mode), CLI_CONFIG,
		CLI_FLAG("no-tty", 'T', &no_tty),
		CLI_FLAG("allow-unsafe-workspace", 0, &allow_unsafe), CLI_END,
	};
	const struct cli_cmd cmd = { "run", RUN_USAGE, run_help, opts, true, true };
	struct client_start start;
	struct client_run_opts ro;
	struct client *cl = NULL;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	enum sentry_mode sm;
	char *ws = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int r, rc = 1, status, attempt;

	lz_trace_start("run");
	if ((r = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return r;
	if (cli_refuse_root(&err) < 0 || sentry_mode_parse(mode, &sm, &err) < 0 ||
	    cli_load_config(&cfg, &err) < 0 ||
	    cli_domain(cfg, profile, workspace, &a, NULL, &err) < 0 ||
	    sentry_workspace_resolve(a->workspace, cfg->data_root, cfg->esc_socket_dir,
	    allow_unsafe, &ws, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	lz_trace("configuration and domain");
	memset(&ro, 0, sizeof ro);
	ro.argv = optind < argc ? argv + optind : NULL;
	ro.direct = sm == SENTRY_DIRECT;
	ro.tty = !no_tty && isatty(STDIN_FILENO);
	start.mode = sm == SENTRY_DIRECT ? "direct" : "isolated";
	start.allow_unsafe = allow_unsafe;
	for (attempt = 0; ; attempt++) {
		if (client_connect(a, &start, &cl, &err) < 0) {
			rc = cli_fail(&err);
			goto out;
		}
		lz_trace("coordinator connected");
		if (client_run(cl, &ro, &status, &err) == 0) {
			rc = status;
			lz_trace("session ended (exit %d)", status);
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
	free(ws);
	client_free(cl);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
