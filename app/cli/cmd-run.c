/* cmd-run.c - lazaret run: a shell or a command in the domain's sandbox. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli-kit.h"
#include "client-run.h"
#include "client.h"
#include "commands.h"
#include "effcfg.h"
#include "sandbox/image/image.h"
#include "sandbox/limits.h"
#include "sandbox/podman/podman.h"
#include "strv.h"
#include "sandbox/sentry/sentry.h"
#include "trace.h"
#include "xmalloc.h"

#define RUN_USAGE "lazaret run [--profile P] [--workspace DIR] [--mode isolated|direct] " \
	"[--allow-unsafe-workspace] [-T] [--replace] [KIT] [--] [CMD [ARG...]]"
#define RUN_RETRIES 3

static const char run_help[] =
    "Run an interactive shell (default) or CMD in the sandbox of the domain\n"
    "(profile, workspace), starting its Session Coordinator and container when\n"
    "none runs. With a terminal on stdin the session gets one (raw mode; window\n"
    "size changes follow); without one, stdin, stdout and stderr stay apart and\n"
    "EOF is passed on. The exit status is CMD's. The session ends when lazaret\n"
    "exits; the sandbox is torn down when its last session ends.\n\n"
    "KIT, an agent kit's name before any \"--\" (claude, codex, shell: docs/kits.md),\n"
    "is the profile: its image is built when missing, its defaults sit under your\n"
    "profiles.KIT, and without CMD its agent starts. \"lazaret run -- CMD\" always\n"
    "runs CMD in the default profile.\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory; inside a git\n"
    "                       repository, its top level)\n"
    "  -m, --mode MODE      isolated (default: the agent's own checkout and git\n"
    "                       repository, imported into branch lazaret/agent-<profile>)\n"
    "                       or direct (the agent edits the checkout itself; what it\n"
    "                       writes there is not bounded by limits.disk)\n"
    "  --allow-unsafe-workspace  accept $HOME, / or a directory holding lazaret's\n"
    "                       data, config or sockets, ~/.ssh or container storage\n"
    "  -T, --no-tty         no terminal even when stdin is one\n"
    "  --replace            when the running sandbox was started from another\n"
    "                       configuration, stop it (its sessions end) and start\n"
    "                       one from yours; without it you are told what differs\n"
    "  --config FILE        configuration file\n";

/* Does the running sandbox run our configuration? Prints what differs and how
 * to apply ours; returns 1 when it differs, 0 when not (or unknown). */
static int
run_drift(struct client *cl, const struct anchor *a, const struct cfg_resolved *res,
    const char *mode, bool replace)
{
	_cleanup_free_ char *ours = NULL, *id = NULL, *running = NULL;
	lz_err_t err = LZ_ERR_INIT;
	char **lines = NULL;
	size_t i;
	int ret = 0;

	ours = effcfg_build(res, NULL, mode);
	if (client_config_diff(cl, ours, a->profile, &lines, &running, &err) < 0)
		goto out;	/* an older coordinator: nothing to compare */
	/* Its image id known (it did not just start for us): compare ours too, a
	 * rebuilt image is a difference (one podman call). */
	if (lines == NULL && strstr(running, "\nimage_id\t-\n") == NULL &&
	    podman_ops.image_id(res->profile->image, &id, &err) == 0) {
		free(ours);
		ours = effcfg_build(res, id, mode);
		if (effcfg_diff(running, strlen(running), ours, a->profile, &lines, &err) < 0)
			goto out;
	}
	if (lines == NULL)
		goto out;
	fprintf(stderr, "lazaret: %s domain %s runs with another configuration than yours:\n",
	    replace ? "replacing:" : "warning:", a->hash);
	for (i = 0; lines[i] != NULL; i++)
		fprintf(stderr, "lazaret:   %s\n", lines[i]);
	if (!replace)
		fprintf(stderr, "lazaret: it keeps running as it is; to apply yours: 'lazaret stop' "
		    "and run again, or 'lazaret run --replace' (ends its sessions)\n");
	ret = 1;
out:
	lz_strv_free(lines);
	lz_err_clear(&err);
	return ret;
}

/* STOP the running coordinator and wait until it is gone. */
static int
run_replace(struct client *cl, const struct anchor *a, lz_err_t *err)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;

	proto_encode_stop(&b);
	if (client_request(cl, &b, PROTO_OK, 30000, &h, &p, err) < 0)
		return -1;
	return client_wait_coordinator_exit(a, 60000, err);
}

