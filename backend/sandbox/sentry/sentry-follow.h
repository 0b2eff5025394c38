/* sentry-follow.h - the coordinator keeps the agent's view of the host's
 * branches and git settings current (sentry-follow.c). */
#ifndef LZ_SENTRY_FOLLOW_H
#define LZ_SENTRY_FOLLOW_H

#include <stdbool.h>
#include <uv.h>

#include "anchor.h"

struct sentry_follow;
/* summary: what changed ("host/main is now 1234abcd5678"), NULL when
 * nothing did; err: the refresh failed (summary NULL). */
typedef void (*sentry_follow_fn)(void *arg, const char *summary, const char *err);

/* Watch a's host repository (its refs and config, the user's global git
 * config) on loop with inotify through libuv, and refresh the agent's view
 * (sentry-hostview.c) within tens of milliseconds of a change. NULL when
 * the domain has no Sentry state (not a git workspace). a must outlive it;
 * its handles do not keep the loop alive. */
struct sentry_follow *sentry_follow_start(uv_loop_t *loop, const struct anchor *a);
/* Refresh now (after one in flight); done(arg, ...) once that refresh has
 * ended (at once, with an error, when the follower has stopped). */
void sentry_follow_now(struct sentry_follow *, sentry_follow_fn done, void *arg);
/* Stop watching (a refresh in flight finishes on the loop). */
void sentry_follow_stop(struct sentry_follow *);
/* After the loop has run out. free(NULL) is a no-op. */
void sentry_follow_free(struct sentry_follow *);

#endif
