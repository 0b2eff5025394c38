/* wb-egress.c - the side panel's Egress list (was part of wb-netreq.c): the
 * active tab's domain's network requests (pending first), then its egress
 * log and its events live (the coordinator keeps following a connection
 * once asked; events of the other domains are dropped here), grouped by
 * destination so that one download is one row with a count
 * (wb-egroup.h). Events only count; the list is rebuilt once per frame,
 * so a busy log costs one rebuild a frame, not one per event. */
#include <stdlib.h>
#include <string.h>

#include "netctl.h"
#include "wb.h"
#include "wb-egress.h"
#include "wb-egroup.h"
#include "xmalloc.h"

#define WB_EGRESS_QUIET_MS	5000	/* a refusal after this long without one is a new burst */

static struct wb_egroup *
wb_egress_groups(struct wb *wb)
{
	if (wb->egroup == NULL)
		wb->egroup = wb_egroup_new();
	return wb->egroup;
}

/* A row too wide for the panel drops its "via ENTRY" first: the
 * destination must stay whole. Still too wide, the list's own ellipsis
 * takes a long name's middle, never its end (the domain that matters). */
static char *
wb_egress_fit(const struct wb *wb, char *row)
{
	int avail = wb->lay.panel.w - 3;	/* frame, a blank, frame */
	char *via = strstr(row, "  via ");

	if (avail < 8 || widget_width(row) <= avail || via == NULL)
		return row;
	*via = '\0';
	return row;
}

void
wb_egress_rebuild(struct wb *wb)
{
	struct wb_egroup *g = wb_egress_groups(wb);
	size_t shown = wb_egroup_count_shown(g, wb->egress_blocked);
	struct sidelist_item *items = xcalloc(WB_NETREQ_SHOWN + shown + 2, sizeof *items);
	char **texts = xcalloc(WB_NETREQ_SHOWN + shown + 2, sizeof *texts);
	size_t n = wb_netreq_panel(wb, items, texts, WB_NETREQ_SHOWN), k = n;
	bool blocked;

	for (size_t i = 0; i < shown; i++) {
		texts[k] = wb_egress_fit(wb, wb_egroup_row(g, i, wb->egress_blocked, &blocked));
		items[k] = (struct sidelist_item){ NULL, texts[k], blocked };
		k++;
	}
	if (k == 0) {
		texts[k] = xstrdup(wb->egress_blocked && wb_egroup_count(g) > 0 ?
		    "nothing blocked (b: show all)" : WB_EGRESS_NOTE);
		items[k] = (struct sidelist_item){ NULL, texts[k], false };
		k++;
	}
	sidelist_set(wb->side, SIDELIST_EGRESS, items, k);
	for (size_t i = 0; i < k; i++)
		free(texts[i]);
	free(texts);
	free(items);
	wb->egress_stale = false;
	wb->dirty = true;
}

void
wb_egress_refresh(struct wb *wb)
{
	if (wb->egress_stale)
		wb_egress_rebuild(wb);
}

void
wb_egress_request(struct wb *wb, struct wb_tab *tab)
{
	struct proto_buf b = { 0 };

	wb_egroup_clear(wb_egress_groups(wb));
	wb_egress_rebuild(wb);
	netctl_encode_egress_req(&b, NETCTL_FOLLOW, 100);
	wb_conn_send(tab->conn, &b);
}

/* A request the broker refused is news at once, whichever tab is in front
 * (issue 26 item 4): a status-line message naming the tab, the credential,
 * method and path (the message is what every user looks at; the Egress
 * list shows only the active domain), the tab's title flashing when it is
 * in the background (as when it starts to need the user), and a line in
 * the workbench's log. Once per burst: a refusal WB_EGRESS_QUIET_MS after
 * the last one starts a new burst; an agent retrying in a loop is one
 * notice, its count in the Egress list. */
static void
wb_egress_refused(struct wb *wb, struct wb_conn *conn, const struct netctl_event *e)
{
	struct wb_tab *tab = NULL;
	_cleanup_free_ char *text = NULL;
	size_t i, at = 0;
	bool burst;

	for (i = 0; i < wb->n_tabs && tab == NULL; i++)
		if (wb->tabs[i]->conn == conn)
			tab = wb->tabs[at = i];
	if (tab == NULL || (text = wb_egroup_refused_text(e)) == NULL ||
	    e->time_ms <= tab->refused_seen_ms)
		return;		/* older than the tab, or sent again (a tab switch asks again) */
	tab->refused_seen_ms = e->time_ms;
	burst = tab->refused_burst_ms != 0 && e->time_ms - tab->refused_burst_ms < WB_EGRESS_QUIET_MS;
	tab->refused_burst_ms = e->time_ms;
	if (burst)
		return;
	wb_ui_message(wb, "tab %zu %s: %s", at, tab->title != NULL ? tab->title : tab->profile, text);
	wb_ui_log(wb, true, "tab %zu %s", at, text);
	if (tab != wb_tabs_active(wb))
		tab->flash_until = uv_now(wb->loop) + WB_NEED_FLASH_MS;
}

void
wb_egress_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	struct netctl_event e;
	lz_err_t err = LZ_ERR_INIT;

	if (netctl_decode_event(p, len, &e, &err) < 0) {
		lz_err_clear(&err);
		return;
	}
	if (e.kind == NETCTL_EV_BROKER && !e.allowed)
		wb_egress_refused(wb, conn, &e);
	if (tab == NULL || tab->conn != conn)
		return;
	/* a new destination has a new audit row: the Audit list asks again soon */
	if (wb_egroup_add(wb_egress_groups(wb), &e))
		wb->audit_stale = true;
	wb->egress_stale = true;
	wb->dirty = true;
}

bool
wb_egress_side_key(struct wb *wb, int key)
{
	if (key != 'b' || sidelist_current(wb->side) != SIDELIST_EGRESS)
		return false;
	wb->egress_blocked = !wb->egress_blocked;
	wb_ui_message(wb, "egress: %s", wb->egress_blocked ? "blocked destinations only (b: all)" :
	    "every destination");
	wb_egress_rebuild(wb);
	return true;
}

void
wb_egress_free(struct wb *wb)
{
	wb_egroup_free(wb->egroup);
	wb->egroup = NULL;
}
