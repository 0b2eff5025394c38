/* diffview-int.h - the state diffview.c keeps and diffview-draw.c draws.
 *
 * Line abs (0-based in the stream) lives in ring[abs % DIFFVIEW_WINDOW]
 * while first <= abs < first + n. seen counts the lines completed in the
 * current stream, kept or skipped, so a restart knows where it is.
 */
#ifndef LZ_DIFFVIEW_INT_H
#define LZ_DIFFVIEW_INT_H

#include "diffview.h"

enum dv_kind {
	DV_PLAIN,
	DV_META,
	DV_HUNK,
	DV_ADD,
	DV_DEL,
};

struct dv_line {
	char *s;		/* tabs expanded, NUL-terminated */
	unsigned char kind;
};

struct diffview {
	struct dv_line ring[DIFFVIEW_WINDOW];
	size_t first, n;	/* the kept window */
	size_t seen;		/* lines completed in this stream */
	size_t skip;		/* lines below this are counted, not kept */
	size_t top;		/* first line on screen */
	int rows;		/* screen rows at the last draw */
	bool eof, failed, to_end, in_hunk;
	char part[DIFFVIEW_LINE_MAX];	/* the line being read */
	size_t plen;
	char search[DIFFVIEW_SEARCH_MAX];
	bool search_pending;	/* reading on for a match at or after search_from */
	size_t search_from;
	char msg[DIFFVIEW_SEARCH_MAX + 64];
};

/* The top line that shows the last screenful of what was read. */
size_t diffview_last_top(const struct diffview *dv);

#endif
