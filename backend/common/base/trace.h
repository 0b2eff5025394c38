/* trace.h - LAZARET_TRACE=1: each start-up phase and its duration on stderr.
 *
 * A phase ends where lz_trace() is called; its duration is the time since
 * the previous mark of this process (or since lz_trace_start). Off unless
 * the environment has LAZARET_TRACE set to a non-empty value other than "0";
 * then every call is one getenv-free branch. Output, one line a phase:
 *   lazaret: trace: <who>: <phase>  <ms since last mark> ms  (<ms since start> ms)
 * The coordinator's stderr is its log file, so its phases land there. */
#ifndef LZ_TRACE_H
#define LZ_TRACE_H

#include <stdbool.h>

/* Reads LAZARET_TRACE, names the process in the lines, starts the clock. */
void lz_trace_start(const char *who);
bool lz_trace_on(void);
/* Ends the phase named `phase` (printf-style). No-op when tracing is off. */
void lz_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
