/* wb-egress.c - the side panel's Egress list: the active tab's domain's
 * network requests (wb-netreq.c: pending first), then its egress log and
 * its events live (the coordinator keeps following a connection once asked;
 * events of the other domains are dropped here). The events are kept here
 * too, so the list can be rebuilt when a request comes or changes. */
#include <stdlib.h>
#include <string.h>

#include "netctl-text.h"
#include "wb.h"
#include "xmalloc.h"

/* Events kept: the list holds the requests shown too. */
#define WB_EGRESS_KEEP	(SIDELIST_LOG_MAX - WB_NETREQ_SHOWN)

static void
wb_egress_clear(struct wb *wb)
{
	for (size_t i = 0; i < wb->egress_n; i++)
		free(wb->egress_ev[i].text);
	wb->egress_n = 0;
}

void
wb_egress_rebuild(struct wb *wb)
{
	struct sidelist_item *items = xcalloc(WB_NETREQ_SHOWN + wb->egress_n + 1, sizeof *items);
	char **texts = xcalloc(WB_NETREQ_SHOWN + 1, sizeof *texts);
	size_t n = wb_netreq_panel(wb, items, texts, WB_NETREQ_SHOWN), k = n;

	for (size_t i = 0; i < wb->egress_n; i++)
		items[k++] = (struct sidelist_item){ NULL, wb->egress_ev[i].text, wb->egress_ev[i].alert };
	if (k == 0)
		items[k++] = (struct sidelist_item){ NULL, WB_EGRESS_NOTE, false };
	sidelist_set(wb->side, SIDELIST_EGRESS, items, k);
	for (size_t i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(items);
	wb->dirty = true;
}

void
wb_egress_request(struct wb *wb, struct wb_tab *tab)
{
	struct proto_buf b = { 0 };

	wb_egress_clear(wb);
	wb_egress_rebuild(wb);
	netctl_encode_egress_req(&b, NETCTL_FOLLOW, 100);
	wb_conn_send(tab->conn, &b);
}

void
wb_egress_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	struct netctl_event e;
	struct sidelist_item it = { NULL, NULL, false };
	lz_err_t err = LZ_ERR_INIT;
	char *line;
	bool first = wb->egress_n == 0;

	if (netctl_decode_event(p, len, &e, &err) < 0 || tab == NULL || tab->conn != conn) {
		lz_err_clear(&err);
		return;
	}
	line = netctl_text_event(&e, false);
	if (wb->egress_n == WB_EGRESS_KEEP) {
		free(wb->egress_ev[0].text);
		memmove(&wb->egress_ev[0], &wb->egress_ev[1], (WB_EGRESS_KEEP - 1) * sizeof wb->egress_ev[0]);
		wb->egress_n--;
	}
	/* The time of day, not the date. */
	wb->egress_ev[wb->egress_n].text = xstrdup(line + (strlen(line) > 11 ? 11 : 0));
	wb->egress_ev[wb->egress_n].alert = !e.allowed;
	it = (struct sidelist_item){ NULL, wb->egress_ev[wb->egress_n].text, !e.allowed };
	wb->egress_n++;
	/* The first replaces the note; a full list would drop the requests atop it. */
	if (first || sidelist_count(wb->side, SIDELIST_EGRESS) >= SIDELIST_LOG_MAX)
		wb_egress_rebuild(wb);
	else
		sidelist_append(wb->side, SIDELIST_EGRESS, &it);
	free(line);
	wb->dirty = true;
}

void
wb_egress_free(struct wb *wb)
{
	wb_egress_clear(wb);
}
