/* store-migrate.c - schema steps of the state store, and the one-transaction
 * runner (spec 4.4.3: hand-written routines, table-to-table copying).
 *
 * A step that changes a table's layout creates the new table, reads every
 * old row, converts it in C, inserts it, drops the old table and renames the
 * new one (SQLite's "12-step" procedure, foreign keys off meanwhile). Never
 * edit a released step: add a new one.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "store/store-migrate.h"
#include "store/store-sql.h"
#include "xmalloc.h"

/* v0 -> v1: the first schema. Sessions kept everything but the start time in
 * a JSON blob. */
static int
store_migrate_v1_cb(sqlite3 *db, lz_err_t *err)
{
	return store_exec(db,
	    "CREATE TABLE sessions ("
	    "  id TEXT PRIMARY KEY NOT NULL,"
	    "  started INTEGER NOT NULL,"	/* unix seconds */
	    "  info TEXT NOT NULL);"	/* {"profile","workspace","pid","ended","exit"} */
	    "CREATE TABLE audit ("
	    "  seq INTEGER PRIMARY KEY,"
	    "  ts INTEGER NOT NULL,"
	    "  kind TEXT NOT NULL,"
	    "  actor TEXT NOT NULL,"
	    "  session_id TEXT,"
	    "  request_id TEXT,"
	    "  detail TEXT NOT NULL,"
	    "  prev_hash BLOB NOT NULL,"
	    "  hash BLOB NOT NULL);"
	    "CREATE TABLE audit_head ("
	    "  id INTEGER PRIMARY KEY CHECK (id = 1),"
	    "  seq INTEGER NOT NULL,"
	    "  hash BLOB NOT NULL);"
	    "INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, zeroblob(32));", err);
}

/* One v1 session row, converted. */
struct store_migrate_v2_row {
	int64_t started_at, pid, ended_at;
	int exit_status;
	bool ended;
};

/* Seconds to milliseconds, refusing what does not fit. */
static int
store_migrate_ms(const char *id, const char *what, int64_t sec, int64_t *ms, lz_err_t *err)
{
	if (sec < 0 || sec > INT64_MAX / 1000)
		return lz_err_set(err, LZ_EINVAL, "session %s: %s time %lld out of range",
		    id, what, (long long)sec);
	*ms = sec * 1000;
	return 0;
}

/* Optional integer member of the blob: NULL or an integer. */
static int
store_migrate_int(sqlite3_stmt *q, int col, const char *id, const char *what,
    bool *present, int64_t *v, lz_err_t *err)
{
	switch (sqlite3_column_type(q, col)) {
	case SQLITE_NULL:
		*present = false;
		*v = 0;
		return 0;
	case SQLITE_INTEGER:
		*present = true;
		*v = sqlite3_column_int64(q, col);
		return 0;
	default:
		return lz_err_set(err, LZ_EINVAL, "session %s: info.%s is not an integer", id, what);
	}
}

