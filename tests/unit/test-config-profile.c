/* test-config-profile.c - one profile's keys (config-profile.c) and the
 * value checks they use (config-check.c): CIDRs, volumes, persistent dirs,
 * env, image, limits, persist_usr, user. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anchor.h"
#include "cfgtest.h"
#include "config.h"
#include "testutil.h"
#include "xmalloc.h"

/* ---- CIDRs ---- */

static void
expect_cidr(const char *in, const char *want)
{
	char *norm = NULL;
	lz_err_t err = LZ_ERR_INIT;

	if (cfg_egress_parse(in, &norm, &err) < 0)
		fail_msg("%s: %s", in, err.msg);
	assert_string_equal(norm, want);
	free(norm);
}

static void
expect_cidr_err(const char *in, const char *needle)
{
	char *norm = NULL;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(cfg_egress_parse(in, &norm, &err), -1);
	assert_null(norm);
	if (strstr(err.msg, needle) == NULL)
		fail_msg("%s: message '%s' lacks '%s'", in, err.msg, needle);
	lz_err_clear(&err);
}

static void
test_cfg_cidr_accepts_valid_ipv4_and_ipv6(void **state)
{
	(void)state;
	expect_cidr("10.0.0.0/8", "10.0.0.0/8");
	expect_cidr("192.0.2.7/32", "192.0.2.7/32");
	expect_cidr("0.0.0.0/0", "0.0.0.0/0");
	expect_cidr("172.16.0.0/12", "172.16.0.0/12");
	expect_cidr("2001:DB8:0:0::/64", "2001:db8::/64");
	expect_cidr("::1/128", "::1/128");
	expect_cidr("fe80::/10", "fe80::/10");
	expect_cidr("::/0", "::/0");
}

static void
test_cfg_cidr_rejects_bad_prefix_host_bits_and_garbage(void **state)
{
	(void)state;
	expect_cidr_err("10.0.0.1/8", "'10.0.0.1/8': host bits set; did you mean '10.0.0.0/8'?");
	expect_cidr_err("192.168.1.130/25", "did you mean '192.168.1.128/25'?");
	expect_cidr_err("2001:db8::1/32", "host bits set; did you mean '2001:db8::/32'?");
	expect_cidr_err("10.0.0.0/33", "prefix length must be a number from 0 to 32");
	expect_cidr_err("::/129", "prefix length must be a number from 0 to 128");
	expect_cidr_err("10.0.0.0/-1", "prefix length");
	expect_cidr_err("10.0.0.0/08", "prefix length");
	expect_cidr_err("10.0.0.0/", "prefix length");
	expect_cidr_err("10.0.0.0/8x", "prefix length");
	expect_cidr_err("10.0.0.0/ 8", "a space, a control or a non-ASCII character at offset 9");
	expect_cidr("10.0.0.0", "10.0.0.0/32");	/* an address alone is one host */
	expect_cidr("::1", "::1/128");
	expect_cidr_err("300.0.0.0/8", "'300.0.0.0' is not an IPv4 address");
	expect_cidr_err("10.0.0/8", "is not an IPv4 address");
	expect_cidr_err("010.0.0.0/8", "is not an IPv4 address");
	expect_cidr_err("example.com/32", "is not an IPv4 address");
	expect_cidr_err("fe80::1%eth0/64", "is not an IPv6 address");
	expect_cidr_err("/8", "is not an IPv4 address");
	expect_cidr_err("garbage", "is not a CIDR, an address or a domain name");
}

static void
test_cfg_cidr_errors_name_key_and_warn_on_everything(void **state)
{
	struct cfg *cfg;

	(void)state;
	ct_expect_err("allow_egress:\n  - 10.0.0.0/8\n  - 10.0.0.1/8\nprofiles: {web: {image: a}}\n",
	    "t.yaml:3: allow_egress[1]: '10.0.0.1/8': host bits set; did you mean '10.0.0.0/8'?");
	ct_expect_profile_err("    allow_egress: [1.2.3.4/33]\n",
	    "t.yaml:4: profiles.web.allow_egress[0]: '1.2.3.4/33': prefix length");
	cfg = ct_load_ok("allow_egress: [0.0.0.0/0]\nprofiles: {web: {image: a}}\n");
	assert_non_null(cfg->warnings);
	assert_non_null(strstr(cfg->warnings[0], "t.yaml:1: allow_egress[0]: allows egress to "
	    "every address"));
	cfg_free(cfg);
}

