/* esc-ctl.c - escalation messages on the control socket (pure). */
#include <string.h>

#include "esc-ctl.h"
#include "xmalloc.h"

static int
esc_ctl_bad(const char *what, lz_err_t *err)
{
	return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "malformed %s payload", what);
}

void
esc_ctl_encode_new_session(struct proto_buf *b, const struct esc_ctl_anchor *a,
    const struct proto_new_session *ns)
{
	struct proto_buf tmp = { NULL, 0, 0 };
	size_t at = proto_begin(b, PROTO_VERSION, ESC_CTL_NEW_SESSION);

	proto_put(b, a->session_id, sizeof a->session_id);
	proto_put(b, a->pk, sizeof a->pk);
	proto_putstr(b, a->cred_env);
	proto_encode_new_session(&tmp, ns);
	proto_put(b, tmp.data + PROTO_HEADER_LEN, tmp.len - PROTO_HEADER_LEN);
	proto_buf_clear(&tmp);
	proto_end(b, at);
}

int
esc_ctl_decode_new_session(const uint8_t *p, size_t len, struct esc_ctl_anchor *a,
    const uint8_t **ns_payload, size_t *ns_len, lz_err_t *err)
{
	struct proto_rd r = { p, len, 0 };
	const uint8_t *sid, *pk;

	memset(a, 0, sizeof *a);
	sid = proto_rd_take(&r, sizeof a->session_id);
	pk = proto_rd_take(&r, sizeof a->pk);
	a->cred_env = proto_rd_str(&r);
	if (r.bad) {
		esc_ctl_anchor_clear(a);
		return esc_ctl_bad("ESC_NEW_SESSION", err);
	}
	memcpy(a->session_id, sid, sizeof a->session_id);
	memcpy(a->pk, pk, sizeof a->pk);
	*ns_payload = r.p;
	*ns_len = r.left;
	return 0;
}

void
esc_ctl_anchor_clear(struct esc_ctl_anchor *a)
{
	if (a->cred_env != NULL) {
		explicit_bzero(a->cred_env, strlen(a->cred_env));
		free(a->cred_env);
	}
	memset(a, 0, sizeof *a);
}

void
esc_ctl_encode_prompt(struct proto_buf *b, const struct esc_ctl_prompt *q)
{
	size_t at = proto_begin(b, PROTO_VERSION, ESC_CTL_PROMPT);

	proto_put32(b, q->session);
	proto_put32(b, q->ticket);
	proto_putstr(b, q->request_id);
	proto_putstr(b, q->profile);
	proto_putstr(b, q->justification);
	proto_putstr(b, q->cwd);
	proto_putstr(b, q->command);
	proto_putstr(b, q->reason);
	proto_end(b, at);
}

int
esc_ctl_decode_prompt(const uint8_t *p, size_t len, struct esc_ctl_prompt *q, lz_err_t *err)
{
	struct proto_rd r = { p, len, 0 };

	memset(q, 0, sizeof *q);
	q->session = proto_rd_u32(&r);
	q->ticket = proto_rd_u32(&r);
	q->request_id = proto_rd_str(&r);
	q->profile = proto_rd_str(&r);
	q->justification = proto_rd_str(&r);
	q->cwd = proto_rd_str(&r);
	q->command = proto_rd_str(&r);
	q->reason = proto_rd_str(&r);
	if (r.bad || r.left != 0) {
		esc_ctl_prompt_clear(q);
		return esc_ctl_bad("ESC_PROMPT", err);
	}
	return 0;
}

void
esc_ctl_prompt_clear(struct esc_ctl_prompt *q)
{
	free(q->request_id);
	free(q->profile);
	free(q->justification);
	free(q->cwd);
	free(q->command);
	free(q->reason);
	memset(q, 0, sizeof *q);
}

static void
esc_ctl_encode_decision_as(struct proto_buf *b, uint16_t type, const struct esc_ctl_decision *d)
{
	size_t at = proto_begin(b, PROTO_VERSION, type);
	uint8_t act = (uint8_t)d->action;

	proto_put32(b, d->ticket);
	proto_put(b, &act, 1);
	proto_putstr(b, d->command);
	proto_end(b, at);
}

