/* esc-audit.c - the escalation server's audit rows and its last free: what
 * esc-request.c and esc-server.c record, and (through struct esc_conn_cbs) a
 * connection. A row holds a reference on its connection and one handle of
 * the server, so the server is freed here when the last one is gone. */
#include <sodium.h>
#include <stdlib.h>
#include <unistd.h>

#include "escalation/esc-server-int.h"
#include "review/review-gate.h"
#include "sign.h"
#include "xmalloc.h"

/* An audit row in flight: what to tell when the store answered. */
struct esc_audit_wait {
	struct esc_server *s;
	struct esc_conn *c;
	void (*done)(void *, int);
};

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