/* Convert one v1 row (id, started, info) with the JSON reader q. */
static int
store_migrate_v2_convert(sqlite3 *db, sqlite3_stmt *q, const char *id, int64_t started,
    const char *info, struct store_migrate_v2_row *row, const char **profile,
    const char **workspace, lz_err_t *err)
{
	bool has_pid = false, has_exit = false;
	int64_t ended = 0, exit_status = 0;

	(void)sqlite3_reset(q);
	if (sqlite3_bind_text(q, 1, info, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_step(q) != SQLITE_ROW)
		return store_sql_err(db, "reading a v1 session", err);
	if (sqlite3_column_int(q, 0) != 1)
		return lz_err_set(err, LZ_EINVAL, "session %s: info is not valid JSON", id);
	if (sqlite3_column_type(q, 1) != SQLITE_TEXT || sqlite3_column_type(q, 2) != SQLITE_TEXT)
		return lz_err_set(err, LZ_EINVAL, "session %s: info has no profile or workspace", id);
	*profile = (const char *)sqlite3_column_text(q, 1);
	*workspace = (const char *)sqlite3_column_text(q, 2);
	if (store_migrate_int(q, 3, id, "pid", &has_pid, &row->pid, err) < 0 ||
	    store_migrate_int(q, 4, id, "ended", &row->ended, &ended, err) < 0 ||
	    store_migrate_int(q, 5, id, "exit", &has_exit, &exit_status, err) < 0)
		return -1;
	if (row->pid < 0)
		return lz_err_set(err, LZ_EINVAL, "session %s: negative pid", id);
	if (row->ended != has_exit)
		return lz_err_set(err, LZ_EINVAL, "session %s: info has ended without exit or exit without ended", id);
	if (exit_status < INT32_MIN || exit_status > INT32_MAX)
		return lz_err_set(err, LZ_EINVAL, "session %s: exit status out of range", id);
	row->exit_status = (int)exit_status;
	if (store_migrate_ms(id, "start", started, &row->started_at, err) < 0)
		return -1;
	row->ended_at = 0;
	if (row->ended && store_migrate_ms(id, "end", ended, &row->ended_at, err) < 0)
		return -1;
	return 0;
}

/* v1 -> v2: sessions' JSON blob becomes typed columns; times in ms. */
static int
store_migrate_v2_cb(sqlite3 *db, lz_err_t *err)
{
	static const char sel[] = "SELECT id, started, info FROM sessions ORDER BY id";
	static const char json[] = "SELECT json_valid(?1),"
	    " CASE WHEN json_valid(?1) THEN json_extract(?1, '$.profile') END,"
	    " CASE WHEN json_valid(?1) THEN json_extract(?1, '$.workspace') END,"
	    " CASE WHEN json_valid(?1) THEN json_extract(?1, '$.pid') END,"
	    " CASE WHEN json_valid(?1) THEN json_extract(?1, '$.ended') END,"
	    " CASE WHEN json_valid(?1) THEN json_extract(?1, '$.exit') END";
	static const char ins[] = "INSERT INTO sessions_v2 (id, profile, workspace, pid,"
	    " started_at, ended_at, exit_status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	_cleanup_stmt_ sqlite3_stmt *q = NULL;
	_cleanup_stmt_ sqlite3_stmt *w = NULL;
	struct store_migrate_v2_row row = { 0 };
	const char *id, *info, *profile = NULL, *workspace = NULL;
	int rc;

	if (store_exec(db,
	    "CREATE TABLE sessions_v2 ("
	    "  id TEXT PRIMARY KEY NOT NULL,"
	    "  profile TEXT NOT NULL,"
	    "  workspace TEXT NOT NULL,"
	    "  pid INTEGER NOT NULL DEFAULT 0,"
	    "  started_at INTEGER NOT NULL,"
	    "  ended_at INTEGER,"
	    "  exit_status INTEGER,"
	    "  CHECK ((ended_at IS NULL) = (exit_status IS NULL)))", err) < 0)
		return -1;
	if (sqlite3_prepare_v2(db, sel, -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, json, -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, ins, -1, &w, NULL) != SQLITE_OK)
		return store_sql_err(db, "preparing the v2 session copy", err);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		id = (const char *)sqlite3_column_text(s, 0);
		info = (const char *)sqlite3_column_text(s, 2);
		if (id == NULL || info == NULL || sqlite3_column_type(s, 1) != SQLITE_INTEGER)
			return lz_err_set(err, LZ_EINVAL, "session %s: damaged v1 row", id != NULL ? id : "?");
		if (store_migrate_v2_convert(db, q, id, sqlite3_column_int64(s, 1), info,
		    &row, &profile, &workspace, err) < 0)
			return -1;
		(void)sqlite3_reset(w);
		if (sqlite3_bind_text(w, 1, id, -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_text(w, 2, profile, -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_text(w, 3, workspace, -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_int64(w, 4, row.pid) != SQLITE_OK ||
		    sqlite3_bind_int64(w, 5, row.started_at) != SQLITE_OK ||
		    (row.ended ? sqlite3_bind_int64(w, 6, row.ended_at) : sqlite3_bind_null(w, 6)) != SQLITE_OK ||
		    (row.ended ? sqlite3_bind_int(w, 7, row.exit_status) : sqlite3_bind_null(w, 7)) != SQLITE_OK ||
		    sqlite3_step(w) != SQLITE_DONE)
			return store_sql_err(db, "copying a session to v2", err);
	}
	if (rc != SQLITE_DONE)
		return store_sql_err(db, "reading v1 sessions", err);
	/* No statement may be busy on a table being dropped. */
	(void)sqlite3_reset(s);
	(void)sqlite3_reset(q);
	(void)sqlite3_reset(w);
	return store_exec(db,
	    "DROP TABLE sessions;"
	    "ALTER TABLE sessions_v2 RENAME TO sessions;"
	    "CREATE INDEX sessions_started ON sessions (started_at);", err);
}

static const struct store_migrate_step store_migrate_table[] = {
	{ "first schema", store_migrate_v1_cb },
	{ "sessions: JSON info to typed columns", store_migrate_v2_cb },
};

const struct store_migrate_step *
store_migrate_steps(size_t *n)
{
	*n = sizeof store_migrate_table / sizeof store_migrate_table[0];
	return store_migrate_table;
}

/* Read an integer PRAGMA. */
static int
store_migrate_pragma_int(sqlite3 *db, const char *sql, int *v, lz_err_t *err)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		return store_sql_err(db, sql, err);
	*v = sqlite3_column_int(st, 0);
	return 0;
}

int
store_migrate_version(sqlite3 *db, int *version, lz_err_t *err)
{
	return store_migrate_pragma_int(db, "PRAGMA user_version", version, err);
}

/* Fail if PRAGMA foreign_key_check reports a dangling reference. */
static int
store_migrate_fk_check(sqlite3 *db, lz_err_t *err)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "PRAGMA foreign_key_check", -1, &st, NULL) != SQLITE_OK)
		return store_sql_err(db, "foreign_key_check", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return lz_err_set(err, LZ_EINVAL, "foreign key check failed: table %s row %lld",
		    (const char *)sqlite3_column_text(st, 0), (long long)sqlite3_column_int64(st, 1));
	if (rc != SQLITE_DONE)
		return store_sql_err(db, "foreign_key_check", err);
	return 0;
}

