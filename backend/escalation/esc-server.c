/* esc-server.c - the escalation listener (see esc-server.h).
 *
 * Theory of operation. The listening socket and every connection are
 * uv_poll_t handles on raw fds, because OpenSSL does its own reads and
 * writes. A connection walks HANDSHAKE -> REQUEST -> (PENDING | RUNNING) ->
 * FLUSH -> closed; esc_conn_pump() is called on every readiness event and
 * does whatever the state allows: a handshake step, SSL_read into the frame
 * buffer, or (after the request) reads that only watch for the peer going
 * away. Output is appended to conn->out and written by esc_conn_flush(),
 * which remembers a WANT_WRITE so the poll asks for writability. A
 * connection holds one reference for its handles and one while its command
 * runs; it is freed when both are gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <sodium.h>

#include "coord/ctl-server.h"
#include "escalation/esc-exec.h"
#include "escalation/esc-server.h"
#include "jsonw.h"
#include "review/review-gate.h"
#include "shellwords.h"
#include "sign.h"
#include "strv.h"
#include "xmalloc.h"

#define ESC_OUT_HIGH	(1u << 20)	/* pause the command's output above this */
#define ESC_OUT_LOW	(256u << 10)
#define ESC_MAX_CONNS	64		/* a sandbox opening more is refused at accept */

enum esc_conn_state {
	ESC_C_HANDSHAKE,
	ESC_C_REQUEST,
	ESC_C_PENDING,
	ESC_C_RUNNING,
	ESC_C_FLUSH,
	ESC_C_CLOSED,
};

struct esc_anchor {
	uint8_t sid[ESC_ID_LEN];
	char hex[33];
	uint8_t pk[32];
};

struct esc_conn {
	struct esc_server *srv;
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
	char **argv;
	struct esc_exec *x;
	struct esc_conn *next;
};

struct esc_server {
	uv_loop_t *loop;
	struct esc_server_opts o;
	struct esc_server_cbs cbs;
	void *arg;
	SSL_CTX *ctx;
	int lfd;
	uv_poll_t lpoll;
	bool closing;
	int open_handles;	/* lpoll + live connections */
	struct esc_conn *conns;
	size_t n_conns;
	bool full_logged;	/* the "too many connections" refusal was audited */
	struct esc_anchor *anchors;
	size_t n_anchors;
	struct lz_sign_replay *replay;
	uint32_t next_ticket;
};

static void esc_conn_pump(struct esc_conn *);
static void esc_conn_update(struct esc_conn *);
static void esc_conn_close(struct esc_conn *);

static void
esc_server_maybe_free(struct esc_server *s)
{
	size_t i;

	if (!s->closing || s->open_handles > 0)
		return;
	for (i = 0; i < s->n_anchors; i++)
		sodium_memzero(&s->anchors[i], sizeof s->anchors[i]);
	free(s->anchors);
	lz_sign_replay_free(s->replay);
	SSL_CTX_free(s->ctx);
	free(s);
}

static void
esc_audit(struct esc_server *s, const char *kind, const char *actor, const struct esc_conn *c,
    struct lz_jsonw *w)
{
	char *detail;

	lz_jsonw_obj_close(w);
	detail = lz_jsonw_steal(w);
	if (s->cbs.audit_cb != NULL)
		s->cbs.audit_cb(kind, actor, c != NULL && c->req.session_id[0] ? c->req.session_id :
		    NULL, c != NULL && c->req.request_id[0] ? c->req.request_id : NULL, detail,
		    s->arg);
	free(detail);
}

/* Connections. */

static void
esc_conn_unref(struct esc_conn *c)
{
	struct esc_server *s = c->srv;

	if (--c->refs > 0)
		return;
	proto_buf_clear(&c->in);
	proto_buf_clear(&c->out);
	if (c->have_p)
		esc_payload_clear(&c->p);
	free(c->reason);
	free(c->host_cwd);
	lz_strv_free(c->argv);
	SSL_free(c->ssl);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
	s->open_handles--;
	esc_server_maybe_free(s);
}

