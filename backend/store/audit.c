/* audit.c - the hash-chained audit trail (tables audit, audit_head; see
 * store.c for the schema and audit.h for what the chain does and does not
 * detect).
 *
 * Row hash = SHA-256 of, in this order:
 *   field("lazaret.audit.v1"), u64(seq), u64(ts), field(kind), field(actor),
 *   field(session_id), field(request_id), field(detail), field(prev_hash)
 * where u64 is 8 bytes big-endian (two's complement for ts) and field(x) is
 * one byte 0 for NULL, or one byte 1, u64(length) and the bytes. Every field
 * carries its length, so no two different rows encode alike.
 */
#include <errno.h>
#include <sodium.h>
#include <stdarg.h>
#include <string.h>

#include "store/audit.h"
#include "audit-anchor.h"
#include "xmalloc.h"

static const char audit_tag[] = "lazaret.audit.v1";

_Static_assert(AUDIT_ANCHOR_HASH_LEN == AUDIT_HASH_LEN, "the anchor keeps the row hash");

/* An audit_submit_n in flight: the records and copies of their strings. */
struct audit_job {
	struct audit_rec *recs;
	char **strs;		/* 5 a record */
	size_t n;
	int64_t seq;
	audit_done_fn done;
	void *arg;
};

static void
audit_put_u64(crypto_hash_sha256_state *h, uint64_t v)
{
	uint8_t b[8];
	int i;

	for (i = 7; i >= 0; i--) {
		b[i] = (uint8_t)(v & 0xff);
		v >>= 8;
	}
	crypto_hash_sha256_update(h, b, sizeof b);
}

static void
audit_put_field(crypto_hash_sha256_state *h, const void *p, size_t len)
{
	uint8_t present = p != NULL;

	crypto_hash_sha256_update(h, &present, 1);
	if (p == NULL)
		return;
	audit_put_u64(h, len);
	crypto_hash_sha256_update(h, p, len);
}

static void
audit_put_str(crypto_hash_sha256_state *h, const char *s)
{
	audit_put_field(h, s, s != NULL ? strlen(s) : 0);
}

void
audit_hash(int64_t seq, const struct audit_rec *rec,
    const uint8_t prev_hash[AUDIT_HASH_LEN], uint8_t out[AUDIT_HASH_LEN])
{
	crypto_hash_sha256_state h;

	crypto_hash_sha256_init(&h);
	audit_put_str(&h, audit_tag);
	audit_put_u64(&h, (uint64_t)seq);
	audit_put_u64(&h, (uint64_t)rec->ts);
	audit_put_str(&h, rec->kind);
	audit_put_str(&h, rec->actor);
	audit_put_str(&h, rec->session_id);
	audit_put_str(&h, rec->request_id);
	audit_put_str(&h, rec->detail);
	audit_put_field(&h, prev_hash, AUDIT_HASH_LEN);
	crypto_hash_sha256_final(&h, out);
}

static int
audit_check_field(const char *what, const char *s, bool required, lz_err_t *err)
{
	if (s == NULL && !required)
		return 0;
	if (s == NULL || *s == '\0')
		return lz_err_set(err, LZ_EINVAL, "audit record: %s is empty", what);
	if (strnlen(s, AUDIT_FIELD_MAX + 1) > AUDIT_FIELD_MAX)
		return lz_err_set(err, LZ_EINVAL, "audit record: %s is longer than %d bytes", what, AUDIT_FIELD_MAX);
	return 0;
}

