/* wb-need.c - who needs me, in the workbench: each tab's tabstate
 * (backend/common/wire/tabstate.h) fed from its coordinator's frames, its
 * screen and the user's keys; the jump to the next tab that needs the user;
 * and the notice when a background tab starts to: its title flashes once,
 * and, as configured, the terminal's bell rings and workbench.notify runs.
 *
 * Theory of operation: a timer looks at every tab WB_NEED_TICK_MS (a
 * background tab's held output is fed first, so its screen is current):
 * quiet with the cursor on an input line, a bell since the user's last key,
 * its requests waiting (the marks wb_esc_changed counts). tabstate_update
 * says when a tab's state changed; only a change into input or approval
 * notifies, so a tab that stays waiting never notifies twice. The screen is
 * only read (cells, cursor); what an agent prints cannot reach the notify
 * command, which gets fixed words and the user's own names in its
 * environment, never on its command line.
 */
#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "term.h"
#include "wb.h"
#include "xmalloc.h"

#define WB_NEED_TICK_MS		200	/* how often the tabs are looked at */
#define WB_NEED_SEEN_MS		1500	/* a tab left this recently was seen: no notice */

/* Waiting at an input line? Not while the user reads its history. */
static bool
wb_need_input_line(struct term *t)
{
	return term_scroll_offset(t) == 0 && term_input_line(t);
}

static void
wb_need_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	(void)status;
	(void)sig;
	uv_close((uv_handle_t *)p, (uv_close_cb)free);
}

void
wb_need_notify(struct wb *wb, long tab_no, const char *state, const char *profile,
    const char *workspace, const char *title)
{
	uv_process_options_t o;
	uv_stdio_container_t io[3];
	uv_process_t *p;
	char **env = NULL;
	extern char **environ;
	size_t i;
	int r;

	if (wb->cfg->wb_bell)
		beep();
	if (wb->cfg->wb_notify == NULL)
		return;
	for (i = 0; environ[i] != NULL; i++)
		if (strncmp(environ[i], "LAZARET_TAB", 11) != 0)
			lz_strv_push(&env, environ[i]);
	lz_strv_pushf(&env, "LAZARET_TAB=%ld", tab_no);
	lz_strv_pushf(&env, "LAZARET_TAB_STATE=%s", state);
	lz_strv_pushf(&env, "LAZARET_TAB_PROFILE=%s", profile);
	lz_strv_pushf(&env, "LAZARET_TAB_WORKSPACE=%s", workspace);
	lz_strv_pushf(&env, "LAZARET_TAB_TITLE=%s", title);
	memset(&o, 0, sizeof o);
	memset(io, 0, sizeof io);
	for (i = 0; i < 3; i++)
		io[i].flags = UV_IGNORE;	/* never the workbench's screen */
	o.file = wb->cfg->wb_notify[0];
	o.args = wb->cfg->wb_notify;
	o.env = env;
	o.stdio = io;
	o.stdio_count = 3;
	o.exit_cb = wb_need_exit_cb;
	o.flags = UV_PROCESS_DETACHED;
	p = xcalloc(1, sizeof *p);
	if ((r = uv_spawn(wb->loop, p, &o)) < 0) {
		wb_ui_log(wb, true, "workbench.notify: %s: %s", o.file, uv_strerror(r));
		uv_close((uv_handle_t *)p, (uv_close_cb)free);
	} else
		uv_unref((uv_handle_t *)p);
	lz_strv_free(env);
}

/* tab's title as the user knows it: its name, or profile:workspace. */
static char *
wb_need_title(const struct wb_tab *tab)
{
	return tab->title != NULL ? xstrdup(tab->title) :
	    xasprintf("%s:%s", tab->profile, wb_tabs_base(tab->workspace));
}

void
wb_need_update(struct wb *wb)
{
	uint64_t now = uv_now(wb->loop);
	struct wb_tab *active = wb_tabs_active(wb);
	size_t i;

	for (i = 0; i < wb->n_tabs; i++) {
		struct wb_tab *tab = wb->tabs[i];
		unsigned long bells;
		bool line = false;

		if (tab->front != (tab == active)) {
			tab->front = tab == active;
			wb->dirty = true;
		}
		if (tab->front)
			tab->seen_ms = now;
		if (tab->state == WB_TAB_RUNNING) {
			if (tab != active)
				term_flush(tab->t);	/* its screen as it is now */
			bells = term_bell_count(tab->t);
			if (bells > tab->bells_seen)
				tabstate_bell(&tab->ts);
			tab->bells_seen = bells;
			line = wb_need_input_line(tab->t);
		}
		tabstate_approvals(&tab->ts, tab->alerts);
		if (!tabstate_update(&tab->ts, now, line))
			continue;
		wb->dirty = true;
		if (!tabstate_needs_me(tab->ts.state) || tab == active ||
		    now - tab->seen_ms < WB_NEED_SEEN_MS)
			continue;
		/* A background tab starts to need the user: once per change (not
		 * when the user left it a moment ago, its prompt in sight). */
		tab->flash_until = now + WB_NEED_FLASH_MS;
		{
			char *title = wb_need_title(tab);

			wb_ui_log(wb, true, "tab %zu %s needs you: %s", i, title,
			    tabstate_name(tab->ts.state));
			wb_need_notify(wb, (long)i, tabstate_name(tab->ts.state), tab->profile,
			    tab->workspace, title);
			free(title);
		}
	}
}

static void
wb_need_tick_cb(uv_timer_t *t)
{
	struct wb *wb = t->data;
	uint64_t now = uv_now(wb->loop);

	wb_need_update(wb);
	for (size_t i = 0; i < wb->n_tabs; i++)
		if (wb->tabs[i]->flash_until != 0 && now >= wb->tabs[i]->flash_until) {
			wb->tabs[i]->flash_until = 0;	/* the flash is over: draw it back */
			wb->dirty = true;
		}
}

void
wb_need_start(struct wb *wb)
{
	uv_timer_init(wb->loop, &wb->need_tick);
	wb->need_tick.data = wb;
	uv_timer_start(&wb->need_tick, wb_need_tick_cb, WB_NEED_TICK_MS, WB_NEED_TICK_MS);
}

bool
wb_need_flashing(const struct wb *wb, const struct wb_tab *tab)
{
	return tab->flash_until != 0 && uv_now(wb->loop) < tab->flash_until;
}

long
wb_need_next(struct wb *wb)
{
	size_t i, k;

	wb_need_update(wb);
	/* After the active tab, round the ring: approval and input alike, in
	 * tab order, as tmux's next-window -a visits alerts. */
	for (k = 1; k < wb->n_tabs; k++) {
		i = (wb->active + k) % wb->n_tabs;
		if (tabstate_needs_me(wb->tabs[i]->ts.state))
			return (long)i;
	}
	if (wb->n_tabs > 0 && tabstate_needs_me(wb->tabs[wb->active]->ts.state))
		wb_ui_message(wb, "only this tab needs you");
	else
		wb_ui_message(wb, "no tab needs you");
	return -1;
}
