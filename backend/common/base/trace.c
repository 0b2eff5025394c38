/* trace.c - LAZARET_TRACE phase timings (see trace.h). */
#include "trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool trace_on;
static const char *trace_who = "lazaret";
static double trace_t0, trace_last;

static double
trace_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

void
lz_trace_start(const char *who)
{
	const char *v = getenv("LAZARET_TRACE");

	trace_on = v != NULL && *v != '\0' && strcmp(v, "0") != 0;
	if (who != NULL)
		trace_who = who;
	trace_t0 = trace_last = trace_now_ms();
}

bool
lz_trace_on(void)
{
	return trace_on;
}

void
lz_trace(const char *fmt, ...)
{
	char phase[160];
	va_list ap;
	double t;
	int n;

	if (!trace_on)
		return;
	t = trace_now_ms();
	n = snprintf(phase, sizeof phase, "%s: ", trace_who);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof phase)
		vsnprintf(phase + n, sizeof phase - (size_t)n, fmt, ap);
	va_end(ap);
	/* One fprintf: a line is written whole even with the coordinator's log. */
	fprintf(stderr, "lazaret: trace: %-46s %8.1f ms  (%.1f ms)\n", phase, t - trace_last,
	    t - trace_t0);
	fflush(stderr);
	trace_last = t;
}
