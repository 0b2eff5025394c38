/* test-kit.c - agent kits: kit.yaml checked, the recipe hash, the kit's
 * defaults merged under the user's profile of the same name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "paths.h"
#include "strv.h"
#include "testutil.h"
#include "xmalloc.h"

/* A fake $HOME (the user's kits and config.yaml), held in the test's state. */
static int
home_new(void **state)
{
	*state = tu_fake_home("kit");
	return 0;
}

static int
home_free(void **state)
{
	tu_rmrf(*state);
	free(*state);
	return 0;
}

static struct cfg_kit *
kit_ok(const char *yaml)
{
	struct cfg_kit *k = NULL;
	lz_err_t err = LZ_ERR_INIT;

	if (cfg_kit_load_buf("k/kit.yaml", "mykit", yaml, strlen(yaml), &k, &err) < 0)
		fail_msg("unexpected error: %s\n--- yaml:\n%s", err.msg, yaml);
	return k;
}

static void
kit_err(const char *name, const char *yaml, const char *needle)
{
	struct cfg_kit *k = NULL;
	lz_err_t err = LZ_ERR_INIT;

	if (cfg_kit_load_buf("k/kit.yaml", name, yaml, strlen(yaml), &k, &err) == 0)
		fail_msg("loaded, expected an error\n--- yaml:\n%s", yaml);
	assert_null(k);
	if (strstr(err.msg, needle) == NULL)
		fail_msg("message '%s' lacks '%s'\n--- yaml:\n%s", err.msg, needle, yaml);
	lz_err_clear(&err);
}

static void
test_kit_shipped_claude_kit_loads_with_its_switches(void **state)
{
	_cleanup_free_ char *buf = NULL;
	struct cfg_kit *k = NULL;
	lz_err_t err = LZ_ERR_INIT;
	size_t len = 0;

	(void)state;
	assert_int_equal(lz_path_read("kits/claude/kit.yaml", 1 << 20, &buf, &len, NULL, &err), 0);
	assert_int_equal(cfg_kit_load_buf("kits/claude/kit.yaml", "claude", buf, len, &k, &err), 0);
	assert_null(k->base);
	assert_string_equal(k->npm[0], "@anthropic-ai/claude-code");
	assert_string_equal(k->command[0], "claude");
	assert_string_equal(k->state[0], "/home/agent/.claude");
	assert_int_equal(strncmp(k->image, "localhost/lazaret-kit-claude:", 29), 0);
	assert_int_equal(strlen(k->hash), 12);
	assert_true(k->defaults->trust_host_ca);
	assert_true(lz_strv_contains(k->defaults->persistent_dirs, "/home/agent/.claude"));
	cfg_kit_free(k);
}

static void
test_kit_rejects_bad_recipes_naming_line_and_key(void **state)
{
	(void)state;
	kit_err("mykit", "image: {debian: [git]}\n", "k/kit.yaml:1: command: missing");
	kit_err("mykit", "command: []\n", "command: empty");
	kit_err("mykit", "command: [x]\nimage:\n  debian: [\"git curl\"]\n",
	    "k/kit.yaml:3: image.debian[0]: 'git curl' is not a Debian package name");
	kit_err("mykit", "command: [x]\nimage:\n  npm: [\"--registry=http://evil\"]\n",
	    "image.npm[0]: '--registry=http://evil' is not an npm package name");
	kit_err("mykit", "command: [x]\nimage:\n  npm: [\"../x\"]\n", "not an npm package name");
	kit_err("mykit", "command: [x]\nimage:\n  mirror: ftp://m/debian\n",
	    "image.mirror: 'ftp://m/debian' is not an http:// or https:// URL");
	kit_err("mykit", "command: [x]\nimage:\n  base: \"-v /:/host\"\n", "image.base");
	kit_err("mykit", "command: [x]\nimage:\n  suite: \"a b\"\n", "image.suite");
	kit_err("mykit", "command: [x]\nimage:\n  pip: [x]\n", "image");
	kit_err("mykit", "command: [x]\nstate: [/etc/x]\n", "state[0]: '/etc/x' is not in the agent's home");
	kit_err("mykit", "command: [x]\nstate: [\"~/../../etc\"]\n", "state[0]");
	kit_err("mykit", "command: [x]\nprofile: {image: x}\n", "profile.image: a kit's image comes from");
	kit_err("mykit", "command: [x]\nprofile: {env: {LAZARET_X: y}}\n", "reserved");
	kit_err("default", "command: [x]\n", "not usable as a profile name");
	kit_err("net", "command: [x]\n", "not usable as a profile name");
	kit_err("Bad!", "command: [x]\n", "not usable as a profile name");
}

