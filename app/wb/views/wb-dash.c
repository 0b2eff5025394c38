/* wb-dash.c - the dashboard (prefix w): every live domain of the user, one
 * row each, the columns of `lazaret ls` (client-dash.h), like k9s's pod
 * list: refreshed every WB_DASH_MS on libuv's threadpool (a control socket
 * per domain, git for the unreviewed commits) while it is open; s picks the
 * column to sort by (STATE puts who needs you first), S reverses, Up/Down
 * (k/j) choose, Enter goes to the domain's tab or opens one, r refreshes,
 * q or Esc closes. What a row shows came from a coordinator or the user's
 * repository; every cell is drawn through widget_puts (control characters
 * made visible, cut to its column).
 */
#include <stdlib.h>
#include <string.h>

#include "client-dash.h"
#include "strv.h"
#include "wb.h"
#include "xmalloc.h"

#define WB_DASH_MS	2000

enum wb_dash_sort { WB_DASH_BY_STATE, WB_DASH_BY_DOMAIN, WB_DASH_BY_PROFILE, WB_DASH_BY_UPTIME,
	WB_DASH_BY_MEM, WB_DASH_BY_CPU, WB_DASH_BY_PENDING, WB_DASH_BY_UNREVIEWED, WB_DASH_N_SORT };

static const char *const wb_dash_sort_names[WB_DASH_N_SORT] = {
	"STATE", "DOMAIN", "PROFILE", "UPTIME", "MEM", "CPU", "PENDING", "UNREVIEWED",
};

struct wb_dash {
	struct wb *wb;
	bool open;
	WINDOW *win;
	PANEL *panel;
	int rows, cols;
	struct client_dash_row *r;
	size_t n, sel;
	enum wb_dash_sort sort;
	bool reverse;
	bool busy, loaded;
	char *error;
	uv_timer_t timer;
};

struct wb_dash_job {
	uv_work_t w;
	struct wb_dash *d;
	const struct cfg *cfg;
	struct client_dash_row *r;
	size_t n;
	char *error;
};

/* The cells of a tab-separated line (no cell holds a tab). */
static char **
wb_dash_split(const char *line)
{
	char **v = NULL;
	const char *p = line, *tab;

	for (;;) {
		tab = strchr(p, '\t');
		lz_strv_pushf(&v, "%.*s", (int)(tab != NULL ? (size_t)(tab - p) : strlen(p)), p);
		if (tab == NULL)
			return v;
		p = tab + 1;
	}
}

static void
wb_dash_rows_free(struct client_dash_row *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		client_dash_clear(&r[i]);
	free(r);
}

/* Who needs you first: approval, input, then the rest. */
static int
wb_dash_rank(const char *state)
{
	return strcmp(state, "approval") == 0 ? 0 : strcmp(state, "input") == 0 ? 1 :
	    strcmp(state, "running") == 0 ? 2 : 3;
}

static int
wb_dash_num(long long a, long long b)
{
	return a < b ? 1 : a > b ? -1 : 0;	/* the biggest first */
}

static enum wb_dash_sort wb_dash_sort_now;

static int
wb_dash_cmp(const void *pa, const void *pb)
{
	const struct client_dash_row *a = pa, *b = pb;
	int c = 0;

	switch (wb_dash_sort_now) {
	case WB_DASH_BY_STATE: c = wb_dash_rank(a->state) - wb_dash_rank(b->state); break;
	case WB_DASH_BY_DOMAIN: break;
	case WB_DASH_BY_PROFILE: c = strcmp(a->profile, b->profile); break;
	case WB_DASH_BY_UPTIME: c = wb_dash_num(a->uptime_s, b->uptime_s); break;
	case WB_DASH_BY_MEM: c = wb_dash_num(a->mem, b->mem); break;
	case WB_DASH_BY_CPU: c = wb_dash_num(a->cpu_permille, b->cpu_permille); break;
	case WB_DASH_BY_PENDING: c = wb_dash_num(a->pending, b->pending); break;
	case WB_DASH_BY_UNREVIEWED: c = wb_dash_num(a->unreviewed, b->unreviewed); break;
	case WB_DASH_N_SORT: break;
	}
	return c != 0 ? c : strcmp(a->hash, b->hash);
}

/* The selected row's domain (owned), or NULL. */
static char *
wb_dash_selected(const struct wb_dash *d)
{
	return d->sel < d->n ? xstrdup(d->r[d->sel].hash) : NULL;
}

