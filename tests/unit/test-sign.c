/* test-sign.c - Session Anchor: delegation, payload signatures, expiry,
 * tampering, the environment encoding and the replay window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sign.h"
#include "xmalloc.h"

#define NOW 1764690000

struct fx {
	struct lz_sign_key client, delegated;
	struct lz_sign_cred cred;
	uint8_t session[ESC_ID_LEN];
	struct esc_payload p;
};

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof *f);

	assert_int_equal(lz_sign_init(NULL), 0);
	lz_sign_keypair(&f->client);
	lz_sign_random_id(f->session);
	lz_sign_delegate(&f->client, f->session, NOW + 3600, &f->cred, &f->delegated);
	lz_sign_random_id(f->p.request_id);
	memcpy(f->p.session_id, f->session, ESC_ID_LEN);
	f->p.command = xstrdup("make test");
	f->p.justification = xstrdup("run the tests");
	f->p.cwd = xstrdup("/workspace");
	f->p.timestamp = NOW;
	lz_sign_payload(&f->p, &f->cred, &f->delegated);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	esc_payload_clear(&f->p);
	lz_sign_key_wipe(&f->client);
	lz_sign_key_wipe(&f->delegated);
	free(f);
	return 0;
}

static void
expect_refused(struct fx *f, const uint8_t *client_pk, int64_t now, const char *msg_part)
{
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(lz_sign_verify(&f->p, client_pk, now, &err), -1);
	if (strstr(err.msg, msg_part) == NULL)
		fail_msg("message '%s' lacks '%s'", err.msg, msg_part);
	lz_err_clear(&err);
}

static void
test_sign_accepts_a_delegated_signature(void **state)
{
	struct fx *f = *state;
	lz_err_t err = LZ_ERR_INIT;

	if (lz_sign_verify(&f->p, f->client.pk, NOW, &err) < 0)
		fail_msg("%s", err.msg);
}

static void
test_sign_refuses_forged_signature(void **state)
{
	struct fx *f = *state;
	struct lz_sign_key other;

	/* signed by a key the credential does not name */
	lz_sign_keypair(&other);
	{
		uint8_t cred[ESC_CRED_LEN];

		memcpy(cred, f->p.credential, sizeof cred);
		lz_sign_payload(&f->p, &f->cred, &other);
		assert_memory_equal(cred, f->p.credential, sizeof cred);
	}
	expect_refused(f, f->client.pk, NOW, "bad request signature");
	lz_sign_key_wipe(&other);
}

static void
test_sign_refuses_credential_of_another_client(void **state)
{
	struct fx *f = *state;
	struct lz_sign_key mallory, mdel;
	struct lz_sign_cred mcred;

	/* a self-made delegation for the right session id, wrong root key */
	lz_sign_keypair(&mallory);
	lz_sign_delegate(&mallory, f->session, NOW + 3600, &mcred, &mdel);
	lz_sign_payload(&f->p, &mcred, &mdel);
	expect_refused(f, f->client.pk, NOW, "not signed by the session's key");
	lz_sign_key_wipe(&mallory);
	lz_sign_key_wipe(&mdel);
}

static void
test_sign_refuses_another_session(void **state)
{
	struct fx *f = *state;

	/* the credential is for f->session; the payload claims another session */
	f->p.session_id[0] ^= 0x80;
	lz_sign_payload(&f->p, &f->cred, &f->delegated);
	expect_refused(f, f->client.pk, NOW, "another session");
}

static void
test_sign_refuses_expired_credential(void **state)
{
	struct fx *f = *state;

	expect_refused(f, f->client.pk, NOW + 3600, "expired 0 s ago");
	expect_refused(f, f->client.pk, NOW + 7200, "expired 3600 s ago");
}

static void
test_sign_refuses_tampered_fields(void **state)
{
	struct fx *f = *state;
	lz_err_t err = LZ_ERR_INIT;

	free(f->p.command), f->p.command = xstrdup("make test;id");
	expect_refused(f, f->client.pk, NOW, "bad request signature");
	free(f->p.command), f->p.command = xstrdup("make test");
	assert_int_equal(lz_sign_verify(&f->p, f->client.pk, NOW, &err), 0);
	free(f->p.cwd), f->p.cwd = xstrdup("/");
	expect_refused(f, f->client.pk, NOW, "bad request signature");
	free(f->p.cwd), f->p.cwd = xstrdup("/workspace");
	free(f->p.justification), f->p.justification = xstrdup("harmless");
	expect_refused(f, f->client.pk, NOW, "bad request signature");
	free(f->p.justification), f->p.justification = xstrdup("run the tests");
	f->p.timestamp++;
	expect_refused(f, f->client.pk, NOW, "bad request signature");
	f->p.timestamp--;
	f->p.request_id[5] ^= 1;
	expect_refused(f, f->client.pk, NOW, "bad request signature");
	f->p.request_id[5] ^= 1;
	f->p.credential[55] ^= 1;	/* stretch the expiry */
	expect_refused(f, f->client.pk, NOW, "not signed by the session's key");
	f->p.credential[55] ^= 1;
	f->p.credential[0] = 'X';
	expect_refused(f, f->client.pk, NOW, "not a Lazaret session credential");
	f->p.credential[0] = 'L';
	f->p.signature[63] ^= 1;
	expect_refused(f, f->client.pk, NOW, "bad request signature");
	f->p.signature[63] ^= 1;
	assert_int_equal(lz_sign_verify(&f->p, f->client.pk, NOW, &err), 0);
}