/* ---- other field checks ---- */

static void
test_cfg_checks_volume_mode(void **state)
{
	struct cfg *cfg;
	_cleanup_free_ char *y = ct_with_profile("    volumes:\n"
	    "      - {host: /a, container: /b, mode: \"ro,z\"}\n"
	    "      - {host: /a, container: /c, mode: rw}\n"
	    "      - {host: /a, container: /d, mode: Z}\n");

	(void)state;
	cfg = ct_load_ok(y);
	assert_string_equal(cfg->profiles[0].volumes[0].mode, "ro,z");
	cfg_free(cfg);
	ct_expect_profile_err("    volumes: [{host: /a, container: /b, mode: rx}]\n",
	    "t.yaml:4: profiles.web.volumes[0].mode: 'rx': options are ro, rw, z and Z");
	ct_expect_profile_err("    volumes: [{host: /a, container: /b, mode: \"ro,\"}]\n",
	    "options are ro, rw, z and Z");
	ct_expect_profile_err("    volumes: [{host: /a, container: /b, mode: \"ro, z\"}]\n",
	    "options are ro, rw, z and Z");
	ct_expect_profile_err("    volumes: [{host: /a, container: /b, mode: \"ro,rw\"}]\n",
	    "ro and rw together");
	ct_expect_profile_err("    volumes: [{host: /a, container: /b, mode: \"z,Z\"}]\n",
	    "z and Z together");
	ct_expect_profile_err("    volumes: [{host: /a, container: /b, mode: \"z,z\"}]\n",
	    "'z' given twice");
	ct_expect_profile_err("    volumes: [{host: /a, container: /b, mode: \"ro,exec\"}]\n",
	    "options are");
	ct_expect_profile_err("    volumes: [{container: /b}]\n",
	    "t.yaml:4: profiles.web.volumes[0].host: missing");
	ct_expect_profile_err("    volumes: [{host: /a}]\n",
	    "t.yaml:4: profiles.web.volumes[0].container: missing");
	ct_expect_profile_err("    volumes: [/a:/b]\n",
	    "profiles.web.volumes[0]: expected a mapping, got a string");
}

static void
test_cfg_checks_volume_paths_at_load(void **state)
{
	(void)state;
	ct_expect_profile_err("    volumes: [{host: \"{workspace_dir}/../x\", container: /b}]\n",
	    "t.yaml:4: profiles.web.volumes[0].host: '{workspace_dir}/../x': '..' path segment "
	    "refused");
	ct_expect_profile_err("    volumes: [{host: /a, container: /b/../../etc}]\n",
	    "profiles.web.volumes[0].container: '/b/../../etc': '..' path segment refused");
	ct_expect_profile_err("    volumes: [{host: rel/dir, container: /b}]\n",
	    "profiles.web.volumes[0].host: 'rel/dir' is not an absolute path");
	ct_expect_profile_err("    volumes: [{host: \"{profile_name}/x\", container: /b}]\n",
	    "'{profile_name}/x' is not an absolute path");
	ct_expect_profile_err("    volumes: [{host: /a, container: \"~/x\"}]\n",
	    "profiles.web.volumes[0].container: '~/x' is not an absolute path");
	ct_expect_profile_err("    volumes: [{host: \"~bob/x\", container: /b}]\n",
	    "profiles.web.volumes[0].host: '~user' paths are not supported");
	ct_expect_profile_err("    volumes: [{host: \"{PROFILE_DIR}/x\", container: /b}]\n",
	    "profiles.web.volumes[0].host: unknown token '{PROFILE_DIR}'");
	ct_expect_profile_err("    volumes: [{host: \"{ profile_dir }/x\", container: /b}]\n",
	    "unknown token '{ profile_dir }'");
	ct_expect_profile_err("    volumes: [{host: /a, container: \"/home/{profile_name\"}]\n",
	    "profiles.web.volumes[0].container: unterminated '{'");
	ct_expect_profile_err("    volumes: [{host: \"/a:/etc\", container: /b}]\n",
	    "':' and ',' are not allowed in mount paths");
	ct_expect_profile_err("    volumes: [{host: /a, container: \"/b,readonly=false\"}]\n",
	    "':' and ',' are not allowed in mount paths");
	ct_expect_profile_err("    volumes: [{host: /a, container: /workspace/.git}]\n",
	    "profiles.web.volumes[0].container: '/workspace/.git' is reserved");
	ct_expect_profile_err("    volumes: [{host: /a, container: /run/lazaret}]\n", "is reserved");
	ct_expect_profile_err("    volumes: [{host: /a, container: //}]\n", "'/' is reserved");
	ct_expect_profile_err("    volumes: [{host: \"\", container: /b}]\n", "empty path");
}

