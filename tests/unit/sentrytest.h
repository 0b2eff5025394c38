/* sentrytest.h - the fixture the Git Sentry's unit tests share
 * (test-sentry.c, test-sentry-import.c, test-sentry-watch.c,
 * test-sentry-workspace.c): real git repositories in a private temp dir,
 * the domain's anchor, the agent's git, what a layout mounts. sentrytest.c
 * is linked into every unit test, like testutil.c. */
#ifndef LZ_SENTRYTEST_H
#define LZ_SENTRYTEST_H

#include <stdarg.h>
#include <stdbool.h>

#include "anchor.h"
#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"

extern char *st_tmp;	/* the test's private directory (st_setup_tmp) */

/* cmocka setup and teardown: st_tmp made, then removed. */
int st_setup_tmp(void **state);
int st_teardown_tmp(void **state);

/* Run git in dir with a fixed identity (arguments NULL-terminated); returns
 * stdout, newlines cut; caller frees. st_git_do drops it, st_expect_git
 * asserts it equals want. */
char *st_git_vin(const char *dir, va_list ap);
char *st_git_in(const char *dir, ...);
void st_git_do(const char *dir, ...);
void st_expect_git(const char *want, const char *dir, ...);
/* Run a program (argv as varargs, NULL-terminated) and assert it succeeded. */
void st_run_ok(const char *a0, ...);

void st_write_file(const char *path, const char *content);
char *st_read_file(const char *path);
void st_expect_file(const char *path, const char *want);
/* st_tmp/rel; caller frees. */
char *st_path_in(const char *rel);
/* A repo with one commit, a modified README and a staged new file, so the
 * host's index and working tree are worth comparing; caller frees. */
char *st_make_repo(const char *name);
/* Everything of the host checkout that must stay byte-identical. */
char *st_host_snapshot(const char *r);
bool st_same_bytes(const char *a, const char *b);

/* The domain of workspace ws (its data under st_tmp). */
struct anchor *st_anchor_for(const char *ws);
/* The domain of ws, prepared once in isolated mode (the layout dropped). */
struct anchor *st_anchor_prepared(const char *ws);
void st_prepare_ok(const struct anchor *a, enum sentry_mode mode, struct sentry_layout *l);
/* sentry_prepare refuses with a message holding want, and fills nothing. */
void st_expect_refused(const struct anchor *a, enum sentry_mode mode, const char *want);
const struct drv_mount *st_find_mount(const struct sentry_layout *l, const char *dst);
void st_assert_bind(const struct sentry_layout *l, const char *dst, const char *src, bool ro);
/* Every mount destination is below its parent's: podman gets them in an
 * order where a parent is always mounted first. */
void st_assert_parents_first(const struct sentry_layout *l);

/* Run git as the agent would in its sandbox: its own gitdir <dr>/git, its
 * checkout, the host's objects where the sandbox's alternates line points. */
char *st_agent_vin(const struct anchor *a, const char *wt, va_list ap);
char *st_agent_in(const struct anchor *a, const char *wt, ...);
#define st_agent_do(a, wt, ...) free(st_agent_in((a), (wt), __VA_ARGS__))
void st_import_ok(const struct anchor *a);
/* The agent's private gitdir's rel; caller frees. */
char *st_priv_path(const struct anchor *a, const char *rel);

#endif
