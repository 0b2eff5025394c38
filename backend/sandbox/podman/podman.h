/* podman.h - the Podman driver's pieces that tests and `lazaret doctor` use
 * directly; the coordinator goes through podman_ops (driver.h).
 */
#ifndef LZ_PODMAN_H
#define LZ_PODMAN_H

#include <stdbool.h>

#include "sandbox/driver.h"
#include "err.h"

/* The runtime name registered by scripts/setup-host (a wrapper that adds
 * --ignore-cgroups --network=host to /usr/bin/runsc). */
#define PODMAN_RUNTIME "runsc"
/* Where the host's static catatonit is bind-mounted as PID 1 ("-P": pause
 * mode, reaps orphans); works with any image, even one without sleep. */
#define PODMAN_INIT_DST "/run/lazaret/init"

/* What podman says when its rootless pause process died under a runtime
 * directory that survived (processes killed, containers left "running"). */
#define PODMAN_STALE_MSG "podman's rootless user namespace is stale (its pause process is gone): " \
	"run `podman system migrate` (stops your running containers)"

/* True when errout is podman's "invalid internal status ... pause process". */
bool podman_stale_ns(const char *errout);

/* The host's catatonit (static), or NULL when none is installed. */
const char *podman_init_path(void);

/* One --mount value in podman's CSV syntax; fields holding ',' or '"' are
 * quoted. Rejects relative paths and control characters. Caller frees *out. */
int podman_mount_arg(const struct drv_mount *m, char **out, lz_err_t *err);

/* Argv of `podman run -d ...` for spec, with init_host bind-mounted as PID 1.
 * Caller frees *argv with lz_strv_free. */
int podman_run_argv(const struct drv_spec *spec, const char *init_host,
    char ***argv, lz_err_t *err);

/* Argv of `podman exec ...` (the exec_argv op). */
int podman_exec_argv(const struct drv_exec *ex, char ***argv, lz_err_t *err);

/* `podman inspect` .State.Status text -> state ("running" -> RUNNING, any
 * other known status -> STOPPED). */
enum drv_state podman_state_parse(const char *status);

#endif
