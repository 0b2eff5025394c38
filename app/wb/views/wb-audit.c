/* wb-audit.c - the side panel's Audit list and what opens from it.
 *
 * The active tab's coordinator sends its audit trail as JSON lines (the
 * frame `lazaret audit --json` reads); each row is kept (kind, actor, ids,
 * detail, hashes) and shown as columns in words (audit-words.h):
 *   07:14 decision you     denied curl evil.example
 * Enter on a row opens it whole: the summary, who and when, the chain
 * hashes, the trail's verification (asked for then: ESC_CTL_AUDIT_VERIFY)
 * and the detail pretty-printed. Prefix t opens the tab's timeline: the
 * rows of its session (from its session.start on) that say what the agent
 * did: escalations, network decisions, imported commits, reviews, limits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "esc-ctl.h"
#include "store/audit-words.h"
#include "strv.h"
#include "surface-json.h"
#include "wb.h"
#include "wb-audit.h"
#include "xmalloc.h"

/* A canonical JSON string value decoded (through surface_json_strings); NULL
 * when missing or not a string. */
static char *
wb_audit_str(const struct surface_json *j, const char *key)
{
	const char *v = surface_json_get(j, key, NULL);
	_cleanup_free_ char *arr = NULL;
	char **sv = NULL, *s = NULL;
	lz_err_t err = LZ_ERR_INIT;

	if (v == NULL || v[0] != '"')
		return NULL;
	arr = xasprintf("[%s]", v);
	if (surface_json_strings(arr, &sv, &err) < 0) {
		lz_err_clear(&err);
		return NULL;
	}
	if (sv[0] != NULL)
		s = xstrdup(sv[0]);
	lz_strv_free(sv);
	return s;
}

static void
wb_audit_row_clear(struct wb_audit_row *r)
{
	free(r->kind);
	free(r->actor);
	free(r->session_id);
	free(r->request_id);
	free(r->detail);
	free(r->hash);
	free(r->prev_hash);
	audit_words_clear(&r->words);
}

static void
wb_audit_rows_clear(struct wb *wb)
{
	for (size_t i = 0; i < wb->n_audit; i++)
		wb_audit_row_clear(&wb->audit[i]);
	free(wb->audit);
	wb->audit = NULL;
	wb->n_audit = 0;
}

/* One JSON line of the trail into r; false when it is not one. */
static bool
wb_audit_parse(const char *line, struct wb_audit_row *r)
{
	struct surface_json j = { NULL, 0 };
	lz_err_t err = LZ_ERR_INIT;
	const char *v;

	memset(r, 0, sizeof *r);
	if (surface_json_parse((const uint8_t *)line, strlen(line), &j, &err) < 0) {
		lz_err_clear(&err);
		return false;
	}
	r->seq = (v = surface_json_get(&j, "seq", NULL)) != NULL ? strtoll(v, NULL, 10) : 0;
	r->ts_ms = (v = surface_json_get(&j, "ts", NULL)) != NULL ? strtoll(v, NULL, 10) : 0;
	r->kind = wb_audit_str(&j, "kind");
	r->actor = wb_audit_str(&j, "actor");
	r->session_id = wb_audit_str(&j, "session_id");
	r->request_id = wb_audit_str(&j, "request_id");
	r->hash = wb_audit_str(&j, "hash");
	r->prev_hash = wb_audit_str(&j, "prev_hash");
	v = surface_json_get(&j, "detail", NULL);
	r->detail = xstrdup(v != NULL ? v : "{}");
	surface_json_clear(&j);
	return r->kind != NULL;
}

char *
wb_audit_columns(int64_t ts_ms, const struct audit_words *w, bool actor)
{
	time_t t = (time_t)(ts_ms / 1000);
	char ts[16] = "--:--";
	struct tm tm;

	/* minutes are enough in a list; the detail view has the seconds */
	if (localtime_r(&t, &tm) != NULL)
		strftime(ts, sizeof ts, "%H:%M", &tm);
	if (!actor)
		return xasprintf("%s %-8.8s %s", ts, w->kind, w->summary);
	return xasprintf("%s %-8.8s %-7.7s %s", ts, w->kind, w->actor, w->summary);
}

/* The verification's answer ("audit trail intact (N rows)\n..."). */
static void
wb_audit_verified(struct wb *wb, const char *text, uint32_t code)
{
	free(wb->audit_verify);
	wb->audit_verify = xasprintf("%s%s", code != 0 ? "BROKEN: " : "", text);
	if (wb->audit_verify[0] != '\0' && wb->audit_verify[strlen(wb->audit_verify) - 1] == '\n')
		wb->audit_verify[strlen(wb->audit_verify) - 1] = '\0';
	if (wb->audit_view != NULL && wb->audit_view == wb->help)
		wb_audit_open_seq(wb, wb->audit_view_seq);
}

