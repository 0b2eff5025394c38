/* sentry.h - the Git Sentry and branch isolation (spec 4.2, DESIGN "Git
 * Sentry" and "Branch isolation"): the mounts that give the sandbox a
 * /workspace whose git metadata it can commit to but not subvert.
 *
 * sentry_prepare() runs host git (argv only, never on the user's own index or
 * working tree), creates what must exist on the host before the container
 * starts, and returns the mounts in podman order. See sentry.c for the theory
 * of operation.
 */
#ifndef LZ_SENTRY_H
#define LZ_SENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "anchor.h"
#include "sandbox/driver.h"
#include "err.h"

/* Where the host's common git dir appears in the container (isolated mode,
 * and direct mode when the workspace's .git is a file). */
#define SENTRY_GIT_DST "/run/lazaret/git"
#define SENTRY_WORKSPACE_DST "/workspace"

enum sentry_mode {
	SENTRY_ISOLATED,	/* a linked worktree under the Domain Root at /workspace */
	SENTRY_DIRECT,		/* the host checkout itself at /workspace */
};

struct sentry_layout {
	bool is_git;
	char *notice;		/* user-facing note, or NULL */
	char *branch;		/* lazaret/agent-<profile>, or NULL */
	struct drv_mount *mounts;	/* in the order to pass to podman */
	size_t n_mounts;
	char **env;		/* "K=V" for every exec, NULL-terminated (may be NULL) */
};

/* Prepare the workspace mounts for anchor a. On success *out is filled (free
 * with sentry_layout_clear). Creates the agent branch and its linked worktree
 * when missing; never touches the host's HEAD, index or working tree. */
int sentry_prepare(const struct anchor *a, enum sentry_mode mode,
    struct sentry_layout *out, lz_err_t *err);
void sentry_layout_clear(struct sentry_layout *);

/* Teardown: binds need no unmount; the worktree and branch (the user's data)
 * are kept. */
int sentry_release(const struct anchor *a, lz_err_t *err);

/* "isolated" / "direct" -> mode; -1 with err for anything else. */
int sentry_mode_parse(const char *s, enum sentry_mode *mode, lz_err_t *err);

/* Refuse a host path podman's CSV --mount syntax or fuse-overlayfs' option
 * syntax cannot carry (',', '"', ':' when colon_ok is false, control
 * characters); what names the path in the message ("workspace"). */
int sentry_path_check(const char *what, const char *path, bool colon_ok, lz_err_t *err);

/* mkdir -p of base/rel (base must exist; "" is /) with mode for the dirs it
 * creates; a non-directory on the way is an error. */
int sentry_mkdirs(const char *base, const char *rel, mode_t mode, lz_err_t *err);

/* Run argv (env NULL = ours) to completion. With status NULL a non-zero
 * exit is an error "<what> failed (exit N): <last fatal/error line>";
 * otherwise *status gets the exit status. *out (may be NULL) takes stdout,
 * trailing newlines cut. (Shared by the git and podman steps here and in
 * overlay.c.) */
int sentry_run(char *const argv[], char *const env[], const char *what, char **out,
    int *status, lz_err_t *err);

#endif
