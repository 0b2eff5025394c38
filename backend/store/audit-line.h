/* audit-line.h - one audit event as a person reads it (`lazaret audit`):
 *
 *   SEQ  TIME                  WHO                 EVENT     VERDICT       REQUEST  WHAT
 *     1  2026-12-03T07:14:02Z  session 3f2a9c1d    request   needs-prompt  8e1f...  make test (in /home/u/src)
 *     2  2026-12-03T07:14:05Z  uid 1000 pid 4242   decision  approve       8e1f...  -
 *     3  2026-12-03T07:14:06Z  coordinator         result    exit 0        8e1f...  1.2 s, 128 B of output
 *
 * (EVENT is 13 wide, REQUEST the whole 32 hex digits; shortened here.)
 *
 * The request ID is the whole one the prompt shows. Everything the agent
 * could have written (commands, reasons) has its control and invisible
 * characters made visible: the trail is printed on the host's terminal.
 */
#ifndef LZ_AUDIT_LINE_H
#define LZ_AUDIT_LINE_H

#include <stdint.h>

/* The header line, with its newline. Caller frees. */
char *audit_line_header(void);

/* One event as a line (with its newline); detail is the row's stored JSON
 * (NULL or unparsable: what is shown raw, made visible). Caller frees. */
char *audit_line_format(int64_t seq, int64_t ts_ms, const char *kind, const char *actor,
    const char *request_id, const char *detail);

#endif
