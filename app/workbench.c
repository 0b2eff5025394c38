/* workbench.c - lazaret-workbench: the ncurses cockpit (issue 5).
 *
 * Theory of operation. One libuv loop. Each tab is a session on its
 * domain's Session Coordinator; tabs of one domain share one connection
 * (wb-conn.c, started through the same hold-to-bind client code as `lazaret
 * run`). Workbench sessions are created with PROTO_SESSION_KEEP, so they
 * outlive the workbench: prefix d (detach) only records the open tabs in
 * the state file (wb-state.c) and exits; `lazaret-workbench attach` sends
 * ATTACH for each, gets the coordinator's current screen as a SNAPSHOT
 * (backend/coord/screen.c) and then the live stream.
 *
 * Bytes from a session are fed into its tab's term (vterm/term.h); the
 * screen is drawn once per loop turn from a uv_prepare_t, only the dirty
 * rows of the shown tab (term-draw.c), the tab bar, status line and side
 * panel when something changed. Keys are read with wget_wch on a uv_poll_t
 * of stdin, folded (ESC+key is Alt+key), run through the prefix table
 * (wb-keys.c), and otherwise encoded for the PTY with libvterm's keyboard
 * encoder (wb-tab.c), which follows the application's cursor-key mode.
 * SIGWINCH is a uv_signal_t (installed before initscr, so ncurses keeps out
 * of it): resize_term, relayout, and a RESIZE frame for every tab.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>
#include <panel.h>
#include <uv.h>

#include "anchor.h"
#include "cli.h"
#include "effcfg.h"
#include "client.h"
#include "config.h"
#include "esc-ctl.h"
#include "newtab.h"
#include "prompt.h"
#include "editform.h"
#include "proto.h"
#include "sidelist.h"
#include "statusline.h"
#include "strv.h"
#include "tabbar.h"
#include "term-draw.h"
#include "term-snap.h"
#include "term.h"
#include "textview.h"
#include "theme.h"
#include "wb-conn.h"
#include "wb-keys.h"
#include "wb-layout.h"
#include "wb-state.h"
#include "wb-tab.h"
#include "widget.h"
#include "xmalloc.h"

#define WB_USAGE "lazaret-workbench [attach] [-p PROFILE] [-w DIR] [-m MODE] [--prefix KEY] [--theme NAME|FILE]"
#define WB_TERM_NAME	"xterm-256color"	/* what libvterm answers to */
#define WB_MAX_KEYS	512			/* keys handled per read burst */
#define WB_RETRIES	3			/* coordinator tearing down as we came */
#define WB_FLUSH_MS	1000			/* at exit: wait for writes to go out */
#define WB_EGRESS_NOTE	"egress sidecar not running: network none"

/* A waiting escalation. */
struct wb_esc {
	struct wb_conn *conn;
	uint32_t session, ticket;
	char key[24];		/* sidelist id */
	struct esc_ctl_prompt p;
};

struct wb {
	uv_loop_t *loop;
	struct cfg *cfg;
	struct wb_keys *keys;
	struct theme *theme;
	char *theme_warning;
	struct term_draw *draw;
	unsigned draw_gen;
	struct widget_palette pal;
	struct tabbar *tabbar;
	struct sidelist *side;
	struct statusline *status;
	struct newtab *newtab;
	struct textview *help;
	struct prompt *prompt;
	struct editform *edit;
	struct wb_esc *prompt_esc;	/* what prompt/edit decide on */
	WINDOW *termwin, *sidewin;
	PANEL *termpanel, *sidepanel;
	struct wb_layout lay;
	bool panel_shown;
	struct wb_tab **tabs;
	size_t n_tabs, active;
	struct wb_conn **conns;
	size_t n_conns;
	struct wb_esc **escs;
	size_t n_escs;
	uint32_t n_tickets_seen;
	uv_poll_t in;
	uv_signal_t sig_winch, sig_term, sig_hup;
	uv_prepare_t prep;
	uv_timer_t tick;
	bool redraw_all, dirty;
	char *state_path;
	char *cwd;
	const char *mode;
	/* Without `attach`, a restore that leaves no live tab falls back to one
	 * new tab for these (cleared once any tab runs). */
	bool fallback;
	const char *def_profile, *def_workspace;
	bool quit, detached, started;
};

static void wb_send_request(struct wb *, struct wb_tab *);
static void wb_relayout(struct wb *);
static void wb_save(struct wb *);

static void __attribute__((format(printf, 2, 3)))
wb_message(struct wb *wb, const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	if (wb->started)
		statusline_message(wb->status, m, time(NULL) + 5);
	else
		fprintf(stderr, "lazaret-workbench: %s\n", m);
	wb->dirty = true;
	free(m);
}

/* The log shown as "audit history": what this workbench saw happen. */
static void __attribute__((format(printf, 3, 4)))
wb_log(struct wb *wb, bool alert, const char *fmt, ...)
{
	struct sidelist_item it = { NULL, NULL, alert };
	char ts[16], *m, *line;
	struct tm tm;
	time_t now = time(NULL);
	va_list ap;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	strftime(ts, sizeof ts, "%H:%M:%S", localtime_r(&now, &tm));
	line = xasprintf("%s %s", ts, m);
	it.text = line;
	sidelist_append(wb->side, SIDELIST_AUDIT, &it);
	free(line);
	free(m);
	wb->dirty = true;
}

/* Last component of a path, for short labels. */
static const char *
wb_base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b != NULL && b[1] != '\0' ? b + 1 : path;
}

static struct wb_tab *
wb_active(struct wb *wb)
{
	return wb->n_tabs > 0 ? wb->tabs[wb->active] : NULL;
}

static struct wb_tab *
wb_find_tab(struct wb *wb, struct wb_conn *conn, uint32_t id)
{
	size_t i;

	for (i = 0; i < wb->n_tabs; i++)
		if (wb->tabs[i]->conn == conn && wb->tabs[i]->id == id && id != 0)
			return wb->tabs[i];
	return NULL;
}

static bool
wb_tab_exists(struct wb *wb, struct wb_tab *tab)
{
	size_t i;

	for (i = 0; i < wb->n_tabs; i++)
		if (wb->tabs[i] == tab)
			return true;
	return false;
}

static void
wb_term_size(struct wb *wb, int *rows, int *cols)
{
	*rows = wb->lay.term.h > 0 ? wb->lay.term.h : 1;
	*cols = wb->lay.term.w >= TERM_MIN_COLS ? wb->lay.term.w : TERM_MIN_COLS;
}

/* Send what the tab's term queued for the PTY (keys, replies). */
static void
wb_flush_tab_output(struct wb_tab *tab)
{
	struct proto_buf b = { 0 };
	const char *out;
	size_t len, n;

	out = term_output(tab->t, &len);
	if (len == 0)
		return;
	if (tab->state == WB_TAB_RUNNING && tab->conn != NULL) {
		for (n = 0; n < len; n += PROTO_DATA_MAX)
			proto_encode_data(&b, tab->id, PROTO_STREAM_IN, out + n,
			    len - n > PROTO_DATA_MAX ? PROTO_DATA_MAX : len - n);
		wb_conn_send(tab->conn, &b);
	}
	term_output_consume(tab->t, len);
}

static void
wb_tab_fail(struct wb *wb, struct wb_tab *tab, const char *why)
{
	char *line;

	tab->state = WB_TAB_FAILED;
	free(tab->error);
	tab->error = xstrdup(why);
	line = xasprintf("\r\n\033[1;31mlazaret-workbench: %s\033[m\r\n"
	    "(prefix x closes this tab)\r\n", why);
	term_feed(tab->t, line, strlen(line));
	free(line);
	wb_log(wb, true, "%s:%s %s", tab->profile, wb_base(tab->workspace), why);
	wb->dirty = true;
}

/* Escalations. */

static void
wb_esc_free(struct wb_esc *e)
{
	if (e == NULL)
		return;
	esc_ctl_prompt_clear(&e->p);
	free(e);
}

