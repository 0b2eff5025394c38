/* rexec.h - sessions started with `runsc exec` directly, the Podman
 * driver's direct_open/direct_exec/direct_free (driver.h).
 *
 * `podman exec` costs a podman CLI start-up, a conmon and two more relays
 * of every byte (conmon's PTY, podman's attach socket). What it finally
 * runs is `RUNTIME [runtime args] exec --process SPEC ID` inside podman's
 * user namespace. rexec runs that itself, under `lazaret ns-exec` (the same
 * namespaces, a few ms), with SPEC built from the container's own
 * config.json (rexec-spec.h) and read from a pipe on fd 3, so the session
 * secret is on no command line and in no file. What it needs is read once
 * after the container started, from conmon's command line and the files
 * podman and runsc wrote for it; anything missing or unexpected leaves
 * podman exec as the way in (rexec_open says why).
 */
#ifndef LZ_REXEC_H
#define LZ_REXEC_H

#include <stdbool.h>
#include <stddef.h>

#include "sandbox/driver.h"
#include "err.h"

/* The conmon of container `name`, from its command line (NUL-separated
 * argv of cmdline_len bytes). Pure (unit-tested). */
struct rexec_conmon {
	char *id;		/* -c: 64 hex digits */
	char *bundle;		/* -b */
	char *runtime;		/* -r */
	char **runtime_args;	/* --runtime-arg values, conmon's log options removed */
};

/* 1: cmdline is the conmon of the container named name (its own, not an
 * exec's), *out filled (free with rexec_conmon_clear); 0: another process;
 * -1: looks like it but is malformed (err says how). */
int rexec_conmon_parse(const char *cmdline, size_t cmdline_len, const char *name,
    struct rexec_conmon *out, lz_err_t *err);
void rexec_conmon_clear(struct rexec_conmon *);

/* NULL with *why when runsc exec cannot be the way in; else *why says how
 * sessions start (sandbox-exec, or runsc exec and why). */
struct drv_direct *rexec_open(const char *name, char **why);
int rexec_exec(const struct drv_direct *, const struct drv_exec *, const char *secret_env,
    char ***argv, char **spec, lz_err_t *err);
void rexec_free(struct drv_direct *);

/* The container id rexec found (for the log). */
const char *rexec_id(const struct drv_direct *);
/* What a session runs: "sandbox-exec" or "runsc exec". */
const char *rexec_label(const struct drv_direct *);

/* True when sessions go through lazaret sandbox-exec, which hands the
 * session secret over as the command's fd 3 (runsc exec cannot). */
bool rexec_secret_fd(const struct drv_direct *);

#endif
