/* cli.c - helpers shared by the lazaret subcommands. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
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

int
cli_domain(const struct cfg *cfg, const char *profile, const char *workspace,
    struct anchor **a, struct cfg_resolved **r, lz_err_t *err)
{
	const struct cfg_profile *p;

	*a = NULL;
	if (r != NULL)
		*r = NULL;
	if ((p = cfg_profile_find(cfg, profile, err)) == NULL)
		return -1;
	if (anchor_new(p->name, workspace != NULL ? workspace : ".", cfg->data_root,
	    cfg->esc_socket_dir, a, err) < 0)
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

int
cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "lazaret %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s\nSee 'lazaret %s --help'.\n", usage, cmd);
	return 129;
}

int
cli_refuse_root(lz_err_t *err)
{
	if (geteuid() == 0)
		return lz_err_set(err, EPERM, "refusing to run as root: Lazaret is "
		    "rootless by design; run it as your normal user (prepare the host "
		    "once with 'sudo scripts/setup-host')");
	return 0;
}

int
cli_fail(lz_err_t *err)
{
	int rc = lz_err_exit_code(err);

	lz_err_print(err);
	lz_err_clear(err);
	return rc;
}
