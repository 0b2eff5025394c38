/* cli.h - helpers shared by the lazaret subcommands (app/cmd-*.c). */
#ifndef LZ_CLI_H
#define LZ_CLI_H

#include <stdbool.h>

#include "anchor.h"
#include "config.h"
#include "err.h"

/* Environment variable that carries --config to subcommands and to the
 * coordinator the leader spawns (like podman's CONTAINERS_CONF). */
#define CLI_CONFIG_ENV "LAZARET_CONFIG"

/* Load the configuration: $LAZARET_CONFIG when set (from --config), else the
 * default file, else the embedded default. Warnings are printed to stderr. */
int cli_load_config(struct cfg **out, lz_err_t *err);

/* The Domain Anchor and resolved profile for (profile, workspace): profile
 * NULL picks the default, workspace NULL is the current directory. */
int cli_domain(const struct cfg *cfg, const char *profile, const char *workspace,
    struct anchor **a, struct cfg_resolved **r, lz_err_t *err);
/* cli_domain for the coordinator: workspace is the top level its CLI
 * resolved, taken as named (canonical) with no git run; the Sentry refuses
 * at prepare a workspace that is not a work tree's top level. */
int cli_domain_exact(const struct cfg *cfg, const char *profile, const char *workspace,
    struct anchor **a, struct cfg_resolved **r, lz_err_t *err);

struct client;

/* The start of a subcommand that talks to the domain's coordinator: refuse
 * root, load the configuration, resolve the domain of (profile, workspace)
 * and connect to it. Returns 0 connected; 1 when no coordinator listens
 * (ENOENT or ECONNREFUSED: *cfg and *a are set, *cl is NULL and err says
 * why); -1 on any other error. The caller frees *cl, *a and *cfg. */
int cli_connect(const char *profile, const char *workspace, struct cfg **cfg,
    struct anchor **a, struct client **cl, lz_err_t *err);

/* One option of a subcommand for cli_parse (git's parse-options): a table
 * instead of a getopt loop in every cmd-*.c. */
enum cli_opt_kind {
	CLI_OPT_STR,		/* takes an argument: *str = it */
	CLI_OPT_FLAG,		/* no argument: *flag = true */
	CLI_OPT_CONFIG,		/* --config FILE: exported as CLI_CONFIG_ENV */
};

struct cli_opt {
	const char *name;	/* long name; NULL ends the table */
	char short_name;	/* 0: long only */
	enum cli_opt_kind kind;
	const char **str;
	bool *flag;
};

#define CLI_STR(name, c, p)	{ (name), (c), CLI_OPT_STR, (p), NULL }
#define CLI_FLAG(name, c, p)	{ (name), (c), CLI_OPT_FLAG, NULL, (p) }
#define CLI_CONFIG		{ "config", 0, CLI_OPT_CONFIG, NULL, NULL }
/* -p/--profile P and -w/--workspace DIR: which domain. */
#define CLI_DOMAIN(p, w)	CLI_STR("profile", 'p', (p)), CLI_STR("workspace", 'w', (w))
#define CLI_END			{ NULL, 0, CLI_OPT_STR, NULL, NULL }
#define CLI_OPTS_MAX		15

/* A subcommand's command line: -h/--help is always there. */
struct cli_cmd {
	const char *name;	/* "status": errors read "lazaret status: ..." */
	const char *usage;	/* the usage line, without "usage: " */
	const char *help;	/* what --help prints after "usage: USAGE\n\n" */
	const struct cli_opt *opts;	/* at most CLI_OPTS_MAX, then CLI_END */
	bool operands;		/* operands allowed (else "unexpected argument") */
	bool stop_at_operand;	/* the first operand starts a command line of its
				 * own (run CMD ARGS): options end there; else
				 * options may follow operands (git, podman) */
};

/* cli_parse: the options are parsed, go on (optind is the first operand). */
#define CLI_GO_ON	(-1)

/* Parse argv (argv[0] the subcommand) against cmd; options and operands in
 * any order ("--" ends the options) unless cmd->stop_at_operand. Returns CLI_GO_ON, or the exit status: 0 after --help, 129 after a
 * usage error (unknown option, missing argument, unexpected operand). */
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv);

/* Usage error for subcommand cmd: prints "lazaret CMD: MSG" then the usage
 * line, returns 129 (git's usage exit code). */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Refuse uid 0 (Lazaret is rootless by design); returns 0 when fine. */
int cli_refuse_root(lz_err_t *err);

/* Print err and return its exit code. */
int cli_fail(lz_err_t *err);

#endif
