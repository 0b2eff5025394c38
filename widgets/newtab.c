/* newtab.c - profile menu + workspace field (menu and form libraries).
 *
 * Window, sub-windows, menu and form are rebuilt on resize; the items and
 * the field (which own the data) survive it. Below 7 rows or 16 columns the
 * dialog only says it does not fit: menu and form need that much room.
 */
#include <form.h>
#include <menu.h>
#include <panel.h>
#include <stdlib.h>
#include <string.h>

#include "editform.h"
#include "newtab.h"
#include "pathcomp.h"
#include "strv.h"
#include "xmalloc.h"

#define NEWTAB_MAX_W	72
#define NEWTAB_PATH_MAX	4096

struct newtab {
	char **profiles;
	ITEM **items;
	MENU *menu;
	FIELD *field[2];
	FORM *form;
	WINDOW *win, *msub, *fsub;
	PANEL *panel;
	int h, w, mrows;
	size_t sel;		/* menu cursor while there is no menu */
	enum newtab_focus focus;
	bool overwrite;
	bool fits;
};

static void
unplace(struct newtab *nt)
{
	if (nt->menu != NULL) {
		unpost_menu(nt->menu);
		free_menu(nt->menu);
	}
	if (nt->form != NULL) {
		unpost_form(nt->form);
		free_form(nt->form);
	}
	if (nt->msub != NULL)
		delwin(nt->msub);
	if (nt->fsub != NULL)
		delwin(nt->fsub);
	widget_overlay_free(&nt->win, &nt->panel);
	nt->menu = NULL;
	nt->form = NULL;
	nt->msub = nt->fsub = NULL;
}

static void
place(struct newtab *nt, int lines, int cols, const char *text)
{
	size_t n = lz_strv_len(nt->profiles);

	nt->w = cols - 4 < NEWTAB_MAX_W ? cols - 4 : NEWTAB_MAX_W;
	if (nt->w < 24)
		nt->w = cols;
	nt->mrows = lines - 8 < (int)n ? lines - 8 : (int)n;
	if (nt->mrows < 1)
		nt->mrows = 1;
	nt->h = nt->mrows + 7;
	nt->fits = lines >= nt->h && nt->w >= 16;
	nt->win = widget_overlay_new(&nt->h, &nt->w, lines, cols, &nt->panel);
	nt->field[0] = editform_field_new(nt->w - 4, NEWTAB_PATH_MAX, text);
	if (!nt->fits)
		return;
	nt->msub = derwin(nt->win, nt->mrows, nt->w - 4, 2, 2);
	nt->fsub = derwin(nt->win, 1, nt->w - 4, nt->mrows + 4, 2);
	LZ_ASSERT(nt->msub != NULL && nt->fsub != NULL);
	nt->menu = new_menu(nt->items);
	LZ_ASSERT(nt->menu != NULL);
	set_menu_win(nt->menu, nt->win);
	set_menu_sub(nt->menu, nt->msub);
	set_menu_format(nt->menu, nt->mrows, 1);
	set_menu_mark(nt->menu, "> ");
	set_current_item(nt->menu, nt->items[nt->sel]);
	post_menu(nt->menu);
	nt->form = new_form(nt->field);
	LZ_ASSERT(nt->form != NULL);
	set_form_win(nt->form, nt->win);
	set_form_sub(nt->form, nt->fsub);
	post_form(nt->form);
	form_driver_w(nt->form, KEY_CODE_YES, REQ_END_FIELD);
}

int
newtab_new(char *const *profiles, const char *profile, const char *workspace, int lines, int cols,
	   struct newtab **out, lz_err_t *err)
{
	struct newtab *nt;
	size_t n = lz_strv_len(profiles), sel = 0;

	*out = NULL;
	if (n == 0)
		return lz_err_set(err, LZ_EINVAL, "no profiles to open a tab with: add one under 'profiles:' in the config");
	nt = xcalloc(1, sizeof(*nt));
	nt->profiles = lz_strv_dup(profiles);
	nt->items = xcalloc(n + 1, sizeof(*nt->items));
	for (size_t i = 0; i < n; i++) {
		/* The menu library keeps the pointers: they stay in nt->profiles. */
		nt->items[i] = new_item(nt->profiles[i], "");
		LZ_ASSERT(nt->items[i] != NULL);
		if (profile != NULL && strcmp(profile, nt->profiles[i]) == 0)
			sel = i;
	}
	nt->sel = sel;
	place(nt, lines, cols, workspace != NULL ? workspace : "");
	*out = nt;
	return 0;
}

void
newtab_free(struct newtab *nt)
{
	if (nt == NULL)
		return;
	unplace(nt);
	for (size_t i = 0; nt->items[i] != NULL; i++)
		free_item(nt->items[i]);
	free(nt->items);
	if (nt->field[0] != NULL)
		free_field(nt->field[0]);
	lz_strv_free(nt->profiles);
	free(nt);
}

static size_t
current_index(const struct newtab *nt)
{
	if (nt->menu == NULL)
		return nt->sel;
	return (size_t)item_index(current_item(nt->menu));
}

void
newtab_resize(struct newtab *nt, int lines, int cols)
{
	_cleanup_free_ char *text = editform_field_text(nt->form, nt->field[0]);

	nt->sel = current_index(nt);
	unplace(nt);
	/* A field keeps its width once made: a new one for the new width. */
	free_field(nt->field[0]);
	place(nt, lines, cols, text);
}

