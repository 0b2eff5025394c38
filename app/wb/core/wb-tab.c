/* wb-tab.c - a workbench tab and its key encoding (see wb-tab.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wb-tab.h"
#include "widget.h"
#include "xmalloc.h"

uint64_t
wb_tab_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int
wb_tab_new(const char *profile, const char *workspace, const char *mode, int rows, int cols,
    size_t history, struct wb_tab **out, lz_err_t *err)
{
	struct wb_tab *tab;
	struct term *t;

	*out = NULL;
	if (rows < 1)
		rows = 1;
	if (cols < TERM_MIN_COLS)
		cols = TERM_MIN_COLS;
	if (term_new(rows, cols, history, &t, err) < 0)
		return -1;
	/* The coordinator's screen is the one that answers terminal queries:
	 * a reply made here from the agent's output would be typed into the
	 * session as if by the user. */
	term_set_replies(t, false);
	tab = xcalloc(1, sizeof *tab);
	tab->profile = xstrdup(profile);
	tab->workspace = xstrdup(workspace);
	tab->mode = xstrdup(mode);
	tab->t = t;
	tab->state = WB_TAB_STARTING;
	tabstate_init(&tab->ts);
	tab->refused_seen_ms = wb_tab_wall_ms();
	*out = tab;
	return 0;
}

void
wb_tab_free(struct wb_tab *tab)
{
	if (tab == NULL)
		return;
	term_free(tab->t);
	free(tab->profile);
	free(tab->workspace);
	free(tab->mode);
	free(tab->error);
	free(tab->title);
	free(tab);
}

const char *
wb_tab_state_name(struct wb_tab *tab)
{
	switch (tab->state) {
	case WB_TAB_STARTING:
		return "starting";
	case WB_TAB_RUNNING:
		if (tab->scrolling)
			return "scroll";
		if (tab->ts.state == TABSTATE_STARTING || (tab->front &&
		    tab->ts.state == TABSTATE_INPUT))
			return "running";	/* until the first look; in sight */
		tabstate_text(&tab->ts, tab->state_text, sizeof tab->state_text);
		return tab->state_text;
	case WB_TAB_EXITED:
		if (tab->ts.final == TABSTATE_LIMIT)
			return "limit";
		snprintf(tab->state_text, sizeof tab->state_text, "exited %d", tab->status);
		return tab->state_text;
	case WB_TAB_FAILED:
		return "failed";
	}
	return "?";
}

const char *
wb_tab_mark(const struct wb_tab *tab)
{
	if (tab->front && tab->ts.state == TABSTATE_INPUT)
		return "";
	return tabstate_mark(tab->ts.state);
}

/* ncurses function keys and what libvterm calls them. */
static const struct {
	int curses;
	VTermKey key;
	VTermModifier mod;
} wb_tab_keys[] = {
	{ KEY_UP, VTERM_KEY_UP, VTERM_MOD_NONE }, { KEY_DOWN, VTERM_KEY_DOWN, VTERM_MOD_NONE },
	{ KEY_LEFT, VTERM_KEY_LEFT, VTERM_MOD_NONE }, { KEY_RIGHT, VTERM_KEY_RIGHT, VTERM_MOD_NONE },
	{ KEY_HOME, VTERM_KEY_HOME, VTERM_MOD_NONE }, { KEY_END, VTERM_KEY_END, VTERM_MOD_NONE },
	{ KEY_PPAGE, VTERM_KEY_PAGEUP, VTERM_MOD_NONE },
	{ KEY_NPAGE, VTERM_KEY_PAGEDOWN, VTERM_MOD_NONE },
	{ KEY_IC, VTERM_KEY_INS, VTERM_MOD_NONE }, { KEY_DC, VTERM_KEY_DEL, VTERM_MOD_NONE },
	{ KEY_BACKSPACE, VTERM_KEY_BACKSPACE, VTERM_MOD_NONE },
	{ KEY_ENTER, VTERM_KEY_ENTER, VTERM_MOD_NONE },
	{ KEY_BTAB, VTERM_KEY_TAB, VTERM_MOD_SHIFT },
	{ KEY_SR, VTERM_KEY_UP, VTERM_MOD_SHIFT }, { KEY_SF, VTERM_KEY_DOWN, VTERM_MOD_SHIFT },
	{ KEY_SLEFT, VTERM_KEY_LEFT, VTERM_MOD_SHIFT },
	{ KEY_SRIGHT, VTERM_KEY_RIGHT, VTERM_MOD_SHIFT },
	{ KEY_SHOME, VTERM_KEY_HOME, VTERM_MOD_SHIFT }, { KEY_SEND, VTERM_KEY_END, VTERM_MOD_SHIFT },
	{ KEY_SDC, VTERM_KEY_DEL, VTERM_MOD_SHIFT },
	{ KEY_A1, VTERM_KEY_HOME, VTERM_MOD_NONE }, { KEY_C1, VTERM_KEY_END, VTERM_MOD_NONE },
	{ KEY_A3, VTERM_KEY_PAGEUP, VTERM_MOD_NONE }, { KEY_C3, VTERM_KEY_PAGEDOWN, VTERM_MOD_NONE },
};

