/* esc-server.h - the escalation socket <socket_dir>/<H>.esc (spec 5.x,
 * docs/escalation.md): TLS 1.3 mTLS over a UNIX socket, driven by the
 * coordinator's libuv loop, one request per connection.
 *
 * Per connection, in this order: the handshake (trust_handshake_step) and
 * trust_peer_check (this sandbox's SAN) before a byte of payload is read;
 * one REQUEST frame (header checked first, so an oversized length is refused
 * at once); esc_payload_parse; the Session Anchor registered for its
 * session_id (lz_sign_verify) and the replay window; the cwd mapped into the
 * host workspace and opened there by fd (esc-cwd.c); policy_decide_in.
 * Every refusal before a decision is answered with RESULT REJECTED and
 * audited with its reason; the server keeps serving. AUTO_APPROVE runs as
 * soon as its request and decision rows are committed (esc-exec.c);
 * NEEDS_PROMPT is queued (at most ESC_PENDING_MAX per session, and not while
 * the session is in its back-off after denials), announced through prompt_cb
 * (the coordinator routes it to the clients attached to that session) and
 * denied with TIMEOUT when no decision comes within timeout_ms.
 *
 * Audit first, fail closed: a command starts only after its request and
 * decision rows were committed (audit_cb's done with status 0). When a row
 * fails, nothing runs, the agent is refused (RESULT FAILED: the client exits
 * 125 with the message) and every later request is refused too until
 * audit_ok_cb says the store can write again.
 */
#ifndef LZ_ESC_SERVER_H
#define LZ_ESC_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "err.h"
#include "esc-ctl.h"
#include "esc-payload.h"
#include "policy.h"
#include "trust.h"

#define ESC_SERVER_TIMEOUT_MS	120000	/* default: no decision -> TIMEOUT */
#define ESC_SERVER_IO_MS	10000	/* handshake + request, and the final flush */
#define ESC_PENDING_MAX		4	/* requests of one session waiting for a human */
#define ESC_DENIALS_FREE	2	/* denials in a row before the back-off starts */
#define ESC_BACKOFF_MS		10000	/* after the 3rd denial; doubles, at most: */
#define ESC_BACKOFF_MAX_MS	300000

struct esc_server;

struct esc_server_opts {
	const char *path;		/* socket path (its directory checked 0700 ours) */
	const char *profile;		/* the sandbox's SAN: lazaret://profile/sandbox_id */
	const char *sandbox_id;
	struct trust_ca *ca;		/* issues the server certificate */
	const struct policy *policy;
	const char *host_workspace;	/* what /workspace is on the host */
	const char *sandbox_workspace;	/* the sandbox's side of it; NULL: /workspace */
	const char *review_repo;	/* the user's checkout: auto_approve is suspended while
					 * the agent's executable surface differs from it
					 * (review/review-gate.h); NULL: no such check */
	const char *exec_path;		/* PATH for host commands (the policy's) */
	const char *exec_home;		/* HOME for host commands */
	int timeout_ms;			/* decision deadline; <= 0: ESC_SERVER_TIMEOUT_MS */
	bool audit_down;		/* refuse until audit_ok_cb says the store can write */
};

/* What the coordinator sees of a request waiting for a human. */
struct esc_server_req {
	uint32_t ticket;
	char session_id[33];
	char request_id[33];
	const char *command, *justification, *cwd, *reason;
};

/* One audit record: kind "esc.*", detail JSON; done(done_arg, status) once
 * it is committed (0) or failed (< 0). */
struct esc_server_row {
	const char *kind, *actor, *session_id, *request_id, *detail;
	void (*done)(void *, int);
	void *done_arg;
};

struct esc_server_cbs {
	/* A verified request needs a decision (also for esc_server_pending). */
	void (*prompt_cb)(struct esc_server *, const struct esc_server_req *, void *arg);
	/* It no longer does (decided, timed out, its sandbox side went away). */
	void (*withdraw_cb)(struct esc_server *, const struct esc_server_req *, void *arg);
	/* Audit records, in order, committed together (one transaction: all
	 * or none; a verified request's own rows, so that it costs one commit);
	 * each row's done may be called before audit_cb returns. NULL: nothing
	 * is recorded and everything counts as committed. */
	void (*audit_cb)(const struct esc_server_row *rows, size_t n, void *arg);
	/* The human chose [Q]uit: shut the domain down. */
	void (*quit_cb)(void *arg);
	/* After a failed row: can the store write again (e.g. its reserve is
	 * back)? NULL: yes. */
	bool (*audit_ok_cb)(void *arg);
};

/* Bind path (a stale socket there is removed: the caller holds the lifetime
 * lock) under umask 077 and listen. */
int esc_server_new(uv_loop_t *loop, const struct esc_server_opts *o,
    const struct esc_server_cbs *cbs, void *arg, struct esc_server **out, lz_err_t *err);
/* Stop listening, deny what waits, kill what runs, close every handle; the
 * server is freed once they are closed (run the loop). NULL is a no-op. */
void esc_server_close(struct esc_server *);

/* The Session Anchor of a session: its client's public key. -1 when the
 * session id is registered already. */
int esc_server_register(struct esc_server *, const uint8_t session_id[ESC_ID_LEN],
    const uint8_t pk[32], lz_err_t *err);
/* Forget it; its waiting requests are denied ("session ended"). */
void esc_server_unregister(struct esc_server *, const char *session_id_hex);

/* prompt_cb for every request of session_id_hex (NULL: of every session)
 * still waiting (attach, ESC_LIST); how many. */
size_t esc_server_pending(struct esc_server *, const char *session_id_hex);
/* How many requests of session_id_hex (NULL: of any) wait for a human. */
size_t esc_server_waiting(struct esc_server *, const char *session_id_hex);
/* The session a waiting ticket belongs to, or NULL. */
const char *esc_server_ticket_session(struct esc_server *, uint32_t ticket);
/* Apply a human decision; actor says who ("uid 1000 pid 42"). -1 when no
 * request waits under that ticket (decided elsewhere or timed out). */
int esc_server_decide(struct esc_server *, uint32_t ticket, enum esc_ctl_action action,
    const char *edited, const char *actor, lz_err_t *err);

#endif
