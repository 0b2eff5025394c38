/* coord-frames.c - what the coordinator does with each client frame: one row
 * a frame type in coord_frames[] {type, handler, flags} (git's commands[]),
 * not ranges of type numbers; a type without a row is answered "not a
 * request", a payload that does not decode "bad payload". The handlers call
 * down into coord-dispatch.c (sessions, escalation glue) and the other parts. */
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "coord/coord.h"
#include "coord/coord-int.h"
#include "coord/note.h"
#include "coord/screen.h"
#include "coord/session.h"
#include "esc-ctl.h"
#include "escalation/esc-coord.h"
#include "jsonw.h"
#include "netreq.h"
#include "review/review-audit.h"
#include "store/audit-text.h"
#include "xmalloc.h"

/* The session's current screen for an attaching client, appended to b. */
static void
coord_snapshot(struct session *s, struct proto_buf *b)
{
	lz_err_t err = LZ_ERR_INIT;
	uint8_t *snap;
	size_t len;

	if (s->screen == NULL)
		return;
	if (screen_snapshot(s->screen, PROTO_MAX_PAYLOAD - 4, &snap, &len, &err) < 0) {
		coord_log("session %u: snapshot: %s", s->id, err.msg);
		lz_err_clear(&err);
		return;
	}
	proto_encode_snapshot(b, s->id, snap, len);
	free(snap);
}

static struct session *
coord_client_session(struct coord *c, struct ctl_server_client *cl, uint32_t id)
{
	struct session *s = coord_session_find(c, id);

	if (s == NULL || !session_has_client(s, cl)) {
		ctl_server_send_error(cl, PROTO_E_NO_SESSION, "no session %u attached", id);
		return NULL;
	}
	return s;
}

/* A NOTE on how a decision was made may come from any client of the user:
 * `lazaret escalations` answers a session it is not attached to. */
static struct session *
coord_note_session(void *arg, struct ctl_server_client *cl, uint32_t id)
{
	struct session *s = coord_session_find(arg, id);

	if (s == NULL)
		ctl_server_send_error(cl, PROTO_E_NO_SESSION, "no session %u", id);
	return s;
}

