/* review-ident.c - the agent's git identity (see review-ident.h). */
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "review/review-git.h"
#include "review/review-ident.h"
#include "strv.h"
#include "xmalloc.h"

static bool
review_ident_set(char *const *env, const char *key)
{
	size_t kl = strlen(key);

	for (; env != NULL && *env != NULL; env++)
		if (strncmp(*env, key, kl) == 0 && (*env)[kl] == '=')
			return true;
	return false;
}

/* A user.email fit for GIT_*_EMAIL, else <user>@localhost. */
static char *
review_ident_usable(const char *email)
{
	struct passwd *pw;

	if (email != NULL && email[0] != '\0' && strpbrk(email, "\n<>") == NULL)
		return xstrdup(email);
	pw = getpwuid(getuid());
	return xasprintf("%s@localhost", pw != NULL ? pw->pw_name : "lazaret");
}

/* The user's email as git in the workspace sees it (their config): one
 * hardened host git, no scratch repository (config runs no driver). */
static char *
review_ident_email(const char *workspace)
{
	const char *args[] = { "config", "--get", "user.email", NULL };
	struct review_git *g = NULL;
	lz_err_t err = LZ_ERR_INIT;
	_cleanup_free_ char *out = NULL;

	if (review_git_open_host(workspace, &g, &err) < 0 ||
	    review_git_ok(g, true, NULL, args, &out, &err) < 0)
		lz_err_clear(&err);
	review_git_free(g);
	return review_ident_usable(out);
}

char **
review_ident_env(const char *profile, const char *workspace, const char *known,
    char *const *profile_env)
{
	static const char *const names[] = { "GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME", NULL };
	static const char *const mails[] = { "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL", NULL };
	_cleanup_free_ char *email = NULL;
	char **env = NULL;
	size_t i;

	for (i = 0; names[i] != NULL; i++)
		if (!review_ident_set(profile_env, names[i]))
			lz_strv_pushf(&env, "%s=Lazaret agent (%s)", names[i], profile);
	for (i = 0; mails[i] != NULL; i++) {
		if (review_ident_set(profile_env, mails[i]))
			continue;
		if (email == NULL)
			email = known != NULL ? review_ident_usable(known) :
			    review_ident_email(workspace);
		lz_strv_pushf(&env, "%s=%s", mails[i], email);
	}
	return env;
}
