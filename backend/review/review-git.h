/* review-git.h - git for the review gate, run so that nothing from the
 * repository can execute code (see review-git.c for how).
 *
 * Two ways to run git: in the user's repository (host: refs, merge, status)
 * and in a scratch repository that borrows the user's objects (scratch:
 * every diff, blob read and the agent checkout's uncommitted state), which
 * reads no configuration but ours.
 */
#ifndef LZ_REVIEW_GIT_H
#define LZ_REVIEW_GIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "host/proc.h"
#include "review/review-big.h"
#include "err.h"

struct review_git {
	char *ws;		/* the workspace: the user's checkout */
	char *common;		/* its common git dir, absolute */
	char *gitdir;		/* its own git dir (a linked worktree's), absolute */
	char *scratch;		/* the scratch gitdir (removed by review_git_free) */
	char **host_env;	/* NULL-terminated */
	char **scratch_env;
	int cat_in;		/* git cat-file --batch, started on first use */
	FILE *cat_out;
	pid_t cat_pid;
};

/* Open the repository of workspace ws and make the scratch repository.
 * A workspace that is no git checkout is an error saying so. */
int review_git_open(const char *ws, struct review_git **out, lz_err_t *err);
/* Only the host repository (refs, status: no scratch repository made):
 * review_git_run with host true. Cheap, for polling the refs. */
int review_git_open_host(const char *ws, struct review_git **out, lz_err_t *err);
void review_git_free(struct review_git *);

/* Run git with args (NULL-terminated, after "git" and the hardening
 * options) in the host repository or the scratch one. Returns 0 when git
 * ran (res->status tells how it ended). flags: PROC_INHERIT_*. work_tree
 * (scratch only, may be NULL) is the work tree git reads. */
int review_git_run(struct review_git *, bool host, const char *work_tree,
    const char *const *args, const char *input, int flags, struct proc_result *res,
    lz_err_t *err);
/* The argv (owned, NULL-terminated; free each string and the array) of
 * git args in the scratch repository, hardened as review_git_run's, for a
 * caller that runs git itself (the workbench streams a diff through
 * uv_spawn); *env gets the environment to run it with (g's). */
char **review_git_cmd(struct review_git *, const char *const *args, char ***env);
/* review_git_run needing exit 0 ("git <args[0]> failed (exit N): stderr"),
 * *out (may be NULL) its stdout with trailing newlines cut. */
int review_git_ok(struct review_git *, bool host, const char *work_tree,
    const char *const *args, char **out, lz_err_t *err);

/* Start git with args in the scratch repository, its stdout a pipe opened
 * as *out (read it to EOF, then review_git_wait). */
int review_git_pipe(struct review_git *, const char *const *args, FILE **out, pid_t *pid,
    lz_err_t *err);
/* Close out and wait for pid; the exit status (128+signal) or -1. */
int review_git_wait(FILE *out, pid_t pid);

/* The files of work_tree (no filter runs) as a tree in the scratch
 * repository: an index of tree start, then git add -A (so a file deleted
 * from start is gone). ignored: also the files its .gitignore names (the
 * agent writes .gitignore too); else as git status shows them. big (may be
 * NULL): files never read, each a placeholder blob instead. out takes the
 * hex id. */
int review_git_tree_of(struct review_git *, const char *work_tree, const char *start,
    bool ignored, const struct review_big *big, char out[65], lz_err_t *err);

/* surface_blob_fn (surface.h) over the scratch repository; arg is the
 * struct review_git. Only the first max bytes are kept. */
int review_git_blob_cb(void *arg, const char *oid, size_t max, uint8_t **buf, size_t *len,
    size_t *size, lz_err_t *err);

/* rm -rf path without following symlinks; -1 with errno on failure. */
int review_rmtree(const char *path);

#endif
