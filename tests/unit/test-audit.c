/* test-audit.c - the hash-chained audit trail: appends, listing, and
 * tampering with the real file through raw SQL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/audit.h"
#include "store/audit-anchor.h"
#include "store/store.h"
#include "testutil.h"
#include "xmalloc.h"

struct fx {
	char *dir;
	char *path;
	char *anchor;
	struct store *st;
};

static int
fx_setup(void **state)
{
	struct fx *fx = xcalloc(1, sizeof *fx);
	lz_err_t err = LZ_ERR_INIT;

	fx->dir = tu_mkdtemp("audit");
	fx->path = xasprintf("%s/state.db", fx->dir);
	fx->anchor = xasprintf("%s/anchor", fx->dir);
	/* Not the machine's anchor file: missing unless a test makes it. */
	setenv(AUDIT_ANCHOR_ENV, fx->anchor, 1);
	if (store_open(fx->path, &fx->st, &err) < 0)
		fail_msg("%s", err.msg);
	*state = fx;
	return 0;
}

static int
fx_teardown(void **state)
{
	struct fx *fx = *state;

	store_close(fx->st);
	tu_rmrf(fx->dir);
	free(fx->dir);
	free(fx->path);
	free(fx->anchor);
	free(fx);
	return 0;
}

/* Append n rows: "esc.request" with detail {"n":i}, a session on odd rows. */
static void
append_n(struct store *st, int n)
{
	lz_err_t err = LZ_ERR_INIT;
	char detail[64], req[32];
	int64_t seq;
	int i;

	for (i = 0; i < n; i++) {
		struct audit_rec rec = {
			.ts = 1700000000000 + i, .kind = "esc.request", .actor = "coordinator",
			.session_id = i % 2 ? "sess-1" : NULL, .request_id = req, .detail = detail,
		};

		snprintf(detail, sizeof detail, "{\"n\":%d}", i);
		snprintf(req, sizeof req, "req-%d", i);
		if (audit_append(st, &rec, &seq, &err) < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(seq, i + 1);
	}
}

static void
tamper(struct store *st, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(store_db(st), sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

/* Verify and expect a break at bad_seq whose reason contains why. */
static void
expect_broken(struct store *st, int64_t bad_seq, const char *why)
{
	struct audit_verify_result res;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(audit_verify(st, &res, &err), 0);
	assert_false(res.ok);
	assert_int_equal(res.bad_seq, bad_seq);
	if (strstr(res.why, why) == NULL)
		fail_msg("reason \"%s\" lacks \"%s\"", res.why, why);
	audit_verify_result_clear(&res);
}

static void
expect_intact(struct store *st, int64_t rows)
{
	struct audit_verify_result res;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(audit_verify(st, &res, &err), 0);
	if (!res.ok)
		fail_msg("seq %lld: %s", (long long)res.bad_seq, res.why);
	assert_int_equal(res.rows, rows);
	audit_verify_result_clear(&res);
}

static void
test_audit_empty_trail_verifies(void **state)
{
	struct fx *fx = *state;

	expect_intact(fx->st, 0);
}

static void
test_audit_intact_chain_of_1000_rows_verifies_after_reopen(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;

	append_n(fx->st, 1000);
	expect_intact(fx->st, 1000);
	store_close(fx->st);
	assert_int_equal(store_open(fx->path, &fx->st, &err), 0);
	expect_intact(fx->st, 1000);
	{
		struct audit_rec rec = { .kind = "session.end", .actor = "coordinator" };
		int64_t seq;

		assert_int_equal(audit_append(fx->st, &rec, &seq, &err), 0);
		assert_int_equal(seq, 1001);
	}
	expect_intact(fx->st, 1001);
}

static void
test_audit_edited_detail_fails_at_that_row(void **state)
{
	struct fx *fx = *state;

	append_n(fx->st, 20);
	tamper(fx->st, "UPDATE audit SET detail = '{\"n\":999}' WHERE seq = 7");
	expect_broken(fx->st, 7, "row 7 was changed after it was written");
}

static void
test_audit_edited_row_with_recomputed_hash_breaks_the_next_link(void **state)
{
	struct fx *fx = *state;
	struct audit_rec rec = { .ts = 1, .kind = "esc.decision", .actor = "forger", .detail = "{}" };
	uint8_t prev[AUDIT_HASH_LEN], h[AUDIT_HASH_LEN];
	sqlite3_stmt *q = NULL;

	append_n(fx->st, 10);
	/* A forger who rewrites row 4 consistently with its own prev_hash. */
	assert_int_equal(sqlite3_prepare_v2(store_db(fx->st),
	    "SELECT prev_hash FROM audit WHERE seq = 4", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	memcpy(prev, sqlite3_column_blob(q, 0), AUDIT_HASH_LEN);
	sqlite3_finalize(q);
	audit_hash(4, &rec, prev, h);
	assert_int_equal(sqlite3_prepare_v2(store_db(fx->st),
	    "UPDATE audit SET ts = 1, kind = 'esc.decision', actor = 'forger', session_id = NULL,"
	    " request_id = NULL, detail = '{}', hash = ?1 WHERE seq = 4", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_bind_blob(q, 1, h, AUDIT_HASH_LEN, SQLITE_STATIC), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_DONE);
	sqlite3_finalize(q);
	expect_broken(fx->st, 5, "row 5 does not follow row 4");
}

/* What someone with the user's files can do: row `from` edited, it and
 * every later row rehashed, the head moved; the chain holds inside. */
static void
rewrite_from(struct store *st, int64_t from, int64_t rows)
{
	uint8_t prev[AUDIT_HASH_LEN] = { 0 }, h[AUDIT_HASH_LEN];
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q = NULL;
	int64_t n;

	tamper(st, "UPDATE audit SET detail = '{\"n\":999}' WHERE seq = 4");
	for (n = 1; n <= rows; n++) {
		struct audit_rec rec;

		assert_int_equal(sqlite3_prepare_v2(db, "SELECT ts, kind, actor, session_id, "
		    "request_id, detail FROM audit WHERE seq = ?1", -1, &q, NULL), SQLITE_OK);
		sqlite3_bind_int64(q, 1, n);
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		rec = (struct audit_rec){ sqlite3_column_int64(q, 0),
		    (const char *)sqlite3_column_text(q, 1), (const char *)sqlite3_column_text(q, 2),
		    (const char *)sqlite3_column_text(q, 3), (const char *)sqlite3_column_text(q, 4),
		    (const char *)sqlite3_column_text(q, 5) };
		audit_hash(n, &rec, prev, h);
		sqlite3_finalize(q);
		if (n >= from) {
			assert_int_equal(sqlite3_prepare_v2(db, "UPDATE audit SET prev_hash = ?1, "
			    "hash = ?2 WHERE seq = ?3", -1, &q, NULL), SQLITE_OK);
			sqlite3_bind_blob(q, 1, prev, AUDIT_HASH_LEN, SQLITE_TRANSIENT);
			sqlite3_bind_blob(q, 2, h, AUDIT_HASH_LEN, SQLITE_TRANSIENT);
			sqlite3_bind_int64(q, 3, n);
			assert_int_equal(sqlite3_step(q), SQLITE_DONE);
			sqlite3_finalize(q);
		}
		memcpy(prev, h, AUDIT_HASH_LEN);
	}
	assert_int_equal(sqlite3_prepare_v2(db, "UPDATE audit_head SET seq = ?1, hash = ?2",
	    -1, &q, NULL), SQLITE_OK);
	sqlite3_bind_int64(q, 1, rows);
	sqlite3_bind_blob(q, 2, prev, AUDIT_HASH_LEN, SQLITE_TRANSIENT);
	assert_int_equal(sqlite3_step(q), SQLITE_DONE);
	sqlite3_finalize(q);
}

static void
test_audit_rewritten_history_with_its_head_fails_on_the_anchor(void **state)
{
	struct fx *fx = *state;
	struct audit_verify_result res;
	lz_err_t err = LZ_ERR_INIT;
	FILE *f;

	tu_write_file(fx->dir, "anchor", "");
	append_n(fx->st, 10);
	assert_int_equal(audit_verify(fx->st, &res, &err), 0);
	assert_true(res.ok && res.anchor_present);
	assert_int_equal(res.anchored, 10);
	audit_verify_result_clear(&res);
	/* Without the anchor the chain alone cannot tell. */
	rewrite_from(fx->st, 4, 10);
	setenv(AUDIT_ANCHOR_ENV, "/nonexistent/lz-anchor", 1);
	expect_intact(fx->st, 10);
	setenv(AUDIT_ANCHOR_ENV, fx->anchor, 1);
	expect_broken(fx->st, 4, "row 4 differs from the hash anchored for it");
	/* Lines appended afterwards (the forger's own, and garbage) do not count. */
	f = fopen(fx->anchor, "a");
	assert_non_null(f);
	fprintf(f, "v1 4 %064d %s\nv1 99999999999999 x %s\nnot a line\nv1 4", 0, fx->path,
	    fx->path);
	fclose(f);
	expect_broken(fx->st, 4, "row 4 differs from the hash anchored for it");
	/* A cut tail with its head moved back: the anchors still name the rows. */
	tamper(fx->st, "DELETE FROM audit WHERE seq > 3");
	rewrite_from(fx->st, 4, 3);
	expect_broken(fx->st, 4, "row 4 is missing: ");
}

static void
test_audit_deleted_middle_row_fails(void **state)
{
	struct fx *fx = *state;

	append_n(fx->st, 20);
	tamper(fx->st, "DELETE FROM audit WHERE seq = 10");
	expect_broken(fx->st, 10, "row 10 is missing (the next row is 11)");
}

static void
test_audit_deleted_and_renumbered_rows_fail(void **state)
{
	struct fx *fx = *state;

	append_n(fx->st, 20);
	tamper(fx->st, "DELETE FROM audit WHERE seq = 10;"
	    "UPDATE audit SET seq = -seq WHERE seq > 10;"
	    "UPDATE audit SET seq = -seq - 1 WHERE seq < 0;"
	    "UPDATE audit_head SET seq = 19");
	expect_broken(fx->st, 10, "row 10 was changed");
}

static void
test_audit_swapped_rows_fail(void **state)
{
	struct fx *fx = *state;

	append_n(fx->st, 20);
	/* Swap everything but seq between rows 5 and 6. */
	tamper(fx->st,
	    "CREATE TEMP TABLE t AS SELECT * FROM audit WHERE seq IN (5, 6);"
	    "UPDATE audit SET (ts, kind, actor, session_id, request_id, detail, prev_hash, hash) ="
	    " (SELECT ts, kind, actor, session_id, request_id, detail, prev_hash, hash FROM t"
	    "  WHERE t.seq = 11 - audit.seq) WHERE seq IN (5, 6);"
	    "DROP TABLE t");
	expect_broken(fx->st, 5, "row 5");
}

static void
test_audit_swapped_details_fail(void **state)
{
	struct fx *fx = *state;

	append_n(fx->st, 20);
	tamper(fx->st,
	    "UPDATE audit SET detail = CASE seq WHEN 3 THEN '{\"n\":3}' ELSE '{\"n\":2}' END"
	    " WHERE seq IN (3, 4)");
	expect_broken(fx->st, 3, "row 3 was changed");
}

static void
test_audit_deleted_last_row_fails_on_the_head(void **state)
{
	struct fx *fx = *state;

	append_n(fx->st, 20);
	tamper(fx->st, "DELETE FROM audit WHERE seq = 20");
	expect_broken(fx->st, 20, "the head records 20 rows (the tail was cut)");
}

static void
test_audit_row_added_behind_the_store_fails(void **state)
{
	struct fx *fx = *state;

	append_n(fx->st, 6);
	/* Row 6 chains correctly, but the head never recorded it. */
	tamper(fx->st, "UPDATE audit_head SET seq = 5, hash = (SELECT hash FROM audit WHERE seq = 5)");
	expect_broken(fx->st, 6, "row 6 is beyond the head");
}

static void
test_audit_append_after_cut_tail_still_shows_the_gap(void **state)
{
	struct fx *fx = *state;

	append_n(fx->st, 5);
	tamper(fx->st, "DELETE FROM audit WHERE seq = 5");
	{
		struct audit_rec rec = { .kind = "session.start", .actor = "coordinator" };
		lz_err_t err = LZ_ERR_INIT;
		int64_t seq;

		assert_int_equal(audit_append(fx->st, &rec, &seq, &err), 0);
		assert_int_equal(seq, 6);
	}
	expect_broken(fx->st, 5, "row 5 is missing");
}

static void
test_audit_hash_encoding_is_unambiguous(void **state)
{
	uint8_t z[AUDIT_HASH_LEN] = { 0 }, a[AUDIT_HASH_LEN], b[AUDIT_HASH_LEN];
	struct audit_rec r1 = { .ts = 5, .kind = "k", .actor = "ab", .session_id = "c", .detail = "{}" };
	struct audit_rec r2 = { .ts = 5, .kind = "k", .actor = "a", .session_id = "bc", .detail = "{}" };
	struct audit_rec r3 = { .ts = 5, .kind = "k", .actor = "a", .session_id = "", .detail = "{}" };
	struct audit_rec r4 = { .ts = 5, .kind = "k", .actor = "a", .session_id = NULL, .detail = "{}" };

	(void)state;
	audit_hash(1, &r1, z, a);
	audit_hash(1, &r2, z, b);
	assert_memory_not_equal(a, b, AUDIT_HASH_LEN);
	audit_hash(1, &r3, z, a);
	audit_hash(1, &r4, z, b);
	assert_memory_not_equal(a, b, AUDIT_HASH_LEN);
	audit_hash(1, &r1, z, a);
	audit_hash(2, &r1, z, b);
	assert_memory_not_equal(a, b, AUDIT_HASH_LEN);
	audit_hash(1, &r1, z, b);
	assert_memory_equal(a, b, AUDIT_HASH_LEN);
}

struct listed {
	int n;
	int64_t first, last;
	bool null_session_seen;
};

static int
list_cb(const struct audit_row *row, void *arg)
{
	struct listed *l = arg;

	if (l->n++ == 0)
		l->first = row->seq;
	l->last = row->seq;
	if (row->rec.session_id == NULL)
		l->null_session_seen = true;
	return 0;
}

static int
stop_cb(const struct audit_row *row, void *arg)
{
	(void)row;
	return ++*(int *)arg == 2;
}

static void
test_audit_list_since_and_limit(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct listed l = { 0 };
	int n = 0;

	append_n(fx->st, 30);
	assert_int_equal(audit_list(fx->st, 10, 5, list_cb, &l, &err), 0);
	assert_int_equal(l.n, 5);
	assert_int_equal(l.first, 11);
	assert_int_equal(l.last, 15);
	assert_true(l.null_session_seen);
	memset(&l, 0, sizeof l);
	assert_int_equal(audit_list(fx->st, 25, 0, list_cb, &l, &err), 0);
	assert_int_equal(l.n, 5);
	assert_int_equal(l.last, 30);
	assert_int_equal(audit_list(fx->st, 0, 0, stop_cb, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(audit_list(fx->st, 0, -1, list_cb, &l, &err), -1);
	lz_err_clear(&err);
}

static void
expect_rejected(struct store *st, const struct audit_rec *rec, const char *why)
{
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(audit_append(st, rec, NULL, &err), -1);
	if (strstr(err.msg, why) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", err.msg, why);
	lz_err_clear(&err);
}

static void
test_audit_rejects_malformed_records_and_appends_nothing(void **state)
{
	struct fx *fx = *state;
	char *big = xmalloc(AUDIT_FIELD_MAX + 2);
	struct audit_rec r = { .kind = "esc.request", .actor = "c", .detail = "{\"a\":" };

	memset(big, 'a', AUDIT_FIELD_MAX + 1);
	big[AUDIT_FIELD_MAX + 1] = '\0';
	expect_rejected(fx->st, &r, "detail is not valid JSON");
	r.detail = NULL;
	r.kind = "Esc;Drop";
	expect_rejected(fx->st, &r, "may hold only");
	r.kind = "";
	expect_rejected(fx->st, &r, "kind must be");
	r.kind = "esc.request";
	r.actor = NULL;
	expect_rejected(fx->st, &r, "actor is empty");
	r.actor = "c";
	r.request_id = big;
	expect_rejected(fx->st, &r, "request_id is longer than");
	r.request_id = NULL;
	r.ts = -1;
	expect_rejected(fx->st, &r, "negative time");
	expect_intact(fx->st, 0);
	free(big);
}

struct sub {
	int n, bad;
	int64_t last_seq;
	char why[128];
};

static void
sub_done_cb(void *arg, int status, int64_t seq, lz_err_t *err)
{
	struct sub *sb = arg;

	sb->n++;
	if (status != 0) {
		sb->bad++;
		snprintf(sb->why, sizeof sb->why, "%s", err->msg);
	} else if (seq != sb->last_seq + 1)
		sb->bad++;
	else
		sb->last_seq = seq;
}

static int
sub_check_cb(const struct audit_row *row, void *arg)
{
	char want[32];

	snprintf(want, sizeof want, "{\"k\":%lld}", (long long)row->seq - 1);
	if (strcmp(row->rec.detail, want) != 0 || strcmp(row->rec.session_id, "s-7") != 0 ||
	    row->rec.ts < 1000)
		++*(int *)arg;
	return 0;
}

static void
test_audit_submit_copies_the_record_and_appends_in_order(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct sub sb = { 0 };
	char detail[32], sid[8];
	uv_loop_t loop;
	int i, wrong = 0;

	assert_int_equal(uv_loop_init(&loop), 0);
	for (i = 0; i < 50; i++) {
		struct audit_rec rec = { .kind = "esc.result", .actor = "coordinator",
		    .session_id = sid, .detail = detail };

		snprintf(detail, sizeof detail, "{\"k\":%d}", i);
		snprintf(sid, sizeof sid, "s-7");
		audit_submit(&loop, fx->st, &rec, sub_done_cb, &sb);
		memset(detail, 'X', sizeof detail - 1);	/* the copy must not see this */
		memset(sid, 'X', sizeof sid - 1);
	}
	{
		struct audit_rec bad = { .kind = "esc.result", .actor = "c", .detail = "not json" };

		audit_submit(&loop, fx->st, &bad, NULL, NULL);	/* fails, nobody told */
	}
	assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
	assert_int_equal(uv_loop_close(&loop), 0);
	if (sb.bad != 0)
		fail_msg("%d bad: %s", sb.bad, sb.why);
	assert_int_equal(sb.n, 50);
	assert_int_equal(sb.last_seq, 50);
	assert_int_equal(audit_list(fx->st, 0, 0, sub_check_cb, &wrong, &err), 0);
	assert_int_equal(wrong, 0);
	expect_intact(fx->st, 50);
}

/* One row at a time through the loop, as the coordinator writes them: the
 * store checkpoints between jobs (not inside a commit), so the WAL stays
 * near 1000 frames (~4 MB) instead of growing with every row (~20 MB for
 * these 2500 without a checkpoint), and every row is there. */
struct chain {
	struct store *st;
	uv_loop_t *loop;
	int left;
	struct sub sb;
};

static void
chain_done_cb(void *arg, int status, int64_t seq, lz_err_t *err)
{
	struct chain *ch = arg;
	struct audit_rec rec = { .kind = "esc.request", .actor = "s1", .request_id = "r",
		.detail = "{\"command\":\"true\",\"cwd\":\"/workspace\",\"verdict\":\"auto-approve\"}" };

	if (seq != 0 || status != 0)
		sub_done_cb(&ch->sb, status, seq, err);
	if (ch->left-- > 0)
		audit_submit(ch->loop, ch->st, &rec, chain_done_cb, ch);
}

static void
test_audit_store_checkpoints_between_jobs(void **state)
{
	struct fx *fx = *state;
	struct chain ch = { .st = fx->st, .left = 2500 };
	uv_loop_t loop;
	struct stat sb;
	char *wal = xasprintf("%s-wal", fx->path);

	assert_int_equal(uv_loop_init(&loop), 0);
	ch.loop = &loop;
	chain_done_cb(&ch, 0, 0, NULL);
	assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
	assert_int_equal(uv_loop_close(&loop), 0);
	if (ch.sb.bad != 0)
		fail_msg("%d bad: %s", ch.sb.bad, ch.sb.why);
	assert_int_equal(ch.sb.last_seq, 2500);
	assert_int_equal(stat(wal, &sb), 0);
	if (sb.st_size > 6 * 1024 * 1024)
		fail_msg("the WAL grew to %lld bytes: no checkpoint ran", (long long)sb.st_size);
	expect_intact(fx->st, 2500);
	free(wal);
}

/* n rows in one transaction: chained like n appends; one bad record and
 * none of them is there. */
static void
test_audit_append_n_is_all_or_nothing(void **state)
{
	struct fx *fx = *state;
	lz_err_t err = LZ_ERR_INIT;
	struct audit_rec recs[3] = {
		{ .kind = "esc.request", .actor = "s1", .request_id = "r1", .detail = "{\"a\":1}" },
		{ .kind = "esc.decision", .actor = "policy", .request_id = "r1", .detail = "{}" },
		{ .kind = "esc.result", .actor = "coordinator", .request_id = "r1" },
	};
	int64_t seq = 0;

	append_n(fx->st, 2);
	assert_int_equal(audit_append_n(fx->st, recs, 3, &seq, &err), 0);
	assert_int_equal(seq, 5);
	expect_intact(fx->st, 5);
	recs[1].detail = "{not json";
	assert_int_equal(audit_append_n(fx->st, recs, 3, &seq, &err), -1);
	assert_non_null(strstr(err.msg, "not valid JSON"));
	lz_err_clear(&err);
	recs[1].detail = "{}";
	recs[2].kind = "Bad Kind";
	assert_int_equal(audit_append_n(fx->st, recs, 3, &seq, &err), -1);
	lz_err_clear(&err);
	expect_intact(fx->st, 5);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, fx_setup, fx_teardown)
		T(test_audit_empty_trail_verifies),
		T(test_audit_intact_chain_of_1000_rows_verifies_after_reopen),
		T(test_audit_edited_detail_fails_at_that_row),
		T(test_audit_edited_row_with_recomputed_hash_breaks_the_next_link),
		T(test_audit_deleted_middle_row_fails),
		T(test_audit_deleted_and_renumbered_rows_fail),
		T(test_audit_swapped_rows_fail),
		T(test_audit_swapped_details_fail),
		T(test_audit_deleted_last_row_fails_on_the_head),
		T(test_audit_row_added_behind_the_store_fails),
		T(test_audit_append_after_cut_tail_still_shows_the_gap),
		cmocka_unit_test(test_audit_hash_encoding_is_unambiguous),
		T(test_audit_rewritten_history_with_its_head_fails_on_the_anchor),
		T(test_audit_list_since_and_limit),
		T(test_audit_rejects_malformed_records_and_appends_nothing),
		T(test_audit_submit_copies_the_record_and_appends_in_order),
		T(test_audit_append_n_is_all_or_nothing),
		T(test_audit_store_checkpoints_between_jobs),
#undef T
	};

	return cmocka_run_group_tests_name("audit", tests, NULL, NULL);
}
