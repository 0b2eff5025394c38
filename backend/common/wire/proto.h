/* proto.h - the control protocol between clients and the Session Coordinator
 * (DESIGN "Control protocol"). Wire format only: pure, no I/O, fuzzable.
 *
 * A frame is a 12-byte header followed by the payload, all integers in network
 * order:
 *
 *	0  u32 magic   "LZCT"
 *	4  u8  version PROTO_VERSION
 *	5  u8  flags   reserved, 0
 *	6  u16 type    enum proto_type
 *	8  u32 length  payload bytes, <= PROTO_MAX_PAYLOAD
 *
 * Strings in payloads are u32 length + bytes (no NUL on the wire, no NUL
 * allowed inside). The magic and version never move, so a peer of another
 * version can always be told so. Bump PROTO_VERSION if any layout changes.
 */
#ifndef LZ_PROTO_H
#define LZ_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define PROTO_MAGIC		0x4c5a4354u	/* "LZCT" */
#define PROTO_VERSION		1
#define PROTO_HEADER_LEN	12
#define PROTO_MAX_PAYLOAD	(1u << 20)
#define PROTO_MAX_ARGS		4096	/* argv entries in NEW_SESSION */
#define PROTO_DATA_MAX		(64u * 1024)	/* bytes per DATA frame we send */

/* Message numbers come in ranges and never shift (tmux-protocol.h). */
enum proto_type {
	/* 1..19: connection */
	PROTO_HELLO = 1,	/* both ways: version, pid, uid */
	PROTO_ERROR = 2,	/* both ways: code, text */
	PROTO_OK = 3,		/* reply to STOP and DETACH: u32 value */
	/* 20..59: sessions */
	PROTO_NEW_SESSION = 20,	/* c->s: start a command in the sandbox */
	PROTO_SESSION = 21,	/* s->c: session created: id, pid */
	PROTO_ATTACH = 22,	/* c->s: attach to a session id */
	PROTO_DATA = 23,	/* both ways: session bytes */
	PROTO_EOF = 24,		/* c->s: end of input (pipe sessions) */
	PROTO_RESIZE = 25,	/* c->s: window size */
	PROTO_SESSION_EXIT = 26,	/* s->c: exit status */
	PROTO_DETACH = 27,	/* c->s: leave a session running */
	/* 60..79: queries and control */
	PROTO_STATUS_REQ = 60,	/* c->s: format */
	PROTO_STATUS = 61,	/* s->c: text */
	PROTO_LIST = 62,	/* c->s: sessions of this domain (reply STATUS) */
	PROTO_STOP = 63,	/* c->s: tear the domain down */
	/* 64: PROTO_SUSPECT, below */
	PROTO_EGRESS_REQ = 65,	/* c->s: egress log (netctl.h); s->c NETCTL_EVENTs, OK */
	PROTO_EGRESS_EDIT = 66,	/* c->s: allow/deny one entry for this run (netctl.h) */
	/* 100..149: escalation (ESC_CTL_* below; 100..103 are the escalation socket's) */
	/* 150..199: workbench, snapshots and screens (issue 5) */
	PROTO_SNAPSHOT = 150,	/* s->c: after SESSION on ATTACH: id, screen (term-snap) */
	PROTO_KILL = 151,	/* c->s: end a session (a workbench tab closed) */
};

/* 110..119: the escalation messages, encoded and decoded in esc-ctl.c;
 * numbered here so every message number is in one list. */
#define ESC_CTL_NEW_SESSION	110
#define ESC_CTL_PROMPT		111
#define ESC_CTL_DECISION	112
#define ESC_CTL_WITHDRAWN	113
#define ESC_CTL_AUDIT_REQ	114	/* c->s: u8 flags ESC_CTL_AUDIT_* */
#define ESC_CTL_AUDIT		115	/* s->c: u32 exit code, string text */
#define ESC_CTL_LIST		116	/* c->s: u32 flags ESC_CTL_LIST_* -> PROMPTs, OK(n) */
#define ESC_CTL_DECIDE		117	/* c->s: a DECISION that is answered: OK(ticket) | ERROR */
/* 67: an audit row from `lazaret merge/discard/sync` (backend/review/
 * review-audit.c): string kind "review.*", string detail JSON; reply OK
 * with the row's seq. Outside enum proto_type, like SUSPECT. */
