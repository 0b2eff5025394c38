/* store-sql.h - SQLite helpers shared by the store, its migrations and the
 * audit trail: constant SQL, error text, statement cleanup, text binding.
 * Its own module so that store-migrate.c needs nothing from store.h (which
 * runs the migrations) and the two do not include each other.
 */
#ifndef LZ_STORE_SQL_H
#define LZ_STORE_SQL_H

#include <stddef.h>
#include <sqlite3.h>

#include "err.h"

/* sqlite3_finalize a statement when the local leaves scope. */
static inline void store_stmt_finalizep(sqlite3_stmt **st) { if (*st != NULL) sqlite3_finalize(*st); }
#define _cleanup_stmt_ __attribute__((cleanup(store_stmt_finalizep)))

/* Run constant SQL (no data in it; data goes through bound parameters). */
int store_exec(sqlite3 *db, const char *sql, lz_err_t *err);
/* Fill err from the connection's last error: "<what>: <sqlite message>". */
int store_sql_err(sqlite3 *db, const char *what, lz_err_t *err);

/* Bind s (copied) to parameter i, or SQL NULL when s is NULL. */
int store_bind_text(sqlite3_stmt *stmt, int i, const char *s);

#endif