static void
test_sign_env_encoding_round_trips_and_is_strict(void **state)
{
	struct fx *f = *state;
	struct lz_sign_cred c;
	struct lz_sign_key d;
	lz_err_t err = LZ_ERR_INIT;
	char *env = lz_sign_cred_env(&f->cred, &f->delegated);

	assert_int_equal(strncmp(env, "lzc1.", 5), 0);
	assert_int_equal(strlen(env), 5 + 2 * (ESC_CRED_LEN + LZ_SIGN_SEED_LEN));
	if (lz_sign_cred_from_env(env, &c, &d, &err) < 0)
		fail_msg("%s", err.msg);
	assert_memory_equal(d.sk, f->delegated.sk, LZ_SIGN_SK_LEN);
	assert_memory_equal(c.pk, f->cred.pk, LZ_SIGN_PK_LEN);
	assert_int_equal(c.expires, f->cred.expires);
	/* a key that is not the credential's */
	env[strlen(env) - 1] = env[strlen(env) - 1] == '0' ? '1' : '0';
	assert_int_equal(lz_sign_cred_from_env(env, &c, &d, &err), -1);
	assert_non_null(strstr(err.msg, "does not match"));
	lz_err_clear(&err);
	env[10] = 'G';
	assert_int_equal(lz_sign_cred_from_env(env, &c, &d, &err), -1);
	lz_err_clear(&err);
	env[strlen(env) - 1] = '\0';
	assert_int_equal(lz_sign_cred_from_env(env, &c, &d, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(lz_sign_cred_from_env(NULL, &c, &d, &err), -1);
	assert_string_equal(err.msg, "LAZARET_CRED is not a session credential");
	lz_err_clear(&err);
	free(env);
}

static void
test_sign_replay_refuses_seen_ids_and_stale_timestamps(void **state)
{
	struct lz_sign_replay *r = lz_sign_replay_new(LZ_SIGN_REPLAY_WINDOW, 3);
	lz_err_t err = LZ_ERR_INIT;
	uint8_t a[ESC_ID_LEN] = { 1 }, b[ESC_ID_LEN] = { 2 }, c[ESC_ID_LEN] = { 3 },
	    d[ESC_ID_LEN] = { 4 };

	(void)state;
	assert_int_equal(lz_sign_replay_check(r, a, NOW, NOW, &err), 0);
	assert_int_equal(lz_sign_replay_check(r, a, NOW, NOW + 1, &err), -1);
	assert_string_equal(err.msg, "replayed request id");
	lz_err_clear(&err);
	assert_int_equal(lz_sign_replay_check(r, b, NOW - 121, NOW, &err), -1);
	assert_non_null(strstr(err.msg, "-121 s from the host clock"));
	lz_err_clear(&err);
	assert_int_equal(lz_sign_replay_check(r, b, NOW + 121, NOW, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(lz_sign_replay_check(r, b, NOW + 120, NOW, &err), 0);
	assert_int_equal(lz_sign_replay_check(r, c, NOW - 120, NOW, &err), 0);
	/* full: fail closed */
	assert_int_equal(lz_sign_replay_check(r, d, NOW, NOW, &err), -1);
	assert_non_null(strstr(err.msg, "more than 3 requests"));
	lz_err_clear(&err);
	/* later, a and c aged out: room again; a replayed late is outside the window */
	assert_int_equal(lz_sign_replay_check(r, d, NOW + 130, NOW + 130, &err), 0);
	assert_int_equal(lz_sign_replay_check(r, a, NOW, NOW + 130, &err), -1);
	lz_err_clear(&err);
	lz_sign_replay_free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sign_accepts_a_delegated_signature, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sign_refuses_forged_signature, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sign_refuses_credential_of_another_client, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sign_refuses_another_session, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sign_refuses_expired_credential, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sign_refuses_tampered_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sign_env_encoding_round_trips_and_is_strict, setup, teardown),
		cmocka_unit_test(test_sign_replay_refuses_seen_ids_and_stale_timestamps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
