/* test-config-expand.c - a profile resolved for a workspace
 * (config-expand.c): tokens, host variables, canonical paths, what is
 * refused after expansion, the network and egress a profile resolves to. */
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

/* ---- resolve ---- */

static void
test_cfg_resolve_expands_tokens(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r;
	char h[ANCHOR_HASH_LEN + 1];
	_cleanup_free_ char *ws = xasprintf("%s/proj", ct_home), *dr = xasprintf("%s/lz-data", ct_home),
	    *pd = NULL, *dd = NULL, *v0 = NULL, *v1 = NULL, *v2 = NULL, *where = NULL;

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	setenv("LZ_TEST_SECRET", "s3cr3t-value", 1);
	unsetenv("LZ_TEST_UNSET_VAR");
	cfg = ct_load_ok(ct_full_yaml);
	r = ct_resolve_ok(cfg, "web-agent_2", ws);
	anchor_hash("web-agent_2", ws, h);
	pd = xasprintf("%s/web-agent_2", dr);
	dd = xasprintf("%s/domains/%s", dr, h);
	assert_string_equal(r->profile_dir, pd);
	assert_string_equal(r->domain_hash, h);
	assert_string_equal(r->domain_dir, dd);
	assert_string_equal(r->workspace_dir, ws);
	assert_int_equal(r->n_volumes, 3);
	v0 = xasprintf("%s/cache", pd);
	assert_string_equal(r->volumes[0].host, v0);
	assert_string_equal(r->volumes[0].container, "/root/.cache");
	assert_string_equal(r->volumes[0].mode, "z");
	v1 = xasprintf("%s/sub", ws);
	assert_string_equal(r->volumes[1].host, v1);
	assert_string_equal(r->volumes[1].container, "/home/web-agent_2/sub");
	v2 = xasprintf("%s/x", dd);
	assert_string_equal(r->volumes[2].host, v2);
	where = xasprintf("web-agent_2@%s", h);
	assert_string_equal(ct_env_get(r, "WHERE"), where);
	assert_string_equal(ct_env_get(r, "JSON"), "{\"a\": 1}");
	assert_string_equal(ct_env_get(r, "EDITOR"), "vi");
	/* Global and profile CIDRs merged, duplicates once. */
	assert_int_equal(r->n_allow_egress, 3);
	assert_string_equal(r->allow_egress[0], "10.0.2.2/32");
	assert_string_equal(r->allow_egress[1], "2001:db8::/32");
	assert_string_equal(r->allow_egress[2], "192.0.2.0/24");
	assert_null(r->env[r->n_env]);
	cfg_resolved_free(r);
	cfg_free(cfg);
}

static void
test_cfg_egress_domains_ports_and_errors_name_the_key(void **state)
{
	struct cfg *cfg;

	(void)state;
	cfg = ct_load_ok("allow_egress: [api.Example.com, \"github.com:443,22\", \"*.npmjs.org\",\n"
	    "  \"10.0.0.0/8:5432\", \"[fd00::/8]:443\", 10.0.2.2]\ndns_upstream: 10.0.2.2:5353\n"
	    "profiles: {web: {image: a}}\n");
	assert_int_equal(cfg->n_allow_egress, 6);
	assert_string_equal(cfg->allow_egress[0], "api.example.com");
	assert_string_equal(cfg->allow_egress[1], "github.com:22,443");
	assert_string_equal(cfg->allow_egress[2], "*.npmjs.org");
	assert_string_equal(cfg->allow_egress[3], "10.0.0.0/8:5432");
	assert_string_equal(cfg->allow_egress[4], "[fd00::/8]:443");
	assert_string_equal(cfg->allow_egress[5], "10.0.2.2/32");
	assert_string_equal(cfg->dns_upstream, "10.0.2.2:5353");
	cfg_free(cfg);
	ct_expect_err("allow_egress:\n  - github.com:0\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: allow_egress[0]: 'github.com:0': ports must be numbers from 1 to 65535");
	ct_expect_profile_err("    allow_egress: [\"git*hub.com\"]\n",
	    "t.yaml:4: profiles.web.allow_egress[0]: 'git*hub.com': '*' is only allowed as a whole "
	    "first part");
	ct_expect_profile_err("    allow_egress: [localhost]\n",
	    "t.yaml:4: profiles.web.allow_egress[0]: 'localhost' is not a CIDR, an address or a "
	    "domain name");
	ct_expect_err("dns_upstream: resolver.example\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: dns_upstream: 'resolver.example' is not an IP address with an optional port");
	ct_expect_err("dns_upstream: 10.0.2.2:0\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: dns_upstream: '10.0.2.2:0' is not an IP address");
}

