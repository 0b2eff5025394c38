/* test-config.c - loading, validation, resolution and printing of the config. */
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
#include "config.h"
#include "testutil.h"
#include "xmalloc.h"

static char *home;	/* canonical fake $HOME, fresh per test */

static int
setup_home(void **state)
{
	(void)state;
	home = tu_fake_home("config");
	return 0;
}

static int
teardown_home(void **state)
{
	(void)state;
	tu_rmrf(home);
	free(home);
	home = NULL;
	return 0;
}

static struct cfg *
load_ok(const char *yaml)
{
	struct cfg *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;

	if (cfg_load_buf("t.yaml", yaml, strlen(yaml), &cfg, &err) < 0)
		fail_msg("unexpected error: %s\n--- yaml:\n%s", err.msg, yaml);
	assert_non_null(cfg);
	return cfg;
}

/* Load must fail, and the message must contain each needle (NULL-terminated). */
static void
expect_errv(const char *yaml, size_t len, ...)
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
#define expect_err(yaml, ...) expect_errv((yaml), strlen(yaml), __VA_ARGS__, (const char *)NULL)

/* A minimal valid config with one profile whose body is given. */
static char *
with_profile(const char *body)
{
	return xasprintf("profiles:\n  web:\n    image: img:1\n%s", body);
}

static void
expect_profile_err(const char *body, const char *needle)
{
	_cleanup_free_ char *y = with_profile(body);

	expect_err(y, needle);
}

static const char full_yaml[] =
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

/* ---- good configs ---- */

static void
test_cfg_loads_full_example(void **state)
{
	struct cfg *cfg = load_ok(full_yaml);
	const struct cfg_profile *p;
	_cleanup_free_ char *dr = xasprintf("%s/lz-data", home),
	    *sd = xasprintf("%s/sock/dir", home), *th = xasprintf("%s/themes/mine.yaml", home);

	(void)state;
	assert_string_equal(cfg->file, "t.yaml");
	assert_string_equal(cfg->data_root, dr);
	assert_int_equal(cfg->n_allow_egress, 2);
	assert_string_equal(cfg->allow_egress[0], "10.0.2.2/32");
	assert_string_equal(cfg->allow_egress[1], "2001:db8::/32");
	assert_false(cfg->esc_enabled);
	assert_string_equal(cfg->esc_socket_dir, sd);
	assert_int_equal(cfg->n_esc_auto_approve, 2);
	assert_string_equal(cfg->esc_auto_approve[1], "npm run lint");
	assert_int_equal(cfg->esc_timeout, 300);
	assert_string_equal(cfg->wb_theme, th);
	assert_int_equal(cfg->wb_theme_line, 34);
	assert_string_equal(cfg->wb_prefix, "C-b");
	assert_int_equal(cfg->wb_prefix_line, 35);
	assert_int_equal(cfg->n_profiles, 2);
	p = &cfg->profiles[1];
	assert_string_equal(p->name, "web-agent_2");
	assert_int_equal(p->line, 12);
	assert_string_equal(p->image, "docker.io/library/node@sha256:0123abcd");
	assert_int_equal(p->n_persistent_dirs, 4);	/* /etc and /var added */
	assert_string_equal(p->persistent_dirs[3], "/var/lib");
	assert_int_equal(p->n_env, 5);
	assert_string_equal(p->env[1].name, "TOKEN");
	assert_string_equal(p->env[1].value, "env:LZ_TEST_SECRET");
	assert_int_equal(p->env[1].line, 20);
	assert_int_equal(p->n_volumes, 3);
	assert_string_equal(p->volumes[1].host, "{workspace_dir}/sub");
	assert_string_equal(p->volumes[1].mode, "ro,Z");
	assert_string_equal(p->volumes[2].mode, "");
	assert_null(cfg->warnings);
	cfg_free(cfg);
}

static void
test_cfg_network_ask_timeout_range_and_keys(void **state)
{
	struct cfg *cfg;

	(void)state;
	cfg = load_ok("network:\n  ask_timeout: 0\nprofiles:\n  web:\n    image: img:1\n");
	assert_int_equal(cfg->ask_timeout, 0);
	cfg_free(cfg);
	cfg = load_ok("profiles:\n  web:\n    image: img:1\n");
	assert_int_equal(cfg->ask_timeout, CFG_ASK_TIMEOUT_DEFAULT);
	cfg_free(cfg);
	expect_err("network:\n  ask_timeout: 601\nprofiles:\n  web:\n    image: img:1\n",
	    "t.yaml:2", "network.ask_timeout");
	expect_err("network:\n  ask_timeout: -1\nprofiles:\n  web:\n    image: img:1\n",
	    "network.ask_timeout");
	expect_err("network:\n  ask_timout: 3\nprofiles:\n  web:\n    image: img:1\n",
	    "ask_timout", "ask_timeout");
	expect_err("network: none\nprofiles:\n  web:\n    image: img:1\n", "network");
}

static void
test_cfg_embedded_default_loads_with_profile_default(void **state)
{
	struct cfg *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;
	const struct cfg_profile *p;
	_cleanup_free_ char *dr = xasprintf("%s/.local/share/lazaret", home),
	    *sd = xasprintf("/tmp/lazaret-%u", (unsigned)getuid());

	(void)state;
	/* No ~/.config/lazaret/config.yaml: the embedded default. */
	assert_int_equal(cfg_load(NULL, &cfg, &err), 0);
	assert_string_equal(cfg->file, CFG_EMBEDDED_NAME);
	assert_string_equal(cfg->data_root, dr);
	assert_string_equal(cfg->esc_socket_dir, sd);
	assert_true(cfg->esc_enabled);
	assert_int_equal(cfg->esc_timeout, CFG_ESC_TIMEOUT_DEFAULT);
	assert_null(cfg->wb_theme);
	assert_null(cfg->wb_prefix);
	assert_int_equal(cfg->wb_history, CFG_WB_HISTORY_DEFAULT);
	assert_int_equal(cfg->ask_timeout, CFG_ASK_TIMEOUT_DEFAULT);
	p = cfg_profile_find(cfg, NULL, &err);
	assert_non_null(p);
	assert_string_equal(p->name, "default");
	assert_string_equal(p->image, "localhost/lazaret-default:latest");
	cfg_free(cfg);
}

static void
test_cfg_defaults_follow_xdg_variables(void **state)
{
	struct cfg *cfg;

	(void)state;
	setenv("XDG_DATA_HOME", "/srv/xdg-data", 1);
	setenv("XDG_RUNTIME_DIR", "/run/user/4242", 1);
	cfg = load_ok(cfg_default_yaml);
	assert_string_equal(cfg->data_root, "/srv/xdg-data/lazaret");
	assert_string_equal(cfg->esc_socket_dir, "/run/user/4242/lazaret");
	cfg_free(cfg);
	/* Relative XDG values are ignored (XDG base directory rule). */
	setenv("XDG_DATA_HOME", "rel", 1);
	setenv("XDG_RUNTIME_DIR", "rel", 1);
	cfg = load_ok(cfg_default_yaml);
	assert_true(strncmp(cfg->data_root, home, strlen(home)) == 0);
	assert_true(strncmp(cfg->esc_socket_dir, "/tmp/lazaret-", 13) == 0);
	cfg_free(cfg);
}

