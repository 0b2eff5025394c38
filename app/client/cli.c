/* cli.c - helpers shared by the lazaret subcommands. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "sandbox/sentry/sentry.h"
#include "client.h"
#include "prefix.h"
#include "xmalloc.h"

static void
cli_print_warnings(char *const *w)
{
	size_t i;

	for (i = 0; w != NULL && w[i] != NULL; i++)
		fprintf(stderr, "lazaret: warning: %s\n", w[i]);
}

int
cli_load_config(struct cfg **out, lz_err_t *err)
{
	const char *path = getenv(CLI_CONFIG_ENV);
	char *abs;

	if (path != NULL && *path == '\0')
		path = NULL;
	/* Export it absolute: a coordinator this process spawns runs in /.
	 * A path that does not resolve is left for cfg_load to report. */
	if (path != NULL && (abs = realpath(path, NULL)) != NULL) {
		setenv(CLI_CONFIG_ENV, abs, 1);
		free(abs);
		path = getenv(CLI_CONFIG_ENV);
	}
	if (cfg_load(path, out, err) < 0)
		return -1;
	cli_print_warnings((*out)->warnings);
	return 0;
}

/* cli_domain; exact: workspace is the domain's own path (no git run). */
static int
cli_domain_as(const struct cfg *cfg, const char *profile, const char *workspace, bool exact,
    struct anchor **a, struct cfg_resolved **r, lz_err_t *err)
{
	const struct cfg_profile *p;
	_cleanup_free_ char *ws = NULL;
	const char *path = workspace != NULL ? workspace : ".";

	*a = NULL;
	if (r != NULL)
		*r = NULL;
	if ((p = cfg_profile_find(cfg, profile, err)) == NULL)
		return -1;
	/* A subdirectory of a repository is the repository's domain. */
	if ((exact ? sentry_workspace_exact(path, cfg->data_root, cfg->esc_socket_dir, true,
	    &ws, err) : sentry_workspace_resolve(path, cfg->data_root, cfg->esc_socket_dir, true,
	    &ws, err)) < 0 ||
	    anchor_new(p->name, ws, cfg->data_root, cfg->esc_socket_dir, a, err) < 0)
		return -1;
	if (r != NULL && cfg_profile_resolve(cfg, p, (*a)->workspace, (*a)->hash, r, err) < 0) {
		anchor_free(*a);
		*a = NULL;
		return -1;
	}
	cli_print_warnings(r != NULL ? (*r)->warnings : NULL);
	return 0;
}

int
cli_domain(const struct cfg *cfg, const char *profile, const char *workspace,
    struct anchor **a, struct cfg_resolved **r, lz_err_t *err)
{
	return cli_domain_as(cfg, profile, workspace, false, a, r, err);
}

int
cli_domain_exact(const struct cfg *cfg, const char *profile, const char *workspace,
    struct anchor **a, struct cfg_resolved **r, lz_err_t *err)
{
	return cli_domain_as(cfg, profile, workspace, true, a, r, err);
}

int
cli_connect(const char *profile, const char *workspace, struct cfg **cfg,
    struct anchor **a, struct client **cl, lz_err_t *err)
{
	if (cli_refuse_root(err) < 0 || cli_load_config(cfg, err) < 0 ||
	    cli_domain(*cfg, profile, workspace, a, NULL, err) < 0)
		return -1;
	if (client_connect(*a, NULL, cl, err) < 0)
		return err->code == ENOENT || err->code == ECONNREFUSED ? 1 : -1;
	return 0;
}

/* getopt_long's value for opts[i]: its short name, else one no char has. */
static int
cli_opt_val(const struct cli_opt *o, size_t i)
{
	return o->short_name != 0 ? o->short_name : 256 + (int)i;
}

int
cli_parse(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct option lo[CLI_OPTS_MAX + 2];
	char so[2 * CLI_OPTS_MAX + 4];
	const struct cli_opt *o;
	size_t i, k = 0;
	int c;

	if (cmd->stop_at_operand)
		so[k++] = '+';
	for (i = 0; cmd->opts[i].name != NULL; i++) {
		o = &cmd->opts[i];
		LZ_ASSERT(i < CLI_OPTS_MAX);
		lo[i] = (struct option){ o->name,
		    o->kind == CLI_OPT_FLAG ? no_argument : required_argument, NULL,
		    cli_opt_val(o, i) };
		if (o->short_name != 0) {
			so[k++] = o->short_name;
			if (o->kind != CLI_OPT_FLAG)
				so[k++] = ':';
		}
	}
	lo[i] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[i + 1] = (struct option){ NULL, 0, NULL, 0 };
	so[k++] = 'h';
	so[k] = '\0';
	opterr = 0;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (c == 'h') {
			printf("usage: %s\n\n%s", cmd->usage, cmd->help);
			return 0;
		}
		for (i = 0; cmd->opts[i].name != NULL && cli_opt_val(&cmd->opts[i], i) != c; i++)
			;
		o = &cmd->opts[i];
		if (o->name == NULL)	/* '?': unknown, or its argument is missing */
			return cli_usage_error(cmd->name, cmd->usage, "unknown option '%s'",
			    argv[optind - 1]);
		switch (o->kind) {
		case CLI_OPT_STR: *o->str = optarg; break;
		case CLI_OPT_FLAG: *o->flag = true; break;
		case CLI_OPT_CONFIG: setenv(CLI_CONFIG_ENV, optarg, 1); break;
		}
	}
	if (!cmd->operands && optind < argc)
		return cli_usage_error(cmd->name, cmd->usage, "unexpected argument '%s'",
		    argv[optind]);
	return CLI_GO_ON;
}

int
cli_refuse_root(lz_err_t *err)
{
	_cleanup_free_ char *sh = NULL;

	if (geteuid() != 0)
		return 0;
	sh = lz_prefix_setup_host();
	return lz_err_set(err, EPERM, "refusing to run as root: Lazaret is rootless by "
	    "design; run it as your normal user (prepare the host once with 'sudo %s')", sh);
}

int
cli_fail(lz_err_t *err)
{
	int rc = lz_err_exit_code(err);

	lz_err_print(err);
	lz_err_clear(err);
	return rc;
}