static void
test_cfg_network_none_sidecar_and_the_default(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r;
	_cleanup_free_ char *ws = xasprintf("%s/proj", ct_home);

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	/* Unset: the sidecar when there are entries, --network none otherwise. */
	cfg = ct_load_ok("profiles:\n  aa: {image: a}\n  bb: {image: a, allow_egress: [x.example.com]}\n"
	    "  cc: {image: a, network: sidecar}\n  dd: {image: a, network: none}\n");
	r = ct_resolve_ok(cfg, "aa", ws);
	assert_false(r->sidecar);
	cfg_resolved_free(r);
	r = ct_resolve_ok(cfg, "bb", ws);
	assert_true(r->sidecar);
	cfg_resolved_free(r);
	r = ct_resolve_ok(cfg, "cc", ws);
	assert_true(r->sidecar);
	cfg_resolved_free(r);
	r = ct_resolve_ok(cfg, "dd", ws);
	assert_false(r->sidecar);
	cfg_resolved_free(r);
	cfg_free(cfg);
	{
		/* 20 CIDRs with 16 ports need 640 rules: the sidecar takes 512. */
		char *y = xstrdup("allow_egress:\n"), *t;
		struct cfg_resolved *rr = NULL;
		lz_err_t err = LZ_ERR_INIT;

		for (int i = 0; i < 20; i++) {
			t = xasprintf("%s  - \"10.%d.0.0/16:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\"\n", y, i);
			free(y);
			y = t;
		}
		t = xasprintf("%sprofiles:\n  web: {image: a}\n", y);
		cfg = ct_load_ok(t);
		assert_int_equal(cfg_profile_resolve(cfg, &cfg->profiles[0], ws, "0123456789ab", &rr, &err), -1);
		assert_non_null(strstr(err.msg, "t.yaml:23: allow_egress: with profile web, the CIDR "
		    "entries need 640 rules (at most 512"));
		lz_err_clear(&err);
		cfg_free(cfg);
		free(y);
		free(t);
	}
	ct_expect_profile_err("    network: host\n",
	    "t.yaml:4: profiles.web.network: expected 'sidecar' or 'none', got 'host'");
	cfg = ct_load_ok("profiles:\n  web:\n    image: a\n    allow_egress: [1.2.3.4]\n"
	    "    network: none\n");
	assert_non_null(cfg->warnings);
	assert_non_null(strstr(cfg->warnings[0], "t.yaml:5: profiles.web.network: none: the "
	    "profile's allow_egress has no effect"));
	cfg_free(cfg);
}

static void
test_cfg_resolve_pulls_env_var_and_skips_unset_with_warning(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r;
	_cleanup_free_ char *ws = xasprintf("%s/proj", ct_home);

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	/* A host value that looks like a token is passed verbatim. */
	setenv("LZ_TEST_SECRET", "s3cr3t {profile_dir}", 1);
	unsetenv("LZ_TEST_UNSET_VAR");
	cfg = ct_load_ok(ct_full_yaml);
	r = ct_resolve_ok(cfg, "web-agent_2", ws);
	assert_string_equal(ct_env_get(r, "TOKEN"), "s3cr3t {profile_dir}");
	assert_null(ct_env_get(r, "MISSING"));
	assert_int_equal(r->n_env, 4);
	assert_non_null(r->warnings);
	assert_non_null(strstr(r->warnings[0], "t.yaml:21: profiles.web-agent_2.env.MISSING: "
	    "host variable LZ_TEST_UNSET_VAR is unset; MISSING is not passed"));
	assert_null(r->warnings[1]);
	cfg_resolved_free(r);
	cfg_free(cfg);
}

