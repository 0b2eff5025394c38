/* test-store.c - the state store against a real SQLite file: locking,
 * creation, migrations, session records, transactions (the threadpool API
 * is test-store-pool.c's; the fixture storetest.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/audit.h"
#include "store/store.h"
#include "store/store-migrate.h"
#include "storetest.h"
#include "testutil.h"
#include "xmalloc.h"

static void
raw_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

static sqlite3 *
raw_open(const char *path)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	return db;
}

static void
raw_close(sqlite3 *db)
{
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* Everything a migration could change, as one string. */
static char *
raw_dump(sqlite3 *db)
{
	static const char sql[] =
	    "SELECT (SELECT user_version FROM pragma_user_version) || '|' ||"
	    " (SELECT group_concat(name || ':' || sql, ';') FROM"
	    "   (SELECT name, sql FROM sqlite_master ORDER BY name)) || '|' ||"
	    " (SELECT group_concat(id || ',' || started || ',' || info, ';') FROM"
	    "   (SELECT * FROM sessions ORDER BY id))";
	sqlite3_stmt *st = NULL;
	char *s;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	s = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return s;
}

/* The file's bytes (and the size in *len). */
static char *
slurp(const char *path, size_t *len)
{
	char *buf = NULL;
	FILE *f = fopen(path, "rb");
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = xmalloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void
assert_same_bytes(const char *a, size_t alen, const char *path)
{
	size_t blen;
	char *b = slurp(path, &blen);

	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	free(b);
}

/* No journal, WAL or shm file beside path. */
static void
assert_no_side_files(const char *path)
{
	static const char *const sfx[] = { "-wal", "-shm", "-journal" };
	size_t i;
	char *p;

	for (i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		p = xasprintf("%s%s", path, sfx[i]);
		if (access(p, F_OK) == 0)
			fail_msg("%s exists", p);
		free(p);
	}
}

/* A state.db exactly as schema version 1 wrote it (frozen fixture: do not
 * derive it from the product's step). */
static void
make_v1(const char *path, const char *extra_rows)
{
	sqlite3 *db = raw_open(path);

	raw_exec(db,
	    "CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, started INTEGER NOT NULL,"
	    "  info TEXT NOT NULL);"
	    "CREATE TABLE audit (seq INTEGER PRIMARY KEY, ts INTEGER NOT NULL,"
	    "  kind TEXT NOT NULL, actor TEXT NOT NULL, session_id TEXT, request_id TEXT,"
	    "  detail TEXT NOT NULL, prev_hash BLOB NOT NULL, hash BLOB NOT NULL);"
	    "CREATE TABLE audit_head (id INTEGER PRIMARY KEY CHECK (id = 1),"
	    "  seq INTEGER NOT NULL, hash BLOB NOT NULL);"
	    "INSERT INTO audit_head VALUES (1, 0, zeroblob(32));"
	    "INSERT INTO sessions VALUES ('s-run', 1700000300,"
	    "  '{\"profile\":\"web\",\"workspace\":\"/home/u/proj\",\"pid\":4242}');"
	    "INSERT INTO sessions VALUES ('s-ok', 1700000100,"
	    "  '{\"profile\":\"web\",\"workspace\":\"/home/u/proj\",\"pid\":100,"
	    "    \"ended\":1700000200,\"exit\":0}');"
	    "INSERT INTO sessions VALUES ('s-kill', 1700000150,"
	    "  '{\"workspace\":\"/srv/a b\",\"profile\":\"ml\",\"ended\":1700000160,\"exit\":137}');"
	    "PRAGMA user_version=1;");
	if (extra_rows != NULL)
		raw_exec(db, extra_rows);
	raw_close(db);
}

struct seen {
	int n;
	char line[8][256];
};

static int
collect_cb(const struct store_session *s, void *arg)
{
	struct seen *sn = arg;

	if (sn->n < 8)
		snprintf(sn->line[sn->n], sizeof sn->line[0], "%s %s %s pid=%lld start=%lld %s%lld exit=%d",
		    s->id, s->profile, s->workspace, (long long)s->pid, (long long)s->started_at,
		    s->ended ? "end=" : "running", s->ended ? (long long)s->ended_at : 0LL,
		    s->exit_status);
	sn->n++;
	return 0;
}

static void
test_store_open_creates_private_wal_file_at_current_version(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct store *st = NULL;
	struct stat sb;
	char *wal, *shm;
	size_t n;

	assert_int_equal(store_open(fx->path, &st, &err), 0);
	assert_int_equal(stat(fx->path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	store_migrate_steps(&n);
	assert_int_equal(n, 3);
	assert_int_equal(fx_raw_int(store_db(st), "PRAGMA user_version"), 3);
	assert_int_equal(fx_raw_int(store_db(st), "SELECT journal_mode = 'wal' FROM pragma_journal_mode"), 1);
	assert_int_equal(fx_raw_int(store_db(st), "PRAGMA foreign_keys"), 1);
	assert_int_equal(fx_raw_int(store_db(st), "PRAGMA synchronous"), 1);	/* NORMAL */
	assert_int_equal(store_session_begin(st, "s1", "web", "/w", 1, 0, &err), 0);
	wal = xasprintf("%s-wal", fx->path);
	shm = xasprintf("%s-shm", fx->path);
	assert_int_equal(stat(wal, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(stat(shm, &sb), -1);	/* EXCLUSIVE before WAL: index in heap */
	assert_int_equal(errno, ENOENT);
	store_close(st);
	assert_no_side_files(fx->path);
	free(wal);
	free(shm);
}

static void
test_store_open_in_missing_directory_names_it(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct store *st = NULL;
	char *p = xasprintf("%s/no-such-dir/state.db", fx->dir);

	assert_int_equal(store_open(p, &st, &err), -1);
	assert_null(st);
	assert_non_null(strstr(err.msg, "does not exist"));
	assert_non_null(strstr(err.msg, "no-such-dir"));
	lz_err_clear(&err);
	free(p);
}

static void
test_store_open_refuses_a_file_that_is_not_sqlite(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct store *st = NULL;
	char junk[4096];
	int fd;

	memset(junk, 'x', sizeof junk);
	fd = open(fx->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
	close(fd);
	assert_int_equal(store_open(fx->path, &st, &err), -1);
	assert_null(st);
	assert_non_null(strstr(err.msg, "is not a SQLite database"));
	assert_non_null(strstr(err.msg, fx->path));
	lz_err_clear(&err);
}

static void
test_store_open_refuses_a_symlink(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct store *st = NULL;
	char *target = xasprintf("%s/real.db", fx->dir);

	assert_int_equal(symlink(target, fx->path), 0);
	assert_int_equal(store_open(fx->path, &st, &err), -1);
	assert_non_null(strstr(err.msg, "symbolic link"));
	assert_int_equal(access(target, F_OK), -1);	/* nothing created through it */
	lz_err_clear(&err);
	free(target);
}

static void
test_store_open_refuses_a_newer_schema_and_leaves_it(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct store *st = NULL;
	sqlite3 *db = raw_open(fx->path);

	char *before;
	size_t len;

	raw_exec(db, "CREATE TABLE future (x); PRAGMA user_version=7;");
	raw_close(db);
	before = slurp(fx->path, &len);
	assert_int_equal(store_open(fx->path, &st, &err), -1);
	assert_null(st);
	assert_non_null(strstr(err.msg, "created by a newer Lazaret"));
	assert_non_null(strstr(err.msg, "version 7"));
	lz_err_clear(&err);
	assert_same_bytes(before, len, fx->path);
	assert_no_side_files(fx->path);
	free(before);
	db = raw_open(fx->path);
	assert_int_equal(fx_raw_int(db, "PRAGMA user_version"), 7);
	assert_int_equal(fx_raw_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'sessions'"), 0);
	raw_close(db);
}

static void
test_store_migrates_v1_session_blobs_to_typed_columns(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct store *st = NULL;
	struct seen sn = { 0 };

	make_v1(fx->path, NULL);
	assert_int_equal(store_open(fx->path, &st, &err), 0);
	assert_int_equal(fx_raw_int(store_db(st), "PRAGMA user_version"), 3);
	assert_int_equal(fx_raw_int(store_db(st),
	    "SELECT count(*) FROM pragma_table_info('sessions') WHERE name = 'info'"), 0);
	assert_int_equal(fx_raw_int(store_db(st),
	    "SELECT count(*) FROM sqlite_master WHERE name = 'sessions_v2'"), 0);
	assert_int_equal(store_session_list(st, collect_cb, &sn, &err), 0);
	assert_int_equal(sn.n, 3);
	assert_string_equal(sn.line[0], "s-ok web /home/u/proj pid=100 start=1700000100000 end=1700000200000 exit=0");
	assert_string_equal(sn.line[1], "s-kill ml /srv/a b pid=0 start=1700000150000 end=1700000160000 exit=137");
	assert_string_equal(sn.line[2], "s-run web /home/u/proj pid=4242 start=1700000300000 running0 exit=0");
	/* The converted running session can be ended through the v2 API. */
	assert_int_equal(store_session_end(st, "s-run", 3, 1700000400000, &err), 0);
	store_close(st);
	assert_no_side_files(fx->path);	/* the migration's journal is gone too */
}

static int
fail_midway_cb(sqlite3 *db, lz_err_t *err)
{
	if (store_exec(db, "CREATE TABLE half (x); INSERT INTO half VALUES (1);"
	    "UPDATE sessions SET pid = 0;", err) < 0)
		return -1;
	return lz_err_set(err, EIO, "injected failure");
}

static void
test_store_migration_failing_midway_leaves_the_file_unchanged(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct store_migrate_step steps[3];
	const struct store_migrate_step *prod;
	struct store *st = NULL;
	char *before, *after;
	sqlite3 *db;
	size_t n;
	int from = -1;

	make_v1(fx->path, NULL);
	prod = store_migrate_steps(&n);
	memcpy(steps, prod, 2 * sizeof steps[0]);
	steps[2] = (struct store_migrate_step){ "test: fails midway", fail_midway_cb };
	db = raw_open(fx->path);
	before = raw_dump(db);
	/* Runs the real v1->v2 copy, then the failing step: both undone. */
	assert_int_equal(store_migrate_run(db, steps, 3, &from, &err), -1);
	assert_int_equal(from, 1);
	assert_non_null(strstr(err.msg, "migrating schema version 2 to 3 (test: fails midway): injected failure"));
	lz_err_clear(&err);
	after = raw_dump(db);
	assert_string_equal(before, after);
	assert_int_equal(fx_raw_int(db, "PRAGMA user_version"), 1);
	assert_int_equal(fx_raw_int(db, "PRAGMA foreign_keys"), 0);
	raw_close(db);
	free(before);
	free(after);
	/* The product's own steps still succeed afterwards. */
	assert_int_equal(store_open(fx->path, &st, &err), 0);
	assert_int_equal(fx_raw_int(store_db(st), "PRAGMA user_version"), 3);
	assert_int_equal(fx_raw_int(store_db(st), "PRAGMA foreign_keys"), 1);
	store_close(st);
}

static void
test_store_open_with_a_bad_v1_row_names_it_and_keeps_v1(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct store *st = NULL;
	char *before, *after;
	sqlite3 *db;

	char *bytes;
	size_t len;

	make_v1(fx->path, "INSERT INTO sessions VALUES ('s-bad', 1, '{\"profile\":\"web\",');");
	db = raw_open(fx->path);
	before = raw_dump(db);
	raw_close(db);
	bytes = slurp(fx->path, &len);
	assert_int_equal(store_open(fx->path, &st, &err), -1);
	assert_null(st);
	assert_non_null(strstr(err.msg, "session s-bad: info is not valid JSON"));
	assert_non_null(strstr(err.msg, fx->path));
	lz_err_clear(&err);
	assert_same_bytes(bytes, len, fx->path);
	assert_no_side_files(fx->path);
	free(bytes);
	db = raw_open(fx->path);
	after = raw_dump(db);
	assert_string_equal(before, after);
	raw_close(db);
	free(before);
	free(after);
}

static void
test_store_session_records_begin_end_and_list(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct store *st = NULL;
	struct seen sn = { 0 };
	int64_t t0;

	assert_int_equal(store_open(fx->path, &st, &err), 0);
	assert_int_equal(store_session_begin(st, "a", "web", "/w", 11, 1000, &err), 0);
	assert_int_equal(store_session_begin(st, "b", "ml", "/m", 12, 2000, &err), 0);
	assert_int_equal(store_session_begin(st, "a", "web", "/w", 13, 3000, &err), -1);
	assert_non_null(strstr(err.msg, "session a is already recorded"));
	lz_err_clear(&err);
	assert_int_equal(store_session_end(st, "a", 0, 5000, &err), 0);
	assert_int_equal(store_session_end(st, "a", 1, 6000, &err), -1);
	assert_non_null(strstr(err.msg, "session a has already ended"));
	lz_err_clear(&err);
	assert_int_equal(store_session_end(st, "zz", 1, 6000, &err), -1);
	assert_non_null(strstr(err.msg, "no session zz"));
	lz_err_clear(&err);
	assert_int_equal(store_session_begin(st, "", "web", "/w", 1, 0, &err), -1);
	lz_err_clear(&err);
	t0 = store_now_ms();
	assert_int_equal(store_session_begin(st, "c", "web", "/w", 0, 0, &err), 0);
	store_close(st);
	/* Survives a reopen. */
	assert_int_equal(store_open(fx->path, &st, &err), 0);
	assert_int_equal(store_session_list(st, collect_cb, &sn, &err), 0);
	assert_int_equal(sn.n, 3);
	assert_string_equal(sn.line[0], "a web /w pid=11 start=1000 end=5000 exit=0");
	assert_string_equal(sn.line[1], "b ml /m pid=12 start=2000 running0 exit=0");
	assert_true(strncmp(sn.line[2], "c web /w pid=0 start=", 21) == 0);
	assert_true(strtoll(sn.line[2] + 21, NULL, 10) >= t0);
	store_close(st);
}

static void
test_store_second_connection_in_same_process_is_refused(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct store *a = NULL, *b = NULL;

	assert_int_equal(store_open(fx->path, &a, &err), 0);
	assert_int_equal(store_open(fx->path, &b, &err), -1);
	assert_null(b);
	assert_non_null(strstr(err.msg, "is in use by another process"));
	lz_err_clear(&err);
	store_close(a);
}

struct child_report {
	int rc;
	int64_t ms;
	char msg[512];
};

static void
child_try(const char *path, int wfd)
{
	struct child_report r = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	struct store *st = NULL;
	int64_t t0 = fx_mono_ms();

	r.rc = store_open(path, &st, &err);
	r.ms = fx_mono_ms() - t0;
	snprintf(r.msg, sizeof r.msg, "%s", err.msg != NULL ? err.msg : "");
	lz_err_clear(&err);
	if (st != NULL && store_session_begin(st, "child", "web", "/w", getpid(), 0, &err) < 0)
		r.rc = -2;
	store_close(st);
	if (write(wfd, &r, sizeof r) != (ssize_t)sizeof r)
		_exit(3);
}

/* The child is forked before the parent opens the store: SQLite state must
 * not cross a fork (its in-process lock table would come along). */
static void
test_store_second_process_fails_at_once_then_opens_after_close(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct child_report r;
	struct store *st = NULL;
	int c2p[2], p2c[2], ws;
	char go;
	pid_t pid;

	assert_int_equal(pipe(c2p), 0);
	assert_int_equal(pipe(p2c), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(c2p[0]);
		close(p2c[1]);
		if (read(p2c[0], &go, 1) != 1)
			_exit(4);
		child_try(fx->path, c2p[1]);
		if (read(p2c[0], &go, 1) != 1)
			_exit(4);
		child_try(fx->path, c2p[1]);
		_exit(0);
	}
	close(c2p[1]);
	close(p2c[0]);
	assert_int_equal(store_open(fx->path, &st, &err), 0);
	assert_int_equal(store_session_begin(st, "parent", "web", "/w", getpid(), 0, &err), 0);
	assert_int_equal(write(p2c[1], "1", 1), 1);
	assert_int_equal(read(c2p[0], &r, sizeof r), (ssize_t)sizeof r);
	assert_int_equal(r.rc, -1);
	assert_true(r.ms < 500);
	assert_non_null(strstr(r.msg, "is in use by another process"));
	assert_non_null(strstr(r.msg, fx->path));
	assert_non_null(strstr(r.msg, "lazaret status"));
	store_close(st);
	assert_int_equal(write(p2c[1], "2", 1), 1);
	assert_int_equal(read(c2p[0], &r, sizeof r), (ssize_t)sizeof r);
	if (r.rc != 0)
		fail_msg("child's open after close: %s", r.msg);
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	close(c2p[0]);
	close(p2c[1]);
	/* The child's write landed. */
	assert_int_equal(store_open(fx->path, &st, &err), 0);
	assert_int_equal(fx_raw_int(store_db(st), "SELECT count(*) FROM sessions"), 2);
	store_close(st);
}

/* A coordinator killed with SIGKILL leaves its WAL behind and no lock. */
static void
test_store_survives_a_killed_owner_and_recovers_its_wal(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct audit_verify_result vr;
	struct store *st = NULL;
	char *wal = xasprintf("%s-wal", fx->path);
	int ws, i;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct audit_rec rec = { .kind = "session.start", .actor = "child" };

		if (store_open(fx->path, &st, &err) < 0 ||
		    store_session_begin(st, "k", "web", "/w", getpid(), 0, &err) < 0)
			_exit(2);
		for (i = 0; i < 10; i++)
			if (audit_append(st, &rec, NULL, &err) < 0)
				_exit(3);
		kill(getpid(), SIGKILL);
		_exit(4);
	}
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
	assert_int_equal(access(wal, F_OK), 0);	/* never checkpointed */
	if (store_open(fx->path, &st, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(fx_raw_int(store_db(st), "SELECT count(*) FROM sessions WHERE id = 'k'"), 1);
	assert_int_equal(audit_verify(st, &vr, &err), 0);
	assert_true(vr.ok);
	assert_int_equal(vr.rows, 10);
	audit_verify_result_clear(&vr);
	store_close(st);
	free(wal);
}

static void
test_store_tx_rollback_undoes_nested_writes(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct store *st = NULL;
	struct audit_rec rec = { .kind = "session.start", .actor = "test" };

	assert_int_equal(store_open(fx->path, &st, &err), 0);
	assert_int_equal(store_tx_begin(st, &err), 0);
	assert_int_equal(store_session_begin(st, "x", "web", "/w", 1, 0, &err), 0);
	assert_int_equal(audit_append(st, &rec, NULL, &err), 0);
	store_tx_rollback(st);
	assert_int_equal(fx_raw_int(store_db(st), "SELECT count(*) FROM sessions"), 0);
	assert_int_equal(fx_raw_int(store_db(st), "SELECT count(*) FROM audit"), 0);
	assert_int_equal(fx_raw_int(store_db(st), "SELECT seq FROM audit_head"), 0);
	assert_int_equal(store_tx_begin(st, &err), 0);
	assert_int_equal(audit_append(st, &rec, NULL, &err), 0);
	assert_int_equal(store_tx_commit(st, &err), 0);
	assert_int_equal(fx_raw_int(store_db(st), "SELECT count(*) FROM audit"), 1);
	store_close(st);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, fx_setup, fx_teardown)
		T(test_store_open_creates_private_wal_file_at_current_version),
		T(test_store_open_in_missing_directory_names_it),
		T(test_store_open_refuses_a_file_that_is_not_sqlite),
		T(test_store_open_refuses_a_symlink),
		T(test_store_open_refuses_a_newer_schema_and_leaves_it),
		T(test_store_migrates_v1_session_blobs_to_typed_columns),
		T(test_store_migration_failing_midway_leaves_the_file_unchanged),
		T(test_store_open_with_a_bad_v1_row_names_it_and_keeps_v1),
		T(test_store_session_records_begin_end_and_list),
		T(test_store_second_connection_in_same_process_is_refused),
		T(test_store_second_process_fails_at_once_then_opens_after_close),
		T(test_store_survives_a_killed_owner_and_recovers_its_wal),
		T(test_store_tx_rollback_undoes_nested_writes),
#undef T
	};

	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
