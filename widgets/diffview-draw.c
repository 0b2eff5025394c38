/* diffview-draw.c - the diff pager on screen: each line in the theme's
 * style for what it is, hostile bytes made visible by widget_put. */
#include "diffview-int.h"

static const struct widget_style *
dv_style(const struct widget_palette *pal, enum dv_kind k)
{
	switch (k) {
	case DV_META: return &pal->style[THEME_DIFF_META];
	case DV_HUNK: return &pal->style[THEME_DIFF_HUNK];
	case DV_ADD: return &pal->style[THEME_DIFF_ADD];
	case DV_DEL: return &pal->style[THEME_DIFF_DEL];
	case DV_PLAIN: break;
	}
	return &pal->style[THEME_PANEL_ITEM];
}

void
diffview_draw(struct diffview *dv, WINDOW *win, int y, int x, int h, int w,
    const struct widget_palette *pal)
{
	const struct widget_style *item = &pal->style[THEME_PANEL_ITEM];
	struct widget_style dim = *item;
	int r;

	dim.attr |= A_DIM;
	dv->rows = h > 0 ? h : 1;
	for (r = 0; r < h; r++) {
		size_t abs = dv->top + (size_t)r;

		widget_fill(win, y + r, x, w, item);
		if (abs >= dv->first && abs < dv->first + dv->n) {
			const struct dv_line *l = &dv->ring[abs % DIFFVIEW_WINDOW];

			widget_puts(win, y + r, x, l->s, w, dv_style(pal, (enum dv_kind)l->kind));
		} else if (dv->eof && abs >= dv->seen) {
			if (abs == dv->seen && dv->failed)
				widget_puts(win, y + r, x, "(git diff failed: the diff may be cut short)",
				    w, &pal->style[THEME_TAB_ALERT]);
			else if (abs == dv->seen && dv->seen == 0)
				widget_puts(win, y + r, x, "(no differences)", w, &dim);
		} else if (r == 0 || abs == dv->seen) {
			widget_puts(win, y + r, x, "... reading", w, &dim);
		}
	}
}

