/* diffview.c - a windowed pager over a diff stream (see diffview.h); no
 * curses here (diffview-draw.c draws), so the fuzzer drives it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diffview-int.h"
#include "xmalloc.h"

struct diffview *
diffview_new(void)
{
	struct diffview *dv = xcalloc(1, sizeof *dv);

	dv->rows = 24;
	return dv;
}

static void
dv_drop_lines(struct diffview *dv)
{
	size_t i;

	for (i = 0; i < dv->n; i++) {
		free(dv->ring[(dv->first + i) % DIFFVIEW_WINDOW].s);
		dv->ring[(dv->first + i) % DIFFVIEW_WINDOW].s = NULL;
	}
	dv->n = 0;
}

void
diffview_free(struct diffview *dv)
{
	if (dv == NULL)
		return;
	dv_drop_lines(dv);
	free(dv);
}

void
diffview_restart(struct diffview *dv, size_t skip)
{
	dv_drop_lines(dv);
	dv->first = dv->skip = skip;
	dv->seen = 0;
	dv->plen = 0;
	dv->eof = dv->failed = dv->in_hunk = false;
	dv->search_pending = false;
}

void
diffview_clear(struct diffview *dv)
{
	diffview_restart(dv, 0);
	dv->top = 0;
	dv->to_end = false;
	dv->msg[0] = '\0';
}

/* What a line is, following git's layout: headers until a hunk, then
 * hunk lines (' ', '+', '-', '\') until something else starts a header. */
static enum dv_kind
dv_kind(struct diffview *dv, const char *s, size_t len)
{
	if (len >= 5 && memcmp(s, "diff ", 5) == 0) {
		dv->in_hunk = false;
		return DV_META;
	}
	if (len >= 2 && memcmp(s, "@@", 2) == 0) {
		dv->in_hunk = true;
		return DV_HUNK;
	}
	if (!dv->in_hunk)
		return DV_META;
	if (len == 0 || s[0] == ' ' || s[0] == '\\')
		return DV_PLAIN;
	if (s[0] == '+')
		return DV_ADD;
	if (s[0] == '-')
		return DV_DEL;
	dv->in_hunk = false;
	return DV_META;
}

/* s with tabs expanded to 8-column stops (by byte; kept lines are short). */
static char *
dv_expand(const char *s, size_t len)
{
	size_t tabs = 0, i, o = 0;
	char *out;

	for (i = 0; i < len; i++)
		tabs += s[i] == '\t';
	out = xmalloc(len + tabs * 7 + 1);
	for (i = 0; i < len; i++) {
		if (s[i] != '\t') {
			out[o++] = s[i];
			continue;
		}
		do
			out[o++] = ' ';
		while (o % 8 != 0);
	}
	out[o] = '\0';
	return out;
}

static void
dv_line_done(struct diffview *dv)
{
	size_t abs = dv->seen++;
	enum dv_kind k = dv_kind(dv, dv->part, dv->plen);
	struct dv_line *l;

	if (abs < dv->skip)
		goto out;
	if (dv->n == DIFFVIEW_WINDOW) {
		free(dv->ring[dv->first % DIFFVIEW_WINDOW].s);
		dv->ring[dv->first % DIFFVIEW_WINDOW].s = NULL;
		dv->first++;
		dv->n--;
	}
	l = &dv->ring[abs % DIFFVIEW_WINDOW];
	l->s = dv_expand(dv->part, dv->plen);
	l->kind = (unsigned char)k;
	dv->n++;
	if (dv->search_pending && abs >= dv->search_from && strstr(l->s, dv->search) != NULL) {
		dv->search_pending = false;
		dv->top = abs;
		snprintf(dv->msg, sizeof dv->msg, "/%s: line %zu", dv->search, abs + 1);
	}
out:
	dv->plen = 0;
}

void
diffview_feed(struct diffview *dv, const char *buf, size_t len)
{
	const char *nl;
	size_t take, room;

	while (len > 0) {
		nl = memchr(buf, '\n', len);
		take = nl != NULL ? (size_t)(nl - buf) : len;
		room = sizeof dv->part - dv->plen;
		/* A longer line keeps its first DIFFVIEW_LINE_MAX bytes. */
		memcpy(dv->part + dv->plen, buf, take < room ? take : room);
		dv->plen += take < room ? take : room;
		if (nl == NULL)
			return;
		dv_line_done(dv);
		buf += take + 1;
		len -= take + 1;
	}
}

size_t
diffview_last_top(const struct diffview *dv)
{
	return dv->seen > (size_t)dv->rows ? dv->seen - (size_t)dv->rows : 0;
}

void
diffview_eof(struct diffview *dv, bool ok)
{
	if (dv->plen > 0)
		dv_line_done(dv);
	dv->eof = true;
	dv->failed = !ok;
	if (dv->search_pending) {
		dv->search_pending = false;
		snprintf(dv->msg, sizeof dv->msg, "/%s: not found", dv->search);
	}
	if (dv->to_end)
		dv->top = diffview_last_top(dv);
}

