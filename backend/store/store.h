/* store.h - the Session Coordinator's SQLite state store (spec 4.4).
 *
 * One file per Domain Root (state.db), opened by the coordinator alone: it
 * takes SQLite's exclusive lock at open, so any other process that opens the
 * file fails at once. Schema in store.c; migrations in store-migrate.h; the
 * hash-chained audit trail in audit.h; SQLite helpers in store-sql.h. Blocking calls: run them on libuv's
 * threadpool through store_submit (one job at a time, in order).
 */
#ifndef LZ_STORE_H
#define LZ_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>
#include <uv.h>

#include "err.h"
#include "store/store-sql.h"

struct store;

/* Open (creating it 0600 if missing) the state store at path; the parent
 * directory must exist. Takes the exclusive lock, switches to WAL and runs
 * pending migrations. Fails at once when another process holds the file, when
 * the file is not a SQLite database, or when a newer Lazaret created it.
 * Free *out with store_close. */
int store_open(const char *path, struct store **out, lz_err_t *err);
/* Close the store and release the lock. No job may be pending (see
 * store_submit). NULL is a no-op. */
void store_close(struct store *);

/* The path given to store_open, and the connection (for audit.c and tests). */
const char *store_path(const struct store *);
sqlite3 *store_db(struct store *);

/* Milliseconds since the epoch (CLOCK_REALTIME): the unit of every ts column. */
int64_t store_now_ms(void);

/* Nestable transaction (a SAVEPOINT): begin, then commit or rollback. */
int store_tx_begin(struct store *, lz_err_t *err);
int store_tx_commit(struct store *, lz_err_t *err);
/* Undo everything since the matching store_tx_begin; never fails the caller. */
void store_tx_rollback(struct store *);

/* Session records (completed and running sessions, spec 4.4.4). */
struct store_session {
	const char *id;
	const char *profile;
	const char *workspace;
	int64_t pid;		/* 0: unknown */
	int64_t started_at;	/* unix ms */
	bool    ended;
	int64_t ended_at;	/* unix ms; valid when ended */
	int     exit_status;	/* valid when ended */
};

/* Record that session id started (started_at 0: now). Fails if id exists. */
int store_session_begin(struct store *, const char *id, const char *profile,
    const char *workspace, int64_t pid, int64_t started_at, lz_err_t *err);
/* Record that session id ended with exit_status (ended_at 0: now). Fails if
 * id is unknown or has already ended. */
int store_session_end(struct store *, const char *id, int exit_status,
    int64_t ended_at, lz_err_t *err);
/* Callback for store_session_list: the strings live only during the call.
 * Return non-zero to stop the walk. */
typedef int (*store_session_cb)(const struct store_session *, void *arg);
/* Call cb for every session, oldest first. */
int store_session_list(struct store *, store_session_cb cb, void *arg, lz_err_t *err);

/* Asynchronous use from a libuv loop. work runs on the threadpool with the
 * store to itself; done runs on the loop thread with work's return value and
 * error (done may steal err->msg). Jobs run one at a time in submission
 * order. While jobs are pending, the loop thread must not call the store
 * directly (done may submit more, or close the store once store_pending is
 * 0). Call store_submit on the loop thread only. */
typedef int (*store_work_fn)(struct store *, void *arg, lz_err_t *err);
typedef void (*store_done_fn)(void *arg, int status, lz_err_t *err);
void store_submit(uv_loop_t *loop, struct store *, store_work_fn work,
    store_done_fn done, void *arg);
/* Jobs submitted and not yet done. */
unsigned store_pending(const struct store *);

#endif
