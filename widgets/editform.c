/* editform.c - one growable ncurses form field in a bordered window.
 *
 * The field is one row, not O_STATIC, so the form library scrolls it
 * sideways and grows its buffer up to set_max_field(); the text goes in and
 * out through set_field_buffer/field_buffer, which convert from and to the
 * locale's multibyte encoding (UTF-8 in the workbench).
 */
#include <form.h>
#include <panel.h>
#include <stdlib.h>
#include <string.h>

#include "editform.h"
#include "shellwords.h"
#include "xmalloc.h"

struct editform {
	char *title;
	size_t max;
	FIELD *field[2];
	FORM *form;
	WINDOW *win, *sub;
	PANEL *panel;
	int h, w;
	bool overwrite;
};

static void
unpost(struct editform *ef)
{
	if (ef->form != NULL) {
		unpost_form(ef->form);
		free_form(ef->form);
		ef->form = NULL;
	}
	if (ef->sub != NULL)
		delwin(ef->sub);
	ef->sub = NULL;
	widget_overlay_free(&ef->win, &ef->panel);
}

/* (Re)build window, form and panel for the screen; the field's text stays. */
FIELD *
editform_field_new(int width, size_t max, const char *text)
{
	FIELD *f = new_field(1, width > 0 ? width : 1, 0, 0, 0, 0);

	LZ_ASSERT(f != NULL);
	field_opts_off(f, O_STATIC | O_AUTOSKIP | O_BLANK);
	set_max_field(f, (int)max);
	set_field_buffer(f, 0, text);
	return f;
}

char *
editform_field_text(FORM *form, FIELD *field)
{
	const char *buf;
	size_t len;

	if (form != NULL)
		form_driver_w(form, KEY_CODE_YES, REQ_VALIDATION);
	buf = field_buffer(field, 0);
	if (buf == NULL)
		return xstrdup("");
	len = strlen(buf);
	while (len > 0 && buf[len - 1] == ' ')
		len--;
	return xstrndup(buf, len);
}

static void
place(struct editform *ef, int lines, int cols, const char *text)
{
	int fw;

	ef->w = cols - 4 < 100 ? cols - 4 : 100;
	if (ef->w < 12)
		ef->w = cols > 3 ? cols : 3;
	ef->h = lines >= 5 ? 5 : 3;
	ef->win = widget_overlay_new(&ef->h, &ef->w, lines, cols, &ef->panel);
	fw = ef->w - 4 > 0 ? ef->w - 4 : 1;
	ef->field[0] = editform_field_new(fw, ef->max, text);
	ef->sub = derwin(ef->win, 1, fw, ef->h / 2, ef->w - fw > 1 ? 2 : 0);
	LZ_ASSERT(ef->sub != NULL);
	keypad(ef->win, TRUE);
	ef->form = new_form(ef->field);
	LZ_ASSERT(ef->form != NULL);
	set_form_win(ef->form, ef->win);
	set_form_sub(ef->form, ef->sub);
	post_form(ef->form);
}

int
editform_new(const char *title, const char *text, size_t max, int lines, int cols,
	     struct editform **out, lz_err_t *err)
{
	struct editform *ef = NULL;
	size_t len = strlen(text);
	unsigned bad;

	*out = NULL;
	if (max == 0 || len > max)
		return lz_err_set(err, LZ_EINVAL, "text too long to edit: %zu bytes, at most %zu", len, max);
	bad = lz_shellwords_scan(text, len) &
	      (LZ_SW_BADUTF8 | LZ_SW_CONTROL | LZ_SW_NEWLINE | LZ_SW_CR | LZ_SW_C1);
	if (bad != 0)
		return lz_err_set(err, LZ_EINVAL, "cannot edit a command holding %s; deny it instead",
				  bad & LZ_SW_BADUTF8 ? "bytes that are not UTF-8" : lz_shellwords_meta_name(bad));
	ef = xcalloc(1, sizeof(*ef));
	ef->title = xstrdup(title);
	ef->max = max;
	place(ef, lines, cols, text);
	form_driver_w(ef->form, KEY_CODE_YES, REQ_END_FIELD);
	*out = ef;
	return 0;
}

void
editform_free(struct editform *ef)
{
	if (ef == NULL)
		return;
	unpost(ef);
	if (ef->field[0] != NULL)
		free_field(ef->field[0]);
	free(ef->title);
	free(ef);
}

void
editform_resize(struct editform *ef, int lines, int cols)
{
	_cleanup_free_ char *text = editform_text(ef);

	unpost(ef);
	/* A field keeps its width once made: make a new one of the new width. */
	free_field(ef->field[0]);
	place(ef, lines, cols, text);
	form_driver_w(ef->form, KEY_CODE_YES, REQ_END_FIELD);
}

