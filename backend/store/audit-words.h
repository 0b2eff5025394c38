/* audit-words.h - an audit row as a person reads it in a list: a short
 * kind, who acted, and one line in words instead of the stored JSON
 *
 *   07:14:02  request   agent    asked to run make test (needs your approval)
 *   07:14:05  decision  you      approved make test
 *   07:14:06  result    lazaret  ran make test (approved): exit 0 in 1.2 s
 *   07:15:10  egress    lazaret  blocked evil.example (203.0.113.9:443/6)
 *   07:20:31  review    you      merged 3 commits into main
 *
 * The workbench's Audit list and timeline draw these; `lazaret audit
 * --words` prints them. A decision or a result names the command of its
 * request: a context remembers the commands of the rows read so far by
 * request id (the last AUDIT_WORDS_REMEMBER of them). Everything the agent
 * could have written (commands, names, reasons) has its control and
 * invisible characters made visible: the text reaches the host's terminal.
 */
#ifndef LZ_AUDIT_WORDS_H
#define LZ_AUDIT_WORDS_H

#include <stdbool.h>
#include <stdint.h>

#define AUDIT_WORDS_REMEMBER	64

enum audit_words_tone {
	AUDIT_WORDS_INFO,
	AUDIT_WORDS_GOOD,	/* allowed, approved, ran with exit 0, merged */
	AUDIT_WORDS_BAD,	/* denied, refused, blocked, failed, a limit hit */
};

struct audit_words {
	char *kind;		/* "request", "decision", "egress"...: at most 8 columns */
	char *actor;		/* "agent", "you", "policy", "lazaret", "network" */
	char *summary;		/* one line in words */
	enum audit_words_tone tone;
};

struct audit_words_ctx;

struct audit_words_ctx *audit_words_ctx_new(void);
void audit_words_ctx_free(struct audit_words_ctx *);

/* Render one row (detail: its stored JSON; NULL or unparsable: shown as
 * stored, made visible) into out; clear it with audit_words_clear. A row
 * with a request id teaches ctx (may be NULL) its command. */
void audit_words_render(struct audit_words_ctx *ctx, const char *kind, const char *actor,
    const char *request_id, const char *detail, struct audit_words *out);
void audit_words_clear(struct audit_words *);

/* JSON text indented two spaces a level, one member a line (strings kept
 * as written, escapes and all). Caller frees. */
char *audit_words_pretty(const char *json);

#endif
