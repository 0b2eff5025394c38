/* esc-server-int.h - what the four files of the escalation server share,
 * top to bottom: esc-server.c (listener, sessions), esc-request.c (a verified
 * request: policy, limits, audit first, the command; a human's decision),
 * esc-audit.c (audit rows, the server's last free) and esc-conn.c (one
 * connection's TLS I/O, timeouts and its one RESULT, reporting up through
 * struct esc_conn_cbs). Not for use outside backend/escalation/.
 */
#ifndef LZ_ESC_SERVER_INT_H
#define LZ_ESC_SERVER_INT_H

#include <openssl/ssl.h>
#include <sys/types.h>

#include "escalation/esc-exec.h"
#include "escalation/esc-server.h"
#include "escalation/esc-trace.h"
#include "jsonw.h"

struct review_gate;

#define ESC_OUT_HIGH	(1u << 20)	/* pause the command's output above this */
#define ESC_OUT_LOW	(256u << 10)
#define ESC_MAX_CONNS	64		/* a sandbox opening more is refused at accept */

enum esc_conn_state {
	ESC_C_HANDSHAKE,
	ESC_C_REQUEST,
	ESC_C_GATE,		/* auto-approved; waits for the review gate's check */
	ESC_C_PENDING,		/* waits for a human */
	ESC_C_AUDIT,		/* approved; waits for its audit rows to be committed */
	ESC_C_RUNNING,
	ESC_C_FLUSH,
	ESC_C_CLOSED,
};

struct esc_anchor {
	uint8_t sid[ESC_ID_LEN];
	char hex[33];
	uint8_t pk[32];
	int denials;		/* in a row; an approval resets it */
	int64_t backoff_until;	/* uv_now ms: prompted requests refused until then */
};

struct esc_conn;
struct lz_jsonw;

/* What a connection reports to its owner (the server gives them at accept,
 * as redis's ConnectionType): esc-conn.c calls nothing above it by name. */
struct esc_conn_cbs {
	/* a whole REQUEST frame's payload arrived (esc_conn_request) */
	void (*on_frame)(struct esc_conn *, const uint8_t *pl, size_t len);
	/* the connection's last reference is gone (esc_server_maybe_free) */
	void (*on_gone)(struct esc_server *);
	/* an audit row, as esc_audit */
	void (*audit)(struct esc_server *, const char *kind, const char *actor, struct esc_conn *,
	    struct lz_jsonw *w, void (*done)(void *, int));
};

struct esc_conn {
	struct esc_server *srv;
	const struct esc_conn_cbs *cbs;
	int fd;
	uv_poll_t poll;
	uv_timer_t timer;
	SSL *ssl;
	enum esc_conn_state st;
	int refs;
	int open_handles;
	bool want_write;	/* the last SSL call asked for writability */
	struct proto_buf in, out;
	size_t wlen;		/* length of a write to retry (OpenSSL wants it again) */
	struct esc_payload p;
	bool have_p;
	struct esc_server_req req;
	char *reason, *host_cwd;
	int dir_fd;		/* host_cwd, opened beneath the workspace root; -1 */
	bool audit_failed;	/* a row of this request was not committed */
	char **argv;
	char *file;		/* argv[0] resolved when the policy saw it; NULL: none */
	dev_t file_dev;		/* and what it was then */
	ino_t file_ino;
	struct esc_exec *x;
	struct esc_trace trace;	/* LAZARET_TRACE: when each step ended */
	struct esc_conn *next;
};

struct esc_server {
	uv_loop_t *loop;
	struct esc_server_opts o;
	struct esc_server_cbs cbs;
	void *arg;
	SSL_CTX *ctx;
	int lfd;
	int root_fd;		/* the host workspace, O_PATH */
	uv_poll_t lpoll;
	bool closing;
	bool audit_down;	/* an audit row failed: nothing runs until audit_ok_cb */
	int open_handles;	/* lpoll + live connections */
	struct esc_conn *conns;
	size_t n_conns;
	bool full_logged;	/* the "too many connections" refusal was audited */
	struct esc_anchor *anchors;
	size_t n_anchors;
	struct lz_sign_replay *replay;
	uint32_t next_ticket;
	int audit_hold;		/* > 0: esc_audit keeps rows for one commit */
	struct esc_server_row *held;	/* their strings owned */
	size_t n_held;
	struct review_gate *gate;	/* o.review_repo's, or NULL */
};

/* esc-audit.c */
void esc_server_maybe_free(struct esc_server *);
/* Close w and record it; c (may be NULL) names the session and request. A
 * row that could not be committed marks the server audit_down and c (held
 * until the store answered) audit_failed; then done(c, status) if given. */
void esc_audit(struct esc_server *, const char *kind, const char *actor, struct esc_conn *c,
    struct lz_jsonw *w, void (*done)(void *c, int status));
/* Between hold and release, esc_audit keeps the rows; release hands them
 * to the store as one transaction (the rows of one request). */
void esc_audit_hold(struct esc_server *);
void esc_audit_release(struct esc_server *);

/* esc-conn.c */
void esc_conn_unref(struct esc_conn *);
void esc_conn_close(struct esc_conn *);
void esc_conn_update(struct esc_conn *);
void esc_conn_pump(struct esc_conn *);
/* Write what is queued; -1 when the connection is dead (closed). */
int esc_conn_flush(struct esc_conn *);
void esc_conn_withdraw(struct esc_conn *);
/* Queue the one RESULT and finish the connection. */
void esc_conn_result(struct esc_conn *, enum esc_payload_outcome, int status, const char *msg);
/* Refused before any decision: audited with why, answered REJECTED. */
void esc_conn_reject(struct esc_conn *, const char *why);
void esc_conn_timeout_cb(uv_timer_t *);

/* esc-request.c */
/* A whole REQUEST frame's payload arrived. */
void esc_conn_request(struct esc_conn *, const uint8_t *pl, size_t len);
/* Approved (by the policy or a human): record the decision, run c->argv
 * once its rows are committed, refuse if they were not. */
void esc_conn_approved(struct esc_conn *, const char *actor, struct lz_jsonw *decision);
struct esc_anchor *esc_server_anchor(struct esc_server *, const uint8_t sid[ESC_ID_LEN]);
/* The request waiting for a human under ticket, or NULL. */
struct esc_conn *esc_server_ticket(struct esc_server *, uint32_t ticket);
/* Denied by a human: count it for the session's back-off. */
void esc_request_denied(struct esc_server *, const char *session_hex);
/* c->file: c->argv[0] resolved (policy_which) and its inode noted; what
 * runs is that file, and only while the path still names that inode. */
void esc_request_resolve(struct esc_conn *);
/* Approved by a human: the back-off starts over. */
void esc_request_approved(struct esc_server *, const char *session_hex);

#endif
