/* wb-audit.h - the Audit list in words, its detail view and the tab's
 * timeline (wb-audit.c). */
#ifndef LZ_WB_AUDIT_H
#define LZ_WB_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/audit-words.h"

struct wb;
struct wb_conn;

/* One row of the active domain's audit trail. */
struct wb_audit_row {
	long long seq;
	int64_t ts_ms;
	char *kind, *actor, *session_id, *request_id;
	char *detail;		/* the stored JSON */
	char *hash, *prev_hash;	/* hex */
	struct audit_words words;
};

#define WB_AUDIT_ACTOR_COLS	50	/* a narrower panel leaves the actor out */

/* Ask the active tab's coordinator for its trail (the Audit list). */
void wb_audit_request(struct wb *wb);
/* Once a second: ask again when new rows are known to be there (a new
 * egress destination, an agent commit imported). */
void wb_audit_tick(struct wb *wb);
/* ESC_AUDIT from conn: the trail as JSON lines (the list), or the verify
 * verdict (the detail view's last lines). */
void wb_audit_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len);
/* The rows as the Audit list, for the panel's width now (after a
 * relayout too). */
void wb_audit_show(struct wb *wb);
/* The focused Audit list's Enter: the selected row's detail view; false:
 * not ours. */
bool wb_audit_side_key(struct wb *wb, int key);
/* The detail view of row seq (again: the verify answer came). */
void wb_audit_open_seq(struct wb *wb, long long seq);
/* Prefix t: the active tab's timeline. */
void wb_audit_timeline(struct wb *wb);
void wb_audit_free(struct wb *wb);

/* "07:14 decision you     denied curl evil.example" (actor false: without
 * "you"). Caller frees. */
char *wb_audit_columns(int64_t ts_ms, const struct audit_words *w, bool actor);
/* The detail view's text for r (verify: the trail's verdict, NULL while
 * asked). lz_strv_free. */
char **wb_audit_detail_lines(const struct wb_audit_row *r, const char *verify);
/* The timeline of session (the workbench's id) in rows[0..n): the rows
 * from its session.start on that say what the agent did. lz_strv_free. */
char **wb_audit_timeline_lines(const struct wb_audit_row *rows, size_t n, uint32_t session);

#endif