static void
esc_conn_close_cb(uv_handle_t *h)
{
	struct esc_conn *c = h->data;

	if (--c->open_handles == 0)
		esc_conn_unref(c);
}

static void
esc_conn_unlink(struct esc_conn *c)
{
	struct esc_conn **pp;

	for (pp = &c->srv->conns; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			c->srv->n_conns--;
			return;
		}
}

static void
esc_conn_withdraw(struct esc_conn *c)
{
	if (c->st == ESC_C_PENDING && c->srv->cbs.withdraw_cb != NULL)
		c->srv->cbs.withdraw_cb(c->srv, &c->req, c->srv->arg);
}

static void
esc_conn_close(struct esc_conn *c)
{
	if (c->st == ESC_C_CLOSED)
		return;
	esc_conn_withdraw(c);
	c->st = ESC_C_CLOSED;
	esc_conn_unlink(c);
	if (c->x != NULL)
		esc_exec_kill(c->x);
	uv_close((uv_handle_t *)&c->poll, esc_conn_close_cb);
	uv_close((uv_handle_t *)&c->timer, esc_conn_close_cb);
}

static void
esc_conn_timeout_cb(uv_timer_t *t);

/* Write what is queued; -1 when the connection is dead (closed). */
static int
esc_conn_flush(struct esc_conn *c)
{
	lz_err_t err = LZ_ERR_INIT;
	int n;

	c->want_write = false;
	while (c->out.len > 0) {
		if (c->wlen == 0)
			c->wlen = c->out.len < 16384 ? c->out.len : 16384;
		ERR_clear_error();
		n = SSL_write(c->ssl, c->out.data, (int)c->wlen);
		if (n > 0) {
			proto_buf_consume(&c->out, (size_t)n);
			c->wlen = 0;
			continue;
		}
		n = trust_want(c->ssl, n, "write", &err);
		if (n < 0) {
			lz_err_clear(&err);
			esc_conn_close(c);
			return -1;
		}
		c->want_write = n == TRUST_WANT_WRITE;
		break;
	}
	if (c->x != NULL && c->out.len < ESC_OUT_LOW)
		esc_exec_pause(c->x, false);
	if (c->st == ESC_C_FLUSH && c->out.len == 0) {
		(void)SSL_shutdown(c->ssl);	/* close_notify, best effort */
		esc_conn_close(c);
		return -1;
	}
	return 0;
}

/* Queue the one RESULT and finish the connection. */
static void
esc_conn_result(struct esc_conn *c, enum esc_payload_outcome outcome, int status,
    const char *msg)
{
	struct esc_payload_result r = { outcome, status, (char *)(msg != NULL ? msg : "") };

	if (c->st == ESC_C_CLOSED)
		return;
	esc_conn_withdraw(c);
	esc_payload_frame_result(&c->out, &r);
	c->st = ESC_C_FLUSH;
	uv_timer_start(&c->timer, esc_conn_timeout_cb, ESC_SERVER_IO_MS, 0);
	if (esc_conn_flush(c) == 0)
		esc_conn_update(c);
}

/* Refused before any decision: audited with why, answered REJECTED. */
static void
esc_conn_reject(struct esc_conn *c, const char *why)
{
	struct lz_jsonw w;

	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "reason"); lz_jsonw_str(&w, why);
	esc_audit(c->srv, "esc.refused", "coordinator", c, &w);
	esc_conn_result(c, ESC_OUTCOME_REJECTED, 0, why);
}

