/* wb-tabs.c - the workbench's tabs: each a session on its domain's
 * coordinator, tabs of one domain sharing one connection (wb-conn.c); the
 * frames those connections bring, the tab list saved for attach. */
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchor.h"
#include "cli.h"
#include "effcfg.h"
#include "client.h"
#include "proto.h"
#include "strv.h"
#include "term-snap.h"
#include "term.h"
#include "wb-state.h"
#include "wb.h"
#include "xmalloc.h"

static void wb_tabs_send_request(struct wb *, struct wb_tab *);
static void wb_tabs_conn_state_cb(struct wb_conn *, void *);

/* Last component of a path, for short labels. */
const char *
wb_tabs_base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b != NULL && b[1] != '\0' ? b + 1 : path;
}

struct wb_tab *
wb_tabs_active(struct wb *wb)
{
	return wb->n_tabs > 0 ? wb->tabs[wb->active] : NULL;
}

struct wb_tab *
wb_tabs_find(struct wb *wb, struct wb_conn *conn, uint32_t id)
{
	size_t i;

	for (i = 0; i < wb->n_tabs; i++)
		if (wb->tabs[i]->conn == conn && wb->tabs[i]->id == id && id != 0)
			return wb->tabs[i];
	return NULL;
}

bool
wb_tabs_exists(struct wb *wb, struct wb_tab *tab)
{
	size_t i;

	for (i = 0; i < wb->n_tabs; i++)
		if (wb->tabs[i] == tab)
			return true;
	return false;
}

static void
wb_tabs_term_size(struct wb *wb, int *rows, int *cols)
{
	*rows = wb->lay.term.h > 0 ? wb->lay.term.h : 1;
	*cols = wb->lay.term.w >= TERM_MIN_COLS ? wb->lay.term.w : TERM_MIN_COLS;
}

/* Send what the tab's term queued for the PTY: key encodings only (its
 * replies are off, see wb_tab_new). */
void
wb_tabs_flush_output(struct wb_tab *tab)
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

void
wb_tabs_fail(struct wb *wb, struct wb_tab *tab, const char *why)
{
	char *line;

	tab->state = WB_TAB_FAILED;
	tabstate_failed(&tab->ts);
	free(tab->error);
	tab->error = xstrdup(why);
	line = xasprintf("\r\n\033[1;31mlazaret-workbench: %s\033[m\r\n"
	    "(prefix x closes this tab)\r\n", why);
	term_feed(tab->t, line, strlen(line));
	free(line);
	wb_ui_log(wb, true, "%s:%s %s", tab->profile, wb_tabs_base(tab->workspace), why);
	wb->dirty = true;
}

void
wb_tabs_conn_drop(struct wb *wb, struct wb_conn *conn)
{
	size_t i;

	for (i = 0; i < wb->n_conns; i++)
		if (wb->conns[i] == conn) {
			memmove(&wb->conns[i], &wb->conns[i + 1],
			    (wb->n_conns - i - 1) * sizeof *wb->conns);
			wb->n_conns--;
			break;
		}
	wb->hooks->conn_gone(wb, conn);
	wb_conn_close(conn);
}

/* No tab of conn's domain runs any more: close it, so an idle domain's
 * coordinator lingers and tears its sandbox down, as after `lazaret run`. */
static void
wb_tabs_release_conn(struct wb *wb, struct wb_conn *conn)
{
	size_t i;
	bool listed = false;

	for (i = 0; i < wb->n_conns; i++)
		listed |= wb->conns[i] == conn;
	if (conn == NULL || !listed)
		return;
	for (i = 0; i < wb->n_tabs; i++)
		if (wb->tabs[i]->conn == conn && (wb->tabs[i]->state == WB_TAB_STARTING ||
		    wb->tabs[i]->state == WB_TAB_RUNNING))
			return;
	for (i = 0; i < wb->n_tabs; i++)
		if (wb->tabs[i]->conn == conn) {
			wb_conn_forget(conn, wb->tabs[i]);
			wb->tabs[i]->conn = NULL;
		}
	wb_tabs_conn_drop(wb, conn);
}

