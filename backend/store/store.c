/* store.c - the state store: one SQLite file per Domain Root (spec 4.4).
 *
 * Theory of operation
 * -------------------
 * Only the Session Coordinator opens <domain_root>/state.db; every other
 * process asks the coordinator over the control socket (spec 4.4 "IPC-facade").
 * store_open enforces that with SQLite's own locks rather than trusting it:
 *
 *   busy_timeout 0                 a second opener gets SQLITE_BUSY at once
 *   PRAGMA locking_mode=EXCLUSIVE  locks once taken are never given back
 *   BEGIN IMMEDIATE; COMMIT        take the write lock now, not at first write
 *   (migrations, store-migrate.c)  in the file's journal mode, so a file we
 *                                  refuse (newer schema, bad row) is left
 *                                  byte for byte as it was
 *   PRAGMA journal_mode=WAL        set after EXCLUSIVE, so the WAL index lives
 *                                  in heap memory (no -shm file) and opening
 *                                  the WAL takes the file's EXCLUSIVE lock
 *
 * so a second process (or a second connection in this one) fails at its first
 * read with "in use by another process". The lock is the SQLite one (POSIX
 * fcntl locks on state.db); the coordinator's flock on its lock file is what
 * elects the coordinator, this is the defence in depth behind it. (A file
 * still in rollback mode, i.e. new or never opened by us, holds only SQLite's
 * RESERVED lock until the migration writes; the flock covers that window.)
 * The kernel drops the locks when the coordinator dies, even by SIGKILL, and
 * the next open recovers the WAL. synchronous is NORMAL: after a power cut
 * the last commits may be lost, the file is never corrupt (WAL). A commit
 * never fsyncs; a checkpoint does (the WAL, then the file), and SQLite runs
 * it inside the commit that crosses 1000 WAL frames: that commit took
 * 5-80 ms instead of ~0.1 (the tail of an escalation waiting for its row).
 * So our WAL hook only counts the frames, and store_submit's FIFO runs the
 * checkpoint as a job of its own once it has nothing else to do (or at 4x
 * the frames if it never idles). What a crash can lose is unchanged: a
 * committed row is in the WAL either way, and the next open replays it.
 * foreign_keys is on. The file is created 0600 before SQLite sees it; the WAL
 * file inherits that mode.
 *
 * Schema (version 2; PRAGMA user_version, migrations in store-migrate.c):
 *
 *   sessions   (id TEXT PRIMARY KEY, profile TEXT, workspace TEXT,
 *               pid INTEGER, started_at INTEGER, ended_at INTEGER NULL,
 *               exit_status INTEGER NULL)      one row per session;
 *               ended_at/exit_status are NULL while it runs. Index on
 *               started_at. (v1 kept profile, workspace, pid, ended and
 *               exit in a JSON blob "info" and "started" in seconds.)
 *   audit      (seq INTEGER PRIMARY KEY, ts INTEGER, kind TEXT, actor TEXT,
 *               session_id TEXT NULL, request_id TEXT NULL, detail TEXT,
 *               prev_hash BLOB(32), hash BLOB(32))   the hash chain, audit.c
 *   audit_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER,
 *               hash BLOB(32))   last appended row, written with it
 *
 * All times are unix milliseconds. Every statement with data in it is
 * prepared with bound parameters.
 *
 * Threads: the connection is used by one thread at a time. store_submit
 * keeps a FIFO of jobs and hands only its head to uv_queue_work; the next job
 * starts from the previous one's after-work callback, on the loop thread
 * (libuv's queue orders the jobs' memory accesses). The FIFO itself is
 * touched only on the loop thread, so it needs no lock. A done callback runs
 * while the next job may already run: it must not use the store itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sodium.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store-migrate.h"
#include "xmalloc.h"

#define STORE_TEXT_MAX 4096	/* session id, profile, workspace */

struct store_job {
	uv_work_t         req;
	struct store     *st;
	store_work_fn     work;
	store_done_fn     done;
	void             *arg;
	int               status;
	lz_err_t          err;
	struct store_job *next;
};

struct store {
	sqlite3          *db;
	char             *path;
	uv_loop_t        *loop;		/* of the pending jobs */
	struct store_job *head, *tail;	/* FIFO; head runs when running */
	bool              running;
	unsigned          pending;
	int               wal_frames;	/* in the WAL after the last commit */
	bool              ckpt_queued;
};

#define STORE_CKPT_FRAMES 1000	/* SQLite's own auto-checkpoint threshold */

int64_t
store_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *
store_path(const struct store *st)
{
	return st->path;
}

