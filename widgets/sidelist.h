/* sidelist.h - the side panel: titled lists stacked top to bottom, the
 * escalation queue, the audit history, the egress log and the review
 * counts per domain, each a framed box sized by what it holds.
 *
 * Each list keeps its items (id + one line of text, copied), a selection and
 * a scroll offset that follows it. One list is current; the panel has focus
 * or not (the workbench decides): only a focused panel shows the selection
 * bar and takes keys. Log lists (audit, egress) keep the newest
 * SIDELIST_LOG_MAX items. Plain windows, no menu library: three lists in one
 * window redraw in one pass and scroll independently.
 */
#ifndef LZ_SIDELIST_H
#define LZ_SIDELIST_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "widget.h"

#define SIDELIST_LOG_MAX	500

enum sidelist_list {
	SIDELIST_QUEUE,		/* escalations waiting for a decision */
	SIDELIST_AUDIT,
	SIDELIST_EGRESS,
	SIDELIST_REVIEW,	/* per tab: agent commits not reviewed, surface flags */
	SIDELIST_N
};

struct sidelist_item {
	const char *id;		/* what actions refer to (request id...); may be NULL */
	const char *text;	/* one line; cut by display width */
	bool alert;		/* drawn in the alert style (waiting, denied...) */
};

enum sidelist_action {
	SIDELIST_NONE,		/* key used (or ignored): redraw */
	SIDELIST_OPEN,		/* a, A, Enter: show the selected escalation's prompt
				 * (approving is there, never in the list) */
	SIDELIST_DENY,		/* d / D */
	SIDELIST_EDIT,		/* e / E */
	SIDELIST_QUIT,		/* q / Q: stop the selected escalation's domain (ask first) */
	SIDELIST_UNFOCUS,	/* Esc: give focus back to the terminal */
};

struct sidelist;

struct sidelist *sidelist_new(void);
void sidelist_free(struct sidelist *);

/* Replace a list's items (copied). The selection stays on the item with the
 * same id when there is one, else keeps its index clamped. */
void sidelist_set(struct sidelist *, enum sidelist_list, const struct sidelist_item *items, size_t n);
/* Append one item (a log line); the oldest go beyond SIDELIST_LOG_MAX. */
void sidelist_append(struct sidelist *, enum sidelist_list, const struct sidelist_item *item);
size_t sidelist_count(const struct sidelist *, enum sidelist_list);

void sidelist_set_focus(struct sidelist *, bool focused);
bool sidelist_focused(const struct sidelist *);
void sidelist_set_current(struct sidelist *, enum sidelist_list);
enum sidelist_list sidelist_current(const struct sidelist *);
/* Selected index of a list, -1 when it is empty. */
int sidelist_selected(const struct sidelist *, enum sidelist_list);
void sidelist_select(struct sidelist *, enum sidelist_list, size_t index);
/* id of the selected item of a list (NULL when empty or no id); owned. */
const char *sidelist_selected_id(const struct sidelist *, enum sidelist_list);

/* Draw in the rectangle (y, x, h, w) of win: each list a framed section
 * with "Title (n)" on its top edge (the focused one in heavy lines and the
 * panel.focus style), sharing the height by content: an empty list takes
 * one row, a list with items its items and a frame (share_rows in
 * sidelist.c). Fewer than 6 rows: the current list alone, unframed. */
void sidelist_draw(struct sidelist *, WINDOW *win, int y, int x, int h, int w, const struct widget_palette *);

/* The list drawn at row row of the last draw's rectangle (a mouse click)
 * and the item there (*index -1: its title or an empty row); false:
 * none there. */
bool sidelist_hit(const struct sidelist *, int row, enum sidelist_list *which, long *index);
/* Scroll a list's view by delta items (the wheel), the selection kept in it. */
void sidelist_scroll(struct sidelist *, enum sidelist_list, long delta);

/* Up/Down (k/j), PgUp/PgDn, Home/End move; Tab and Shift-Tab change list;
 * a/Enter, d, e and q act on the queue's selection; Esc gives focus back.
 * / searches the current list (widget_search_key: the selection goes to
 * the first item holding the query as it is typed, Enter keeps it, Esc
 * drops it); then n/N the next and previous item holding it. The query
 * shows on the list's bottom edge. */
enum sidelist_action sidelist_handle_key(struct sidelist *, int key);
/* A search is being typed in the current list: every key is its. */
bool sidelist_searching(const struct sidelist *);

#endif
