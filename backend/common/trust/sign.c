/* sign.c - Session Anchor keys, delegated credentials, payload signatures,
 * replay window (libsodium ed25519). */
#include <string.h>

#include <sodium.h>

#include "sign.h"
#include "xmalloc.h"

#define CRED_MAGIC "LZD1"
#define CRED_SIGNED_LEN 60	/* bytes covered by the client's signature */
#define ENV_PREFIX "lzc1."

_Static_assert(ESC_CRED_LEN == CRED_SIGNED_LEN + crypto_sign_BYTES, "credential layout");
_Static_assert(LZ_SIGN_SK_LEN == crypto_sign_SECRETKEYBYTES, "libsodium secret key size");
_Static_assert(ESC_SIG_LEN == crypto_sign_BYTES, "signature size");

struct replay_ent {
	uint8_t id[ESC_ID_LEN];
	int64_t ts;
};

struct lz_sign_replay {
	int64_t window;
	size_t max, n;
	struct replay_ent *ents;
};

int
lz_sign_init(lz_err_t *err)
{
	if (sodium_init() < 0)
		return lz_err_set(err, LZ_EINVAL, "libsodium failed to initialise");
	return 0;
}

void
lz_sign_keypair(struct lz_sign_key *k)
{
	LZ_ASSERT(sodium_init() >= 0);
	crypto_sign_keypair(k->pk, k->sk);
}

void
lz_sign_key_wipe(struct lz_sign_key *k)
{
	sodium_memzero(k, sizeof *k);
}

void
lz_sign_random_id(uint8_t id[ESC_ID_LEN])
{
	LZ_ASSERT(sodium_init() >= 0);
	randombytes_buf(id, ESC_ID_LEN);
}

static void
be64_put(uint8_t *p, uint64_t v)
{
	for (int k = 0; k < 8; k++)
		p[k] = (uint8_t)(v >> (56 - 8 * k));
}

static uint64_t
be64_get(const uint8_t *p)
{
	uint64_t v = 0;

	for (int k = 0; k < 8; k++)
		v = v << 8 | p[k];
	return v;
}

void
lz_sign_cred_encode(const struct lz_sign_cred *c, uint8_t out[ESC_CRED_LEN])
{
	memcpy(out, CRED_MAGIC, 4);
	memcpy(out + 4, c->session_id, ESC_ID_LEN);
	memcpy(out + 20, c->pk, LZ_SIGN_PK_LEN);
	be64_put(out + 52, (uint64_t)c->expires);
	memcpy(out + 60, c->sig, crypto_sign_BYTES);
}

int
lz_sign_cred_decode(const uint8_t in[ESC_CRED_LEN], struct lz_sign_cred *c, lz_err_t *err)
{
	memset(c, 0, sizeof *c);
	if (memcmp(in, CRED_MAGIC, 4) != 0)
		return lz_err_set(err, LZ_EINVAL, "not a Lazaret session credential");
	memcpy(c->session_id, in + 4, ESC_ID_LEN);
	memcpy(c->pk, in + 20, LZ_SIGN_PK_LEN);
	c->expires = (int64_t)be64_get(in + 52);
	memcpy(c->sig, in + 60, crypto_sign_BYTES);
	return 0;
}

void
lz_sign_delegate(const struct lz_sign_key *client, const uint8_t session_id[ESC_ID_LEN],
    int64_t expires, struct lz_sign_cred *cred, struct lz_sign_key *delegated)
{
	uint8_t buf[ESC_CRED_LEN];

	lz_sign_keypair(delegated);
	memset(cred, 0, sizeof *cred);
	memcpy(cred->session_id, session_id, ESC_ID_LEN);
	memcpy(cred->pk, delegated->pk, LZ_SIGN_PK_LEN);
	cred->expires = expires;
	lz_sign_cred_encode(cred, buf);
	crypto_sign_detached(cred->sig, NULL, buf, CRED_SIGNED_LEN, client->sk);
}

char *
lz_sign_cred_env(const struct lz_sign_cred *c, const struct lz_sign_key *delegated)
{
	uint8_t bin[ESC_CRED_LEN + LZ_SIGN_SEED_LEN];
	char *out = xmalloc(sizeof ENV_PREFIX - 1 + 2 * sizeof bin + 1);

	lz_sign_cred_encode(c, bin);
	memcpy(bin + ESC_CRED_LEN, delegated->sk, LZ_SIGN_SEED_LEN);	/* sk = seed || pk */
	memcpy(out, ENV_PREFIX, sizeof ENV_PREFIX - 1);
	esc_payload_hex(bin, sizeof bin, out + sizeof ENV_PREFIX - 1);
	sodium_memzero(bin, sizeof bin);
	return out;
}

