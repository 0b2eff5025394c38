/* editform.h - edit one line of text in place (the [E]dit of an escalation):
 * an ncurses form with one field that scrolls sideways, in a bordered
 * window on its own panel. Enter accepts, Esc cancels; Left/Right, Home/End
 * (C-a/C-e), Backspace/Delete, C-k (to the end), C-u (all), Insert (toggle
 * overwrite) edit. Control characters are not typed into the text.
 */
#ifndef LZ_EDITFORM_H
#define LZ_EDITFORM_H

#include <curses.h>
#include <form.h>
#include <stdbool.h>

#include "err.h"
#include "widget.h"

enum editform_action {
	EDITFORM_NONE,		/* key used or ignored */
	EDITFORM_ACCEPT,	/* Enter: editform_text() has the result */
	EDITFORM_CANCEL,	/* Esc */
};

struct editform;

/* A form titled title holding text, centred on a lines x cols screen; the
 * field takes at most max characters (> 0). Fails when the text cannot be
 * edited faithfully: more than max bytes, not UTF-8, or holding control
 * characters (a form would show them as something else; deny such a request
 * instead). The result may exceed max bytes when it holds multibyte
 * characters: the caller validates it (lz_shellwords_split checks). */
int editform_new(const char *title, const char *text, size_t max, int lines, int cols,
		 struct editform **out, lz_err_t *err);
void editform_free(struct editform *);
void editform_resize(struct editform *, int lines, int cols);
void editform_draw(struct editform *, const struct widget_palette *);
enum editform_action editform_handle_key(struct editform *, int key);
/* Feed an editing key (all but Enter and Esc above) to a form's current
 * field, which holds at most max characters; false when key is not one.
 * *overwrite tracks Insert. Shared with other forms (newtab). */
bool editform_drive(FORM *form, int key, size_t max, bool *overwrite);
/* A one-row field scrolling sideways, holding text, at most max
 * characters; and its text with trailing blanks removed (caller frees;
 * form, when posted, is synced first). */
FIELD *editform_field_new(int width, size_t max, const char *text);
char *editform_field_text(FORM *form, FIELD *field);
/* The text as it is now, trailing blanks removed; caller frees. */
char *editform_text(struct editform *);
WINDOW *editform_window(const struct editform *);
/* Put the terminal cursor where the form's is (after update_panels). */
void editform_cursor(const struct editform *);

#endif
