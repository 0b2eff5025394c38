/* wb-tab.c - a workbench tab and its key encoding (see wb-tab.h). */
#include <stdio.h>
#include <stdlib.h>

#include "wb-tab.h"
#include "widget.h"
#include "xmalloc.h"

int
wb_tab_new(const char *profile, const char *workspace, const char *mode, int rows, int cols,
    struct wb_tab **out, lz_err_t *err)
{
	struct wb_tab *tab;
	struct term *t;

	*out = NULL;
	if (rows < 1)
		rows = 1;
	if (cols < TERM_MIN_COLS)
		cols = TERM_MIN_COLS;
	if (term_new(rows, cols, TERM_SB_DEFAULT, &t, err) < 0)
		return -1;
	tab = xcalloc(1, sizeof *tab);
	tab->profile = xstrdup(profile);
	tab->workspace = xstrdup(workspace);
	tab->mode = xstrdup(mode);
	tab->t = t;
	tab->state = WB_TAB_STARTING;
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
	free(tab);
}

const char *
wb_tab_state_name(struct wb_tab *tab)
{
	switch (tab->state) {
	case WB_TAB_STARTING:
		return "starting";
	case WB_TAB_RUNNING:
		return tab->scrolling ? "scroll" : "running";
	case WB_TAB_EXITED:
		snprintf(tab->state_text, sizeof tab->state_text, "exited %d", tab->status);
		return tab->state_text;
	case WB_TAB_FAILED:
		return "failed";
	}
	return "?";
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
		/* Shifted F1..F12 as ncurses numbers them (F13..F24). */
		if (k >= KEY_F(13) && k <= KEY_F(24)) {
			term_key(t, VTERM_KEY_FUNCTION(k - KEY_F(12)), mod | VTERM_MOD_SHIFT);
			return true;
		}
		for (i = 0; i < sizeof wb_tab_keys / sizeof wb_tab_keys[0]; i++)
			if (wb_tab_keys[i].curses == k) {
				term_key(t, wb_tab_keys[i].key, mod | wb_tab_keys[i].mod);
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
