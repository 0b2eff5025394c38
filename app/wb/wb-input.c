/* wb-input.c - the workbench's keys: read in bursts from the terminal,
 * ESC+key folded to Alt, through the prefix table (wb-keys.c) to an action,
 * the dialog on top, the side panel when it has focus, or the tab's program. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strv.h"
#include "term.h"
#include "wb-clip.h"
#include "wb.h"
#include "wb-audit.h"
#include "wb-help.h"
#include "wb-tour.h"
#include "xmalloc.h"

static void
wb_input_new_tab_dialog(struct wb *wb)
{
	char **profiles = NULL;
	lz_err_t err = LZ_ERR_INIT;
	const struct cfg_profile *def;
	struct wb_tab *tab = wb_tabs_active(wb);
	size_t i;

	for (i = 0; i < wb->cfg->n_profiles; i++)
		lz_strv_push(&profiles, wb->cfg->profiles[i].name);
	def = cfg_profile_find(wb->cfg, NULL, &err);
	lz_err_clear(&err);
	if (newtab_new(profiles, tab != NULL ? tab->profile : def != NULL ? def->name : NULL,
	    tab != NULL ? tab->workspace : wb->cwd, LINES, COLS, &wb->newtab, &err) < 0) {
		wb_ui_message(wb, "%s", err.msg);
		lz_err_clear(&err);
	}
	lz_strv_free(profiles);
	wb_ui_focus_tab(wb);
	wb->dirty = true;
}

static void
wb_input_newtab_key(struct wb *wb, int key)
{
	lz_err_t err = LZ_ERR_INIT;
	char *ws;

	switch (newtab_handle_key(wb->newtab, key)) {
	case NEWTAB_ACCEPT:
		ws = newtab_workspace(wb->newtab);
		if (wb_tabs_add(wb, newtab_profile(wb->newtab), ws[0] != '\0' ? ws : wb->cwd,
		    wb->mode, 0, &err) == NULL) {
			wb_ui_message(wb, "%s", err.msg);
			lz_err_clear(&err);
		} else
			wb->active = wb->n_tabs - 1;
		free(ws);
		/* fall through */
	case NEWTAB_CANCEL:
		newtab_free(wb->newtab);
		wb->newtab = NULL;
		wb_ui_focus_tab(wb);
		wb->redraw_all = true;
		break;
	case NEWTAB_NONE:
		break;
	}
	wb->dirty = true;
}

/* Look for wb->search from the line next to the last match (or the view's
 * top), towards older lines or newer; the match becomes the view's top row. */
static void
wb_input_find(struct wb *wb, struct wb_tab *tab, bool older)
{
	size_t n = term_lines(tab->t), from;
	int rows, cols;
	long at;

	/* The first search starts at the view's bottom row, so what shows is searched first. */
	term_size(tab->t, &rows, &cols);
	from = wb->search_at >= 0 ? (size_t)wb->search_at : term_view_top(tab->t) + (size_t)rows;

	if (wb->search[0] == '\0') {
		wb_ui_message(wb, "no search yet: / and the text to find");
		return;
	}
	from = older ? (from + n - 1) % n : (from + 1) % n;
	if ((at = term_find(tab->t, wb->search, from, older)) < 0) {
		wb_ui_message(wb, "not found: %s", wb->search);
		wb->search_at = -1;
		return;
	}
	wb->search_at = at;
	term_scroll_to(tab->t, (size_t)at);
	wb_ui_message(wb, "/%s: line %ld of %zu", wb->search, at + 1, n);
}

/* The text of a / search, typed on the status line. */
static void
wb_input_search_key(struct wb *wb, struct wb_tab *tab, int key)
{
	size_t len = strlen(wb->search);
	char *m;

	if (key == 13 || key == '\n' || key == WIDGET_KEY_FN(KEY_ENTER)) {
		wb->search_typing = false;
		wb->search_at = -1;
		wb_input_find(wb, tab, true);
		return;
	}
	if (key == WIDGET_KEY_ESC || key == 3 || key == 7) {
		wb->search_typing = false;
		wb->search[0] = '\0';
		statusline_message(wb->status, NULL, 0);
		wb->dirty = true;
		return;
	}
	if (key == 127 || key == 8 || key == WIDGET_KEY_FN(KEY_BACKSPACE)) {
		while (len > 0 && ((unsigned char)wb->search[--len] & 0xc0) == 0x80)
			;
		wb->search[len] = '\0';
	} else if (key >= 0x20 && key != 0x7f && key <= 0x10ffff && len + 4 < WB_SEARCH_MAX) {
		len += term_utf8_put((uint32_t)key, wb->search + len);
		wb->search[len] = '\0';
	}
	m = xasprintf("/%s", wb->search);
	statusline_message(wb->status, m, 0);
	free(m);
	wb->dirty = true;
}

