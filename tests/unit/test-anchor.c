/* test-anchor.c - Domain Anchor hash and derived names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anchor.h"
#include "testutil.h"
#include "xmalloc.h"

/* Vectors computed with: printf '%s' 'default:/home/user/project' | sha256sum */
static void
test_anchor_hash_matches_sha256sum_vectors(void **state)
{
	char h[ANCHOR_HASH_LEN + 1];

	(void)state;
	anchor_hash("default", "/home/user/project", h);
	assert_string_equal(h, "603f0b72dae6");
	anchor_hash("web-agent_2", "/srv/code with space", h);
	assert_string_equal(h, "be4a4c66fd96");
}

/* Cross-check against the sha256sum program itself for an awkward path. */
static void
test_anchor_hash_matches_sha256sum_program(void **state)
{
	const char *ws = "/tmp/it's \"quoted\" $(x)";
	char h[ANCHOR_HASH_LEN + 1], line[128], *cmd;
	FILE *p;

	(void)state;
	anchor_hash("ab", ws, h);
	cmd = xasprintf("printf '%%s' 'ab:/tmp/it'\\''s \"quoted\" $(x)' | sha256sum");
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof line, p));
	pclose(p);
	free(cmd);
	line[ANCHOR_HASH_LEN] = '\0';
	assert_string_equal(h, line);
}

static char *tmpdir;

static int
setup_dir(void **state)
{
	(void)state;
	tmpdir = tu_mkdtemp("anchor");
	return 0;
}

static int
teardown_dir(void **state)
{
	(void)state;
	tu_rmrf(tmpdir);
	free(tmpdir);
	tmpdir = NULL;
	return 0;
}

static void
test_anchor_symlink_relative_and_dotdot_resolve_to_one_domain(void **state)
{
	char ws[PATH_MAX + 16], link[PATH_MAX + 16], dotted[PATH_MAX + 32], cwd[PATH_MAX];
	struct anchor *a = NULL, *b = NULL, *c = NULL, *d = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	snprintf(ws, sizeof ws, "%s/proj", tmpdir);
	snprintf(link, sizeof link, "%s/link", tmpdir);
	snprintf(dotted, sizeof dotted, "%s/proj/../proj/.", tmpdir);
	assert_int_equal(mkdir(ws, 0700), 0);
	assert_int_equal(symlink(ws, link), 0);
	assert_int_equal(anchor_new("default", ws, "/d", "/s", &a, &err), 0);
	assert_int_equal(anchor_new("default", link, "/d", "/s", &b, &err), 0);
	assert_int_equal(anchor_new("default", dotted, "/d", "/s", &c, &err), 0);
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(tmpdir), 0);
	assert_int_equal(anchor_new("default", "proj", "/d", "/s", &d, &err), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_string_equal(a->hash, b->hash);
	assert_string_equal(a->hash, c->hash);
	assert_string_equal(a->hash, d->hash);
	assert_string_equal(a->workspace, b->workspace);
	anchor_free(a);
	anchor_free(b);
	anchor_free(c);
	anchor_free(d);
}

static void
test_anchor_derives_every_resource_name(void **state)
{
	char ws[PATH_MAX + 16], *canon, h[ANCHOR_HASH_LEN + 1], *s;
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	snprintf(ws, sizeof ws, "%s/names", tmpdir);
	assert_int_equal(mkdir(ws, 0700), 0);
	canon = realpath(ws, NULL);
	anchor_hash("web", canon, h);
	assert_int_equal(anchor_new("web", ws, "/data", "/run/user/1/lazaret", &a, &err), 0);
	assert_string_equal(a->hash, h);
	s = xasprintf("lazaret-web-%s", h); assert_string_equal(a->container, s); free(s);
	s = xasprintf("lazaret-net-%s", h); assert_string_equal(a->sidecar, s); free(s);
	s = xasprintf("/tmp/lazaret_coord_%s.lock", h); assert_string_equal(a->lockfile, s); free(s);
	s = xasprintf("/run/user/1/lazaret/%s.ctl", h); assert_string_equal(a->ctl_socket, s); free(s);
	s = xasprintf("/run/user/1/lazaret/%s.esc", h); assert_string_equal(a->esc_socket, s); free(s);
	s = xasprintf("/data/domains/%s", h); assert_string_equal(a->domain_root, s); free(s);
	s = xasprintf("/data/domains/%s/state.db", h); assert_string_equal(a->state_db, s); free(s);
	assert_string_equal(a->branch, "lazaret/agent-web");
	anchor_free(a);
	free(canon);
}

static void
test_anchor_rejects_bad_profile_and_missing_workspace(void **state)
{
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(anchor_new("a;rm -rf /", "/tmp", "/d", "/s", &a, &err), -1);
	assert_null(a);
	assert_non_null(strstr(err.msg, "invalid profile name"));
	lz_err_clear(&err);
	assert_int_equal(anchor_new("default", "/nonexistent/lz-x", "/d", "/s", &a, &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent/lz-x"));
	assert_non_null(strstr(err.msg, "No such file"));
	lz_err_clear(&err);
	assert_int_equal(anchor_new("default", "/etc/passwd", "/d", "/s", &a, &err), -1);
	assert_non_null(strstr(err.msg, "not a directory"));
	lz_err_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anchor_hash_matches_sha256sum_vectors),
		cmocka_unit_test(test_anchor_hash_matches_sha256sum_program),
		cmocka_unit_test(test_anchor_symlink_relative_and_dotdot_resolve_to_one_domain),
		cmocka_unit_test(test_anchor_derives_every_resource_name),
		cmocka_unit_test(test_anchor_rejects_bad_profile_and_missing_workspace),
	};

	return cmocka_run_group_tests_name("anchor", tests, setup_dir, teardown_dir);
}
