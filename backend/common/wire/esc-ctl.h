/* esc-ctl.h - the escalation messages of the control protocol (proto.h's
 * range 110..119; 100..103 are the escalation socket's own frames).
 *
 *	ESC_NEW_SESSION	c->s  NEW_SESSION with a Session Anchor: session id
 *			(16), client public key (32), string LAZARET_CRED value,
 *			then a NEW_SESSION payload (proto.h) unchanged.
 *	ESC_PROMPT	s->c  a verified request to decide: u32 session, u32 ticket,
 *			strings request_id, profile, justification, cwd, command,
 *			reason (why it is not auto-approved).
 *	ESC_DECISION	c->s  u32 ticket, u8 action (enum esc_ctl_action), string
 *			edited command ("" unless EDIT).
 *	ESC_WITHDRAWN	s->c  u32 ticket: decided elsewhere or timed out.
 *	ESC_LIST	c->s  u32 flags (ESC_CTL_LIST_FOLLOW): one ESC_PROMPT per
 *			request of the domain waiting for a human, whatever its
 *			session, then OK(count); FOLLOW: then every PROMPT and
 *			WITHDRAWN of the domain too (a workbench attached to it).
 *	ESC_DECIDE	c->s  the layout of ESC_DECISION, from any client of the
 *			user (`lazaret escalations`): answered OK(ticket), or
 *			ERROR PROTO_E_NO_SESSION when no request waits under it.
 * Pure: no I/O. Decoders accept exactly the layout.
 */
#ifndef LZ_ESC_CTL_H
#define LZ_ESC_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "proto.h"

/* Message numbers ESC_CTL_NEW_SESSION..ESC_CTL_AUDIT: proto.h, the one list. */
#define ESC_CTL_AUDIT_JSON	0x1
#define ESC_CTL_AUDIT_VERIFY	0x2
#define ESC_CTL_AUDIT_LINES	0x4	/* one line per event (audit-line.h), a header first */
#define ESC_CTL_AUDIT_WORDS	0x8	/* one line per event in words (audit-words.h) */
#define ESC_CTL_LIST_FOLLOW	0x1	/* ESC_LIST: stay subscribed to the domain's requests */

enum esc_ctl_action {
	ESC_CTL_APPROVE = 0,
	ESC_CTL_DENY = 1,
	ESC_CTL_EDIT = 2,	/* approve the edited command instead */
	ESC_CTL_QUIT = 3,	/* deny and shut the domain down */
};

struct esc_ctl_anchor {
	uint8_t session_id[16];
	uint8_t pk[32];
	char *cred_env;		/* owned: the LAZARET_CRED value for the exec env */
};

struct esc_ctl_prompt {
	uint32_t session;	/* control-protocol session number */
	uint32_t ticket;
	char *request_id, *profile, *justification, *cwd, *command, *reason;	/* owned */
};

struct esc_ctl_decision {
	uint32_t ticket;
	enum esc_ctl_action action;
	char *command;		/* owned; "" unless EDIT */
};

void esc_ctl_encode_new_session(struct proto_buf *b, const struct esc_ctl_anchor *a,
    const struct proto_new_session *ns);
/* ns_payload, ns_len: the embedded NEW_SESSION payload (points into p). */
int esc_ctl_decode_new_session(const uint8_t *p, size_t len, struct esc_ctl_anchor *a,
    const uint8_t **ns_payload, size_t *ns_len, lz_err_t *err);
void esc_ctl_anchor_clear(struct esc_ctl_anchor *);

void esc_ctl_encode_prompt(struct proto_buf *b, const struct esc_ctl_prompt *);
int esc_ctl_decode_prompt(const uint8_t *p, size_t len, struct esc_ctl_prompt *out,
    lz_err_t *err);
void esc_ctl_prompt_clear(struct esc_ctl_prompt *);

void esc_ctl_encode_decision(struct proto_buf *b, const struct esc_ctl_decision *);
int esc_ctl_decode_decision(const uint8_t *p, size_t len, struct esc_ctl_decision *out,
    lz_err_t *err);
void esc_ctl_decision_clear(struct esc_ctl_decision *);

void esc_ctl_encode_withdrawn(struct proto_buf *b, uint32_t ticket);

void esc_ctl_encode_list(struct proto_buf *b, uint32_t flags);
int esc_ctl_decode_list(const uint8_t *p, size_t len, uint32_t *flags, lz_err_t *err);
/* ESC_DECIDE: the DECISION layout under its own type (decode with
 * esc_ctl_decode_decision). */
void esc_ctl_encode_decide(struct proto_buf *b, const struct esc_ctl_decision *);

void esc_ctl_encode_audit_req(struct proto_buf *b, uint8_t flags);
int esc_ctl_decode_audit_req(const uint8_t *p, size_t len, uint8_t *flags, lz_err_t *err);
/* text is cut to fit one frame. */
void esc_ctl_encode_audit(struct proto_buf *b, uint32_t code, const char *text);
int esc_ctl_decode_audit(const uint8_t *p, size_t len, uint32_t *code, char **text,
    lz_err_t *err);

/* "approve", "deny", "edit", "quit". */
const char *esc_ctl_action_name(enum esc_ctl_action);

#endif
