/* audit.h - the hash-chained audit trail in the state store.
 *
 * Rows are numbered 1, 2, ... (seq). Each row stores the hash of the row
 * before it (prev_hash; 32 zero bytes for row 1) and its own hash, SHA-256
 * over a length-prefixed encoding of (seq, ts, kind, actor, session_id,
 * request_id, detail, prev_hash). A head row holds the last seq and hash,
 * updated in the same transaction as the append, so a cut tail shows too.
 * Editing, deleting, reordering or cutting rows breaks audit_verify. Someone
 * who rewrites the whole chain and the head with the file in hand is caught
 * by the external anchor: each row's hash is also appended to the user's
 * append-only anchor file outside state.db (audit-anchor.h, which says what
 * it protects against and what not), and audit_verify compares every row
 * with it and names the first that differs.
 */
#ifndef LZ_AUDIT_H
#define LZ_AUDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "store/store.h"

#define AUDIT_HASH_LEN 32
#define AUDIT_KIND_MAX 64		/* [a-z0-9._-]+ */
#define AUDIT_FIELD_MAX 4096		/* actor, session_id, request_id */
#define AUDIT_DETAIL_MAX (1024 * 1024)	/* JSON text */

struct audit_rec {
	int64_t     ts;		/* unix ms; 0: now */
	const char *kind;	/* "session.start", "esc.request", "esc.decision", ... */
	const char *actor;	/* who acted: "coordinator", "user", a session id */
	const char *session_id;	/* may be NULL */
	const char *request_id;	/* may be NULL */
	const char *detail;	/* JSON text; NULL: "{}" */
};

/* A stored row, as audit_list hands it over (valid during the callback). */
struct audit_row {
	int64_t seq;
	struct audit_rec rec;
	uint8_t prev_hash[AUDIT_HASH_LEN];
	uint8_t hash[AUDIT_HASH_LEN];
};

struct audit_verify_result {
	bool    ok;
	int64_t rows;		/* rows walked */
	int64_t bad_seq;	/* first bad seq when !ok */
	char   *why;		/* owned; what is wrong at bad_seq */
	int64_t anchored;	/* rows that matched their anchor */
	char   *anchor_file;	/* owned; the anchor file read */
	bool    anchor_present;	/* it exists */
	bool    anchor_append_only;	/* and carries the append-only flag */
};

/* Append rec as the next row (its own transaction, nested in an open
 * store_tx). *seq (if not NULL) receives its number. */
int audit_append(struct store *, const struct audit_rec *rec, int64_t *seq, lz_err_t *err);
/* Append recs[0..n-1] as the next n rows in one transaction: all of them
 * or none. *seq (if not NULL) receives the number of the last. */
int audit_append_n(struct store *, const struct audit_rec *recs, size_t n, int64_t *seq,
    lz_err_t *err);

/* audit_append from the loop thread: rec is copied (ts 0 becomes now, the
 * time of the event), appended on the threadpool through store_submit, and
 * done (may be NULL) runs on the loop thread with the status, the new seq
 * and the error (done may steal err->msg). */
typedef void (*audit_done_fn)(void *arg, int status, int64_t seq, lz_err_t *err);
void audit_submit(uv_loop_t *loop, struct store *, const struct audit_rec *rec,
    audit_done_fn done, void *arg);
/* audit_submit of n records as one audit_append_n (one transaction, one
 * trip to the threadpool); done once, with the seq of the last. */
void audit_submit_n(uv_loop_t *loop, struct store *, const struct audit_rec *recs, size_t n,
    audit_done_fn done, void *arg);

/* Walk the whole chain and the head. Returns 0 with res filled (res->ok says
 * whether the trail is intact), -1 if the walk itself failed. Clear res with
 * audit_verify_result_clear. */
int audit_verify(struct store *, struct audit_verify_result *res, lz_err_t *err);
void audit_verify_result_clear(struct audit_verify_result *);

/* Callback for audit_list; return non-zero to stop. */
typedef int (*audit_row_cb)(const struct audit_row *, void *arg);
/* Call cb for rows with seq > since_seq in order, at most limit (0: all). */
int audit_list(struct store *, int64_t since_seq, int64_t limit, audit_row_cb cb,
    void *arg, lz_err_t *err);

/* The hash of a row (exposed for tests and for `lazaret audit`). */
void audit_hash(int64_t seq, const struct audit_rec *rec,
    const uint8_t prev_hash[AUDIT_HASH_LEN], uint8_t out[AUDIT_HASH_LEN]);

#endif
