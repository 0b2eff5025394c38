/* test-config-cred.c - a profile's credentials: what is read, what is
 * refused (with the key named), and what the agent's environment gets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "config-int.h"
#include "strv.h"

#define HEAD "profiles:\n  p1:\n    image: img:1\n    env:\n      KEEP: mine\n" \
    "    credentials:\n"

static struct cfg *
load(const char *yaml, lz_err_t *err)
{
	struct cfg *cfg = NULL;

	if (cfg_load_buf("t.yaml", yaml, strlen(yaml), &cfg, err) < 0)
		return NULL;
	return cfg;
}

static void
test_cred_reads_an_entry(void **state)
{
	lz_err_t err = LZ_ERR_INIT;
	struct cfg *cfg = load(HEAD "      - name: anthropic\n        from: env:K\n"
	    "        upstream: https://api.example.com:8443\n        header: \"Authorization: Bearer\"\n"
	    "        allow: [\"POST /v1/messages\", \"* /files/\"]\n        base_env: BASE\n"
	    "        base_path: /v1\n        key_env: KEY\n", &err);
	const struct cfg_cred *c;
	char *u;

	(void)state;
	assert_non_null(cfg);
	assert_int_equal(cfg->profiles[0].n_creds, 1);
	c = &cfg->profiles[0].creds[0];
	assert_string_equal(c->host, "api.example.com");
	assert_int_equal(c->port, 8443);
	assert_string_equal(c->header, "authorization");
	assert_string_equal(c->prefix, "Bearer ");
	assert_int_equal(c->n_allow, 2);
	assert_true(c->required);
	u = cfg_cred_base_url(c, 1);
	assert_string_equal(u, "http://127.0.0.1:4781/v1");
	free(u);
	cfg_free(cfg);
}

static void
test_cred_refuses_bad_entries_naming_the_key(void **state)
{
	static const struct { const char *entry, *want; } t[] = {
		{ "      - name: a\n        from: env:K\n        upstream: http://x.example\n",
		  "credentials[0].upstream: 'http://x.example': the upstream is an https:// URL" },
		{ "      - name: a\n        from: secret\n        upstream: https://x.example\n",
		  "credentials[0].from: 'secret': a secret comes from env:VAR" },
		{ "      - name: a\n        from: env:K\n        upstream: https://x.example/v1\n",
		  "no path" },
		{ "      - name: a\n        from: env:K\n        upstream: https://x.example\n"
		  "        allow: [\"post /x\"]\n", "is not 'METHOD /path-prefix'" },
		{ "      - name: A!\n        from: env:K\n        upstream: https://x.example\n",
		  "a name is 1 to 32" },
		{ "      - name: a\n        upstream: https://x.example\n", "'from' is missing" },
		{ "      - name: a\n        from: env:K\n        upstream: https://x.example\n"
		  "      - name: a\n        from: env:K\n        upstream: https://y.example\n",
		  "a second credential named 'a'" },
		{ "      - name: a\n        from: env:K\n        upstream: https://x.example\n"
		  "        force: true\n", "credentials[0].force: force: is for kind: git" },
		{ "      - name: a\n        kind: git\n        from: env:K\n"
		  "        upstream: https://x.example/o/r.git\n        force: maybe\n",
		  "credentials[0].force" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		lz_err_t err = LZ_ERR_INIT;
		char *y = NULL;
		struct cfg *cfg;

		if (asprintf(&y, HEAD "%s", t[i].entry) < 0)
			fail();
		cfg = load(y, &err);
		assert_null(cfg);
		if (strstr(err.msg, t[i].want) == NULL)
			fail_msg("case %zu: [%s] not in [%s]", i, t[i].want, err.msg);
		lz_err_clear(&err);
		free(y);
	}
}

static void
test_cred_git_force_defaults_to_false(void **state)
{
	lz_err_t err = LZ_ERR_INIT;
	struct cfg *cfg = load(HEAD "      - name: g\n        kind: git\n        from: env:K\n"
	    "        upstream: https://x.example/o/r.git\n"
	    "      - name: f\n        kind: git\n        from: env:K\n"
	    "        upstream: https://x.example/o/r.git\n        force: true\n", &err);

	(void)state;
	assert_non_null(cfg);
	assert_false(cfg->profiles[0].creds[0].force);
	assert_string_equal(cfg->profiles[0].creds[0].refs[0], "refs/heads/lazaret/*");
	assert_true(cfg->profiles[0].creds[1].force);
	cfg_free(cfg);
}

static void
test_cred_env_gets_base_url_and_sentinel_never_the_secret(void **state)
{
	lz_err_t err = LZ_ERR_INIT;
	struct cfg *cfg = load(HEAD "      - name: api\n        from: env:LZ_UT_SECRET\n"
	    "        upstream: https://x.example\n        base_env: BASE\n        key_env: KEY\n"
	    "      - name: opt\n        from: env:LZ_UT_UNSET\n        upstream: https://y.example\n"
	    "        base_env: OPT\n        required: false\n"
	    "      - name: own\n        from: env:LZ_UT_SECRET\n        upstream: https://z.example\n"
	    "        base_env: KEEP\n", &err);
	char **env = NULL, **warn = NULL;
	size_t n = 0;

	(void)state;
	setenv("LZ_UT_SECRET", "s3cret-value", 1);
	unsetenv("LZ_UT_UNSET");
	assert_non_null(cfg);
	lz_strv_push(&env, "KEEP=mine");
	n = 1;
	cfg_creds_env(&cfg->profiles[0], &env, &n, &warn);
	assert_int_equal(n, 3);
	assert_string_equal(env[0], "KEEP=mine");	/* the config file's own value wins */
	assert_string_equal(env[1], "BASE=http://127.0.0.1:4780");
	assert_string_equal(env[2], "KEY=lazaret-sentinel-api");
	assert_non_null(warn);
	assert_non_null(strstr(warn[0], "credential opt: host variable LZ_UT_UNSET is unset"));
	for (size_t i = 0; i < n; i++)
		assert_null(strstr(env[i], "s3cret"));
	lz_strv_free(env);
	lz_strv_free(warn);
	cfg_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cred_reads_an_entry),
		cmocka_unit_test(test_cred_refuses_bad_entries_naming_the_key),
		cmocka_unit_test(test_cred_git_force_defaults_to_false),
		cmocka_unit_test(test_cred_env_gets_base_url_and_sentinel_never_the_secret),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
