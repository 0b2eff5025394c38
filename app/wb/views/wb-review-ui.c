/* wb-review-ui.c - the review view on screen (see wb-review.c): a
 * full-screen window over the tab, above the status line. The overview:
 * the branch, base, commit count and surface flags with their reasons,
 * the commit list, the file list with each flagged file marked; Enter
 * shows a file's diff. m merges and D discards, each after y; a merge the
 * surface refuses asks again, listing the flags, and takes a. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "term.h"
#include "wb-review-int.h"
#include "wb.h"
#include "xmalloc.h"

#define WB_REVIEW_HINTS	"Enter diff  j/k move  m merge  D discard  S sync  F flags  r reload  q close"
#define WB_REVIEW_DIFF_HINTS	"j/k PgUp/PgDn g/G  / find  n/N  ]/[ next/prev file  " \
	"m merge  D discard  q back"

void
wb_review_resize(struct wb *wb)
{
	struct wb_review *v = wb->review;
	int h = LINES > 1 ? LINES - 1 : 1, w = COLS > 0 ? COLS : 1;

	if (v == NULL)
		return;
	widget_overlay_free(&v->win, &v->panel);
	v->win = widget_overlay_new(&h, &w, h, w, &v->panel);
	if (v->flags_tv != NULL)
		textview_resize(v->flags_tv, LINES, COLS);
	wb->dirty = true;
}

void
wb_review_open(struct wb *wb, struct wb_tab *tab)
{
	struct wb_review *v;

	if (wb->review != NULL)
		return;
	if (tab == NULL) {
		wb_ui_message(wb, "no tab: nothing to review");
		return;
	}
	v = xcalloc(1, sizeof *v);
	v->wb = wb;
	v->refs = 1;
	v->profile = xstrdup(tab->profile);
	v->workspace = xstrdup(tab->workspace);
	wb->review = v;
	wb_ui_focus_tab(wb);
	wb_review_resize(wb);
	wb_review_load(v);
}

void
wb_review_close(struct wb *wb)
{
	struct wb_review *v = wb->review;

	if (v == NULL)
		return;
	wb->review = NULL;
	v->closed = true;
	wb_gitstream_stop(v->files_gs);
	wb_gitstream_stop(v->diff_gs);
	v->files_gs = v->diff_gs = NULL;
	textview_free(v->flags_tv);
	v->flags_tv = NULL;
	widget_overlay_free(&v->win, &v->panel);
	wb_review_unref(v);
	wb_review_count_refresh(wb);
	wb->redraw_all = true;
}

/* "flag reason (detail)" of f, for one line. */
static char *
wb_review_flag_text(const struct surface_flag *f)
{
	return f->detail != NULL ? xasprintf("%s (%s)", f->reason, f->detail) :
	    xstrdup(f->reason);
}

/* Rows [y, y + h) of a titled section; returns the rows used. */
static int
wb_review_title(WINDOW *win, int y, int w, const char *text, const struct widget_palette *pal)
{
	widget_fill(win, y, 0, w, &pal->style[THEME_PANEL_TITLE]);
	widget_puts(win, y, 0, text, w, &pal->style[THEME_PANEL_TITLE]);
	return 1;
}

static void
wb_review_footer(struct wb_review *v, int y, int w, const char *hints,
    const struct widget_palette *pal)
{
	const struct widget_style *st = &pal->style[THEME_STATUS];
	_cleanup_free_ char *text = NULL;

	if (v->typing) {
		text = xasprintf("/%s", v->search);
	} else if (v->ask == WB_REVIEW_ASK_MERGE) {
		text = xasprintf("merge %ld commit%s of %s into %s? y merges, any other key cancels",
		    v->r->commits, v->r->commits == 1 ? "" : "s", v->a->branch, v->r->target);
		st = &pal->style[THEME_TAB_ALERT];
	} else if (v->ask == WB_REVIEW_ASK_SURFACE) {
		text = xasprintf("merge refused: the executable surface changed (%zu flag%s, listed "
		    "above); a accepts it and merges, any other key cancels", v->s.n,
		    v->s.n == 1 ? "" : "s");
		st = &pal->style[THEME_TAB_ALERT];
	} else if (v->ask == WB_REVIEW_ASK_DISCARD) {
		text = xasprintf("discard %ld commit%s of %s (reset to %.12s; the old tip is kept)? "
		    "y discards, any other key cancels", v->r->commits, v->r->commits == 1 ? "" : "s",
		    v->a->branch, v->r->base);
		st = &pal->style[THEME_TAB_ALERT];
	} else if (v->note != NULL) {
		text = xstrdup(v->note);
		if (v->note_alert)
			st = &pal->style[THEME_TAB_ALERT];
	} else {
		text = xstrdup(hints);
	}
	widget_fill(v->win, y, 0, w, st);
	widget_puts(v->win, y, 0, text, w, st);
}

