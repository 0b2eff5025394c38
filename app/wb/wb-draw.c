/* wb-draw.c - the workbench's screen: layout, tab bar and status line,
 * the tab's terminal (only its dirty rows), the side panel and the dialog on
 * top, drawn once per loop turn and at most once per WB_FRAME_MS; messages
 * and the panel's log. */
#include <stdarg.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "term.h"
#include "wb.h"
#include "wb-audit.h"
#include "wb-egress.h"
#include "wb-status.h"
#include "xmalloc.h"

/* The tab's and the panel's windows at the bottom of the deck, under the
 * review view and the dialogs (show_panel alone would put them on top);
 * hidden while a dialog is open, so that nothing is seen beside its box. */
static void
wb_draw_base_panels(struct wb *wb)
{
	if (wb->backdrop || wb->lay.too_small) {
		hide_panel(wb->termpanel);
		hide_panel(wb->sidepanel);
		return;
	}
	/* show first: ncurses' bottom_panel links a hidden panel without making
	 * it the deck's top when it is alone, and the next new panel breaks the
	 * deck (every dialog after the first would stay unseen). */
	if (wb->lay.panel.h > 0 && wb->lay.panel.w > 0) {
		show_panel(wb->sidepanel);
		bottom_panel(wb->sidepanel);
	} else
		hide_panel(wb->sidepanel);
	if (wb->lay.term.h > 0 && wb->lay.term.w > 0) {
		show_panel(wb->termpanel);
		bottom_panel(wb->termpanel);
	}
}

/* A dialog came or went: clear what is behind it (the rows between the
 * bars, in the backdrop style), or bring the tab and the panel back. */
static void
wb_draw_backdrop(struct wb *wb)
{
	bool dialog = wb->help != NULL || wb->newtab != NULL || wb->prompt != NULL ||
	    wb->netview != NULL || wb->edit != NULL || wb->gone != NULL;

	if (dialog == wb->backdrop)
		return;
	wb->backdrop = dialog;
	wb_draw_base_panels(wb);
	wb->redraw_all = true;
}

void
wb_draw_relayout(struct wb *wb)
{
	size_t i;

	/* Wide: the user's choice; narrow: hidden (the tab keeps its width) unless asked for. */
	wb->panel_shown = COLS >= WB_LAYOUT_SIDE_COLS ? wb->panel_want : wb->panel_overlay;
	if (!wb->panel_shown)
		sidelist_set_focus(wb->side, false);
	wb_layout_compute(LINES, COLS, wb->panel_shown, &wb->lay);
	if (wb->lay.term.h > 0 && wb->lay.term.w > 0) {
		wresize(wb->termwin, wb->lay.term.h, wb->lay.term.w);
		move_panel(wb->termpanel, wb->lay.term.y, wb->lay.term.x);
	}
	if (wb->lay.panel.h > 0 && wb->lay.panel.w > 0) {
		wresize(wb->sidewin, wb->lay.panel.h, wb->lay.panel.w);
		move_panel(wb->sidepanel, wb->lay.panel.y, wb->lay.panel.x);
	}
	wb_draw_base_panels(wb);
	for (i = 0; i < wb->n_tabs; i++)
		wb_tabs_fit(wb, wb->tabs[i]);
	if (wb->newtab != NULL)
		newtab_resize(wb->newtab, LINES, COLS);
	if (wb->help != NULL)
		textview_resize(wb->help, LINES, COLS);
	if (wb->prompt != NULL)
		reqprompt_resize(wb->prompt, LINES, COLS);
	if (wb->edit != NULL)
		editform_resize(wb->edit, LINES, COLS);
	wb_review_resize(wb);
	wb_netreq_view_resize(wb);
	wb_gone_resize(wb);
	wb->egress_stale = true;	/* its rows are cut to the panel's width */
	if (wb->n_audit > 0)
		wb_audit_show(wb);	/* the actor column comes and goes with the width */
	wb->redraw_all = true;
}

