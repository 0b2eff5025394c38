/* test-sentry-workspace.c - which workspaces the Sentry takes
 * (sentry-workspace.c: the top level, no commit, a subdirectory, a bare
 * repository, paths podman cannot carry) and its small tools (sentry-util.c:
 * the mode, path checks, git started and finished). The fixture is
 * sentrytest.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anchor.h"
#include "host/proc.h"
#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "sandbox/sentry/sentry-watch.h"
#include "sentrytest.h"
#include "strv.h"
#include "testutil.h"
#include "xmalloc.h"

static void
test_sentry_workspace_resolve_top_level_and_refuses_unsafe(void **state)
{
	char *r = st_make_repo("repo"), *sub, *out = NULL, *data, *home, *oldhome;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	sub = xasprintf("%s/a/b", r);
	st_run_ok("mkdir", "-p", sub, NULL);
	data = st_path_in("data");
	assert_int_equal(sentry_workspace_resolve(sub, data, NULL, false, &out, &err), 0);
	assert_string_equal(out, r);
	free(out);
	/* The coordinator's: the path as named, no top-level lookup. */
	assert_int_equal(sentry_workspace_exact(sub, data, NULL, false, &out, &err), 0);
	assert_string_equal(out, sub);
	free(out);
	oldhome = getenv("HOME") != NULL ? xstrdup(getenv("HOME")) : NULL;
	home = st_path_in("home");
	st_run_ok("mkdir", "-p", home, NULL);
	setenv("HOME", home, 1);
	assert_int_equal(sentry_workspace_resolve(home, data, NULL, false, &out, &err), -1);
	assert_non_null(strstr(err.msg, "home directory"));
	lz_err_clear(&err);
	assert_int_equal(sentry_workspace_resolve(home, data, NULL, true, &out, &err), 0);
	free(out);
	assert_int_equal(sentry_workspace_check(home, data, NULL, false, &err), -1);
	assert_non_null(strstr(err.msg, "home directory"));
	lz_err_clear(&err);
	assert_int_equal(sentry_workspace_exact(home, data, NULL, false, &out, &err), -1);
	assert_null(out);
	lz_err_clear(&err);
	assert_int_equal(sentry_workspace_resolve("/", data, NULL, false, &out, &err), -1);
	lz_err_clear(&err);
	/* A directory holding the Storage Root. */
	assert_int_equal(sentry_workspace_resolve(st_tmp, data, NULL, false, &out, &err), -1);
	assert_non_null(strstr(err.msg, "Storage Root"));
	lz_err_clear(&err);
	if (oldhome != NULL)
		setenv("HOME", oldhome, 1);
	free(oldhome);
	free(home);
	free(data);
	free(sub);
	free(r);
}

static void
test_sentry_refuses_comma_in_workspace_path(void **state)
{
	char *ws = st_path_in("a,b");
	struct anchor *a;

	(void)state;
	st_git_do(st_tmp, "init", "-q", ws, NULL);
	a = st_anchor_for(ws);
	st_expect_refused(a, SENTRY_ISOLATED, "contains a comma");
	{
		char *want = xasprintf("workspace '%s' contains a comma", a->workspace);

		st_expect_refused(a, SENTRY_DIRECT, want);
		free(want);
	}
	anchor_free(a);
	free(ws);
}

static void
test_sentry_workspace_path_with_spaces_works(void **state)
{
	char *r = st_make_repo("my project"), *s;
	struct sentry_layout l;
	struct anchor *a;

	(void)state;
	a = st_anchor_for(r);
	st_prepare_ok(a, SENTRY_ISOLATED, &l);
	s = xasprintf("%s/.git/objects", r);
	st_assert_bind(&l, "/run/lazaret/git-objects", s, true);
	free(s);
	sentry_layout_clear(&l);
	anchor_free(a);
	free(r);
}

static void
test_sentry_refuses_repo_without_commit(void **state)
{
	char *ws = st_path_in("empty");
	struct anchor *a;

	(void)state;
	st_git_do(st_tmp, "init", "-q", ws, NULL);
	a = st_anchor_for(ws);
	st_expect_refused(a, SENTRY_ISOLATED, "no commit yet");
	st_expect_refused(a, SENTRY_DIRECT, "no commit yet");
	anchor_free(a);
	free(ws);
}

/* The coordinator takes its workspace as named (sentry_workspace_exact):
 * prepare itself refuses one that is no work tree's top level. */
