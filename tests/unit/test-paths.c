/* test-paths.c - home lookup, tilde, tokens, `..` and canonicalization. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "testutil.h"
#include "xmalloc.h"

static char *tmp;	/* canonical private directory per test */

static int
setup_tmp(void **state)
{
	(void)state;
	tmp = tu_mkdtemp("paths");
	return 0;
}

static int
teardown_tmp(void **state)
{
	(void)state;
	tu_rmrf(tmp);
	free(tmp);
	tmp = NULL;
	return 0;
}

static char *
tmp_path(const char *rel)
{
	return xasprintf("%s/%s", tmp, rel);
}

/* ---- home ---- */

static void
test_path_home_uses_HOME(void **state)
{
	char *h = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	setenv("HOME", "/srv/someone", 1);
	assert_int_equal(lz_path_home(&h, &err), 0);
	assert_string_equal(h, "/srv/someone");
	free(h);
}

/* Spec 3.2.1: $HOME unpopulated -> the passwd entry. */
static void
test_path_home_falls_back_to_passwd_when_HOME_unset(void **state)
{
	char *h = NULL, *want = NULL, line[1024];
	lz_err_t err = LZ_ERR_INIT;
	FILE *f;
	unsigned uid;

	(void)state;
	/* The entry for our uid, read from /etc/passwd itself. */
	f = fopen("/etc/passwd", "r");
	assert_non_null(f);
	while (want == NULL && fgets(line, sizeof line, f) != NULL) {
		char *fld[7], *s = line;
		int i;

		for (i = 0; i < 7; i++)
			fld[i] = strsep(&s, ":\n");
		if (fld[6] != NULL && sscanf(fld[2], "%u", &uid) == 1 && uid == getuid())
			want = xstrdup(fld[5]);
	}
	fclose(f);
	assert_non_null(want);
	unsetenv("HOME");
	assert_int_equal(lz_path_home(&h, &err), 0);
	assert_string_equal(h, want);
	free(h);
	setenv("HOME", "", 1);
	assert_int_equal(lz_path_home(&h, &err), 0);
	assert_string_equal(h, want);
	free(h);
	free(want);
}

static void
test_path_home_rejects_relative_HOME(void **state)
{
	char *h = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	setenv("HOME", "relative/home", 1);
	assert_int_equal(lz_path_home(&h, &err), -1);
	assert_null(h);
	assert_non_null(strstr(err.msg, "not an absolute path"));
	lz_err_clear(&err);
}

/* ---- tilde ---- */

static void
expect_tilde(const char *in, const char *want)
{
	char *out = NULL;
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(lz_path_expand_tilde(in, &out, &err), 0);
	assert_string_equal(out, want);
	free(out);
}

static void
test_path_tilde_expands_only_at_position_0(void **state)
{
	(void)state;
	setenv("HOME", "/home/u", 1);
	expect_tilde("~", "/home/u");
	expect_tilde("~/", "/home/u/");
	expect_tilde("~/config", "/home/u/config");
	expect_tilde("a/~/b", "a/~/b");
	expect_tilde("/x/~", "/x/~");
	expect_tilde("/~/y", "/~/y");
	expect_tilde(" ~/z", " ~/z");
	setenv("HOME", "/home/u///", 1);
	expect_tilde("~/c", "/home/u/c");
	setenv("HOME", "/", 1);
	expect_tilde("~/c", "/c");
	expect_tilde("~", "/");
}

static void
test_path_tilde_user_is_an_error(void **state)
{
	char *out = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(lz_path_expand_tilde("~root/x", &out, &err), -1);
	assert_null(out);
	assert_non_null(strstr(err.msg, "'~user' paths are not supported"));
	lz_err_clear(&err);
}

/* ---- XDG ---- */

static void
test_path_xdg_uses_absolute_var_and_ignores_relative(void **state)
{
	char *out = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	setenv("HOME", "/home/u", 1);
	setenv("XDG_DATA_HOME", "/data/xdg", 1);
	assert_int_equal(lz_path_xdg("XDG_DATA_HOME", ".local/share", &out, &err), 0);
	assert_string_equal(out, "/data/xdg");
	free(out);
	setenv("XDG_DATA_HOME", "rel/dir", 1);
	assert_int_equal(lz_path_xdg("XDG_DATA_HOME", ".local/share", &out, &err), 0);
	assert_string_equal(out, "/home/u/.local/share");
	free(out);
	unsetenv("XDG_DATA_HOME");
	assert_int_equal(lz_path_xdg("XDG_DATA_HOME", ".local/share", &out, &err), 0);
	assert_string_equal(out, "/home/u/.local/share");
	free(out);
}

