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

#include <sodium.h>

#include "host/ctl-server.h"
#include "escalation/esc-cwd.h"
#include "escalation/esc-server-int.h"
#include "review/review-gate.h"
#include "shellwords.h"
#include "sign.h"
#include "strv.h"
#include "xmalloc.h"

void
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
	review_gate_free(s->gate);
	if (s->root_fd >= 0)
		close(s->root_fd);
	free(s);
}

/* An audit row in flight: what to tell when the store answered. */
struct esc_audit_wait {
	struct esc_server *s;
	struct esc_conn *c;
	void (*done)(void *, int);
};

static void
esc_audit_done_cb(void *arg, int status)
{
	struct esc_audit_wait *aw = arg;
	struct esc_server *s = aw->s;

	if (status < 0) {
		s->audit_down = true;
		if (aw->c != NULL)
			aw->c->audit_failed = true;
	}
	if (aw->done != NULL)
		aw->done(aw->c, status);
	if (aw->c != NULL)
		esc_conn_unref(aw->c);
	free(aw);
	s->open_handles--;
	esc_server_maybe_free(s);
}

static void
esc_audit_row_clear(struct esc_server_row *r)
{
	free((char *)r->kind);
	free((char *)r->actor);
	free((char *)r->session_id);
	free((char *)r->request_id);
	free((char *)r->detail);
}

/* Hand rows (strings owned) to the store, or count them committed. */
static void
esc_audit_send(struct esc_server *s, struct esc_server_row *rows, size_t n)
{
	size_t i;

	if (s->cbs.audit_cb != NULL)
		s->cbs.audit_cb(rows, n, s->arg);
	else
		for (i = 0; i < n; i++)
			esc_audit_done_cb(rows[i].done_arg, 0);
	for (i = 0; i < n; i++)
		esc_audit_row_clear(&rows[i]);
}

void
esc_audit(struct esc_server *s, const char *kind, const char *actor, struct esc_conn *c,
    struct lz_jsonw *w, void (*done)(void *, int))
{
	struct esc_audit_wait *aw = xcalloc(1, sizeof *aw);
	struct esc_server_row r;

	lz_jsonw_obj_close(w);
	aw->s = s;
	aw->c = c;
	aw->done = done;
	s->open_handles++;	/* the server and c outlive the row in flight */
	if (c != NULL)
		c->refs++;
	r = (struct esc_server_row){
		.kind = xstrdup(kind), .actor = xstrdup(actor),
		.session_id = c != NULL && c->req.session_id[0] ? xstrdup(c->req.session_id) : NULL,
		.request_id = c != NULL && c->req.request_id[0] ? xstrdup(c->req.request_id) : NULL,
		.detail = lz_jsonw_steal(w), .done = esc_audit_done_cb, .done_arg = aw,
	};
	if (s->audit_hold > 0) {
		s->held = xreallocarray(s->held, s->n_held + 1, sizeof *s->held);
		s->held[s->n_held++] = r;
		return;
	}
	esc_audit_send(s, &r, 1);
}

void
esc_audit_hold(struct esc_server *s)
{
	s->audit_hold++;
}

void
esc_audit_release(struct esc_server *s)
{
	struct esc_server_row *rows = s->held;
	size_t n = s->n_held;

	LZ_ASSERT(s->audit_hold > 0);
	if (--s->audit_hold > 0 || n == 0)
		return;
	/* Taken first: a done callback may audit again, and that row goes alone. */
	s->held = NULL;
	s->n_held = 0;
	esc_audit_send(s, rows, n);
	free(rows);
}

struct esc_anchor *
esc_server_anchor(struct esc_server *s, const uint8_t sid[ESC_ID_LEN])
{
	size_t i;

	for (i = 0; i < s->n_anchors; i++)
		if (memcmp(s->anchors[i].sid, sid, ESC_ID_LEN) == 0)
			return &s->anchors[i];
	return NULL;
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
				esc_audit(s, "esc.refused", "coordinator", NULL, &w, NULL);
			}
			continue;
		}
		s->full_logged = false;
		c = xcalloc(1, sizeof *c);
		c->srv = s;
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
	switch (action) {
	case ESC_CTL_APPROVE:
		esc_request_approved(s, c->req.session_id);
		esc_conn_approved(c, actor, &w);
		break;
	case ESC_CTL_EDIT:
		/* Human-approved as typed, but still split by shell-words rules and
		 * run without a shell: quotes group words, nothing is expanded. */
		if (edited == NULL || lz_shellwords_split(edited, strlen(edited), &argv, &perr) < 0 ||
		    argv == NULL || argv[0] == NULL) {
			why = xasprintf("the edited command does not parse: %s",
			    perr.msg != NULL ? perr.msg : "empty");
			esc_audit(s, "esc.decision", actor, c, &w, NULL);
			esc_conn_result(c, ESC_OUTCOME_DENIED, 0, why);
			free(why);
			lz_strv_free(argv);
			lz_err_clear(&perr);
			break;
		}
		lz_strv_free(c->argv);
		c->argv = argv;
		esc_request_resolve(c);
		esc_request_approved(s, c->req.session_id);
		esc_conn_approved(c, actor, &w);
		break;
	case ESC_CTL_DENY:
		esc_audit(s, "esc.decision", actor, c, &w, NULL);
		esc_request_denied(s, c->req.session_id);
		esc_conn_result(c, ESC_OUTCOME_DENIED, 0, "denied by the user");
		break;
	case ESC_CTL_QUIT:
		esc_audit(s, "esc.decision", actor, c, &w, NULL);
		esc_conn_result(c, ESC_OUTCOME_DENIED, 0, "the user quit the session");
		if (s->cbs.quit_cb != NULL)
			s->cbs.quit_cb(s->arg);
		break;
	}
	return 0;
}
