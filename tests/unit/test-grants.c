/* test-grants.c - a profile's persisted grants file (real temp files), its
 * merge into the configuration, and allow_egress "@preset"s. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "grants.h"
#include "strv.h"
#include "testutil.h"
#include "xmalloc.h"

static char *home;	/* fake $HOME and config directory, fresh per test */

static int
setup_home(void **state)
{
	(void)state;
	home = tu_fake_home("grants");
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

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = xcalloc(1, 65536);

	assert_non_null(f);
	assert_true(fread(buf, 1, 65535, f) < 65535);
	fclose(f);
	return buf;
}

static void
test_grants_path_is_next_to_the_config_file(void **state)
{
	lz_err_t err = LZ_ERR_INIT;
	_cleanup_free_ char *want = xasprintf("%s/.config/lazaret/grants/web.list", home);
	char *p;

	(void)state;
	assert_int_equal(grants_path("/etc/lz/team.yaml", "web", &p, &err), 0);
	assert_string_equal(p, "/etc/lz/grants/web.list");
	free(p);
	assert_int_equal(grants_path(CFG_EMBEDDED_NAME, "web", &p, &err), 0);
	assert_string_equal(p, want);
	free(p);
	setenv("XDG_CONFIG_HOME", "/srv/cfg", 1);
	assert_int_equal(grants_path(CFG_EMBEDDED_NAME, "web", &p, &err), 0);
	assert_string_equal(p, "/srv/cfg/lazaret/grants/web.list");
	free(p);
	/* A profile name never makes a path elsewhere. */
	assert_int_equal(grants_path("/etc/lz/team.yaml", "../x", &p, &err), -1);
	assert_null(p);
	lz_err_clear(&err);
}

static void
test_grants_add_writes_a_private_file_with_a_note_above_each(void **state)
{
	_cleanup_free_ char *path = xasprintf("%s/cfg/grants/web.list", home), *text = NULL;
	_cleanup_free_ char *dir = xasprintf("%s/cfg/grants", home);
	_cleanup_free_ char *note = grants_note(1796292000, "alice (workbench)",
	    "request 3: curl to api.github.com\n140.82.112.3:443");
	lz_err_t err = LZ_ERR_INIT;
	struct grants g;
	struct stat st;
	bool added;

	(void)state;
	assert_string_equal(note, "2026-12-03T10:00:00Z by alice (workbench): request 3: curl "
	    "to api.github.com?140.82.112.3:443");
	assert_int_equal(grants_add(path, "API.GitHub.com:443", note, &added, &err), 0);
	assert_true(added);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* The same grant again (other case, same meaning) is not added twice. */
	assert_int_equal(grants_add(path, "api.github.com:443", "again", &added, &err), 0);
	assert_false(added);
	assert_int_equal(grants_add(path, "*.githubusercontent.com:443", NULL, &added, &err), 0);
	assert_true(added);
	text = slurp(path);
	assert_non_null(strstr(text, "# 2026-12-03T10:00:00Z by alice (workbench): request 3: "
	    "curl to api.github.com?140.82.112.3:443\napi.github.com:443\n\n"
	    "*.githubusercontent.com:443\n"));
	assert_true(strncmp(text, "# Lazaret egress grants", 23) == 0);
	assert_int_equal(grants_load(path, &g, &err), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.v[0].entry, "api.github.com:443");
	assert_string_equal(g.v[0].note, note);
	assert_string_equal(g.v[1].entry, "*.githubusercontent.com:443");
	assert_string_equal(g.v[1].note, "");
	assert_true(g.v[1].line > g.v[0].line);
	grants_clear(&g);
	/* No temp or half file left behind. */
	free(text);
	text = xasprintf("%s.tmp.%ld", path, (long)getpid());
	assert_int_equal(access(text, F_OK), -1);
}

