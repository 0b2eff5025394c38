/* wb-status.c - the status line's right part: the active tab's domain's
 * network mode and gauges of its limits' use. Every WB_STATUS_EVERY ticks
 * (and when the active tab changes) the workbench asks the tab's
 * coordinator for its status as JSON (the frame `lazaret status --json`
 * reads) and shows "net:MODE" and a gauge each for memory (the domain's
 * cgroup), pids (host tasks against the backstop) and disk (the disk
 * watchdog's last walk) that has a bound.
 */
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "surface-json.h"
#include "wb.h"
#include "wb-status.h"
#include "xmalloc.h"

#define WB_STATUS_EVERY	2	/* ticks (seconds) between two asks */

/* A number member of the status's "usage" object; -1 when not there. */
static long long
wb_status_num(const struct surface_json *j, const char *key)
{
	const char *v = surface_json_get(j, "usage", key);

	return v != NULL && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) ? strtoll(v, NULL, 10) : -1;
}

int
wb_status_permille(long long used, long long max)
{
	if (used < 0 || max <= 0)
		return -1;
	return used >= max ? 1000 : (int)(used * 1000 / max);
}

char *
wb_status_net(const char *mode, const char *router)
{
	if (mode == NULL)
		return NULL;
	/* A router that is not up is what the user must see, not "sidecar". */
	if (strcmp(mode, "sidecar") == 0 && router != NULL && strcmp(router, "up") != 0)
		return xasprintf("net:%s", router);
	return xasprintf("net:%s", mode);
}

/* A canonical JSON string value ("\"up\"") without its quotes; NULL if not one. */
static char *
wb_status_str(const struct surface_json *j, const char *top, const char *sub)
{
	const char *v = surface_json_get(j, top, sub);
	size_t n;

	if (v == NULL || (n = strlen(v)) < 2 || v[0] != '"' || v[n - 1] != '"' ||
	    memchr(v + 1, '\\', n - 2) != NULL)
		return NULL;
	return xstrndup(v + 1, n - 2);
}

void
wb_status_clear(struct wb *wb)
{
	statusline_set_info(wb->status, NULL, NULL, 0);
	wb->status_conn = NULL;
	wb->dirty = true;
}

void
wb_status_request(struct wb *wb)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	struct proto_buf b = { 0 };

	if (tab == NULL || tab->conn == NULL || wb_conn_state(tab->conn) != WB_CONN_READY) {
		if (wb->status_conn != NULL)
			wb_status_clear(wb);
		return;
	}
	if (wb->status_conn != tab->conn)
		wb_status_clear(wb);
	wb->status_ticks = 0;
	proto_encode_status_req(&b, PROTO_STATUS_JSON);
	wb_conn_send(tab->conn, &b);
}

void
wb_status_tick(struct wb *wb)
{
	if (++wb->status_ticks >= WB_STATUS_EVERY)
		wb_status_request(wb);
}

void
wb_status_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	struct surface_json j = { NULL, 0 };
	struct statusline_gauge g[STATUSLINE_GAUGES];
	lz_err_t err = LZ_ERR_INIT;
	char *mode, *router, *net;

	if (tab == NULL || tab->conn != conn || len == 0 || p[0] != '{')
		return;		/* another tab's, or not the JSON form */
	if (surface_json_parse(p, len, &j, &err) < 0) {
		lz_err_clear(&err);
		return;
	}
	mode = wb_status_str(&j, "network", "mode");
	router = wb_status_str(&j, "network", "router");
	net = wb_status_net(mode, router);
	g[0] = (struct statusline_gauge){ "mem", wb_status_permille(wb_status_num(&j, "memory"),
	    wb_status_num(&j, "memory_max")) };
	g[1] = (struct statusline_gauge){ "pid", wb_status_permille(wb_status_num(&j, "pids"),
	    wb_status_num(&j, "pids_max")) };
	g[2] = (struct statusline_gauge){ "dsk", wb_status_permille(wb_status_num(&j, "disk"),
	    wb_status_num(&j, "disk_max")) };
	statusline_set_info(wb->status, net, g, STATUSLINE_GAUGES);
	wb->status_conn = conn;
	wb->dirty = true;
	free(mode);
	free(router);
	free(net);
	surface_json_clear(&j);
}
