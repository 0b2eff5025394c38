/* esc-server.c - the escalation listener, the sessions it knows and the
 * decision API (see esc-server.h); a connection's I/O is esc-conn.c, a
 * verified request esc-request.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "host/ctl-server.h"
#include "escalation/esc-cwd.h"
#include "escalation/esc-server-int.h"
#include "review/review-gate.h"
#include "sign.h"
#include "strv.h"
#include "xmalloc.h"

/* What a connection reports up: a request, its end, its audit rows. */
static const struct esc_conn_cbs esc_server_conn_cbs = {
	.on_frame = esc_conn_request,
	.on_gone = esc_server_maybe_free,
	.audit = esc_audit,
};

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
				esc_audit(s, "esc.refused", "coordinator", NULL, &w, NULL);
			}
			continue;
		}
		s->full_logged = false;
		c = xcalloc(1, sizeof *c);
		c->srv = s;
		c->cbs = &esc_server_conn_cbs;
		c->fd = fd;
		c->refs = 1;
		c->dir_fd = -1;
		esc_trace_mark(&c->trace, ESC_T_ACCEPT);
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
	s->audit_down = o->audit_down;
	s->lfd = -1;
	if ((s->root_fd = esc_cwd_root(o->host_workspace, err)) < 0)
		goto fail;
	if ((s->ctx = trust_server_ctx_new(o->ca, err)) == NULL)
		goto fail;
	s->replay = lz_sign_replay_new(LZ_SIGN_REPLAY_WINDOW, LZ_SIGN_REPLAY_MAX);
	if (o->review_repo != NULL)
		s->gate = review_gate_new(o->review_repo, o->host_workspace);
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
	if (s->root_fd >= 0)
		close(s->root_fd);
	lz_sign_replay_free(s->replay);
	review_gate_free(s->gate);
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
	memset(an, 0, sizeof *an);
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

size_t
esc_server_pending(struct esc_server *s, const char *hex)
{
	struct esc_conn *c;
	size_t n = 0;

	if (s->cbs.prompt_cb == NULL)
		return 0;
	for (c = s->conns; c != NULL; c = c->next)
		if (c->st == ESC_C_PENDING && (hex == NULL || strcmp(c->req.session_id, hex) == 0)) {
			s->cbs.prompt_cb(s, &c->req, s->arg);
			n++;
		}
	return n;
}

size_t
esc_server_waiting(struct esc_server *s, const char *hex)
{
	struct esc_conn *c;
	size_t n = 0;

	for (c = s->conns; c != NULL; c = c->next)
		n += c->st == ESC_C_PENDING && (hex == NULL || strcmp(c->req.session_id, hex) == 0);
	return n;
}

const char *
esc_server_ticket_session(struct esc_server *s, uint32_t ticket)
{
	struct esc_conn *c = esc_server_ticket(s, ticket);

	return c != NULL ? c->req.session_id : NULL;
}