static void
esc_conn_timeout_cb(uv_timer_t *t)
{
	struct esc_conn *c = t->data;
	struct lz_jsonw w;
	char *msg;

	switch (c->st) {
	case ESC_C_HANDSHAKE:
	case ESC_C_REQUEST:
		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "reason");
		lz_jsonw_str(&w, c->st == ESC_C_HANDSHAKE ? "TLS handshake: timed out" :
		    "no whole request in time");
		esc_audit(c->srv, "esc.refused", "coordinator", c, &w);
		if (c->st == ESC_C_REQUEST)
			esc_conn_result(c, ESC_OUTCOME_REJECTED, 0, "no whole request in time");
		else
			esc_conn_close(c);
		break;
	case ESC_C_PENDING:
		msg = xasprintf("no decision within %d s (is a client attached to session %s?)",
		    c->srv->o.timeout_ms / 1000, c->req.session_id);
		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "action"); lz_jsonw_str(&w, "timeout");
		lz_jsonw_key(&w, "reason"); lz_jsonw_str(&w, msg);
		esc_audit(c->srv, "esc.decision", "coordinator", c, &w);
		esc_conn_result(c, ESC_OUTCOME_TIMEOUT, 0, msg);
		free(msg);
		break;
	case ESC_C_FLUSH:
		esc_conn_close(c);
		break;
	case ESC_C_RUNNING:
	case ESC_C_CLOSED:
		break;
	}
}

/* The command. */

static void
esc_conn_output_cb(struct esc_exec *x, uint8_t stream, const uint8_t *buf, size_t len,
    void *arg)
{
	struct esc_conn *c = arg;
	size_t off, n;

	if (c->st != ESC_C_RUNNING)
		return;
	for (off = 0; off < len; off += n) {
		n = len - off < ESC_OUTPUT_MAX ? len - off : ESC_OUTPUT_MAX;
		esc_payload_frame_output(&c->out, stream, buf + off, n);
	}
	if (esc_conn_flush(c) < 0)
		return;
	if (c->out.len >= ESC_OUT_HIGH)
		esc_exec_pause(x, true);
	esc_conn_update(c);
}

static void
esc_conn_done_cb(struct esc_exec *x, int status, int64_t duration_ms, uint64_t out_bytes,
    void *arg)
{
	struct esc_conn *c = arg;
	struct lz_jsonw w;

	(void)x;
	c->x = NULL;
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "outcome"); lz_jsonw_str(&w, "ran");
	lz_jsonw_key(&w, "exit_status"); lz_jsonw_int(&w, status);
	lz_jsonw_key(&w, "duration_ms"); lz_jsonw_int(&w, duration_ms);
	lz_jsonw_key(&w, "output_bytes"); lz_jsonw_int(&w, (int64_t)out_bytes);
	lz_jsonw_key(&w, "sandbox_gone"); lz_jsonw_bool(&w, c->st == ESC_C_CLOSED);
	esc_audit(c->srv, "esc.result", "coordinator", c, &w);
	if (c->st == ESC_C_RUNNING)
		esc_conn_result(c, ESC_OUTCOME_RAN, status, "");
	esc_conn_unref(c);
}

static void
esc_conn_failed(struct esc_conn *c, const char *why)
{
	struct lz_jsonw w;

	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "outcome"); lz_jsonw_str(&w, "failed");
	lz_jsonw_key(&w, "reason"); lz_jsonw_str(&w, why);
	esc_audit(c->srv, "esc.result", "coordinator", c, &w);
	esc_conn_result(c, ESC_OUTCOME_FAILED, 0, why);
}

/* Run argv (c->argv, or the edited one) in c->host_cwd. */
static void
esc_conn_run(struct esc_conn *c, char **argv)
{
	static const struct esc_exec_cbs cbs = { esc_conn_output_cb, esc_conn_done_cb };
	struct esc_server *s = c->srv;
	struct esc_exec_opts eo;
	lz_err_t err = LZ_ERR_INIT;
	char *file, *why;

	/* Only the argv changed by hand is resolved here; what runs is the file
	 * the resolution found, so a later PATH or symlink change cannot swap it. */
	if ((file = policy_which(s->o.policy, argv[0], c->host_cwd)) == NULL) {
		why = xasprintf("'%s' not found on the host (PATH %s)", argv[0], s->o.exec_path);
		esc_conn_failed(c, why);
		free(why);
		return;
	}
	memset(&eo, 0, sizeof eo);
	eo.file = file;
	eo.argv = argv;
	eo.cwd = c->host_cwd;
	eo.path = s->o.exec_path;
	eo.home = s->o.exec_home;
	if (c->st == ESC_C_PENDING)
		esc_conn_withdraw(c);
	c->st = ESC_C_RUNNING;
	uv_timer_stop(&c->timer);
	if (esc_exec_start(s->loop, &eo, &cbs, c, &c->x, &err) < 0) {
		esc_conn_failed(c, err.msg);
		lz_err_clear(&err);
		free(file);
		return;
	}
	c->refs++;	/* the command's */
	free(file);
}

