/* sentry-watch.h - the coordinator's continuous import of the agent's refs
 * (sentry-watch.c). */
#ifndef LZ_SENTRY_WATCH_H
#define LZ_SENTRY_WATCH_H

#include <uv.h>

#include "anchor.h"

struct sentry_watch;
typedef void (*sentry_watch_log_fn)(void *arg, const char *msg);

/* Poll a's agent refs on loop and import on change; log gets each new
 * report or error (once). NULL when the domain has no Sentry state. The
 * timer does not keep the loop alive; a must outlive the watch. */
struct sentry_watch *sentry_watch_start(uv_loop_t *loop, const struct anchor *a,
    sentry_watch_log_fn log, void *log_arg);
/* Stop polling (an import in flight finishes on the loop). */
void sentry_watch_stop(struct sentry_watch *);
/* After the loop has run out. free(NULL) is a no-op. */
void sentry_watch_free(struct sentry_watch *);

#endif
