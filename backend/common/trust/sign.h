/* sign.h - the Session Anchor (spec 4.3.2, DESIGN "Session Anchor"):
 * ed25519 keys (libsodium), the delegated credential, payload signatures and
 * the replay window.
 *
 * The client that creates a session holds a key pair K and a random 128-bit
 * session id, and registers K.pk with the coordinator. For the sandbox it
 * delegates: a fresh key pair D and a credential binding D.pk to the session
 * id and an expiry, signed with K.sk. The credential and D's secret travel in
 * the exec environment (LAZARET_CRED); lazaret-escalate signs each request
 * with D.sk and sends the credential along. The coordinator verifies the
 * credential against the registered K.pk, the session id, the expiry, then
 * the request signature with D.pk, and only then the replay window.
 *
 * Credential bytes (ESC_CRED_LEN = 124), big endian:
 *	0   "LZD1"
 *	4   session id (16)
 *	20  delegated public key (32)
 *	52  expiry, u64 unix seconds
 *	60  ed25519 signature by the client key over bytes 0..59
 */
#ifndef LZ_SIGN_H
#define LZ_SIGN_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "esc-payload.h"

#define LZ_SIGN_PK_LEN		32
#define LZ_SIGN_SK_LEN		64
#define LZ_SIGN_SEED_LEN	32
#define LZ_SIGN_ENV_CRED	"LAZARET_CRED"
#define LZ_SIGN_ENV_SESSION	"LAZARET_SESSION_ID"
#define LZ_SIGN_REPLAY_WINDOW	120	/* seconds either side of now */
#define LZ_SIGN_REPLAY_MAX	4096	/* request ids remembered per window */

struct lz_sign_key {
	uint8_t pk[LZ_SIGN_PK_LEN];
	uint8_t sk[LZ_SIGN_SK_LEN];	/* seed || pk, libsodium layout */
};

struct lz_sign_cred {
	uint8_t session_id[ESC_ID_LEN];
	uint8_t pk[LZ_SIGN_PK_LEN];	/* delegated public key */
	int64_t expires;		/* unix seconds */
	uint8_t sig[64];		/* by the client key */
};

struct lz_sign_replay;

/* sodium_init(); -1 if libsodium cannot start (no entropy). */
int lz_sign_init(lz_err_t *err);
/* A fresh key pair. Wipe it with lz_sign_key_wipe. */
void lz_sign_keypair(struct lz_sign_key *k);
void lz_sign_key_wipe(struct lz_sign_key *k);
/* 16 random bytes (session and request ids). */
void lz_sign_random_id(uint8_t id[ESC_ID_LEN]);

/* Delegate: a fresh key pair *delegated and its credential, signed by client. */
void lz_sign_delegate(const struct lz_sign_key *client, const uint8_t session_id[ESC_ID_LEN],
    int64_t expires, struct lz_sign_cred *cred, struct lz_sign_key *delegated);
void lz_sign_cred_encode(const struct lz_sign_cred *c, uint8_t out[ESC_CRED_LEN]);
/* Layout only (magic); the signature is checked by lz_sign_verify. */
int lz_sign_cred_decode(const uint8_t in[ESC_CRED_LEN], struct lz_sign_cred *c, lz_err_t *err);

/* LAZARET_CRED value: "lzc1." + hex(credential || delegated seed). Caller frees. */
char *lz_sign_cred_env(const struct lz_sign_cred *c, const struct lz_sign_key *delegated);
/* Parse a LAZARET_CRED value back (strict). */
int lz_sign_cred_from_env(const char *value, struct lz_sign_cred *c,
    struct lz_sign_key *delegated, lz_err_t *err);

/* Sandbox side: set p->credential and p->signature (over esc_payload_canonical). */
void lz_sign_payload(struct esc_payload *p, const struct lz_sign_cred *c,
    const struct lz_sign_key *delegated);
/* Coordinator side: p's credential is signed by client_pk, is for p's
 * session, not expired at now, and p's signature is the delegated key's. */
int lz_sign_verify(const struct esc_payload *p, const uint8_t client_pk[LZ_SIGN_PK_LEN],
    int64_t now, lz_err_t *err);

/* Replay defence: request ids seen within +-window seconds (max of them at
 * most; when full, new requests are refused until old ones age out). Check
 * only verified requests, so a forger cannot fill the set. */
struct lz_sign_replay *lz_sign_replay_new(int64_t window, size_t max);
void lz_sign_replay_free(struct lz_sign_replay *);
/* -1 when timestamp is outside [now - window, now + window] or the id was seen;
 * else remember it and return 0. */
int lz_sign_replay_check(struct lz_sign_replay *, const uint8_t request_id[ESC_ID_LEN],
    int64_t timestamp, int64_t now, lz_err_t *err);

#endif