/* The header: branch, base, counts, then the surface flags. Returns rows. */
static int
wb_review_header(struct wb_review *v, int h, int w, const struct widget_palette *pal)
{
	const struct widget_style *alert = &pal->style[THEME_TAB_ALERT];
	_cleanup_free_ char *line = NULL, *surf = NULL;
	int y = 0, max;
	size_t i;

	line = xasprintf(" Review %s:%s  %s -> %s", v->profile, wb_tabs_base(v->workspace),
	    v->a != NULL ? v->a->branch : "", v->r != NULL ? v->r->target : "");
	widget_fill(v->win, y, 0, w, &pal->style[THEME_TAB_ACTIVE]);
	widget_puts(v->win, y++, 0, line, w, &pal->style[THEME_TAB_ACTIVE]);
	if (!v->surface_done)
		surf = xstrdup("surface: checking...");
	else if (v->surface_error != NULL)
		surf = xasprintf("surface: could not be checked: %s", v->surface_error);
	else
		surf = xasprintf("surface: %zu flag%s", v->s.n, v->s.n == 1 ? "" : "s");
	free(line);
	line = xasprintf(" base %.12s  tip %.12s  %ld commit%s  %zu file%s%s  %s", v->r->base,
	    v->r->tip, v->r->commits, v->r->commits == 1 ? "" : "s", v->n_files,
	    v->n_files == 1 ? "" : "s", v->files_done ? "" : "+", surf);
	widget_fill(v->win, y, 0, w, &pal->style[THEME_PANEL_ITEM]);
	widget_puts(v->win, y++, 0, line, w, v->surface_error != NULL || v->s.n > 0 ? alert :
	    &pal->style[THEME_PANEL_ITEM]);
	max = h / 4 > 2 ? h / 4 : 2;
	for (i = 0; i < v->s.n && y < h; i++) {
		_cleanup_free_ char *why = wb_review_flag_text(&v->s.flags[i]), *l = NULL;

		if ((int)i == max - 1 && v->s.n > (size_t)max) {
			l = xasprintf(" ! ... and %zu more flags: F lists them all", v->s.n - i);
			i = v->s.n;
		} else
			l = xasprintf(" ! %s: %s", v->s.flags[i].path, why);
		widget_fill(v->win, y, 0, w, &pal->style[THEME_PANEL_ITEM]);
		widget_puts(v->win, y++, 0, l, w, alert);
	}
	return y;
}

/* One file row: status, path, the flag beside a flagged file. */
static void
wb_review_file_row(struct wb_review *v, size_t i, int y, int w, const struct widget_palette *pal)
{
	const struct wb_review_file *f = &v->files[i];
	const struct widget_style *st = &pal->style[THEME_PANEL_ITEM];
	_cleanup_free_ char *l = NULL, *why = NULL;

	if (f->flag != NULL) {
		why = wb_review_flag_text(f->flag);
		l = xasprintf(" %c %s  ! %s%s", f->status, f->path, why, f->n_flags > 1 ?
		    " (+more)" : "");
		st = &pal->style[THEME_TAB_ALERT];
	} else
		l = xasprintf(" %c %s", f->status, f->path);
	if (i == v->sel)
		st = &pal->style[THEME_PANEL_SELECTED];
	widget_fill(v->win, y, 0, w, st);
	widget_puts(v->win, y, 0, l, w, st);
}

static void
wb_review_draw_overview(struct wb_review *v, int h, int w, const struct widget_palette *pal)
{
	_cleanup_free_ char *t = NULL;
	size_t nc = lz_strv_len(v->commits ? v->commits : (char *[]){ NULL }), i;
	int y = wb_review_header(v, h - 1, w, pal), rows, cmax;

	t = xasprintf("Commits (%ld)", v->r->commits);
	y += wb_review_title(v->win, y, w, t, pal);
	cmax = h / 5 > 2 ? h / 5 : 2;
	for (i = 0; i < nc && y < h - 1; i++) {
		_cleanup_free_ char *l = NULL;

		if ((int)i == cmax - 1 && (long)nc > cmax) {
			l = xasprintf("  ... and %ld more (git log %.12s..%.12s)", v->r->commits - (long)i,
			    v->r->base, v->r->tip);
			i = nc;
		} else
			l = xasprintf("  %s", v->commits[i]);
		widget_puts(v->win, y++, 0, l, w, &pal->style[THEME_PANEL_ITEM]);
	}
	free(t);
	t = xasprintf("Files (%zu%s)%s", v->n_files, v->files_done ? "" : "+, reading",
	    v->files_error != NULL ? v->files_error : "");
	if (y < h - 1)
		y += wb_review_title(v->win, y, w, t, pal);
	rows = h - 1 - y;
	if (rows > 0) {
		if (v->sel < v->top)
			v->top = v->sel;
		if (v->sel >= v->top + (size_t)rows)
			v->top = v->sel - (size_t)rows + 1;
		for (i = v->top; i < v->n_files && y < h - 1; i++)
			wb_review_file_row(v, i, y++, w, pal);
		if (v->n_files == 0 && v->files_done)
			widget_puts(v->win, y, 0, "  (no changes)", w, &pal->style[THEME_PANEL_ITEM]);
	}
	wb_review_footer(v, h - 1, w, WB_REVIEW_HINTS, pal);
}

