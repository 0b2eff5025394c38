/* wb-status.h - the status line's network mode and limit gauges for the
 * active tab's domain, from its coordinator's JSON status (wb-status.c). */
#ifndef LZ_WB_STATUS_H
#define LZ_WB_STATUS_H

#include <stddef.h>
#include <stdint.h>

struct wb;
struct wb_conn;

/* Ask the active tab's coordinator now (a tab switch); clears what another
 * domain showed. */
void wb_status_request(struct wb *wb);
/* Once a second: ask again every few seconds. */
void wb_status_tick(struct wb *wb);
/* A STATUS frame from conn: shown when it is the active tab's domain's. */
void wb_status_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len);
/* Nothing shown (no tab, its connection gone). */
void wb_status_clear(struct wb *wb);

/* used of max in permille (0..1000, capped); -1 when either is unknown or
 * there is no bound (max <= 0). */
int wb_status_permille(long long used, long long max);
/* "net:MODE", or "net:STATE" of a sidecar router that is not up; NULL
 * without a mode. Caller frees. */
char *wb_status_net(const char *mode, const char *router);

#endif