sqlite3 *
store_db(struct store *st)
{
	return st->db;
}

unsigned
store_pending(const struct store *st)
{
	return st->pending;
}

int
store_tx_begin(struct store *st, lz_err_t *err)
{
	return store_exec(st->db, "SAVEPOINT store_tx", err);
}

void
store_tx_rollback(struct store *st)
{
	/* Fails only when SQLite already rolled back (e.g. SQLITE_FULL). */
	if (sqlite3_exec(st->db, "ROLLBACK TO store_tx", NULL, NULL, NULL) == SQLITE_OK)
		(void)sqlite3_exec(st->db, "RELEASE store_tx", NULL, NULL, NULL);
}

int
store_tx_commit(struct store *st, lz_err_t *err)
{
	if (store_exec(st->db, "RELEASE store_tx", err) < 0) {
		store_tx_rollback(st);
		return -1;
	}
	return 0;
}

/* Create path 0600 if missing (SQLite would use 0644); refuse symlinks and
 * anything that is not a regular file. */
static int
store_create_file(const char *path, lz_err_t *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *dir = NULL;
	struct stat sb;

	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == ENOENT) {
		dir = xstrdup(path);
		return lz_err_set(err, ENOENT, "cannot create state store %s: directory %s does not exist",
		    path, dirname(dir));
	}
	if (fd < 0 && errno == ELOOP)
		return lz_err_set(err, ELOOP, "state store %s is a symbolic link; refusing to follow it", path);
	if (fd < 0)
		return lz_err_sys(err, errno, "cannot open state store %s", path);
	if (fstat(fd, &sb) < 0)
		return lz_err_sys(err, errno, "cannot stat state store %s", path);
	if (!S_ISREG(sb.st_mode))
		return lz_err_set(err, LZ_EINVAL, "state store %s is not a regular file", path);
	return 0;
}

/* Run a PRAGMA that answers one text value into buf. */
static int
store_pragma_text(sqlite3 *db, const char *sql, char *buf, size_t len, lz_err_t *err)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	const unsigned char *v;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		return store_sql_err(db, sql, err);
	v = sqlite3_column_text(st, 0);
	snprintf(buf, len, "%s", v != NULL ? (const char *)v : "");
	return 0;
}

/* Replace err with what the user should hear when SQLite refused the file.
 * err->code EBUSY/EIO come from store_sql_err, right after the failed call,
 * so sqlite3_errcode is still the one that failed. */
static int
store_open_err(sqlite3 *db, const char *path, lz_err_t *err)
{
	if (err == NULL)
		return -1;
	if (err->code == EBUSY)
		return lz_err_set(err, EBUSY, "state store %s is in use by another process "
		    "(is a coordinator running for this domain? ask it with \"lazaret status\")", path);
	if (err->code == EIO && sqlite3_errcode(db) == SQLITE_NOTADB)
		return lz_err_set(err, LZ_EINVAL, "state store %s is not a SQLite database "
		    "(move it away and Lazaret starts a new one)", path);
	return lz_err_wrap(err, "state store %s", path);
}

/* After each commit, on the committing thread: the job that committed is
 * what store_after_work_cb reads it after. */
static int
store_wal_cb(void *arg, sqlite3 *db, const char *name, int frames)
{
	(void)db;
	(void)name;
	((struct store *)arg)->wal_frames = frames;
	return SQLITE_OK;
}

int
store_open(const char *path, struct store **out, lz_err_t *err)
{
	const struct store_migrate_step *steps;
	struct store *st;
	char mode[16];
	size_t n;
	int rc;

	*out = NULL;
	if (path == NULL || *path == '\0')
		return lz_err_set(err, LZ_EINVAL, "state store: empty path");
	if (sodium_init() < 0)
		return lz_err_set(err, EIO, "libsodium failed to initialise");
	if (store_create_file(path, err) < 0)
		return -1;
	st = xcalloc(1, sizeof *st);
	st->path = xstrdup(path);
	rc = sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		lz_err_set(err, EIO, "cannot open state store %s: %s", path,
		    st->db != NULL ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		goto fail;
	}
	if (sqlite3_busy_timeout(st->db, 0) != SQLITE_OK) {
		store_sql_err(st->db, "busy_timeout", err);
		goto fail;
	}
	/* EXCLUSIVE first: locks are then kept, and the WAL index lives in
	 * heap memory. The empty write transaction takes the lock now. */
	if (store_exec(st->db, "PRAGMA locking_mode=EXCLUSIVE", err) < 0 ||
	    store_exec(st->db, "BEGIN IMMEDIATE; COMMIT", err) < 0) {
		store_open_err(st->db, path, err);
		goto fail;
	}
	/* Migrate before switching to WAL: a refused file stays byte for byte. */
	steps = store_migrate_steps(&n);
	if (store_migrate_run(st->db, steps, n, NULL, err) < 0) {
		store_open_err(st->db, path, err);
		goto fail;
	}
	if (store_pragma_text(st->db, "PRAGMA journal_mode=WAL", mode, sizeof mode, err) < 0 ||
	    store_exec(st->db, "PRAGMA synchronous=NORMAL", err) < 0 ||
	    store_exec(st->db, "PRAGMA foreign_keys=ON", err) < 0) {
		store_open_err(st->db, path, err);
		goto fail;
	}
	if (strcmp(mode, "wal") != 0) {
		lz_err_set(err, EIO, "state store %s: cannot switch to WAL (journal_mode is %s)", path, mode);
		goto fail;
	}
	/* Replaces SQLite's auto-checkpoint (see the top of this file). */
	sqlite3_wal_hook(st->db, store_wal_cb, st);
	*out = st;
	return 0;
fail:
	store_close(st);
	return -1;
}