/* The request. */

static struct esc_anchor *
esc_server_anchor(struct esc_server *s, const uint8_t sid[ESC_ID_LEN])
{
	size_t i;

	for (i = 0; i < s->n_anchors; i++)
		if (memcmp(s->anchors[i].sid, sid, ESC_ID_LEN) == 0)
			return &s->anchors[i];
	return NULL;
}

static void
esc_conn_request(struct esc_conn *c, const uint8_t *pl, size_t len)
{
	struct esc_server *s = c->srv;
	struct esc_anchor *an;
	enum policy_verdict v;
	struct lz_jsonw w;
	lz_err_t err = LZ_ERR_INIT;
	char *why = NULL, *msg;
	int64_t now = time(NULL);

	if (esc_payload_parse(pl, len, &c->p, &err) < 0) {
		msg = xasprintf("malformed request: %s", err.msg);
		esc_conn_reject(c, msg);
		goto out;
	}
	c->have_p = true;
	esc_payload_hex(c->p.session_id, ESC_ID_LEN, c->req.session_id);
	esc_payload_hex(c->p.request_id, ESC_ID_LEN, c->req.request_id);
	if ((an = esc_server_anchor(s, c->p.session_id)) == NULL) {
		msg = xasprintf("unknown session %s: no such session in this domain",
		    c->req.session_id);
		esc_conn_reject(c, msg);
		goto out;
	}
	if (lz_sign_verify(&c->p, an->pk, now, &err) < 0 ||
	    lz_sign_replay_check(s->replay, c->p.request_id, c->p.timestamp, now, &err) < 0) {
		msg = xstrdup(err.msg);
		esc_conn_reject(c, msg);
		goto out;
	}
	if (policy_map_cwd(c->p.cwd, s->o.sandbox_workspace, s->o.host_workspace, &c->host_cwd,
	    &err) < 0) {
		msg = xasprintf("cwd %s: %s", c->p.cwd, err.msg);
		esc_conn_reject(c, msg);
		goto out;
	}
	policy_decide_in(s->o.policy, c->p.command, c->host_cwd, &c->argv, &v, &why);
	/* An auto_approve entry runs a host tool on the agent's files: not by
	 * itself while the agent changed what such tools execute. */
	if (v == POLICY_AUTO_APPROVE && s->o.review_repo != NULL &&
	    (msg = review_gate_autoapprove(s->o.review_repo, s->o.host_workspace)) != NULL) {
		free(why);
		why = msg;
		v = POLICY_NEEDS_PROMPT;
	}
	msg = NULL;
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "command"); lz_jsonw_str(&w, c->p.command);
	lz_jsonw_key(&w, "justification"); lz_jsonw_str(&w, c->p.justification);
	lz_jsonw_key(&w, "cwd"); lz_jsonw_str(&w, c->p.cwd);
	lz_jsonw_key(&w, "host_cwd"); lz_jsonw_str(&w, c->host_cwd);
	lz_jsonw_key(&w, "timestamp"); lz_jsonw_int(&w, c->p.timestamp);
	lz_jsonw_key(&w, "verdict"); lz_jsonw_str(&w, policy_verdict_name(v));
	lz_jsonw_key(&w, "why"); lz_jsonw_str(&w, why);
	esc_audit(s, "esc.request", c->req.session_id, c, &w);
	switch (v) {
	case POLICY_INVALID:
		msg = xasprintf("command does not parse: %s", why != NULL ? why : "invalid");
		esc_conn_reject(c, msg);
		break;
	case POLICY_AUTO_APPROVE:
		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "action"); lz_jsonw_str(&w, "auto-approve");
		esc_audit(s, "esc.decision", "policy", c, &w);
		esc_conn_run(c, c->argv);
		break;
	case POLICY_NEEDS_PROMPT:
		c->reason = lz_steal_ptr(&why);
		c->req.ticket = ++s->next_ticket;
		c->req.command = c->p.command;
		c->req.justification = c->p.justification;
		c->req.cwd = c->p.cwd;
		c->req.reason = c->reason;
		c->st = ESC_C_PENDING;
		msg = xasprintf("waiting for approval on the host (request %.8s: %s)",
		    c->req.request_id, c->reason);
		esc_payload_frame_pending(&c->out, msg);
		uv_timer_start(&c->timer, esc_conn_timeout_cb, (uint64_t)s->o.timeout_ms, 0);
		if (esc_conn_flush(c) == 0 && s->cbs.prompt_cb != NULL)
			s->cbs.prompt_cb(s, &c->req, s->arg);
		break;
	}