static void
test_cfg_checks_persistent_dirs(void **state)
{
	(void)state;
	ct_expect_profile_err("    persistent_dirs: [usr]\n",
	    "t.yaml:4: profiles.web.persistent_dirs[0]: 'usr' is not an absolute path");
	ct_expect_profile_err("    persistent_dirs: [/usr, /var, /usr/]\n",
	    "profiles.web.persistent_dirs[2]: '/usr' is listed twice");
	ct_expect_profile_err("    persistent_dirs: [/]\n", "'/' is reserved");
	ct_expect_profile_err("    persistent_dirs: [/workspace]\n", "'/workspace' is reserved");
	ct_expect_profile_err("    persistent_dirs: [/proc/sys]\n", "'/proc/sys' is reserved");
	ct_expect_profile_err("    persistent_dirs: [\"/var/{profile_name}\"]\n",
	    "tokens are not allowed in persistent_dirs");
	ct_expect_profile_err("    persistent_dirs: [/usr/../etc]\n", "'..' path segment refused");
}

static void
test_cfg_checks_env_names_and_values(void **state)
{
	(void)state;
	ct_expect_profile_err("    env:\n      1BAD: x\n",
	    "t.yaml:5: profiles.web.env: invalid variable name '1BAD'");
	ct_expect_profile_err("    env:\n      \"A-B\": x\n", "invalid variable name 'A-B'");
	ct_expect_profile_err("    env:\n      \"A=B\": x\n", "invalid variable name 'A=B'");
	ct_expect_profile_err("    env:\n      LAZARET_SESSION_ID: x\n",
	    "profiles.web.env.LAZARET_SESSION_ID: names starting with LAZARET_ are reserved");
	ct_expect_profile_err("    env:\n      A: \"env:\"\n",
	    "profiles.web.env.A: 'env:': after 'env:' comes a host variable name");
	ct_expect_profile_err("    env:\n      A: \"env:$(id)\"\n", "after 'env:' comes");
	ct_expect_profile_err("    env:\n      A: \"{HOME}\"\n",
	    "t.yaml:5: profiles.web.env.A: unknown token '{HOME}'");
	ct_expect_profile_err("    env:\n      A: [x]\n",
	    "profiles.web.env.A: expected a string, got a sequence");
	ct_expect_profile_err("    env: [A=b]\n", "profiles.web.env: expected a mapping");
}

static void
test_cfg_checks_image_data_root_socket_dir_auto_approve(void **state)
{
	(void)state;
	ct_expect_err("profiles:\n  web:\n    image: --privileged\n",
	    "t.yaml:3: profiles.web.image: an image reference starts with a letter or digit");
	ct_expect_err("profiles:\n  web:\n    image: \"\"\n", "profiles.web.image: empty image name");
	ct_expect_err("profiles:\n  web:\n    image: \"img; rm -rf /\"\n",
	    "character ';' is not allowed in an image reference");
	ct_expect_err("data_root: \"{profile_dir}\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: data_root: tokens are not allowed here");
	ct_expect_err("data_root: relative/dir\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: data_root: 'relative/dir' is not an absolute path");
	ct_expect_err("data_root: /srv/../etc\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: data_root: '/srv/../etc': '..' path segment refused");
	ct_expect_err("data_root: ~root/x\nprofiles: {web: {image: a}}\n",
	    "data_root: '~user' paths are not supported");
	ct_expect_err("escalation:\n  socket_dir: \"/tmp/{domain_hash}\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: escalation.socket_dir: tokens are not allowed here");
	ct_expect_err("escalation:\n  socket_dir: /run/../tmp\nprofiles: {web: {image: a}}\n",
	    "escalation.socket_dir: '/run/../tmp': '..' path segment refused");
	ct_expect_err("escalation:\n  auto_approve: [\"  \"]\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: escalation.auto_approve[0]: empty command");
	ct_expect_err("escalation:\n  auto_approve: [[make]]\nprofiles: {web: {image: a}}\n",
	    "escalation.auto_approve[0]: expected a string, got a sequence");
	/* The policy module's verdict, located by the config. */
	ct_expect_err("escalation:\n  auto_approve: [make test, git status]\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: escalation.auto_approve[1]: 'git status' can never be auto-approved");
	ct_expect_err("escalation:\n  auto_approve:\n    - \"make test; id\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:3: escalation.auto_approve[0]: 'make test; id' contains");
}

