/* test-config.c - loading the configuration: the file and where it is
 * found, the error format, the top-level keys, profile names and lookup,
 * printing. One profile's keys are test-config-profile.c's, resolution
 * for a workspace test-config-expand.c's; the fixture is cfgtest.c. */
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

/* ---- good configs ---- */

static void
test_cfg_loads_full_example(void **state)
{
	struct cfg *cfg = ct_load_ok(ct_full_yaml);
	const struct cfg_profile *p;
	_cleanup_free_ char *dr = xasprintf("%s/lz-data", ct_home),
	    *sd = xasprintf("%s/sock/dir", ct_home), *th = xasprintf("%s/themes/mine.yaml", ct_home);

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
	cfg = ct_load_ok("network:\n  ask_timeout: 0\nprofiles:\n  web:\n    image: img:1\n");
	assert_int_equal(cfg->ask_timeout, 0);
	cfg_free(cfg);
	cfg = ct_load_ok("profiles:\n  web:\n    image: img:1\n");
	assert_int_equal(cfg->ask_timeout, CFG_ASK_TIMEOUT_DEFAULT);
	cfg_free(cfg);
	ct_expect_err("network:\n  ask_timeout: 601\nprofiles:\n  web:\n    image: img:1\n",
	    "t.yaml:2", "network.ask_timeout");
	ct_expect_err("network:\n  ask_timeout: -1\nprofiles:\n  web:\n    image: img:1\n",
	    "network.ask_timeout");
	ct_expect_err("network:\n  ask_timout: 3\nprofiles:\n  web:\n    image: img:1\n",
	    "ask_timout", "ask_timeout");
	ct_expect_err("network: none\nprofiles:\n  web:\n    image: img:1\n", "network");
}

static void
test_cfg_embedded_default_loads_with_profile_default(void **state)
{
	struct cfg *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;
	const struct cfg_profile *p;
	_cleanup_free_ char *dr = xasprintf("%s/.local/share/lazaret", ct_home),
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
	cfg = ct_load_ok(cfg_default_yaml);
	assert_string_equal(cfg->data_root, "/srv/xdg-data/lazaret");
	assert_string_equal(cfg->esc_socket_dir, "/run/user/4242/lazaret");
	cfg_free(cfg);
	/* Relative XDG values are ignored (XDG base directory rule). */
	setenv("XDG_DATA_HOME", "rel", 1);
	setenv("XDG_RUNTIME_DIR", "rel", 1);
	cfg = ct_load_ok(cfg_default_yaml);
	assert_true(strncmp(cfg->data_root, ct_home, strlen(ct_home)) == 0);
	assert_true(strncmp(cfg->esc_socket_dir, "/tmp/lazaret-", 13) == 0);
	cfg_free(cfg);
}

static void
test_cfg_load_reads_xdg_config_home_then_home_config(void **state)
{
	_cleanup_free_ char *d1 = xasprintf("%s/.config", ct_home), *d2 = xasprintf("%s/lazaret", d1),
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
	assert_int_equal(cfg_load(ct_home, &cfg, &err), -1);
	assert_non_null(strstr(err.msg, "not a regular file"));
	lz_err_clear(&err);
	assert_null(cfg);
}

/* ---- error format and structure ---- */