/* The tab's program ended: the tab stays with its last screen and status
 * until closed (tmux's remain-on-exit). limit: its sandbox was stopped at a
 * limit, the tab's word is "limit" (the coordinator's message to the
 * terminal above says which). */
void
wb_tabs_exited(struct wb *wb, struct wb_tab *tab, int status, bool limit)
{
	char *line;

	tab->state = WB_TAB_EXITED;
	tab->status = status;
	tabstate_exited(&tab->ts, status, limit);
	line = xasprintf("\r\n\033[7m[%s %d; prefix x closes this tab]\033[m",
	    limit ? "stopped at a limit, status" : "exited with status", status);
	term_feed(tab->t, line, strlen(line));
	free(line);
	wb_tabs_save(wb);
	wb_tabs_release_conn(wb, tab->conn);
	wb->redraw_all = true;
}

void
wb_tabs_remove(struct wb *wb, struct wb_tab *tab)
{
	struct wb_conn *conn = tab->conn;

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
	if (wb->close_ask == tab)
		wb->close_ask = NULL;
	wb_tab_free(tab);
	wb_tabs_release_conn(wb, conn);
	wb->hooks->tab_gone(wb, was_active);
	wb->redraw_all = true;
	if (wb->n_tabs == 0 && !wb->detached && wb->fallback) {
		lz_err_t err = LZ_ERR_INIT;

		/* Every saved session was gone: start afresh, as with no saved tabs. */
		wb->fallback = false;
		if (wb_tabs_add(wb, wb->def_profile, wb->def_workspace, wb->mode, 0, &err) == NULL) {
			wb_ui_message(wb, "%s", err.msg);
			lz_err_clear(&err);
		}
	}
	if (wb->n_tabs == 0 && !wb->detached)
		wb->quit = true;
	wb_tabs_save(wb);
}

/* A tab of the saved list (attach): its session, and the name the user gave it. */
struct wb_tab *
wb_tabs_restore(struct wb *wb, const struct wb_state_tab *saved, lz_err_t *err)
{
	struct wb_tab *tab;

	tab = wb_tabs_add(wb, saved->profile, saved->workspace, saved->mode, saved->id, err);
	if (tab != NULL && saved->title != NULL)
		tab->title = xstrdup(saved->title);
	return tab;
}

void
wb_tabs_save(struct wb *wb)
{
	struct wb_state_tab *st;
	lz_err_t err = LZ_ERR_INIT;
	size_t i, n = 0;

	if (wb->state_path == NULL)
		return;
	st = xcalloc(wb->n_tabs + wb->n_kept + 1, sizeof *st);
	for (i = 0; i < wb->n_kept; i++)
		st[n++] = wb->kept[i];
	for (i = 0; i < wb->n_tabs; i++) {
		struct wb_tab *tab = wb->tabs[i];

		if (tab->state != WB_TAB_RUNNING || tab->id == 0)
			continue;
		st[n].id = tab->id;
		st[n].mode = tab->mode;
		st[n].profile = tab->profile;
		st[n].workspace = tab->workspace;
		st[n].title = tab->title;
		n++;
	}
	if (wb_state_write(wb->state_path, st, n, wb->panel_want, &err) < 0) {
		wb_ui_message(wb, "%s", err.msg);
		lz_err_clear(&err);
	}
	free(st);
}

/* A frame: wb-frames.c routes it (wb->hooks), to the tabs and the views. */
static void
wb_tabs_frame_cb(struct wb_conn *conn, const struct proto_header *h, const uint8_t *p, void *arg)
{
	struct wb *wb = arg;

	wb->hooks->frame(conn, h, p, arg);
}