static void
test_cfg_tilde_only_at_position_0(void **state)
{
	struct cfg *cfg;
	_cleanup_free_ char *want = xasprintf("%s/d", ct_home);

	(void)state;
	cfg = ct_load_ok("data_root: ~/d\nprofiles: {web: {image: a}}\n");
	assert_string_equal(cfg->data_root, want);
	cfg_free(cfg);
	cfg = ct_load_ok("data_root: /srv/~/d\nescalation: {socket_dir: /x/~}\n"
	    "profiles: {web: {image: a}}\n");
	assert_string_equal(cfg->data_root, "/srv/~/d");
	assert_string_equal(cfg->esc_socket_dir, "/x/~");
	cfg_free(cfg);
}

/* ---- limits, persist_usr, user ---- */

static void
test_cfg_limits_default_sized_for_builds(void **state)
{
	struct cfg *cfg = ct_load_ok("profiles:\n  web:\n    image: img:1\n");
	const struct cfg_limits *l = &cfg->profiles[0].limits;

	(void)state;
	assert_true(l->memory == 4ULL << 30);
	assert_int_equal(l->pids, 4096);
	assert_true(l->disk == 20ULL << 30);
	assert_int_equal(l->cpus_milli, 2000);
	assert_true(l->git_object == 100ULL << 20);
	cfg_free(cfg);
}

static void
test_cfg_limits_take_k_m_g_and_none(void **state)
{
	_cleanup_free_ char *y = ct_with_profile("    limits: {memory: 1536m, pids: 64, disk: none, "
	    "cpus: 0.5, git_object: 20m}\n");
	struct cfg *cfg = ct_load_ok(y);
	const struct cfg_limits *l = &cfg->profiles[0].limits;
	uint64_t b;
	long m;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_true(l->memory == 1536ULL << 20);
	assert_int_equal(l->pids, 64);
	assert_true(l->disk == 0);
	assert_int_equal(l->cpus_milli, 500);
	assert_true(l->git_object == 20ULL << 20);
	cfg_free(cfg);
	assert_int_equal(cfg_size_parse("4g", &b, &err), 0);
	assert_true(b == 4ULL << 30);
	assert_int_equal(cfg_size_parse("100k", &b, &err), 0);
	assert_true(b == 100ULL << 10);
	assert_int_equal(cfg_size_parse("4096", &b, &err), 0);
	assert_true(b == 4096);
	assert_int_equal(cfg_cpus_parse("1.25", &m, &err), 0);
	assert_int_equal(m, 1250);
	{
		_cleanup_free_ char *t = cfg_size_text(4ULL << 30), *u = cfg_size_text(1536ULL << 20);

		assert_string_equal(t, "4g");
		assert_string_equal(u, "1536m");
	}
}

static void
test_cfg_limits_errors_name_file_line_and_key(void **state)
{
	(void)state;
	ct_expect_profile_err("    limits: {memory: 4x}\n", "t.yaml:4: profiles.web.limits.memory: "
	    "'4x' is not a size");
	ct_expect_profile_err("    limits: {memory: 4gb}\n", "is not a size");
	ct_expect_profile_err("    limits: {memory: 99999999999999999g}\n", "not a size");
	ct_expect_profile_err("    limits: {memory: 1m}\n", "below the smallest sandbox that works "
	    "(256m)");
	ct_expect_profile_err("    limits: {disk: 1k}\n", "profiles.web.limits.disk");
	ct_expect_profile_err("    limits: {git_object: 1k}\n", "profiles.web.limits.git_object");
	ct_expect_profile_err("    limits: {pids: 3}\n", "profiles.web.limits.pids: 3 is out of range");
	ct_expect_profile_err("    limits: {pids: lots}\n", "expected an integer");
	ct_expect_profile_err("    limits: {cpus: 1.2345}\n", "profiles.web.limits.cpus: '1.2345' is "
	    "not a CPU count");
	ct_expect_profile_err("    limits: {cpu: 2}\n", "unknown key; did you mean 'cpus'?");
	ct_expect_profile_err("    limits: [4g]\n", "profiles.web.limits: expected a mapping");
}