static void
test_cfg_resolve_canonicalizes_symlinked_host_path(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r;
	_cleanup_free_ char *ws = xasprintf("%s/proj", ct_home), *real = xasprintf("%s/proj/real", ct_home),
	    *link = xasprintf("%s/proj/link", ct_home), *want = xasprintf("%s/real/deep/er", real),
	    *y = NULL, *dlink = xasprintf("%s/dlink", ct_home), *dreal = xasprintf("%s/dreal", ct_home),
	    *want_pd = xasprintf("%s/dreal/web", ct_home), *real2 = xasprintf("%s/real", real),
	    *abs = xasprintf("%s/etc-link", ct_home);

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	assert_int_equal(mkdir(real, 0700), 0);
	assert_int_equal(mkdir(real2, 0700), 0);
	assert_int_equal(mkdir(dreal, 0700), 0);
	/* A relative link inside the workspace, reached with a `..` of its own:
	 * the filesystem's `..`, not the config's. */
	assert_int_equal(symlink("../proj/real/real", link), 0);
	assert_int_equal(symlink(dreal, dlink), 0);
	assert_int_equal(symlink("/etc", abs), 0);
	y = xasprintf("data_root: %s\nprofiles:\n  web:\n    image: a\n    volumes:\n"
	    "      - {host: \"{workspace_dir}/link/deep/er\", container: /c}\n"
	    "      - {host: \"%s/x\", container: /d}\n", dlink, abs);
	cfg = ct_load_ok(y);
	assert_string_equal(cfg->data_root, dreal);
	r = ct_resolve_ok(cfg, "web", ws);
	assert_string_equal(r->volumes[0].host, want);
	assert_string_equal(r->profile_dir, want_pd);
	/* A literal path is the user's own: its symlink is followed. */
	assert_string_equal(r->volumes[1].host, "/etc/x");
	cfg_resolved_free(r);
	cfg_free(cfg);
}

/* The agent can plant symlinks in the workspace and the domain dir; a volume
 * written under them must not follow one out (e.g. to ~/.ssh). */
static void
test_cfg_resolve_refuses_symlink_escaping_token_dir(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r = NULL;
	lz_err_t err = LZ_ERR_INIT;
	char h[ANCHOR_HASH_LEN + 1];
	_cleanup_free_ char *ws = xasprintf("%s/proj", ct_home), *ssh = xasprintf("%s/.ssh", ct_home),
	    *link = xasprintf("%s/proj/data", ct_home), *y = NULL, *want = NULL,
	    *lz = xasprintf("%s/lz", ct_home), *lzd = xasprintf("%s/lz/domains", ct_home),
	    *dd = NULL, *ddl = NULL;

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	assert_int_equal(mkdir(ssh, 0700), 0);
	assert_int_equal(symlink(ssh, link), 0);
	cfg = ct_load_ok("data_root: ~/lz\nprofiles:\n  web:\n    image: a\n    volumes:\n"
	    "      - {host: \"{workspace_dir}/data\", container: /data}\n");
	anchor_hash("web", ws, h);
	assert_int_equal(cfg_profile_resolve(cfg, &cfg->profiles[0], ws, h, &r, &err), -1);
	assert_null(r);
	want = xasprintf("t.yaml:6: profiles.web.volumes[0].host: security: resolves to '%s', "
	    "outside {workspace_dir} ('%s')", ssh, ws);
	if (strstr(err.msg, want) == NULL)
		fail_msg("'%s' lacks '%s'", err.msg, want);
	lz_err_clear(&err);
	cfg_free(cfg);

	/* The same under {domain_dir}: an overlay upper dir holds agent files. */
	y = xasprintf("data_root: ~/lz\nprofiles:\n  web:\n    image: a\n    volumes:\n"
	    "      - {host: \"{domain_dir}/usr_changes/x\", container: /x}\n");
	cfg = ct_load_ok(y);
	dd = xasprintf("%s/lz/domains/%s", ct_home, h);
	ddl = xasprintf("%s/usr_changes", dd);
	assert_int_equal(mkdir(lz, 0700), 0);
	assert_int_equal(mkdir(lzd, 0700), 0);
	assert_int_equal(mkdir(dd, 0700), 0);
	assert_int_equal(symlink(ct_home, ddl), 0);
	assert_int_equal(cfg_profile_resolve(cfg, &cfg->profiles[0], ws, h, &r, &err), -1);
	assert_non_null(strstr(err.msg, "outside {domain_dir}"));
	lz_err_clear(&err);
	cfg_free(cfg);
}

/* A workspace that is not canonical would defeat the containment check. */
static void
test_cfg_resolve_requires_canonical_workspace(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r = NULL;
	lz_err_t err = LZ_ERR_INIT;
	_cleanup_free_ char *ws = xasprintf("%s/proj", ct_home), *wl = xasprintf("%s/wl", ct_home);

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	assert_int_equal(symlink(ws, wl), 0);
	cfg = ct_load_ok("profiles:\n  web:\n    image: a\n");
	assert_int_equal(cfg_profile_resolve(cfg, &cfg->profiles[0], wl, "0123456789ab", &r,
	    &err), -1);
	assert_non_null(strstr(err.msg, "is not canonical (it resolves to"));
	lz_err_clear(&err);
	cfg_free(cfg);
}

