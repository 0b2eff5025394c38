/* sentry.h - the Git Sentry and branch isolation (spec 4.2, DESIGN "Git
 * Sentry" and "Branch isolation"): the agent's own git repository, the
 * mounts that show it at /workspace, and the verified import of its
 * branches and tags into the host repository.
 *
 * sentry_prepare() runs host git (argv only, never on the user's own index
 * or working tree), creates what must exist before the container starts
 * and returns the mounts in podman order. See sentry.c for the theory of
 * operation; the parts are sentry-repo.c (host probe, private repository),
 * sentry-import.c, sentry-fetch.c and sentry-refs.c (import; sentry-lock.c
 * its lock), sentry-guard.c (nested .git,
 * submodule placeholders, quarantine), sentry-workspace.c (which
 * directories may be workspaces), sentry-watch.c (import on ref change),
 * sentry-util.c (tools).
 */
#ifndef LZ_SENTRY_H
#define LZ_SENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "anchor.h"
#include "sandbox/driver.h"
#include "err.h"

#define SENTRY_WORKSPACE_DST "/workspace"
/* The host's object directory, read-only, at a path that names no host path. */
#define SENTRY_OBJECTS_DST "/run/lazaret/git-objects"
/* The object dirs the host repository borrows itself, read-only: <dst>/<i>. */
#define SENTRY_ALTERNATES_DST "/run/lazaret/git-alternates"
/* The host's git settings the agent sees, read-only (sentry-hostview.c). */
#define SENTRY_HOSTCFG_DST "/run/lazaret/host-git"
/* The agent's gitdir when /workspace/.git is a file (a linked worktree in
 * direct mode). */
#define SENTRY_GITDIR_DST "/run/lazaret/gitdir"

enum sentry_mode {
	SENTRY_ISOLATED,	/* the agent's own checkout under the Domain Root */
	SENTRY_DIRECT,		/* the host checkout itself at /workspace */
};

struct sentry_layout {
	bool is_git;
	char *notice;		/* user-facing note, or NULL */
	char *report;		/* what the agent left that the Sentry undid or
				 * refused (for the audit trail), or NULL */
	char *branch;		/* lazaret/agent-<profile>, or NULL */
	struct drv_mount *mounts;	/* in the order to pass to podman */
	size_t n_mounts;
	char **env;		/* "K=V" for every exec, NULL-terminated (may be NULL) */
	char *user_email;	/* user.email as git in the workspace reads it ("" for
				 * none; NULL when not read: no repository), for the
				 * agent's identity (review_ident_env) */
};

/* Prepare the workspace mounts for anchor a. On success *out is filled (free
 * with sentry_layout_clear). Creates the agent's repository and branch when
 * missing, imports what a crashed session left; never touches the host's
 * HEAD, index or working tree. */
int sentry_prepare(const struct anchor *a, enum sentry_mode mode,
    struct sentry_layout *out, lz_err_t *err);
/* The probe sentry_prepare starts with (one git: is the workspace a
 * checkout's top level, its git dirs, HEAD's commit), begun early so that
 * it runs beside the coordinator's own start-up (locks, state store). Hand
 * it to sentry_prepare_probed, which takes it, or to sentry_job_free (waits
 * for it). */
struct sentry_job;
struct sentry_job *sentry_probe_begin(const struct anchor *a);
void sentry_job_free(struct sentry_job *);
int sentry_prepare_probed(const struct anchor *a, enum sentry_mode mode, struct sentry_job *probe,
    struct sentry_layout *out, lz_err_t *err);
void sentry_layout_clear(struct sentry_layout *);

/* Record limits.git_object (bytes, 0: none) for the domain's imports: a
 * ref that reaches a blob larger is left out (audited). Unset: 100 MiB. */
int sentry_object_cap_set(const struct anchor *a, uint64_t cap, lz_err_t *err);
/* The cap recorded for the domain whose root is domain_root (reviews). */
uint64_t sentry_object_cap_of(const char *domain_root);

/* Import the agent's branches and tags into the host repository (see
 * sentry-import.c). *notice (may be NULL) gains what was left out. */
int sentry_import(const struct anchor *a, char **notice, lz_err_t *err);

/* How long an import waits for reviews, and a review for an import. */
#define SENTRY_LOCK_MS 30000
/* Take the domain's import lock (sentry-lock.c): exclusive to write the
 * host's Lazaret refs, shared to read them; wait up to timeout_ms. *fd
 * holds it (close to drop); -1 when the domain has no Sentry state yet. */
int sentry_import_lock(const char *domain_root, bool exclusive, int timeout_ms, int *fd,
    lz_err_t *err);

/* Teardown: the last import, any .git the agent created quarantined, its
 * refs scrubbed. The checkout, repository and branches (the user's data)
 * are kept. *notice (may be NULL) gains what was done. */
int sentry_release(const struct anchor *a, char **notice, lz_err_t *err);

/* "isolated" / "direct" -> mode; -1 with err for anything else. */
int sentry_mode_parse(const char *s, enum sentry_mode *mode, lz_err_t *err);

/* The workspace a user named (a path that exists) as lazaret uses it: the
 * top level of the git repository holding it, else itself; canonical.
 * Refuses $HOME, / and a directory holding the Storage Root, the config
 * directory, socket_dir, ~/.ssh or container storage unless allow_unsafe. */
int sentry_workspace_resolve(const char *path, const char *data_root, const char *socket_dir,
    bool allow_unsafe, char **out, lz_err_t *err);
/* As sentry_workspace_resolve for a path that is the workspace already
 * (the top level a lazaret CLI resolved and passed to its coordinator):
 * canonical, no git run. Whether it is a work tree's top level, sentry_prepare
 * checks itself (a subdirectory is refused there). */
int sentry_workspace_exact(const char *path, const char *data_root, const char *socket_dir,
    bool allow_unsafe, char **out, lz_err_t *err);
/* sentry_workspace_resolve's refusals alone, for ws canonical (an anchor's). */
int sentry_workspace_check(const char *ws, const char *data_root, const char *socket_dir,
    bool allow_unsafe, lz_err_t *err);

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
