/* test-review-ident.c - the agent's git identity: "Lazaret agent (<profile>)"
 * for author and committer, an email for both, and a variable the
 * profile's env sets is left to the profile. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "review/review-ident.h"
#include "strv.h"

static void
test_review_ident_names_the_agent_and_leaves_what_the_profile_sets(void **state)
{
	char e1[] = "GIT_AUTHOR_EMAIL=bot@example.com", e2[] = "OTHER=1";
	char *prof[] = { e1, e2, NULL };
	char **env;

	(void)state;
	/* "/" is no git checkout: the email falls back to <user>@localhost. */
	env = review_ident_env("web", "/", NULL);
	assert_int_equal(lz_strv_len(env), 4);
	assert_string_equal(env[0], "GIT_AUTHOR_NAME=Lazaret agent (web)");
	assert_string_equal(env[1], "GIT_COMMITTER_NAME=Lazaret agent (web)");
	assert_non_null(strstr(env[2], "GIT_AUTHOR_EMAIL="));
	assert_non_null(strstr(env[2], "@localhost"));
	assert_string_equal(env[2] + strlen("GIT_AUTHOR_"), env[3] + strlen("GIT_COMMITTER_"));
	lz_strv_free(env);
	env = review_ident_env("web", "/", prof);
	assert_int_equal(lz_strv_len(env), 3);
	assert_null(strstr(env[2], "GIT_AUTHOR_EMAIL"));
	assert_non_null(strstr(env[2], "GIT_COMMITTER_EMAIL="));
	lz_strv_free(env);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_review_ident_names_the_agent_and_leaves_what_the_profile_sets),
	};

	return cmocka_run_group_tests_name("review-ident", tests, NULL, NULL);
}