static void
test_sentry_refuses_a_subdirectory_and_a_directory_inside_git(void **state)
{
	char *r = st_make_repo("subdir"), *sub = xasprintf("%s/a", r);
	char *inside = xasprintf("%s/.git/refs", r);
	struct anchor *a;

	(void)state;
	st_run_ok("mkdir", "-p", sub, NULL);
	a = st_anchor_for(sub);
	st_expect_refused(a, SENTRY_ISOLATED, "is inside git repository");
	st_expect_refused(a, SENTRY_DIRECT, "run lazaret at its top level");
	anchor_free(a);
	a = st_anchor_for(inside);
	st_expect_refused(a, SENTRY_DIRECT, "is a git directory");
	anchor_free(a);
	free(inside);
	free(sub);
	free(r);
}

static void
test_sentry_refuses_bare_repository_and_dotgit_symlink(void **state)
{
	char *ws = st_path_in("bare.git"), *o, *q;
	struct anchor *a;

	(void)state;
	st_git_do(st_tmp, "init", "-q", "--bare", ws, NULL);
	a = st_anchor_for(ws);
	st_expect_refused(a, SENTRY_ISOLATED, "git directory");
	anchor_free(a);
	free(ws);
	/* .git as a symlink to the git dir: refused, not followed. */
	ws = st_make_repo("linked-dotgit");
	o = xasprintf("%s/.git", ws);
	st_run_ok("mv", o, st_tmp, NULL);
	free(o);
	o = xasprintf("%s/.git", st_tmp);
	q = xasprintf("%s/.git", ws);
	assert_int_equal(symlink(o, q), 0);
	a = st_anchor_for(ws);
	st_expect_refused(a, SENTRY_ISOLATED, "is a symbolic link");
	free(o);
	free(q);
	anchor_free(a);
	free(ws);
}

/* A git started early and collected later says what sentry_git would:
 * its output, or its failure with git's own message. */
static void
test_sentry_git_started_and_finished_reports_as_sentry_git(void **state)
{
	char *r = st_make_repo("job"), *plain = st_path_in("job-plain"), *out = NULL;
	struct sentry_job *j1, *j2;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	st_run_ok("mkdir", "-p", plain, NULL);
	j1 = sentry_git_start(r, "rev-parse", "--abbrev-ref", "HEAD", NULL);
	j2 = sentry_git_start(plain, "rev-parse", "--git-dir", NULL);
	assert_int_equal(sentry_git_finish(j2, NULL, NULL, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "git rev-parse (in "));
	assert_non_null(strstr(err.msg, "failed (exit 128): fatal: not a git repository"));
	lz_err_clear(&err);
	assert_int_equal(sentry_git_finish(j1, &out, NULL, NULL, &err), 0);
	assert_string_equal(out, "main");
	free(out);
	assert_int_equal(sentry_git_finish(NULL, NULL, NULL, NULL, &err), 0);
	free(plain);
	free(r);
}

static void
test_sentry_mode_parse_accepts_the_two_modes_only(void **state)
{
	enum sentry_mode m;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(sentry_mode_parse("isolated", &m, &err), 0);
	assert_int_equal(m, SENTRY_ISOLATED);
	assert_int_equal(sentry_mode_parse("direct", &m, &err), 0);
	assert_int_equal(m, SENTRY_DIRECT);
	assert_int_equal(sentry_mode_parse("Direct", &m, &err), -1);
	assert_non_null(strstr(err.msg, "'isolated' or 'direct'"));
	lz_err_clear(&err);
}

static void
test_sentry_path_check_names_the_bad_path(void **state)
{
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(sentry_path_check("workspace", "/a b/c:d", true, &err), 0);
	assert_int_equal(sentry_path_check("upper", "/a b/c:d", false, &err), -1);
	assert_non_null(strstr(err.msg, "upper '/a b/c:d' contains a colon"));
	lz_err_clear(&err);
	assert_int_equal(sentry_path_check("workspace", "/x/\"q", true, &err), -1);
	assert_non_null(strstr(err.msg, "double quote"));
	lz_err_clear(&err);
	assert_int_equal(sentry_path_check("workspace", "/x/\nq", true, &err), -1);
	assert_non_null(strstr(err.msg, "control character"));
	lz_err_clear(&err);
	assert_int_equal(sentry_path_check("workspace", "rel", true, &err), -1);
	lz_err_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, st_setup_tmp, st_teardown_tmp)
		T(test_sentry_workspace_resolve_top_level_and_refuses_unsafe),
		T(test_sentry_refuses_comma_in_workspace_path),
		T(test_sentry_workspace_path_with_spaces_works),
		T(test_sentry_refuses_repo_without_commit),
		T(test_sentry_refuses_a_subdirectory_and_a_directory_inside_git),
		T(test_sentry_refuses_bare_repository_and_dotgit_symlink),
		T(test_sentry_git_started_and_finished_reports_as_sentry_git),
		cmocka_unit_test(test_sentry_mode_parse_accepts_the_two_modes_only),
		cmocka_unit_test(test_sentry_path_check_names_the_bad_path),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
