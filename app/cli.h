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

struct client;

/* The start of a subcommand that talks to the domain's coordinator: refuse
 * root, load the configuration, resolve the domain of (profile, workspace)
 * and connect to it. Returns 0 connected; 1 when no coordinator listens
 * (ENOENT or ECONNREFUSED: *cfg and *a are set, *cl is NULL and err says
 * why); -1 on any other error. The caller frees *cl, *a and *cfg. */
int cli_connect(const char *profile, const char *workspace, struct cfg **cfg,
    struct anchor **a, struct client **cl, lz_err_t *err);

/* Usage error for subcommand cmd: prints "lazaret CMD: MSG" then the usage
 * line, returns 129 (git's usage exit code). */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Refuse uid 0 (Lazaret is rootless by design); returns 0 when fine. */
int cli_refuse_root(lz_err_t *err);

/* Print err and return its exit code. */
int cli_fail(lz_err_t *err);

#endif