static void
wb_review_draw_diff(struct wb_review *v, int h, int w, const struct widget_palette *pal)
{
	const struct wb_review_file *f = &v->files[v->diff_i];
	_cleanup_free_ char *t = NULL, *why = NULL;
	char pos[DIFFVIEW_SEARCH_MAX + 96];

	diffview_position(v->dv, pos, sizeof pos);
	if (f->flag != NULL)
		why = wb_review_flag_text(f->flag);
	t = xasprintf(" %c %s  (%zu/%zu)  %s%s%s", f->status, f->path, v->diff_i + 1, v->n_files,
	    pos, why != NULL ? "  ! " : "", why != NULL ? why : "");
	widget_fill(v->win, 0, 0, w, &pal->style[why != NULL ? THEME_TAB_ALERT : THEME_TAB_ACTIVE]);
	widget_puts(v->win, 0, 0, t, w, &pal->style[why != NULL ? THEME_TAB_ALERT :
	    THEME_TAB_ACTIVE]);
	diffview_draw(v->dv, v->win, 1, 0, h - 2, w, pal);
	wb_review_footer(v, h - 1, w, WB_REVIEW_DIFF_HINTS, pal);
}

void
wb_review_draw(struct wb *wb)
{
	struct wb_review *v = wb->review;
	const struct widget_palette *pal = &wb->pal;
	int h, w, y;

	if (v == NULL || v->win == NULL)
		return;
	getmaxyx(v->win, h, w);
	for (y = 0; y < h; y++)
		widget_fill(v->win, y, 0, w, &pal->style[THEME_PANEL_ITEM]);
	if (!v->loaded || v->error != NULL) {
		_cleanup_free_ char *l = xasprintf(" Review %s:%s", v->profile,
		    wb_tabs_base(v->workspace));

		widget_fill(v->win, 0, 0, w, &pal->style[THEME_TAB_ACTIVE]);
		widget_puts(v->win, 0, 0, l, w, &pal->style[THEME_TAB_ACTIVE]);
		widget_puts(v->win, 2, 1, v->error != NULL ? v->error : "reading the agent branch...",
		    w - 1, v->error != NULL ? &pal->style[THEME_TAB_ALERT] :
		    &pal->style[THEME_PANEL_ITEM]);
		wb_review_footer(v, h - 1, w, "r reload  q close", pal);
	} else if (v->in_diff)
		wb_review_draw_diff(v, h, w, pal);
	else
		wb_review_draw_overview(v, h, w, pal);
	touchwin(v->win);
	if (v->flags_tv != NULL)
		textview_draw(v->flags_tv, pal);
}

/* F: every flag, one a line, in a text dialog. */
static void
wb_review_flags_list(struct wb_review *v)
{
	char **lines = NULL;
	size_t i;

	if (!v->surface_done) {
		wb_review_note(v, false, "the surface is still being checked");
		return;
	}
	for (i = 0; i < v->s.n; i++) {
		_cleanup_free_ char *why = wb_review_flag_text(&v->s.flags[i]);

		lz_strv_pushf(&lines, "%s: %s", v->s.flags[i].path, why);
	}
	if (lines == NULL)
		lz_strv_push(&lines, "no executable-surface flags: nothing here runs on your host "
		    "by itself");
	v->flags_tv = textview_new("executable surface", lines, LINES, COLS);
	lz_strv_free(lines);
}

/* A key of the confirmation asked; true when there was one. */
static bool
wb_review_ask_key(struct wb_review *v, int key)
{
	enum wb_review_ask ask = v->ask;

	if (ask == WB_REVIEW_ASK_NONE)
		return false;
	v->ask = WB_REVIEW_ASK_NONE;
	if ((ask == WB_REVIEW_ASK_MERGE || ask == WB_REVIEW_ASK_DISCARD) && (key == 'y' ||
	    key == 'Y'))
		wb_review_act(v, ask == WB_REVIEW_ASK_MERGE, false);
	else if (ask == WB_REVIEW_ASK_SURFACE && key == 'a')
		wb_review_act(v, true, true);
	else
		wb_review_note(v, false, "cancelled: nothing was changed");
	return true;
}

