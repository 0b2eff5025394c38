/* store-sql.c - SQLite helpers shared by store, migrations and audit (see
 * store-sql.h). */
#include <errno.h>

#include "store/store-sql.h"

int
store_sql_err(sqlite3 *db, const char *what, lz_err_t *err)
{
	int rc = sqlite3_errcode(db);
	int code = rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? EBUSY : EIO;

	return lz_err_set(err, code, "%s: %s", what, sqlite3_errmsg(db));
}

int
store_exec(sqlite3 *db, const char *sql, lz_err_t *err)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_sql_err(db, sql, err);
	return 0;
}

int
store_bind_text(sqlite3_stmt *stmt, int i, const char *s)
{
	if (s == NULL)
		return sqlite3_bind_null(stmt, i);
	return sqlite3_bind_text(stmt, i, s, -1, SQLITE_TRANSIENT);
}