/* Sort, the selection staying on keep's domain (freed here). */
static void
wb_dash_sort_keep(struct wb_dash *d, char *keep)
{
	size_t i;

	wb_dash_sort_now = d->sort;
	if (d->n > 1)
		qsort(d->r, d->n, sizeof *d->r, wb_dash_cmp);
	if (d->reverse)
		for (i = 0; i < d->n / 2; i++) {
			struct client_dash_row t = d->r[i];

			d->r[i] = d->r[d->n - 1 - i];
			d->r[d->n - 1 - i] = t;
		}
	/* The selection stays on its domain. */
	for (i = 0; keep != NULL && i < d->n; i++)
		if (strcmp(d->r[i].hash, keep) == 0)
			d->sel = i;
	if (d->sel >= d->n)
		d->sel = d->n > 0 ? d->n - 1 : 0;
	free(keep);
}

static void
wb_dash_sort(struct wb_dash *d)
{
	wb_dash_sort_keep(d, wb_dash_selected(d));
}

static void
wb_dash_work_cb(uv_work_t *w)
{
	struct wb_dash_job *j = w->data;
	lz_err_t err = LZ_ERR_INIT;

	if (client_dash_collect(j->cfg, true, &j->r, &j->n, &err) < 0)
		j->error = xstrdup(err.msg);
	lz_err_clear(&err);
}

static void
wb_dash_after_cb(uv_work_t *w, int status)
{
	struct wb_dash_job *j = w->data;
	struct wb_dash *d = j->d;

	(void)status;
	d->busy = false;
	if (d->open) {
		/* A refresh keeps the selection on its domain, whatever rows came
		 * or went above it (k9s): Enter opens what the user chose. */
		char *keep = wb_dash_selected(d);

		wb_dash_rows_free(d->r, d->n);
		d->r = j->r;
		d->n = j->n;
		free(d->error);
		d->error = j->error;
		d->loaded = true;
		wb_dash_sort_keep(d, keep);
		d->wb->dirty = true;
	} else {
		wb_dash_rows_free(j->r, j->n);
		free(j->error);
	}
	free(j);
}

static void
wb_dash_refresh(struct wb_dash *d)
{
	struct wb_dash_job *j;

	if (d->busy)
		return;
	j = xcalloc(1, sizeof *j);
	j->w.data = j;
	j->d = d;
	j->cfg = d->wb->cfg;	/* kept alive past a reload (wb-cmd.c) */
	d->busy = true;
	if (uv_queue_work(d->wb->loop, &j->w, wb_dash_work_cb, wb_dash_after_cb) != 0) {
		d->busy = false;
		free(j);
	}
}

static void
wb_dash_timer_cb(uv_timer_t *t)
{
	struct wb_dash *d = t->data;

	if (d->open)
		wb_dash_refresh(d);
}

void
wb_dash_open(struct wb *wb)
{
	struct wb_dash *d = wb->dash;

	if (d == NULL) {
		d = wb->dash = xcalloc(1, sizeof *d);
		d->wb = wb;
		uv_timer_init(wb->loop, &d->timer);
		d->timer.data = d;
	}
	if (d->open)
		return;
	d->open = true;
	d->loaded = d->n > 0;
	d->win = newwin(LINES > 1 ? LINES - 1 : 1, COLS, 0, 0);
	d->panel = new_panel(d->win);
	getmaxyx(d->win, d->rows, d->cols);
	wb_ui_focus_tab(wb);
	wb_dash_refresh(d);
	uv_timer_start(&d->timer, wb_dash_timer_cb, WB_DASH_MS, WB_DASH_MS);
	wb->redraw_all = true;
}

void
wb_dash_close(struct wb *wb)
{
	struct wb_dash *d = wb->dash;

	if (d == NULL || !d->open)
		return;
	d->open = false;
	uv_timer_stop(&d->timer);
	del_panel(d->panel);
	delwin(d->win);
	d->panel = NULL;
	d->win = NULL;
	wb->redraw_all = true;
}

bool
wb_dash_shown(const struct wb *wb)
{
	return wb->dash != NULL && wb->dash->open;
}

void
wb_dash_free(struct wb *wb)
{
	struct wb_dash *d = wb->dash;

	if (d == NULL)
		return;
	wb_dash_close(wb);
	wb_dash_rows_free(d->r, d->n);
	free(d->error);
	free(d);	/* its timer was closed with every handle (uv_walk) */
	wb->dash = NULL;
}

/* The tab of r's domain, or -1. */
static long
wb_dash_tab(struct wb *wb, const struct client_dash_row *r)
{
	for (size_t i = 0; i < wb->n_tabs; i++)
		if (strcmp(wb->tabs[i]->profile, r->profile) == 0 &&
		    strcmp(wb->tabs[i]->workspace, r->workspace) == 0 &&
		    wb->tabs[i]->state != WB_TAB_EXITED && wb->tabs[i]->state != WB_TAB_FAILED)
			return (long)i;
	return -1;
}