#define REVIEW_CTL_AUDIT	67
/* 68: `lazaret sync` on a live domain (backend/review/review-live.h):
 * string target, string notice; reply STATUS text. */
#define SENTRY_CTL_SYNC		68

/* SUSPECT (issue 9): a client saw input at an escalation prompt that no
 * human typed (a terminal's reply to a query) and discarded it; the
 * coordinator audits it as esc.suspicious. A number outside enum proto_type:
 * switches over that enum (client.c) list every value, and only clients
 * send this. An older coordinator answers PROTO_E_UNKNOWN_TYPE, which the
 * sender ignores; the payload starts with its own layout number, checked. */
#define PROTO_SUSPECT		64	/* c->s: u8 layout, u32 session, str request id, what, sample */
#define PROTO_SUSPECT_LAYOUT	1
#define PROTO_SUSPECT_MAX	512	/* bytes of each string, at most */

struct proto_suspect {
	uint32_t session;	/* the session whose request was on screen */
	char *request_id;	/* owned */
	char *what;		/* owned: "terminal-reply" */
	char *sample;		/* owned: the discarded input, control characters escaped */
};

/* 200..219: the network sidecar's control socket (netctl.c; NETCTL_EVENT
 * also goes from the coordinator to `lazaret egress`). */
#define NETCTL_POLICY_SET	200	/* c->r: u32 n, n strings: replace the policy */
#define NETCTL_POLICY_ADD	201	/* c->r: string: add one entry */
#define NETCTL_POLICY_DEL	202	/* c->r: string: remove one entry */
#define NETCTL_POLICY_GET	203	/* c->r: -> POLICY */
#define NETCTL_POLICY		204	/* r->c: u32 n, n strings */
#define NETCTL_SUBSCRIBE	205	/* c->r: -> OK, then EVENTs */
#define NETCTL_EVENT		206	/* r->c, s->c: one egress event */
#define NETCTL_HOST_ADDRS	207	/* c->r: u32 n, n strings: the host's own addresses (guarded) */
#define NETCTL_CRED_SET		208	/* c->r: u32 n, n strings: the broker's credentials (netctl.h) */
/* 220..239: network requests (netreq.h): pending destinations, decisions,
 * grants; client <-> coordinator, and NETCTL_ASK/VERDICT with the router.
 * Defines, not enum proto_type values, so switches over that enum stay whole. */
#define NETREQ_LIST		220	/* c->s: u32 flags -> ITEMs, SUMMARY, OK */
#define NETREQ_ITEM		221	/* s->c: one request */
#define NETREQ_SUMMARY		222	/* s->c: counters */
#define NETREQ_DECIDE		223	/* c->s: a decision -> RESULT */
#define NETREQ_RESULT		224	/* s->c */
#define NETREQ_GRANTS_REQ	225	/* c->s -> GRANTS */
#define NETREQ_GRANTS		226	/* s->c: the profile's saved grants */
#define NETREQ_REVOKE		227	/* c->s: entry or "#N" -> REVOKE (the entry removed) */
#define NETCTL_ASK		228	/* r->c: a held destination */
#define NETCTL_VERDICT		229	/* c->r: accept/refuse/deny a request */
#define NETREQ_HOLD		230	/* c->s: u32 id, u32 on: its view is open (on) or closed */

/* ERROR codes. */
enum proto_errcode {
	PROTO_E_BAD_FRAME = 1,	/* bad magic or length: the connection is closed */
	PROTO_E_VERSION = 2,	/* protocol version mismatch */
	PROTO_E_UNKNOWN_TYPE = 3,
	PROTO_E_BAD_PAYLOAD = 4,
	PROTO_E_NO_SESSION = 5,
	PROTO_E_START = 6,	/* a session could not be started */
	PROTO_E_SHUTDOWN = 7,	/* the coordinator is tearing down */
	PROTO_E_MODE = 8,	/* domain already running in another mode */
	PROTO_E_STATE = 9,	/* message not valid now (before HELLO, ...) */
};

/* DATA streams. */
#define PROTO_STREAM_IN		0
#define PROTO_STREAM_OUT	1
#define PROTO_STREAM_ERR	2