static void
test_cfg_error_names_file_line_and_key(void **state)
{
	(void)state;
	ct_expect_err("data_root: /x\n"
	    "profiles:\n"
	    "  web:\n"
	    "    image:\n"
	    "      - a\n", "t.yaml:5: profiles.web.image: expected a string, got a sequence");
	ct_expect_err("profiles:\n  web:\n    image: {a: b}\n",
	    "t.yaml:3: profiles.web.image: expected a string, got a mapping");
	ct_expect_err("profiles:\n  web:\n    image: ~\n",
	    "t.yaml:3: profiles.web.image: expected a string, got null");
	ct_expect_err("profiles: [a]\n", "t.yaml:1: profiles: expected a mapping, got a sequence");
	ct_expect_err("data_root: [x]\nprofiles: {}\n", "t.yaml:1: data_root: expected a string");
	ct_expect_err("allow_egress: 10.0.0.0/8\nprofiles:\n  web: {image: a}\n",
	    "t.yaml:1: allow_egress: expected a sequence, got a string");
	ct_expect_err("escalation:\n  enabled: yes\nprofiles:\n  web: {image: a}\n",
	    "t.yaml:2: escalation.enabled: expected true or false, got 'yes'");
	ct_expect_err("escalation:\n  enabled: \"true\"\nprofiles:\n  web: {image: a}\n",
	    "escalation.enabled: expected true or false");
	ct_expect_err("escalation: true\nprofiles:\n  web: {image: a}\n",
	    "t.yaml:1: escalation: expected a mapping, got a string");
}

static void
test_cfg_rejects_unknown_keys_with_suggestion(void **state)
{
	(void)state;
	ct_expect_err("profiles:\n  web:\n    imag: x\n",
	    "t.yaml:3: profiles.web.imag: unknown key; did you mean 'image'?");
	ct_expect_err("data_root: /x\nallow-egress: []\nprofiles: {}\n",
	    "t.yaml:2: allow-egress: unknown key; did you mean 'allow_egress'?");
	ct_expect_err("escalation:\n  auto_aprove: []\nprofiles: {}\n",
	    "t.yaml:2: escalation.auto_aprove: unknown key; did you mean 'auto_approve'?");
	ct_expect_profile_err("    volumes:\n      - {host: /a, container: /b, opts: ro}\n",
	    "t.yaml:5: profiles.web.volumes[0].opts: unknown key");
	ct_expect_err("colour: red\nprofiles: {}\n", "t.yaml:1: colour: unknown key");
	ct_expect_profile_err("    persistant_dirs: [/usr]\n",
	    "profiles.web.persistant_dirs: unknown key; did you mean 'persistent_dirs'?");
}

static void
test_cfg_rejects_duplicate_keys(void **state)
{
	(void)state;
	ct_expect_err("profiles:\n  web:\n    image: a\n    image: b\n",
	    "t.yaml:4: profiles.web.image: duplicate key (first on line 3)");
	ct_expect_err("profiles:\n  web: {image: a}\n  web: {image: b}\n",
	    "t.yaml:3: profiles.web: duplicate key (first on line 2)");
	ct_expect_profile_err("    env:\n      A: x\n      A: y\n",
	    "t.yaml:6: profiles.web.env.A: duplicate key (first on line 5)");
}

static void
test_cfg_rejects_empty_and_non_mapping_documents(void **state)
{
	(void)state;
	ct_expect_err("", "t.yaml:1: empty configuration");
	ct_expect_err("# only a comment\n", "t.yaml:1: empty configuration");
	ct_expect_err("---\n", "empty configuration");
	ct_expect_err("- a\n- b\n", "t.yaml:1: expected a mapping at the top level, got a sequence");
	ct_expect_err("just text\n", "expected a mapping at the top level, got a string");
	ct_expect_err("? [a]\n: b\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: (top level): keys must be strings, got a sequence");
	ct_expect_err("data_root: /x\n", "t.yaml:1: profiles: missing: define at least one profile");
	ct_expect_err("profiles: {}\n", "t.yaml:1: profiles: empty");
	ct_expect_err("profiles:\n  web:\n    env: {}\n", "t.yaml:3: profiles.web.image: missing");
	ct_expect_err("profiles:\n  web:\n", "t.yaml:2: profiles.web: expected a mapping, got null");
	ct_expect_err("profiles:\n  web: {image: a}\n---\nprofiles: {}\n",
	    "t.yaml:3: a second YAML document");
}

