/* esc-payload.h - the Host Escalation wire format (docs/escalation.md): the
 * signed JSON request, its canonical byte encoding for signatures, and the
 * frames of the escalation socket. Pure: no I/O, fuzzable.
 *
 * Frames reuse proto.h's 12-byte header ("LZCT", version, type, length) with
 * the escalation range of message numbers (100..149). A connection carries
 * one REQUEST from the sandbox, then PENDING / OUTPUT frames and one RESULT
 * from the host.
 *
 * The request is one JSON object with exactly these keys, in any order:
 *	request_id	32 lowercase hex (128 random bits)
 *	session_id	32 lowercase hex (LAZARET_SESSION_ID)
 *	command		string, the shell-words command line (<= 64 KiB)
 *	justification	string (<= 4 KiB)
 *	cwd		string, absolute sandbox path without ".." (<= 4 KiB)
 *	timestamp	integer, unix seconds
 *	credential	hex of the delegated credential (sign.h)
 *	signature	128 lowercase hex: ed25519 over esc_payload_canonical()
 * Anything else (unknown or duplicate key, other types, NUL or invalid UTF-8
 * in a string, trailing bytes, nesting) is refused.
 */
#ifndef LZ_ESC_PAYLOAD_H
#define LZ_ESC_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "proto.h"

#define ESC_PAYLOAD_MAX		(512u * 1024)	/* JSON text of one request */
#define ESC_COMMAND_MAX		(64u * 1024)
#define ESC_JUSTIFY_MAX		4096u
#define ESC_CWD_MAX		4096u
#define ESC_ID_LEN		16	/* request and session ids, bytes */
#define ESC_CRED_LEN		124	/* delegated credential, bytes (sign.h) */
#define ESC_SIG_LEN		64	/* ed25519 signature */
#define ESC_OUTPUT_MAX		(64u * 1024)	/* bytes per OUTPUT frame sent */

/* Message numbers (proto.h range 100..149). */
enum esc_payload_msg {
	ESC_MSG_REQUEST = 100,	/* c->s: JSON request */
	ESC_MSG_PENDING = 101,	/* s->c: text, "waiting for approval ..." */
	ESC_MSG_OUTPUT = 102,	/* s->c: u8 stream (1 out, 2 err) + bytes */
	ESC_MSG_RESULT = 103,	/* s->c: u8 outcome, i32 status, text */
};

/* RESULT outcomes. */
enum esc_payload_outcome {
	ESC_OUTCOME_RAN = 0,		/* approved and ran: status = exit status or 128+signal */
	ESC_OUTCOME_DENIED = 1,		/* the human (or no one, in time) said no */
	ESC_OUTCOME_TIMEOUT = 2,	/* no decision before the host's deadline */
	ESC_OUTCOME_REJECTED = 3,	/* refused before any decision: bad signature, replay, bad payload */
	ESC_OUTCOME_FAILED = 4,		/* approved but could not be started on the host */
};

struct esc_payload {
	uint8_t request_id[ESC_ID_LEN];
	uint8_t session_id[ESC_ID_LEN];
	char *command;		/* owned, UTF-8, no NUL */
	char *justification;	/* owned */
	char *cwd;		/* owned */
	int64_t timestamp;
	uint8_t credential[ESC_CRED_LEN];
	uint8_t signature[ESC_SIG_LEN];
};

struct esc_payload_result {
	enum esc_payload_outcome outcome;
	int32_t status;
	char *message;		/* owned, "" when none */
};

/* Parse one JSON request (strict; see above). On error *out is left
 * cleared and err says what and where (byte offset). */
int esc_payload_parse(const uint8_t *buf, size_t len, struct esc_payload *out, lz_err_t *err);
/* JSON text for p (caller frees). Strings must be valid UTF-8 without NUL. */
char *esc_payload_encode(const struct esc_payload *p);
/* The bytes that are signed: "LZESC1\0\0", ids, u64 timestamp, then u32-length-
 * prefixed command, justification and cwd, then the credential. Big endian. */
void esc_payload_canonical(const struct esc_payload *p, uint8_t **out, size_t *len);
void esc_payload_clear(struct esc_payload *);

/* Frames (append one whole frame to b). */
void esc_payload_frame_request(struct proto_buf *b, const char *json);
void esc_payload_frame_pending(struct proto_buf *b, const char *text);
/* len <= ESC_OUTPUT_MAX. */
void esc_payload_frame_output(struct proto_buf *b, uint8_t stream, const void *data, size_t len);
void esc_payload_frame_result(struct proto_buf *b, const struct esc_payload_result *r);

/* Decoders of frame payloads; exact layouts, trailing bytes are an error. */
int esc_payload_decode_output(const uint8_t *p, size_t len, uint8_t *stream,
    const uint8_t **data, size_t *dlen, lz_err_t *err);
int esc_payload_decode_result(const uint8_t *p, size_t len, struct esc_payload_result *out, lz_err_t *err);
/* PENDING text, NUL-terminated copy (no NUL inside). */
int esc_payload_decode_text(const uint8_t *p, size_t len, char **out, lz_err_t *err);
void esc_payload_result_clear(struct esc_payload_result *);

/* Lowercase hex of n bytes into out[2n+1]. */
void esc_payload_hex(const uint8_t *bin, size_t n, char *out);
/* Exactly 2n lowercase hex chars of s into bin; -1 on anything else. */
int esc_payload_unhex(const char *s, size_t slen, uint8_t *bin, size_t n);

#endif