/* NEW_SESSION flags. */
#define PROTO_SESSION_TTY	0x1	/* allocate a terminal (podman exec -t) */
#define PROTO_SESSION_DIRECT	0x2	/* workspace mode direct (else isolated) */
#define PROTO_SESSION_KEEP	0x4	/* survives its creator's disconnect (workbench) */

/* STATUS_REQ formats. */
enum proto_status_fmt {
	PROTO_STATUS_TEXT = 0,
	PROTO_STATUS_JSON = 1,
	PROTO_STATUS_ROW = 2,	/* one tab-separated line for `lazaret ls` and the
				 * dashboard: hash, profile, state (tabstate.h's
				 * words, idle, stopped...), sessions, uptime s,
				 * memory bytes, CPU per mille of one CPU, flows,
				 * blocked, pending, workspace, container, its
				 * state, mode, other clients (-1: unknown) */
	PROTO_STATUS_CONFIG = 3,	/* the effective configuration (effcfg.h) */
};

struct proto_header {
	uint8_t version;
	uint8_t flags;
	uint16_t type;
	uint32_t length;
};

/* A growable byte buffer that encoders append whole frames to. */
struct proto_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

struct proto_hello {
	uint32_t version;
	uint32_t pid;
	uint32_t uid;
};

struct proto_error {
	uint32_t code;
	char *text;		/* owned */
};

struct proto_new_session {
	uint32_t flags;		/* PROTO_SESSION_* */
	uint16_t rows, cols;
	char *term;		/* owned, "" when none */
	char **argv;		/* owned, NULL-terminated; argv[0] == NULL = shell */
};

struct proto_session {
	uint32_t id;
	uint32_t pid;
};

/* DATA: data points into the decoded buffer (no copy). */
struct proto_data {
	uint32_t id;
	uint8_t stream;
	const uint8_t *data;
	size_t len;
};

struct proto_resize {
	uint32_t id;
	uint16_t rows, cols;
};

struct proto_exit {
	uint32_t id;
	int32_t status;		/* exit status, or 128+signal */
	uint32_t flags;		/* PROTO_EXIT_*; absent (0) from an older coordinator */
};
#define PROTO_EXIT_LIMIT	1u	/* the domain's sandbox was stopped at a limit */

/* NOTE: what a client saw that the audit trail must hold (terminal reports
 * discarded while an escalation prompt was up; how a decision was made).
 * Payload: u8 layout (PROTO_NOTE_LAYOUT), u32 session, strings kind,
 * request_id, text. A newer layout is refused by name, not misread. */
#define PROTO_NOTE		152	/* c->s; a define, so switches over the enum stay whole */
#define PROTO_NOTE_LAYOUT	1
#define PROTO_NOTE_KIND_MAX	64	/* [a-z0-9.-]+ */
#define PROTO_NOTE_ID_MAX	64
#define PROTO_NOTE_TEXT_MAX	2048
struct proto_note {
	uint32_t session;
	char *kind;		/* owned */
	char *request_id;	/* owned, may be "" */
	char *text;		/* owned */
};

/* Header parse results. */
#define PROTO_NEED_MORE	0	/* not a whole header/frame yet */
#define PROTO_FRAME	1	/* a whole frame is there */

/* Parse the frame at buf. Returns PROTO_FRAME with *hdr and *payload set (the
 * frame takes PROTO_HEADER_LEN + hdr->length bytes), PROTO_NEED_MORE, or -1
 * with err->code a proto_errcode: PROTO_E_BAD_FRAME (bad magic, oversize
 * length) or PROTO_E_VERSION (hdr is still filled in). The length is checked
 * before anything is allocated. */
int proto_frame_parse(const uint8_t *buf, size_t len, struct proto_header *hdr,
    const uint8_t **payload, lz_err_t *err);

/* Is this a message type this version knows? */
bool proto_type_known(uint16_t type);
/* Name for logs ("NEW_SESSION"), "?" when unknown. */
const char *proto_type_name(uint16_t type);

/* Payload decoders: return 0 or -1 with err (code PROTO_E_BAD_PAYLOAD). They
 * accept exactly the layout; trailing bytes are an error. */
int proto_decode_hello(const uint8_t *p, size_t len, struct proto_hello *out, lz_err_t *err);
int proto_decode_error(const uint8_t *p, size_t len, struct proto_error *out, lz_err_t *err);
int proto_decode_u32(const uint8_t *p, size_t len, uint32_t *out, lz_err_t *err);
int proto_decode_new_session(const uint8_t *p, size_t len, struct proto_new_session *out,
    lz_err_t *err);