out:
	free(msg);
	free(why);
	lz_err_clear(&err);
}

/* Read what the peer sent. In REQUEST: gather one frame; afterwards only
 * notice the peer leaving. */
static void
esc_conn_read(struct esc_conn *c)
{
	struct proto_header h;
	const uint8_t *pl;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t buf[16384];
	char *msg;
	int n, r;

	for (;;) {
		if (c->st == ESC_C_CLOSED || c->st == ESC_C_FLUSH)
			return;
		ERR_clear_error();
		n = SSL_read(c->ssl, buf, sizeof buf);
		if (n <= 0) {
			if (SSL_get_error(c->ssl, n) == SSL_ERROR_ZERO_RETURN)
				r = -2;
			else
				r = trust_want(c->ssl, n, "read", &err);
			if (r == TRUST_WANT_READ || r == TRUST_WANT_WRITE) {
				c->want_write = c->want_write || r == TRUST_WANT_WRITE;
				return;
			}
			if (c->st == ESC_C_REQUEST) {
				msg = c->in.len > 0 ? xasprintf("truncated frame: the connection "
				    "closed after %zu bytes", c->in.len) :
				    xstrdup("the connection closed before a request");
				esc_conn_reject(c, msg);	/* audited; the write fails quietly */
				free(msg);
				esc_conn_close(c);
			} else {
				if (c->st == ESC_C_PENDING) {
					struct lz_jsonw w;

					lz_jsonw_init(&w);
					lz_jsonw_obj_open(&w);
					lz_jsonw_key(&w, "action"); lz_jsonw_str(&w, "abandoned");
					lz_jsonw_key(&w, "reason");
					lz_jsonw_str(&w, "the sandbox side went away before a decision");
					esc_audit(c->srv, "esc.decision", "coordinator", c, &w);
				}
				esc_conn_close(c);
			}
			lz_err_clear(&err);
			return;
		}
		if (c->st != ESC_C_REQUEST)
			continue;	/* nothing more is expected: drop it */
		/* Never buffer beyond one frame of the largest allowed size. */
		if (c->in.len + (size_t)n > PROTO_HEADER_LEN + ESC_PAYLOAD_MAX + sizeof buf) {
			esc_conn_reject(c, "request larger than allowed");
			return;
		}
		proto_put(&c->in, buf, (size_t)n);
		r = proto_frame_parse(c->in.data, c->in.len, &h, &pl, &err);
		if (r < 0) {
			msg = xasprintf("bad frame: %s", err.msg);
			esc_conn_reject(c, msg);
			free(msg);
			lz_err_clear(&err);
			return;
		}
		if (c->in.len >= PROTO_HEADER_LEN && h.type != ESC_MSG_REQUEST) {
			msg = xasprintf("expected a REQUEST frame, got type %u", h.type);
			esc_conn_reject(c, msg);
			free(msg);
			return;
		}
		if (c->in.len >= PROTO_HEADER_LEN && h.length > ESC_PAYLOAD_MAX) {
			msg = xasprintf("request of %u bytes refused (at most %u)", h.length,
			    ESC_PAYLOAD_MAX);
			esc_conn_reject(c, msg);
			free(msg);
			return;
		}
		if (r == PROTO_FRAME) {
			uv_timer_stop(&c->timer);
			esc_conn_request(c, pl, h.length);
		}
	}
}