static void
test_grants_add_refuses_bad_entries_and_presets(void **state)
{
	_cleanup_free_ char *path = xasprintf("%s/grants/web.list", home);
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(grants_add(path, "exa mple.com", "x", NULL, &err), -1);
	assert_non_null(strstr(err.msg, "entry has a space"));
	lz_err_clear(&err);
	assert_int_equal(grants_add(path, "@npm", "x", NULL, &err), -1);
	assert_non_null(strstr(err.msg, "a preset cannot be granted"));
	lz_err_clear(&err);
	assert_int_equal(access(path, F_OK), -1);
}

static void
test_grants_remove_by_entry_or_index(void **state)
{
	_cleanup_free_ char *path = xasprintf("%s/grants/web.list", home);
	lz_err_t err = LZ_ERR_INIT;
	struct grants g;
	char *gone = NULL;

	(void)state;
	assert_int_equal(grants_add(path, "a.example.com:443", "one", NULL, &err), 0);
	assert_int_equal(grants_add(path, "10.1.0.0/16:5432", "two", NULL, &err), 0);
	assert_int_equal(grants_add(path, "b.example.com", "three", NULL, &err), 0);
	assert_int_equal(grants_remove(path, "2", &gone, &err), 0);
	assert_string_equal(gone, "10.1.0.0/16:5432");
	free(gone);
	assert_int_equal(grants_remove(path, "B.example.com.", &gone, &err), 0);
	assert_string_equal(gone, "b.example.com");
	free(gone);
	assert_int_equal(grants_remove(path, "5", &gone, &err), -1);
	assert_int_equal(err.code, ENOENT);
	assert_non_null(strstr(err.msg, "no grant number 5"));
	assert_null(gone);
	lz_err_clear(&err);
	assert_int_equal(grants_remove(path, "c.example.com", NULL, &err), -1);
	assert_int_equal(err.code, ENOENT);
	lz_err_clear(&err);
	assert_int_equal(grants_load(path, &g, &err), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.v[0].entry, "a.example.com:443");
	assert_string_equal(g.v[0].note, "one");
	grants_clear(&g);
}

static void
test_grants_parse_names_file_and_line_of_a_bad_entry(void **state)
{
	static const char bad[] = "# note\napi.github.com:443\n\n  # x\n*.exa mple.com\n";
	lz_err_t err = LZ_ERR_INIT;
	struct grants g;

	(void)state;
	assert_int_equal(grants_parse("/h/web.list", bad, strlen(bad), &g, &err), -1);
	assert_int_equal(g.n, 0);
	assert_non_null(strstr(err.msg, "/h/web.list:5: entry has a space"));
	lz_err_clear(&err);
	assert_int_equal(grants_parse("/h/web.list", "@npm\n", 5, &g, &err), -1);
	assert_non_null(strstr(err.msg, "web.list:1: '@npm': a preset is not allowed"));
	lz_err_clear(&err);
	/* A missing file is no grants. */
	assert_int_equal(grants_load("/nonexistent/lz/web.list", &g, &err), 0);
	assert_int_equal(g.n, 0);
}

static void
test_grants_file_writable_by_others_is_refused(void **state)
{
	_cleanup_free_ char *path = xasprintf("%s/web.list", home);
	lz_err_t err = LZ_ERR_INIT;
	struct grants g;

	(void)state;
	assert_int_equal(grants_add(path, "0.0.0.0/0", "n", NULL, &err), 0);
	assert_int_equal(chmod(path, 0620), 0);
	assert_int_equal(grants_load(path, &g, &err), -1);
	assert_int_equal(err.code, EPERM);
	assert_non_null(strstr(err.msg, "security: writable by group or others; refused"));
	lz_err_clear(&err);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(grants_load(path, &g, &err), 0);
	assert_int_equal(g.n, 1);
	grants_clear(&g);
}

/* What an agent with the file in a writable volume can do: write one with a
 * note that names the user, edit Lazaret's, copy one to another profile. */