/* The live connection to the domain of (profile, workspace), made on first use. */
static struct wb_conn *
wb_tabs_conn_for(struct wb *wb, const struct anchor *a, const char *mode, const char *config)
{
	static const struct wb_conn_cbs cbs = { wb_tabs_conn_state_cb, wb_tabs_frame_cb };
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
int
wb_tabs_connect(struct wb *wb, struct wb_tab *tab, lz_err_t *err)
{
	struct anchor *a = NULL;
	struct cfg_resolved *res = NULL;
	struct cfg *now = NULL;
	const struct cfg_profile *p;
	lz_err_t lerr = LZ_ERR_INIT;
	char *config = NULL;

	if (cli_domain(wb->cfg, tab->profile, tab->workspace, &a, NULL, err) < 0)
		return -1;
	free(tab->workspace);
	tab->workspace = xstrdup(a->workspace);
	/* Compared with the file as it is now (a coordinator started since an
	 * edit runs the edit: no false alarm), and its grants; resolved here,
	 * not by cli_domain: its warnings would print over the screen. A file
	 * that does not load now is not compared. */
	if (strcmp(wb->cfg->file, CFG_EMBEDDED_NAME) != 0 && cfg_load(wb->cfg->file, &now, &lerr) < 0)
		lz_err_clear(&lerr);
	else
		config = (p = cfg_profile_find(now != NULL ? now : wb->cfg, a->profile, NULL)) != NULL &&
		    cfg_profile_resolve(now != NULL ? now : wb->cfg, p, a->workspace, a->hash, &res,
		    NULL) == 0 ? effcfg_build(res, NULL, tab->mode) : NULL;
	tab->conn = wb_tabs_conn_for(wb, a, tab->mode, config);
	free(config);
	cfg_resolved_free(res);
	cfg_free(now);
	anchor_free(a);
	tab->state = WB_TAB_STARTING;
	switch (wb_conn_state(tab->conn)) {
	case WB_CONN_READY:
		wb_tabs_send_request(wb, tab);
		break;
	case WB_CONN_FAILED:
		wb_tabs_fail(wb, tab, wb_conn_error(tab->conn));
		break;
	case WB_CONN_CONNECTING:
	case WB_CONN_CLOSED:
		break;
	}
	return 0;
}

struct wb_tab *
wb_tabs_add(struct wb *wb, const char *profile, const char *workspace, const char *mode,
    uint32_t attach_id, lz_err_t *err)
{
	const struct cfg_profile *p;
	struct wb_tab *tab;
	int rows, cols;

	if ((p = cfg_profile_find(wb->cfg, profile, err)) == NULL)
		return NULL;
	wb_tabs_term_size(wb, &rows, &cols);
	if (wb_tab_new(p->name, workspace != NULL ? workspace : wb->cwd, mode, rows, cols,
	    (size_t)wb->cfg->wb_history, &tab, err) < 0)
		return NULL;
	tab->id = attach_id;
	tab->attach = attach_id != 0;
	if (wb_tabs_connect(wb, tab, err) < 0) {
		wb_tab_free(tab);
		return NULL;
	}
	wb->tabs = xreallocarray(wb->tabs, wb->n_tabs + 1, sizeof *wb->tabs);
	wb->tabs[wb->n_tabs++] = tab;
	wb->redraw_all = true;
	return tab;
}

static void
wb_tabs_send_request(struct wb *wb, struct wb_tab *tab)
{
	struct proto_new_session ns;
	struct proto_buf b = { 0 };
	char *none[] = { NULL };
	const struct cfg_profile *p;
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
		/* a kit's tab starts its agent (lazaret run KIT does the same) */
		ns.argv = (p = cfg_profile_find(wb->cfg, tab->profile, NULL)) != NULL &&
		    p->kit != NULL ? p->kit->command : none;
		/* With a Session Anchor: its escalations come to this workbench. */
		if (client_anchor_new_session(&b, &ns, &err) < 0) {
			wb_tabs_fail(wb, tab, err.msg);
			lz_err_clear(&err);
			return;
		}
	}
	wb_conn_expect(tab->conn, tab);
	wb_conn_send(tab->conn, &b);
}

