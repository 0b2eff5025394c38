/* wb-egress.h - the side panel's Egress list (wb-egress.c): the active
 * tab's domain's pending network requests, then its egress events grouped
 * by destination (wb-egroup.h), live; b shows the blocked ones alone. */
#ifndef LZ_WB_EGRESS_H
#define LZ_WB_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wb;
struct wb_conn;
struct wb_tab;

/* Ask tab's coordinator for its egress log and to follow it (the list
 * starts again). */
void wb_egress_request(struct wb *wb, struct wb_tab *tab);
/* An egress event from conn: counted in its group (the list is rebuilt
 * once per frame, wb_egress_refresh). */
void wb_egress_frame(struct wb *wb, struct wb_conn *conn, const uint8_t *p, size_t len);
/* Rebuild the list now (a request came or changed). */
void wb_egress_rebuild(struct wb *wb);
/* Before a frame: rebuild when events came. */
void wb_egress_refresh(struct wb *wb);
/* The focused Egress list's b: blocked destinations only, or all again;
 * false: not ours. */
bool wb_egress_side_key(struct wb *wb, int key);
void wb_egress_free(struct wb *wb);

#endif