int
lz_sign_cred_from_env(const char *value, struct lz_sign_cred *c,
    struct lz_sign_key *delegated, lz_err_t *err)
{
	uint8_t bin[ESC_CRED_LEN + LZ_SIGN_SEED_LEN];
	size_t plen = sizeof ENV_PREFIX - 1;
	int rc = -1;

	if (value == NULL || strncmp(value, ENV_PREFIX, plen) != 0 ||
	    esc_payload_unhex(value + plen, strlen(value + plen), bin, sizeof bin) < 0) {
		lz_err_set(err, LZ_EINVAL, "%s is not a session credential", LZ_SIGN_ENV_CRED);
		goto cleanup;
	}
	if (lz_sign_cred_decode(bin, c, err) < 0)
		goto cleanup;
	LZ_ASSERT(sodium_init() >= 0);
	crypto_sign_seed_keypair(delegated->pk, delegated->sk, bin + ESC_CRED_LEN);
	if (sodium_memcmp(delegated->pk, c->pk, LZ_SIGN_PK_LEN) != 0) {
		lz_sign_key_wipe(delegated);
		lz_err_set(err, LZ_EINVAL, "%s: key does not match its credential", LZ_SIGN_ENV_CRED);
		goto cleanup;
	}
	rc = 0;
cleanup:
	sodium_memzero(bin, sizeof bin);
	return rc;
}

void
lz_sign_payload(struct esc_payload *p, const struct lz_sign_cred *c,
    const struct lz_sign_key *delegated)
{
	uint8_t *msg;
	size_t len;

	lz_sign_cred_encode(c, p->credential);
	esc_payload_canonical(p, &msg, &len);
	crypto_sign_detached(p->signature, NULL, msg, len, delegated->sk);
	free(msg);
}

int
lz_sign_verify(const struct esc_payload *p, const uint8_t client_pk[LZ_SIGN_PK_LEN],
    int64_t now, lz_err_t *err)
{
	struct lz_sign_cred c;
	uint8_t *msg = NULL;
	size_t len;
	int rc = -1;

	if (sodium_init() < 0) {
		lz_err_set(err, LZ_EINVAL, "libsodium failed to initialise");
		goto cleanup;
	}
	if (lz_sign_cred_decode(p->credential, &c, err) < 0)
		goto cleanup;
	if (crypto_sign_verify_detached(c.sig, p->credential, CRED_SIGNED_LEN, client_pk) != 0) {
		lz_err_set(err, LZ_EINVAL, "credential not signed by the session's key");
		goto cleanup;
	}
	if (sodium_memcmp(c.session_id, p->session_id, ESC_ID_LEN) != 0) {
		lz_err_set(err, LZ_EINVAL, "credential belongs to another session");
		goto cleanup;
	}
	if (now >= c.expires) {
		lz_err_set(err, LZ_EINVAL, "credential expired %lld s ago",
		    (long long)(now - c.expires));
		goto cleanup;
	}
	esc_payload_canonical(p, &msg, &len);
	if (crypto_sign_verify_detached(p->signature, msg, len, c.pk) != 0) {
		lz_err_set(err, LZ_EINVAL, "bad request signature");
		goto cleanup;
	}
	rc = 0;
cleanup:
	free(msg);
	return rc;
}

struct lz_sign_replay *
lz_sign_replay_new(int64_t window, size_t max)
{
	struct lz_sign_replay *r = xcalloc(1, sizeof *r);

	r->window = window;
	r->max = max;
	r->ents = xcalloc(max, sizeof *r->ents);
	return r;
}

void
lz_sign_replay_free(struct lz_sign_replay *r)
{
	if (r == NULL)
		return;
	free(r->ents);
	free(r);
}

int
lz_sign_replay_check(struct lz_sign_replay *r, const uint8_t request_id[ESC_ID_LEN],
    int64_t timestamp, int64_t now, lz_err_t *err)
{
	size_t i, k;

	if (timestamp < now - r->window || timestamp > now + r->window)
		return lz_err_set(err, LZ_EINVAL,
		    "request timestamp is %lld s from the host clock (window +-%lld s)",
		    (long long)(timestamp - now), (long long)r->window);
	/* forget what has aged out: those would fail the window check anyway */
	for (i = 0, k = 0; i < r->n; i++)
		if (r->ents[i].ts >= now - r->window)
			r->ents[k++] = r->ents[i];
	r->n = k;
	for (i = 0; i < r->n; i++)
		if (memcmp(r->ents[i].id, request_id, ESC_ID_LEN) == 0)
			return lz_err_set(err, LZ_EINVAL, "replayed request id");
	if (r->n >= r->max)
		return lz_err_set(err, LZ_EINVAL, "more than %zu requests within %lld s; try later",
		    r->max, (long long)r->window);
	memcpy(r->ents[r->n].id, request_id, ESC_ID_LEN);
	r->ents[r->n].ts = timestamp;
	r->n++;
	return 0;
}