static void
wb_escs_changed(struct wb *wb)
{
	struct sidelist_item *items = xcalloc(wb->n_escs + 1, sizeof *items);
	char **texts = xcalloc(wb->n_escs + 1, sizeof *texts);
	size_t i, k;

	for (i = 0; i < wb->n_tabs; i++)
		wb->tabs[i]->alerts = 0;
	for (i = 0; i < wb->n_escs; i++) {
		struct wb_esc *e = wb->escs[i];
		struct wb_tab *tab = wb_find_tab(wb, e->conn, e->session);

		if (tab != NULL)
			tab->alerts++;
		for (k = 0; tab != NULL && k < wb->n_tabs; k++)
			if (wb->tabs[k] == tab)
				break;
		texts[i] = tab != NULL ? xasprintf("tab %zu %s: %s", k, e->p.profile, e->p.command) :
		    xasprintf("%s: %s", e->p.profile, e->p.command);
		items[i].id = e->key;
		items[i].text = texts[i];
		items[i].alert = true;
	}
	sidelist_set(wb->side, SIDELIST_QUEUE, items, wb->n_escs);
	for (i = 0; i < wb->n_escs; i++)
		free(texts[i]);
	free(texts);
	free(items);
	wb->dirty = true;
}

static void
wb_esc_remove(struct wb *wb, struct wb_esc *e)
{
	size_t i;

	for (i = 0; i < wb->n_escs; i++)
		if (wb->escs[i] == e) {
			memmove(&wb->escs[i], &wb->escs[i + 1],
			    (wb->n_escs - i - 1) * sizeof *wb->escs);
			wb->n_escs--;
			break;
		}
	if (wb->prompt_esc == e) {
		prompt_free(wb->prompt);
		wb->prompt = NULL;
		editform_free(wb->edit);
		wb->edit = NULL;
		wb->prompt_esc = NULL;
		wb->redraw_all = true;
	}
	wb_esc_free(e);
	wb_escs_changed(wb);
}

static struct wb_esc *
wb_esc_by_key(struct wb *wb, const char *key)
{
	size_t i;

	for (i = 0; key != NULL && i < wb->n_escs; i++)
		if (strcmp(wb->escs[i]->key, key) == 0)
			return wb->escs[i];
	return NULL;
}

/* The request A/D/E act on: the queue's selection, else the active tab's. */
static struct wb_esc *
wb_esc_focused(struct wb *wb)
{
	struct wb_esc *e = wb_esc_by_key(wb, sidelist_selected_id(wb->side, SIDELIST_QUEUE));
	struct wb_tab *tab = wb_active(wb);
	size_t i;

	if (wb->prompt_esc != NULL)
		return wb->prompt_esc;
	if (e != NULL && sidelist_focused(wb->side))
		return e;
	for (i = 0; tab != NULL && i < wb->n_escs; i++)
		if (wb->escs[i]->conn == tab->conn && wb->escs[i]->session == tab->id)
			return wb->escs[i];
	return e;
}

/* Ask the active tab's coordinator for its audit trail (the panel's history). */
static void
wb_audit_request(struct wb *wb)
{
	struct wb_tab *tab = wb_active(wb);
	struct proto_buf b = { 0 };

	if (tab == NULL || tab->conn == NULL || wb_conn_state(tab->conn) != WB_CONN_READY)
		return;
	esc_ctl_encode_audit_req(&b, 0);
	wb_conn_send(tab->conn, &b);
}

/* The audit text ("seq ts kind actor {detail}" lines) as short panel lines. */
static void
wb_audit_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct sidelist_item *items = NULL;
	struct wb_tab *tab = wb_active(wb);
	lz_err_t err = LZ_ERR_INIT;
	char *text = NULL, *line, *next, **lines = NULL;
	size_t n = 0, i;
	uint32_t code;

	if (esc_ctl_decode_audit(p, len, &code, &text, &err) < 0) {
		lz_err_clear(&err);
		return;
	}
	if (tab == NULL || tab->conn != conn || code != 0)
		goto out;
	for (line = text; line != NULL && *line != '\0'; line = next) {
		char seq[16], ts[32], kind[32];
		const char *detail;

		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (sscanf(line, "%15s %31s %31s", seq, ts, kind) != 3 || strlen(ts) < 19)
			continue;
		detail = strchr(line, '{');
		lz_strv_pushf(&lines, "%.8s %s %s", ts + 11, kind + (strncmp(kind, "esc.", 4) == 0 ?
		    4 : 0), detail != NULL ? detail : "");
		n++;
	}
	items = xcalloc(n + 1, sizeof *items);
	for (i = 0; i < n; i++) {
		items[i].text = lines[i];
		items[i].alert = strstr(lines[i], "\"deny\"") != NULL ||
		    strstr(lines[i], "rejected") != NULL;
	}
	sidelist_set(wb->side, SIDELIST_AUDIT, items, n);
	if (n > 0)
		sidelist_select(wb->side, SIDELIST_AUDIT, n - 1);
	wb->dirty = true;
out:
	free(items);
	lz_strv_free(lines);
	free(text);
}

static void
wb_esc_decide(struct wb *wb, struct wb_esc *e, enum esc_ctl_action action, const char *command)
{
	struct esc_ctl_decision d = { e->ticket, action, (char *)(command != NULL ? command : "") };
	struct proto_buf b = { 0 };

	esc_ctl_encode_decision(&b, &d);
	wb_conn_send(e->conn, &b);
	wb_log(wb, action != ESC_CTL_APPROVE && action != ESC_CTL_EDIT, "%s %s: %s",
	    esc_ctl_action_name(action), e->p.request_id,
	    action == ESC_CTL_EDIT ? command : e->p.command);
	wb_message(wb, "request %.8s: %s", e->p.request_id, esc_ctl_action_name(action));
	wb_esc_remove(wb, e);
	wb_audit_request(wb);
}

static void
wb_esc_open_prompt(struct wb *wb, struct wb_esc *e)
{
	struct prompt_request r;

	prompt_free(wb->prompt);
	memset(&r, 0, sizeof r);
	r.request_id = e->p.request_id;
	r.profile = e->p.profile;
	r.justification = e->p.justification;
	r.cwd = e->p.cwd;
	r.note = e->p.reason[0] != '\0' ? e->p.reason : NULL;
	r.command = e->p.command;
	wb->prompt = prompt_new(&r, LINES, COLS);
	wb->prompt_esc = e;
	wb->dirty = true;
}

static void
wb_esc_edit(struct wb *wb, struct wb_esc *e)
{
	lz_err_t err = LZ_ERR_INIT;

	editform_free(wb->edit);
	wb->edit = NULL;
	if (editform_new("edit the command, Enter runs it", e->p.command, 4096, LINES, COLS,
	    &wb->edit, &err) < 0) {
		wb_message(wb, "cannot edit: %s", err.msg);
		lz_err_clear(&err);
		return;
	}
	wb->prompt_esc = e;
	wb->dirty = true;
}

static void
wb_esc_prompt_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct wb_esc *e = xcalloc(1, sizeof *e);
	lz_err_t err = LZ_ERR_INIT;

	if (esc_ctl_decode_prompt(p, len, &e->p, &err) < 0) {
		wb_message(wb, "bad escalation from the coordinator: %s", err.msg);
		lz_err_clear(&err);
		free(e);
		return;
	}
	e->conn = conn;
	e->session = e->p.session;
	e->ticket = e->p.ticket;
	snprintf(e->key, sizeof e->key, "%p", (void *)e);
	wb->escs = xreallocarray(wb->escs, wb->n_escs + 1, sizeof *wb->escs);
	wb->escs[wb->n_escs++] = e;
	wb_log(wb, true, "request %.8s waits: %s", e->p.request_id, e->p.command);
	wb_escs_changed(wb);
	wb_audit_request(wb);
	if (!wb->panel_shown) {
		wb->panel_shown = true;
		wb_relayout(wb);
	}
	beep();
}

static void
wb_esc_withdrawn(struct wb *wb, struct wb_conn *conn, uint32_t ticket)
{
	size_t i;

	for (i = 0; i < wb->n_escs; i++)
		if (wb->escs[i]->conn == conn && wb->escs[i]->ticket == ticket) {
			wb_log(wb, false, "request %.8s withdrawn", wb->escs[i]->p.request_id);
			wb_esc_remove(wb, wb->escs[i]);
			return;
		}
}