void
wb_audit_show(struct wb *wb)
{
	/* the newest SIDELIST_LOG_MAX in the list; a narrow panel (80x24)
	 * leaves the actor out, the summary needs the room */
	size_t n = wb->n_audit, i = n > SIDELIST_LOG_MAX ? n - SIDELIST_LOG_MAX : 0;
	struct sidelist_item *items = xcalloc(n - i + 1, sizeof *items);
	char **texts = xcalloc(2 * (n - i) + 1, sizeof *texts), ids[32];
	bool actor = wb->lay.panel.w == 0 || wb->lay.panel.w >= WB_AUDIT_ACTOR_COLS;

	for (size_t k = 0; i + k < n; k++) {
		const struct wb_audit_row *r = &wb->audit[i + k];

		snprintf(ids, sizeof ids, "%lld", (long long)r->seq);
		texts[2 * k] = xstrdup(ids);
		texts[2 * k + 1] = wb_audit_columns(r->ts_ms, &r->words, actor);
		items[k] = (struct sidelist_item){ texts[2 * k], texts[2 * k + 1],
		    r->words.tone == AUDIT_WORDS_BAD };
	}
	if (n > 0 || wb->n_audit_shown > 0) {
		sidelist_set(wb->side, SIDELIST_AUDIT, items, n - i);
		if (n > i && wb->n_audit_shown != n)
			sidelist_select(wb->side, SIDELIST_AUDIT, n - i - 1);
	}
	wb->n_audit_shown = n;
	lz_strv_free(texts);
	free(items);
	wb->dirty = true;
}

void
wb_audit_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	struct audit_words_ctx *ctx;
	lz_err_t err = LZ_ERR_INIT;
	char *text = NULL, *line, *next;
	size_t n = 0, cap = 0;
	uint32_t code;

	if (esc_ctl_decode_audit(p, len, &code, &text, &err) < 0) {
		lz_err_clear(&err);
		return;
	}
	if (tab == NULL || tab->conn != conn)
		goto out;
	if (strncmp(text, "audit trail", 11) == 0) {	/* the --verify answer */
		wb_audit_verified(wb, text, code);
		goto out;
	}
	if (code != 0)
		goto out;
	wb_audit_rows_clear(wb);
	ctx = audit_words_ctx_new();
	for (line = text; line != NULL && *line != '\0'; line = next) {
		struct wb_audit_row r;

		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (!wb_audit_parse(line, &r))
			continue;
		audit_words_render(ctx, r.kind, r.actor, r.request_id, r.detail, &r.words);
		if (n == cap) {
			cap = cap == 0 ? 64 : 2 * cap;
			wb->audit = xreallocarray(wb->audit, cap, sizeof *wb->audit);
		}
		wb->audit[n++] = r;
	}
	audit_words_ctx_free(ctx);
	wb->n_audit = n;
	wb_audit_show(wb);
out:
	free(text);
}

static void
wb_audit_send(struct wb *wb, uint8_t flags)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	struct proto_buf b = { 0 };

	if (tab == NULL || tab->conn == NULL || wb_conn_state(tab->conn) != WB_CONN_READY)
		return;
	esc_ctl_encode_audit_req(&b, flags);
	wb_conn_send(tab->conn, &b);
}

void
wb_audit_request(struct wb *wb)
{
	wb->audit_stale = false;
	wb_audit_send(wb, ESC_CTL_AUDIT_JSON);
}

void
wb_audit_tick(struct wb *wb)
{
	if (wb->audit_stale)
		wb_audit_request(wb);
}

/* Ask the active tab's coordinator to verify the trail (the detail view's
 * last lines). */
static void
wb_audit_verify_request(struct wb *wb)
{
	wb_audit_send(wb, ESC_CTL_AUDIT_VERIFY);
}

static const struct wb_audit_row *
wb_audit_find(const struct wb *wb, long long seq)
{
	for (size_t i = 0; i < wb->n_audit; i++)
		if (wb->audit[i].seq == seq)
			return &wb->audit[i];
	return NULL;
}

