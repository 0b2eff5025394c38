/* cfgtest.h - the fixture the configuration's unit tests share
 * (test-config.c, test-config-profile.c, test-config-expand.c): a fake
 * $HOME per test, loading that must succeed or fail with given words, a
 * profile resolved for a workspace. cfgtest.c is linked into every unit
 * test, like testutil.c. */
#ifndef LZ_CFGTEST_H
#define LZ_CFGTEST_H

#include <stddef.h>
#include <string.h>

#include "config.h"

extern char *ct_home;	/* canonical fake $HOME, fresh per test */
/* An example with every key (a profile web-agent_2 with all of them). */
extern const char ct_full_yaml[];

/* cmocka setup and teardown: ct_home made, then removed. */
int ct_setup_home(void **state);
int ct_teardown_home(void **state);
/* Load yaml; any error fails the test. */
struct cfg *ct_load_ok(const char *yaml);
/* Load must fail, and the message must contain each needle (NULL-terminated). */
void ct_expect_errv(const char *yaml, size_t len, ...);
#define ct_expect_err(yaml, ...) ct_expect_errv((yaml), strlen(yaml), __VA_ARGS__, \
	(const char *)NULL)
/* A minimal valid config with one profile whose body is given; caller frees. */
char *ct_with_profile(const char *body);
void ct_expect_profile_err(const char *body, const char *needle);
/* Resolve profile for workspace ws; any error fails the test. */
struct cfg_resolved *ct_resolve_ok(const struct cfg *cfg, const char *profile, const char *ws);
/* The value of name in a resolved env, or NULL. */
const char *ct_env_get(const struct cfg_resolved *r, const char *name);

#endif