/* Tabs and connections. */

static void
wb_conn_drop(struct wb *wb, struct wb_conn *conn)
{
	size_t i;

	for (i = 0; i < wb->n_conns; i++)
		if (wb->conns[i] == conn) {
			memmove(&wb->conns[i], &wb->conns[i + 1],
			    (wb->n_conns - i - 1) * sizeof *wb->conns);
			wb->n_conns--;
			break;
		}
	for (i = 0; i < wb->n_escs;)
		if (wb->escs[i]->conn == conn)
			wb_esc_remove(wb, wb->escs[i]);
		else
			i++;
	wb_conn_close(conn);
}

static struct wb_tab *wb_add_tab(struct wb *, const char *, const char *, const char *,
    uint32_t, lz_err_t *);

static void
wb_remove_tab(struct wb *wb, struct wb_tab *tab)
{
	bool was_active;
	size_t i;

	for (i = 0; i < wb->n_tabs; i++)
		if (wb->tabs[i] == tab)
			break;
	if (i == wb->n_tabs)
		return;
	was_active = i == wb->active;
	memmove(&wb->tabs[i], &wb->tabs[i + 1], (wb->n_tabs - i - 1) * sizeof *wb->tabs);
	wb->n_tabs--;
	if (wb->active > i || wb->active >= wb->n_tabs)
		wb->active = wb->active > 0 ? wb->active - 1 : 0;
	if (tab->conn != NULL)
		wb_conn_forget(tab->conn, tab);
	wb_tab_free(tab);
	wb_escs_changed(wb);
	if (was_active) {
		/* The panel's history was the gone tab's domain's (after [Q]uit, its last). */
		sidelist_set(wb->side, SIDELIST_AUDIT, NULL, 0);
		wb_audit_request(wb);
	}
	wb->redraw_all = true;
	if (wb->n_tabs == 0 && !wb->detached && wb->fallback) {
		lz_err_t err = LZ_ERR_INIT;

		/* Every saved session was gone: start afresh, as with no saved tabs. */
		wb->fallback = false;
		if (wb_add_tab(wb, wb->def_profile, wb->def_workspace, wb->mode, 0, &err) == NULL) {
			wb_message(wb, "%s", err.msg);
			lz_err_clear(&err);
		}
	}
	if (wb->n_tabs == 0 && !wb->detached)
		wb->quit = true;
	wb_save(wb);
}

static void
wb_save(struct wb *wb)
{
	struct wb_state_tab *st;
	lz_err_t err = LZ_ERR_INIT;
	size_t i, n = 0;

	if (wb->state_path == NULL)
		return;
	st = xcalloc(wb->n_tabs + 1, sizeof *st);
	for (i = 0; i < wb->n_tabs; i++) {
		struct wb_tab *tab = wb->tabs[i];

		if (tab->state != WB_TAB_RUNNING || tab->id == 0)
			continue;
		st[n].id = tab->id;
		st[n].mode = tab->mode;
		st[n].profile = tab->profile;
		st[n].workspace = tab->workspace;
		n++;
	}
	if (wb_state_write(wb->state_path, st, n, &err) < 0) {
		wb_message(wb, "%s", err.msg);
		lz_err_clear(&err);
	}
	free(st);
}

static void wb_conn_state_cb(struct wb_conn *, void *);
static void wb_conn_frame_cb(struct wb_conn *, const struct proto_header *, const uint8_t *,
    void *);

/* The live connection to the domain of (profile, workspace), made on first use. */
static struct wb_conn *
wb_conn_for(struct wb *wb, const struct anchor *a, const char *mode, const char *config)
{
	static const struct wb_conn_cbs cbs = { wb_conn_state_cb, wb_conn_frame_cb };
	struct wb_conn *conn;
	size_t i;

	for (i = 0; i < wb->n_conns; i++) {
		enum wb_conn_state s = wb_conn_state(wb->conns[i]);

		if (strcmp(wb_conn_anchor(wb->conns[i])->hash, a->hash) == 0 &&
		    (s == WB_CONN_CONNECTING || s == WB_CONN_READY))
			return wb->conns[i];
	}
	conn = wb_conn_new(wb->loop, a, mode, config, &cbs, wb);
	wb->conns = xreallocarray(wb->conns, wb->n_conns + 1, sizeof *wb->conns);
	wb->conns[wb->n_conns++] = conn;
	return conn;
}

/* Put tab on its domain's connection and ask for its session. */
static int
wb_tab_connect(struct wb *wb, struct wb_tab *tab, lz_err_t *err)
{
	struct anchor *a = NULL;
	struct cfg_resolved *res = NULL;
	char *config;

	const struct cfg_profile *p;

	if (cli_domain(wb->cfg, tab->profile, tab->workspace, &a, NULL, err) < 0)
		return -1;
	free(tab->workspace);
	tab->workspace = xstrdup(a->workspace);
	/* Resolved here, not by cli_domain: its warnings would print over the screen. */
	config = (p = cfg_profile_find(wb->cfg, a->profile, NULL)) != NULL &&
	    cfg_profile_resolve(wb->cfg, p, a->workspace, a->hash, &res, NULL) == 0 ?
	    effcfg_build(res, NULL, tab->mode) : NULL;
	tab->conn = wb_conn_for(wb, a, tab->mode, config);
	free(config);
	cfg_resolved_free(res);
	anchor_free(a);
	tab->state = WB_TAB_STARTING;
	switch (wb_conn_state(tab->conn)) {
	case WB_CONN_READY:
		wb_send_request(wb, tab);
		break;
	case WB_CONN_FAILED:
		wb_tab_fail(wb, tab, wb_conn_error(tab->conn));
		break;
	case WB_CONN_CONNECTING:
	case WB_CONN_CLOSED:
		break;
	}
	return 0;
}

static struct wb_tab *
wb_add_tab(struct wb *wb, const char *profile, const char *workspace, const char *mode,
    uint32_t attach_id, lz_err_t *err)
{
	const struct cfg_profile *p;
	struct wb_tab *tab;
	int rows, cols;

	if ((p = cfg_profile_find(wb->cfg, profile, err)) == NULL)
		return NULL;
	wb_term_size(wb, &rows, &cols);
	if (wb_tab_new(p->name, workspace != NULL ? workspace : wb->cwd, mode, rows, cols, &tab,
	    err) < 0)
		return NULL;
	tab->id = attach_id;
	tab->attach = attach_id != 0;
	if (wb_tab_connect(wb, tab, err) < 0) {
		wb_tab_free(tab);
		return NULL;
	}
	wb->tabs = xreallocarray(wb->tabs, wb->n_tabs + 1, sizeof *wb->tabs);
	wb->tabs[wb->n_tabs++] = tab;
	wb->redraw_all = true;
	return tab;
}

static void
wb_send_request(struct wb *wb, struct wb_tab *tab)
{
	struct proto_new_session ns;
	struct proto_buf b = { 0 };
	char *none[] = { NULL };
	lz_err_t err = LZ_ERR_INIT;
	int rows, cols;

	if (tab->attach) {
		proto_encode_attach(&b, tab->id);
	} else {
		term_size(tab->t, &rows, &cols);
		memset(&ns, 0, sizeof ns);
		ns.flags = PROTO_SESSION_TTY | PROTO_SESSION_KEEP |
		    (strcmp(tab->mode, "direct") == 0 ? PROTO_SESSION_DIRECT : 0);
		ns.rows = (uint16_t)rows;
		ns.cols = (uint16_t)cols;
		ns.term = (char *)WB_TERM_NAME;
		ns.argv = none;
		/* With a Session Anchor: its escalations come to this workbench. */
		if (client_anchor_new_session(&b, &ns, &err) < 0) {
			wb_tab_fail(wb, tab, err.msg);
			lz_err_clear(&err);
			return;
		}
	}
	wb_conn_expect(tab->conn, tab);
	wb_conn_send(tab->conn, &b);
}

