/* cfgtest.c - the fixture of the configuration's unit tests (cfgtest.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "anchor.h"
#include "cfgtest.h"
#include "config.h"
#include "testutil.h"
#include "xmalloc.h"

char *ct_home;

const char ct_full_yaml[] =
    "# every key\n"
    "data_root: ~/lz-data\n"
    "allow_egress: [10.0.2.2/32, \"2001:DB8::/32\"]\n"
    "escalation:\n"
    "  enabled: false\n"
    "  socket_dir: ~/sock//dir/\n"
    "  auto_approve: [\"make test\", \"npm run lint\"]\n"
    "  timeout: 300\n"
    "profiles:\n"
    "  default:\n"
    "    image: localhost/lazaret-default:latest\n"
    "  web-agent_2:\n"
    "    image: docker.io/library/node@sha256:0123abcd\n"
    "    persistent_dirs: [/usr, /var//lib/]\n"
    "    allow_egress:\n"
    "      - 192.0.2.0/24\n"
    "      - 10.0.2.2/32\n"
    "    env:\n"
    "      EDITOR: vi\n"
    "      TOKEN: env:LZ_TEST_SECRET\n"
    "      MISSING: env:LZ_TEST_UNSET_VAR\n"
    "      WHERE: \"{profile_name}@{domain_hash}\"\n"
    "      JSON: '{{\"a\": 1}'\n"
    "    volumes:\n"
    "      - host: \"{profile_dir}/cache\"\n"
    "        container: /root/.cache\n"
    "        mode: z\n"
    "      - host: \"{workspace_dir}/sub\"\n"
    "        container: \"/home/{profile_name}/sub\"\n"
    "        mode: ro,Z\n"
    "      - host: \"{domain_dir}/x\"\n"
    "        container: /x\n"
    "workbench:\n"
    "  theme: ~/themes/mine.yaml\n"
    "  prefix: C-b\n";

int
ct_setup_home(void **state)
{
	(void)state;
	ct_home = tu_fake_home("config");
	return 0;
}

int
ct_teardown_home(void **state)
{
	(void)state;
	tu_rmrf(ct_home);
	free(ct_home);
	ct_home = NULL;
	return 0;
}

struct cfg *
ct_load_ok(const char *yaml)
{
	struct cfg *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;

	if (cfg_load_buf("t.yaml", yaml, strlen(yaml), &cfg, &err) < 0)
		fail_msg("unexpected error: %s\n--- yaml:\n%s", err.msg, yaml);
	assert_non_null(cfg);
	return cfg;
}

/* Load must fail, and the message must contain each needle (NULL-terminated). */
void
ct_expect_errv(const char *yaml, size_t len, ...)
{
	struct cfg *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;
	const char *needle;
	va_list ap;

	if (cfg_load_buf("t.yaml", yaml, len, &cfg, &err) == 0)
		fail_msg("loaded, expected an error\n--- yaml:\n%s", yaml);
	assert_null(cfg);
	assert_int_equal(err.code, LZ_EINVAL);
	va_start(ap, len);
	while ((needle = va_arg(ap, const char *)) != NULL)
		if (strstr(err.msg, needle) == NULL)
			fail_msg("message '%s' lacks '%s'\n--- yaml:\n%s", err.msg, needle, yaml);
	va_end(ap);
	lz_err_clear(&err);
}

/* A minimal valid config with one profile whose body is given. */
char *
ct_with_profile(const char *body)
{
	return xasprintf("profiles:\n  web:\n    image: img:1\n%s", body);
}

void
ct_expect_profile_err(const char *body, const char *needle)
{
	_cleanup_free_ char *y = ct_with_profile(body);

	ct_expect_err(y, needle);
}

struct cfg_resolved *
ct_resolve_ok(const struct cfg *cfg, const char *profile, const char *ws)
{
	lz_err_t err = LZ_ERR_INIT;
	const struct cfg_profile *p = cfg_profile_find(cfg, profile, &err);
	struct cfg_resolved *r = NULL;
	char h[ANCHOR_HASH_LEN + 1];

	assert_non_null(p);
	anchor_hash(p->name, ws, h);
	if (cfg_profile_resolve(cfg, p, ws, h, &r, &err) < 0)
		fail_msg("resolve: %s", err.msg);
	return r;
}

const char *
ct_env_get(const struct cfg_resolved *r, const char *name)
{
	size_t i, l = strlen(name);

	for (i = 0; i < r->n_env; i++)
		if (strncmp(r->env[i], name, l) == 0 && r->env[i][l] == '=')
			return r->env[i] + l + 1;
	return NULL;
}