static void
test_cfg_rejects_anchors_aliases_and_tags(void **state)
{
	(void)state;
	ct_expect_err("profiles:\n  web: &w {image: a}\n  api: *w\n",
	    "t.yaml:2: YAML anchors (&w) and aliases are not supported");
	/* Billion laughs: refused at the first anchor, nothing is expanded. */
	ct_expect_err("a: &a [x, x, x, x, x, x, x, x, x]\n"
	    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
	    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	    "profiles: {web: {image: *c}}\n", "t.yaml:1: YAML anchors (&a)");
	ct_expect_err("profiles:\n  web:\n    image: !!str abc\n",
	    "t.yaml:3: YAML tags (tag:yaml.org,2002:str) are not supported");
	ct_expect_err("profiles: !custom\n  web: {image: a}\n", "YAML tags (!custom)");
}

static void
test_cfg_syntax_error_gives_line_and_column(void **state)
{
	(void)state;
	ct_expect_err("profiles:\n  web:\n    image: a\n   bad: [\n", "t.yaml:4:", "YAML syntax error");
	ct_expect_err("profiles:\n  web: {image: a\n", "t.yaml:3:1: YAML syntax error: did not "
	    "find expected ',' or '}'");
	ct_expect_err("a: b\n\tc: d\n", "YAML syntax error");
	/* Invalid UTF-8 is the reader's error, located by byte. */
	ct_expect_err("profiles:\n  web: {image: \xff}\n", "t.yaml: invalid input at byte");
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
	ct_expect_err(y, "t.yaml:3: profiles.web.image: longer than 4096 bytes");
	free(y);
	free(big);

	list = xstrdup("");
	for (i = 0; i < 257; i++) {
		y = xasprintf("%s  - \"make t%zu\"\n", list, i);
		free(list);
		list = y;
	}
	y = xasprintf("escalation:\n auto_approve:\n%sprofiles: {web: {image: a}}\n", list);
	ct_expect_err(y, "t.yaml:259: escalation.auto_approve: more than 256 entries");
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
	ct_expect_err(big, "t.yaml: larger than 1048576 bytes");
	free(big);

	/* Deep nesting. */
	big = xmalloc(200);
	memset(big, '[', 100);
	memset(big + 100, ']', 99);
	big[199] = '\0';
	ct_expect_err(big, "nested deeper than 32 levels");
	free(big);
}