static void
wb_send_resize(struct wb_tab *tab)
{
	struct proto_resize rz;
	struct proto_buf b = { 0 };
	int rows, cols;

	if (tab->state != WB_TAB_RUNNING)
		return;
	term_size(tab->t, &rows, &cols);
	rz.id = tab->id;
	rz.rows = (uint16_t)rows;
	rz.cols = (uint16_t)cols;
	proto_encode_resize(&b, &rz);
	wb_conn_send(tab->conn, &b);
}

/* A tab's term to the terminal rectangle's size (and its PTY). */
static void
wb_tab_fit(struct wb *wb, struct wb_tab *tab)
{
	lz_err_t err = LZ_ERR_INIT;
	int rows, cols, r, c;

	wb_term_size(wb, &rows, &cols);
	term_size(tab->t, &r, &c);
	if (r == rows && c == cols)
		return;
	if (term_resize(tab->t, rows, cols, &err) < 0) {
		wb_message(wb, "resize: %s", err.msg);
		lz_err_clear(&err);
		return;
	}
	wb_send_resize(tab);
}

static void
wb_conn_state_cb(struct wb_conn *conn, void *arg)
{
	struct wb *wb = arg;
	size_t i;

	/* A sandbox started from another configuration: say so once, on connect. */
	if (wb_conn_state(conn) == WB_CONN_READY && wb_conn_drift(conn) != NULL)
		wb_message(wb, "domain %s runs another configuration (%s): lazaret stop and "
		    "reopen, or lazaret run --replace, to apply yours", wb_conn_anchor(conn)->hash,
		    wb_conn_drift(conn));
	for (i = 0; i < wb->n_tabs; i++) {
		struct wb_tab *tab = wb->tabs[i];

		if (tab->conn != conn)
			continue;
		if (wb_conn_state(conn) == WB_CONN_READY && tab->state == WB_TAB_STARTING)
			wb_send_request(wb, tab);
		else if (wb_conn_state(conn) == WB_CONN_FAILED &&
		    (tab->state == WB_TAB_STARTING || tab->state == WB_TAB_RUNNING))
			wb_tab_fail(wb, tab, wb_conn_error(conn));
	}
	wb->dirty = true;
}

static void
wb_snapshot(struct wb *wb, struct wb_tab *tab, const uint8_t *p, size_t len)
{
	struct term_snap *snap = NULL;
	struct term *t = NULL;
	lz_err_t err = LZ_ERR_INIT;
	char *ansi;
	size_t n;

	if (term_snap_decode(p, len, &snap, &err) < 0 ||
	    term_new(snap->rows, snap->cols, TERM_SB_DEFAULT, &t, &err) < 0) {
		wb_message(wb, "tab %s: screen snapshot: %s", tab->profile, err.msg);
		lz_err_clear(&err);
		term_snap_free(snap);
		return;
	}
	/* Replay at the coordinator's size, then fit ours (libvterm reflows none). */
	ansi = term_snap_to_ansi(snap, &n);
	term_feed(t, ansi, n);
	free(ansi);
	term_snap_free(snap);
	n = 0;
	(void)term_output(t, &n);
	term_output_consume(t, n);
	term_free(tab->t);
	tab->t = t;
	wb_tab_fit(wb, tab);
	term_dirty_all(t);
	wb->dirty = true;
}

static void
wb_session_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct wb_tab *tab = wb_conn_answered(conn);
	struct proto_session s;
	lz_err_t err = LZ_ERR_INIT;

	if (proto_decode_session(p, len, &s, &err) < 0) {
		wb_message(wb, "bad SESSION: %s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if (tab == NULL || !wb_tab_exists(wb, tab)) {
		/* The tab was closed before the answer came: end the session. */
		struct proto_buf b = { 0 };

		proto_encode_kill(&b, s.id);
		wb_conn_send(conn, &b);
		return;
	}
	tab->id = s.id;
	tab->state = WB_TAB_RUNNING;
	wb->fallback = false;
	wb_log(wb, false, "session %u %s %s:%s", s.id, tab->attach ? "attached" : "started",
	    tab->profile, wb_base(tab->workspace));
	if (tab->attach)
		wb_tab_fit(wb, tab);
	/* The size the coordinator has may not be ours (attach from elsewhere). */
	wb_send_resize(tab);
	wb_save(wb);
	if (tab == wb_active(wb))
		wb_audit_request(wb);
	wb->dirty = true;
}

static void
wb_error_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct proto_error e;
	struct wb_tab *tab;
	lz_err_t err = LZ_ERR_INIT;

	if (proto_decode_error(p, len, &e, &err) < 0) {
		wb_message(wb, "bad ERROR: %s", err.msg);
		lz_err_clear(&err);
		return;
	}
	/* Errors to a request come in order; others (DATA to a gone session) are news. */
	if (wb_conn_expecting(conn)) {
		tab = wb_conn_answered(conn);
		if (tab != NULL && wb_tab_exists(wb, tab)) {
			if (tab->attach && e.code == PROTO_E_NO_SESSION) {
				wb_message(wb, "%s:%s: session %u is gone", tab->profile,
				    wb_base(tab->workspace), tab->id);
				wb_remove_tab(wb, tab);
			} else if (e.code == PROTO_E_SHUTDOWN && tab->retries++ < WB_RETRIES) {
				/* It was tearing down as we came: start a new one. */
				tab->conn = NULL;
				wb_conn_drop(wb, conn);
				if (wb_tab_connect(wb, tab, &err) < 0) {
					wb_tab_fail(wb, tab, err.msg);
					lz_err_clear(&err);
				}
			} else
				wb_tab_fail(wb, tab, e.text);
		}
	} else
		wb_message(wb, "coordinator: %s", e.text);
	proto_error_clear(&e);
}

static void
wb_conn_frame_cb(struct wb_conn *conn, const struct proto_header *h, const uint8_t *p,
    void *arg)
{
	struct wb *wb = arg;
	struct proto_data d;
	struct proto_exit e;
	struct wb_tab *tab;
	lz_err_t err = LZ_ERR_INIT;
	const uint8_t *snap;
	size_t snap_len;
	uint32_t id;

	switch (h->type) {
	case PROTO_SESSION:
		wb_session_frame(wb, conn, p, h->length);
		break;
	case PROTO_SNAPSHOT:
		if (proto_decode_snapshot(p, h->length, &id, &snap, &snap_len, &err) == 0 &&
		    (tab = wb_find_tab(wb, conn, id)) != NULL)
			wb_snapshot(wb, tab, snap, snap_len);
		break;
	case PROTO_DATA:
		if (proto_decode_data(p, h->length, &d, &err) < 0 ||
		    (tab = wb_find_tab(wb, conn, d.id)) == NULL)
			break;
		term_feed(tab->t, (const char *)d.data, d.len);
		wb_flush_tab_output(tab);
		if (tab == wb_active(wb))
			wb->dirty = true;
		break;
	case PROTO_SESSION_EXIT:
		if (proto_decode_exit(p, h->length, &e, &err) < 0 ||
		    (tab = wb_find_tab(wb, conn, e.id)) == NULL)
			break;
		wb_log(wb, e.status != 0, "session %u exited %d %s:%s", e.id, e.status,
		    tab->profile, wb_base(tab->workspace));
		wb_message(wb, "%s: session exited with status %d", tab->profile, e.status);
		tab->state = WB_TAB_EXITED;
		tab->status = e.status;
		wb_remove_tab(wb, tab);
		break;
	case PROTO_ERROR:
		wb_error_frame(wb, conn, p, h->length);
		break;
	case ESC_CTL_PROMPT:
		wb_esc_prompt_frame(wb, conn, p, h->length);
		break;
	case ESC_CTL_WITHDRAWN:
		if (proto_decode_u32(p, h->length, &id, &err) == 0)
			wb_esc_withdrawn(wb, conn, id);
		wb_audit_request(wb);
		break;
	case ESC_CTL_AUDIT:
		wb_audit_frame(wb, conn, p, h->length);
		break;
	default:
		break;		/* OK and what newer coordinators send */
	}
	lz_err_clear(&err);
}