long
wb_dash_key(struct wb *wb, int key)
{
	struct wb_dash *d = wb->dash;
	struct client_dash_row *r;
	lz_err_t err = LZ_ERR_INIT;
	long t;

	wb->dirty = true;
	switch (key) {
	case 'q':
	case WIDGET_KEY_ESC:
		wb_dash_close(wb);
		return -1;
	case 'j':
	case WIDGET_KEY_FN(KEY_DOWN):
		if (d->sel + 1 < d->n)
			d->sel++;
		return -1;
	case 'k':
	case WIDGET_KEY_FN(KEY_UP):
		if (d->sel > 0)
			d->sel--;
		return -1;
	case 's':
		d->sort = (d->sort + 1) % WB_DASH_N_SORT;
		wb_dash_sort(d);
		return -1;
	case 'S':
		d->reverse = !d->reverse;
		wb_dash_sort(d);
		return -1;
	case 'r':
		wb_dash_refresh(d);
		return -1;
	case 13:
	case WIDGET_KEY_FN(KEY_ENTER):
		break;
	default:
		return -1;
	}
	if (d->sel >= d->n)
		return -1;
	r = &d->r[d->sel];
	if ((t = wb_dash_tab(wb, r)) < 0) {
		/* No tab of it here: a new session in a new tab. */
		if (wb_tabs_add(wb, r->profile, r->workspace, r->mode, 0, &err) == NULL) {
			wb_ui_message(wb, "%s", err.msg);
			lz_err_clear(&err);
			return -1;
		}
		t = (long)wb->n_tabs - 1;
	}
	wb_dash_close(wb);
	return t;
}

void
wb_dash_draw(struct wb *wb)
{
	struct wb_dash *d = wb->dash;
	const struct widget_palette *pal = &wb->pal;
	int w[CLIENT_DASH_COLS], x, y, h, i;
	char ***cells;
	char *t;
	size_t k;

	if (d == NULL || !d->open)
		return;
	if (d->rows != (LINES > 1 ? LINES - 1 : 1) || d->cols != COLS) {
		wresize(d->win, LINES > 1 ? LINES - 1 : 1, COLS);
		getmaxyx(d->win, d->rows, d->cols);
	}
	h = d->rows;
	for (y = 0; y < h; y++)
		widget_fill(d->win, y, 0, d->cols, &pal->style[THEME_PANEL_ITEM]);
	t = xasprintf(" Domains (%zu)  sorted by %s%s   s sort  S reverse  Enter go  r refresh  "
	    "q close", d->n, wb_dash_sort_names[d->sort], d->reverse ? " (reversed)" : "");
	widget_fill(d->win, 0, 0, d->cols, &pal->style[THEME_TAB_ACTIVE]);
	widget_puts(d->win, 0, 0, t, d->cols, &pal->style[THEME_TAB_ACTIVE]);
	free(t);
	if (!d->loaded || d->error != NULL || d->n == 0) {
		widget_puts(d->win, 2, 1, d->error != NULL ? d->error : !d->loaded ?
		    "asking every coordinator..." : "no domain runs (lazaret run, or prefix c)",
		    d->cols - 1, &pal->style[d->error != NULL ? THEME_TAB_ALERT : THEME_PANEL_ITEM]);
		touchwin(d->win);
		return;
	}
	cells = xcalloc(d->n, sizeof *cells);
	for (i = 0; i < CLIENT_DASH_COLS; i++)
		w[i] = widget_width(client_dash_header[i]);
	for (k = 0; k < d->n; k++) {
		t = client_dash_tsv(&d->r[k]);
		cells[k] = wb_dash_split(t);
		free(t);
		for (i = 0; i < CLIENT_DASH_COLS && cells[k][i] != NULL; i++)
			if (widget_width(cells[k][i]) > w[i])
				w[i] = widget_width(cells[k][i]);
	}
	for (x = 1, i = 0; i < CLIENT_DASH_COLS && x < d->cols; x += w[i++] + 2)
		widget_puts(d->win, 1, x, client_dash_header[i], d->cols - x,
		    &pal->style[THEME_PANEL_TITLE]);
	for (k = 0; k < d->n && (int)k + 2 < h; k++) {
		const struct widget_style *st = k == d->sel ? &pal->style[THEME_PANEL_SELECTED] :
		    wb_dash_rank(d->r[k].state) < 2 ? &pal->style[THEME_TAB_ALERT] :
		    &pal->style[THEME_PANEL_ITEM];

		widget_fill(d->win, (int)k + 2, 0, d->cols, st);
		for (x = 1, i = 0; i < CLIENT_DASH_COLS && cells[k][i] != NULL && x < d->cols;
		    x += w[i++] + 2)
			widget_puts(d->win, (int)k + 2, x, cells[k][i], d->cols - x, st);
	}
	for (k = 0; k < d->n; k++)
		lz_strv_free(cells[k]);
	free(cells);
	top_panel(d->panel);
	touchwin(d->win);
}
