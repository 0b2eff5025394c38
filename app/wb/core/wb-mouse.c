/* wb-mouse.c - SGR mouse reports out of the keys of one read (see wb-mouse.h). */
#include <string.h>

#include "wb-mouse.h"

int
wb_mouse_button(const struct wb_mouse *m)
{
	int b = m->b & ~(WB_MOUSE_SHIFT | WB_MOUSE_ALT | WB_MOUSE_CTRL | WB_MOUSE_MOTION);

	if (b >= WB_MOUSE_WHEEL)
		return b <= WB_MOUSE_WHEEL + 1 ? b : 3;
	return b & 3;
}

bool
wb_mouse_is_press(const struct wb_mouse *m)
{
	return !m->release && !(m->b & WB_MOUSE_MOTION) && wb_mouse_button(m) < 3;
}

/* A decimal number of at most 4 digits at keys[*i], then sep. */
static bool
number(const int *keys, size_t n, size_t *i, int sep, int *out)
{
	size_t digits = 0;
	int v = 0;

	while (*i < n && keys[*i] >= '0' && keys[*i] <= '9' && digits < 5) {
		v = v * 10 + (keys[*i] - '0');
		(*i)++;
		digits++;
	}
	if (digits == 0 || digits > 4 || *i >= n)
		return false;
	if (sep >= 0 && keys[*i] != sep)
		return false;
	*out = v;
	return true;
}

/* The report starting at keys[at] (after its ESC [ < or KEY_MOUSE): its end
 * (past M/m) in *end, or false. */
static bool
report(const int *keys, size_t n, size_t at, size_t *end, struct wb_mouse *m)
{
	size_t i = at;
	int b, x, y;

	if (!number(keys, n, &i, ';', &b))
		return false;
	i++;
	if (!number(keys, n, &i, ';', &x))
		return false;
	i++;
	if (!number(keys, n, &i, -1, &y) || (keys[i] != 'M' && keys[i] != 'm'))
		return false;
	if (x < 1 || y < 1 || x > WB_MOUSE_COORD_MAX || y > WB_MOUSE_COORD_MAX || b > 255)
		return false;
	m->b = b;
	m->x = x - 1;
	m->y = y - 1;
	m->release = keys[i] == 'm';
	*end = i + 1;
	return true;
}

size_t
wb_mouse_parse(int *keys, size_t n, struct wb_mouse *evs, size_t max_evs, size_t *n_evs)
{
	size_t out = 0, i = 0, end;

	*n_evs = 0;
	while (i < n) {
		size_t body = 0;

		if (keys[i] == WIDGET_KEY_ESC && i + 2 < n && keys[i + 1] == '[' && keys[i + 2] == '<')
			body = i + 3;
		else if (keys[i] == WB_MOUSE_KEY)
			body = i + 1;	/* ncurses ate ESC [ < and left the rest */
		if (body != 0 && *n_evs < max_evs && report(keys, n, body, &end, &evs[*n_evs])) {
			(*n_evs)++;
			keys[out++] = WB_MOUSE_KEY;
			i = end;
			continue;
		}
		if (keys[i] == WB_MOUSE_KEY) {
			i++;	/* a lone KEY_MOUSE: nothing to hand on */
			continue;
		}
		keys[out++] = keys[i++];
	}
	return out;
}

bool
wb_mouse_from_curses(unsigned long bstate, int x, int y, struct wb_mouse *out)
{
	static const struct {
		unsigned long press, release, click;
		int b;
	} buttons[] = {
		{ BUTTON1_PRESSED, BUTTON1_RELEASED, BUTTON1_CLICKED, 0 },
		{ BUTTON2_PRESSED, BUTTON2_RELEASED, BUTTON2_CLICKED, 1 },
		{ BUTTON3_PRESSED, BUTTON3_RELEASED, BUTTON3_CLICKED, 2 },
		{ BUTTON4_PRESSED, 0, 0, WB_MOUSE_WHEEL },
#ifdef BUTTON5_PRESSED
		{ BUTTON5_PRESSED, 0, 0, WB_MOUSE_WHEEL + 1 },
#endif
	};
	int mods = (bstate & BUTTON_SHIFT ? WB_MOUSE_SHIFT : 0) | (bstate & BUTTON_ALT ? WB_MOUSE_ALT : 0) |
	    (bstate & BUTTON_CTRL ? WB_MOUSE_CTRL : 0);

	if (x < 0 || y < 0)
		return false;
	memset(out, 0, sizeof *out);
	out->x = x;
	out->y = y;
	for (size_t i = 0; i < sizeof buttons / sizeof buttons[0]; i++) {
		/* A click (ncurses folded press and release) counts as the press. */
		if (bstate & (buttons[i].press | buttons[i].click)) {
			out->b = buttons[i].b | mods;
			return true;
		}
		if (buttons[i].release != 0 && (bstate & buttons[i].release)) {
			out->b = buttons[i].b | mods;
			out->release = true;
			return true;
		}
	}
	if (bstate & REPORT_MOUSE_POSITION) {
		out->b = 3 | WB_MOUSE_MOTION | mods;
		return true;
	}
	return false;
}