/* The detail view's lines for row r. Caller frees (lz_strv_free). */
char **
wb_audit_detail_lines(const struct wb_audit_row *r, const char *verify)
{
	char **lines = NULL, ts[32] = "?", *pretty, *l, *nl;
	time_t t = (time_t)(r->ts_ms / 1000);
	struct tm tm;

	if (localtime_r(&t, &tm) != NULL)
		strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S %Z", &tm);
	lz_strv_pushf(&lines, "%s", r->words.summary);
	lz_strv_pushf(&lines, "%s", "");
	lz_strv_pushf(&lines, "row       %lld", (long long)r->seq);
	lz_strv_pushf(&lines, "time      %s", ts);
	lz_strv_pushf(&lines, "kind      %s (%s)", r->kind, r->words.kind);
	lz_strv_pushf(&lines, "actor     %s", r->actor != NULL ? r->actor : "-");
	lz_strv_pushf(&lines, "session   %s", r->session_id != NULL && *r->session_id ? r->session_id : "-");
	lz_strv_pushf(&lines, "request   %s", r->request_id != NULL && *r->request_id ? r->request_id : "-");
	lz_strv_pushf(&lines, "hash      %s", r->hash != NULL ? r->hash : "-");
	lz_strv_pushf(&lines, "previous  %s", r->prev_hash != NULL ? r->prev_hash : "-");
	if (verify == NULL)
		lz_strv_pushf(&lines, "%s", "verify    checking the chain...");
	else
		for (l = (char *)verify, nl = NULL; l != NULL && *l != '\0'; l = nl) {
			size_t n = strcspn(l, "\n");

			lz_strv_pushf(&lines, "%s%.*s", l == verify ? "verify    " : "          ", (int)n, l);
			nl = l[n] != '\0' ? l + n + 1 : NULL;
		}
	lz_strv_pushf(&lines, "%s", "");
	lz_strv_pushf(&lines, "%s", "detail:");
	pretty = audit_words_pretty(r->detail);
	for (l = pretty; l != NULL && *l != '\0'; l = nl) {
		size_t n = strcspn(l, "\n");

		lz_strv_pushf(&lines, "%.*s", (int)n, l);
		nl = l[n] != '\0' ? l + n + 1 : NULL;
	}
	free(pretty);
	return lines;
}

void
wb_audit_open_seq(struct wb *wb, long long seq)
{
	const struct wb_audit_row *r = wb_audit_find(wb, seq);
	char **lines, *title;
	int scroll = 0;

	if (r == NULL)
		return;
	lines = wb_audit_detail_lines(r, wb->audit_verify);
	title = xasprintf("Audit row %lld", seq);
	if (wb->audit_view != NULL && wb->audit_view == wb->help)
		scroll = textview_scroll(wb->help);
	textview_free(wb->help);
	wb->help = textview_new(title, lines, LINES, COLS);
	textview_searchable(wb->help);
	for (int i = 0; i < scroll; i++)
		textview_handle_key(wb->help, 'j');
	wb->audit_view = wb->help;
	wb->audit_view_seq = seq;
	free(title);
	lz_strv_free(lines);
	wb->dirty = true;
}

bool
wb_audit_side_key(struct wb *wb, int key)
{
	const char *id;

	if (!widget_key_is_enter(key) || sidelist_current(wb->side) != SIDELIST_AUDIT ||
	    (id = sidelist_selected_id(wb->side, SIDELIST_AUDIT)) == NULL)
		return false;
	free(wb->audit_verify);
	wb->audit_verify = NULL;
	wb_audit_verify_request(wb);
	wb_audit_open_seq(wb, strtoll(id, NULL, 10));
	return true;
}

/* A row the timeline shows: what the agent did and what was decided. */
static bool
wb_audit_in_timeline(const char *kind)
{
	return strncmp(kind, "esc.", 4) == 0 || strncmp(kind, "limit.", 6) == 0 ||
	    strncmp(kind, "review.", 7) == 0 || strcmp(kind, "sentry.import") == 0 ||
	    strcmp(kind, "session.start") == 0 || strcmp(kind, "session.end") == 0 ||
	    strcmp(kind, "net.first-block") == 0 || strcmp(kind, "net.first-allow") == 0 ||
	    strcmp(kind, "net.request") == 0 || strcmp(kind, "net.decision") == 0 ||
	    strcmp(kind, "net.grant.add") == 0;
}

char **
wb_audit_timeline_lines(const struct wb_audit_row *rows, size_t n, uint32_t session)
{
	char **lines = NULL, want[32];
	size_t from = 0, shown = 0;

	/* From this session's start on (its id is in session.start's detail). */
	snprintf(want, sizeof want, "\"id\":%u,", session);
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].kind, "session.start") == 0 && strstr(rows[i].detail, want) != NULL)
			from = i;
	for (size_t i = from; i < n; i++) {
		if (!wb_audit_in_timeline(rows[i].kind))
			continue;
		char *l = wb_audit_columns(rows[i].ts_ms, &rows[i].words, true);

		lz_strv_push(&lines, l);
		free(l);
		shown++;
	}
	if (shown == 0)
		lz_strv_pushf(&lines, "%s", "nothing yet: no request, no network decision, no commit");
	return lines;
}

void
wb_audit_timeline(struct wb *wb)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	char **lines, *title;

	if (tab == NULL)
		return;
	lines = wb_audit_timeline_lines(wb->audit, wb->n_audit, tab->id);
	title = xasprintf("Timeline of %s:%s, session %u", tab->profile, wb_tabs_base(tab->workspace),
	    tab->id);
	textview_free(wb->help);
	wb->help = textview_new(title, lines, LINES, COLS);
	textview_searchable(wb->help);
	/* the newest at the bottom, in view */
	textview_handle_key(wb->help, WIDGET_KEY_FN(KEY_END));
	wb->audit_view = NULL;
	free(title);
	lz_strv_free(lines);
	wb->dirty = true;
}

void
wb_audit_free(struct wb *wb)
{
	wb_audit_rows_clear(wb);
	free(wb->audit_verify);
	wb->audit_verify = NULL;
}