static void
test_cfg_resolve_rejects_dotdot_after_expansion(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	cfg = ct_load_ok("profiles:\n  web:\n    image: a\n    volumes:\n"
	    "      - {host: \"{workspace_dir}/x\", container: /c}\n");
	/* A workspace that is not canonical brings a `..` into every expansion. */
	assert_int_equal(cfg_profile_resolve(cfg, &cfg->profiles[0], "/home/u/../../etc",
	    "0123456789ab", &r, &err), -1);
	assert_null(r);
	assert_non_null(strstr(err.msg, "security: workspace '/home/u/../../etc' is not a "
	    "canonical absolute path"));
	lz_err_clear(&err);
	assert_int_equal(cfg_profile_resolve(cfg, &cfg->profiles[0], "relative",
	    "0123456789ab", &r, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(cfg_profile_resolve(cfg, &cfg->profiles[0], "/tmp", "../../x", &r,
	    &err), -1);
	assert_non_null(strstr(err.msg, "domain hash '../../x' is not 12 lowercase hex"));
	lz_err_clear(&err);
	/* A workspace with ':' cannot go into a mount spec. */
	assert_int_equal(cfg_profile_resolve(cfg, &cfg->profiles[0], "/tmp/a:b",
	    "0123456789ab", &r, &err), -1);
	assert_non_null(strstr(err.msg, "t.yaml:5: profiles.web.volumes[0].host: '/tmp/a:b/x' "
	    "after expansion: ':' and ',' are not allowed"));
	lz_err_clear(&err);
	cfg_free(cfg);
}

static void
test_cfg_resolve_rejects_reserved_container_after_expansion(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	cfg = ct_load_ok("profiles:\n  web:\n    image: a\n    volumes:\n"
	    "      - {host: /srv, container: \"{workspace_dir}\"}\n");
	assert_int_equal(cfg_profile_resolve(cfg, &cfg->profiles[0], "/workspace",
	    "0123456789ab", &r, &err), -1);
	assert_non_null(strstr(err.msg, "t.yaml:5: profiles.web.volumes[0].container: "
	    "'/workspace' is reserved"));
	lz_err_clear(&err);
	cfg_free(cfg);
}

static void
test_cfg_resolve_keeps_tilde_literal_after_position_0(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r;
	_cleanup_free_ char *want = xasprintf("%s/cache", ct_home);

	(void)state;
	cfg = ct_load_ok("profiles:\n  web:\n    image: a\n    volumes:\n"
	    "      - {host: \"~/cache\", container: /c}\n"
	    "      - {host: /srv/a/~/b, container: /d/~}\n");
	r = ct_resolve_ok(cfg, "web", "/tmp");
	assert_string_equal(r->volumes[0].host, want);
	assert_string_equal(r->volumes[1].host, "/srv/a/~/b");
	assert_string_equal(r->volumes[1].container, "/d/~");
	cfg_resolved_free(r);
	cfg_free(cfg);
}

static void
test_cfg_load_and_resolve_create_nothing(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r;
	struct stat st;
	_cleanup_free_ char *dr = xasprintf("%s/never", ct_home);

	(void)state;
	cfg = ct_load_ok("data_root: ~/never\nescalation: {socket_dir: ~/never/sock}\n"
	    "profiles:\n  web:\n    image: a\n    volumes:\n"
	    "      - {host: \"{profile_dir}/c\", container: /c}\n"
	    "      - {host: \"{domain_dir}/d\", container: /d}\n");
	r = ct_resolve_ok(cfg, "web", "/tmp");
	assert_int_equal(stat(dr, &st), -1);
	assert_int_equal(errno, ENOENT);
	cfg_resolved_free(r);
	cfg_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, ct_setup_home, ct_teardown_home)
		T(test_cfg_egress_domains_ports_and_errors_name_the_key),
		T(test_cfg_network_none_sidecar_and_the_default),
		T(test_cfg_resolve_expands_tokens),
		T(test_cfg_resolve_pulls_env_var_and_skips_unset_with_warning),
		T(test_cfg_resolve_canonicalizes_symlinked_host_path),
		T(test_cfg_resolve_refuses_symlink_escaping_token_dir),
		T(test_cfg_resolve_requires_canonical_workspace),
		T(test_cfg_resolve_rejects_dotdot_after_expansion),
		T(test_cfg_resolve_rejects_reserved_container_after_expansion),
		T(test_cfg_resolve_keeps_tilde_literal_after_position_0),
		T(test_cfg_load_and_resolve_create_nothing),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