void
store_close(struct store *st)
{
	if (st == NULL)
		return;
	LZ_ASSERT(st->pending == 0);
	/* Fails only with unfinalized statements: a bug here. */
	LZ_ASSERT(sqlite3_close(st->db) == SQLITE_OK);
	free(st->path);
	free(st);
}

static int
store_check_text(const char *what, const char *s, lz_err_t *err)
{
	if (s == NULL || *s == '\0')
		return lz_err_set(err, LZ_EINVAL, "session %s is empty", what);
	if (strnlen(s, STORE_TEXT_MAX + 1) > STORE_TEXT_MAX)
		return lz_err_set(err, LZ_EINVAL, "session %s is longer than %d bytes", what, STORE_TEXT_MAX);
	return 0;
}

int
store_session_begin(struct store *st, const char *id, const char *profile,
    const char *workspace, int64_t pid, int64_t started_at, lz_err_t *err)
{
	static const char sql[] = "INSERT INTO sessions (id, profile, workspace, pid, started_at) "
	    "VALUES (?1, ?2, ?3, ?4, ?5)";
	_cleanup_stmt_ sqlite3_stmt *stmt = NULL;
	int rc;

	if (store_check_text("id", id, err) < 0 || store_check_text("profile", profile, err) < 0 ||
	    store_check_text("workspace", workspace, err) < 0)
		return -1;
	if (pid < 0 || started_at < 0)
		return lz_err_set(err, LZ_EINVAL, "session %s: negative pid or start time", id);
	if (sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL) != SQLITE_OK ||
	    store_bind_text(stmt, 1, id) != SQLITE_OK ||
	    store_bind_text(stmt, 2, profile) != SQLITE_OK ||
	    store_bind_text(stmt, 3, workspace) != SQLITE_OK ||
	    sqlite3_bind_int64(stmt, 4, pid) != SQLITE_OK ||
	    sqlite3_bind_int64(stmt, 5, started_at != 0 ? started_at : store_now_ms()) != SQLITE_OK)
		return store_sql_err(st->db, "recording a session", err);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_CONSTRAINT)
		return lz_err_set(err, EEXIST, "session %s is already recorded", id);
	if (rc != SQLITE_DONE)
		return store_sql_err(st->db, "recording a session", err);
	return 0;
}

int
store_session_end(struct store *st, const char *id, int exit_status,
    int64_t ended_at, lz_err_t *err)
{
	static const char upd[] = "UPDATE sessions SET ended_at = ?2, exit_status = ?3 "
	    "WHERE id = ?1 AND ended_at IS NULL";
	static const char sel[] = "SELECT 1 FROM sessions WHERE id = ?1";
	_cleanup_stmt_ sqlite3_stmt *u = NULL;
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int rc;

	if (store_check_text("id", id, err) < 0)
		return -1;
	if (ended_at < 0)
		return lz_err_set(err, LZ_EINVAL, "session %s: negative end time", id);
	if (sqlite3_prepare_v2(st->db, upd, -1, &u, NULL) != SQLITE_OK ||
	    store_bind_text(u, 1, id) != SQLITE_OK ||
	    sqlite3_bind_int64(u, 2, ended_at != 0 ? ended_at : store_now_ms()) != SQLITE_OK ||
	    sqlite3_bind_int(u, 3, exit_status) != SQLITE_OK ||
	    sqlite3_step(u) != SQLITE_DONE)
		return store_sql_err(st->db, "recording the end of a session", err);
	if (sqlite3_changes(st->db) == 1)
		return 0;
	/* Nothing updated: unknown, or ended already. */
	if (sqlite3_prepare_v2(st->db, sel, -1, &s, NULL) != SQLITE_OK ||
	    store_bind_text(s, 1, id) != SQLITE_OK)
		return store_sql_err(st->db, "looking up a session", err);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		return lz_err_set(err, LZ_EINVAL, "session %s has already ended", id);
	if (rc == SQLITE_DONE)
		return lz_err_set(err, ENOENT, "no session %s in the state store", id);
	return store_sql_err(st->db, "looking up a session", err);
}

