/* proc.h - run a host program to completion and capture what it prints.
 *
 * Argv only, never a shell (uv_spawn on a private loop), no stray fds in the
 * child. Used for podman, git and tar; the one place that waits on a child
 * synchronously.
 */
#ifndef LZ_PROC_H
#define LZ_PROC_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

struct proc_result {
	int   status;	/* exit status, or 128+signal */
	char *out;	/* stdout, NUL-terminated, owned */
	size_t out_len;
	char *errout;	/* stderr, NUL-terminated, owned */
	size_t err_len;
};

/* Flags for proc_run. */
#define PROC_INHERIT_STDERR 0x1	/* child's stderr goes to ours (progress) */
#define PROC_INHERIT_STDOUT 0x2	/* child's stdout goes to ours */
#define PROC_LINE_CB        0x4	/* internal: proc_run_lines */

/* Run argv[0] (searched in PATH) with argv; env NULL = inherit ours; input
 * (may be NULL) is written to its stdin. Returns 0 when the child ran (check
 * res->status), -1 when it could not be started. Free res with proc_result_clear. */
int proc_run(char *const argv[], char *const env[], const char *input,
    int flags, struct proc_result *res, lz_err_t *err);
void proc_result_clear(struct proc_result *);
/* proc_run (no input, our environment) that also hands each line of stdout
 * and of stderr to line_cb as it comes (progress of a long build). */
int proc_run_lines(char *const argv[], void (*line_cb)(const char *line, void *arg), void *arg,
    struct proc_result *res, lz_err_t *err);

/* A program started by proc_start, not yet waited for. */
struct proc_job;

/* Start argv (as proc_run, inheriting our environment, no input) and return
 * at once: the caller does other work meanwhile. The program should print
 * little (its output waits in a pipe until proc_finish). Returns -1 with err
 * when it could not be started (then *job is NULL). */
int proc_start(char *const argv[], struct proc_job **job, lz_err_t *err);
/* proc_start with env (NULL = ours), as proc_run's. */
int proc_start_env(char *const argv[], char *const env[], struct proc_job **job, lz_err_t *err);

/* Whether job's program has ended, without waiting (its output is read
 * meanwhile); proc_finish is still due. */
bool proc_job_done(struct proc_job *job);
/* Wait for job to end and collect res as proc_run does; frees job. */
void proc_finish(struct proc_job *job, struct proc_result *res);

/* proc_run, and an error naming argv[0] and its stderr when the exit status is
 * not 0. On success *out (if not NULL) takes stdout with trailing newlines cut. */
int proc_run_ok(char *const argv[], char **out, lz_err_t *err);

#endif
