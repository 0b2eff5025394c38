/* esc-trace.c - per-escalation step times under LAZARET_TRACE (esc-trace.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "escalation/esc-trace.h"
#include "trace.h"

static const char *const esc_trace_step[ESC_T_N] = {
	[ESC_T_HANDSHAKE] = "handshake", [ESC_T_REQUEST] = "request",
	[ESC_T_POLICY] = "policy", [ESC_T_DECIDE] = "gate", [ESC_T_AUDITED] = "audit", [ESC_T_SPAWNED] = "spawn",
	[ESC_T_EXITED] = "run", [ESC_T_RESULT] = "result",
};

void
esc_trace_mark(struct esc_trace *t, enum esc_trace_mark m)
{
	struct timespec ts;

	if (!lz_trace_on())
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t->at[m] = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void
esc_trace_report(const struct esc_trace *t, const char *request_id)
{
	char line[512];
	size_t n;
	double last;
	int i, k;

	if (!lz_trace_on() || t->at[ESC_T_ACCEPT] == 0 || t->at[ESC_T_REQUEST] == 0)
		return;
	n = (size_t)snprintf(line, sizeof line, "lazaret: trace: esc %.8s:",
	    *request_id ? request_id : "-");
	last = t->at[ESC_T_ACCEPT];
	for (i = ESC_T_HANDSHAKE; i < ESC_T_N && n < sizeof line; i++) {
		if (t->at[i] == 0)
			continue;
		k = snprintf(line + n, sizeof line - n, " %s %.1f", esc_trace_step[i],
		    t->at[i] - last);
		n += k > 0 ? (size_t)k : 0;
		last = t->at[i];
	}
	if (n < sizeof line)
		snprintf(line + n, sizeof line - n, " total %.1f ms", last - t->at[ESC_T_ACCEPT]);
	/* One write: the line lands whole in the log. */
	fprintf(stderr, "%s\n", line);
	fflush(stderr);
}