void
esc_ctl_encode_decision(struct proto_buf *b, const struct esc_ctl_decision *d)
{
	esc_ctl_encode_decision_as(b, ESC_CTL_DECISION, d);
}

void
esc_ctl_encode_decide(struct proto_buf *b, const struct esc_ctl_decision *d)
{
	esc_ctl_encode_decision_as(b, ESC_CTL_DECIDE, d);
}

void
esc_ctl_encode_list(struct proto_buf *b, uint32_t flags)
{
	size_t at = proto_begin(b, PROTO_VERSION, ESC_CTL_LIST);

	proto_put32(b, flags);
	proto_end(b, at);
}

int
esc_ctl_decode_list(const uint8_t *p, size_t len, uint32_t *flags, lz_err_t *err)
{
	struct proto_rd r = { p, len, 0 };

	*flags = proto_rd_u32(&r);
	if (r.bad || r.left != 0 || (*flags & ~(uint32_t)ESC_CTL_LIST_FOLLOW) != 0)
		return esc_ctl_bad("ESC_LIST", err);
	return 0;
}

int
esc_ctl_decode_decision(const uint8_t *p, size_t len, struct esc_ctl_decision *d,
    lz_err_t *err)
{
	struct proto_rd r = { p, len, 0 };
	const uint8_t *act;

	memset(d, 0, sizeof *d);
	d->ticket = proto_rd_u32(&r);
	act = proto_rd_take(&r, 1);
	d->command = proto_rd_str(&r);
	if (r.bad || r.left != 0 || *act > ESC_CTL_QUIT) {
		esc_ctl_decision_clear(d);
		return esc_ctl_bad("ESC_DECISION", err);
	}
	d->action = (enum esc_ctl_action)*act;
	return 0;
}

void
esc_ctl_decision_clear(struct esc_ctl_decision *d)
{
	free(d->command);
	memset(d, 0, sizeof *d);
}

void
esc_ctl_encode_withdrawn(struct proto_buf *b, uint32_t ticket)
{
	size_t at = proto_begin(b, PROTO_VERSION, ESC_CTL_WITHDRAWN);

	proto_put32(b, ticket);
	proto_end(b, at);
}

void
esc_ctl_encode_audit_req(struct proto_buf *b, uint8_t flags)
{
	size_t at = proto_begin(b, PROTO_VERSION, ESC_CTL_AUDIT_REQ);

	proto_put(b, &flags, 1);
	proto_end(b, at);
}

int
esc_ctl_decode_audit_req(const uint8_t *p, size_t len, uint8_t *flags, lz_err_t *err)
{
	if (len != 1 || (p[0] & ~(ESC_CTL_AUDIT_JSON | ESC_CTL_AUDIT_VERIFY | ESC_CTL_AUDIT_LINES |
	    ESC_CTL_AUDIT_WORDS)) != 0)
		return esc_ctl_bad("ESC_AUDIT_REQ", err);
	*flags = p[0];
	return 0;
}

void
esc_ctl_encode_audit(struct proto_buf *b, uint32_t code, const char *text)
{
	size_t at = proto_begin(b, PROTO_VERSION, ESC_CTL_AUDIT), n = strlen(text);

	if (n > PROTO_MAX_PAYLOAD - 8)
		n = PROTO_MAX_PAYLOAD - 8;
	proto_put32(b, code);
	proto_put32(b, (uint32_t)n);
	proto_put(b, text, n);
	proto_end(b, at);
}

int
esc_ctl_decode_audit(const uint8_t *p, size_t len, uint32_t *code, char **text, lz_err_t *err)
{
	struct proto_rd r = { p, len, 0 };

	*code = proto_rd_u32(&r);
	*text = proto_rd_str(&r);
	if (r.bad || r.left != 0) {
		free(*text);
		*text = NULL;
		return esc_ctl_bad("ESC_AUDIT", err);
	}
	return 0;
}

const char *
esc_ctl_action_name(enum esc_ctl_action a)
{
	switch (a) {
	case ESC_CTL_APPROVE: return "approve";
	case ESC_CTL_DENY: return "deny";
	case ESC_CTL_EDIT: return "edit";
	case ESC_CTL_QUIT: return "quit";
	}
	return "?";
}