static void
test_cfg_usr_etc_var_are_state_anchors_unless_opted_out(void **state)
{
	_cleanup_free_ char *a = ct_with_profile("    persistent_dirs: [/usr/local, /var]\n");
	_cleanup_free_ char *b = ct_with_profile("    persistent_dirs: [/var, /usr]\n");
	_cleanup_free_ char *o = ct_with_profile("    persist_usr: false\n");
	struct cfg *cfg;

	(void)state;
	cfg = ct_load_ok(a);
	assert_int_equal(cfg->profiles[0].n_persistent_dirs, 4);
	assert_string_equal(cfg->profiles[0].persistent_dirs[0], "/usr");
	assert_string_equal(cfg->profiles[0].persistent_dirs[1], "/etc");
	assert_string_equal(cfg->profiles[0].persistent_dirs[2], "/usr/local");
	assert_string_equal(cfg->profiles[0].persistent_dirs[3], "/var");
	cfg_free(cfg);
	cfg = ct_load_ok(b);
	/* dpkg's and apt's state beside /usr: /etc added, /var and /usr kept once */
	assert_int_equal(cfg->profiles[0].n_persistent_dirs, 3);
	assert_string_equal(cfg->profiles[0].persistent_dirs[0], "/etc");
	cfg_free(cfg);
	cfg = ct_load_ok(o);
	assert_int_equal(cfg->profiles[0].n_persistent_dirs, 0);
	assert_false(cfg->profiles[0].persist_usr);
	cfg_free(cfg);
	ct_expect_profile_err("    persist_usr: maybe\n", "profiles.web.persist_usr: expected true or "
	    "false");
}

static void
test_cfg_user_agent_root_uid_or_auto(void **state)
{
	const char *const ok[] = { "", "    user: agent\n", "    user: root\n", "    user: 1234\n",
	    "    user: auto\n" };
	const int want[] = { CFG_USER_AUTO, CFG_USER_AGENT, 0, 1234, CFG_USER_AUTO };
	struct cfg *cfg;
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		_cleanup_free_ char *y = ct_with_profile(ok[i]);

		cfg = ct_load_ok(y);
		assert_int_equal(cfg->profiles[0].user, want[i]);
		cfg_free(cfg);
	}
	ct_expect_profile_err("    user: nobody\n", "profiles.web.user: expected 'agent', 'root', "
	    "'auto' or a uid from 0 to 65535, got 'nobody'");
	ct_expect_profile_err("    user: 65536\n", "profiles.web.user: expected 'agent'");
	ct_expect_profile_err("    user: -1\n", "profiles.web.user: expected 'agent'");
	ct_expect_profile_err("    user: [1]\n", "profiles.web.user");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, ct_setup_home, ct_teardown_home)
		T(test_cfg_user_agent_root_uid_or_auto),
		T(test_cfg_cidr_accepts_valid_ipv4_and_ipv6),
		T(test_cfg_cidr_rejects_bad_prefix_host_bits_and_garbage),
		T(test_cfg_cidr_errors_name_key_and_warn_on_everything),
		T(test_cfg_checks_volume_mode),
		T(test_cfg_checks_volume_paths_at_load),
		T(test_cfg_checks_persistent_dirs),
		T(test_cfg_checks_env_names_and_values),
		T(test_cfg_checks_image_data_root_socket_dir_auto_approve),
		T(test_cfg_tilde_only_at_position_0),
		T(test_cfg_limits_default_sized_for_builds),
		T(test_cfg_limits_take_k_m_g_and_none),
		T(test_cfg_limits_errors_name_file_line_and_key),
		T(test_cfg_usr_etc_var_are_state_anchors_unless_opted_out),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