int proto_decode_session(const uint8_t *p, size_t len, struct proto_session *out, lz_err_t *err);
int proto_decode_data(const uint8_t *p, size_t len, struct proto_data *out, lz_err_t *err);
int proto_decode_eof(const uint8_t *p, size_t len, uint32_t *id, lz_err_t *err);
int proto_decode_resize(const uint8_t *p, size_t len, struct proto_resize *out, lz_err_t *err);
int proto_decode_exit(const uint8_t *p, size_t len, struct proto_exit *out, lz_err_t *err);
int proto_decode_status_req(const uint8_t *p, size_t len, enum proto_status_fmt *out,
    lz_err_t *err);
/* STATUS text (owned, NUL-terminated; NUL inside is an error). */
int proto_decode_text(const uint8_t *p, size_t len, char **out, lz_err_t *err);
/* A payload of two strings (REVIEW_AUDIT, SENTRY_SYNC): encode a frame of
 * type; decode: 0 with both owned, -1 (nothing owned) when short, malformed
 * or followed by more bytes. */
void proto_encode_pair(struct proto_buf *b, uint16_t type, const char *first,
    const char *second);
int proto_decode_pair(const uint8_t *p, size_t len, char **first, char **second);

void proto_error_clear(struct proto_error *);
void proto_new_session_clear(struct proto_new_session *);

/* Encoders append one whole frame to b. */
void proto_encode_hello(struct proto_buf *b, const struct proto_hello *);
void proto_encode_error(struct proto_buf *b, uint32_t code, const char *text);
void proto_encode_ok(struct proto_buf *b, uint32_t value);
void proto_encode_new_session(struct proto_buf *b, const struct proto_new_session *);
void proto_encode_session(struct proto_buf *b, const struct proto_session *);
void proto_encode_attach(struct proto_buf *b, uint32_t id);
/* len <= PROTO_MAX_PAYLOAD - 5; callers send chunks of PROTO_DATA_MAX. */
void proto_encode_data(struct proto_buf *b, uint32_t id, uint8_t stream,
    const void *data, size_t len);
void proto_encode_eof(struct proto_buf *b, uint32_t id);
void proto_encode_resize(struct proto_buf *b, const struct proto_resize *);
void proto_encode_exit(struct proto_buf *b, const struct proto_exit *);
void proto_encode_detach(struct proto_buf *b, uint32_t id);
void proto_encode_kill(struct proto_buf *b, uint32_t id);
/* NOTE: the strings are cut to their maxima (kind and request id must fit). */
void proto_encode_note(struct proto_buf *b, const struct proto_note *);
int proto_decode_note(const uint8_t *p, size_t len, struct proto_note *out, lz_err_t *err);
void proto_note_clear(struct proto_note *);
/* SUSPECT: strings longer than PROTO_SUSPECT_MAX are cut (on a character
 * boundary is the caller's business: the sample is ASCII). */
void proto_encode_suspect(struct proto_buf *b, const struct proto_suspect *);
/* Refuses another layout, strings over PROTO_SUSPECT_MAX, NUL inside. */
int proto_decode_suspect(const uint8_t *p, size_t len, struct proto_suspect *out, lz_err_t *err);
void proto_suspect_clear(struct proto_suspect *);
/* SNAPSHOT: u32 id, then the term_snap_encode bytes (len <= PROTO_MAX_PAYLOAD - 4). */
void proto_encode_snapshot(struct proto_buf *b, uint32_t id, const void *snap, size_t len);
/* snap points into p (no copy). */
int proto_decode_snapshot(const uint8_t *p, size_t len, uint32_t *id, const uint8_t **snap,
    size_t *snap_len, lz_err_t *err);
void proto_encode_status_req(struct proto_buf *b, enum proto_status_fmt fmt);
/* STATUS text; cut to fit PROTO_MAX_PAYLOAD. */
void proto_encode_status(struct proto_buf *b, const char *text);
void proto_encode_list(struct proto_buf *b);
void proto_encode_stop(struct proto_buf *b);
/* A frame with an arbitrary type and raw payload (tests, fuzzing). */
void proto_encode_raw(struct proto_buf *b, uint8_t version, uint16_t type,
    const void *payload, size_t len);