/* Lengths and shapes first; JSON validity is asked of SQLite's JSON1. */
static int
audit_check(sqlite3 *db, const struct audit_rec *rec, lz_err_t *err)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	size_t i, n;

	if (rec->kind == NULL || (n = strnlen(rec->kind, AUDIT_KIND_MAX + 1)) == 0 || n > AUDIT_KIND_MAX)
		return lz_err_set(err, LZ_EINVAL, "audit record: kind must be 1 to %d characters", AUDIT_KIND_MAX);
	for (i = 0; i < n; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyz0123456789._-", rec->kind[i]) == NULL)
			return lz_err_set(err, LZ_EINVAL, "audit record: kind \"%s\" may hold only a-z, 0-9, '.', '_' and '-'", rec->kind);
	if (rec->ts < 0)
		return lz_err_set(err, LZ_EINVAL, "audit record: negative time");
	if (audit_check_field("actor", rec->actor, true, err) < 0 ||
	    audit_check_field("session_id", rec->session_id, false, err) < 0 ||
	    audit_check_field("request_id", rec->request_id, false, err) < 0)
		return -1;
	if (strnlen(rec->detail, AUDIT_DETAIL_MAX + 1) > AUDIT_DETAIL_MAX)
		return lz_err_set(err, LZ_EINVAL, "audit record: detail is longer than %d bytes", AUDIT_DETAIL_MAX);
	if (sqlite3_prepare_v2(db, "SELECT json_valid(?1)", -1, &st, NULL) != SQLITE_OK ||
	    store_bind_text(st, 1, rec->detail) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
		return store_sql_err(db, "checking audit detail", err);
	if (sqlite3_column_int(st, 0) != 1)
		return lz_err_set(err, LZ_EINVAL, "audit record %s: detail is not valid JSON", rec->kind);
	return 0;
}

/* Read the head (last seq and hash); false if missing or malformed. */
static int
audit_head(sqlite3 *db, bool *found, int64_t *seq, uint8_t hash[AUDIT_HASH_LEN], lz_err_t *err)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int rc;

	*found = false;
	if (sqlite3_prepare_v2(db, "SELECT seq, hash FROM audit_head WHERE id = 1", -1, &st, NULL) != SQLITE_OK)
		return store_sql_err(db, "reading the audit head", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return store_sql_err(db, "reading the audit head", err);
	if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || sqlite3_column_type(st, 1) != SQLITE_BLOB ||
	    sqlite3_column_bytes(st, 1) != AUDIT_HASH_LEN)
		return 0;
	*seq = sqlite3_column_int64(st, 0);
	memcpy(hash, sqlite3_column_blob(st, 1), AUDIT_HASH_LEN);
	*found = true;
	return 0;
}

/* Insert row seq after prev and move the head to it; inside the caller's
 * transaction. prev becomes the new row's hash (the next row's prev). */