/* m, D: ask first; only on what is on screen, all of it read. */
static void
wb_review_ask(struct wb_review *v, enum wb_review_ask ask)
{
	if (v->busy)
		wb_review_note(v, false, "busy: wait for the last step to finish");
	else if (!v->surface_done)
		wb_review_note(v, false, "the surface is still being checked: wait for it");
	else if (v->r->commits == 0)
		wb_review_note(v, false, "%s has no commits that %s lacks: nothing to %s",
		    v->a->branch, v->r->target, ask == WB_REVIEW_ASK_MERGE ? "merge" : "discard");
	else
		v->ask = ask;
}

/* / typed in the diff: the text to find, on the footer. */
static void
wb_review_search_key(struct wb_review *v, int key)
{
	size_t len = strlen(v->search);

	if (widget_key_is_enter(key)) {
		v->typing = false;
		diffview_search(v->dv, v->search);
		wb_review_diff_pump(v);
	} else if (key == WIDGET_KEY_ESC || key == 3 || key == 7) {
		v->typing = false;
	} else if (widget_key_is_backspace(key)) {
		while (len > 0 && ((unsigned char)v->search[--len] & 0xc0) == 0x80)
			;
		v->search[len] = '\0';
	} else if (key >= 0x20 && key != 0x7f && key <= 0x10ffff && len + 5 < sizeof v->search) {
		len += term_utf8_put((uint32_t)key, v->search + len);
		v->search[len] = '\0';
	}
}

static void
wb_review_diff_key(struct wb_review *v, int key)
{
	if (v->typing) {
		wb_review_search_key(v, key);
		return;
	}
	switch (key) {
	case 'q':
	case WIDGET_KEY_ESC:
		wb_review_diff_close(v);
		return;
	case '/':
		v->typing = true;
		v->search[0] = '\0';
		return;
	case ']':
		if (v->diff_i + 1 < v->n_files)
			wb_review_diff_open(v, v->diff_i + 1);
		return;
	case '[':
		if (v->diff_i > 0)
			wb_review_diff_open(v, v->diff_i - 1);
		return;
	default:
		if (diffview_handle_key(v->dv, key))
			wb_review_diff_pump(v);
		return;
	}
}

static void
wb_review_list_key(struct wb_review *v, int key)
{
	size_t page = 10;
	int h, w;

	getmaxyx(v->win, h, w);
	(void)w;
	page = h > 12 ? (size_t)h / 2 : 5;
	switch (key) {
	case 'j':
	case WIDGET_KEY_FN(KEY_DOWN):
		if (v->sel + 1 < v->n_files)
			v->sel++;
		break;
	case 'k':
	case WIDGET_KEY_FN(KEY_UP):
		if (v->sel > 0)
			v->sel--;
		break;
	case ' ':
	case WIDGET_KEY_FN(KEY_NPAGE):
		v->sel = v->sel + page < v->n_files ? v->sel + page : v->n_files > 0 ?
		    v->n_files - 1 : 0;
		break;
	case WIDGET_KEY_FN(KEY_PPAGE):
		v->sel = v->sel > page ? v->sel - page : 0;
		break;
	case 'g':
	case WIDGET_KEY_FN(KEY_HOME):
		v->sel = 0;
		break;
	case 'G':
	case WIDGET_KEY_FN(KEY_END):
		v->sel = v->n_files > 0 ? v->n_files - 1 : 0;
		break;
	default:
		if (widget_key_is_enter(key))
			wb_review_diff_open(v, v->sel);
		break;
	}
}

void
wb_review_key(struct wb *wb, int key)
{
	struct wb_review *v = wb->review;

	wb->dirty = true;
	if (v->flags_tv != NULL) {
		if (textview_handle_key(v->flags_tv, key) == TEXTVIEW_CLOSE) {
			textview_free(v->flags_tv);
			v->flags_tv = NULL;
		}
		return;
	}
	if (wb_review_ask_key(v, key))
		return;
	if (!v->typing) {
		free(v->note);
		v->note = NULL;
	}
	if (!v->loaded || v->error != NULL) {
		if (key == 'q' || key == WIDGET_KEY_ESC)
			wb_review_close(wb);
		else if (key == 'r' && v->loaded)
			wb_review_load(v);
		return;
	}
	if (!v->typing) {
		switch (key) {
		case 'm':
			wb_review_ask(v, WB_REVIEW_ASK_MERGE);
			return;
		case 'D':
			wb_review_ask(v, WB_REVIEW_ASK_DISCARD);
			return;
		case 'S':
			wb_review_sync(v);
			return;
		case 'F':
			wb_review_flags_list(v);
			return;
		case 'r':
			wb_review_load(v);
			return;
		default:
			break;
		}
	}
	if (v->in_diff) {
		wb_review_diff_key(v, key);
		return;
	}
	if (key == 'q' || key == WIDGET_KEY_ESC)
		wb_review_close(wb);
	else
		wb_review_list_key(v, key);
}