/* A client discarded input at a prompt that no human typed: audit it. */
static void
coord_suspect(struct coord *c, struct ctl_server_client *cl, const uint8_t *p, size_t len)
{
	struct proto_suspect s;
	struct lz_jsonw w;
	lz_err_t err = LZ_ERR_INIT;
	char *actor, *detail;

	if (proto_decode_suspect(p, len, &s, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if (c->esc != NULL) {
		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "what");
		lz_jsonw_str(&w, s.what);
		lz_jsonw_key(&w, "sample");
		lz_jsonw_str(&w, s.sample);
		lz_jsonw_key(&w, "client_session");
		lz_jsonw_int(&w, (int64_t)s.session);
		lz_jsonw_obj_close(&w);
		detail = lz_jsonw_steal(&w);
		actor = xasprintf("uid %ld pid %ld", (long)cl->uid, (long)cl->pid);
		esc_coord_audit(c->esc, "esc.suspicious", actor, NULL, s.request_id, detail);
		free(actor);
		free(detail);
	}
	proto_suspect_clear(&s);
}

/* A handler: -1 with err set when the payload does not decode. */
typedef int (*coord_frame_fn)(struct coord *c, struct ctl_server_client *cl,
    const struct proto_header *h, const uint8_t *p, lz_err_t *err);

#define COORD_F_NOT_STOPPING	0x1	/* refused while the coordinator shuts down */

struct coord_frame {
	uint16_t type;
	coord_frame_fn fn;
	unsigned flags;
};

static int
coord_f_new_session(struct coord *c, struct ctl_server_client *cl,
    const struct proto_header *h, const uint8_t *p, lz_err_t *err)
{
	(void)err;
	coord_new_session(c, cl, p, h->length, NULL);
	return 0;
}

static int
coord_f_attach(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	struct proto_buf b = { 0 };
	struct proto_session reply;
	struct session *s;
	uint32_t id;

	if (proto_decode_u32(p, h->length, &id, err) < 0)
		return -1;
	if ((s = coord_session_find(c, id)) == NULL) {
		ctl_server_send_error(cl, PROTO_E_NO_SESSION, "no session %u", id);
		return 0;
	}
	session_attach(s, cl);
	reply.id = s->id;
	reply.pid = (uint32_t)s->pid;
	proto_encode_session(&b, &reply);
	coord_snapshot(s, &b);
	ctl_server_send(cl, &b);
	coord_esc_replay(c, cl, s->uuid);
	return 0;
}

static int
coord_f_kill(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	struct session *s;
	uint32_t id;

	if (proto_decode_u32(p, h->length, &id, err) < 0)
		return -1;
	if ((s = coord_client_session(c, cl, id)) != NULL) {
		coord_log("client %u ends session %u", cl->id, id);
		session_kill(s);
	}
	return 0;
}

static int
coord_f_data(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	struct proto_data d;
	struct session *s;

	if (proto_decode_data(p, h->length, &d, err) < 0)
		return -1;
	if ((s = coord_client_session(c, cl, d.id)) != NULL)
		session_write(s, d.data, d.len);
	return 0;
}

static int
coord_f_eof(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	struct session *s;
	uint32_t id;

	if (proto_decode_eof(p, h->length, &id, err) < 0)
		return -1;
	if ((s = coord_client_session(c, cl, id)) != NULL)
		session_eof(s);
	return 0;
}

static int
coord_f_resize(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	struct proto_resize rz;
	struct session *s;

	if (proto_decode_resize(p, h->length, &rz, err) < 0)
		return -1;
	if ((s = coord_client_session(c, cl, rz.id)) == NULL)
		return 0;
	if (session_resize(s, rz.rows, rz.cols, err) < 0)
		coord_log("session %u: resize: %s", s->id, err->msg);
	else if (s->screen != NULL && screen_resize(s->screen, rz.rows, rz.cols, err) < 0)
		coord_log("session %u: screen resize: %s", s->id, err->msg);
	return 0;
}

static int
coord_f_detach(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	struct proto_buf b = { 0 };
	struct session *s;
	uint32_t id;

	if (proto_decode_u32(p, h->length, &id, err) < 0)
		return -1;
	if ((s = coord_client_session(c, cl, id)) != NULL) {
		session_detach(s, cl);
		proto_encode_ok(&b, id);
		ctl_server_send(cl, &b);
	}
	return 0;
}

static int
coord_f_status_req(struct coord *c, struct ctl_server_client *cl,
    const struct proto_header *h, const uint8_t *p, lz_err_t *err)
{
	enum proto_status_fmt fmt;

	if (proto_decode_status_req(p, h->length, &fmt, err) < 0)
		return -1;
	coord_status(c, cl, fmt);
	return 0;
}

static int
coord_f_list(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	(void)h;
	(void)p;
	(void)err;
	coord_status(c, cl, PROTO_STATUS_JSON);
	return 0;
}

static int
coord_f_stop(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	struct proto_buf b = { 0 };

	(void)h;
	(void)p;
	(void)err;
	coord_log("client %u asked to stop", cl->id);
	proto_encode_ok(&b, 0);
	ctl_server_send(cl, &b);
	c->shutdown(c, "stop requested");
	return 0;
}

static int
coord_f_egress(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	(void)err;
	coord_net_frame(c, cl, h, p);
	return 0;
}

static int
coord_f_netreq(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	(void)err;
	coord_netreq_frame(c, cl, h, p);
	return 0;
}

/* A client's ERROR: nothing to answer. */
static int
coord_f_ignore(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	(void)c;
	(void)cl;
	(void)h;
	(void)p;
	(void)err;
	return 0;
}

static int
coord_f_note(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	(void)err;
	note_serve(c->loop, c->store, cl, p, h->length, coord_note_session, c);
	return 0;
}

static int
coord_f_suspect(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	(void)err;
	coord_suspect(c, cl, p, h->length);
	return 0;
}

static int
coord_f_review_audit(struct coord *c, struct ctl_server_client *cl,
    const struct proto_header *h, const uint8_t *p, lz_err_t *err)
{
	(void)err;
	review_audit_serve(c->loop, c->store, cl, p, h->length);
	return 0;
}

/* SENTRY_SYNC: `lazaret sync` on the live domain (coord-sync.c). */
static int
coord_f_sync(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p, lz_err_t *err)
{
	(void)err;
	coord_sync_frame(c, cl, p, h->length);
	return 0;
}

/* ESC_NEW_SESSION: NEW_SESSION with the Session Anchor. */
static int
coord_f_esc_new_session(struct coord *c, struct ctl_server_client *cl,
    const struct proto_header *h, const uint8_t *p, lz_err_t *err)
{
	struct esc_ctl_anchor anc;
	const uint8_t *ns;
	size_t ns_len;

	if (esc_ctl_decode_new_session(p, h->length, &anc, &ns, &ns_len, err) < 0)
		return -1;
	coord_new_session(c, cl, ns, ns_len, &anc);
	esc_ctl_anchor_clear(&anc);
	return 0;
}

static int
coord_f_esc_decision(struct coord *c, struct ctl_server_client *cl,
    const struct proto_header *h, const uint8_t *p, lz_err_t *err)
{
	(void)err;
	if (c->esc != NULL)
		esc_coord_decision(c->esc, cl, p, h->length, h->type == ESC_CTL_DECIDE);
	else if (h->type == ESC_CTL_DECIDE)
		ctl_server_send_error(cl, PROTO_E_NO_SESSION, "escalation is disabled for this "
		    "domain: no request waits");
	return 0;
}

/* ESC_LIST: what waits for a human in the domain (coord-esc.c). */
static int
coord_f_esc_list(struct coord *c, struct ctl_server_client *cl,
    const struct proto_header *h, const uint8_t *p, lz_err_t *err)
{
	struct proto_buf b = { 0 };

	(void)err;
	if (c->esc != NULL) {
		coord_esc_list(c, cl, p, h->length);
		return 0;
	}
	proto_encode_ok(&b, 0);
	ctl_server_send(cl, &b);
	return 0;
}

static int
coord_f_esc_audit(struct coord *c, struct ctl_server_client *cl,
    const struct proto_header *h, const uint8_t *p, lz_err_t *err)
{
	(void)err;
	audit_text_serve(c->loop, c->store, cl, p, h->length);
	return 0;
}

/* Every request a client may send; anything else is not one. */
static const struct coord_frame coord_frames[] = {
	{ PROTO_NEW_SESSION,	coord_f_new_session,	COORD_F_NOT_STOPPING },
	{ PROTO_ATTACH,		coord_f_attach,		0 },
	{ PROTO_KILL,		coord_f_kill,		0 },
	{ PROTO_DATA,		coord_f_data,		0 },
	{ PROTO_EOF,		coord_f_eof,		0 },
	{ PROTO_RESIZE,		coord_f_resize,		0 },
	{ PROTO_DETACH,		coord_f_detach,		0 },
	{ PROTO_STATUS_REQ,	coord_f_status_req,	0 },
	{ PROTO_LIST,		coord_f_list,		0 },
	{ PROTO_STOP,		coord_f_stop,		0 },
	{ PROTO_EGRESS_REQ,	coord_f_egress,		0 },
	{ PROTO_EGRESS_EDIT,	coord_f_egress,		0 },
	{ PROTO_ERROR,		coord_f_ignore,		0 },
	{ PROTO_NOTE,		coord_f_note,		0 },
	{ PROTO_SUSPECT,	coord_f_suspect,	0 },
	{ REVIEW_CTL_AUDIT,	coord_f_review_audit,	0 },
	{ SENTRY_CTL_SYNC,	coord_f_sync,		0 },
	{ ESC_CTL_NEW_SESSION,	coord_f_esc_new_session, COORD_F_NOT_STOPPING },
	{ ESC_CTL_DECISION,	coord_f_esc_decision,	0 },
	{ ESC_CTL_DECIDE,	coord_f_esc_decision,	0 },
	{ ESC_CTL_LIST,		coord_f_esc_list,	0 },
	{ ESC_CTL_AUDIT_REQ,	coord_f_esc_audit,	0 },
	{ NETREQ_LIST,		coord_f_netreq,		0 },
	{ NETREQ_DECIDE,	coord_f_netreq,		0 },
	{ NETREQ_GRANTS_REQ,	coord_f_netreq,		0 },
	{ NETREQ_REVOKE,	coord_f_netreq,		0 },
	{ NETREQ_HOLD,		coord_f_netreq,		0 },
};

void
coord_frame_cb(struct ctl_server_client *cl, const struct proto_header *h, const uint8_t *p,
    void *arg)
{
	struct coord *c = arg;
	const struct coord_frame *f = NULL;
	lz_err_t err = LZ_ERR_INIT;
	size_t i;

	for (i = 0; i < sizeof coord_frames / sizeof coord_frames[0]; i++)
		if (coord_frames[i].type == h->type) {
			f = &coord_frames[i];
			break;
		}
	if (f == NULL) {
		ctl_server_send_error(cl, PROTO_E_STATE, "%s is not a request",
		    proto_type_name(h->type));
		return;
	}
	if ((f->flags & COORD_F_NOT_STOPPING) && c->stopping) {
		ctl_server_send_error(cl, PROTO_E_SHUTDOWN, "the coordinator of domain %s "
		    "is shutting down", c->a->hash);
		return;
	}
	if (f->fn(c, cl, h, p, &err) < 0)
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
	lz_err_clear(&err);
}