static int
audit_insert(sqlite3 *db, int64_t seq, const struct audit_rec *rec,
    uint8_t prev[AUDIT_HASH_LEN], lz_err_t *err)
{
	static const char ins[] = "INSERT INTO audit (seq, ts, kind, actor, session_id,"
	    " request_id, detail, prev_hash, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
	static const char upd[] = "UPDATE audit_head SET seq = ?1, hash = ?2 WHERE id = 1";
	_cleanup_stmt_ sqlite3_stmt *i = NULL;
	_cleanup_stmt_ sqlite3_stmt *u = NULL;
	uint8_t hash[AUDIT_HASH_LEN];

	audit_hash(seq, rec, prev, hash);
	if (sqlite3_prepare_v2(db, ins, -1, &i, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(i, 1, seq) != SQLITE_OK ||
	    sqlite3_bind_int64(i, 2, rec->ts) != SQLITE_OK ||
	    store_bind_text(i, 3, rec->kind) != SQLITE_OK ||
	    store_bind_text(i, 4, rec->actor) != SQLITE_OK ||
	    store_bind_text(i, 5, rec->session_id) != SQLITE_OK ||
	    store_bind_text(i, 6, rec->request_id) != SQLITE_OK ||
	    store_bind_text(i, 7, rec->detail) != SQLITE_OK ||
	    sqlite3_bind_blob(i, 8, prev, AUDIT_HASH_LEN, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_blob(i, 9, hash, AUDIT_HASH_LEN, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_step(i) != SQLITE_DONE)
		return store_sql_err(db, "appending to the audit trail", err);
	if (sqlite3_prepare_v2(db, upd, -1, &u, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(u, 1, seq) != SQLITE_OK ||
	    sqlite3_bind_blob(u, 2, hash, AUDIT_HASH_LEN, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_step(u) != SQLITE_DONE)
		return store_sql_err(db, "moving the audit head", err);
	if (sqlite3_changes(db) != 1)
		return lz_err_set(err, EIO, "moving the audit head: no head row");
	memcpy(prev, hash, AUDIT_HASH_LEN);
	return 0;
}

int
audit_append_n(struct store *st, const struct audit_rec *in, size_t n, int64_t *seq,
    lz_err_t *err)
{
	sqlite3 *db = store_db(st);
	struct audit_rec rec;
	uint8_t prev[AUDIT_HASH_LEN], (*hashes)[AUDIT_HASH_LEN] = NULL;
	lz_err_t e = LZ_ERR_INIT;
	int64_t last = 0;
	bool found;
	size_t i;

	LZ_ASSERT(n > 0);
	for (i = 0; i < n; i++) {
		rec = in[i];
		if (rec.detail == NULL)
			rec.detail = "{}";
		if (audit_check(db, &rec, err) < 0)
			return -1;
	}
	if (store_tx_begin(st, err) < 0)
		return -1;
	hashes = xcalloc(n, sizeof *hashes);
	if (audit_head(db, &found, &last, prev, err) < 0)
		goto fail;
	if (!found || last < 0 || last > INT64_MAX - (int64_t)n) {
		lz_err_set(err, EIO, "the audit head is missing or damaged (check with \"lazaret audit --verify\")");
		goto fail;
	}
	for (i = 0; i < n; i++) {
		rec = in[i];
		if (rec.detail == NULL)
			rec.detail = "{}";
		if (rec.ts == 0)
			rec.ts = store_now_ms();
		if (audit_insert(db, last + 1, &rec, prev, err) < 0)
			goto fail;
		memcpy(hashes[i], prev, AUDIT_HASH_LEN);
		last++;
	}
	if (store_tx_commit(st, err) < 0)
		goto fail;
	/* Anchored once on disk (not inside a caller's transaction that may
	 * still roll back). A failed anchor loses no row: verify then counts
	 * the row as not anchored. */
	if (sqlite3_get_autocommit(db) &&
	    audit_anchor_append(store_path(st), last - (int64_t)n + 1, n,
	    (const uint8_t (*)[AUDIT_HASH_LEN])hashes, &e) < 0)
		lz_err_clear(&e);
	free(hashes);
	if (seq != NULL)
		*seq = last;
	return 0;
fail:
	free(hashes);
	store_tx_rollback(st);
	return -1;
}

int
audit_append(struct store *st, const struct audit_rec *in, int64_t *seq, lz_err_t *err)
{
	return audit_append_n(st, in, 1, seq, err);
}

/* Copy at most max + 1 bytes: enough for audit_check to refuse what is too long. */
static char *
audit_dup(const char *s, size_t max)
{
	return s != NULL ? xstrndup(s, max + 1) : NULL;
}

static int
audit_job_work_cb(struct store *st, void *arg, lz_err_t *err)
{
	struct audit_job *job = arg;

	return audit_append_n(st, job->recs, job->n, &job->seq, err);
}

static void
audit_job_done_cb(void *arg, int status, lz_err_t *err)
{
	struct audit_job *job = arg;
	size_t i;

	if (job->done != NULL)
		job->done(job->arg, status, status == 0 ? job->seq : 0, err);
	for (i = 0; i < 5 * job->n; i++)
		free(job->strs[i]);
	free(job->strs);
	free(job->recs);
	free(job);
}

void
audit_submit_n(uv_loop_t *loop, struct store *st, const struct audit_rec *recs, size_t n,
    audit_done_fn done, void *arg)
{
	struct audit_job *job = xcalloc(1, sizeof *job);
	size_t i;

	LZ_ASSERT(n > 0);
	job->n = n;
	job->recs = xcalloc(n, sizeof *job->recs);
	job->strs = xcalloc(5 * n, sizeof *job->strs);
	for (i = 0; i < n; i++) {
		char **s = job->strs + 5 * i;

		s[0] = audit_dup(recs[i].kind, AUDIT_KIND_MAX);
		s[1] = audit_dup(recs[i].actor, AUDIT_FIELD_MAX);
		s[2] = audit_dup(recs[i].session_id, AUDIT_FIELD_MAX);
		s[3] = audit_dup(recs[i].request_id, AUDIT_FIELD_MAX);
		s[4] = audit_dup(recs[i].detail, AUDIT_DETAIL_MAX);
		job->recs[i] = (struct audit_rec){
			.ts = recs[i].ts != 0 ? recs[i].ts : store_now_ms(),
			.kind = s[0], .actor = s[1], .session_id = s[2], .request_id = s[3],
			.detail = s[4],
		};
	}
	job->done = done;
	job->arg = arg;
	store_submit(loop, st, audit_job_work_cb, audit_job_done_cb, job);
}

void
audit_submit(uv_loop_t *loop, struct store *st, const struct audit_rec *rec,
    audit_done_fn done, void *arg)
{
	audit_submit_n(loop, st, rec, 1, done, arg);
}

#define AUDIT_SELECT "SELECT seq, ts, kind, actor, session_id, request_id," \
    " detail, prev_hash, hash FROM audit"

static const char *
audit_col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* Fill row from the current result row; false if a NOT NULL column is NULL
 * or a hash is not 32 bytes (the row was damaged behind our back). */
static bool
audit_row_read(sqlite3_stmt *st, struct audit_row *row)
{
	bool ok = true;
	int i;

	memset(row, 0, sizeof *row);
	row->seq = sqlite3_column_int64(st, 0);
	row->rec.ts = sqlite3_column_int64(st, 1);
	row->rec.kind = audit_col_text(st, 2);
	row->rec.actor = audit_col_text(st, 3);
	row->rec.session_id = audit_col_text(st, 4);
	row->rec.request_id = audit_col_text(st, 5);
	row->rec.detail = audit_col_text(st, 6);
	if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
	    row->rec.kind == NULL || row->rec.actor == NULL || row->rec.detail == NULL)
		ok = false;
	for (i = 7; i <= 8; i++) {
		uint8_t *dst = i == 7 ? row->prev_hash : row->hash;

		if (sqlite3_column_type(st, i) != SQLITE_BLOB || sqlite3_column_bytes(st, i) != AUDIT_HASH_LEN)
			ok = false;
		else
			memcpy(dst, sqlite3_column_blob(st, i), AUDIT_HASH_LEN);
	}
	return ok;
}

void
audit_verify_result_clear(struct audit_verify_result *res)
{
	free(res->why);
	free(res->anchor_file);
	memset(res, 0, sizeof *res);
}

/* Record the first fault; return 1 to stop the walk. */
static int __attribute__((format(printf, 3, 4)))
audit_bad(struct audit_verify_result *res, int64_t seq, const char *fmt, ...)
{
	va_list ap;

	res->ok = false;
	res->bad_seq = seq;
	free(res->why);
	va_start(ap, fmt);
	res->why = xvasprintf(fmt, ap);
	va_end(ap);
	return 1;
}

/* Check one row against the previous hash; 1 if it is bad. */
static int
audit_verify_row(const struct audit_row *row, bool wellformed, int64_t want,
    const uint8_t prev[AUDIT_HASH_LEN], struct audit_verify_result *res)
{
	uint8_t h[AUDIT_HASH_LEN];

	if (row->seq > want)
		return audit_bad(res, want, "row %lld is missing (the next row is %lld)",
		    (long long)want, (long long)row->seq);
	if (row->seq != want)
		return audit_bad(res, row->seq, "row %lld is out of sequence (expected row %lld)",
		    (long long)row->seq, (long long)want);
	if (!wellformed)
		return audit_bad(res, row->seq, "row %lld is damaged (a field is missing or a hash is not %d bytes)",
		    (long long)row->seq, AUDIT_HASH_LEN);
	audit_hash(row->seq, &row->rec, row->prev_hash, h);
	if (sodium_memcmp(h, row->hash, AUDIT_HASH_LEN) != 0)
		return audit_bad(res, row->seq, "row %lld was changed after it was written (its hash does not match its contents)",
		    (long long)row->seq);
	if (sodium_memcmp(prev, row->prev_hash, AUDIT_HASH_LEN) != 0)
		return audit_bad(res, row->seq, "row %lld does not follow row %lld (rows replaced, reordered or deleted)",
		    (long long)row->seq, (long long)row->seq - 1);
	return 0;
}

/* After an intact walk: the head must name the last row. */
static int
audit_verify_head(sqlite3 *db, int64_t last, const uint8_t last_hash[AUDIT_HASH_LEN],
    struct audit_verify_result *res, lz_err_t *err)
{
	uint8_t hash[AUDIT_HASH_LEN];
	int64_t seq = 0;
	bool found;

	if (audit_head(db, &found, &seq, hash, err) < 0)
		return -1;
	if (!found)
		audit_bad(res, last + 1, "the audit head is missing or damaged");
	else if (seq > last)
		audit_bad(res, last + 1, "rows %lld to %lld are missing: the head records %lld rows (the tail was cut)",
		    (long long)last + 1, (long long)seq, (long long)seq);
	else if (seq < last)
		audit_bad(res, seq + 1, "row %lld is beyond the head (%lld rows recorded): added behind the store's back",
		    (long long)seq + 1, (long long)seq);
	else if (sodium_memcmp(hash, last_hash, AUDIT_HASH_LEN) != 0)
		audit_bad(res, last, "row %lld does not match the hash the head records for it", (long long)last);
	return 0;
}

/* Row against the anchor file: 1 if the first hash anchored for its seq
 * is another. */
static int
audit_verify_anchor(const struct audit_row *row, const struct audit_anchors *an,
    struct audit_verify_result *res)
{
	const struct audit_anchor *a = audit_anchor_find(an, row->seq);

	if (a == NULL)
		return 0;
	if (sodium_memcmp(a->hash, row->hash, AUDIT_HASH_LEN) != 0)
		return audit_bad(res, row->seq, "row %lld differs from the hash anchored for it in "
		    "%s (history rewritten from this row on, its head with it)",
		    (long long)row->seq, an->file);
	res->anchored++;
	return 0;
}

int
audit_verify(struct store *st, struct audit_verify_result *res, lz_err_t *err)
{
	static const char sql[] = AUDIT_SELECT " ORDER BY seq";
	_cleanup_stmt_ sqlite3_stmt *q = NULL;
	sqlite3 *db = store_db(st);
	uint8_t prev[AUDIT_HASH_LEN] = { 0 };
	struct audit_anchors an;
	struct audit_row row;
	int64_t want = 1;
	int ret = -1;
	bool wf;
	int rc;

	memset(res, 0, sizeof *res);
	res->ok = true;
	if (audit_anchor_load(store_path(st), &an, err) < 0)
		goto out;
	res->anchor_file = xstrdup(an.file);
	res->anchor_present = an.present;
	res->anchor_append_only = an.append_only;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
		store_sql_err(db, "reading the audit trail", err);
		goto out;
	}
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		wf = audit_row_read(q, &row);
		/* The anchor first: a rewritten row may also break the chain
		 * inside, and the anchor says which row was rewritten. */
		if ((wf && row.seq == want && audit_verify_anchor(&row, &an, res) != 0) ||
		    audit_verify_row(&row, wf, want, prev, res) != 0) {
			ret = 0;
			goto out;
		}
		memcpy(prev, row.hash, AUDIT_HASH_LEN);
		res->rows++;
		want++;
	}
	if (rc != SQLITE_DONE) {
		store_sql_err(db, "reading the audit trail", err);
		goto out;
	}
	if (an.n > 0 && an.v[an.n - 1].seq >= want) {
		audit_bad(res, want, "row %lld is missing: %s anchors rows up to %lld (the tail "
		    "was cut, or the trail replaced)", (long long)want, an.file,
		    (long long)an.v[an.n - 1].seq);
		ret = 0;
		goto out;
	}
	ret = audit_verify_head(db, want - 1, prev, res, err);
out:
	audit_anchors_clear(&an);
	return ret;
}

int
audit_list(struct store *st, int64_t since_seq, int64_t limit, audit_row_cb cb,
    void *arg, lz_err_t *err)
{
	static const char sql[] = AUDIT_SELECT " WHERE seq > ?1 ORDER BY seq LIMIT ?2";
	_cleanup_stmt_ sqlite3_stmt *q = NULL;
	sqlite3 *db = store_db(st);
	struct audit_row row;
	int rc;

	if (limit < 0)
		return lz_err_set(err, LZ_EINVAL, "audit list: negative limit");
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(q, 1, since_seq) != SQLITE_OK ||
	    sqlite3_bind_int64(q, 2, limit > 0 ? limit : -1) != SQLITE_OK)
		return store_sql_err(db, "listing the audit trail", err);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		(void)audit_row_read(q, &row);
		if (row.rec.kind == NULL)
			row.rec.kind = "";
		if (row.rec.actor == NULL)
			row.rec.actor = "";
		if (row.rec.detail == NULL)
			row.rec.detail = "";
		if (cb(&row, arg) != 0)
			return 0;
	}
	if (rc != SQLITE_DONE)
		return store_sql_err(db, "listing the audit trail", err);
	return 0;
}