static void
draw_frame(struct editform *ef, const struct widget_palette *pal)
{
	if (ef->h < 3 || ef->w < 3)
		return;
	widget_box(ef->win, &pal->style[THEME_BORDER]);
	widget_put(ef->win, 0, 2, " ", 1, ef->w - 4, &pal->style[THEME_PROMPT], 0, NULL);
	widget_puts(ef->win, 0, 3, ef->title, ef->w - 6, &pal->style[THEME_PROMPT]);
	widget_put(ef->win, 0, 3 + widget_width(ef->title) < ef->w - 2 ? 3 + widget_width(ef->title) : ef->w - 2,
		   " ", 1, 1, &pal->style[THEME_PROMPT], 0, NULL);
	if (ef->h >= 5)
		widget_puts(ef->win, ef->h - 1, 2, " Enter: accept  Esc: cancel ", ef->w - 4, &pal->style[THEME_PANEL_ITEM]);
}

void
editform_draw(struct editform *ef, const struct widget_palette *pal)
{
	const struct widget_style *item = &pal->style[THEME_PANEL_ITEM];
	struct widget_style fld = pal->style[THEME_PANEL_SELECTED];

	int fy = ef->h / 2, fx = getparx(ef->sub), fw = getmaxx(ef->sub);

	/* Everything but the field's own cells, which the form library keeps. */
	for (int y = 0; y < ef->h; y++) {
		if (y != fy) {
			widget_fill(ef->win, y, 0, ef->w, item);
			continue;
		}
		widget_fill(ef->win, y, 0, fx, item);
		widget_fill(ef->win, y, fx + fw, ef->w - fx - fw, item);
	}
	draw_frame(ef, pal);
	/* chtype pairs stop at 255: beyond that the field keeps attributes only. */
	set_field_back(ef->field[0], fld.attr | (chtype)COLOR_PAIR(fld.pair < 256 ? fld.pair : 0));
}

/* Characters in the current field (the form library only enforces its
 * maximum when it is wider than the field). */
static size_t
field_chars(FORM *form)
{
	_cleanup_free_ char *s = editform_field_text(form, current_field(form));
	size_t n = mbstowcs(NULL, s, 0);

	return n == (size_t)-1 ? strlen(s) : n;
}

bool
editform_drive(FORM *form, int key, size_t max, bool *overwrite)
{
	int req = 0;

	if (widget_key_is_backspace(key))
		req = REQ_DEL_PREV;
	else
		switch (key) {
		case WIDGET_KEY_FN(KEY_LEFT):
		case 2:	/* C-b */
			req = REQ_PREV_CHAR;
			break;
		case WIDGET_KEY_FN(KEY_RIGHT):
		case 6:	/* C-f */
			req = REQ_NEXT_CHAR;
			break;
		case WIDGET_KEY_FN(KEY_HOME):
		case 1:	/* C-a */
			req = REQ_BEG_FIELD;
			break;
		case WIDGET_KEY_FN(KEY_END):
		case 5:	/* C-e */
			req = REQ_END_FIELD;
			break;
		case WIDGET_KEY_FN(KEY_DC):
		case 4:	/* C-d */
			req = REQ_DEL_CHAR;
			break;
		case 11:	/* C-k */
			req = REQ_CLR_EOF;
			break;
		case 21:	/* C-u */
			req = REQ_CLR_FIELD;
			break;
		case WIDGET_KEY_FN(KEY_IC):
			*overwrite = !*overwrite;
			req = *overwrite ? REQ_OVL_MODE : REQ_INS_MODE;
			break;
		default:
			break;
		}
	if (req != 0) {
		form_driver_w(form, KEY_CODE_YES, req);
		return true;
	}
	/* Printable characters only: controls, C1 and function keys are not text. */
	if (!WIDGET_KEY_IS_FN(key) && !(key & WIDGET_KEY_META) && key >= 0x20 && key != 0x7f &&
	    !(key >= 0x80 && key < 0xa0) && wcwidth((wchar_t)key) >= 0) {
		if (*overwrite || field_chars(form) < max)
			form_driver_w(form, OK, (wchar_t)key);
		return true;
	}
	return false;
}

enum editform_action
editform_handle_key(struct editform *ef, int key)
{
	if (widget_key_is_enter(key)) {
		form_driver_w(ef->form, KEY_CODE_YES, REQ_VALIDATION);
		return EDITFORM_ACCEPT;
	}
	if (key == WIDGET_KEY_ESC)
		return EDITFORM_CANCEL;
	editform_drive(ef->form, key, ef->max, &ef->overwrite);
	return EDITFORM_NONE;
}

char *
editform_text(struct editform *ef)
{
	return editform_field_text(ef->form, ef->field[0]);
}

WINDOW *
editform_window(const struct editform *ef)
{
	return ef->win;
}

void
editform_cursor(const struct editform *ef)
{
	pos_form_cursor(ef->form);
}
