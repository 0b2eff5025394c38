/* statusline.c - state, hints or a message, clock: one row. */
#include <stdlib.h>
#include <string.h>

#include "statusline.h"
#include "xmalloc.h"

struct statusline {
	char *state, *hints, *msg;
	time_t until;
	bool clock;
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
statusline_draw(struct statusline *sl, WINDOW *win, int y, int x, int width, time_t now,
		const struct widget_palette *pal)
{
	const struct widget_style *st = &pal->style[THEME_STATUS];
	struct widget_style strong = *st;
	char clock[8] = "";
	const char *mid;
	int cw = 0, col = 0;
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
	if (cw > 0 && (sl->state != NULL ? widget_width(sl->state) : 0) + cw > width)
		cw = 0;
	if (sl->state != NULL && sl->state[0] != '\0')
		col = widget_puts(win, y, x, sl->state, width - cw, &strong) + 1;
	/* A few columns at least, or an ellipsis alone would stand there. */
	if (mid != NULL && col + 4 <= width - cw)
		widget_puts(win, y, x + col, mid, width - cw - col, sl->msg != NULL ? &strong : st);
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