/* ---- `..` ---- */

static void
test_path_dotdot_detects_segments_only(void **state)
{
	(void)state;
	assert_true(lz_path_has_dotdot(".."));
	assert_true(lz_path_has_dotdot("../x"));
	assert_true(lz_path_has_dotdot("/a/.."));
	assert_true(lz_path_has_dotdot("/a/../b"));
	assert_true(lz_path_has_dotdot("/a//..//b"));
	assert_true(lz_path_has_dotdot("a/../"));
	assert_false(lz_path_has_dotdot("/a/..b"));
	assert_false(lz_path_has_dotdot("/a../b"));
	assert_false(lz_path_has_dotdot("/.../b"));
	assert_false(lz_path_has_dotdot("/./b"));
	assert_false(lz_path_has_dotdot(""));
	assert_false(lz_path_has_dotdot("/"));
}

/* ---- tokens ---- */

static void
expect_token_error(const char *s, const char *needle)
{
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(lz_path_tokens_check(s, &err), -1);
	if (strstr(err.msg, needle) == NULL)
		fail_msg("'%s': message '%s' lacks '%s'", s, err.msg, needle);
	lz_err_clear(&err);
}

static void
test_path_tokens_accepts_exactly_the_five(void **state)
{
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(lz_path_tokens_check("{profile_name}{profile_dir}{domain_hash}"
	    "{domain_dir}{workspace_dir}", &err), 0);
	assert_int_equal(lz_path_tokens_check("plain text } with closing", &err), 0);
	assert_int_equal(lz_path_tokens_check("{{literal}", &err), 0);
	expect_token_error("{PROFILE_NAME}", "unknown token '{PROFILE_NAME}'");
	expect_token_error("{ profile_name }", "unknown token '{ profile_name }'");
	expect_token_error("/x/{data_root}/y", "unknown token '{data_root}'");
	expect_token_error("{home}", "unknown token '{home}'");
	expect_token_error("{}", "unknown token '{}'");
	expect_token_error("/a/{profile_name", "unterminated '{'");
	expect_token_error("{profile_name}/{", "unterminated '{'");
}

static void
test_path_tokens_expand_verbatim(void **state)
{
	struct lz_path_tokens t = { "web", "/data/web", "0123456789ab", "/data/domains/"
	    "0123456789ab", "/home/u/{profile_name}" };
	char *out = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(lz_path_expand_tokens("{profile_dir}/cache:{profile_name}:"
	    "{domain_hash}:{domain_dir}", &t, &out, &err), 0);
	assert_string_equal(out, "/data/web/cache:web:0123456789ab:/data/domains/0123456789ab");
	free(out);
	/* A value is never expanded again, even when it looks like a token. */
	assert_int_equal(lz_path_expand_tokens("{workspace_dir}/x", &t, &out, &err), 0);
	assert_string_equal(out, "/home/u/{profile_name}/x");
	free(out);
	assert_int_equal(lz_path_expand_tokens("{{\"json\": 1}", &t, &out, &err), 0);
	assert_string_equal(out, "{\"json\": 1}");
	free(out);
	assert_int_equal(lz_path_expand_tokens("", &t, &out, &err), 0);
	assert_string_equal(out, "");
	free(out);
}

static void
test_path_tokens_without_value_and_dotdot_after_expansion(void **state)
{
	struct lz_path_tokens t = { "web", NULL, NULL, NULL, "/home/u/.." };
	char *out = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(lz_path_expand_tokens("{profile_dir}", &t, &out, &err), -1);
	assert_null(out);
	assert_non_null(strstr(err.msg, "{profile_dir} has no value"));
	lz_err_clear(&err);
	/* The `..` check runs on the expanded text, where a value may bring one. */
	assert_false(lz_path_has_dotdot("{workspace_dir}/x"));
	assert_int_equal(lz_path_expand_tokens("{workspace_dir}/x", &t, &out, &err), 0);
	assert_true(lz_path_has_dotdot(out));
	free(out);
}

/* ---- normalize ---- */

