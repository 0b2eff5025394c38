/* test-effcfg.c - the effective configuration text: values never appear,
 * and the differences name what changed (env by name, limits, volumes,
 * image id), ignore what one side cannot tell, and refuse malformed text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "effcfg.h"
#include "strv.h"
#include "xmalloc.h"

static char *
build(const char *foo, uint64_t mem, const char *vol_mode, const char *id)
{
	struct cfg_profile p = { 0 };
	struct cfg_volume v = { (char *)"/h/data", (char *)"/data", (char *)vol_mode, 1 };
	char *env[] = { (char *)"B=2", NULL, NULL };
	struct cfg_resolved r = { 0 };

	env[1] = xasprintf("FOO=%s", foo);
	p.image = (char *)"img:1";
	p.limits = (struct cfg_limits){ mem, 64, 1ULL << 30, 1000, 0 };
	r.profile = &p;
	r.env = env;
	r.n_env = 2;
	r.volumes = &v;
	r.n_volumes = 1;
	{
		char *t = effcfg_build(&r, id, "isolated");

		free(env[1]);
		return t;
	}
}

static bool
has(char **lines, const char *s)
{
	size_t i;

	for (i = 0; lines != NULL && lines[i] != NULL; i++)
		if (strstr(lines[i], s) != NULL)
			return true;
	return false;
}

static void
test_effcfg_names_differences_never_values(void **state)
{
	char *a = build("secret-one", 1ULL << 30, "z", "sha256:aa");
	char *b = build("secret-two", 2ULL << 30, "ro", "sha256:bb");
	char **lines = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_null(strstr(a, "secret"));
	assert_int_equal(effcfg_diff(a, strlen(a), a, "web", &lines, &err), 0);
	assert_null(lines);
	assert_int_equal(effcfg_diff(a, strlen(a), b, "web", &lines, &err), 0);
	assert_true(has(lines, "profiles.web.env.FOO: a different value"));
	assert_false(has(lines, "env.B"));
	assert_true(has(lines, "profiles.web.limits.memory: running 1g, yours 2g"));
	assert_true(has(lines, "profiles.web.volumes, container /data: set differently"));
	assert_true(has(lines, "profiles.web.image (its image id): running sha256:aa, yours sha256:bb"));
	assert_false(has(lines, "secret"));
	lz_strv_free(lines);
	free(a);
	free(b);
}

static void
test_effcfg_unknown_image_id_is_no_difference(void **state)
{
	char *a = build("x", 1ULL << 30, "", NULL), *b = build("x", 1ULL << 30, "", "sha256:cc");
	char **lines = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(effcfg_diff(a, strlen(a), b, "web", &lines, &err), 0);
	assert_null(lines);
	free(a);
	free(b);
}

/* The network mode and, with the sidecar, network.ask_timeout are compared;
 * an older coordinator's text without them is no difference. */
static void
test_effcfg_network_and_ask_timeout(void **state)
{
	struct cfg_profile p = { 0 };
	struct cfg_resolved r = { 0 };
	char *none, *side10, *side30, **lines = NULL;
	const char *old = "image\timg:1\nimage_id\t-\nmode\tisolated\n"
	    "limits\tmemory 1g, pids 64, disk 1g, cpus 1\n";
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	p.image = (char *)"img:1";
	p.limits = (struct cfg_limits){ 1ULL << 30, 64, 1ULL << 30, 1000, 0 };
	r.profile = &p;
	none = effcfg_build(&r, NULL, "isolated");
	r.sidecar = true;
	r.ask_timeout = 10;
	side10 = effcfg_build(&r, NULL, "isolated");
	r.ask_timeout = 30;
	side30 = effcfg_build(&r, NULL, "isolated");

	assert_int_equal(effcfg_diff(side10, strlen(side10), side30, "web", &lines, &err), 0);
	assert_true(has(lines, "network.ask_timeout: running 10s, yours 30s"));
	lz_strv_free(lines);
	lines = NULL;
	assert_int_equal(effcfg_diff(none, strlen(none), side10, "web", &lines, &err), 0);
	assert_true(has(lines, "profiles.web.network: running none, yours sidecar"));
	lz_strv_free(lines);
	lines = NULL;
	assert_int_equal(effcfg_diff(side10, strlen(side10), side10, "web", &lines, &err), 0);
	assert_null(lines);
	assert_int_equal(effcfg_diff(old, strlen(old), side10, "web", &lines, &err), 0);
	assert_false(has(lines, "network"));
	assert_false(has(lines, "ask_timeout"));
	lz_strv_free(lines);
	free(none);
	free(side10);
	free(side30);
}

static void
test_effcfg_refuses_malformed_text(void **state)
{
	char **lines = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(effcfg_diff("no tab here\n", 12, "image\tx\n", "web", &lines, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(effcfg_diff("image\tx\001\n", 9, "image\tx\n", "web", &lines, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(effcfg_diff("env\tONLY_THERE\tabc\n", 19, "", "web", &lines, &err), 0);
	assert_true(has(lines, "profiles.web.env.ONLY_THERE: in the running sandbox, not in your"));
	lz_strv_free(lines);
}

/* A grant for the profile applied, or revoked, at run time edits the
 * running text as it edits the grants file: no difference after either. */
static void
test_effcfg_egress_edit_follows_grants(void **state)
{
	const char *run = "image\timg:1\negress\t10.0.0.1/32:443\n";
	const char *ours = "image\timg:1\negress\t10.0.0.1/32:443\negress\t10.0.0.3/32:8080\n";
	char *added = effcfg_egress_edit(run, "10.0.0.3/32:8080", true), *again, *gone, **lines = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(effcfg_diff(run, strlen(run), ours, "web", &lines, &err), 0);
	assert_true(has(lines, "allow_egress (the global list, profiles.web.allow_egress or "
	    "grants/web.list) 10.0.0.3/32:8080: in your configuration"));
	lz_strv_free(lines);
	assert_int_equal(effcfg_diff(added, strlen(added), ours, "web", &lines, &err), 0);
	assert_null(lines);
	again = effcfg_egress_edit(added, "10.0.0.3/32:8080", true);
	assert_string_equal(again, added);
	gone = effcfg_egress_edit(added, "10.0.0.1/32:443", false);
	assert_string_equal(gone, "image\timg:1\negress\t10.0.0.3/32:8080\n");
	free(added);
	free(again);
	free(gone);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_effcfg_names_differences_never_values),
		cmocka_unit_test(test_effcfg_unknown_image_id_is_no_difference),
		cmocka_unit_test(test_effcfg_network_and_ask_timeout),
		cmocka_unit_test(test_effcfg_refuses_malformed_text),
		cmocka_unit_test(test_effcfg_egress_edit_follows_grants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
