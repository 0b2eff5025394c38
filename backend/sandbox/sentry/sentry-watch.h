/* sentry-watch.h - the coordinator's continuous import of the agent's refs
 * (sentry-watch.c). */
#ifndef LZ_SENTRY_WATCH_H
#define LZ_SENTRY_WATCH_H

#include <stdbool.h>
#include <uv.h>

#include "anchor.h"

struct sentry_watch;
typedef void (*sentry_watch_log_fn)(void *arg, const char *msg);

/* Poll a's agent refs on loop and import on change; log gets each new
 * report or error (once). NULL when the domain has no Sentry state. The
 * timer does not keep the loop alive; a must outlive the watch. */
struct sentry_watch *sentry_watch_start(uv_loop_t *loop, const struct anchor *a,
    sentry_watch_log_fn log, void *log_arg);
/* Scan now (after the scan in flight) and import what changed; done(arg,
 * true) once that scan has finished, done(arg, false) after timeout_ms or
 * when the watch stops (the import goes on). done may run before this
 * returns. */
typedef void (*sentry_watch_done_fn)(void *arg, bool finished);
void sentry_watch_flush(struct sentry_watch *, unsigned timeout_ms, sentry_watch_done_fn done,
    void *arg);
/* Stop polling (an import in flight finishes on the loop). */
void sentry_watch_stop(struct sentry_watch *);
/* After the loop has run out. free(NULL) is a no-op. */
void sentry_watch_free(struct sentry_watch *);

#endif