static const char *
store_col_text(sqlite3_stmt *stmt, int i)
{
	const unsigned char *s = sqlite3_column_text(stmt, i);

	return s != NULL ? (const char *)s : "";
}

int
store_session_list(struct store *st, store_session_cb cb, void *arg, lz_err_t *err)
{
	static const char sql[] = "SELECT id, profile, workspace, pid, started_at, ended_at, "
	    "exit_status FROM sessions ORDER BY started_at, id";
	_cleanup_stmt_ sqlite3_stmt *stmt = NULL;
	struct store_session s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL) != SQLITE_OK)
		return store_sql_err(st->db, "listing sessions", err);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		s.id = store_col_text(stmt, 0);
		s.profile = store_col_text(stmt, 1);
		s.workspace = store_col_text(stmt, 2);
		s.pid = sqlite3_column_int64(stmt, 3);
		s.started_at = sqlite3_column_int64(stmt, 4);
		s.ended = sqlite3_column_type(stmt, 5) != SQLITE_NULL;
		s.ended_at = s.ended ? sqlite3_column_int64(stmt, 5) : 0;
		s.exit_status = s.ended ? sqlite3_column_int(stmt, 6) : 0;
		if (cb(&s, arg) != 0)
			return 0;
	}
	if (rc != SQLITE_DONE)
		return store_sql_err(st->db, "listing sessions", err);
	return 0;
}

/* Threadpool side: the job has the connection to itself. */
static void
store_work_cb(uv_work_t *req)
{
	struct store_job *job = req->data;

	job->status = job->work(job->st, job->arg, &job->err);
}

static void store_after_work_cb(uv_work_t *req, int status);

static void
store_start(struct store *st)
{
	LZ_ASSERT(st->head != NULL && !st->running);
	st->running = true;
	st->head->req.data = st->head;
	LZ_ASSERT(uv_queue_work(st->loop, &st->head->req, store_work_cb, store_after_work_cb) == 0);
}

static int
store_ckpt_work_cb(struct store *st, void *arg, lz_err_t *err)
{
	(void)arg;
	(void)err;
	/* PASSIVE waits for nobody; with our one connection it copies it all. */
	if (sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL) ==
	    SQLITE_OK)
		st->wal_frames = 0;
	return 0;
}

static void
store_ckpt_done_cb(void *arg, int status, lz_err_t *err)
{
	(void)status;
	(void)err;
	((struct store *)arg)->ckpt_queued = false;
}

/* Loop side: pop the finished job, start the next one (or the checkpoint
 * due), then report. The next job starts first so that done may close the
 * store once nothing is pending. */
static void
store_after_work_cb(uv_work_t *req, int status)
{
	struct store_job *job = req->data;
	struct store *st = job->st;

	LZ_ASSERT(job == st->head && status == 0);	/* jobs are never cancelled */
	st->head = job->next;
	if (st->head == NULL)
		st->tail = NULL;
	st->running = false;
	st->pending--;
	if (st->head != NULL)
		store_start(st);
	if (!st->ckpt_queued && st->wal_frames >= (st->head == NULL ? 1 : 4) * STORE_CKPT_FRAMES) {
		st->ckpt_queued = true;
		store_submit(st->loop, st, store_ckpt_work_cb, store_ckpt_done_cb, st);
	}
	if (job->done != NULL)
		job->done(job->arg, job->status, &job->err);
	lz_err_clear(&job->err);
	free(job);
}

void
store_submit(uv_loop_t *loop, struct store *st, store_work_fn work,
    store_done_fn done, void *arg)
{
	struct store_job *job;

	LZ_ASSERT(work != NULL);
	LZ_ASSERT(st->pending == 0 || st->loop == loop);
	job = xcalloc(1, sizeof *job);
	job->st = st;
	job->work = work;
	job->done = done;
	job->arg = arg;
	st->loop = loop;
	if (st->tail != NULL)
		st->tail->next = job;
	else
		st->head = job;
	st->tail = job;
	st->pending++;
	if (!st->running)
		store_start(st);
}
