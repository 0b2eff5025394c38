/* store-migrate.h - schema versions of the state store (spec 4.4.3).
 *
 * The schema version is PRAGMA user_version. steps[i] turns version i into
 * i + 1, so a table of n steps produces version n. Every pending step runs in
 * ONE transaction: on any error the file is left as it was.
 */
#ifndef LZ_STORE_MIGRATE_H
#define LZ_STORE_MIGRATE_H

#include <stddef.h>
#include <sqlite3.h>

#include "err.h"

struct store_migrate_step {
	const char *what;	/* one line for error messages */
	int (*run)(sqlite3 *db, lz_err_t *err);
};

/* The product's steps; *n receives their number (= the current version). */
const struct store_migrate_step *store_migrate_steps(size_t *n);

/* Read user_version of db (no transaction may be open). */
int store_migrate_version(sqlite3 *db, int *version, lz_err_t *err);

/* Bring db from its user_version to n by running steps[version..n-1] in one
 * BEGIN IMMEDIATE transaction, then PRAGMA foreign_key_check. A version above
 * n is refused ("created by a newer Lazaret"). *from (if not NULL) receives
 * the version found. Foreign keys are off during the steps and restored. */
int store_migrate_run(sqlite3 *db, const struct store_migrate_step *steps,
    size_t n, int *from, lz_err_t *err);

#endif