static void
esc_conn_pump(struct esc_conn *c)
{
	lz_err_t err = LZ_ERR_INIT;
	struct lz_jsonw w;
	int r;

	if (c->st == ESC_C_HANDSHAKE) {
		c->want_write = false;
		r = trust_handshake_step(c->ssl, &err);
		if (r == TRUST_WANT_READ || r == TRUST_WANT_WRITE) {
			c->want_write = r == TRUST_WANT_WRITE;
			goto out;
		}
		if (r < 0 || trust_peer_check(c->ssl, c->srv->o.profile, c->srv->o.sandbox_id,
		    &err) < 0) {
			lz_jsonw_init(&w);
			lz_jsonw_obj_open(&w);
			lz_jsonw_key(&w, "reason"); lz_jsonw_str(&w, err.msg);
			esc_audit(c->srv, "esc.refused", "coordinator", c, &w);
			esc_conn_close(c);
			goto out;
		}
		c->st = ESC_C_REQUEST;
	}
	if (c->out.len > 0 && esc_conn_flush(c) < 0)
		goto out;
	esc_conn_read(c);
out:
	lz_err_clear(&err);
	if (c->st != ESC_C_CLOSED)
		esc_conn_update(c);
}

static void
esc_conn_poll_cb(uv_poll_t *p, int status, int events)
{
	struct esc_conn *c = p->data;

	(void)events;
	if (status < 0) {
		esc_conn_close(c);
		return;
	}
	c->refs++;
	esc_conn_pump(c);
	esc_conn_unref(c);
}

static void
esc_conn_update(struct esc_conn *c)
{
	int ev = UV_READABLE;

	if (c->st == ESC_C_CLOSED)
		return;
	if (c->want_write)
		ev |= UV_WRITABLE;
	uv_poll_start(&c->poll, ev, esc_conn_poll_cb);
}