static void
wb_close_tab(struct wb *wb, struct wb_tab *tab)
{
	struct proto_buf b = { 0 };

	if (tab->state == WB_TAB_RUNNING) {
		proto_encode_kill(&b, tab->id);
		wb_conn_send(tab->conn, &b);
		wb_log(wb, false, "session %u closed %s:%s", tab->id, tab->profile,
		    wb_base(tab->workspace));
	}
	wb_remove_tab(wb, tab);
}

/* Screen. */

static void
wb_relayout(struct wb *wb)
{
	size_t i;

	wb_layout_compute(LINES, COLS, wb->panel_shown, &wb->lay);
	if (wb->lay.term.h > 0 && wb->lay.term.w > 0) {
		wresize(wb->termwin, wb->lay.term.h, wb->lay.term.w);
		move_panel(wb->termpanel, wb->lay.term.y, wb->lay.term.x);
	}
	if (wb->lay.panel.h > 0 && wb->lay.panel.w > 0) {
		wresize(wb->sidewin, wb->lay.panel.h, wb->lay.panel.w);
		move_panel(wb->sidepanel, wb->lay.panel.y, wb->lay.panel.x);
		show_panel(wb->sidepanel);
	} else
		hide_panel(wb->sidepanel);
	for (i = 0; i < wb->n_tabs; i++)
		wb_tab_fit(wb, wb->tabs[i]);
	if (wb->newtab != NULL)
		newtab_resize(wb->newtab, LINES, COLS);
	if (wb->help != NULL)
		textview_resize(wb->help, LINES, COLS);
	if (wb->prompt != NULL)
		prompt_resize(wb->prompt, LINES, COLS);
	if (wb->edit != NULL)
		editform_resize(wb->edit, LINES, COLS);
	wb->redraw_all = true;
}

static void
wb_draw_bars(struct wb *wb)
{
	struct tabbar_tab *tt = xcalloc(wb->n_tabs + 1, sizeof *tt);
	struct wb_tab *tab = wb_active(wb);
	char *state;
	size_t i;

	for (i = 0; i < wb->n_tabs; i++) {
		tt[i].profile = wb->tabs[i]->profile;
		tt[i].workspace = wb->tabs[i]->workspace;
		tt[i].state = wb_tab_state_name(wb->tabs[i]);
		tt[i].alert = wb->tabs[i]->alerts > 0;
	}
	tabbar_set(wb->tabbar, tt, wb->n_tabs, wb->active);
	free(tt);
	if (wb->lay.tabbar.w > 0)
		tabbar_draw(wb->tabbar, stdscr, wb->lay.tabbar.y, wb->lay.tabbar.x,
		    wb->lay.tabbar.w, &wb->pal);
	if (tab != NULL) {
		state = xasprintf("[%s:%s]%s%s%s", tab->profile, wb_base(tab->workspace),
		    wb_keys_pending(wb->keys) ? " PREFIX" : "",
		    tab->scrolling ? " SCROLL q:leave" : "",
		    wb->n_escs > 0 ? " ESCALATION" : "");
	} else
		state = xstrdup(wb_keys_pending(wb->keys) ? "[no tab] PREFIX" : "[no tab]");
	statusline_set_state(wb->status, state);
	free(state);
	if (wb->lay.status.w > 0)
		statusline_draw(wb->status, stdscr, wb->lay.status.y, wb->lay.status.x,
		    wb->lay.status.w, time(NULL), &wb->pal);
}

static void
wb_draw(struct wb *wb)
{
	struct wb_tab *tab = wb_active(wb);
	bool cursor_set = false;

	if (term_draw_generation(wb->draw) != wb->draw_gen) {
		wb->draw_gen = term_draw_generation(wb->draw);
		widget_palette_init(&wb->pal, wb->theme, wb->draw);
		wb->redraw_all = true;
	}
	if (wb->redraw_all) {
		werase(stdscr);
		werase(wb->termwin);
		if (tab != NULL)
			term_dirty_all(tab->t);
		touchwin(wb->termwin);
		touchwin(wb->sidewin);
		wb->dirty = true;
	}
	if (wb->lay.too_small) {
		werase(stdscr);
		mvwaddnstr(stdscr, 0, 0, "screen too small", COLS);
		hide_panel(wb->termpanel);
		hide_panel(wb->sidepanel);
	} else {
		if (wb->dirty)
			wb_draw_bars(wb);
		if (panel_hidden(wb->termpanel) && wb->lay.term.h > 0)
			show_panel(wb->termpanel);
		if (tab != NULL)
			term_draw(wb->draw, tab->t, wb->termwin);
		if (wb->lay.panel.w > 0 && (wb->dirty || wb->redraw_all))
			sidelist_draw(wb->side, wb->sidewin, 0, 0, wb->lay.panel.h, wb->lay.panel.w,
			    &wb->pal);
	}
	if (wb->help != NULL)
		textview_draw(wb->help, &wb->pal);
	if (wb->newtab != NULL)
		newtab_draw(wb->newtab, &wb->pal);
	if (wb->prompt != NULL)
		prompt_draw(wb->prompt, &wb->pal);
	if (wb->edit != NULL)
		editform_draw(wb->edit, &wb->pal);
	update_panels();
	if (wb->edit != NULL) {
		editform_cursor(wb->edit);
		cursor_set = true;
	} else if (wb->newtab != NULL && wb->help == NULL && wb->prompt == NULL) {
		newtab_cursor(wb->newtab);
		cursor_set = true;
	}
	if (!cursor_set) {
		if (tab != NULL && wb->help == NULL && wb->prompt == NULL &&
		    !sidelist_focused(wb->side) && !wb->lay.too_small &&
		    term_draw_cursor(tab->t, wb->termwin))
			wnoutrefresh(wb->termwin);	/* nothing touched: just the cursor */
		else
			curs_set(0);
	}
	doupdate();
	wb->redraw_all = false;
	wb->dirty = false;
}

static void
wb_prepare_cb(uv_prepare_t *h)
{
	struct wb *wb = h->data;
	struct wb_tab *tab = wb_active(wb);
	int s, e;

	if (wb->quit) {
		uv_stop(wb->loop);
		return;
	}
	if (wb->dirty || wb->redraw_all || (tab != NULL && term_dirty(tab->t, &s, &e)))
		wb_draw(wb);
}

static void
wb_tick_cb(uv_timer_t *t)
{
	struct wb *wb = t->data;

	wb->dirty = true;	/* status line messages expire */
}

/* Keys. */

static void
wb_new_tab_dialog(struct wb *wb)
{
	char **profiles = NULL;
	lz_err_t err = LZ_ERR_INIT;
	const struct cfg_profile *def;
	struct wb_tab *tab = wb_active(wb);
	size_t i;

	for (i = 0; i < wb->cfg->n_profiles; i++)
		lz_strv_push(&profiles, wb->cfg->profiles[i].name);
	def = cfg_profile_find(wb->cfg, NULL, &err);
	lz_err_clear(&err);
	if (newtab_new(profiles, tab != NULL ? tab->profile : def != NULL ? def->name : NULL,
	    tab != NULL ? tab->workspace : wb->cwd, LINES, COLS, &wb->newtab, &err) < 0) {
		wb_message(wb, "%s", err.msg);
		lz_err_clear(&err);
	}
	lz_strv_free(profiles);
	wb->dirty = true;
}

static void
wb_newtab_key(struct wb *wb, int key)
{
	lz_err_t err = LZ_ERR_INIT;
	char *ws;

	switch (newtab_handle_key(wb->newtab, key)) {
	case NEWTAB_ACCEPT:
		ws = newtab_workspace(wb->newtab);
		if (wb_add_tab(wb, newtab_profile(wb->newtab), ws[0] != '\0' ? ws : wb->cwd,
		    wb->mode, 0, &err) == NULL) {
			wb_message(wb, "%s", err.msg);
			lz_err_clear(&err);
		} else
			wb->active = wb->n_tabs - 1;
		free(ws);
		/* fall through */
	case NEWTAB_CANCEL:
		newtab_free(wb->newtab);
		wb->newtab = NULL;
		wb->redraw_all = true;
		break;
	case NEWTAB_NONE:
		break;
	}
	wb->dirty = true;
}

