/* egress-log.c - egress events in the state store (table egress, counts in
 * egress_counts; created by schema step 3, store-migrate.c). */
#include <stdio.h>
#include <string.h>

#include "store/egress-log.h"

int
egress_log_add(struct store *st, const struct netctl_event *e, lz_err_t *err)
{
	static const char ins[] = "INSERT INTO egress (ts, kind, allowed, proto, addr, port, name,"
	    " rule, count) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
	static const char cnt[] = "INSERT INTO egress_counts (kind, allowed, n) VALUES (?1, ?2, ?3)"
	    " ON CONFLICT (kind, allowed) DO UPDATE SET n = n + excluded.n";
	static const char trim[] = "DELETE FROM egress WHERE seq <= (SELECT max(seq) FROM egress) - ?1";
	sqlite3 *db = store_db(st);
	_cleanup_stmt_ sqlite3_stmt *i = NULL;
	_cleanup_stmt_ sqlite3_stmt *c = NULL;
	_cleanup_stmt_ sqlite3_stmt *t = NULL;

	if (store_tx_begin(st, err) < 0)
		return -1;
	if (sqlite3_prepare_v2(db, ins, -1, &i, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, cnt, -1, &c, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, trim, -1, &t, NULL) != SQLITE_OK)
		goto fail;
	if (sqlite3_bind_int64(i, 1, (sqlite3_int64)e->time_ms) != SQLITE_OK ||
	    sqlite3_bind_int(i, 2, (int)e->kind) != SQLITE_OK ||
	    sqlite3_bind_int(i, 3, e->allowed ? 1 : 0) != SQLITE_OK ||
	    sqlite3_bind_int(i, 4, (int)e->proto) != SQLITE_OK ||
	    store_bind_text(i, 5, e->addr) != SQLITE_OK ||
	    sqlite3_bind_int(i, 6, (int)e->port) != SQLITE_OK ||
	    store_bind_text(i, 7, e->name) != SQLITE_OK ||
	    store_bind_text(i, 8, e->rule) != SQLITE_OK ||
	    sqlite3_bind_int64(i, 9, e->count) != SQLITE_OK || sqlite3_step(i) != SQLITE_DONE)
		goto fail;
	if (sqlite3_bind_int(c, 1, (int)e->kind) != SQLITE_OK ||
	    sqlite3_bind_int(c, 2, e->allowed ? 1 : 0) != SQLITE_OK ||
	    sqlite3_bind_int64(c, 3, e->kind == NETCTL_EV_LOST ? e->count : 1) != SQLITE_OK ||
	    sqlite3_step(c) != SQLITE_DONE)
		goto fail;
	if (sqlite3_bind_int(t, 1, EGRESS_LOG_MAX) != SQLITE_OK || sqlite3_step(t) != SQLITE_DONE)
		goto fail;
	return store_tx_commit(st, err);
fail:
	store_sql_err(db, "recording an egress event", err);
	store_tx_rollback(st);
	return -1;
}

static void
egress_log_copy(char *dst, size_t cap, const unsigned char *s)
{
	snprintf(dst, cap, "%s", s != NULL ? (const char *)s : "");
}

int
egress_log_list(struct store *st, unsigned last, egress_log_cb cb, void *arg, lz_err_t *err)
{
	static const char sel[] = "SELECT ts, kind, allowed, proto, addr, port, name, rule, count"
	    " FROM (SELECT * FROM egress ORDER BY seq DESC LIMIT ?1) ORDER BY seq";
	sqlite3 *db = store_db(st);
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, sel, -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(s, 1, last ? (sqlite3_int64)last : -1) != SQLITE_OK)
		return store_sql_err(db, "reading the egress log", err);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct netctl_event e = { 0 };

		e.time_ms = (uint64_t)sqlite3_column_int64(s, 0);
		e.kind = (uint32_t)sqlite3_column_int(s, 1);
		e.allowed = (uint32_t)sqlite3_column_int(s, 2);
		e.proto = (uint32_t)sqlite3_column_int(s, 3);
		egress_log_copy(e.addr, sizeof e.addr, sqlite3_column_text(s, 4));
		e.port = (uint32_t)sqlite3_column_int(s, 5);
		egress_log_copy(e.name, sizeof e.name, sqlite3_column_text(s, 6));
		egress_log_copy(e.rule, sizeof e.rule, sqlite3_column_text(s, 7));
		e.count = (uint32_t)sqlite3_column_int64(s, 8);
		if (cb(&e, arg) != 0)
			return 0;
	}
	if (rc != SQLITE_DONE)
		return store_sql_err(db, "reading the egress log", err);
	return 0;
}

int
egress_log_counts(struct store *st, struct egress_log_counts *out, lz_err_t *err)
{
	sqlite3 *db = store_db(st);
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	if (sqlite3_prepare_v2(db, "SELECT kind, allowed, n FROM egress_counts", -1, &s, NULL) !=
	    SQLITE_OK)
		return store_sql_err(db, "reading the egress counts", err);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int kind = sqlite3_column_int(s, 0), allowed = sqlite3_column_int(s, 1);
		int64_t n = sqlite3_column_int64(s, 2);

		if (kind == NETCTL_EV_FLOW)
			*(allowed ? &out->flows_allowed : &out->flows_blocked) += n;
		else if (kind == NETCTL_EV_DNS)
			*(allowed ? &out->dns_forwarded : &out->dns_refused) += n;
		else if (kind == NETCTL_EV_LOST)
			out->lost += n;
	}
	if (rc != SQLITE_DONE)
		return store_sql_err(db, "reading the egress counts", err);
	return 0;
}