static void
test_cfg_load_reads_xdg_config_home_then_home_config(void **state)
{
	_cleanup_free_ char *d1 = xasprintf("%s/.config", home), *d2 = xasprintf("%s/lazaret", d1),
	    *f = xasprintf("%s/config.yaml", d2);
	struct cfg *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;
	FILE *fp;

	(void)state;
	assert_int_equal(mkdir(d1, 0700), 0);
	assert_int_equal(mkdir(d2, 0700), 0);
	fp = fopen(f, "w");
	assert_non_null(fp);
	fputs("profiles:\n  mine:\n    image: [oops]\n", fp);
	fclose(fp);
	/* ~/.config is the fallback: the error names that file. */
	assert_int_equal(cfg_load(NULL, &cfg, &err), -1);
	assert_non_null(strstr(err.msg, f));
	assert_non_null(strstr(err.msg, ":3: profiles.mine.image: expected a string, got a "
	    "sequence"));
	lz_err_clear(&err);
	/* $XDG_CONFIG_HOME wins; here it has no file, so the embedded default. */
	setenv("XDG_CONFIG_HOME", "/nonexistent-lz-xdg", 1);
	assert_int_equal(cfg_load(NULL, &cfg, &err), 0);
	assert_string_equal(cfg->file, CFG_EMBEDDED_NAME);
	cfg_free(cfg);
	setenv("XDG_CONFIG_HOME", d1, 1);
	assert_int_equal(cfg_load(NULL, &cfg, &err), -1);
	assert_non_null(strstr(err.msg, f));
	lz_err_clear(&err);
}