static void
test_grants_file_not_written_by_lazaret_is_refused(void **state)
{
	_cleanup_free_ char *path = xasprintf("%s/g/web.list", home);
	_cleanup_free_ char *other = xasprintf("%s/g/default.list", home), *text = NULL;
	_cleanup_free_ char *key = xasprintf("%s/.local/share/lazaret/grants.key", home);
	lz_err_t err = LZ_ERR_INIT;
	struct grants g;
	char *nl;
	FILE *f;

	(void)state;
	/* Forged from scratch, before any key exists. */
	tu_write_file(home, "forged.list", "# 2026-12-03T10:00:00Z by you (workbench): ok\n"
	    "0.0.0.0/0\n");
	text = xasprintf("%s/forged.list", home);
	chmod(text, 0600);
	assert_int_equal(grants_load(text, &g, &err), -1);
	assert_int_equal(err.code, EPERM);
	assert_non_null(strstr(err.msg, "forged.list: security: not written by your Lazaret "
	    "(no '# lazaret-mac: ...' line at its end); refused: its grants are not applied"));
	lz_err_clear(&err);
	free(text);
	/* Lazaret's own file, then edited: one entry more above the MAC. */
	assert_int_equal(grants_add(path, "api.github.com:443", "n", NULL, &err), 0);
	assert_int_equal(access(key, F_OK), 0);
	text = slurp(path);
	assert_non_null(strstr(text, "\n# lazaret-mac: "));
	assert_int_equal(grants_load(path, &g, &err), 0);
	grants_clear(&g);
	nl = strstr(text, "api.github.com:443\n");
	assert_non_null(nl);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%.*s0.0.0.0/0\n%s", (int)(nl - text), text, nl);
	fclose(f);
	assert_int_equal(grants_load(path, &g, &err), -1);
	assert_int_equal(err.code, EPERM);
	assert_non_null(strstr(err.msg, "its MAC does not match"));
	lz_err_clear(&err);
	/* A genuine file copied under another profile's name. */
	f = fopen(other, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(grants_load(other, &g, &err), -1);
	assert_non_null(strstr(err.msg, "its MAC does not match"));
	lz_err_clear(&err);
	/* A key others can read is no key. */
	assert_int_equal(chmod(key, 0644), 0);
	assert_int_equal(grants_add(path, "x.example.com", "n", NULL, &err), -1);
	assert_non_null(strstr(err.msg, "security: not a 32-byte file of yours with mode 600"));
	lz_err_clear(&err);
}

/* ---- the configuration: grants merged, presets expanded ---- */

static const char web_yaml[] =
    "allow_egress: [\"10.9.0.0/16:443\"]\n"
    "profiles:\n"
    "  web:\n"
    "    image: img:1\n"
    "    allow_egress:\n"
    "      - registry.npmjs.org:443\n";

static char *
print_cfg(const struct cfg *cfg, const struct cfg_resolved *r)
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
test_cfg_load_merges_the_profile_grants_and_marks_them(void **state)
{
	_cleanup_free_ char *cf = xasprintf("%s/config.yaml", home), *gp = NULL, *out = NULL;
	_cleanup_free_ char *ws = tu_mkdtemp("grants-ws"), *shown = NULL;
	lz_err_t err = LZ_ERR_INIT;
	struct cfg *cfg = NULL;
	struct cfg_resolved *r = NULL;
	const struct cfg_profile *p;

	(void)state;
	tu_write_file(home, "config.yaml", web_yaml);
	assert_int_equal(grants_path(cf, "web", &gp, &err), 0);
	assert_int_equal(grants_add(gp, "api.github.com:443", "note", NULL, &err), 0);
	/* Already in the YAML: listed once, as the file's own. */
	assert_int_equal(grants_add(gp, "registry.npmjs.org:443", "dup", NULL, &err), 0);
	assert_int_equal(cfg_load(cf, &cfg, &err), 0);
	p = cfg_profile_find(cfg, "web", &err);
	assert_int_equal(p->n_allow_egress, 2);
	assert_string_equal(p->allow_egress[1], "api.github.com:443");
	assert_string_equal(p->allow_egress_from[0], "");
	assert_string_equal(p->allow_egress_from[1], "grants/web.list");
	out = print_cfg(cfg, NULL);
	assert_non_null(strstr(out, "      - \"registry.npmjs.org:443\"\n"
	    "      - \"api.github.com:443\"  # from grants/web.list\n"));
	/* The resolved profile (what the sidecar gets) has it, marked too. */
	assert_int_equal(cfg_profile_resolve(cfg, p, ws, "0123456789ab", &r, &err), 0);
	assert_int_equal(r->n_allow_egress, 3);
	assert_true(r->sidecar);
	shown = print_cfg(cfg, r);
	assert_non_null(strstr(shown, "\"api.github.com:443\"  # from grants/web.list\n"));
	cfg_resolved_free(r);
	cfg_free(cfg);
	/* cfg_load_buf reads no grants. */
	assert_int_equal(cfg_load_buf(cf, web_yaml, strlen(web_yaml), &cfg, &err), 0);
	assert_int_equal(cfg->profiles[0].n_allow_egress, 1);
	cfg_free(cfg);
	tu_rmrf(ws);
}

static void
test_cfg_load_refuses_a_grants_file_lazaret_did_not_write(void **state)
{
	_cleanup_free_ char *cf = xasprintf("%s/config.yaml", home);
	_cleanup_free_ char *gd = xasprintf("%s/grants", home), *gp = NULL;
	lz_err_t err = LZ_ERR_INIT;
	struct cfg *cfg = NULL;

	(void)state;
	tu_write_file(home, "config.yaml", web_yaml);
	assert_int_equal(mkdir(gd, 0700), 0);
	tu_write_file(gd, "web.list", "# by you (workbench)\n0.0.0.0/0\n");
	gp = xasprintf("%s/web.list", gd);
	chmod(gp, 0600);
	/* Loaded, the grants left out, a warning and a refusal to audit. */
	assert_int_equal(cfg_load(cf, &cfg, &err), 0);
	assert_int_equal(cfg->profiles[0].n_allow_egress, 1);
	assert_int_equal(lz_strv_len(cfg->refused), 1);
	assert_non_null(strstr(cfg->refused[0], "grants/web.list: security: not written by "
	    "your Lazaret"));
	assert_string_equal(cfg->warnings[0], cfg->refused[0]);
	cfg_free(cfg);
}

static void
test_cfg_load_fails_on_a_bad_line_in_a_signed_grants_file(void **state)
{
	_cleanup_free_ char *cf = xasprintf("%s/config.yaml", home), *gp = NULL;
	_cleanup_free_ char *body = xstrdup("# ok\napi.github.com:443\n10.0.0.0/33\n");
	uint8_t key[GRANTS_MAC_KEY_LEN];
	char mac[GRANTS_MAC_HEX_LEN + 1];
	lz_err_t err = LZ_ERR_INIT;
	struct cfg *cfg = NULL;
	FILE *f;

	(void)state;
	tu_write_file(home, "config.yaml", web_yaml);
	assert_int_equal(grants_path(cf, "web", &gp, &err), 0);
	assert_int_equal(grants_mkdir(gp, &err), 0);
	assert_int_equal(grants_mac_key(true, key, &err), 0);
	grants_mac_hex(key, gp, body, strlen(body), mac);
	f = fopen(gp, "w");
	assert_non_null(f);
	fprintf(f, "%s" GRANTS_MAC_LINE "%s\n", body, mac);
	fclose(f);
	chmod(gp, 0600);
	assert_int_equal(cfg_load(cf, &cfg, &err), -1);
	assert_null(cfg);
	assert_non_null(strstr(err.msg, "grants/web.list:3: "));
	lz_err_clear(&err);
}

static void
test_cfg_embedded_default_stays_default_deny_and_reads_its_grants(void **state)
{
	_cleanup_free_ char *gp = NULL;
	lz_err_t err = LZ_ERR_INIT;
	struct cfg *cfg = NULL;

	(void)state;
	assert_int_equal(cfg_load(NULL, &cfg, &err), 0);
	assert_int_equal(cfg->profiles[0].n_allow_egress, 0);
	assert_int_equal(cfg->n_allow_egress, 0);
	cfg_free(cfg);
	assert_int_equal(grants_path(CFG_EMBEDDED_NAME, "default", &gp, &err), 0);
	assert_int_equal(grants_add(gp, "pypi.org:443", "n", NULL, &err), 0);
	assert_int_equal(cfg_load(NULL, &cfg, &err), 0);
	assert_int_equal(cfg->profiles[0].n_allow_egress, 1);
	assert_string_equal(cfg->profiles[0].allow_egress_from[0], "grants/default.list");
	cfg_free(cfg);
}

static struct cfg *
load_yaml(const char *yaml, lz_err_t *err)
{
	struct cfg *cfg = NULL;

	if (cfg_load_buf("t.yaml", yaml, strlen(yaml), &cfg, err) < 0)
		return NULL;
	return cfg;
}

static void
test_cfg_presets_expand_from_the_shipped_files(void **state)
{
	static const char y[] =
	    "allow_egress: [\"@github\"]\n"
	    "profiles:\n"
	    "  claude:\n"
	    "    image: img:1\n"
	    "    allow_egress: [\"@anthropic\", \"@npm\", \"@pypi\", \"pypi.org:443\"]\n";
	lz_err_t err = LZ_ERR_INIT;
	struct cfg *cfg = load_yaml(y, &err);
	const struct cfg_profile *p;
	_cleanup_free_ char *out = NULL;

	(void)state;
	if (cfg == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(cfg->n_allow_egress, 5);
	assert_string_equal(cfg->allow_egress[0], "github.com:443");
	assert_string_equal(cfg->allow_egress_from[0], "@github");
	p = &cfg->profiles[0];
	assert_true(lz_strv_len(p->allow_egress) == p->n_allow_egress);
	assert_string_equal(p->allow_egress[0], "api.anthropic.com:443");
	assert_string_equal(p->allow_egress_from[0], "@anthropic");
	assert_string_equal(p->allow_egress[p->n_allow_egress - 1], "pypi.org:443");
	assert_string_equal(p->allow_egress_from[p->n_allow_egress - 1], "");
	out = print_cfg(cfg, NULL);
	assert_non_null(strstr(out, "  - \"raw.githubusercontent.com:443\"  # from @github\n"));
	assert_non_null(strstr(out, "      - \"registry.npmjs.org:443\"  # from @npm\n"));
	assert_non_null(strstr(out, "      - \"files.pythonhosted.org:443\"  # from @pypi\n"));
	cfg_free(cfg);
}

static void
test_cfg_unknown_preset_suggests_the_near_one(void **state)
{
	static const char y[] =
	    "profiles:\n"
	    "  web:\n"
	    "    image: img:1\n"
	    "    allow_egress:\n"
	    "      - api.example.com\n"
	    "      - \"@nmp\"\n";
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_null(load_yaml(y, &err));
	assert_string_equal(err.msg, "t.yaml:6: profiles.web.allow_egress[1]: unknown preset "
	    "'@nmp'; did you mean @npm? (presets: @anthropic, @github, @npm, @openai, @pypi)");
	lz_err_clear(&err);
	assert_null(load_yaml("allow_egress: [\"@../etc/passwd\"]\nprofiles:\n  web:\n"
	    "    image: img:1\n", &err));
	assert_non_null(strstr(err.msg, "t.yaml:1: allow_egress[0]: '@../etc/passwd' is not a "
	    "preset name"));
	lz_err_clear(&err);
}

static void
test_cfg_preset_with_a_bad_entry_names_the_preset_file_and_line(void **state)
{
	_cleanup_free_ char *cfgdir = xasprintf("%s/.config/lazaret/presets", home);
	_cleanup_free_ char *want = NULL, *d1 = xasprintf("%s/.config", home);
	_cleanup_free_ char *d2 = xasprintf("%s/.config/lazaret", home);
	lz_err_t err = LZ_ERR_INIT;
	struct cfg *cfg;

	(void)state;
	assert_int_equal(mkdir(d1, 0700), 0);
	assert_int_equal(mkdir(d2, 0700), 0);
	assert_int_equal(mkdir(cfgdir, 0700), 0);
	tu_write_file(cfgdir, "corp", "# the proxy\nproxy.corp.example:3128\n# oops\n"
	    "10.0.0.0/40\n");
	assert_null(load_yaml("profiles:\n  web:\n    image: img:1\n"
	    "    allow_egress: [\"@corp\"]\n", &err));
	want = xasprintf("t.yaml:4: profiles.web.allow_egress[0]: @corp: %s/corp:4: ", cfgdir);
	if (strncmp(err.msg, want, strlen(want)) != 0)
		fail_msg("got '%s', want it to start with '%s'", err.msg, want);
	lz_err_clear(&err);
	/* The user's own presets come first, and may shadow a shipped one. */
	tu_write_file(cfgdir, "npm", "npm.corp.example:443\n");
	cfg = load_yaml("profiles:\n  web:\n    image: img:1\n    allow_egress: [\"@npm\"]\n",
	    &err);
	assert_non_null(cfg);
	assert_int_equal(cfg->profiles[0].n_allow_egress, 1);
	assert_string_equal(cfg->profiles[0].allow_egress[0], "npm.corp.example:443");
	cfg_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_grants_path_is_next_to_the_config_file,
		    setup_home, teardown_home),
		cmocka_unit_test_setup_teardown(
		    test_grants_add_writes_a_private_file_with_a_note_above_each, setup_home,
		    teardown_home),
		cmocka_unit_test_setup_teardown(test_grants_add_refuses_bad_entries_and_presets,
		    setup_home, teardown_home),
		cmocka_unit_test_setup_teardown(test_grants_remove_by_entry_or_index, setup_home,
		    teardown_home),
		cmocka_unit_test_setup_teardown(test_grants_parse_names_file_and_line_of_a_bad_entry,
		    setup_home, teardown_home),
		cmocka_unit_test_setup_teardown(test_grants_file_writable_by_others_is_refused,
		    setup_home, teardown_home),
		cmocka_unit_test_setup_teardown(test_cfg_load_merges_the_profile_grants_and_marks_them,
		    setup_home, teardown_home),
		cmocka_unit_test_setup_teardown(test_grants_file_not_written_by_lazaret_is_refused,
		    setup_home, teardown_home),
		cmocka_unit_test_setup_teardown(
		    test_cfg_load_refuses_a_grants_file_lazaret_did_not_write, setup_home,
		    teardown_home),
		cmocka_unit_test_setup_teardown(
		    test_cfg_load_fails_on_a_bad_line_in_a_signed_grants_file, setup_home,
		    teardown_home),
		cmocka_unit_test_setup_teardown(
		    test_cfg_embedded_default_stays_default_deny_and_reads_its_grants, setup_home,
		    teardown_home),
		cmocka_unit_test_setup_teardown(test_cfg_presets_expand_from_the_shipped_files,
		    setup_home, teardown_home),
		cmocka_unit_test_setup_teardown(test_cfg_unknown_preset_suggests_the_near_one,
		    setup_home, teardown_home),
		cmocka_unit_test_setup_teardown(
		    test_cfg_preset_with_a_bad_entry_names_the_preset_file_and_line, setup_home,
		    teardown_home),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
