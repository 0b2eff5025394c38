/* esc-conn.c - one escalation connection: TLS I/O, timeouts, the one
 * RESULT, closing (see esc-server-int.h).
 *
 * Theory of operation. Every connection is a uv_poll_t on its raw fd,
 * because OpenSSL does its own reads and writes. A connection walks
 * HANDSHAKE -> REQUEST -> (PENDING | AUDIT | RUNNING) -> FLUSH -> closed;
 * esc_conn_pump() is called on every readiness event and does whatever the
 * state allows: a handshake step, SSL_read into the frame buffer, or (after
 * the request) reads that only watch for the peer going away. Output is
 * appended to conn->out and written by esc_conn_flush(), which remembers a
 * WANT_WRITE so the poll asks for writability. A connection holds one
 * reference for its handles, one while its command runs and one per audit
 * row in flight; it is freed when all are gone.
 */
#include <openssl/err.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escalation/esc-server-int.h"
#include "strv.h"
#include "xmalloc.h"

void
esc_conn_unref(struct esc_conn *c)
{
	struct esc_server *s = c->srv;
	const struct esc_conn_cbs *cbs;

	if (--c->refs > 0)
		return;
	proto_buf_clear(&c->in);
	proto_buf_clear(&c->out);
	if (c->have_p)
		esc_payload_clear(&c->p);
	free(c->reason);
	free(c->host_cwd);
	if (c->dir_fd >= 0)
		close(c->dir_fd);
	lz_strv_free(c->argv);
	free(c->file);
	SSL_free(c->ssl);
	if (c->fd >= 0)
		close(c->fd);
	cbs = c->cbs;
	free(c);
	s->open_handles--;
	cbs->on_gone(s);
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

void
esc_conn_withdraw(struct esc_conn *c)
{
	if (c->st == ESC_C_PENDING && c->srv->cbs.withdraw_cb != NULL)
		c->srv->cbs.withdraw_cb(c->srv, &c->req, c->srv->arg);
}

void
esc_conn_close(struct esc_conn *c)
{
	if (c->st == ESC_C_CLOSED)
		return;
	esc_conn_withdraw(c);
	esc_trace_report(&c->trace, c->req.request_id);
	c->st = ESC_C_CLOSED;
	esc_conn_unlink(c);
	if (c->x != NULL)
		esc_exec_kill(c->x);
	uv_close((uv_handle_t *)&c->poll, esc_conn_close_cb);
	uv_close((uv_handle_t *)&c->timer, esc_conn_close_cb);
}

int
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
		esc_trace_mark(&c->trace, ESC_T_RESULT);
		(void)SSL_shutdown(c->ssl);	/* close_notify, best effort */
		esc_conn_close(c);
		return -1;
	}
	return 0;
}

void
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

void
esc_conn_reject(struct esc_conn *c, const char *why)
{
	struct lz_jsonw w;

	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "reason"); lz_jsonw_str(&w, why);
	c->cbs->audit(c->srv, "esc.refused", "coordinator", c, &w, NULL);
	esc_conn_result(c, ESC_OUTCOME_REJECTED, 0, why);
}

void
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
		c->cbs->audit(c->srv, "esc.refused", "coordinator", c, &w, NULL);
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
		c->cbs->audit(c->srv, "esc.decision", "coordinator", c, &w, NULL);
		esc_conn_result(c, ESC_OUTCOME_TIMEOUT, 0, msg);
		free(msg);
		break;
	case ESC_C_FLUSH:
		esc_conn_close(c);
		break;
	case ESC_C_GATE:
	case ESC_C_AUDIT:
	case ESC_C_RUNNING:
	case ESC_C_CLOSED:
		break;
	}
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
					c->cbs->audit(c->srv, "esc.decision", "coordinator", c, &w, NULL);
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
			esc_trace_mark(&c->trace, ESC_T_REQUEST);
			uv_timer_stop(&c->timer);
			c->cbs->on_frame(c, pl, h.length);
		}
	}
}

void
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
			c->cbs->audit(c->srv, "esc.refused", "coordinator", c, &w, NULL);
			esc_conn_close(c);
			goto out;
		}
		c->st = ESC_C_REQUEST;
		esc_trace_mark(&c->trace, ESC_T_HANDSHAKE);
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

void
esc_conn_update(struct esc_conn *c)
{
	int ev = UV_READABLE;

	if (c->st == ESC_C_CLOSED)
		return;
	if (c->want_write)
		ev |= UV_WRITABLE;
	uv_poll_start(&c->poll, ev, esc_conn_poll_cb);
}