/* Limits this host does not enforce, said once before the session starts
 * (cli_domain has printed the unset env:VAR warnings already). */
static void
run_warn(const struct cfg_resolved *res, bool direct)
{
	_cleanup_free_ char *why = NULL, *disk = NULL;
	struct limits_host h;

	limits_host_probe(&h);
	why = limits_unenforced(&h, &res->profile->limits);
	limits_host_clear(&h);
	if (why != NULL)
		fprintf(stderr, "lazaret: warning: %s\n", why);
	/* the bound counts the Domain Root; a direct checkout is the user's tree */
	if (direct && res->profile->limits.disk > 0) {
		disk = cfg_size_text(res->profile->limits.disk);
		fprintf(stderr, "lazaret: notice: --mode direct: what the agent writes in your "
		    "checkout is not bounded by limits.disk (%s), which counts the sandbox's "
		    "own files; use the default isolated mode for that bound\n", disk);
	}
}

/* `lazaret run KIT [--] [CMD]`: a kit's name as the first operand, not after
 * "--" and with no --profile, is the profile (optind moves past it and its
 * "--"). Only kit names: any other word stays the command it always was. */
static void
run_kit_operand(const struct cfg *cfg, int argc, char **argv, const char **profile)
{
	if (*profile != NULL || optind >= argc || strcmp(argv[optind - 1], "--") == 0 ||
	    cfg_kit_find(cfg, argv[optind]) == NULL)
		return;
	*profile = argv[optind++];
	if (optind < argc && strcmp(argv[optind], "--") == 0)
		optind++;
}

/* A kit's profile on the kit's own image: build it when missing (cached by
 * the recipe's hash: one `podman image exists` when it is there). */
static int
run_kit_image(const struct cfg *cfg, const struct cfg_profile *p, lz_err_t *err)
{
	if (p->kit == NULL || strcmp(p->image, p->kit->image) != 0)
		return 0;
	return cli_kit_build(cfg, p->kit, false, err);
}

int
cmd_run(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL, *mode = "isolated";
	bool no_tty = false, allow_unsafe = false, replace = false, checked = false;
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_STR("mode", 'm', &mode), CLI_CONFIG,
		CLI_FLAG("no-tty", 'T', &no_tty),
		CLI_FLAG("allow-unsafe-workspace", 0, &allow_unsafe),
		CLI_FLAG("replace", 0, &replace), CLI_END,
	};
	const struct cli_cmd cmd = { "run", RUN_USAGE, run_help, opts, true, true };
	struct client_start start;
	struct client_run_opts ro;
	struct client *cl = NULL;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	struct cfg_resolved *res = NULL;
	enum sentry_mode sm;
	lz_err_t err = LZ_ERR_INIT;
	int r, rc = 1, status, attempt;

	lz_trace_start("run");
	if ((r = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return r;
	if (cli_refuse_root(&err) < 0 || sentry_mode_parse(mode, &sm, &err) < 0 ||
	    cli_load_config(&cfg, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	run_kit_operand(cfg, argc, argv, &profile);
	if (cli_domain(cfg, profile, workspace, &a, &res, &err) < 0 ||
	    sentry_workspace_check(a->workspace, cfg->data_root, cfg->esc_socket_dir,
	    allow_unsafe, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	run_warn(res, sm == SENTRY_DIRECT);
	lz_trace("configuration and domain");
	if (run_kit_image(cfg, res->profile, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	memset(&ro, 0, sizeof ro);
	ro.argv = optind < argc ? argv + optind : NULL;
	if (ro.argv == NULL && res->profile->kit != NULL)
		ro.argv = res->profile->kit->command;
	ro.direct = sm == SENTRY_DIRECT;
	ro.tty = !no_tty && isatty(STDIN_FILENO);
	start.mode = sm == SENTRY_DIRECT ? "direct" : "isolated";
	start.allow_unsafe = allow_unsafe;
	for (attempt = 0; ; attempt++) {
		if (client_connect(a, &start, &cl, &err) < 0) {
			rc = cli_fail(&err);
			goto out;
		}
		/* Once: a coordinator we replaced (or that started for us) runs ours. */
		if (!checked) {
			checked = true;
			if (run_drift(cl, a, res, start.mode, replace) == 1 && replace) {
				r = run_replace(cl, a, &err);
				client_free(cl);
				cl = NULL;
				if (r < 0) {
					rc = cli_fail(&err);
					goto out;
				}
				attempt--;
				continue;
			}
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
	client_free(cl);
	cfg_resolved_free(res);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
