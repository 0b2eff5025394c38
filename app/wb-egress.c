/* wb-egress.c - the side panel's Egress list: the active tab's domain's
 * egress log, then its events live (the coordinator keeps following a
 * connection once asked; events of the other domains are dropped here). */
#include <stdlib.h>
#include <string.h>

#include "netctl-text.h"
#include "wb.h"

void
wb_egress_request(struct wb *wb, struct wb_tab *tab)
{
	struct sidelist_item note = { NULL, WB_EGRESS_NOTE, false };
	struct proto_buf b = { 0 };

	sidelist_set(wb->side, SIDELIST_EGRESS, &note, 1);
	wb->egress_n = 0;
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

	if (netctl_decode_event(p, len, &e, &err) < 0 || tab == NULL || tab->conn != conn) {
		lz_err_clear(&err);
		return;
	}
	line = netctl_text_event(&e, false);
	it.text = line + (strlen(line) > 11 ? 11 : 0);	/* the time of day, not the date */
	it.alert = !e.allowed;
	if (wb->egress_n++ == 0)
		sidelist_set(wb->side, SIDELIST_EGRESS, &it, 1);
	else
		sidelist_append(wb->side, SIDELIST_EGRESS, &it);
	free(line);
	wb->dirty = true;
}