static void
wb_prompt_key(struct wb *wb, int key)
{
	struct wb_esc *e = wb->prompt_esc;

	switch (prompt_handle_key(wb->prompt, key)) {
	case PROMPT_APPROVE:
		wb_esc_decide(wb, e, ESC_CTL_APPROVE, NULL);
		break;
	case PROMPT_DENY:
		wb_esc_decide(wb, e, ESC_CTL_DENY, NULL);
		break;
	case PROMPT_QUIT:
		wb_esc_decide(wb, e, ESC_CTL_QUIT, NULL);
		break;
	case PROMPT_EDIT:
		prompt_free(wb->prompt);
		wb->prompt = NULL;
		wb_esc_edit(wb, e);
		break;
	case PROMPT_NONE:
		if (key == WIDGET_KEY_ESC) {
			prompt_free(wb->prompt);
			wb->prompt = NULL;
			wb->prompt_esc = NULL;
		}
		break;
	}
	wb->redraw_all = true;
}

static void
wb_edit_key(struct wb *wb, int key)
{
	char *cmd;

	switch (editform_handle_key(wb->edit, key)) {
	case EDITFORM_ACCEPT:
		cmd = editform_text(wb->edit);
		wb_esc_decide(wb, wb->prompt_esc, ESC_CTL_EDIT, cmd);
		free(cmd);
		break;
	case EDITFORM_CANCEL:
		editform_free(wb->edit);
		wb->edit = NULL;
		wb->prompt_esc = NULL;
		break;
	case EDITFORM_NONE:
		break;
	}
	wb->redraw_all = true;
}

static void
wb_side_key(struct wb *wb, int key)
{
	struct wb_esc *e;

	switch (sidelist_handle_key(wb->side, key)) {
	case SIDELIST_APPROVE:
		if ((e = wb_esc_focused(wb)) != NULL)
			wb_esc_decide(wb, e, ESC_CTL_APPROVE, NULL);
		break;
	case SIDELIST_DENY:
		if ((e = wb_esc_focused(wb)) != NULL)
			wb_esc_decide(wb, e, ESC_CTL_DENY, NULL);
		break;
	case SIDELIST_EDIT:
		if ((e = wb_esc_focused(wb)) != NULL)
			wb_esc_edit(wb, e);
		break;
	case SIDELIST_OPEN:
		if ((e = wb_esc_focused(wb)) != NULL)
			wb_esc_open_prompt(wb, e);
		break;
	case SIDELIST_UNFOCUS:
		sidelist_set_focus(wb->side, false);
		break;
	case SIDELIST_NONE:
		if (key == 'q' || key == 'Q') {
			if ((e = wb_esc_focused(wb)) != NULL)
				wb_esc_decide(wb, e, ESC_CTL_QUIT, NULL);
		}
		break;
	}
	wb->dirty = true;
}

static void
wb_scroll_key(struct wb *wb, struct wb_tab *tab, int key)
{
	int rows, cols;

	term_size(tab->t, &rows, &cols);
	switch (key) {
	case WIDGET_KEY_FN(KEY_PPAGE):
		term_scroll(tab->t, rows > 1 ? rows - 1 : 1);
		break;
	case WIDGET_KEY_FN(KEY_NPAGE):
		term_scroll(tab->t, -(rows > 1 ? rows - 1 : 1));
		break;
	case WIDGET_KEY_FN(KEY_UP):
	case 'k':
		term_scroll(tab->t, 1);
		break;
	case WIDGET_KEY_FN(KEY_DOWN):
	case 'j':
		term_scroll(tab->t, -1);
		break;
	case WIDGET_KEY_FN(KEY_HOME):
	case 'g':
		term_scroll(tab->t, TERM_SB_DEFAULT);
		break;
	case WIDGET_KEY_FN(KEY_END):
	case 'G':
		term_scroll_reset(tab->t);
		break;
	case 'q':
	case WIDGET_KEY_ESC:
		term_scroll_reset(tab->t);
		tab->scrolling = false;
		break;
	default:
		break;
	}
	term_dirty_all(tab->t);
	wb->dirty = true;
}

static void
wb_select(struct wb *wb, size_t i)
{
	if (i >= wb->n_tabs || i == wb->active)
		return;
	wb->active = i;
	wb->redraw_all = true;
	wb_audit_request(wb);
}

static void
wb_action(struct wb *wb, enum wb_keys_action a, int arg)
{
	struct wb_tab *tab = wb_active(wb);
	struct wb_esc *e;
	char **help;

	switch (a) {
	case WB_KEYS_NEW_TAB:
		wb_new_tab_dialog(wb);
		break;
	case WB_KEYS_NEXT_TAB:
		if (wb->n_tabs > 0)
			wb_select(wb, (wb->active + 1) % wb->n_tabs);
		break;
	case WB_KEYS_PREV_TAB:
		if (wb->n_tabs > 0)
			wb_select(wb, (wb->active + wb->n_tabs - 1) % wb->n_tabs);
		break;
	case WB_KEYS_SELECT_TAB:
		/* The bar numbers tabs from 0, like tmux's windows. */
		wb_select(wb, (size_t)arg);
		break;
	case WB_KEYS_CLOSE_TAB:
		if (tab != NULL)
			wb_close_tab(wb, tab);
		break;
	case WB_KEYS_DETACH:
		wb_save(wb);
		wb->detached = true;
		wb->quit = true;
		break;
	case WB_KEYS_TOGGLE_PANEL:
		wb->panel_shown = !wb->panel_shown;
		if (!wb->panel_shown)
			sidelist_set_focus(wb->side, false);
		wb_relayout(wb);
		break;
	case WB_KEYS_FOCUS_PANEL:
		if (!wb->panel_shown) {
			wb->panel_shown = true;
			wb_relayout(wb);
		}
		sidelist_set_focus(wb->side, !sidelist_focused(wb->side));
		break;
	case WB_KEYS_SCROLLBACK:
		if (tab != NULL)
			tab->scrolling = true;
		break;
	case WB_KEYS_APPROVE:
	case WB_KEYS_DENY:
		if ((e = wb_esc_focused(wb)) == NULL) {
			wb_message(wb, "no escalation waits");
			break;
		}
		wb_esc_decide(wb, e, a == WB_KEYS_APPROVE ? ESC_CTL_APPROVE : ESC_CTL_DENY, NULL);
		break;
	case WB_KEYS_EDIT:
		if ((e = wb_esc_focused(wb)) == NULL)
			wb_message(wb, "no escalation waits");
		else
			wb_esc_edit(wb, e);
		break;
	case WB_KEYS_HELP:
		help = wb_keys_help(wb->keys);
		textview_free(wb->help);
		wb->help = textview_new("lazaret-workbench keys", help, LINES, COLS);
		lz_strv_free(help);
		break;
	case WB_KEYS_SEND_PREFIX:
		if (tab != NULL && wb_tab_encode_key(tab->t, wb_keys_prefix(wb->keys)))
			wb_flush_tab_output(tab);
		break;
	case WB_KEYS_PASS:
	case WB_KEYS_PREFIX:
	case WB_KEYS_UNBOUND:
	case WB_KEYS_N_ACTIONS:
		break;
	}
	wb->dirty = true;
}

static void
wb_key(struct wb *wb, int key)
{
	struct wb_tab *tab = wb_active(wb);
	enum wb_keys_action a;
	int arg = 0;

	if (statusline_handle_key(wb->status, key) == STATUSLINE_DISMISSED)
		wb->dirty = true;
	if (wb->help != NULL) {
		if (textview_handle_key(wb->help, key) == TEXTVIEW_CLOSE) {
			textview_free(wb->help);
			wb->help = NULL;
			wb->redraw_all = true;
		}
		wb->dirty = true;
		return;
	}
	if (wb->edit != NULL) {
		wb_edit_key(wb, key);
		return;
	}
	if (wb->prompt != NULL) {
		wb_prompt_key(wb, key);
		return;
	}
	if (wb->newtab != NULL) {
		wb_newtab_key(wb, key);
		return;
	}
	a = wb_keys_feed(wb->keys, key, &arg);
	if (a == WB_KEYS_PREFIX || a == WB_KEYS_UNBOUND) {
		wb->dirty = true;
		return;
	}
	if (a != WB_KEYS_PASS) {
		wb_action(wb, a, arg);
		return;
	}
	if (sidelist_focused(wb->side)) {
		wb_side_key(wb, key);
		return;
	}
	if (tab == NULL)
		return;
	if (tab->scrolling) {
		wb_scroll_key(wb, tab, key);
		return;
	}
	if (term_scroll_offset(tab->t) > 0) {
		term_scroll_reset(tab->t);
		term_dirty_all(tab->t);
	}
	if (wb_tab_encode_key(tab->t, key))
		wb_flush_tab_output(tab);
}