static void
test_cfg_load_explicit_path_must_exist_and_be_a_file(void **state)
{
	struct cfg *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(cfg_load("/nonexistent/lz.yaml", &cfg, &err), -1);
	assert_int_equal(err.code, ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/lz.yaml: No such file"));
	lz_err_clear(&err);
	assert_int_equal(cfg_load(home, &cfg, &err), -1);
	assert_non_null(strstr(err.msg, "not a regular file"));
	lz_err_clear(&err);
	assert_null(cfg);
}

/* ---- error format and structure ---- */

static void
test_cfg_error_names_file_line_and_key(void **state)
{
	(void)state;
	expect_err("data_root: /x\n"
	    "profiles:\n"
	    "  web:\n"
	    "    image:\n"
	    "      - a\n", "t.yaml:5: profiles.web.image: expected a string, got a sequence");
	expect_err("profiles:\n  web:\n    image: {a: b}\n",
	    "t.yaml:3: profiles.web.image: expected a string, got a mapping");
	expect_err("profiles:\n  web:\n    image: ~\n",
	    "t.yaml:3: profiles.web.image: expected a string, got null");
	expect_err("profiles: [a]\n", "t.yaml:1: profiles: expected a mapping, got a sequence");
	expect_err("data_root: [x]\nprofiles: {}\n", "t.yaml:1: data_root: expected a string");
	expect_err("allow_egress: 10.0.0.0/8\nprofiles:\n  web: {image: a}\n",
	    "t.yaml:1: allow_egress: expected a sequence, got a string");
	expect_err("escalation:\n  enabled: yes\nprofiles:\n  web: {image: a}\n",
	    "t.yaml:2: escalation.enabled: expected true or false, got 'yes'");
	expect_err("escalation:\n  enabled: \"true\"\nprofiles:\n  web: {image: a}\n",
	    "escalation.enabled: expected true or false");
	expect_err("escalation: true\nprofiles:\n  web: {image: a}\n",
	    "t.yaml:1: escalation: expected a mapping, got a string");
}

static void
test_cfg_rejects_unknown_keys_with_suggestion(void **state)
{
	(void)state;
	expect_err("profiles:\n  web:\n    imag: x\n",
	    "t.yaml:3: profiles.web.imag: unknown key; did you mean 'image'?");
	expect_err("data_root: /x\nallow-egress: []\nprofiles: {}\n",
	    "t.yaml:2: allow-egress: unknown key; did you mean 'allow_egress'?");
	expect_err("escalation:\n  auto_aprove: []\nprofiles: {}\n",
	    "t.yaml:2: escalation.auto_aprove: unknown key; did you mean 'auto_approve'?");
	expect_profile_err("    volumes:\n      - {host: /a, container: /b, opts: ro}\n",
	    "t.yaml:5: profiles.web.volumes[0].opts: unknown key");
	expect_err("colour: red\nprofiles: {}\n", "t.yaml:1: colour: unknown key");
	expect_profile_err("    persistant_dirs: [/usr]\n",
	    "profiles.web.persistant_dirs: unknown key; did you mean 'persistent_dirs'?");
}

static void
test_cfg_rejects_duplicate_keys(void **state)
{
	(void)state;
	expect_err("profiles:\n  web:\n    image: a\n    image: b\n",
	    "t.yaml:4: profiles.web.image: duplicate key (first on line 3)");
	expect_err("profiles:\n  web: {image: a}\n  web: {image: b}\n",
	    "t.yaml:3: profiles.web: duplicate key (first on line 2)");
	expect_profile_err("    env:\n      A: x\n      A: y\n",
	    "t.yaml:6: profiles.web.env.A: duplicate key (first on line 5)");
}

static void
test_cfg_rejects_empty_and_non_mapping_documents(void **state)
{
	(void)state;
	expect_err("", "t.yaml:1: empty configuration");
	expect_err("# only a comment\n", "t.yaml:1: empty configuration");
	expect_err("---\n", "empty configuration");
	expect_err("- a\n- b\n", "t.yaml:1: expected a mapping at the top level, got a sequence");
	expect_err("just text\n", "expected a mapping at the top level, got a string");
	expect_err("? [a]\n: b\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: (top level): keys must be strings, got a sequence");
	expect_err("data_root: /x\n", "t.yaml:1: profiles: missing: define at least one profile");
	expect_err("profiles: {}\n", "t.yaml:1: profiles: empty");
	expect_err("profiles:\n  web:\n    env: {}\n", "t.yaml:3: profiles.web.image: missing");
	expect_err("profiles:\n  web:\n", "t.yaml:2: profiles.web: expected a mapping, got null");
	expect_err("profiles:\n  web: {image: a}\n---\nprofiles: {}\n",
	    "t.yaml:3: a second YAML document");
}

static void
test_cfg_rejects_anchors_aliases_and_tags(void **state)
{
	(void)state;
	expect_err("profiles:\n  web: &w {image: a}\n  api: *w\n",
	    "t.yaml:2: YAML anchors (&w) and aliases are not supported");
	/* Billion laughs: refused at the first anchor, nothing is expanded. */
	expect_err("a: &a [x, x, x, x, x, x, x, x, x]\n"
	    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
	    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	    "profiles: {web: {image: *c}}\n", "t.yaml:1: YAML anchors (&a)");
	expect_err("profiles:\n  web:\n    image: !!str abc\n",
	    "t.yaml:3: YAML tags (tag:yaml.org,2002:str) are not supported");
	expect_err("profiles: !custom\n  web: {image: a}\n", "YAML tags (!custom)");
}

static void
test_cfg_syntax_error_gives_line_and_column(void **state)
{
	(void)state;
	expect_err("profiles:\n  web:\n    image: a\n   bad: [\n", "t.yaml:4:", "YAML syntax error");
	expect_err("profiles:\n  web: {image: a\n", "t.yaml:3:1: YAML syntax error: did not "
	    "find expected ',' or '}'");
	expect_err("a: b\n\tc: d\n", "YAML syntax error");
	/* Invalid UTF-8 is the reader's error, located by byte. */
	expect_err("profiles:\n  web: {image: \xff}\n", "t.yaml: invalid input at byte");
}

static void
test_cfg_rejects_overlong_values(void **state)
{
	char *big, *y, *list;
	size_t i, n;

	(void)state;
	big = xmalloc(5000);
	memset(big, 'a', 4999);
	big[4999] = '\0';
	y = xasprintf("profiles:\n  web:\n    image: %s\n", big);
	expect_err(y, "t.yaml:3: profiles.web.image: longer than 4096 bytes");
	free(y);
	free(big);

	list = xstrdup("");
	for (i = 0; i < 257; i++) {
		y = xasprintf("%s  - \"make t%zu\"\n", list, i);
		free(list);
		list = y;
	}
	y = xasprintf("escalation:\n auto_approve:\n%sprofiles: {web: {image: a}}\n", list);
	expect_err(y, "t.yaml:259: escalation.auto_approve: more than 256 entries");
	free(y);
	free(list);

	/* Over 1 MiB: refused before parsing. */
	n = (1 << 20) + 10;
	big = xmalloc(n + 1);
	memset(big, '#', n);
	big[0] = 'a';
	big[1] = ':';
	big[2] = '\n';
	big[n] = '\0';
	expect_err(big, "t.yaml: larger than 1048576 bytes");
	free(big);

	/* Deep nesting. */
	big = xmalloc(200);
	memset(big, '[', 100);
	memset(big + 100, ']', 99);
	big[199] = '\0';
	expect_err(big, "nested deeper than 32 levels");
	free(big);
}

static void
test_cfg_rejects_nul_and_control_characters(void **state)
{
	static const char nul[] = "profiles:\n  web:\n    image: \"a\\0b\"\n";
	static const char raw_nul[] = "profiles:\n  web:\n    image: a\0b\n";

	(void)state;
	expect_err(nul, "t.yaml:3: profiles.web.image: contains a NUL byte");
	expect_errv(raw_nul, sizeof raw_nul - 1, "t.yaml", (const char *)NULL);
	expect_err("profiles:\n  web:\n    image: \"a\\x1b[2J\"\n",
	    "profiles.web.image: control character 0x1b not allowed");
	expect_err("escalation:\n  auto_approve: [\"make\\ntest\"]\nprofiles: {web: {image: a}}\n",
	    "escalation.auto_approve[0]: control character 0x0a not allowed");
}

/* ---- profile names ---- */

static void
test_cfg_rejects_injection_in_profile_names(void **state)
{
	static const char *const bad[] = {
		"a;rm -rf", "../x", "a/b", "a\\\\b", "A", "Web", "x", "a.b", "$(id)", "`id`",
		"a b", "a|b", "a&b", "a>b", "a*", "\\u00e9t\\u00e9", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"..",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		_cleanup_free_ char *y = xasprintf("profiles:\n  \"%s\":\n    image: a\n", bad[i]);

		expect_err(y, "t.yaml:2: profiles: invalid profile name", "^[a-z0-9_-]{2,32}$");
	}
	/* lazaret-net-<H> is the sidecar's container: a profile "net" would collide. */
	expect_err("profiles:\n  net:\n    image: a\n", "t.yaml:2: profiles: profile name 'net' "
	    "is reserved", "rename the profile");
	assert_true(cfg_profile_name_valid("ab"));
	assert_true(cfg_profile_name_valid("web-agent_2"));
	assert_true(cfg_profile_name_valid("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	assert_false(cfg_profile_name_valid("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	assert_false(cfg_profile_name_valid("a"));
	assert_false(cfg_profile_name_valid(""));
	assert_false(cfg_profile_name_valid(NULL));
	assert_false(cfg_profile_name_valid("a;b"));
}

static void
test_cfg_error_message_never_echoes_control_bytes(void **state)
{
	struct cfg *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;
	static const char y[] = "profiles:\n  \"a\\e[31mb\":\n    image: a\n";

	(void)state;
	assert_int_equal(cfg_load_buf("t.yaml", y, strlen(y), &cfg, &err), -1);
	assert_null(strchr(err.msg, '\033'));
	assert_non_null(strstr(err.msg, "t.yaml:2: profiles: control character 0x1b not allowed"));
	lz_err_clear(&err);
}

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
	expect_err("allow_egress:\n  - 10.0.0.0/8\n  - 10.0.0.1/8\nprofiles: {web: {image: a}}\n",
	    "t.yaml:3: allow_egress[1]: '10.0.0.1/8': host bits set; did you mean '10.0.0.0/8'?");
	expect_profile_err("    allow_egress: [1.2.3.4/33]\n",
	    "t.yaml:4: profiles.web.allow_egress[0]: '1.2.3.4/33': prefix length");
	cfg = load_ok("allow_egress: [0.0.0.0/0]\nprofiles: {web: {image: a}}\n");
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
	_cleanup_free_ char *y = with_profile("    volumes:\n"
	    "      - {host: /a, container: /b, mode: \"ro,z\"}\n"
	    "      - {host: /a, container: /c, mode: rw}\n"
	    "      - {host: /a, container: /d, mode: Z}\n");

	(void)state;
	cfg = load_ok(y);
	assert_string_equal(cfg->profiles[0].volumes[0].mode, "ro,z");
	cfg_free(cfg);
	expect_profile_err("    volumes: [{host: /a, container: /b, mode: rx}]\n",
	    "t.yaml:4: profiles.web.volumes[0].mode: 'rx': options are ro, rw, z and Z");
	expect_profile_err("    volumes: [{host: /a, container: /b, mode: \"ro,\"}]\n",
	    "options are ro, rw, z and Z");
	expect_profile_err("    volumes: [{host: /a, container: /b, mode: \"ro, z\"}]\n",
	    "options are ro, rw, z and Z");
	expect_profile_err("    volumes: [{host: /a, container: /b, mode: \"ro,rw\"}]\n",
	    "ro and rw together");
	expect_profile_err("    volumes: [{host: /a, container: /b, mode: \"z,Z\"}]\n",
	    "z and Z together");
	expect_profile_err("    volumes: [{host: /a, container: /b, mode: \"z,z\"}]\n",
	    "'z' given twice");
	expect_profile_err("    volumes: [{host: /a, container: /b, mode: \"ro,exec\"}]\n",
	    "options are");
	expect_profile_err("    volumes: [{container: /b}]\n",
	    "t.yaml:4: profiles.web.volumes[0].host: missing");
	expect_profile_err("    volumes: [{host: /a}]\n",
	    "t.yaml:4: profiles.web.volumes[0].container: missing");
	expect_profile_err("    volumes: [/a:/b]\n",
	    "profiles.web.volumes[0]: expected a mapping, got a string");
}

static void
test_cfg_checks_volume_paths_at_load(void **state)
{
	(void)state;
	expect_profile_err("    volumes: [{host: \"{workspace_dir}/../x\", container: /b}]\n",
	    "t.yaml:4: profiles.web.volumes[0].host: '{workspace_dir}/../x': '..' path segment "
	    "refused");
	expect_profile_err("    volumes: [{host: /a, container: /b/../../etc}]\n",
	    "profiles.web.volumes[0].container: '/b/../../etc': '..' path segment refused");
	expect_profile_err("    volumes: [{host: rel/dir, container: /b}]\n",
	    "profiles.web.volumes[0].host: 'rel/dir' is not an absolute path");
	expect_profile_err("    volumes: [{host: \"{profile_name}/x\", container: /b}]\n",
	    "'{profile_name}/x' is not an absolute path");
	expect_profile_err("    volumes: [{host: /a, container: \"~/x\"}]\n",
	    "profiles.web.volumes[0].container: '~/x' is not an absolute path");
	expect_profile_err("    volumes: [{host: \"~bob/x\", container: /b}]\n",
	    "profiles.web.volumes[0].host: '~user' paths are not supported");
	expect_profile_err("    volumes: [{host: \"{PROFILE_DIR}/x\", container: /b}]\n",
	    "profiles.web.volumes[0].host: unknown token '{PROFILE_DIR}'");
	expect_profile_err("    volumes: [{host: \"{ profile_dir }/x\", container: /b}]\n",
	    "unknown token '{ profile_dir }'");
	expect_profile_err("    volumes: [{host: /a, container: \"/home/{profile_name\"}]\n",
	    "profiles.web.volumes[0].container: unterminated '{'");
	expect_profile_err("    volumes: [{host: \"/a:/etc\", container: /b}]\n",
	    "':' and ',' are not allowed in mount paths");
	expect_profile_err("    volumes: [{host: /a, container: \"/b,readonly=false\"}]\n",
	    "':' and ',' are not allowed in mount paths");
	expect_profile_err("    volumes: [{host: /a, container: /workspace/.git}]\n",
	    "profiles.web.volumes[0].container: '/workspace/.git' is reserved");
	expect_profile_err("    volumes: [{host: /a, container: /run/lazaret}]\n", "is reserved");
	expect_profile_err("    volumes: [{host: /a, container: //}]\n", "'/' is reserved");
	expect_profile_err("    volumes: [{host: \"\", container: /b}]\n", "empty path");
}

static void
test_cfg_checks_persistent_dirs(void **state)
{
	(void)state;
	expect_profile_err("    persistent_dirs: [usr]\n",
	    "t.yaml:4: profiles.web.persistent_dirs[0]: 'usr' is not an absolute path");
	expect_profile_err("    persistent_dirs: [/usr, /var, /usr/]\n",
	    "profiles.web.persistent_dirs[2]: '/usr' is listed twice");
	expect_profile_err("    persistent_dirs: [/]\n", "'/' is reserved");
	expect_profile_err("    persistent_dirs: [/workspace]\n", "'/workspace' is reserved");
	expect_profile_err("    persistent_dirs: [/proc/sys]\n", "'/proc/sys' is reserved");
	expect_profile_err("    persistent_dirs: [\"/var/{profile_name}\"]\n",
	    "tokens are not allowed in persistent_dirs");
	expect_profile_err("    persistent_dirs: [/usr/../etc]\n", "'..' path segment refused");
}

static void
test_cfg_checks_env_names_and_values(void **state)
{
	(void)state;
	expect_profile_err("    env:\n      1BAD: x\n",
	    "t.yaml:5: profiles.web.env: invalid variable name '1BAD'");
	expect_profile_err("    env:\n      \"A-B\": x\n", "invalid variable name 'A-B'");
	expect_profile_err("    env:\n      \"A=B\": x\n", "invalid variable name 'A=B'");
	expect_profile_err("    env:\n      LAZARET_SESSION_ID: x\n",
	    "profiles.web.env.LAZARET_SESSION_ID: names starting with LAZARET_ are reserved");
	expect_profile_err("    env:\n      A: \"env:\"\n",
	    "profiles.web.env.A: 'env:': after 'env:' comes a host variable name");
	expect_profile_err("    env:\n      A: \"env:$(id)\"\n", "after 'env:' comes");
	expect_profile_err("    env:\n      A: \"{HOME}\"\n",
	    "t.yaml:5: profiles.web.env.A: unknown token '{HOME}'");
	expect_profile_err("    env:\n      A: [x]\n",
	    "profiles.web.env.A: expected a string, got a sequence");
	expect_profile_err("    env: [A=b]\n", "profiles.web.env: expected a mapping");
}

static void
test_cfg_checks_image_data_root_socket_dir_auto_approve(void **state)
{
	(void)state;
	expect_err("profiles:\n  web:\n    image: --privileged\n",
	    "t.yaml:3: profiles.web.image: an image reference starts with a letter or digit");
	expect_err("profiles:\n  web:\n    image: \"\"\n", "profiles.web.image: empty image name");
	expect_err("profiles:\n  web:\n    image: \"img; rm -rf /\"\n",
	    "character ';' is not allowed in an image reference");
	expect_err("data_root: \"{profile_dir}\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: data_root: tokens are not allowed here");
	expect_err("data_root: relative/dir\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: data_root: 'relative/dir' is not an absolute path");
	expect_err("data_root: /srv/../etc\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: data_root: '/srv/../etc': '..' path segment refused");
	expect_err("data_root: ~root/x\nprofiles: {web: {image: a}}\n",
	    "data_root: '~user' paths are not supported");
	expect_err("escalation:\n  socket_dir: \"/tmp/{domain_hash}\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: escalation.socket_dir: tokens are not allowed here");
	expect_err("escalation:\n  socket_dir: /run/../tmp\nprofiles: {web: {image: a}}\n",
	    "escalation.socket_dir: '/run/../tmp': '..' path segment refused");
	expect_err("escalation:\n  auto_approve: [\"  \"]\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: escalation.auto_approve[0]: empty command");
	expect_err("escalation:\n  auto_approve: [[make]]\nprofiles: {web: {image: a}}\n",
	    "escalation.auto_approve[0]: expected a string, got a sequence");
	/* The policy module's verdict, located by the config. */
	expect_err("escalation:\n  auto_approve: [make test, git status]\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: escalation.auto_approve[1]: 'git status' can never be auto-approved");
	expect_err("escalation:\n  auto_approve:\n    - \"make test; id\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:3: escalation.auto_approve[0]: 'make test; id' contains");
}

static void
test_cfg_tilde_only_at_position_0(void **state)
{
	struct cfg *cfg;
	_cleanup_free_ char *want = xasprintf("%s/d", home);

	(void)state;
	cfg = load_ok("data_root: ~/d\nprofiles: {web: {image: a}}\n");
	assert_string_equal(cfg->data_root, want);
	cfg_free(cfg);
	cfg = load_ok("data_root: /srv/~/d\nescalation: {socket_dir: /x/~}\n"
	    "profiles: {web: {image: a}}\n");
	assert_string_equal(cfg->data_root, "/srv/~/d");
	assert_string_equal(cfg->esc_socket_dir, "/x/~");
	cfg_free(cfg);
}

/* ---- profile lookup ---- */

static void
test_cfg_profile_find_picks_default_or_only_profile(void **state)
{
	struct cfg *cfg;
	lz_err_t err = LZ_ERR_INIT;
	const struct cfg_profile *p;

	(void)state;
	cfg = load_ok("profiles:\n  solo: {image: a}\n");
	p = cfg_profile_find(cfg, NULL, &err);
	assert_non_null(p);
	assert_string_equal(p->name, "solo");
	cfg_free(cfg);

	cfg = load_ok("profiles:\n  web: {image: a}\n  api: {image: b}\n");
	assert_null(cfg_profile_find(cfg, NULL, &err));
	assert_int_equal(err.code, LZ_EUSAGE);
	assert_non_null(strstr(err.msg, "none is named 'default'"));
	assert_non_null(strstr(err.msg, "(have: web, api)"));
	lz_err_clear(&err);
	assert_null(cfg_profile_find(cfg, "wbe", &err));
	assert_non_null(strstr(err.msg, "no profile 'wbe' in t.yaml; did you mean 'web'?"));
	lz_err_clear(&err);
	assert_null(cfg_profile_find(cfg, "zzzzzz", &err));
	assert_non_null(strstr(err.msg, "(have: web, api)"));
	lz_err_clear(&err);
	assert_null(cfg_profile_find(cfg, "../etc", &err));
	assert_non_null(strstr(err.msg, "invalid profile name '../etc'"));
	lz_err_clear(&err);
	p = cfg_profile_find(cfg, "api", &err);
	assert_non_null(p);
	assert_string_equal(p->image, "b");
	cfg_free(cfg);
}

/* ---- resolve ---- */

static struct cfg_resolved *
resolve_ok(const struct cfg *cfg, const char *profile, const char *ws)
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

static const char *
env_get(const struct cfg_resolved *r, const char *name)
{
	size_t i, l = strlen(name);

	for (i = 0; i < r->n_env; i++)
		if (strncmp(r->env[i], name, l) == 0 && r->env[i][l] == '=')
			return r->env[i] + l + 1;
	return NULL;
}

static void
test_cfg_resolve_expands_tokens(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r;
	char h[ANCHOR_HASH_LEN + 1];
	_cleanup_free_ char *ws = xasprintf("%s/proj", home), *dr = xasprintf("%s/lz-data", home),
	    *pd = NULL, *dd = NULL, *v0 = NULL, *v1 = NULL, *v2 = NULL, *where = NULL;

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	setenv("LZ_TEST_SECRET", "s3cr3t-value", 1);
	unsetenv("LZ_TEST_UNSET_VAR");
	cfg = load_ok(full_yaml);
	r = resolve_ok(cfg, "web-agent_2", ws);
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
	assert_string_equal(env_get(r, "WHERE"), where);
	assert_string_equal(env_get(r, "JSON"), "{\"a\": 1}");
	assert_string_equal(env_get(r, "EDITOR"), "vi");
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
	cfg = load_ok("allow_egress: [api.Example.com, \"github.com:443,22\", \"*.npmjs.org\",\n"
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
	expect_err("allow_egress:\n  - github.com:0\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: allow_egress[0]: 'github.com:0': ports must be numbers from 1 to 65535");
	expect_profile_err("    allow_egress: [\"git*hub.com\"]\n",
	    "t.yaml:4: profiles.web.allow_egress[0]: 'git*hub.com': '*' is only allowed as a whole "
	    "first part");
	expect_profile_err("    allow_egress: [localhost]\n",
	    "t.yaml:4: profiles.web.allow_egress[0]: 'localhost' is not a CIDR, an address or a "
	    "domain name");
	expect_err("dns_upstream: resolver.example\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: dns_upstream: 'resolver.example' is not an IP address with an optional port");
	expect_err("dns_upstream: 10.0.2.2:0\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: dns_upstream: '10.0.2.2:0' is not an IP address");
}

static void
test_cfg_network_none_sidecar_and_the_default(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r;
	_cleanup_free_ char *ws = xasprintf("%s/proj", home);

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	/* Unset: the sidecar when there are entries, --network none otherwise. */
	cfg = load_ok("profiles:\n  aa: {image: a}\n  bb: {image: a, allow_egress: [x.example.com]}\n"
	    "  cc: {image: a, network: sidecar}\n  dd: {image: a, network: none}\n");
	r = resolve_ok(cfg, "aa", ws);
	assert_false(r->sidecar);
	cfg_resolved_free(r);
	r = resolve_ok(cfg, "bb", ws);
	assert_true(r->sidecar);
	cfg_resolved_free(r);
	r = resolve_ok(cfg, "cc", ws);
	assert_true(r->sidecar);
	cfg_resolved_free(r);
	r = resolve_ok(cfg, "dd", ws);
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
		cfg = load_ok(t);
		assert_int_equal(cfg_profile_resolve(cfg, &cfg->profiles[0], ws, "0123456789ab", &rr, &err), -1);
		assert_non_null(strstr(err.msg, "t.yaml:23: allow_egress: with profile web, the CIDR "
		    "entries need 640 rules (at most 512"));
		lz_err_clear(&err);
		cfg_free(cfg);
		free(y);
		free(t);
	}
	expect_profile_err("    network: host\n",
	    "t.yaml:4: profiles.web.network: expected 'sidecar' or 'none', got 'host'");
	cfg = load_ok("profiles:\n  web:\n    image: a\n    allow_egress: [1.2.3.4]\n"
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
	_cleanup_free_ char *ws = xasprintf("%s/proj", home);

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	/* A host value that looks like a token is passed verbatim. */
	setenv("LZ_TEST_SECRET", "s3cr3t {profile_dir}", 1);
	unsetenv("LZ_TEST_UNSET_VAR");
	cfg = load_ok(full_yaml);
	r = resolve_ok(cfg, "web-agent_2", ws);
	assert_string_equal(env_get(r, "TOKEN"), "s3cr3t {profile_dir}");
	assert_null(env_get(r, "MISSING"));
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
	_cleanup_free_ char *ws = xasprintf("%s/proj", home), *real = xasprintf("%s/proj/real", home),
	    *link = xasprintf("%s/proj/link", home), *want = xasprintf("%s/real/deep/er", real),
	    *y = NULL, *dlink = xasprintf("%s/dlink", home), *dreal = xasprintf("%s/dreal", home),
	    *want_pd = xasprintf("%s/dreal/web", home), *real2 = xasprintf("%s/real", real),
	    *abs = xasprintf("%s/etc-link", home);

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
	cfg = load_ok(y);
	assert_string_equal(cfg->data_root, dreal);
	r = resolve_ok(cfg, "web", ws);
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
	_cleanup_free_ char *ws = xasprintf("%s/proj", home), *ssh = xasprintf("%s/.ssh", home),
	    *link = xasprintf("%s/proj/data", home), *y = NULL, *want = NULL,
	    *lz = xasprintf("%s/lz", home), *lzd = xasprintf("%s/lz/domains", home),
	    *dd = NULL, *ddl = NULL;

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	assert_int_equal(mkdir(ssh, 0700), 0);
	assert_int_equal(symlink(ssh, link), 0);
	cfg = load_ok("data_root: ~/lz\nprofiles:\n  web:\n    image: a\n    volumes:\n"
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
	cfg = load_ok(y);
	dd = xasprintf("%s/lz/domains/%s", home, h);
	ddl = xasprintf("%s/usr_changes", dd);
	assert_int_equal(mkdir(lz, 0700), 0);
	assert_int_equal(mkdir(lzd, 0700), 0);
	assert_int_equal(mkdir(dd, 0700), 0);
	assert_int_equal(symlink(home, ddl), 0);
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
	_cleanup_free_ char *ws = xasprintf("%s/proj", home), *wl = xasprintf("%s/wl", home);

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	assert_int_equal(symlink(ws, wl), 0);
	cfg = load_ok("profiles:\n  web:\n    image: a\n");
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
	cfg = load_ok("profiles:\n  web:\n    image: a\n    volumes:\n"
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
	cfg = load_ok("profiles:\n  web:\n    image: a\n    volumes:\n"
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
	_cleanup_free_ char *want = xasprintf("%s/cache", home);

	(void)state;
	cfg = load_ok("profiles:\n  web:\n    image: a\n    volumes:\n"
	    "      - {host: \"~/cache\", container: /c}\n"
	    "      - {host: /srv/a/~/b, container: /d/~}\n");
	r = resolve_ok(cfg, "web", "/tmp");
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
	_cleanup_free_ char *dr = xasprintf("%s/never", home);

	(void)state;
	cfg = load_ok("data_root: ~/never\nescalation: {socket_dir: ~/never/sock}\n"
	    "profiles:\n  web:\n    image: a\n    volumes:\n"
	    "      - {host: \"{profile_dir}/c\", container: /c}\n"
	    "      - {host: \"{domain_dir}/d\", container: /d}\n");
	r = resolve_ok(cfg, "web", "/tmp");
	assert_int_equal(stat(dr, &st), -1);
	assert_int_equal(errno, ENOENT);
	cfg_resolved_free(r);
	cfg_free(cfg);
}

/* ---- workbench and escalation.timeout ---- */

static void
test_cfg_loads_workbench_theme_and_prefix(void **state)
{
	static const char *const prefixes[] = { "C-b", "M-a", "^A", "C-M-b", "`", "é", "F5",
	    "M-Tab", "C-Space", "^M-x" };
	struct cfg *cfg;
	size_t i;

	(void)state;
	cfg = load_ok("workbench: {theme: light}\nprofiles: {web: {image: a}}\n");
	assert_string_equal(cfg->wb_theme, "light");
	assert_null(cfg->wb_prefix);
	assert_int_equal(cfg->wb_history, CFG_WB_HISTORY_DEFAULT);
	assert_false(cfg->wb_mouse);	/* off unless asked, like tmux's mouse */
	cfg_free(cfg);
	cfg = load_ok("workbench: {mouse: true}\nprofiles: {web: {image: a}}\n");
	assert_true(cfg->wb_mouse);
	assert_false(cfg->wb_bell);
	assert_null(cfg->wb_notify);
	cfg_free(cfg);
	/* notify: shell words, never a shell: $HOME and ; stay as written */
	cfg = load_ok("workbench:\n  bell: true\n  notify: notify-send 'a tab' $HOME;x\n"
	    "profiles: {web: {image: a}}\n");
	assert_true(cfg->wb_bell);
	assert_string_equal(cfg->wb_notify[0], "notify-send");
	assert_string_equal(cfg->wb_notify[1], "a tab");
	assert_string_equal(cfg->wb_notify[2], "$HOME;x");
	assert_null(cfg->wb_notify[3]);
	cfg_free(cfg);
	for (i = 0; i <= CFG_WB_HISTORY_MAX; i += CFG_WB_HISTORY_MAX / 2) {
		_cleanup_free_ char *y = xasprintf("workbench: {history: %zu}\nprofiles: {web: "
		    "{image: a}}\n", i);

		cfg = load_ok(y);
		assert_int_equal(cfg->wb_history, (int)i);
		cfg_free(cfg);
	}
	/* A path: tilde only at position 0, the rest taken as written. */
	cfg = load_ok("workbench: {theme: ./x~/t.yaml}\nprofiles: {web: {image: a}}\n");
	assert_string_equal(cfg->wb_theme, "./x~/t.yaml");
	cfg_free(cfg);
	for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		_cleanup_free_ char *y = xasprintf("workbench:\n  prefix: \"%s\"\n"
		    "profiles: {web: {image: a}}\n", prefixes[i]);

		cfg = load_ok(y);
		assert_string_equal(cfg->wb_prefix, prefixes[i]);
		assert_int_equal(cfg->wb_prefix_line, 2);
		cfg_free(cfg);
	}
}

static void
test_cfg_rejects_bad_workbench_values(void **state)
{
	(void)state;
	expect_err("workbench:\n  history: 100001\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.history:");
	expect_err("workbench:\n  history: 10k\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.history:");
	expect_err("workbench:\n  mouse: on please\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.mouse:");
	expect_err("workbench:\n  notify: \"\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.notify: empty");
	expect_err("workbench:\n  notify: \"x 'y\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.notify:");
	expect_err("workbench:\n  bell: loud\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.bell:");
	expect_err("workbench:\n  mose: true\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.mose: unknown key; did you mean 'mouse'?");
	expect_err("workbench: light\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: workbench: expected a mapping, got a string");
	expect_err("workbench:\n  theme: [a]\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.theme: expected a string, got a sequence");
	expect_err("workbench:\n  theme:\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.theme: expected a string, got null");
	expect_err("workbench:\n  theme: \"\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.theme: empty");
	expect_err("workbench:\n  theme: \"{profile_dir}/t.yaml\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.theme: tokens are not allowed here");
	expect_err("workbench:\n  theme: ~bob/t.yaml\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.theme: '~user' paths are not supported");
	expect_err("workbench:\n  prefix: 1\n  prefix: 2\nprofiles: {web: {image: a}}\n",
	    "t.yaml:3: workbench.prefix: duplicate key (first on line 2)");
	expect_err("workbench:\n  prefix: {key: C-b}\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.prefix: expected a string, got a mapping");
	expect_err("workbench:\n  prefix: C-\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.prefix: 'C-' is not a key name: use a character, C-x");
	expect_err("workbench:\n  prefix: \"\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.prefix: '' is not a key name");
	expect_err("workbench:\n  prefix: ctrl+b\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.prefix: 'ctrl+b' is not a key name");
	expect_err("workbench:\n  prefix: C-b C-c\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.prefix: 'C-b C-c' is not a key name");
	expect_err("workbench:\n  prefix: M-M-M-M-M-M-M-M-M-M-M-M-M-M-M-M-a\n"
	    "profiles: {web: {image: a}}\n", "t.yaml:2: workbench.prefix: 'M-M-M-",
	    "is longer than 31 bytes");
	expect_err("workbench:\n  prefx: C-b\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.prefx: unknown key; did you mean 'prefix'?");
	expect_err("workbench:\n  themes: light\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.themes: unknown key; did you mean 'theme'?");
	expect_err("workbench:\n  keys: {}\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.keys: unknown key");
	expect_err("workbnech: {}\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: workbnech: unknown key; did you mean 'workbench'?");
}

static void
test_cfg_escalation_timeout_is_seconds_1_to_86400(void **state)
{
	static const struct {
		const char *v;
		const char *needle;
	} bad[] = {
		{ "0", "t.yaml:2: escalation.timeout: 0 is out of range: expected 1..86400" },
		{ "-5", "t.yaml:2: escalation.timeout: -5 is out of range: expected 1..86400" },
		{ "86401", "t.yaml:2: escalation.timeout: 86401 is out of range" },
		{ "99999999999999999999", "escalation.timeout: 99999999999999999999 is out of range" },
		{ "\"120\"", "t.yaml:2: escalation.timeout: expected an integer, got '120'" },
		{ "2m", "t.yaml:2: escalation.timeout: expected an integer, got '2m'" },
		{ "1.5", "t.yaml:2: escalation.timeout: expected an integer, got '1.5'" },
		{ "0x10", "t.yaml:2: escalation.timeout: expected an integer, got '0x10'" },
		{ "", "t.yaml:2: escalation.timeout: expected an integer, got null" },
		{ "[1]", "t.yaml:2: escalation.timeout: expected an integer, got a sequence" },
		{ "true", "t.yaml:2: escalation.timeout: expected an integer, got 'true'" },
	};
	struct cfg *cfg;
	size_t i;

	(void)state;
	cfg = load_ok("escalation:\n  timeout: 1\nprofiles: {web: {image: a}}\n");
	assert_int_equal(cfg->esc_timeout, 1);
	cfg_free(cfg);
	cfg = load_ok("escalation:\n  timeout: 86400\nprofiles: {web: {image: a}}\n");
	assert_int_equal(cfg->esc_timeout, 86400);
	cfg_free(cfg);
	cfg = load_ok("escalation: {enabled: true}\nprofiles: {web: {image: a}}\n");
	assert_int_equal(cfg->esc_timeout, 120);
	cfg_free(cfg);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		_cleanup_free_ char *y = xasprintf("escalation:\n  timeout: %s\n"
		    "profiles: {web: {image: a}}\n", bad[i].v);

		expect_err(y, bad[i].needle);
	}
	expect_err("escalation:\n  timout: 5\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: escalation.timout: unknown key; did you mean 'timeout'?");
}

/* ---- print ---- */

static char *
print_to_string(const struct cfg *cfg, const struct cfg_resolved *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	cfg_print(f, cfg, r);
	fclose(f);
	return buf;
}

static void
test_cfg_print_round_trips(void **state)
{
	struct cfg *cfg, *again;
	char *out1, *out2;
	_cleanup_free_ char *wb = NULL;

	(void)state;
	cfg = load_ok(full_yaml);
	cfg->wb_mouse = true;
	out1 = print_to_string(cfg, NULL);
	again = load_ok(out1);
	out2 = print_to_string(again, NULL);
	/* Only the first line (the source file name) may differ. */
	assert_string_equal(strchr(out1, '\n'), strchr(out2, '\n'));
	assert_non_null(strstr(out1, "      TOKEN: \"env:LZ_TEST_SECRET\"\n"));
	assert_non_null(strstr(out1, "      JSON: \"{{\\\"a\\\": 1}\"\n"));
	assert_non_null(strstr(out1, "  timeout: 300\n"));
	wb = xasprintf("workbench:\n  theme: \"%s/themes/mine.yaml\"\n  prefix: \"C-b\"\n", home);
	assert_non_null(strstr(out1, wb));
	assert_non_null(strstr(out1, "  prefix: \"C-b\"\n  mouse: true\n"));
	assert_true(again->wb_mouse);
	free(out1);
	free(out2);
	cfg_free(again);
	cfg_free(cfg);
}

static void
test_cfg_print_resolved_hides_host_env_values(void **state)
{
	struct cfg *cfg;
	struct cfg_resolved *r;
	char *out, h[ANCHOR_HASH_LEN + 1];
	_cleanup_free_ char *ws = xasprintf("%s/proj", home), *line = NULL;

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	setenv("LZ_TEST_SECRET", "s3cr3t-value", 1);
	unsetenv("LZ_TEST_UNSET_VAR");
	cfg = load_ok(full_yaml);
	r = resolve_ok(cfg, "web-agent_2", ws);
	out = print_to_string(cfg, r);
	assert_null(strstr(out, "s3cr3t"));
	assert_non_null(strstr(out, "      TOKEN: \"env:LZ_TEST_SECRET (set)\"\n"));
	assert_non_null(strstr(out, "      MISSING: \"env:LZ_TEST_UNSET_VAR (unset: not passed)\"\n"));
	assert_non_null(strstr(out, "      EDITOR: \"vi\"\n"));
	anchor_hash("web-agent_2", ws, h);
	line = xasprintf("    domain_hash: \"%s\"\n", h);
	assert_non_null(strstr(out, line));
	assert_non_null(strstr(out, "    workspace_dir: "));
	/* Only the resolved profile. */
	assert_null(strstr(out, "  default:\n"));
	free(out);
	cfg_resolved_free(r);
	cfg_free(cfg);
}

/* The fuzz seeds say what they are: valid-* load, invalid-* fail. Run from
 * the source root (tests/run does). */
static void
test_cfg_fuzz_corpus_files_load_or_fail_as_named(void **state)
{
	const char *dir = "tests/fuzz/corpus-config";
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n_valid = 0, n_invalid = 0;

	(void)state;
	if (d == NULL)
		fail_msg("%s: %s (run from the source root)", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, e->d_name);
		struct cfg *cfg = NULL;
		lz_err_t err = LZ_ERR_INIT;
		int rc;

		if (strncmp(e->d_name, "valid-", 6) != 0 && strncmp(e->d_name, "invalid-", 8) != 0)
			continue;
		rc = cfg_load(path, &cfg, &err);
		if (e->d_name[0] == 'v' && rc < 0)
			fail_msg("%s: %s", path, err.msg);
		if (e->d_name[0] == 'i' && rc == 0)
			fail_msg("%s: loaded, expected an error", path);
		if (rc < 0 && strncmp(err.msg, path, strlen(path)) != 0)
			fail_msg("%s: message '%s' does not start with the file", path, err.msg);
		*(e->d_name[0] == 'v' ? &n_valid : &n_invalid) += 1;
		lz_err_clear(&err);
		cfg_free(cfg);
	}
	closedir(d);
	assert_true(n_valid >= 3);
	assert_true(n_invalid >= 10);
}

static void
test_cfg_limits_default_sized_for_builds(void **state)
{
	struct cfg *cfg = load_ok("profiles:\n  web:\n    image: img:1\n");
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
	_cleanup_free_ char *y = with_profile("    limits: {memory: 1536m, pids: 64, disk: none, "
	    "cpus: 0.5, git_object: 20m}\n");
	struct cfg *cfg = load_ok(y);
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
	expect_profile_err("    limits: {memory: 4x}\n", "t.yaml:4: profiles.web.limits.memory: "
	    "'4x' is not a size");
	expect_profile_err("    limits: {memory: 4gb}\n", "is not a size");
	expect_profile_err("    limits: {memory: 99999999999999999g}\n", "not a size");
	expect_profile_err("    limits: {memory: 1m}\n", "below the smallest sandbox that works "
	    "(256m)");
	expect_profile_err("    limits: {disk: 1k}\n", "profiles.web.limits.disk");
	expect_profile_err("    limits: {git_object: 1k}\n", "profiles.web.limits.git_object");
	expect_profile_err("    limits: {pids: 3}\n", "profiles.web.limits.pids: 3 is out of range");
	expect_profile_err("    limits: {pids: lots}\n", "expected an integer");
	expect_profile_err("    limits: {cpus: 1.2345}\n", "profiles.web.limits.cpus: '1.2345' is "
	    "not a CPU count");
	expect_profile_err("    limits: {cpu: 2}\n", "unknown key; did you mean 'cpus'?");
	expect_profile_err("    limits: [4g]\n", "profiles.web.limits: expected a mapping");
}

static void
test_cfg_usr_etc_var_are_state_anchors_unless_opted_out(void **state)
{
	_cleanup_free_ char *a = with_profile("    persistent_dirs: [/usr/local, /var]\n");
	_cleanup_free_ char *b = with_profile("    persistent_dirs: [/var, /usr]\n");
	_cleanup_free_ char *o = with_profile("    persist_usr: false\n");
	struct cfg *cfg;

	(void)state;
	cfg = load_ok(a);
	assert_int_equal(cfg->profiles[0].n_persistent_dirs, 4);
	assert_string_equal(cfg->profiles[0].persistent_dirs[0], "/usr");
	assert_string_equal(cfg->profiles[0].persistent_dirs[1], "/etc");
	assert_string_equal(cfg->profiles[0].persistent_dirs[2], "/usr/local");
	assert_string_equal(cfg->profiles[0].persistent_dirs[3], "/var");
	cfg_free(cfg);
	cfg = load_ok(b);
	/* dpkg's and apt's state beside /usr: /etc added, /var and /usr kept once */
	assert_int_equal(cfg->profiles[0].n_persistent_dirs, 3);
	assert_string_equal(cfg->profiles[0].persistent_dirs[0], "/etc");
	cfg_free(cfg);
	cfg = load_ok(o);
	assert_int_equal(cfg->profiles[0].n_persistent_dirs, 0);
	assert_false(cfg->profiles[0].persist_usr);
	cfg_free(cfg);
	expect_profile_err("    persist_usr: maybe\n", "profiles.web.persist_usr: expected true or "
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
		_cleanup_free_ char *y = with_profile(ok[i]);

		cfg = load_ok(y);
		assert_int_equal(cfg->profiles[0].user, want[i]);
		cfg_free(cfg);
	}
	expect_profile_err("    user: nobody\n", "profiles.web.user: expected 'agent', 'root', "
	    "'auto' or a uid from 0 to 65535, got 'nobody'");
	expect_profile_err("    user: 65536\n", "profiles.web.user: expected 'agent'");
	expect_profile_err("    user: -1\n", "profiles.web.user: expected 'agent'");
	expect_profile_err("    user: [1]\n", "profiles.web.user");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup_home, teardown_home)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_cfg_loads_full_example),
		T(test_cfg_user_agent_root_uid_or_auto),
		T(test_cfg_network_ask_timeout_range_and_keys),
		T(test_cfg_embedded_default_loads_with_profile_default),
		T(test_cfg_defaults_follow_xdg_variables),
		T(test_cfg_load_reads_xdg_config_home_then_home_config),
		T(test_cfg_load_explicit_path_must_exist_and_be_a_file),
		T(test_cfg_error_names_file_line_and_key),
		T(test_cfg_rejects_unknown_keys_with_suggestion),
		T(test_cfg_rejects_duplicate_keys),
		T(test_cfg_rejects_empty_and_non_mapping_documents),
		T(test_cfg_rejects_anchors_aliases_and_tags),
		T(test_cfg_syntax_error_gives_line_and_column),
		T(test_cfg_rejects_overlong_values),
		T(test_cfg_rejects_nul_and_control_characters),
		T(test_cfg_rejects_injection_in_profile_names),
		T(test_cfg_error_message_never_echoes_control_bytes),
		T(test_cfg_cidr_accepts_valid_ipv4_and_ipv6),
		T(test_cfg_cidr_rejects_bad_prefix_host_bits_and_garbage),
		T(test_cfg_cidr_errors_name_key_and_warn_on_everything),
		T(test_cfg_egress_domains_ports_and_errors_name_the_key),
		T(test_cfg_network_none_sidecar_and_the_default),
		T(test_cfg_checks_volume_mode),
		T(test_cfg_checks_volume_paths_at_load),
		T(test_cfg_checks_persistent_dirs),
		T(test_cfg_checks_env_names_and_values),
		T(test_cfg_checks_image_data_root_socket_dir_auto_approve),
		T(test_cfg_tilde_only_at_position_0),
		T(test_cfg_profile_find_picks_default_or_only_profile),
		T(test_cfg_resolve_expands_tokens),
		T(test_cfg_resolve_pulls_env_var_and_skips_unset_with_warning),
		T(test_cfg_resolve_canonicalizes_symlinked_host_path),
		T(test_cfg_resolve_refuses_symlink_escaping_token_dir),
		T(test_cfg_resolve_requires_canonical_workspace),
		T(test_cfg_resolve_rejects_dotdot_after_expansion),
		T(test_cfg_resolve_rejects_reserved_container_after_expansion),
		T(test_cfg_resolve_keeps_tilde_literal_after_position_0),
		T(test_cfg_load_and_resolve_create_nothing),
		T(test_cfg_loads_workbench_theme_and_prefix),
		T(test_cfg_rejects_bad_workbench_values),
		T(test_cfg_escalation_timeout_is_seconds_1_to_86400),
		T(test_cfg_print_round_trips),
		T(test_cfg_print_resolved_hides_host_env_values),
		T(test_cfg_fuzz_corpus_files_load_or_fail_as_named),
		T(test_cfg_limits_default_sized_for_builds),
		T(test_cfg_limits_take_k_m_g_and_none),
		T(test_cfg_limits_errors_name_file_line_and_key),
		T(test_cfg_usr_etc_var_are_state_anchors_unless_opted_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
