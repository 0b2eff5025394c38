/* wb-tour.h - the first start's one-screen tour (wb-tour.c): shown when
 * the user's state directory has no mark of it, and never again once
 * dismissed ($XDG_STATE_HOME/lazaret/tour-seen, ~/.local/state by
 * default). */
#ifndef LZ_WB_TOUR_H
#define LZ_WB_TOUR_H

#include <stdbool.h>

struct wb;
struct textview;

/* The mark's path (caller frees), or NULL without HOME nor XDG_STATE_HOME. */
char *wb_tour_mark_path(void);
/* At start: the tour over everything unless it was dismissed before. */
void wb_tour_maybe_open(struct wb *wb);
/* The help dialog tv is being closed: when it is the tour, remember that. */
void wb_tour_closing(struct wb *wb, const struct textview *tv);

#endif