int
store_migrate_run(sqlite3 *db, const struct store_migrate_step *steps,
    size_t n, int *from, lz_err_t *err)
{
	_cleanup_free_ char *set = NULL;
	int v = 0, fk = 0, ret = -1;
	size_t i;

	LZ_ASSERT(n < INT32_MAX && sqlite3_get_autocommit(db));
	if (store_migrate_version(db, &v, err) < 0)
		return -1;
	if (from != NULL)
		*from = v;
	if (v < 0)
		return lz_err_set(err, LZ_EINVAL, "schema version %d is not one of Lazaret's", v);
	if ((size_t)v > n)
		return lz_err_set(err, LZ_EINVAL, "schema version %d was created by a newer Lazaret "
		    "(this one knows up to version %zu): run that version, or move the file away", v, n);
	if ((size_t)v == n)
		return 0;
	/* PRAGMA foreign_keys is a no-op inside a transaction: switch it first. */
	if (store_migrate_pragma_int(db, "PRAGMA foreign_keys", &fk, err) < 0 ||
	    (fk && store_exec(db, "PRAGMA foreign_keys=OFF", err) < 0))
		return -1;
	if (store_exec(db, "BEGIN IMMEDIATE", err) < 0)
		goto out;
	for (i = (size_t)v; i < n; i++)
		if (steps[i].run(db, err) < 0) {
			lz_err_wrap(err, "migrating schema version %zu to %zu (%s)", i, i + 1, steps[i].what);
			goto rollback;
		}
	set = xasprintf("PRAGMA user_version=%zu", n);	/* our constant, not data */
	if (store_migrate_fk_check(db, err) < 0 || store_exec(db, set, err) < 0 ||
	    store_exec(db, "COMMIT", err) < 0)
		goto rollback;
	ret = 0;
	goto out;
rollback:
	if (!sqlite3_get_autocommit(db))
		(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
out:
	if (fk && sqlite3_exec(db, "PRAGMA foreign_keys=ON", NULL, NULL, NULL) != SQLITE_OK && ret == 0)
		ret = store_sql_err(db, "PRAGMA foreign_keys=ON", err);
	return ret;
}