bool
diffview_at_eof(const struct diffview *dv)
{
	return dv->eof;
}

bool
diffview_wants(const struct diffview *dv)
{
	if (dv->eof)
		return false;
	if (dv->search_pending || dv->to_end)
		return true;
	return dv->seen < dv->top + (size_t)dv->rows + DIFFVIEW_AHEAD;
}

bool
diffview_needs_restart(const struct diffview *dv, size_t *skip)
{
	if (dv->top >= dv->first)
		return false;
	*skip = dv->top > DIFFVIEW_WINDOW / 4 ? dv->top - DIFFVIEW_WINDOW / 4 : 0;
	return true;
}

static void
dv_move(struct diffview *dv, long delta)
{
	size_t max = dv->eof ? diffview_last_top(dv) : dv->seen;
	long t = (long)dv->top + delta;

	dv->to_end = false;
	dv->search_pending = false;
	dv->msg[0] = '\0';
	if (t < 0)
		t = 0;
	/* Down stops at the last page (while reading: at the last line read). */
	if (delta > 0 && (size_t)t > max)
		t = (long)(max > dv->top ? max : dv->top);
	dv->top = (size_t)t;
}

/* n/N without a new text: from the line after (before) the top. */
static void
dv_find(struct diffview *dv, bool forward)
{
	size_t abs;

	if (dv->search[0] == '\0') {
		snprintf(dv->msg, sizeof dv->msg, "no search yet: / and the text to find");
		return;
	}
	dv->search_pending = false;
	if (forward) {
		for (abs = dv->top + 1 > dv->first ? dv->top + 1 : dv->first;
		    abs < dv->first + dv->n; abs++)
			if (strstr(dv->ring[abs % DIFFVIEW_WINDOW].s, dv->search) != NULL)
				goto found;
		if (dv->eof) {
			snprintf(dv->msg, sizeof dv->msg, "/%s: not found", dv->search);
			return;
		}
		/* Read on: dv_line_done looks at every new line. */
		dv->search_pending = true;
		dv->search_from = dv->top + 1;
		snprintf(dv->msg, sizeof dv->msg, "/%s: searching...", dv->search);
		return;
	}
	/* The top may be past what is kept (a restart still skipping). */
	for (abs = dv->top < dv->first + dv->n ? dv->top : dv->first + dv->n; abs > dv->first; abs--)
		if (strstr(dv->ring[(abs - 1) % DIFFVIEW_WINDOW].s, dv->search) != NULL) {
			abs--;
			goto found;
		}
	snprintf(dv->msg, sizeof dv->msg, dv->first > 0 ? "/%s: not found in the lines kept above "
	    "(g: back to the start)" : "/%s: not found above", dv->search);
	return;
found:
	dv->top = abs;
	snprintf(dv->msg, sizeof dv->msg, "/%s: line %zu", dv->search, abs + 1);
}

void
diffview_search(struct diffview *dv, const char *text)
{
	snprintf(dv->search, sizeof dv->search, "%s", text);
	dv->to_end = false;
	dv_find(dv, true);
}

bool
diffview_handle_key(struct diffview *dv, int key)
{
	long page = dv->rows > 1 ? dv->rows - 1 : 1;

	switch (key) {
	case 'j':
	case WIDGET_KEY_FN(KEY_DOWN):
		dv_move(dv, 1);
		break;
	case 'k':
	case WIDGET_KEY_FN(KEY_UP):
		dv_move(dv, -1);
		break;
	case ' ':
	case WIDGET_KEY_FN(KEY_NPAGE):
		dv_move(dv, page);
		break;
	case WIDGET_KEY_FN(KEY_PPAGE):
		dv_move(dv, -page);
		break;
	case 'g':
	case WIDGET_KEY_FN(KEY_HOME):
		dv_move(dv, -(long)dv->top);
		break;
	case 'G':
	case WIDGET_KEY_FN(KEY_END):
		dv->msg[0] = '\0';
		dv->search_pending = false;
		dv->to_end = true;
		if (dv->eof)
			dv->top = diffview_last_top(dv);
		break;
	case 'n':
		dv_find(dv, true);
		break;
	case 'N':
		dv_find(dv, false);
		break;
	default:
		return false;
	}
	return true;
}

void
diffview_position(const struct diffview *dv, char *buf, size_t size)
{
	size_t last = dv->top + (size_t)dv->rows;

	if (dv->msg[0] != '\0')
		snprintf(buf, size, "%s", dv->msg);
	else if (dv->eof)
		snprintf(buf, size, "lines %zu-%zu of %zu", dv->seen > 0 ? dv->top + 1 : 0,
		    last < dv->seen ? last : dv->seen, dv->seen);
	else
		snprintf(buf, size, "lines %zu-%zu of %zu+ (%s)", dv->top + 1, last, dv->seen,
		    dv->to_end ? "reading to the end" : "more as you scroll");
}
