/* wb-gone.c - a dialog that closed without the user's key (its request
 * expired, was decided elsewhere, withdrawn, its coordinator went away)
 * leaves a notice in its place (issue 24 item 11). Otherwise what the user
 * was typing for the dialog, an approval code and Enter, went on into the
 * tab's program: a shell ran it, an agent read it as a prompt.
 *
 * Every key goes to the notice. It arms as the request view does, after
 * REQVIEW_ARM_MS with no key (a key before that restarts the wait), and
 * then only Esc puts it away: a deliberate key that is no part of any
 * dialog's chord, itself swallowed too. Only then does the tab get keys. */
#include <stdarg.h>
#include <stdlib.h>

#include "strv.h"
#include "wb.h"
#include "xmalloc.h"

#define WB_GONE_WAIT	"(keys are discarded; wait)"
#define WB_GONE_READY	"Esc: back to the tab"

static void
wb_gone_build(struct wb *wb)
{
	char **lines = NULL;

	lz_strv_push(&lines, wb->gone_text);
	lz_strv_push(&lines, "Nothing typed since then reached the tab.");
	lz_strv_push(&lines, "");
	lz_strv_push(&lines, wb->gone_armed ? WB_GONE_READY : WB_GONE_WAIT);
	textview_free(wb->gone);
	wb->gone = textview_new(wb->gone_title, lines, LINES, COLS);
	lz_strv_free(lines);
	wb->redraw_all = true;
	wb->dirty = true;
}

static void
wb_gone_arm_cb(uv_timer_t *t)
{
	struct wb *wb = t->data;
	uint64_t now = reqprompt_now_ms();

	if (wb->gone == NULL || wb->gone_armed)
		return;
	if (now < wb->gone_quiet + REQVIEW_ARM_MS) {
		uv_timer_start(&wb->gone_arm, wb_gone_arm_cb, wb->gone_quiet + REQVIEW_ARM_MS - now + 1, 0);
		return;
	}
	wb->gone_armed = true;
	wb_gone_build(wb);
}

static void
wb_gone_disarm(struct wb *wb)
{
	wb->gone_quiet = reqprompt_now_ms();
	wb->gone_arm.data = wb;
	uv_timer_start(&wb->gone_arm, wb_gone_arm_cb, REQVIEW_ARM_MS + 1, 0);
}

void __attribute__((format(printf, 3, 4)))
wb_gone_open(struct wb *wb, const char *title, const char *fmt, ...)
{
	va_list ap;

	if (wb->quit)
		return;	/* tearing down: no screen, nobody typing */
	free(wb->gone_title);
	free(wb->gone_text);
	wb->gone_title = xstrdup(title);
	va_start(ap, fmt);
	wb->gone_text = xvasprintf(fmt, ap);
	va_end(ap);
	wb->gone_armed = false;
	wb_keys_cancel(wb->keys);	/* a prefix typed for the dialog is no prefix now */
	wb_ui_focus_tab(wb);
	wb_gone_disarm(wb);
	wb_gone_build(wb);
}

void
wb_gone_key(struct wb *wb, int key)
{
	wb->dirty = true;
	if (!wb->gone_armed) {
		wb_gone_disarm(wb);	/* still typing for the dialog: keep waiting */
		return;
	}
	if (key != WIDGET_KEY_ESC)
		return;
	wb_gone_close(wb);
}

void
wb_gone_close(struct wb *wb)
{
	if (wb->gone == NULL)
		return;
	uv_timer_stop(&wb->gone_arm);
	textview_free(wb->gone);
	wb->gone = NULL;
	free(wb->gone_title);
	free(wb->gone_text);
	wb->gone_title = wb->gone_text = NULL;
	wb->redraw_all = true;
}

void
wb_gone_draw(struct wb *wb)
{
	if (wb->gone != NULL)
		textview_draw(wb->gone, &wb->pal);
}

void
wb_gone_resize(struct wb *wb)
{
	if (wb->gone != NULL)
		textview_resize(wb->gone, LINES, COLS);
}