/* Keys terminfo may define with a modifier suffix (user_caps(5)): kLFT5 is Ctrl-Left. */
static const struct {
	const char *name;
	VTermKey key;
} wb_tab_cap_bases[] = {
	{ "kUP", VTERM_KEY_UP }, { "kDN", VTERM_KEY_DOWN }, { "kLFT", VTERM_KEY_LEFT },
	{ "kRIT", VTERM_KEY_RIGHT }, { "kHOM", VTERM_KEY_HOME }, { "kEND", VTERM_KEY_END },
	{ "kIC", VTERM_KEY_INS }, { "kDC", VTERM_KEY_DEL }, { "kPRV", VTERM_KEY_PAGEUP },
	{ "kNXT", VTERM_KEY_PAGEDOWN },
};

/* xterm's modifier parameter minus 1 (";5" in \E[1;5D), or -1: not that form. */
static int
wb_tab_xterm_mod(const char *value)
{
	const char *semi = strrchr(value, ';');
	int m = 0;

	if (value[0] != '\033' || semi == NULL)
		return -1;
	for (value = semi + 1; *value >= '0' && *value <= '9'; value++)
		m = m * 10 + (*value - '0');
	if (value == semi + 1 || value[0] == '\0' || value[1] != '\0' || m < 2 || m > 8)
		return -1;
	return m - 1;
}

bool
wb_tab_cap_key(const char *name, const char *value, VTermKey *key, VTermModifier *mod)
{
	/* kf13.. are F1..F12 again, 12 to a modifier group (ncurses' xterm+pcf2). */
	static const VTermModifier fgroup[] = { VTERM_MOD_NONE, VTERM_MOD_SHIFT, VTERM_MOD_CTRL,
		VTERM_MOD_CTRL | VTERM_MOD_SHIFT, VTERM_MOD_ALT, VTERM_MOD_ALT | VTERM_MOD_SHIFT };
	size_t i, len;
	char *end;
	long n;

	if (name[0] == 'k' && name[1] == 'f' && name[2] >= '1' && name[2] <= '9') {
		n = strtol(name + 2, &end, 10);
		if (*end != '\0' || n < 13 || n > 63)
			return false;
		/* Only where the terminal's string says the same modifier (rxvt's kf13 does not). */
		if (value != NULL && wb_tab_xterm_mod(value) != (int)fgroup[(n - 1) / 12])
			return false;
		*key = VTERM_KEY_FUNCTION((n - 1) % 12 + 1);
		*mod = fgroup[(n - 1) / 12];
		return true;
	}
	for (i = 0; i < sizeof wb_tab_cap_bases / sizeof wb_tab_cap_bases[0]; i++) {
		len = strlen(wb_tab_cap_bases[i].name);
		if (strncmp(name, wb_tab_cap_bases[i].name, len) != 0)
			continue;
		name += len;
		/* No suffix is the shifted key; 9.. add Meta, which libvterm cannot send. */
		if (name[0] == '\0')
			n = 2;
		else if (name[0] >= '2' && name[0] <= '8' && name[1] == '\0')
			n = name[0] - '0';
		else
			return false;
		*key = wb_tab_cap_bases[i].key;
		*mod = (VTermModifier)(n - 1);
		return true;
	}
	return false;
}

/* The codes this terminal's ncurses gave those capabilities, read once per screen. */
#define WB_TAB_MAX_EXT 160
static struct {
	int code;
	VTermKey key;
	VTermModifier mod;
} wb_tab_ext[WB_TAB_MAX_EXT];
static size_t wb_tab_n_ext;
static bool wb_tab_ext_loaded;
static WINDOW *wb_tab_ext_screen;