/* Building blocks for the encoders and decoders of sibling messages
 * (esc-ctl.c): a reader checks every length against what is left first. */
struct proto_rd {
	const uint8_t *p;
	size_t left;
	int bad;
};
void proto_rd_init(struct proto_rd *r, const uint8_t *p, size_t len);
/* n bytes, or NULL (and r->bad) when fewer are left. */
const uint8_t *proto_rd_take(struct proto_rd *r, size_t n);
uint32_t proto_rd_u32(struct proto_rd *r);
/* The big-endian u32 at p (4 bytes the caller checked are there). */
uint32_t proto_get32(const uint8_t *p);
uint16_t proto_rd_u16(struct proto_rd *r);
uint8_t proto_rd_u8(struct proto_rd *r);
/* proto_rd_str of at most max bytes: the length is checked before anything is read. */
char *proto_rd_str_max(struct proto_rd *r, uint32_t max);
/* A u32 length then that many bytes without NUL, copied; NULL (and r->bad)
 * on anything else. */
char *proto_rd_str(struct proto_rd *r);
uint64_t proto_rd_u64(struct proto_rd *r);
/* A u32 length then that many bytes into a fixed field of cap bytes (with its
 * NUL); the length is checked before anything is copied. 0, or one of: */
#define PROTO_FIELD_SHORT	-1	/* payload cut short */
#define PROTO_FIELD_LONG	-2	/* longer than the field: an error, not a cut */
#define PROTO_FIELD_NUL		-3	/* a NUL inside */
int proto_rd_field(struct proto_rd *r, char *dst, size_t cap);
/* 0, or -1 with err naming what: bad (short, malformed) or trailing bytes. */
int proto_rd_end(struct proto_rd *r, const char *what, lz_err_t *err);
/* Append n raw bytes to b. */
void proto_put(struct proto_buf *b, const void *p, size_t n);
void proto_put32(struct proto_buf *b, uint32_t v);
void proto_put16(struct proto_buf *b, uint16_t v);
void proto_put8(struct proto_buf *b, uint8_t v);
/* proto_putstr of s's first max bytes at most. */
void proto_putstr_max(struct proto_buf *b, const char *s, size_t max);
/* u32 length then the bytes; NULL is the empty string. */
void proto_putstr(struct proto_buf *b, const char *s);
/* The same, cut to cap - 1 bytes (a fixed field's room; see proto_rd_field). */
void proto_putfield(struct proto_buf *b, const char *s, size_t cap);
void proto_put64(struct proto_buf *b, uint64_t v);
/* Start a frame; returns the offset of its header for proto_end, which
 * patches the payload length in. */
size_t proto_begin(struct proto_buf *b, uint8_t version, uint16_t type);
void proto_end(struct proto_buf *b, size_t at);

/* Drop the first n bytes of b (consumed frames). */
void proto_buf_consume(struct proto_buf *b, size_t n);

/* Reading frames from a stream into b (the control socket's both ends). */
#define PROTO_READ_CHUNK	65536	/* room a socket read asks for */
/* Room for a read of at least n bytes straight into b: b grows to exactly
 * len + n when less is free. Returns where the bytes go; *avail (if not NULL)
 * receives how many fit there. */
uint8_t *proto_buf_space(struct proto_buf *b, size_t n, size_t *avail);
/* Called with each whole frame; non-zero stops the walk. */
typedef int (*proto_frame_fn)(const struct proto_header *h, const uint8_t *payload,
    void *arg);
/* Hand the whole frames at the start of b to fn, in order, then drop those
 * handed out from b; a partial frame stays for the next read. Returns 0 (no
 * more whole frames, or fn said stop), or -1 with err as proto_frame_parse's
 * on a bad frame (the frames before it were handed out; it stays in b).
 * fn may not shrink or free b. */
int proto_buf_frames(struct proto_buf *b, proto_frame_fn fn, void *arg, lz_err_t *err);
/* Free b's storage and reset it. */
void proto_buf_clear(struct proto_buf *b);
/* Hand b's bytes over (caller frees); b is reset. */
uint8_t *proto_buf_steal(struct proto_buf *b, size_t *len);

#endif
