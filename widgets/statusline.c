/* statusline.c - state, hints or a message, clock: one row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statusline.h"
#include "xmalloc.h"

struct statusline {
	char *state, *hints, *msg;
	time_t until;
	bool clock;
	char *net;
	struct {
		char label[8];
		int permille;
	} gauge[STATUSLINE_GAUGES];
	size_t n_gauges;
};

struct statusline *
statusline_new(void)
{
	return xcalloc(1, sizeof(struct statusline));
}

void
statusline_free(struct statusline *sl)
{
	if (sl == NULL)
		return;
	free(sl->state);
	free(sl->hints);
	free(sl->msg);
	free(sl->net);
	free(sl);
}

static void
replace(char **dst, const char *s)
{
	free(*dst);
	*dst = s != NULL ? xstrdup(s) : NULL;
}

void
statusline_set_state(struct statusline *sl, const char *state)
{
	replace(&sl->state, state);
}

void
statusline_set_hints(struct statusline *sl, const char *hints)
{
	replace(&sl->hints, hints);
}

void
statusline_message(struct statusline *sl, const char *msg, time_t until)
{
	replace(&sl->msg, msg);
	sl->until = until;
}

void
statusline_set_clock(struct statusline *sl, bool on)
{
	sl->clock = on;
}

void
statusline_set_info(struct statusline *sl, const char *net, const struct statusline_gauge *g,
		    size_t n)
{
	replace(&sl->net, net);
	sl->n_gauges = 0;
	for (size_t i = 0; i < n && sl->n_gauges < STATUSLINE_GAUGES; i++) {
		if (g[i].label == NULL)
			continue;
		snprintf(sl->gauge[sl->n_gauges].label, sizeof sl->gauge[0].label, "%s", g[i].label);
		sl->gauge[sl->n_gauges++].permille = g[i].permille;
	}
}

void
statusline_gauge_bar(int permille, bool utf8, char *buf, size_t size)
{
	/* U+2581..U+2588: one to eight eighths, bottom up; the trough is a blank
	 * in the gauge's background (the theme's gauge.* bg). */
	static const char *const eighth[9] = { " ", "\u2581", "\u2582", "\u2583", "\u2584",
	    "\u2585", "\u2586", "\u2587", "\u2588" };
	int fill = permille < 0 ? 0 : permille > 1000 ? 1000 : permille;
	size_t at = 0;

	/* Eighths over the whole bar; anything above zero shows at least one. */
	fill = (fill * STATUSLINE_GAUGE_CELLS * 8 + 999) / 1000;
	if (size == 0)
		return;
	buf[0] = '\0';
	for (int c = 0; c < STATUSLINE_GAUGE_CELLS; c++) {
		int e = fill - c * 8;
		const char *ch;

		e = e < 0 ? 0 : e > 8 ? 8 : e;
		ch = utf8 ? eighth[e] : e >= 4 ? "#" : e > 0 ? ":" : ".";
		if (at + strlen(ch) + 1 > size)
			break;
		memcpy(buf + at, ch, strlen(ch) + 1);
		at += strlen(ch);
	}
}

/* Columns the right part takes: " net" and each " label bar" (all=false: net only). */
static int
right_width(const struct statusline *sl, bool gauges)
{
	int w = sl->net != NULL ? 1 + widget_width(sl->net) : 0;

	for (size_t i = 0; gauges && i < sl->n_gauges; i++)
		if (sl->gauge[i].permille >= 0)
			w += 1 + (int)strlen(sl->gauge[i].label) + 1 + STATUSLINE_GAUGE_CELLS;
	return w;
}

static void
draw_right(const struct statusline *sl, WINDOW *win, int y, int x, bool gauges,
	   const struct widget_palette *pal)
{
	const struct widget_style *st = &pal->style[THEME_STATUS];
	char bar[64];

	if (sl->net != NULL) {
		widget_fill(win, y, x, 1, st);
		x += 1 + widget_puts(win, y, x + 1, sl->net, widget_width(sl->net), st);
	}
	for (size_t i = 0; gauges && i < sl->n_gauges; i++) {
		int pm = sl->gauge[i].permille;
		const struct widget_style *gs = &pal->style[pm >= 900 ? THEME_GAUGE_FULL :
		    pm >= 700 ? THEME_GAUGE_WARN : THEME_GAUGE_OK];

		if (pm < 0)
			continue;
		x += 1 + widget_puts(win, y, x + 1, sl->gauge[i].label, 8, st);
		statusline_gauge_bar(pm, widget_utf8(), bar, sizeof bar);
		x += 1 + widget_put(win, y, x + 1, bar, strlen(bar), STATUSLINE_GAUGE_CELLS, gs, 0, NULL);
	}
}

void
statusline_draw(struct statusline *sl, WINDOW *win, int y, int x, int width, time_t now,
		const struct widget_palette *pal)
{
	const struct widget_style *st = &pal->style[THEME_STATUS];
	struct widget_style strong = *st;
	char clock[8] = "";
	const char *mid;
	int cw = 0, col = 0, rw, sw;
	bool gauges = true;
	struct tm tm;

	if (width <= 0)
		return;
	strong.attr |= A_BOLD;
	if (sl->msg != NULL && sl->until != 0 && now >= sl->until)
		replace(&sl->msg, NULL);
	mid = sl->msg != NULL ? sl->msg : sl->hints;
	widget_fill(win, y, x, width, st);
	if (sl->clock && localtime_r(&now, &tm) != NULL && strftime(clock, sizeof(clock), "%H:%M", &tm) > 0)
		cw = (int)strlen(clock) + 1;
	/* The clock only when the state still fits beside it. */
	sw = sl->state != NULL ? widget_width(sl->state) : 0;
	if (cw > 0 && sw + cw > width)
		cw = 0;
	/* The gauges, then the network mode, only when the state (and a
	 * message: it says what just happened) fits beside them. */
	if (sl->msg != NULL)
		sw += 1 + widget_width(sl->msg);
	rw = right_width(sl, true);
	if (sw + cw + rw > width) {
		gauges = false;
		rw = right_width(sl, false);
	}
	if (sw + cw + rw > width)
		rw = 0;
	if (sl->state != NULL && sl->state[0] != '\0')
		col = widget_puts(win, y, x, sl->state, width - cw - rw, &strong) + 1;
	/* A few columns at least, or an ellipsis alone would stand there. */
	if (mid != NULL && col + 4 <= width - cw - rw)
		widget_puts(win, y, x + col, mid, width - cw - rw - col, sl->msg != NULL ? &strong : st);
	if (rw > 0)
		draw_right(sl, win, y, x + width - cw - rw, gauges, pal);
	if (cw > 0)
		widget_put(win, y, x + width - cw + 1, clock, strlen(clock), cw - 1, st, 0, NULL);
}

enum statusline_action
statusline_handle_key(struct statusline *sl, int key)
{
	if (key == WIDGET_KEY_NONE || sl->msg == NULL)
		return STATUSLINE_NONE;
	replace(&sl->msg, NULL);
	return STATUSLINE_DISMISSED;
}