static void
test_path_normalize_collapses_and_rejects(void **state)
{
	char *out = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(lz_path_normalize("//a//b/./c/", &out, &err), 0);
	assert_string_equal(out, "/a/b/c");
	free(out);
	assert_int_equal(lz_path_normalize("/", &out, &err), 0);
	assert_string_equal(out, "/");
	free(out);
	assert_int_equal(lz_path_normalize("/./.", &out, &err), 0);
	assert_string_equal(out, "/");
	free(out);
	assert_int_equal(lz_path_normalize("a/b", &out, &err), -1);
	assert_non_null(strstr(err.msg, "'a/b' is not an absolute path"));
	lz_err_clear(&err);
	assert_int_equal(lz_path_normalize("/a/../b", &out, &err), -1);
	assert_non_null(strstr(err.msg, "'..' path segment refused"));
	lz_err_clear(&err);
}

/* ---- canonicalization ---- */

static void
test_path_canon_resolves_symlinks_and_keeps_missing_tail(void **state)
{
	_cleanup_free_ char *real = tmp_path("real"), *link = tmp_path("link"),
	    *in = tmp_path("link/sub/new/leaf"), *want = tmp_path("real/sub/new/leaf"),
	    *sub = tmp_path("real/sub"), *out = NULL, *never = tmp_path("real/sub/new");
	lz_err_t err = LZ_ERR_INIT;
	struct stat st;

	(void)state;
	assert_int_equal(mkdir(real, 0700), 0);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(symlink("real", link), 0);
	assert_int_equal(lz_path_canon(in, &out, &err), 0);
	assert_string_equal(out, want);
	/* Nothing was created for the missing part. */
	assert_int_equal(lstat(never, &st), -1);
	assert_int_equal(errno, ENOENT);
	free(out);
	out = NULL;
	/* An existing path through an absolute symlink, with "//" and ".". */
	free(in);
	in = xasprintf("%s//link/./sub/", tmp);
	assert_int_equal(lz_path_canon(in, &out, &err), 0);
	assert_string_equal(out, sub);
}

static void
test_path_canon_refuses_dangling_symlink_file_middle_and_dotdot(void **state)
{
	_cleanup_free_ char *dang = tmp_path("dangling"), *file = tmp_path("file"),
	    *p1 = tmp_path("dangling/x"), *p2 = tmp_path("file/x"), *p3 = tmp_path("a/../b"),
	    *out = NULL;
	lz_err_t err = LZ_ERR_INIT;
	FILE *f;

	(void)state;
	assert_int_equal(symlink("/nonexistent/lazaret-test", dang), 0);
	assert_int_equal(lz_path_canon(p1, &out, &err), -1);
	assert_non_null(strstr(err.msg, "is a dangling symlink"));
	lz_err_clear(&err);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(lz_path_canon(p2, &out, &err), -1);
	assert_non_null(strstr(err.msg, "Not a directory"));
	lz_err_clear(&err);
	assert_int_equal(lz_path_canon(p3, &out, &err), -1);
	assert_non_null(strstr(err.msg, "'..' path segment refused"));
	lz_err_clear(&err);
	assert_int_equal(lz_path_canon("relative/x", &out, &err), -1);
	assert_non_null(strstr(err.msg, "not an absolute path"));
	lz_err_clear(&err);
	assert_null(out);
}

static void
test_path_canon_of_root_and_missing_top(void **state)
{
	char *out = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(lz_path_canon("/", &out, &err), 0);
	assert_string_equal(out, "/");
	free(out);
	assert_int_equal(lz_path_canon("/lazaret-no-such-dir/x/y", &out, &err), 0);
	assert_string_equal(out, "/lazaret-no-such-dir/x/y");
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_home_uses_HOME),
		cmocka_unit_test(test_path_home_falls_back_to_passwd_when_HOME_unset),
		cmocka_unit_test(test_path_home_rejects_relative_HOME),
		cmocka_unit_test(test_path_tilde_expands_only_at_position_0),
		cmocka_unit_test(test_path_tilde_user_is_an_error),
		cmocka_unit_test(test_path_xdg_uses_absolute_var_and_ignores_relative),
		cmocka_unit_test(test_path_dotdot_detects_segments_only),
		cmocka_unit_test(test_path_tokens_accepts_exactly_the_five),
		cmocka_unit_test(test_path_tokens_expand_verbatim),
		cmocka_unit_test(test_path_tokens_without_value_and_dotdot_after_expansion),
		cmocka_unit_test(test_path_normalize_collapses_and_rejects),
		cmocka_unit_test_setup_teardown(test_path_canon_resolves_symlinks_and_keeps_missing_tail,
		    setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_path_canon_refuses_dangling_symlink_file_middle_and_dotdot,
		    setup_tmp, teardown_tmp),
		cmocka_unit_test(test_path_canon_of_root_and_missing_top),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
