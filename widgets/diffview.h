/* diffview.h - a pager over a stream of diff lines that is never held
 * whole (the workbench's review view; a 50 MB file's diff must not be read
 * into memory nor block the screen).
 *
 * The owner reads the stream (a pipe from git) and hands bytes over with
 * diffview_feed(); the view keeps only a window of DIFFVIEW_WINDOW lines,
 * each cut to DIFFVIEW_LINE_MAX bytes. diffview_wants() says whether the
 * view needs more lines than it has (the screen plus DIFFVIEW_AHEAD, a
 * search, or the end for G); when it says no, the owner stops reading and
 * the writer blocks on the full pipe. Moving above the window needs the
 * stream again from its start (diffview_restart_at(); the skipped lines
 * are counted, not kept). Lines are coloured by what they are in the diff
 * (file header, hunk header, added, removed), tracked as they stream by.
 */
#ifndef LZ_DIFFVIEW_H
#define LZ_DIFFVIEW_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "widget.h"

#define DIFFVIEW_WINDOW		2048	/* lines kept */
#define DIFFVIEW_AHEAD		256	/* lines read ahead of the screen's last */
#define DIFFVIEW_LINE_MAX	1024	/* bytes kept of a line */
#define DIFFVIEW_SEARCH_MAX	256

struct diffview;

struct diffview *diffview_new(void);
void diffview_free(struct diffview *);

/* A new stream for a new file: everything forgotten, the view at line 1. */
void diffview_clear(struct diffview *);
/* Bytes of the stream, in order. */
void diffview_feed(struct diffview *, const char *buf, size_t len);
/* The stream ended (ok false: it failed; the view says so). */
void diffview_eof(struct diffview *, bool ok);
bool diffview_at_eof(const struct diffview *);

/* The view needs lines not read yet: keep reading. */
bool diffview_wants(const struct diffview *);
/* The view moved above the kept window: true with *skip, the line the
 * new stream must be kept from; call diffview_restart() then start the
 * stream again. */
bool diffview_needs_restart(const struct diffview *, size_t *skip);
/* The stream starts again from its first byte; lines before skip are
 * counted and dropped. */
void diffview_restart(struct diffview *, size_t skip);

/* Draw rows [y, y + h) of win, w columns from x. */
void diffview_draw(struct diffview *, WINDOW *win, int y, int x, int h, int w,
    const struct widget_palette *);
/* j/k Up/Down, PgUp/PgDn/Space, g/Home, G/End, n/N (the last search
 * again, towards the end / the start). true: the key was the view's. */
bool diffview_handle_key(struct diffview *, int key);
/* Find text from the line after the top towards the end (reading on as
 * needed); the match becomes the top line. */
void diffview_search(struct diffview *, const char *text);

/* "lines 1-20 of 1234", "lines 1-20 of 2300+ (reading)", "/foo: not found";
 * into buf. */
void diffview_position(const struct diffview *, char *buf, size_t size);

#endif