void
wb_tabs_send_resize(struct wb_tab *tab)
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
void
wb_tabs_fit(struct wb *wb, struct wb_tab *tab)
{
	lz_err_t err = LZ_ERR_INIT;
	int rows, cols, r, c;

	wb_tabs_term_size(wb, &rows, &cols);
	term_size(tab->t, &r, &c);
	if (r == rows && c == cols)
		return;
	if (term_resize(tab->t, rows, cols, &err) < 0) {
		wb_ui_message(wb, "resize: %s", err.msg);
		lz_err_clear(&err);
		return;
	}
	wb_tabs_send_resize(tab);
}

static void
wb_tabs_conn_state_cb(struct wb_conn *conn, void *arg)
{
	struct wb *wb = arg;
	size_t i;

	/* A sandbox started from another configuration: say so once, on connect
	 * (and in the Audit list, where it stays). */
	if (wb_conn_state(conn) == WB_CONN_READY && wb_conn_drift(conn) != NULL) {
		wb_ui_log(wb, true, "domain %s is not running your configuration: %s",
		    wb_conn_anchor(conn)->hash, wb_conn_drift(conn));
		wb_ui_message(wb, "domain %s is not running your configuration: %s; to apply it: "
		    "lazaret stop and reopen, or lazaret run --replace", wb_conn_anchor(conn)->hash,
		    wb_conn_drift(conn));
	}
	if (wb_conn_state(conn) == WB_CONN_READY)
		wb->hooks->conn_up(wb, conn);
	for (i = 0; i < wb->n_tabs; i++) {
		struct wb_tab *tab = wb->tabs[i];

		if (tab->conn != conn)
			continue;
		if (wb_conn_state(conn) == WB_CONN_READY && tab->state == WB_TAB_STARTING)
			wb_tabs_send_request(wb, tab);
		else if (wb_conn_state(conn) == WB_CONN_FAILED &&
		    (tab->state == WB_TAB_STARTING || tab->state == WB_TAB_RUNNING))
			wb_tabs_fail(wb, tab, wb_conn_error(conn));
	}
	wb->dirty = true;
}

void
wb_tabs_close(struct wb *wb, struct wb_tab *tab)
{
	struct proto_buf b = { 0 };

	free(wb->exit_why);	/* the user closed it */
	wb->exit_why = NULL;

	if (tab->state == WB_TAB_RUNNING) {
		proto_encode_kill(&b, tab->id);
		wb_conn_send(tab->conn, &b);
		wb_ui_log(wb, false, "session %u closed %s:%s", tab->id, tab->profile,
		    wb_tabs_base(tab->workspace));
	}
	wb_tabs_remove(wb, tab);
}

void
wb_tabs_close_ask(struct wb *wb, struct wb_tab *tab)
{
	char *q;
	size_t i;

	if (tab->state != WB_TAB_RUNNING && tab->state != WB_TAB_STARTING) {
		wb_tabs_close(wb, tab);
		return;
	}
	for (i = 0; i < wb->n_tabs && wb->tabs[i] != tab; i++)
		;
	wb->close_ask = tab;
	q = xasprintf("close tab %zu (%s:%s)? its program still runs and ends with it (y/n)", i,
	    tab->profile, wb_tabs_base(tab->workspace));
	statusline_message(wb->status, q, 0);	/* until the answer */
	free(q);
	wb->dirty = true;
}

void
wb_tabs_close_key(struct wb *wb, int key)
{
	struct wb_tab *tab = wb->close_ask;

	wb->close_ask = NULL;
	if (tab != NULL && wb_tabs_exists(wb, tab) && (key == 'y' || key == 'Y'))
		wb_tabs_close(wb, tab);
	wb->dirty = true;
}
