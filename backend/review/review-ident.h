/* review-ident.h - who the agent's commits say made them (issue 14 item 5):
 * author and committer "Lazaret agent (<profile>)" with the user's email,
 * so git log tells the agent's commits from the user's. */
#ifndef LZ_REVIEW_IDENT_H
#define LZ_REVIEW_IDENT_H

/* "K=V" entries (NULL-terminated, owned; lz_strv_free) for the sandbox's
 * environment: GIT_AUTHOR_NAME, GIT_COMMITTER_NAME ("Lazaret agent
 * (<profile>)"), GIT_AUTHOR_EMAIL, GIT_COMMITTER_EMAIL (the user.email git
 * reads in workspace, else <user>@localhost). email, when not NULL, is that
 * user.email read already ("" for none: the Sentry's one config read), so
 * no git runs. A variable the profile's env (profile_env, "K=V", may be
 * NULL) already sets is left out: the profile says otherwise. git takes
 * these over user.name/user.email. */
char **review_ident_env(const char *profile, const char *workspace, const char *email,
    char *const *profile_env);

#endif