static void
wb_input_cb(uv_poll_t *h, int status, int events)
{
	struct wb *wb = h->data;
	int keys[WB_MAX_KEYS], rc;
	size_t n = 0, i;
	wint_t wch;

	(void)events;
	if (status < 0) {
		wb->quit = true;
		return;
	}
	while (n < WB_MAX_KEYS && (rc = wget_wch(stdscr, &wch)) != ERR) {
		int k = widget_key_from_wch(rc, wch);

		/* ncurses' own resize key: we handle SIGWINCH ourselves. */
		if (k != WIDGET_KEY_NONE && k != WIDGET_KEY_FN(KEY_RESIZE))
			keys[n++] = k;
	}
	n = wb_keys_fold_meta(keys, n);
	for (i = 0; i < n && !wb->quit; i++)
		wb_key(wb, keys[i]);
}

static void
wb_winch_cb(uv_signal_t *h, int signum)
{
	struct wb *wb = h->data;
	struct winsize ws;

	(void)signum;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || ws.ws_row == 0 || ws.ws_col == 0)
		return;
	resize_term(ws.ws_row, ws.ws_col);
	wb_relayout(wb);
	clearok(curscr, TRUE);
}

static void
wb_quit_cb(uv_signal_t *h, int signum)
{
	struct wb *wb = h->data;

	/* Like a lost terminal in tmux: the sessions keep running. */
	(void)signum;
	wb_save(wb);
	wb->detached = true;
	wb->quit = true;
	uv_stop(wb->loop);
}

/* Set-up. */

/* The first of the command line, the environment and the config that is set. */
static const char *
wb_setting(const char *opt, const char *env, const char *cfg_value)
{
	const char *e = getenv(env);

	if (opt != NULL)
		return opt;
	if (e != NULL && e[0] != '\0')
		return e;
	return cfg_value;
}

static struct theme *
wb_theme(const char *name, char **warning)
{
	char exe[PATH_MAX], *xdg = NULL, *rel = NULL, *path = NULL, *d;
	const char *dirs[5];
	struct theme *t;
	lz_err_t err = LZ_ERR_INIT;
	ssize_t n;
	size_t k = 0;

	*warning = NULL;
	if (name == NULL || name[0] == '\0')
		return theme_default();
	if (getenv("XDG_CONFIG_HOME") != NULL)
		xdg = xasprintf("%s/lazaret/themes", getenv("XDG_CONFIG_HOME"));
	else if (getenv("HOME") != NULL)
		xdg = xasprintf("%s/.config/lazaret/themes", getenv("HOME"));
	if (xdg != NULL)
		dirs[k++] = xdg;
	/* Next to the program: build/../themes in a source tree. */
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
		exe[n] = '\0';
		if ((d = strrchr(exe, '/')) != NULL)
			*d = '\0';
		rel = xasprintf("%s/../themes", exe);
		dirs[k++] = rel;
	}
	dirs[k++] = "/usr/local/share/lazaret/themes";
	dirs[k++] = "/usr/share/lazaret/themes";
	dirs[k] = NULL;
	if (theme_find(name, dirs, &path, &err) < 0) {
		*warning = xasprintf("theme %s: %s; using the default theme", name, err.msg);
		lz_err_clear(&err);
		t = theme_default();
	} else {
		t = theme_load_or_default(path, &err);
		if (err.msg != NULL)
			*warning = xasprintf("%s; using the default theme", err.msg);
		lz_err_clear(&err);
	}
	free(path);
	free(xdg);
	free(rel);
	return t;
}

static void
wb_help(void)
{
	printf("usage: %s\n\n"
	    "The Lazaret cockpit: every sandbox shell a tab with its own terminal, a\n"
	    "side panel with the escalation queue, the history and the egress log, and\n"
	    "approvals from the keyboard. Without tabs to restore it opens one for the\n"
	    "profile and workspace given (default profile, current directory). The\n"
	    "prefix key is C-a (C-a C-a sends it through); C-a ? lists the bindings.\n"
	    "C-a d detaches: every session keeps running in its coordinator, and\n"
	    "'lazaret-workbench attach' brings the tabs back with their screens.\n\n"
	    "  attach               restore the tabs of the last detach (fails without)\n"
	    "  -p, --profile P      profile of the first tab (default: \"default\")\n"
	    "  -w, --workspace DIR  workspace of the first tab (default: the current directory)\n"
	    "  -m, --mode MODE      isolated (default) or direct, for new tabs\n"
	    "  --prefix KEY         the prefix key (default C-a; e.g. C-b, M-a); else\n"
	    "                       $LAZARET_PREFIX, else the config's workbench.prefix\n"
	    "  --theme NAME|FILE    colour theme (default, light, high-contrast or a YAML\n"
	    "                       file); else $LAZARET_THEME, else workbench.theme\n"
	    "  --version            print the version\n\n"
	    "The configuration is $LAZARET_CONFIG (an absolute path) or the default file.\n"
	    "Keys after the prefix: c new tab, x close tab (its session ends), n/p/0-9\n"
	    "switch, d detach, s side panel, Tab focus the panel, [ scrollback\n"
	    "(PgUp/PgDn, q leaves), a approve, D deny, e edit, ? help.\n"
	    "The tab list is kept in $XDG_RUNTIME_DIR/lazaret/workbench.tabs\n"
	    "($LAZARET_WORKBENCH_STATE overrides).\n", WB_USAGE);
}

static void
wb_init_screen(struct wb *wb)
{
	/* Long enough for a key sequence split by a busy host, short for Esc in vim. */
	set_escdelay(100);
	initscr();
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	meta(stdscr, TRUE);
	if (has_colors())
		start_color();
	wb->draw = term_draw_new();
	wb->draw_gen = term_draw_generation(wb->draw);
	widget_palette_init(&wb->pal, wb->theme, wb->draw);
	wb->termwin = newwin(1, 1, 0, 0);
	wb->sidewin = newwin(1, 1, 0, 0);
	wb->termpanel = new_panel(wb->termwin);
	wb->sidepanel = new_panel(wb->sidewin);
	hide_panel(wb->sidepanel);
	wb->started = true;
	wb_relayout(wb);
}

