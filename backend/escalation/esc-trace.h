/* esc-trace.h - LAZARET_TRACE=1: where one escalation's time goes in the
 * coordinator. Each connection notes a monotonic time at each step; when it
 * closes, one line in the coordinator's log names the request and the
 * milliseconds of every step it reached:
 *   lazaret: trace: esc 1a2b3c4d: handshake 1.2 request 0.4 policy 0.3 gate 0.6
 *       audit 1.1 spawn 0.3 run 1.8 result 0.1 total 5.8 ms
 * Off (one branch per mark) unless the coordinator's environment has it.
 */
#ifndef LZ_ESC_TRACE_H
#define LZ_ESC_TRACE_H

enum esc_trace_mark {
	ESC_T_ACCEPT,		/* accepted */
	ESC_T_HANDSHAKE,	/* TLS handshake done, client certificate checked */
	ESC_T_REQUEST,		/* the whole REQUEST frame is in */
	ESC_T_POLICY,		/* signature and policy checked */
	ESC_T_DECIDE,		/* the review gate answered (auto_approve only) */
	ESC_T_AUDITED,		/* the request and decision rows are committed */
	ESC_T_SPAWNED,		/* the host command was started */
	ESC_T_EXITED,		/* it exited and its output is read */
	ESC_T_RESULT,		/* the RESULT frame was written */
	ESC_T_N,
};

struct esc_trace {
	double at[ESC_T_N];	/* ms, CLOCK_MONOTONIC; 0: not reached */
};

/* Note now as mark m (no-op unless tracing). */
void esc_trace_mark(struct esc_trace *, enum esc_trace_mark m);
/* The one line for a finished connection (no-op unless tracing or if no
 * request arrived); request_id may be "" . */
void esc_trace_report(const struct esc_trace *, const char *request_id);

#endif
