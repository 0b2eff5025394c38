/* textview.h - a titled read-only text dialog (the key help, `prefix ?`):
 * lines in a bordered window on its own panel, scrolled with Up/Down (k/j),
 * PgUp/PgDn (Space), Home/End; when made searchable, / searches (as typed;
 * Enter keeps it, Esc drops it; n/N the next and previous line holding it,
 * the line found highlighted); q, Esc or Enter close it. Lines are cut by display width,
 * hostile characters made visible (widget_put).
 */
#ifndef LZ_TEXTVIEW_H
#define LZ_TEXTVIEW_H

#include <curses.h>

#include "widget.h"

enum textview_action {
	TEXTVIEW_NONE,
	TEXTVIEW_CLOSE,
};

struct textview;

/* A dialog showing lines (NULL-terminated, copied) on a lines x cols screen. */
struct textview *textview_new(const char *title, char *const *text, int lines, int cols);
void textview_free(struct textview *);
void textview_resize(struct textview *, int lines, int cols);
void textview_draw(struct textview *, const struct widget_palette *);
enum textview_action textview_handle_key(struct textview *, int key);
/* / searches this view (help pages, long text); the footer says so. */
void textview_searchable(struct textview *);
/* First line shown. */
int textview_scroll(const struct textview *);
WINDOW *textview_window(const struct textview *);

#endif