static void
test_cfg_rejects_nul_and_control_characters(void **state)
{
	static const char nul[] = "profiles:\n  web:\n    image: \"a\\0b\"\n";
	static const char raw_nul[] = "profiles:\n  web:\n    image: a\0b\n";

	(void)state;
	ct_expect_err(nul, "t.yaml:3: profiles.web.image: contains a NUL byte");
	ct_expect_errv(raw_nul, sizeof raw_nul - 1, "t.yaml", (const char *)NULL);
	ct_expect_err("profiles:\n  web:\n    image: \"a\\x1b[2J\"\n",
	    "profiles.web.image: control character 0x1b not allowed");
	ct_expect_err("escalation:\n  auto_approve: [\"make\\ntest\"]\nprofiles: {web: {image: a}}\n",
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

		ct_expect_err(y, "t.yaml:2: profiles: invalid profile name", "^[a-z0-9_-]{2,32}$");
	}
	/* lazaret-net-<H> is the sidecar's container: a profile "net" would collide. */
	ct_expect_err("profiles:\n  net:\n    image: a\n", "t.yaml:2: profiles: profile name 'net' "
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

/* ---- profile lookup ---- */

static void
test_cfg_profile_find_picks_default_or_only_profile(void **state)
{
	struct cfg *cfg;
	lz_err_t err = LZ_ERR_INIT;
	const struct cfg_profile *p;

	(void)state;
	cfg = ct_load_ok("profiles:\n  solo: {image: a}\n");
	p = cfg_profile_find(cfg, NULL, &err);
	assert_non_null(p);
	assert_string_equal(p->name, "solo");
	cfg_free(cfg);

	cfg = ct_load_ok("profiles:\n  web: {image: a}\n  api: {image: b}\n");
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

/* ---- workbench and escalation.timeout ---- */

static void
test_cfg_loads_workbench_theme_and_prefix(void **state)
{
	static const char *const prefixes[] = { "C-b", "M-a", "^A", "C-M-b", "`", "é", "F5",
	    "M-Tab", "C-Space", "^M-x" };
	struct cfg *cfg;
	size_t i;

	(void)state;
	cfg = ct_load_ok("workbench: {theme: light}\nprofiles: {web: {image: a}}\n");
	assert_string_equal(cfg->wb_theme, "light");
	assert_null(cfg->wb_prefix);
	assert_int_equal(cfg->wb_history, CFG_WB_HISTORY_DEFAULT);
	assert_false(cfg->wb_mouse);	/* off unless asked, like tmux's mouse */
	cfg_free(cfg);
	cfg = ct_load_ok("workbench: {mouse: true}\nprofiles: {web: {image: a}}\n");
	assert_true(cfg->wb_mouse);
	assert_false(cfg->wb_bell);
	assert_null(cfg->wb_notify);
	cfg_free(cfg);
	/* notify: shell words, never a shell: $HOME and ; stay as written */
	cfg = ct_load_ok("workbench:\n  bell: true\n  notify: notify-send 'a tab' $HOME;x\n"
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

		cfg = ct_load_ok(y);
		assert_int_equal(cfg->wb_history, (int)i);
		cfg_free(cfg);
	}
	/* A path: tilde only at position 0, the rest taken as written. */
	cfg = ct_load_ok("workbench: {theme: ./x~/t.yaml}\nprofiles: {web: {image: a}}\n");
	assert_string_equal(cfg->wb_theme, "./x~/t.yaml");
	cfg_free(cfg);
	for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		_cleanup_free_ char *y = xasprintf("workbench:\n  prefix: \"%s\"\n"
		    "profiles: {web: {image: a}}\n", prefixes[i]);

		cfg = ct_load_ok(y);
		assert_string_equal(cfg->wb_prefix, prefixes[i]);
		assert_int_equal(cfg->wb_prefix_line, 2);
		cfg_free(cfg);
	}
}

static void
test_cfg_rejects_bad_workbench_values(void **state)
{
	(void)state;
	ct_expect_err("workbench:\n  history: 100001\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.history:");
	ct_expect_err("workbench:\n  history: 10k\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.history:");
	ct_expect_err("workbench:\n  mouse: on please\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.mouse:");
	ct_expect_err("workbench:\n  notify: \"\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.notify: empty");
	ct_expect_err("workbench:\n  notify: \"x 'y\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.notify:");
	ct_expect_err("workbench:\n  bell: loud\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.bell:");
	ct_expect_err("workbench:\n  mose: true\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.mose: unknown key; did you mean 'mouse'?");
	ct_expect_err("workbench: light\nprofiles: {web: {image: a}}\n",
	    "t.yaml:1: workbench: expected a mapping, got a string");
	ct_expect_err("workbench:\n  theme: [a]\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.theme: expected a string, got a sequence");
	ct_expect_err("workbench:\n  theme:\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.theme: expected a string, got null");
	ct_expect_err("workbench:\n  theme: \"\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.theme: empty");
	ct_expect_err("workbench:\n  theme: \"{profile_dir}/t.yaml\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.theme: tokens are not allowed here");
	ct_expect_err("workbench:\n  theme: ~bob/t.yaml\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.theme: '~user' paths are not supported");
	ct_expect_err("workbench:\n  prefix: 1\n  prefix: 2\nprofiles: {web: {image: a}}\n",
	    "t.yaml:3: workbench.prefix: duplicate key (first on line 2)");
	ct_expect_err("workbench:\n  prefix: {key: C-b}\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.prefix: expected a string, got a mapping");
	ct_expect_err("workbench:\n  prefix: C-\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.prefix: 'C-' is not a key name: use a character, C-x");
	ct_expect_err("workbench:\n  prefix: \"\"\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.prefix: '' is not a key name");
	ct_expect_err("workbench:\n  prefix: ctrl+b\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.prefix: 'ctrl+b' is not a key name");
	ct_expect_err("workbench:\n  prefix: C-b C-c\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.prefix: 'C-b C-c' is not a key name");
	ct_expect_err("workbench:\n  prefix: M-M-M-M-M-M-M-M-M-M-M-M-M-M-M-M-a\n"
	    "profiles: {web: {image: a}}\n", "t.yaml:2: workbench.prefix: 'M-M-M-",
	    "is longer than 31 bytes");
	ct_expect_err("workbench:\n  prefx: C-b\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.prefx: unknown key; did you mean 'prefix'?");
	ct_expect_err("workbench:\n  themes: light\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.themes: unknown key; did you mean 'theme'?");
	ct_expect_err("workbench:\n  keys: {}\nprofiles: {web: {image: a}}\n",
	    "t.yaml:2: workbench.keys: unknown key");
	ct_expect_err("workbnech: {}\nprofiles: {web: {image: a}}\n",
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
	cfg = ct_load_ok("escalation:\n  timeout: 1\nprofiles: {web: {image: a}}\n");
	assert_int_equal(cfg->esc_timeout, 1);
	cfg_free(cfg);
	cfg = ct_load_ok("escalation:\n  timeout: 86400\nprofiles: {web: {image: a}}\n");
	assert_int_equal(cfg->esc_timeout, 86400);
	cfg_free(cfg);
	cfg = ct_load_ok("escalation: {enabled: true}\nprofiles: {web: {image: a}}\n");
	assert_int_equal(cfg->esc_timeout, 120);
	cfg_free(cfg);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		_cleanup_free_ char *y = xasprintf("escalation:\n  timeout: %s\n"
		    "profiles: {web: {image: a}}\n", bad[i].v);

		ct_expect_err(y, bad[i].needle);
	}
	ct_expect_err("escalation:\n  timout: 5\nprofiles: {web: {image: a}}\n",
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
	cfg = ct_load_ok(ct_full_yaml);
	cfg->wb_mouse = true;
	out1 = print_to_string(cfg, NULL);
	again = ct_load_ok(out1);
	out2 = print_to_string(again, NULL);
	/* Only the first line (the source file name) may differ. */
	assert_string_equal(strchr(out1, '\n'), strchr(out2, '\n'));
	assert_non_null(strstr(out1, "      TOKEN: \"env:LZ_TEST_SECRET\"\n"));
	assert_non_null(strstr(out1, "      JSON: \"{{\\\"a\\\": 1}\"\n"));
	assert_non_null(strstr(out1, "  timeout: 300\n"));
	wb = xasprintf("workbench:\n  theme: \"%s/themes/mine.yaml\"\n  prefix: \"C-b\"\n", ct_home);
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
	_cleanup_free_ char *ws = xasprintf("%s/proj", ct_home), *line = NULL;

	(void)state;
	assert_int_equal(mkdir(ws, 0700), 0);
	setenv("LZ_TEST_SECRET", "s3cr3t-value", 1);
	unsetenv("LZ_TEST_UNSET_VAR");
	cfg = ct_load_ok(ct_full_yaml);
	r = ct_resolve_ok(cfg, "web-agent_2", ws);
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

#define T(f) cmocka_unit_test_setup_teardown(f, ct_setup_home, ct_teardown_home)

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, ct_setup_home, ct_teardown_home)
		T(test_cfg_loads_full_example),
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
		T(test_cfg_profile_find_picks_default_or_only_profile),
		T(test_cfg_loads_workbench_theme_and_prefix),
		T(test_cfg_rejects_bad_workbench_values),
		T(test_cfg_escalation_timeout_is_seconds_1_to_86400),
		T(test_cfg_print_round_trips),
		T(test_cfg_print_resolved_hides_host_env_values),
		T(test_cfg_fuzz_corpus_files_load_or_fail_as_named),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
