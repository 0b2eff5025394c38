/* test-config-protect.c - a volume must not expose Lazaret's own files
 * (config-protect.c): each protected place refused writable, read-only
 * allowed where it is safe, never for the sockets and the grants key, and
 * the documented volumes ({profile_dir}/x, {domain_dir}/scratch) still fine. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "anchor.h"
#include "config.h"
#include "testutil.h"
#include "xmalloc.h"

static char *home;

static int
setup_home(void **state)
{
	(void)state;
	home = tu_fake_home("protect");
	setenv("XDG_RUNTIME_DIR", home, 1);
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

/* Resolve profile web with one volume (host, mode) loaded from FILE in
 * ~/.config/lazaret; 0 or -1 with the message in *msg (caller frees). */
static int
resolve_volume(const char *host, const char *mode, char **msg)
{
	_cleanup_free_ char *dir = xasprintf("%s/.config/lazaret", home), *cf = NULL;
	_cleanup_free_ char *ws = xasprintf("%s/proj", home), *y = NULL, *cdir = NULL;
	struct cfg *cfg = NULL;
	struct cfg_resolved *r = NULL;
	lz_err_t err = LZ_ERR_INIT;
	char h[ANCHOR_HASH_LEN + 1];
	int ret;

	cdir = xasprintf("%s/.config", home);
	mkdir(cdir, 0700);
	mkdir(dir, 0700);
	mkdir(ws, 0700);
	y = xasprintf("profiles:\n  web:\n    image: a\n    volumes:\n"
	    "      - host: \"%s\"\n        container: /v\n%s%s%s", host,
	    mode != NULL ? "        mode: " : "", mode != NULL ? mode : "",
	    mode != NULL ? "\n" : "");
	tu_write_file(dir, "config.yaml", y);
	cf = xasprintf("%s/config.yaml", dir);
	if (cfg_load(cf, &cfg, &err) < 0)
		fail_msg("load: %s", err.msg);
	anchor_hash("web", ws, h);
	ret = cfg_profile_resolve(cfg, &cfg->profiles[0], ws, h, &r, &err);
	*msg = ret < 0 ? lz_steal_ptr(&err.msg) : NULL;
	cfg_resolved_free(r);
	cfg_free(cfg);
	return ret;
}

static void
expect_refused(const char *host, const char *mode, const char *needle)
{
	char *msg = NULL;

	if (resolve_volume(host, mode, &msg) == 0)
		fail_msg("volume '%s' (mode %s) was accepted", host, mode ? mode : "-");
	if (strstr(msg, needle) == NULL)
		fail_msg("'%s' lacks '%s'", msg, needle);
	free(msg);
}

static void
expect_accepted(const char *host, const char *mode)
{
	char *msg = NULL;

	if (resolve_volume(host, mode, &msg) < 0)
		fail_msg("volume '%s' (mode %s) refused: %s", host, mode ? mode : "-", msg);
}

static void
test_protect_config_dir_writable_refused_ro_allowed(void **state)
{
	_cleanup_free_ char *want = xasprintf("/.config/lazaret/config.yaml:5: "
	    "profiles.web.volumes[0].host: security: '%s/.config' holds the grants directory "
	    "('%s/.config/lazaret/grants'): the agent could grant itself network access; "
	    "refused unless read-only (add mode: ro, or mount a directory that does not hold "
	    "it)", home, home);

	(void)state;
	expect_refused("~/.config", NULL, want);
	expect_refused("~/.config", "z", "refused unless read-only");
	expect_accepted("~/.config", "ro");
	expect_accepted("~/.config", "ro,Z");
	/* Inside it counts too, and a config file elsewhere protects its own dir. */
	expect_refused("~/.config/lazaret/presets", "rw", "is inside the configuration directory");
	expect_refused("~", NULL, "holds");
}

static void
test_protect_data_root_state_refused_own_dirs_allowed(void **state)
{
	(void)state;
	expect_refused("~/.local/share", "z", "holds the grants key");
	expect_refused("~/.local/share/lazaret/domains", NULL, "the Storage Root (data_root)");
	expect_refused("{domain_dir}", NULL, "is inside the Storage Root");
	expect_refused("{domain_dir}/state.db", NULL, "the agent could rewrite every domain's "
	    "state.db");
	expect_refused("{domain_dir}/sentry/x", NULL, "is inside the Storage Root");
	expect_refused("{domain_dir}/git", NULL, "is inside the Storage Root");
	expect_accepted("{domain_dir}/state.db", "ro");
	expect_accepted("{domain_dir}/scratch", NULL);
	expect_accepted("{profile_dir}/npm-cache", NULL);
	expect_accepted("{profile_dir}", NULL);
	expect_refused("~/.local/share/containers", NULL, "Podman's container storage");
	/* setup-host pins the graphroot under ~ whatever XDG_DATA_HOME says. */
	setenv("XDG_DATA_HOME", "/nonexistent/xd", 1);
	expect_refused("~/.local/share/containers/storage", NULL, "is inside Podman's "
	    "container storage");
}

static void
test_protect_sockets_and_key_refused_in_every_mode(void **state)
{
	(void)state;
	expect_refused("~/lazaret", "ro", "socket_dir");
	expect_refused("~/lazaret", "ro", "refused in every mode");
	expect_refused("~/.local/share/lazaret", "ro", "holds the grants key");
	expect_refused("~/.local/share/lazaret/grants.key", "ro", "the grants key");
	expect_accepted("~/proj2", NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_protect_config_dir_writable_refused_ro_allowed,
		    setup_home, teardown_home),
		cmocka_unit_test_setup_teardown(
		    test_protect_data_root_state_refused_own_dirs_allowed, setup_home,
		    teardown_home),
		cmocka_unit_test_setup_teardown(test_protect_sockets_and_key_refused_in_every_mode,
		    setup_home, teardown_home),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