void
newtab_draw(struct newtab *nt, const struct widget_palette *pal)
{
	const struct widget_style *item = &pal->style[THEME_PANEL_ITEM];
	const struct widget_style *title = &pal->style[THEME_PANEL_TITLE];
	const struct widget_style *sel = &pal->style[THEME_PANEL_SELECTED];
	struct widget_style head;
	int fy = nt->mrows + 4;

	for (int y = 0; y < nt->h; y++) {
		/* The menu's and the field's cells belong to their libraries. */
		if (nt->fits && ((y >= 2 && y < 2 + nt->mrows) || y == fy)) {
			widget_fill(nt->win, y, 0, 2, item);
			widget_fill(nt->win, y, nt->w - 2, 2, item);
			continue;
		}
		widget_fill(nt->win, y, 0, nt->w, item);
	}
	widget_box(nt->win, &pal->style[THEME_BORDER]);
	widget_puts(nt->win, 0, 2, " New sandbox tab ", nt->w - 4, &pal->style[THEME_PROMPT]);
	if (!nt->fits) {
		widget_puts(nt->win, nt->h > 2 ? 1 : 0, nt->w > 2 ? 1 : 0, "screen too small", nt->w - 2, item);
		return;
	}
	head = *title;
	if (nt->focus == NEWTAB_FOCUS_PROFILE)
		head.attr |= A_REVERSE;
	widget_puts(nt->win, 1, 2, "Profile", nt->w - 4, &head);
	head = *title;
	if (nt->focus == NEWTAB_FOCUS_WORKSPACE)
		head.attr |= A_REVERSE;
	widget_puts(nt->win, nt->mrows + 3, 2, "Workspace", nt->w - 4, &head);
	widget_puts(nt->win, nt->h - 1, 2, " Tab: next/complete  S-Tab: back  Enter: open  Esc: cancel ", nt->w - 4, item);
	/* chtype pairs stop at 255: beyond that only attributes. */
	set_menu_fore(nt->menu, sel->attr | (chtype)COLOR_PAIR(sel->pair < 256 ? sel->pair : 0));
	set_menu_back(nt->menu, item->attr | (chtype)COLOR_PAIR(item->pair < 256 ? item->pair : 0));
	set_field_back(nt->field[0], sel->attr | (chtype)COLOR_PAIR(sel->pair < 256 ? sel->pair : 0));
}

static bool
workspace_empty(struct newtab *nt)
{
	_cleanup_free_ char *ws = newtab_workspace(nt);

	return ws[strspn(ws, " ")] == '\0';
}

/* Tab in the path field: the shell's completion, in place. */
static void
complete(struct newtab *nt)
{
	_cleanup_free_ char *text = editform_field_text(nt->form, nt->field[0]);
	_cleanup_free_ char *done = pathcomp_complete(text);

	if (strcmp(text, done) == 0 || strlen(done) > NEWTAB_PATH_MAX)
		return;
	set_field_buffer(nt->field[0], 0, done);
	form_driver_w(nt->form, KEY_CODE_YES, REQ_END_FIELD);
}

enum newtab_action
newtab_handle_key(struct newtab *nt, int key)
{
	int req = 0;

	if (key == WIDGET_KEY_ESC)
		return NEWTAB_CANCEL;
	if (!nt->fits)
		return NEWTAB_NONE;
	if (widget_key_is_enter(key)) {
		if (!workspace_empty(nt))
			return NEWTAB_ACCEPT;
		nt->focus = NEWTAB_FOCUS_WORKSPACE;
		return NEWTAB_NONE;
	}
	if (key == WIDGET_KEY_TAB && nt->focus == NEWTAB_FOCUS_WORKSPACE) {
		complete(nt);
		return NEWTAB_NONE;
	}
	if (key == WIDGET_KEY_TAB || key == WIDGET_KEY_FN(KEY_BTAB)) {
		nt->focus = nt->focus == NEWTAB_FOCUS_PROFILE ? NEWTAB_FOCUS_WORKSPACE : NEWTAB_FOCUS_PROFILE;
		return NEWTAB_NONE;
	}
	if (nt->focus == NEWTAB_FOCUS_WORKSPACE) {
		editform_drive(nt->form, key, NEWTAB_PATH_MAX, &nt->overwrite);
		return NEWTAB_NONE;
	}
	switch (key) {
	case 'k':
	case WIDGET_KEY_FN(KEY_UP):
		req = REQ_UP_ITEM;
		break;
	case 'j':
	case WIDGET_KEY_FN(KEY_DOWN):
		req = REQ_DOWN_ITEM;
		break;
	case WIDGET_KEY_FN(KEY_PPAGE):
		req = REQ_SCR_UPAGE;
		break;
	case WIDGET_KEY_FN(KEY_NPAGE):
		req = REQ_SCR_DPAGE;
		break;
	case WIDGET_KEY_FN(KEY_HOME):
		req = REQ_FIRST_ITEM;
		break;
	case WIDGET_KEY_FN(KEY_END):
		req = REQ_LAST_ITEM;
		break;
	default:
		break;
	}
	if (req != 0)
		menu_driver(nt->menu, req);
	return NEWTAB_NONE;
}

enum newtab_focus
newtab_focus(const struct newtab *nt)
{
	return nt->focus;
}

const char *
newtab_profile(const struct newtab *nt)
{
	return nt->profiles[current_index(nt)];
}

char *
newtab_workspace(struct newtab *nt)
{
	_cleanup_free_ char *text = editform_field_text(nt->form, nt->field[0]);

	return pathcomp_expand(text);
}

WINDOW *
newtab_window(const struct newtab *nt)
{
	return nt->win;
}

void
newtab_cursor(const struct newtab *nt)
{
	if (nt->focus == NEWTAB_FOCUS_WORKSPACE && nt->form != NULL)
		pos_form_cursor(nt->form);
	else if (nt->menu != NULL)
		pos_menu_cursor(nt->menu);
}