/* y in scrollback: the current match's line (near the bottom it cannot
 * reach the top row; moving drops it), else the view's top line, with the rows
 * it wrapped onto, to the outer terminal's clipboard; the agent's own OSC 52
 * never goes there (libvterm eats it). */
static void
wb_input_copy(struct wb *wb, struct wb_tab *tab)
{
	char buf[WB_CLIP_MAX + 1];
	size_t line = wb->search_at >= 0 ? (size_t)wb->search_at : term_view_top(tab->t), len, first, last;
	lz_err_t err = LZ_ERR_INIT;

	len = term_wrapped_text(tab->t, line, buf, sizeof(buf), &first, &last);
	if (len == 0) {
		wb_ui_message(wb, "nothing to copy: line %zu is empty", line + 1);
		return;
	}
	if (wb_clip_copy(STDOUT_FILENO, buf, len, &err) < 0) {
		wb_ui_message(wb, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if (last > first)
		wb_ui_message(wb, "copied lines %zu-%zu (%zu bytes) to the terminal's clipboard", first + 1,
				last + 1, len);
	else
		wb_ui_message(wb, "copied line %zu (%zu bytes) to the terminal's clipboard", line + 1, len);
}

/* The newest URL at or above line from, whole across the rows it was wrapped
 * onto (a login link), to the outer terminal's clipboard; in scrollback the
 * view goes to it and u again takes the one above. */
static void
wb_input_copy_url(struct wb *wb, struct wb_tab *tab, size_t from, bool scrolling)
{
	char url[TERM_URL_MAX + 1];
	lz_err_t err = LZ_ERR_INIT;
	long at;

	if ((at = term_find_url(tab->t, from, url, sizeof(url))) < 0) {
		wb_ui_message(wb, scrolling ? "no URL above line %zu" : "no URL in the tab's history (%zu lines)",
				from + 1);
		return;
	}
	if (wb_clip_copy(STDOUT_FILENO, url, strlen(url), &err) < 0) {
		wb_ui_message(wb, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if (scrolling) {
		wb->search_at = at;
		term_scroll_to(tab->t, (size_t)at);
	}
	wb_ui_message(wb, "copied URL (%zu bytes) to the terminal's clipboard: %s", strlen(url), url);
}

static void
wb_input_scroll_key(struct wb *wb, struct wb_tab *tab, int key)
{
	int rows, cols;

	term_size(tab->t, &rows, &cols);
	if (wb->search_typing) {
		wb_input_search_key(wb, tab, key);
		term_dirty_all(tab->t);
		return;
	}
	switch (key) {
	case '/':
	case '?':
		wb->search_typing = true;
		wb->search[0] = '\0';
		statusline_message(wb->status, "/", 0);
		break;
	case 'n':
		wb_input_find(wb, tab, true);
		break;
	case 'N':
		wb_input_find(wb, tab, false);
		break;
	case 'y':
		wb_input_copy(wb, tab);
		break;
	case 'u':
		if (wb->search_at == 0)
			wb_ui_message(wb, "no URL above line 1");
		else
			wb_input_copy_url(wb, tab, wb->search_at > 0 ? (size_t)wb->search_at - 1 :
						   term_view_top(tab->t) + (size_t)rows - 1, true);
		break;
	case WIDGET_KEY_FN(KEY_PPAGE):
		wb->search_at = -1;
		term_scroll(tab->t, rows > 1 ? rows - 1 : 1);
		break;
	case WIDGET_KEY_FN(KEY_NPAGE):
		wb->search_at = -1;
		term_scroll(tab->t, -(rows > 1 ? rows - 1 : 1));
		break;
	case WIDGET_KEY_FN(KEY_UP):
	case 'k':
		wb->search_at = -1;
		term_scroll(tab->t, 1);
		break;
	case WIDGET_KEY_FN(KEY_DOWN):
	case 'j':
		wb->search_at = -1;
		term_scroll(tab->t, -1);
		break;
	case WIDGET_KEY_FN(KEY_HOME):
	case 'g':
		wb->search_at = -1;
		term_scroll(tab->t, LONG_MAX);
		break;
	case WIDGET_KEY_FN(KEY_END):
	case 'G':
		wb->search_at = -1;
		term_scroll_reset(tab->t);
		break;
	case 'q':
	case WIDGET_KEY_ESC:
		term_scroll_reset(tab->t);
		tab->scrolling = false;
		wb->search_at = -1;
		break;
	default:
		break;
	}
	term_dirty_all(tab->t);
	wb->dirty = true;
}

void
wb_input_select(struct wb *wb, size_t i)
{
	wb_ui_focus_tab(wb);
	if (i >= wb->n_tabs || i == wb->active)
		return;
	wb->active = i;
	wb->redraw_all = true;
	wb_esc_audit_request(wb);
}

/* The help page: the prefix table, then every other mode's keys. */
static char **
wb_input_help(struct wb *wb)
{
	static const char *const modes[] = {
		"",
		"Leaving: prefix d detaches (sessions keep running; 'lazaret-workbench attach'",
		"  brings the tabs back); prefix x closes a tab (asks while its program runs)",
		"Scrollback (prefix [):",
		"  PgUp PgDn Up Down k j  move     g G  oldest, newest     q Esc  back to live",
		"  / or ?  find text (towards older lines)   n N  next older, newer",
		"  y  copy the match's line (no match: the top line) to the terminal's clipboard",
		"  u  copy the newest URL shown (a login link), whole; u again: the one above",
		"Side panel (prefix Tab; ? there: its keys):",
		"  Up Down  choose   a Enter  open the request   d deny   e edit   Esc  back",
		"  q  stop the request's domain (asks y)   / search a list, n N next",
		"  Audit list: Enter the row whole (JSON, hashes, verify)",
		"  Egress list: b the blocked destinations only",
		"  Egress list, on a network request: d deny; Enter a o r p open it (once,",
		"  run, profile): Up/Down choose the grant, a, the code, Enter allow",
		"Request view:",
		"  a, the 3-character code shown, Enter: approve (only once armed)",
		"  d deny   e edit   q quit (stops the domain)   Esc  put it away",
		"Review view (prefix R): j k PgUp PgDn g G move, Enter a file's diff (/ n N ] [),",
		"  m merge (asks y; a changed executable surface asks again, a accepts it),",
		"  D discard (asks y), S sync (host/<branch> to the agent), F every surface",
		"  flag, r reload, q Esc back",
		"Mouse (workbench.mouse, --mouse): click a tab, click a request to open it",
		"  (never to approve); the wheel scrolls back, or the panel's list",
		NULL,
	};
	char **lines = wb_keys_help(wb->keys), pre[WB_KEYS_NAME_MAX];

	wb_keys_key_name(wb_keys_prefix(wb->keys), pre);
	lz_strv_pushf(&lines, "(the keys above follow the prefix %s; q, Esc or Enter closes this page)", pre);
	for (size_t i = 0; modes[i] != NULL; i++)
		lz_strv_push(&lines, modes[i]);
	return lines;
}

static void
wb_input_action(struct wb *wb, enum wb_keys_action a, int arg)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	struct wb_esc *e;

	switch (a) {
	case WB_KEYS_NEW_TAB:
		wb_input_new_tab_dialog(wb);
		break;
	case WB_KEYS_NEXT_TAB:
		if (wb->n_tabs > 0)
			wb_input_select(wb, (wb->active + 1) % wb->n_tabs);
		break;
	case WB_KEYS_PREV_TAB:
		if (wb->n_tabs > 0)
			wb_input_select(wb, (wb->active + wb->n_tabs - 1) % wb->n_tabs);
		break;
	case WB_KEYS_SELECT_TAB:
		/* The bar numbers tabs from 0, like tmux's windows. */
		wb_input_select(wb, (size_t)arg);
		break;
	case WB_KEYS_CLOSE_TAB:
		if (tab != NULL)
			wb_tabs_close_ask(wb, tab);
		break;
	case WB_KEYS_DETACH:
		wb_tabs_save(wb);
		wb->detached = true;
		wb->quit = true;
		break;
	case WB_KEYS_TOGGLE_PANEL:
		wb_ui_panel(wb, !wb->panel_shown);
		break;
	case WB_KEYS_FOCUS_PANEL:
		if (!wb->panel_shown)
			wb_ui_panel(wb, true);
		sidelist_set_focus(wb->side, !sidelist_focused(wb->side));
		/* Where a decision waits: an escalation, else a network request. */
		if (sidelist_focused(wb->side) && wb->n_escs > 0)
			sidelist_set_current(wb->side, SIDELIST_QUEUE);
		else if (sidelist_focused(wb->side) && wb_netreq_panel_pending(wb)) {
			sidelist_set_current(wb->side, SIDELIST_EGRESS);
			sidelist_select(wb->side, SIDELIST_EGRESS, 0);
		}
		break;
	case WB_KEYS_SCROLLBACK:
		if (tab != NULL)
			tab->scrolling = true;
		wb->search_at = -1;
		break;
	case WB_KEYS_REQUEST:
		/* Never a decision: the request view, where approving takes its code. */
		if ((e = wb_esc_focused(wb)) == NULL)
			wb_ui_message(wb, "no escalation waits");
		else
			wb_esc_open_prompt(wb, e);
		break;
	case WB_KEYS_DENY:
		if ((e = wb_esc_focused(wb)) == NULL)
			wb_ui_message(wb, "no escalation waits");
		else
			wb_esc_decide(wb, e, ESC_CTL_DENY, NULL);
		break;
	case WB_KEYS_EDIT:
		if ((e = wb_esc_focused(wb)) == NULL)
			wb_ui_message(wb, "no escalation waits");
		else
			wb_esc_edit(wb, e, NULL);
		break;
	case WB_KEYS_HELP:
		/* what works where the keys go now first (the focus stays) */
		wb_help_open(wb, wb_input_help(wb));
		break;
	case WB_KEYS_SEND_PREFIX:
		if (tab != NULL && wb_tab_encode_key(tab->t, wb_keys_prefix(wb->keys)))
			wb_tabs_flush_output(tab);
		break;
	case WB_KEYS_REVIEW:
		wb_review_open(wb, tab);
		break;
	case WB_KEYS_COPY_URL:
		if (tab != NULL)
			wb_input_copy_url(wb, tab, term_lines(tab->t) - 1, false);
		break;
	case WB_KEYS_NEXT_WAITING:
		if ((arg = (int)wb_need_next(wb)) >= 0)
			wb_input_select(wb, (size_t)arg);
		break;
	case WB_KEYS_DASHBOARD:
	case WB_KEYS_RENAME_TAB:
	case WB_KEYS_COMMAND:
		wb_cmd_action(wb, a);
		break;
	case WB_KEYS_TIMELINE:
		wb_audit_timeline(wb);
		break;
	case WB_KEYS_PASS:
	case WB_KEYS_PREFIX:
	case WB_KEYS_UNBOUND:
	case WB_KEYS_N_ACTIONS:
		break;
	}
	wb->dirty = true;
}

/* The wheel over the tab without a program that takes the mouse: scrollback
 * like tmux's copy-mode -e (up enters it, down to the bottom leaves it). */
static void
wb_input_wheel(struct wb *wb, struct wb_tab *tab, bool up)
{
	if (!tab->scrolling && (!up || term_altscreen(tab->t)))
		return;	/* a full-screen program's screen has no history (tmux drops it too) */
	tab->scrolling = true;
	wb->search_at = -1;
	term_scroll(tab->t, up ? WB_WHEEL_LINES : -WB_WHEEL_LINES);
	if (!up && term_scroll_offset(tab->t) == 0) {
		tab->scrolling = false;
		wb->search_typing = false;
	}
	term_dirty_all(tab->t);
}

/* A report over the tab: to its program when it asked for the mouse (in
 * its encoding, libvterm's), else the wheel scrolls back. */
static void
wb_input_mouse_tab(struct wb *wb, struct wb_tab *tab, const struct wb_mouse *m)
{
	int button = wb_mouse_button(m);
	VTermModifier mod = (m->b & WB_MOUSE_SHIFT ? VTERM_MOD_SHIFT : 0) |
	    (m->b & WB_MOUSE_ALT ? VTERM_MOD_ALT : 0) | (m->b & WB_MOUSE_CTRL ? VTERM_MOD_CTRL : 0);

	if (wb_mouse_is_press(m))
		wb_ui_focus_tab(wb);
	if (term_mouse(tab->t) != VTERM_PROP_MOUSE_NONE && !tab->scrolling && tab->state == WB_TAB_RUNNING) {
		term_mouse_report(tab->t, m->y - wb->lay.term.y, m->x - wb->lay.term.x,
		    button < 3 ? button + 1 : button >= WB_MOUSE_WHEEL ? button - WB_MOUSE_WHEEL + 4 : 0,
		    !m->release, mod);
		wb_tabs_flush_output(tab);
		return;
	}
	if (button >= WB_MOUSE_WHEEL && !m->release)
		wb_input_wheel(wb, tab, button == WB_MOUSE_WHEEL);
}

/* A click on the panel selects what is under it; on an escalation it opens
 * the request view (approving stays there, with its code: never a click). */
static void
wb_input_mouse_panel(struct wb *wb, const struct wb_mouse *m)
{
	enum sidelist_list which;
	struct wb_esc *e;
	int button = wb_mouse_button(m);
	long index;

	if (!sidelist_hit(wb->side, m->y - wb->lay.panel.y, &which, &index))
		return;
	if (button >= WB_MOUSE_WHEEL) {
		if (!m->release)
			sidelist_scroll(wb->side, which, button == WB_MOUSE_WHEEL ? -WB_WHEEL_LINES :
			    WB_WHEEL_LINES);
		return;
	}
	if (!wb_mouse_is_press(m) || button != 0)
		return;
	sidelist_set_current(wb->side, which);
	sidelist_set_focus(wb->side, true);
	if (index < 0)
		return;
	sidelist_select(wb->side, which, (size_t)index);
	if (which == SIDELIST_QUEUE && (e = wb_esc_focused(wb)) != NULL)
		wb_esc_open_prompt(wb, e);
	else if (which == SIDELIST_EGRESS)
		(void)wb_netreq_open_selected(wb);	/* its view: approving takes the code */
}

static void
wb_input_mouse(struct wb *wb, const struct wb_mouse *m)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	int i;

	/* Off: the terminal was not asked, so this came some other way; a dialog
	 * (the request view above all) and the review view take no clicks. */
	if (!wb->mouse || wb->gone != NULL || wb->help != NULL || wb->edit != NULL || wb->prompt != NULL || wb->netview != NULL ||
	    wb->review != NULL || wb->newtab != NULL || wb->quit_esc != NULL || wb->close_ask != NULL || wb->lay.too_small)
		return;
	wb_keys_cancel(wb->keys);
	if (wb_layout_contains(&wb->lay.tabbar, m->y, m->x)) {
		if (wb_mouse_is_press(m) && wb_mouse_button(m) == 0 &&
		    (i = tabbar_hit(wb->tabbar, m->x - wb->lay.tabbar.x)) >= 0)
			wb_input_select(wb, (size_t)i);
	} else if (wb->panel_shown && wb_layout_contains(&wb->lay.panel, m->y, m->x)) {
		wb_input_mouse_panel(wb, m);
	} else if (tab != NULL && wb_layout_contains(&wb->lay.term, m->y, m->x)) {
		wb_input_mouse_tab(wb, tab, m);
	}
	wb->dirty = true;
}

void
wb_input_mouse_mode(struct wb *wb, bool on)
{
	const char *seq = on ? WB_MOUSE_ON : WB_MOUSE_OFF;
	ssize_t w;

	if (!wb->mouse)
		return;
	/* ncurses sets up its decoder (and ?1000); the SGR encoding, which
	 * has no column limit, is asked for here whatever the terminfo says. */
	mousemask(on ? ALL_MOUSE_EVENTS : 0, NULL);
	mouseinterval(0);
	do
		w = write(STDOUT_FILENO, seq, strlen(seq));
	while (w < 0 && errno == EINTR);
}

static void
wb_input_key(struct wb *wb, int key)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	enum wb_keys_action a;
	int arg = 0;

	if (key == WB_MOUSE_KEY) {
		if (wb->mevs != NULL && wb->mevs_i < wb->mevs_n)
			wb_input_mouse(wb, &wb->mevs[wb->mevs_i++]);
		return;
	}
	/* A dialog closed under the user: what was typed for it goes nowhere. */
	if (wb->gone != NULL) {
		wb_gone_key(wb, key);
		return;
	}
	/* (In the request view messages stay: they are about what it discarded.) */
	if (wb->prompt == NULL && wb->netview == NULL &&
	    statusline_handle_key(wb->status, key) == STATUSLINE_DISMISSED)
		wb->dirty = true;
	if (wb->help != NULL) {
		if (textview_handle_key(wb->help, key) == TEXTVIEW_CLOSE) {
			wb_tour_closing(wb, wb->help);
			textview_free(wb->help);
			wb->help = NULL;
			wb->audit_view = NULL;
			wb->redraw_all = true;
		}
		wb->dirty = true;
		return;
	}
	if (wb->edit != NULL) {
		wb_esc_edit_key(wb, key);
		return;
	}
	if (wb->prompt != NULL) {
		wb_esc_prompt_key(wb, key);
		return;
	}
	if (wb->netview != NULL) {
		wb_netreq_view_key(wb, key);
		return;
	}
	if (wb->newtab != NULL) {
		wb_input_newtab_key(wb, key);
		return;
	}
	if (wb->review != NULL) {
		wb_review_key(wb, key);
		return;
	}
	if (wb_cmd_shown(wb)) {
		wb_cmd_key(wb, key);
		return;
	}
	if (wb_dash_shown(wb)) {
		long t = wb_dash_key(wb, key);

		if (t >= 0)
			wb_input_select(wb, (size_t)t);
		return;
	}
	if (wb->quit_esc != NULL) {
		wb_esc_quit_key(wb, key);
		return;
	}
	if (wb->close_ask != NULL) {
		wb_tabs_close_key(wb, key);
		return;
	}
	a = wb_keys_feed(wb->keys, key, &arg);
	if (a == WB_KEYS_PREFIX || a == WB_KEYS_UNBOUND) {
		wb->dirty = true;
		return;
	}
	if (a != WB_KEYS_PASS) {
		wb_input_action(wb, a, arg);
		return;
	}
	if (sidelist_focused(wb->side)) {
		if (key == '?' && !sidelist_searching(wb->side))
			wb_help_open(wb, wb_input_help(wb));	/* what works in this list */
		else
			wb_esc_side_key(wb, key);
		return;
	}
	if (tab == NULL)
		return;
	if (tab->scrolling) {
		wb_input_scroll_key(wb, tab, key);
		return;
	}
	if (term_scroll_offset(tab->t) > 0) {
		term_scroll_reset(tab->t);
		term_dirty_all(tab->t);
	}
	tabstate_key(&tab->ts);
	if (wb_tab_encode_key(tab->t, key))
		wb_tabs_flush_output(tab);
}

void
wb_input_cb(uv_poll_t *h, int status, int events)
{
	struct wb *wb = h->data;
	int keys[WB_MAX_KEYS], rc;
	struct wb_mouse mevs[WB_MAX_KEYS];
	size_t n = 0, i, n_mevs = 0;
	wint_t wch;
	MEVENT me;

	(void)events;
	if (status < 0) {
		wb->quit = true;
		return;
	}
	/* Keys are encoded in the modes, and scroll and search see the lines,
	 * of everything the tabs were sent so far. */
	for (i = 0; i < wb->n_tabs; i++)
		term_flush(wb->tabs[i]->t);
	while (n < WB_MAX_KEYS && (rc = wget_wch(stdscr, &wch)) != ERR) {
		int k = widget_key_from_wch(rc, wch);

		/* ncurses' own resize key: we handle SIGWINCH ourselves. */
		if (k == WIDGET_KEY_NONE || k == WIDGET_KEY_FN(KEY_RESIZE))
			continue;
		/* A report ncurses decoded goes in as the bytes an SGR terminal sends. */
		if (k == WB_MOUSE_KEY && getmouse(&me) == OK && n + 32 < WB_MAX_KEYS) {
			struct wb_mouse m;
			char sgr[32];
			int len;

			if (!wb_mouse_from_curses((unsigned long)me.bstate, me.x, me.y, &m))
				continue;
			len = snprintf(sgr, sizeof sgr, "\033[<%d;%d;%d%c", m.b, m.x + 1, m.y + 1,
			    m.release ? 'm' : 'M');
			for (int j = 0; j < len; j++)
				keys[n++] = (unsigned char)sgr[j];
			continue;
		}
		keys[n++] = k;
	}
	/* Reports before ESC folding: their ESC [ is no Alt-[. */
	n = wb_mouse_parse(keys, n, mevs, WB_MAX_KEYS, &n_mevs);
	n = wb_keys_fold_meta(keys, n);
	wb->mevs = mevs;
	wb->mevs_n = n_mevs;
	wb->mevs_i = 0;
	wb->burst = keys;
	wb->burst_n = n;
	for (i = 0; i < n && !wb->quit; i++) {
		wb->burst_i = i;
		wb_input_key(wb, keys[i]);
	}
	wb->burst = NULL;
	wb->burst_n = 0;
	wb->mevs = NULL;
	wb->mevs_n = 0;
}
