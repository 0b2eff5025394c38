/* doctor.h - `lazaret doctor`: is this host ready for rootless Podman + gVisor?
 *
 * Each check prints one line, "ok   WHAT: detail" or "FAIL WHAT: problem.
 * Fix: exact command", so a user can copy the fix. The parsers are separate
 * functions so that unit tests can feed them text.
 */
#ifndef LZ_DOCTOR_H
#define LZ_DOCTOR_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "config.h"

struct doctor_opts {
	const char *image;	/* the default profile's image */
	const char *user;	/* for the fix "sudo scripts/setup-host USER" */
	bool deep;		/* also start real containers (runsc and crun) */
	const struct cfg_limits *limits;	/* the default profile's, or NULL */
};

/* Run every check, one line each on out; returns the number that failed. */
int doctor_run(const struct doctor_opts *opts, FILE *out);

/* /etc/subuid-style content: the first range of user (by name or uid).
 * Returns true and fills start/count when there is one. */
bool doctor_subid_find(const char *content, const char *user, uid_t uid,
    unsigned long *start, unsigned long *count);

/* Propagation of the mount at "/" in /proc/self/mountinfo content (the last
 * such line: the one on top): "shared", "slave", "private" or NULL when "/"
 * is absent. Static string. */
const char *doctor_root_propagation(const char *mountinfo);

/* Check that dir is a usable XDG_RUNTIME_DIR for uid: a directory (not a
 * symlink) owned by uid, mode 0700. Returns true, or false with *problem
 * and *fix allocated (caller frees). */
bool doctor_runtime_dir_ok(const char *dir, uid_t uid, char **problem, char **fix);

#endif