static void
wb_walk_close_cb(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* Give queued writes (KILL of a closed tab) a moment to reach the coordinators. */
static void
wb_flush_writes(struct wb *wb)
{
	uint64_t deadline = uv_now(wb->loop) + WB_FLUSH_MS;
	size_t i, q;

	for (;;) {
		for (i = 0, q = 0; i < wb->n_conns; i++)
			q += wb_conn_queued(wb->conns[i]);
		if (q == 0 || uv_now(wb->loop) > deadline)
			break;
		uv_run(wb->loop, UV_RUN_ONCE);
	}
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "mode", required_argument, NULL, 'm' },
		{ "theme", required_argument, NULL, 't' },
		{ "prefix", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile = NULL, *workspace = NULL, *theme = NULL, *prefix = NULL, *st;
	char *prefix_from = NULL;	/* where prefix came from, for its error */
	struct wb_state_tab *saved = NULL;
	struct wb wb;
	lz_err_t err = LZ_ERR_INIT;
	size_t n_saved = 0, i, n_sessions;
	bool attach = false;
	int c, rc = 1;

	/* The coordinator a tab starts is this program again (client.c execs
	 * /proc/self/exe coordinator ...). */
	if (argc > 1 && strcmp(argv[1], "coordinator") == 0)
		return cmd_coordinator(argc - 1, argv + 1);
	/* ... and the coordinator's guard and cgroup step are this program again. */
	if (argc > 1 && strcmp(argv[1], "guard") == 0)
		return cmd_guard(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "cgroup-exec") == 0)
		return cmd_cgroup_exec(argc - 1, argv + 1);
	setlocale(LC_ALL, "");
	memset(&wb, 0, sizeof wb);
	wb.mode = "isolated";
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:w:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': profile = optarg; break;
		case 'w': workspace = optarg; break;
		case 'm': wb.mode = optarg; break;
		case 't': theme = optarg; break;
		case 'P': prefix = optarg; break;
		case 'h': wb_help(); return 0;
		case 'V': printf("lazaret-workbench %s\n", LZ_VERSION); return 0;
		default:
			fprintf(stderr, "lazaret-workbench: unknown option '%s'\nusage: %s\n",
			    argv[optind - 1], WB_USAGE);
			return 129;
		}
	}
	if (optind < argc && strcmp(argv[optind], "attach") == 0) {
		attach = true;
		optind++;
	}
	if (optind < argc) {
		fprintf(stderr, "lazaret-workbench: unexpected argument '%s'\nusage: %s\n",
		    argv[optind], WB_USAGE);
		return 129;
	}
	if (strcmp(wb.mode, "isolated") != 0 && strcmp(wb.mode, "direct") != 0) {
		fprintf(stderr, "lazaret-workbench: --mode: expected isolated or direct, not '%s'\n",
		    wb.mode);
		return 129;
	}
	if (cli_refuse_root(&err) < 0 || cli_load_config(&wb.cfg, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "lazaret-workbench: needs a terminal (use 'lazaret run' without one)\n");
		goto out;
	}
	if ((st = getenv("LAZARET_WORKBENCH_STATE")) != NULL && st[0] != '\0')
		wb.state_path = xstrdup(st);
	else if (wb_state_path(&wb.state_path, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (wb_state_read(wb.state_path, &saved, &n_saved, &err) < 0) {
		fprintf(stderr, "lazaret-workbench: %s (starting without it)\n", err.msg);
		lz_err_clear(&err);
	}
	if (attach && n_saved == 0) {
		fprintf(stderr, "lazaret-workbench: no tabs to attach to (%s is empty)\n",
		    wb.state_path);
		goto out;
	}
	wb.theme = wb_theme(wb_setting(theme, "LAZARET_THEME", wb.cfg->wb_theme),
	    &wb.theme_warning);
	if (wb.theme_warning != NULL)
		fprintf(stderr, "lazaret-workbench: %s\n", wb.theme_warning);
	wb.cwd = getcwd(NULL, 0);
	if (wb.cwd == NULL)
		wb.cwd = xstrdup("/");
	wb.keys = wb_keys_new();
	prefix_from = prefix != NULL ? xstrdup("--prefix") : NULL;
	if (prefix == NULL && (prefix = wb_setting(NULL, "LAZARET_PREFIX", NULL)) != NULL)
		prefix_from = xstrdup("LAZARET_PREFIX");
	if (prefix == NULL && (prefix = wb.cfg->wb_prefix) != NULL)
		prefix_from = xasprintf("%s:%d: workbench.prefix", wb.cfg->file,
		    wb.cfg->wb_prefix_line);
	if (prefix != NULL && wb_keys_set_prefix(wb.keys, prefix, &err) < 0) {
		fprintf(stderr, "lazaret-workbench: %s: %s\n", prefix_from, err.msg);
		lz_err_clear(&err);
		free(prefix_from);
		wb_keys_free(wb.keys);
		theme_free(wb.theme);
		free(wb.theme_warning);
		free(wb.cwd);
		rc = 129;
		goto out;
	}
	free(prefix_from);
	wb.tabbar = tabbar_new();
	wb.side = sidelist_new();
	wb.status = statusline_new();
	{
		char *hints = wb_keys_hints(wb.keys, NULL, 0);
		struct sidelist_item note = { NULL, WB_EGRESS_NOTE, false };

		statusline_set_hints(wb.status, hints);
		free(hints);
		sidelist_set(wb.side, SIDELIST_EGRESS, &note, 1);
	}

	wb.loop = uv_default_loop();
	/* Our SIGWINCH handler first: ncurses then leaves the signal alone. */
	uv_signal_init(wb.loop, &wb.sig_winch);
	wb.sig_winch.data = &wb;
	uv_signal_start(&wb.sig_winch, wb_winch_cb, SIGWINCH);
	uv_signal_init(wb.loop, &wb.sig_term);
	wb.sig_term.data = &wb;
	uv_signal_start(&wb.sig_term, wb_quit_cb, SIGTERM);
	uv_signal_init(wb.loop, &wb.sig_hup);
	wb.sig_hup.data = &wb;
	uv_signal_start(&wb.sig_hup, wb_quit_cb, SIGHUP);
	signal(SIGPIPE, SIG_IGN);

	wb_init_screen(&wb);
	if (wb.theme_warning != NULL)
		statusline_message(wb.status, wb.theme_warning, time(NULL) + 10);
	wb.fallback = !attach && n_saved > 0;
	wb.def_profile = profile;
	wb.def_workspace = workspace;
	for (i = 0; i < n_saved; i++)
		if (wb_add_tab(&wb, saved[i].profile, saved[i].workspace, saved[i].mode, saved[i].id,
		    &err) == NULL) {
			wb_message(&wb, "%s", err.msg);
			lz_err_clear(&err);
		}
	if (n_saved == 0 && wb_add_tab(&wb, profile, workspace, wb.mode, 0, &err) == NULL) {
		endwin();
		rc = cli_fail(&err);
		goto out_loop;
	}

	uv_poll_init(wb.loop, &wb.in, STDIN_FILENO);
	wb.in.data = &wb;
	uv_poll_start(&wb.in, UV_READABLE, wb_input_cb);
	uv_prepare_init(wb.loop, &wb.prep);
	wb.prep.data = &wb;
	uv_prepare_start(&wb.prep, wb_prepare_cb);
	uv_timer_init(wb.loop, &wb.tick);
	wb.tick.data = &wb;
	uv_timer_start(&wb.tick, wb_tick_cb, 1000, 1000);

	wb.redraw_all = true;
	while (!wb.quit)
		uv_run(wb.loop, UV_RUN_DEFAULT);
	n_sessions = 0;
	for (i = 0; i < wb.n_tabs; i++)
		if (wb.tabs[i]->state == WB_TAB_RUNNING)
			n_sessions++;
	wb_flush_writes(&wb);
	endwin();
	if (wb.detached)
		printf("[detached: %zu session%s keep running; 'lazaret-workbench attach' brings "
		    "them back]\n", n_sessions, n_sessions == 1 ? "" : "s");
	rc = 0;
out_loop:
	for (i = 0; i < wb.n_tabs; i++)
		wb_tab_free(wb.tabs[i]);
	wb.n_tabs = 0;
	while (wb.n_conns > 0)
		wb_conn_drop(&wb, wb.conns[0]);
	uv_walk(wb.loop, wb_walk_close_cb, NULL);
	uv_run(wb.loop, UV_RUN_DEFAULT);
	(void)uv_loop_close(wb.loop);
	prompt_free(wb.prompt);
	editform_free(wb.edit);
	newtab_free(wb.newtab);
	textview_free(wb.help);
	if (wb.termpanel != NULL)
		del_panel(wb.termpanel);
	if (wb.sidepanel != NULL)
		del_panel(wb.sidepanel);
	if (wb.termwin != NULL)
		delwin(wb.termwin);
	if (wb.sidewin != NULL)
		delwin(wb.sidewin);
	tabbar_free(wb.tabbar);
	sidelist_free(wb.side);
	statusline_free(wb.status);
	term_draw_free(wb.draw);
	wb_keys_free(wb.keys);
	theme_free(wb.theme);
	free(wb.theme_warning);
	free(wb.cwd);
	free(wb.tabs);
	free(wb.conns);
	free(wb.escs);
out:
	wb_state_tabs_free(saved, n_saved);
	free(wb.state_path);
	cfg_free(wb.cfg);
	return rc;
}