static void
test_kit_recipe_hash_follows_the_recipe_only(void **state)
{
	struct cfg_kit *a = kit_ok("command: [x]\nimage: {debian: [git], npm: [a]}\n");
	struct cfg_kit *b = kit_ok("description: other\ncommand: [y]\nimage: {debian: [git], npm: [a]}\n"
	    "profile: {env: {A: b}}\n");
	struct cfg_kit *c = kit_ok("command: [x]\nimage: {debian: [git], npm: [b]}\n");

	(void)state;
	assert_string_equal(a->hash, b->hash);	/* command, profile: not the image */
	assert_string_not_equal(a->hash, c->hash);
	assert_true(a->defaults->trust_host_ca);	/* on for kits unless they say no */
	cfg_kit_free(a);
	cfg_kit_free(b);
	cfg_kit_free(c);
}

/* mkdir -p under the fake home */
static void
mkdirs(const char *path)
{
	_cleanup_free_ char *p = xstrdup(path);
	char *s;

	for (s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		(void)mkdir(p, 0700);
		*s = '/';
	}
	assert_int_equal(mkdir(p, 0700), 0);
}

static const struct cfg_profile *
find(const struct cfg *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n_profiles; i++)
		if (strcmp(cfg->profiles[i].name, name) == 0)
			return &cfg->profiles[i];
	return NULL;
}

static const struct cfg_env *
env_of(const struct cfg_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n_env; i++)
		if (strcmp(p->env[i].name, name) == 0)
			return &p->env[i];
	return NULL;
}

static void
test_kit_defaults_sit_under_the_users_profile(void **state)
{
	_cleanup_free_ char *cfgdir = xasprintf("%s/.config/lazaret", (const char *)*state);
	_cleanup_free_ char *kdir = xasprintf("%s/kits/mykit", cfgdir);
	_cleanup_free_ char *k2dir = xasprintf("%s/kits/other", cfgdir);
	_cleanup_free_ char *bdir = xasprintf("%s/kits/broken", cfgdir);
	const struct cfg_profile *p, *o;
	const struct cfg_env *e;
	struct cfg *cfg = NULL;
	lz_err_t err = LZ_ERR_INIT;

	mkdirs(cfgdir);
	tu_write_file(cfgdir, "config.yaml",
	    "profiles:\n  web:\n    image: img:1\n  mykit:\n    allow_egress: [\"10.1.2.3:80\"]\n"
	    "    env: {X: mine}\n");
	mkdirs(kdir);
	mkdirs(k2dir);
	mkdirs(bdir);
	tu_write_file(kdir, "kit.yaml", "command: [agent]\nstate: [~/.agent]\nprofile:\n"
	    "  allow_egress: [\"@npm\"]\n  persist_usr: false\n  env: {X: kits, A: \"1\"}\n");
	tu_write_file(k2dir, "kit.yaml", "command: [other]\nprofile: {env: {B: \"2\"}}\n");
	tu_write_file(bdir, "kit.yaml", "command: 5\n");
	assert_int_equal(cfg_load(NULL, &cfg, &err), 0);

	p = find(cfg, "mykit");
	assert_non_null(p);
	assert_false(p->implicit);
	assert_string_equal(p->kit->name, "mykit");
	assert_string_equal(p->image, p->kit->image);	/* from the kit */
	assert_true(p->kit_keys & CFG_PK_IMAGE);
	assert_int_equal(p->n_allow_egress, 1);		/* the user's list replaces the kit's */
	assert_string_equal(p->allow_egress[0], "10.1.2.3/32:80");
	assert_false(p->kit_keys & CFG_PK_EGRESS);
	e = env_of(p, "X");
	assert_string_equal(e->value, "mine");		/* env: the user's value wins */
	assert_false(e->from_kit);
	e = env_of(p, "A");
	assert_string_equal(e->value, "1");
	assert_true(e->from_kit);
	assert_false(p->persist_usr);			/* the kit's, the user set none */
	assert_int_equal(p->n_persistent_dirs, 1);
	assert_string_equal(p->persistent_dirs[0], "/home/agent/.agent");
	assert_true(p->trust_host_ca);

	o = find(cfg, "other");				/* no profile names it: implicit */
	assert_non_null(o);
	assert_true(o->implicit);
	assert_string_equal(env_of(o, "B")->value, "2");
	assert_string_equal(o->persistent_dirs[0], "/usr");
	assert_null(find(cfg, "broken"));		/* left out, with a warning */
	assert_non_null(cfg->warnings);
	assert_non_null(strstr(cfg->warnings[0], "kit 'broken' left out"));
	cfg_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kit_shipped_claude_kit_loads_with_its_switches),
		cmocka_unit_test(test_kit_rejects_bad_recipes_naming_line_and_key),
		cmocka_unit_test(test_kit_recipe_hash_follows_the_recipe_only),
		cmocka_unit_test_setup_teardown(test_kit_defaults_sit_under_the_users_profile,
		    home_new, home_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
