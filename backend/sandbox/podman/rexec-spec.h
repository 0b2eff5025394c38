/* rexec-spec.h - the OCI process description (runsc exec --process) of a
 * session started the way `podman exec` starts one (rexec.h): the
 * container's own config.json `process` (user, capabilities, rlimits,
 * noNewPrivileges, apparmor...) with the exec's args, cwd, terminal and
 * environment. Pure: bytes in, JSON text out (tests/unit/test-rexec.c,
 * tests/fuzz/fuzz-rexec.c).
 */
#ifndef LZ_REXEC_SPEC_H
#define LZ_REXEC_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define REXEC_CONFIG_MAX	(1u << 20)	/* bytes of config.json read */
#define REXEC_SPEC_MAX		60000u		/* bytes of process JSON (a pipe holds 64 KiB) */

/* What an exec keeps of config.json's process. */
struct rexec_spec {
	char **keys;		/* members copied as they are (decoded names) */
	char **vals;		/* their canonical JSON values */
	size_t n;
	char **env;		/* the container's environment, in order */
	char *cap_bounding;	/* canonical JSON arrays, or NULL */
	char *cap_effective;
	char *cap_ambient;
	uint32_t uid;
};

/* Parse config.json text. -1 with err naming what is missing or wrong. */
int rexec_spec_parse(const uint8_t *buf, size_t len, struct rexec_spec *out, lz_err_t *err);
void rexec_spec_clear(struct rexec_spec *);

struct rexec_proc {
	const char *const *args;	/* the command (non-empty, NULL-terminated) */
	const char *const *env;	/* KEY=VALUE over the container's (NULL-terminated or NULL) */
	const char *env_lines;	/* more KEY=VALUE, one a line (the session secret), or NULL */
	const char *cwd;	/* NULL: the container's */
	bool terminal;
};

/* The process JSON for runsc exec (caller frees; it may hold a secret:
 * explicit_bzero before free). Environment as podman exec merges it: the
 * container's, each exec entry replacing the one of the same name, new
 * names appended; capabilities as podman exec sets them (root: effective
 * and permitted = bounding; another user: the container's effective set). */
int rexec_spec_process(const struct rexec_spec *, const struct rexec_proc *, char **json,
    lz_err_t *err);

#endif
