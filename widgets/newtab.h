/* newtab.h - the "open a new sandbox tab" dialog: a menu of the config's
 * profile names and a workspace path field, in a bordered window on its own
 * panel. Tab moves from the menu to the field, where it completes a
 * directory like a shell; Shift-Tab moves between the two; in the menu Up/Down (k/j),
 * PgUp/PgDn, Home/End choose; Enter opens (with an empty path it moves to
 * the path field instead); Esc cancels.
 */
#ifndef LZ_NEWTAB_H
#define LZ_NEWTAB_H

#include <curses.h>

#include "err.h"
#include "widget.h"

enum newtab_action {
	NEWTAB_NONE,		/* key used or ignored */
	NEWTAB_ACCEPT,		/* newtab_profile()/newtab_workspace() hold the choice */
	NEWTAB_CANCEL,
};

enum newtab_focus {
	NEWTAB_FOCUS_PROFILE,
	NEWTAB_FOCUS_WORKSPACE,
};

struct newtab;

/* A dialog for profiles (NULL-terminated, at least one; copied) with
 * profile preselected when it is among them, and workspace (may be NULL)
 * in the path field; centred on a lines x cols screen. */
int newtab_new(char *const *profiles, const char *profile, const char *workspace, int lines, int cols,
	       struct newtab **out, lz_err_t *err);
void newtab_free(struct newtab *);
void newtab_resize(struct newtab *, int lines, int cols);
void newtab_draw(struct newtab *, const struct widget_palette *);
enum newtab_action newtab_handle_key(struct newtab *, int key);
enum newtab_focus newtab_focus(const struct newtab *);
/* The profile under the menu's cursor; owned by the dialog. */
const char *newtab_profile(const struct newtab *);
/* The path field, trailing blanks removed, a leading `~` expanded; caller frees. */
char *newtab_workspace(struct newtab *);
WINDOW *newtab_window(const struct newtab *);
/* Put the terminal cursor in the focused part (after update_panels). */
void newtab_cursor(const struct newtab *);

#endif