static void
wb_draw_bars(struct wb *wb)
{
	struct tabbar_tab *tt = xcalloc(wb->n_tabs + 1, sizeof *tt);
	struct wb_tab *tab = wb_tabs_active(wb);
	char *state;
	size_t i;

	for (i = 0; i < wb->n_tabs; i++) {
		tt[i].profile = wb->tabs[i]->title != NULL ? wb->tabs[i]->title : wb->tabs[i]->profile;
		tt[i].workspace = wb->tabs[i]->title != NULL ? NULL : wb->tabs[i]->workspace;
		tt[i].state = wb_tab_state_name(wb->tabs[i]);
		tt[i].alert = wb->tabs[i]->alerts > 0;
		tt[i].mark = wb_tab_mark(wb->tabs[i]);
		tt[i].flash = wb_need_flashing(wb, wb->tabs[i]);
	}
	tabbar_set(wb->tabbar, tt, wb->n_tabs, wb->active);
	free(tt);
	if (wb->lay.tabbar.w > 0)
		tabbar_draw(wb->tabbar, stdscr, wb->lay.tabbar.y, wb->lay.tabbar.x,
		    wb->lay.tabbar.w, &wb->pal);
	/* The mode says where keys go: the panel, the request view, or the tab. */
	if (tab != NULL) {
		state = xasprintf("[%s:%s]%s%s%s%s", tab->profile, wb_tabs_base(tab->workspace),
		    wb_keys_pending(wb->keys) ? " PREFIX" : "",
		    tab->scrolling ? " SCROLL /:find n/N:next y:copy q:leave" : "",
		    wb->gone != NULL ? " NOTICE" :
		    wb->prompt != NULL || wb->edit != NULL || wb->netview != NULL ? " REQUEST" :
		    wb->review != NULL ? " REVIEW" : sidelist_focused(wb->side) ? " PANEL" : "",
		    wb->n_escs > 0 ? " ESCALATION" : wb_netreq_pending(wb) ? " NETWORK" : "");
	} else
		state = xstrdup(wb_keys_pending(wb->keys) ? "[no tab] PREFIX" : "[no tab]");
	statusline_set_state(wb->status, state);
	statusline_set_hints(wb->status, sidelist_focused(wb->side) ?
	    (sidelist_current(wb->side) == SIDELIST_EGRESS ? WB_EGRESS_HINTS : WB_PANEL_HINTS) :
	    wb->review != NULL ? WB_REVIEW_STATUS_HINTS : wb->hints);
	free(state);
	if (wb->lay.status.w > 0)
		statusline_draw(wb->status, stdscr, wb->lay.status.y, wb->lay.status.x,
		    wb->lay.status.w, time(NULL), &wb->pal);
}

void
wb_draw(struct wb *wb)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	bool cursor_set = false;

	if (term_draw_generation(wb->draw) != wb->draw_gen) {
		wb->draw_gen = term_draw_generation(wb->draw);
		widget_palette_init(&wb->pal, wb->theme, wb->draw);
		wb->redraw_all = true;
	}
	if (tab != NULL)
		term_flush(tab->t);	/* what came since the last frame */
	wb_draw_backdrop(wb);
	if (wb->redraw_all) {
		werase(stdscr);
		for (int r = 0; wb->backdrop && r < wb->lay.term.h; r++)
			widget_fill(stdscr, wb->lay.term.y + r, 0, COLS, &wb->pal.style[THEME_BACKDROP]);
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
		if (panel_hidden(wb->termpanel) && !wb->backdrop)
			wb_draw_base_panels(wb);	/* back from "too small" */
		if (tab != NULL && !wb->backdrop)
			term_draw(wb->draw, tab->t, wb->termwin);
		if (wb->lay.panel.w > 0 && !wb->backdrop && (wb->dirty || wb->redraw_all))
			sidelist_draw(wb->side, wb->sidewin, 0, 0, wb->lay.panel.h, wb->lay.panel.w,
			    &wb->pal);
	}
	wb_review_draw(wb);
	wb_dash_draw(wb);
	if (wb->help != NULL)
		textview_draw(wb->help, &wb->pal);
	if (wb->newtab != NULL)
		newtab_draw(wb->newtab, &wb->pal);
	if (wb->prompt != NULL)
		reqprompt_draw(wb->prompt, &wb->pal);
	wb_netreq_view_draw(wb);
	if (wb->edit != NULL)
		editform_draw(wb->edit, &wb->pal);
	wb_gone_draw(wb);
	update_panels();
	if (wb->edit != NULL) {
		editform_cursor(wb->edit);
		cursor_set = true;
	} else if (wb->newtab != NULL && wb->help == NULL && wb->prompt == NULL) {
		newtab_cursor(wb->newtab);
		cursor_set = true;
	}
	if (!cursor_set) {
		if (tab != NULL && wb->help == NULL && wb->prompt == NULL && wb->review == NULL &&
		    wb->netview == NULL && wb->gone == NULL &&
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

void
wb_draw_prepare_cb(uv_prepare_t *h)
{
	struct wb *wb = h->data;
	struct wb_tab *tab = wb_tabs_active(wb);
	uint64_t now;
	int s, e;

	if (wb->quit) {
		uv_stop(wb->loop);
		return;
	}
	if (wb->relayout) {
		wb->relayout = false;
		wb_draw_relayout(wb);
	}
	if (wb->marks_stale) {
		wb->marks_stale = false;
		wb_esc_changed(wb);
	}
	wb_egress_refresh(wb);
	if (!wb->dirty && !wb->redraw_all && (tab == NULL || !term_dirty(tab->t, &s, &e)))
		return;
	now = uv_now(wb->loop);
	if (wb->drawn_at != 0 && now - wb->drawn_at < WB_FRAME_MS) {
		if (!uv_is_active((uv_handle_t *)&wb->frame))
			uv_timer_start(&wb->frame, wb_draw_frame_cb, WB_FRAME_MS - (now - wb->drawn_at),
			    0);
		return;
	}
	wb_draw(wb);
	wb->drawn_at = now;
}

void
wb_draw_frame_cb(uv_timer_t *t)
{
	(void)t;	/* the loop turn it makes draws (wb_draw_prepare_cb) */
}

void
wb_draw_tick_cb(uv_timer_t *t)
{
	struct wb *wb = t->data;

	wb->dirty = true;	/* status line messages expire */
	wb_netreq_tick(wb);
	wb_status_tick(wb);
	wb_audit_tick(wb);
}