static void
esc_server_accept_cb(uv_poll_t *p, int status, int events)
{
	struct esc_server *s = p->data;
	struct esc_conn *c;
	lz_err_t err = LZ_ERR_INIT;
	int fd;

	(void)events;
	if (status < 0 || s->closing)
		return;
	while ((fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		if (s->n_conns >= ESC_MAX_CONNS) {
			close(fd);
			if (!s->full_logged) {
				struct lz_jsonw w;

				s->full_logged = true;
				lz_jsonw_init(&w);
				lz_jsonw_obj_open(&w);
				lz_jsonw_key(&w, "reason");
				lz_jsonw_str(&w, "too many escalation connections at once: refused at accept");
				lz_jsonw_key(&w, "limit"); lz_jsonw_int(&w, ESC_MAX_CONNS);
				esc_audit(s, "esc.refused", "coordinator", NULL, &w);
			}
			continue;
		}
		s->full_logged = false;
		c = xcalloc(1, sizeof *c);
		c->srv = s;
		c->fd = fd;
		c->refs = 1;
		if ((c->ssl = trust_ssl_new(s->ctx, fd, true, &err)) == NULL) {
			lz_err_clear(&err);
			close(fd);
			free(c);
			continue;
		}
		SSL_set_mode(c->ssl, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
		uv_poll_init(s->loop, &c->poll, fd);
		uv_timer_init(s->loop, &c->timer);
		c->poll.data = c->timer.data = c;
		c->open_handles = 2;
		s->open_handles++;
		c->next = s->conns;
		s->conns = c;
		s->n_conns++;
		uv_timer_start(&c->timer, esc_conn_timeout_cb, ESC_SERVER_IO_MS, 0);
		esc_conn_pump(c);
	}
}

static void
esc_server_lclose_cb(uv_handle_t *h)
{
	struct esc_server *s = h->data;

	if (s->lfd >= 0)
		close(s->lfd);
	s->lfd = -1;
	s->open_handles--;
	esc_server_maybe_free(s);
}

int
esc_server_new(uv_loop_t *loop, const struct esc_server_opts *o,
    const struct esc_server_cbs *cbs, void *arg, struct esc_server **out, lz_err_t *err)
{
	struct esc_server *s;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char *dir = NULL, *slash;
	mode_t old;
	int fd = -1, r;

	if (strlen(o->path) >= sizeof a.sun_path)
		return lz_err_set(err, ENAMETOOLONG, "escalation socket path %s is too long "
		    "(at most %zu bytes): set escalation.socket_dir to a shorter directory",
		    o->path, sizeof a.sun_path - 1);
	dir = xstrdup(o->path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir)
		*slash = '\0';
	r = ctl_server_dir_check(dir, true, err);
	free(dir);
	if (r < 0)
		return -1;
	s = xcalloc(1, sizeof *s);
	s->loop = loop;
	s->o = *o;
	if (s->o.sandbox_workspace == NULL)
		s->o.sandbox_workspace = "/workspace";
	if (s->o.timeout_ms <= 0)
		s->o.timeout_ms = ESC_SERVER_TIMEOUT_MS;
	s->cbs = *cbs;
	s->arg = arg;
	s->lfd = -1;
	if ((s->ctx = trust_server_ctx_new(o->ca, err)) == NULL)
		goto fail;
	s->replay = lz_sign_replay_new(LZ_SIGN_REPLAY_WINDOW, LZ_SIGN_REPLAY_MAX);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0) {
		lz_err_sys(err, errno, "socket");
		goto fail;
	}
	snprintf(a.sun_path, sizeof a.sun_path, "%s", o->path);
	(void)unlink(o->path);
	old = umask(077);
	r = bind(fd, (struct sockaddr *)&a, sizeof a);
	umask(old);
	if (r < 0 || listen(fd, 64) < 0) {
		lz_err_sys(err, errno, "cannot listen on %s", o->path);
		goto fail;
	}
	s->lfd = fd;
	uv_poll_init(loop, &s->lpoll, fd);
	s->lpoll.data = s;
	s->open_handles = 1;
	uv_poll_start(&s->lpoll, UV_READABLE, esc_server_accept_cb);
	*out = s;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	lz_sign_replay_free(s->replay);
	SSL_CTX_free(s->ctx);
	free(s);
	return -1;
}

void
esc_server_close(struct esc_server *s)
{
	if (s == NULL || s->closing)
		return;
	s->closing = true;
	(void)unlink(s->o.path);
	while (s->conns != NULL) {
		struct esc_conn *c = s->conns;

		if (c->st == ESC_C_PENDING) {
			esc_conn_result(c, ESC_OUTCOME_DENIED, 0, "the coordinator is shutting down");
			if (c->st != ESC_C_CLOSED)
				esc_conn_close(c);
		} else
			esc_conn_close(c);
	}
	uv_close((uv_handle_t *)&s->lpoll, esc_server_lclose_cb);
}

int
esc_server_register(struct esc_server *s, const uint8_t sid[ESC_ID_LEN], const uint8_t pk[32],
    lz_err_t *err)
{
	struct esc_anchor *an;

	if (esc_server_anchor(s, sid) != NULL)
		return lz_err_set(err, EEXIST, "session id already registered");
	s->anchors = xreallocarray(s->anchors, s->n_anchors + 1, sizeof *s->anchors);
	an = &s->anchors[s->n_anchors++];
	memcpy(an->sid, sid, ESC_ID_LEN);
	memcpy(an->pk, pk, 32);
	esc_payload_hex(sid, ESC_ID_LEN, an->hex);
	return 0;
}

void
esc_server_unregister(struct esc_server *s, const char *hex)
{
	struct esc_conn *c, *next;
	size_t i;

	for (i = 0; i < s->n_anchors; i++)
		if (strcmp(s->anchors[i].hex, hex) == 0) {
			s->anchors[i] = s->anchors[--s->n_anchors];
			break;
		}
	for (c = s->conns; c != NULL; c = next) {
		next = c->next;
		if (c->st == ESC_C_PENDING && strcmp(c->req.session_id, hex) == 0)
			esc_conn_result(c, ESC_OUTCOME_DENIED, 0, "the session ended");
	}
}

void
esc_server_pending(struct esc_server *s, const char *hex)
{
	struct esc_conn *c;

	if (s->cbs.prompt_cb == NULL)
		return;
	for (c = s->conns; c != NULL; c = c->next)
		if (c->st == ESC_C_PENDING && strcmp(c->req.session_id, hex) == 0)
			s->cbs.prompt_cb(s, &c->req, s->arg);
}

static struct esc_conn *
esc_server_ticket(struct esc_server *s, uint32_t ticket)
{
	struct esc_conn *c;

	for (c = s->conns; c != NULL; c = c->next)
		if (c->st == ESC_C_PENDING && c->req.ticket == ticket)
			return c;
	return NULL;
}

const char *
esc_server_ticket_session(struct esc_server *s, uint32_t ticket)
{
	struct esc_conn *c = esc_server_ticket(s, ticket);

	return c != NULL ? c->req.session_id : NULL;
}

int
esc_server_decide(struct esc_server *s, uint32_t ticket, enum esc_ctl_action action,
    const char *edited, const char *actor, lz_err_t *err)
{
	struct esc_conn *c = esc_server_ticket(s, ticket);
	struct lz_jsonw w;
	lz_err_t perr = LZ_ERR_INIT;
	char **argv = NULL, *why;

	if (c == NULL)
		return lz_err_set(err, ENOENT, "no request waits under ticket %u", ticket);
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "action"); lz_jsonw_str(&w, esc_ctl_action_name(action));
	if (action == ESC_CTL_EDIT) {
		enum policy_verdict v;
		char **ev = NULL, *evwhy = NULL;

		lz_jsonw_key(&w, "original"); lz_jsonw_str(&w, c->p.command);
		lz_jsonw_key(&w, "edited"); lz_jsonw_str(&w, edited != NULL ? edited : "");
		/* What the policy says of the edit is recorded; the human's word stands
		 * (as for [A]pprove of a prompted request, banned programs included). */
		policy_decide_in(s->o.policy, edited != NULL ? edited : "", c->host_cwd, &ev, &v,
		    &evwhy);
		lz_jsonw_key(&w, "edited_verdict"); lz_jsonw_str(&w, policy_verdict_name(v));
		lz_jsonw_key(&w, "edited_why"); lz_jsonw_str(&w, evwhy);
		lz_strv_free(ev);
		free(evwhy);
	}
	esc_audit(s, "esc.decision", actor, c, &w);
	switch (action) {
	case ESC_CTL_APPROVE:
		esc_conn_run(c, c->argv);
		break;
	case ESC_CTL_EDIT:
		/* Human-approved as typed, but still split by shell-words rules and
		 * run without a shell: quotes group words, nothing is expanded. */
		if (edited == NULL || lz_shellwords_split(edited, strlen(edited), &argv, &perr) < 0 ||
		    argv == NULL || argv[0] == NULL) {
			why = xasprintf("the edited command does not parse: %s",
			    perr.msg != NULL ? perr.msg : "empty");
			esc_conn_result(c, ESC_OUTCOME_DENIED, 0, why);
			free(why);
			lz_strv_free(argv);
			lz_err_clear(&perr);
			break;
		}
		lz_strv_free(c->argv);
		c->argv = argv;
		esc_conn_run(c, c->argv);
		break;
	case ESC_CTL_DENY:
		esc_conn_result(c, ESC_OUTCOME_DENIED, 0, "denied by the user");
		break;
	case ESC_CTL_QUIT:
		esc_conn_result(c, ESC_OUTCOME_DENIED, 0, "the user quit the session");
		if (s->cbs.quit_cb != NULL)
			s->cbs.quit_cb(s->arg);
		break;
	}
	return 0;
}
