/* wb-ui.c - what every part of the workbench may call, and that calls none of
 * them back: the status line message, the log the panel shows, focus back to
 * the tab, marks for the next frame (the panel shown or hidden: wb-draw.c
 * lays it out, as tmux's server_redraw_client only sets a flag), and the
 * sample of a key burst. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "shellwords.h"
#include "wb.h"
#include "xmalloc.h"

void __attribute__((format(printf, 2, 3)))
wb_ui_message(struct wb *wb, const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	if (wb->started)
		statusline_message(wb->status, m, time(NULL) + 5);
	else
		fprintf(stderr, "lazaret-workbench: %s\n", m);
	wb->dirty = true;
	free(m);
}

/* The log shown as "audit history": what this workbench saw happen. */
void __attribute__((format(printf, 3, 4)))
wb_ui_log(struct wb *wb, bool alert, const char *fmt, ...)
{
	struct sidelist_item it = { NULL, NULL, alert };
	char ts[16], *m, *line;
	struct tm tm;
	time_t now = time(NULL);
	va_list ap;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	strftime(ts, sizeof ts, "%H:%M:%S", localtime_r(&now, &tm));
	line = xasprintf("%s %s", ts, m);
	it.text = line;
	sidelist_append(wb->side, SIDELIST_AUDIT, &it);
	free(line);
	free(m);
	wb->dirty = true;
}

void
wb_ui_focus_tab(struct wb *wb)
{
	if (sidelist_focused(wb->side)) {
		sidelist_set_focus(wb->side, false);
		wb->dirty = true;
	}
}

char *
wb_ui_burst_sample(const struct wb *wb)
{
	char raw[WB_SAMPLE_KEYS * 5 + 1];
	size_t n = 0;

	for (size_t i = wb->burst_i; wb->burst != NULL && i < wb->burst_n && n + 5 < sizeof raw; i++) {
		int k = wb->burst[i];
		mbstate_t ms;
		size_t m;

		if (WIDGET_KEY_IS_FN(k))
			continue;
		if (k & WIDGET_KEY_META) {
			raw[n++] = 27;
			k &= ~WIDGET_KEY_META;
		}
		if (k < 0x80) {
			raw[n++] = (char)k;
			continue;
		}
		memset(&ms, 0, sizeof ms);
		m = wcrtomb(raw + n, (wchar_t)k, &ms);
		n += m == (size_t)-1 ? 0 : m;
	}
	return lz_shellwords_visible(raw, n);
}

void
wb_ui_panel(struct wb *wb, bool show)
{
	if (COLS >= WB_LAYOUT_SIDE_COLS)
		wb->panel_want = show;
	else
		wb->panel_overlay = show;
	wb->relayout = true;	/* wb-draw.c lays it out before the next frame */
	wb->dirty = true;
}
