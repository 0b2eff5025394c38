/* esc-ctl.c - escalation messages on the control socket (pure). */
#include <arpa/inet.h>
#include <string.h>

#include "esc-ctl.h"
#include "xmalloc.h"

struct esc_ctl_rd {
	const uint8_t *p;
	size_t left;
	int bad;
};

void
esc_ctl_append(struct proto_buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap > 0 ? b->cap : 256;

		while (cap < b->len + n)
			cap *= 2;
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	if (n > 0)
		memcpy(b->data + b->len, d, n);
	b->len += n;
}

static void
esc_ctl_put32(struct proto_buf *b, uint32_t v)
{
	v = htonl(v);
	esc_ctl_append(b, &v, 4);
}

static void
esc_ctl_put_str(struct proto_buf *b, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	esc_ctl_put32(b, (uint32_t)n);
	esc_ctl_append(b, s, n);
}

/* Header now, length patched by esc_ctl_end. */
static size_t
esc_ctl_begin(struct proto_buf *b, uint16_t type)
{
	uint8_t h[PROTO_HEADER_LEN] = { 'L', 'Z', 'C', 'T', PROTO_VERSION, 0, 0, 0, 0, 0, 0, 0 };
	size_t at = b->len;

	h[6] = (uint8_t)(type >> 8);
	h[7] = (uint8_t)type;
	esc_ctl_append(b, h, sizeof h);
	return at;
}

static void
esc_ctl_end(struct proto_buf *b, size_t at)
{
	size_t n = b->len - at - PROTO_HEADER_LEN;
	uint32_t v;

	LZ_ASSERT(n <= PROTO_MAX_PAYLOAD);
	v = htonl((uint32_t)n);
	memcpy(b->data + at + 8, &v, 4);
}

static const uint8_t *
esc_ctl_take(struct esc_ctl_rd *r, size_t n)
{
	const uint8_t *p = r->p;

	if (r->bad || n > r->left) {
		r->bad = 1;
		return NULL;
	}
	r->p += n;
	r->left -= n;
	return p;
}

static uint32_t
esc_ctl_get32(struct esc_ctl_rd *r)
{
	const uint8_t *p = esc_ctl_take(r, 4);
	uint32_t v;

	if (p == NULL)
		return 0;
	memcpy(&v, p, 4);
	return ntohl(v);
}

/* A string without NUL, copied; NULL (and r->bad) on anything else. */
static char *
esc_ctl_get_str(struct esc_ctl_rd *r)
{
	uint32_t n = esc_ctl_get32(r);
	const uint8_t *p;

	if (r->bad || n > r->left) {
		r->bad = 1;
		return NULL;
	}
	p = esc_ctl_take(r, n);
	if (memchr(p, '\0', n) != NULL) {
		r->bad = 1;
		return NULL;
	}
	return xstrndup((const char *)p, n);
}

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
	size_t at = esc_ctl_begin(b, ESC_CTL_NEW_SESSION);

	esc_ctl_append(b, a->session_id, sizeof a->session_id);
	esc_ctl_append(b, a->pk, sizeof a->pk);
	esc_ctl_put_str(b, a->cred_env);
	proto_encode_new_session(&tmp, ns);
	esc_ctl_append(b, tmp.data + PROTO_HEADER_LEN, tmp.len - PROTO_HEADER_LEN);
	proto_buf_clear(&tmp);
	esc_ctl_end(b, at);
}

int
esc_ctl_decode_new_session(const uint8_t *p, size_t len, struct esc_ctl_anchor *a,
    const uint8_t **ns_payload, size_t *ns_len, lz_err_t *err)
{
	struct esc_ctl_rd r = { p, len, 0 };
	const uint8_t *sid, *pk;

	memset(a, 0, sizeof *a);
	sid = esc_ctl_take(&r, sizeof a->session_id);
	pk = esc_ctl_take(&r, sizeof a->pk);
	a->cred_env = esc_ctl_get_str(&r);
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
	size_t at = esc_ctl_begin(b, ESC_CTL_PROMPT);

	esc_ctl_put32(b, q->session);
	esc_ctl_put32(b, q->ticket);
	esc_ctl_put_str(b, q->request_id);
	esc_ctl_put_str(b, q->profile);
	esc_ctl_put_str(b, q->justification);
	esc_ctl_put_str(b, q->cwd);
	esc_ctl_put_str(b, q->command);
	esc_ctl_put_str(b, q->reason);
	esc_ctl_end(b, at);
}

int
esc_ctl_decode_prompt(const uint8_t *p, size_t len, struct esc_ctl_prompt *q, lz_err_t *err)
{
	struct esc_ctl_rd r = { p, len, 0 };

	memset(q, 0, sizeof *q);
	q->session = esc_ctl_get32(&r);
	q->ticket = esc_ctl_get32(&r);
	q->request_id = esc_ctl_get_str(&r);
	q->profile = esc_ctl_get_str(&r);
	q->justification = esc_ctl_get_str(&r);
	q->cwd = esc_ctl_get_str(&r);
	q->command = esc_ctl_get_str(&r);
	q->reason = esc_ctl_get_str(&r);
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

void
esc_ctl_encode_decision(struct proto_buf *b, const struct esc_ctl_decision *d)
{
	size_t at = esc_ctl_begin(b, ESC_CTL_DECISION);
	uint8_t act = (uint8_t)d->action;

	esc_ctl_put32(b, d->ticket);
	esc_ctl_append(b, &act, 1);
	esc_ctl_put_str(b, d->command);
	esc_ctl_end(b, at);
}

int
esc_ctl_decode_decision(const uint8_t *p, size_t len, struct esc_ctl_decision *d,
    lz_err_t *err)
{
	struct esc_ctl_rd r = { p, len, 0 };
	const uint8_t *act;

	memset(d, 0, sizeof *d);
	d->ticket = esc_ctl_get32(&r);
	act = esc_ctl_take(&r, 1);
	d->command = esc_ctl_get_str(&r);
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
	size_t at = esc_ctl_begin(b, ESC_CTL_WITHDRAWN);

	esc_ctl_put32(b, ticket);
	esc_ctl_end(b, at);
}

void
esc_ctl_encode_audit_req(struct proto_buf *b, uint8_t flags)
{
	size_t at = esc_ctl_begin(b, ESC_CTL_AUDIT_REQ);

	esc_ctl_append(b, &flags, 1);
	esc_ctl_end(b, at);
}

int
esc_ctl_decode_audit_req(const uint8_t *p, size_t len, uint8_t *flags, lz_err_t *err)
{
	if (len != 1 || (p[0] & ~(ESC_CTL_AUDIT_JSON | ESC_CTL_AUDIT_VERIFY)) != 0)
		return esc_ctl_bad("ESC_AUDIT_REQ", err);
	*flags = p[0];
	return 0;
}

void
esc_ctl_encode_audit(struct proto_buf *b, uint32_t code, const char *text)
{
	size_t at = esc_ctl_begin(b, ESC_CTL_AUDIT), n = strlen(text);

	if (n > PROTO_MAX_PAYLOAD - 8)
		n = PROTO_MAX_PAYLOAD - 8;
	esc_ctl_put32(b, code);
	esc_ctl_put32(b, (uint32_t)n);
	esc_ctl_append(b, text, n);
	esc_ctl_end(b, at);
}

int
esc_ctl_decode_audit(const uint8_t *p, size_t len, uint32_t *code, char **text, lz_err_t *err)
{
	struct esc_ctl_rd r = { p, len, 0 };

	*code = esc_ctl_get32(&r);
	*text = esc_ctl_get_str(&r);
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