static void
wb_tab_ext_add(const char *name)
{
	const char *value = tigetstr(name);
	VTermModifier mod;
	VTermKey key;
	int code;

	if (value == NULL || value == (char *)-1 || wb_tab_n_ext == WB_TAB_MAX_EXT)
		return;
	/* 0: no key has that string; -1: a prefix of longer ones, never a key by itself. */
	if ((code = key_defined(value)) <= 0 || !wb_tab_cap_key(name, value, &key, &mod))
		return;
	wb_tab_ext[wb_tab_n_ext].code = code;
	wb_tab_ext[wb_tab_n_ext].key = key;
	wb_tab_ext[wb_tab_n_ext].mod = mod;
	wb_tab_n_ext++;
}

static void
wb_tab_ext_load(void)
{
	char name[16];
	size_t i;
	int n;

	/* stdscr tells screens apart (the unit tests make several). */
	if (wb_tab_ext_loaded && wb_tab_ext_screen == stdscr)
		return;
	wb_tab_ext_loaded = true;
	wb_tab_ext_screen = stdscr;
	wb_tab_n_ext = 0;
	if (stdscr == NULL)
		return;
	for (i = 0; i < sizeof wb_tab_cap_bases / sizeof wb_tab_cap_bases[0]; i++)
		for (n = 1; n <= 8; n++) {
			if (n == 1)
				snprintf(name, sizeof name, "%s", wb_tab_cap_bases[i].name);
			else
				snprintf(name, sizeof name, "%s%d", wb_tab_cap_bases[i].name, n);
			wb_tab_ext_add(name);
		}
	for (n = 13; n <= 63; n++) {
		snprintf(name, sizeof name, "kf%d", n);
		wb_tab_ext_add(name);
	}
}

bool
wb_tab_encode_key(struct term *t, int key)
{
	VTermModifier mod = (key & WIDGET_KEY_META) ? VTERM_MOD_ALT : VTERM_MOD_NONE;
	int k = key & ~WIDGET_KEY_META;
	size_t i;

	if (key == WIDGET_KEY_NONE)
		return false;
	if (WIDGET_KEY_IS_FN(k)) {
		k &= 0xffffff;
		if (k >= KEY_F(1) && k <= KEY_F(12)) {
			term_key(t, VTERM_KEY_FUNCTION(k - KEY_F(0)), mod);
			return true;
		}
		for (i = 0; i < sizeof wb_tab_keys / sizeof wb_tab_keys[0]; i++)
			if (wb_tab_keys[i].curses == k) {
				term_key(t, wb_tab_keys[i].key, mod | wb_tab_keys[i].mod);
				return true;
			}
		wb_tab_ext_load();
		for (i = 0; i < wb_tab_n_ext; i++)
			if (wb_tab_ext[i].code == k) {
				term_key(t, wb_tab_ext[i].key, mod | wb_tab_ext[i].mod);
				return true;
			}
		/* Shifted F1..F12 as ncurses numbers them (F13..F24), whatever terminfo says. */
		if (k >= KEY_F(13) && k <= KEY_F(24)) {
			term_key(t, VTERM_KEY_FUNCTION(k - KEY_F(12)), mod | VTERM_MOD_SHIFT);
			return true;
		}
		return false;
	}
	if (k < 0 || k > 0x10ffff)
		return false;
	switch (k) {
	case '\r':
	case '\n':
		term_key(t, VTERM_KEY_ENTER, mod);
		return true;
	case '\t':
		term_key(t, VTERM_KEY_TAB, mod);
		return true;
	case 27:
		term_key(t, VTERM_KEY_ESCAPE, mod);
		return true;
	case 127:
	case 8:
		term_key(t, VTERM_KEY_BACKSPACE, mod);
		return true;
	default:
		break;
	}
	if (k < 0x20) {
		/* A control character: libvterm encodes Ctrl+letter as the byte. */
		term_key_char(t, (uint32_t)(k == 0 ? ' ' : k < 27 ? k + 0x60 : k + 0x40),
		    mod | VTERM_MOD_CTRL);
		return true;
	}
	term_key_char(t, (uint32_t)k, mod);
	return true;
}
