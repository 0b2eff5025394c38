/* lazaret.c - the lazaret command: global options and the subcommand table
 * (crun commands[], tmux cmd_entry). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli-suggest.h"
#include "commands.h"
#include "steps/steps.h"
#include "err.h"

struct lz_command {
	const char *name;
	int (*fn)(int, char **);
	int rootless;		/* refuses uid 0 */
	const char *help;	/* NULL: hidden */
};

static const struct lz_command lz_commands[] = {
	{ "run",	cmd_run,	1, "Start a shell or a command in the domain's sandbox" },
	{ "status",	cmd_status,	1, "Show this domain's coordinator, container and sessions" },
	{ "ls",		cmd_ls,		1, "List every live domain of yours" },
	{ "stop",	cmd_stop,	1, "Tear this domain's sandbox down" },
	{ "diff",	cmd_diff,	1, "Show the agent branch against its base, executable surface flagged" },
	{ "merge",	cmd_merge,	1, "Merge the reviewed agent branch into your branch" },
	{ "discard",	cmd_discard,	1, "Reset the agent branch to its base (old tip kept)" },
	{ "sync",	cmd_sync,	1, "Give the agent your latest work (host/<branch>; --reset: afresh)" },
	{ "audit",	cmd_audit,	1, "Show or verify this domain's audit trail" },
	{ "egress",	cmd_egress,	1, "Show the egress log; allow or deny an entry for this run" },
	{ "escalations", cmd_escalations, 1, "List the host commands waiting for you; approve or deny one" },
	{ "image",	cmd_image,	1, "Build or list the local sandbox images" },
	{ "doctor",	cmd_doctor,	1, "Check that this host can run rootless gVisor sandboxes" },
	{ "config",	cmd_config,	0, "Validate and print the configuration" },
	{ "domain",	cmd_domain,	0, "Print the Domain Anchor and the names derived from it" },
	{ "coordinator", cmd_coordinator, 1, NULL },	/* hidden: spawned by the leader */
	{ "guard",	cmd_guard,	1, NULL },	/* hidden: exec'd by the coordinator */
	{ "cgroup-exec", cmd_cgroup_exec, 1, NULL },	/* hidden: podman run in a domain's cgroups */
	{ "ns-exec",	cmd_ns_exec,	1, NULL },	/* hidden: podman unshare without podman */
	{ "sandbox-exec", cmd_sandbox_exec, 1, NULL },	/* hidden: a session without runsc exec */
	{ "disk-usage",	cmd_disk_usage,	1, NULL },	/* hidden: the disk watchdog's walk */
	{ "debug",	cmd_debug,	1, NULL },	/* hidden: print the sandbox mount layout */
	{ "driver",	cmd_driver,	1, NULL },	/* hidden: the container driver by hand */
};

#define LZ_N_COMMANDS (sizeof lz_commands / sizeof lz_commands[0])

static void
lz_usage(FILE *f)
{
	size_t i;

	fprintf(f,
	    "usage: lazaret [--config FILE] <command> [<args>]\n"
	    "       lazaret help [<command>] | --help | --version\n"
	    "\n"
	    "Run untrusted AI coding agents in rootless gVisor sandboxes.\n"
	    "\n"
	    "Commands:\n");
	for (i = 0; i < LZ_N_COMMANDS; i++)
		if (lz_commands[i].help != NULL)
			fprintf(f, "  %-10s %s\n", lz_commands[i].name, lz_commands[i].help);
	fprintf(f,
	    "\n"
	    "Global options:\n"
	    "  --config FILE  use FILE instead of $XDG_CONFIG_HOME/lazaret/config.yaml\n"
	    "  -h, --help     show this help\n"
	    "  --version      show the version\n"
	    "\n"
	    "See 'lazaret help <command>' for a command's options.\n");
}

/* git's answer to a mistyped command: exit 1, with the closest ones. */
static int
lz_not_a_command(const char *name)
{
	const char *names[LZ_N_COMMANDS];
	size_t i, n = 0;

	fprintf(stderr, "lazaret: '%s' is not a lazaret command. See 'lazaret --help'.\n", name);
	for (i = 0; i < LZ_N_COMMANDS; i++)
		if (lz_commands[i].help != NULL)	/* never suggest a hidden one */
			names[n++] = lz_commands[i].name;
	cli_suggest_print(name, names, n);
	return 1;
}

/* Whether argv (a subcommand's) asks for help before any "--": help works
 * everywhere, root included (git, podman). */
static int
lz_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
	return 0;
}

static const struct lz_command *
lz_command_find(const char *name)
{
	size_t i;

	for (i = 0; i < LZ_N_COMMANDS; i++)
		if (strcmp(lz_commands[i].name, name) == 0)
			return &lz_commands[i];
	return NULL;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct lz_command *cmd;
	lz_err_t err = LZ_ERR_INIT;
	int c, idx;

	opterr = 0;
	/* "+": stop at the first non-option, the subcommand owns the rest. */
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			setenv(CLI_CONFIG_ENV, optarg, 1);
			break;
		case 'h':
			lz_usage(stdout);
			return 0;
		case 'V':
			printf("lazaret version %s\n", LZ_VERSION);
			return 0;
		default:
			fprintf(stderr, "lazaret: unknown option: %s\n", argv[optind - 1]);
			lz_usage(stderr);
			return 129;
		}
	}
	if (optind >= argc) {
		lz_usage(stderr);
		return 129;
	}
	/* lazaret help [CMD]: git's spelling of lazaret CMD --help */
	if (strcmp(argv[optind], "help") == 0) {
		char *hv[] = { NULL, (char *)"--help", NULL };

		if (optind + 1 >= argc) {
			lz_usage(stdout);
			return 0;
		}
		if (optind + 2 < argc) {
			fprintf(stderr, "lazaret help: too many arguments\nusage: lazaret help [<command>]\n");
			return 129;
		}
		if ((cmd = lz_command_find(argv[optind + 1])) == NULL)
			return lz_not_a_command(argv[optind + 1]);
		hv[0] = argv[optind + 1];
		optind = 0;
		return cmd->fn(2, hv);
	}
	if ((cmd = lz_command_find(argv[optind])) == NULL)
		return lz_not_a_command(argv[optind]);
	/* (each command that acts refuses root again itself; hidden ones get no
	 * help, so they are refused here whatever their arguments) */
	if (cmd->rootless && (cmd->help == NULL || !lz_wants_help(argc - optind, argv + optind)) &&
	    cli_refuse_root(&err) < 0)
		return cli_fail(&err);
	idx = optind;
	optind = 0;	/* glibc: full getopt reset for the subcommand */
	return cmd->fn(argc - idx, argv + idx);
}
