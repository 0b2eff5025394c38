/* cmd-config.c - lazaret config check [FILE]: validate and print. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli-suggest.h"
#include "commands.h"

#define CONFIG_USAGE "lazaret config check [--profile P] [--workspace DIR] [FILE]"

static const char config_check_help[] =
    "Validate the configuration (FILE, or --config, or the default\n"
    "file, or the embedded default) and print it resolved for one\n"
    "profile and workspace. Exit 0 when valid, 1 with the first error\n"
    "or when a file was refused for safety (a grants file that your\n"
    "Lazaret did not write is left out, with a warning).\n\n"
    "  -p, --profile P      profile to resolve (default: \"default\")\n"
    "  -w, --workspace DIR  workspace to resolve for (default: .)\n";

static int
config_check(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL;
	const struct cli_opt opts[] = { CLI_DOMAIN(&profile, &workspace), CLI_END };
	const struct cli_cmd cmd = { "config", CONFIG_USAGE, config_check_help, opts, true };
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	struct cfg_resolved *r = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int rc;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	if (argc - optind > 1)
		return cli_usage_error("config", CONFIG_USAGE, "too many arguments");
	if (optind < argc)
		setenv(CLI_CONFIG_ENV, argv[optind], 1);
	if (cli_load_config(&cfg, &err) < 0 ||
	    cli_domain(cfg, profile, workspace, &a, &r, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	/* A refused file was left out: the configuration is not what it says. */
	printf("# %s: %s\n", cfg->file, cfg->refused != NULL ? "valid, but files were refused "
	    "(see the warnings)" : "valid");
	cfg_print(stdout, cfg, r);
	rc = cfg->refused != NULL ? 1 : 0;
out:
	cfg_resolved_free(r);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}

/* Hidden: the profile names, one a line (bash completion asks). Quiet and
 * empty when the configuration does not load. */
static int
config_profiles(int argc, char **argv)
{
	const struct cli_opt opts[] = { CLI_END };
	const struct cli_cmd cmd = { "config", "lazaret config profiles", "Print the profile "
	    "names of the configuration, one a line.\n", opts, false };
	struct cfg *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;
	const char *path;
	size_t i;
	int rc;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	path = getenv(CLI_CONFIG_ENV);
	if (cfg_load(path != NULL && *path != '\0' ? path : NULL, &cfg, &err) < 0) {
		lz_err_clear(&err);
		return 1;
	}
	/* the file's own profiles (a kit's implicit one is not the file's) */
	for (i = 0; i < cfg->n_profiles; i++)
		if (!cfg->profiles[i].implicit)
			printf("%s\n", cfg->profiles[i].name);
	cfg_free(cfg);
	return 0;
}

int
cmd_config(int argc, char **argv)
{
	static const char *const subs[] = { "check" };
	int rc;

	if (argc < 2)
		return cli_usage_error("config", CONFIG_USAGE, "missing subcommand");
	if (strcmp(argv[1], "check") == 0)
		return config_check(argc - 1, argv + 1);
	if (strcmp(argv[1], "profiles") == 0)
		return config_profiles(argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		printf("usage: %s\n\n%s", CONFIG_USAGE, config_check_help);
		return 0;
	}
	rc = cli_usage_error("config", CONFIG_USAGE, "unknown subcommand '%s'", argv[1]);
	cli_suggest_print(argv[1], subs, sizeof subs / sizeof subs[0]);
	return rc;
}
