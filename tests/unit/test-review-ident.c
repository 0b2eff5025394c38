/* test-review-ident.c - the agent's git identity: "Lazaret agent (<profile>)"
 * for author and committer, the user's email as git in the workspace reads
 * it (else <user>@localhost) for both, and a variable the profile's env
 * sets is left to the profile. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "review/review-ident.h"
#include "strv.h"
#include "testutil.h"
#include "xmalloc.h"

static void
test_review_ident_names_the_agent_and_leaves_what_the_profile_sets(void **state)
{
	char e1[] = "GIT_AUTHOR_EMAIL=bot@example.com", e2[] = "OTHER=1";
	char *prof[] = { e1, e2, NULL };
	char **env;

	(void)state;
	/* No user.email anywhere (a fake $HOME): <user>@localhost. */
	env = review_ident_env("web", "/", NULL, NULL);
	assert_int_equal(lz_strv_len(env), 4);
	assert_string_equal(env[0], "GIT_AUTHOR_NAME=Lazaret agent (web)");
	assert_string_equal(env[1], "GIT_COMMITTER_NAME=Lazaret agent (web)");
	assert_non_null(strstr(env[2], "GIT_AUTHOR_EMAIL="));
	assert_non_null(strstr(env[2], "@localhost"));
	assert_string_equal(env[2] + strlen("GIT_AUTHOR_"), env[3] + strlen("GIT_COMMITTER_"));
	lz_strv_free(env);
	env = review_ident_env("web", "/", NULL, prof);
	assert_int_equal(lz_strv_len(env), 3);
	assert_null(strstr(env[2], "GIT_AUTHOR_EMAIL"));
	assert_non_null(strstr(env[2], "GIT_COMMITTER_EMAIL="));
	lz_strv_free(env);
}

static void
test_review_ident_takes_the_email_git_reads_in_the_workspace(void **state)
{
	char *dir = tu_mkdtemp("ident"), *cmd;
	char **env;

	(void)state;
	cmd = xasprintf("git init -q '%s' && git -C '%s' config user.email me@example.invalid",
	    dir, dir);
	assert_int_equal(system(cmd), 0);
	env = review_ident_env("web", dir, NULL, NULL);
	assert_int_equal(lz_strv_len(env), 4);
	assert_string_equal(env[2], "GIT_AUTHOR_EMAIL=me@example.invalid");
	assert_string_equal(env[3], "GIT_COMMITTER_EMAIL=me@example.invalid");
	lz_strv_free(env);
	/* Read already (the Sentry's config read): taken, no git; unfit or none
	 * falls back. */
	env = review_ident_env("web", "/nonexistent", "you@example.invalid", NULL);
	assert_string_equal(env[2], "GIT_AUTHOR_EMAIL=you@example.invalid");
	lz_strv_free(env);
	env = review_ident_env("web", dir, "", NULL);
	assert_non_null(strstr(env[2], "@localhost"));
	lz_strv_free(env);
	env = review_ident_env("web", dir, "a>b", NULL);
	assert_non_null(strstr(env[3], "@localhost"));
	lz_strv_free(env);
	tu_rmrf(dir);
	free(dir);
	free(cmd);
}

/* A fake $HOME: no global user.email of the machine's leaks in. */
static int
setup_home(void **state)
{
	*state = tu_fake_home("ident-home");
	return 0;
}

static int
teardown_home(void **state)
{
	tu_rmrf(*state);
	free(*state);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_review_ident_names_the_agent_and_leaves_what_the_profile_sets),
		cmocka_unit_test(test_review_ident_takes_the_email_git_reads_in_the_workspace),
	};

	return cmocka_run_group_tests_name("review-ident", tests, setup_home, teardown_home);
}
