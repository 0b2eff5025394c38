/* wb-cmd.c - the workbench's commands beyond the tab, tmux's habits: the
 * dashboard (prefix w), naming a tab (prefix ,: rename-window), a command
 * line on the status line (prefix :: command-prompt) and the configuration
 * read again (source-file, or SIGHUP while the terminal is there).
 *
 * The line is read here, key by key, and shown as the status line's
 * message: printable characters append, Backspace and C-u erase, Enter
 * runs, Esc cancels. A reload swaps wb->cfg for the file as it is now (a
 * file that does not load changes nothing and says why); the old one is kept
 * until exit, for the jobs on the threadpool that read it. What a reload
 * applies: workbench.prefix (unless --prefix or $LAZARET_PREFIX chose it),
 * bell, notify, history (new tabs), and
 * the profiles new tabs start from; a running domain keeps the
 * configuration it started with until `lazaret stop` (the drift notice
 * says so once per connection). The theme and the mouse are read at start.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "term.h"
#include "wb.h"
#include "xmalloc.h"

#define WB_CMD_LINE_MAX		256	/* bytes of a typed command line */
#define WB_CMD_TITLE_COLS	32	/* a tab's name, at most (the bar's title width) */

/* What the line being typed is for. */
enum wb_cmd_mode { WB_CMD_NONE, WB_CMD_RENAME, WB_CMD_PROMPT };

static enum wb_cmd_mode wb_cmd_mode;
static char wb_cmd_line[WB_CMD_LINE_MAX];
static size_t wb_cmd_len;

static void
wb_cmd_show(struct wb *wb)
{
	char *m = xasprintf("%s %s_", wb_cmd_mode == WB_CMD_RENAME ? "(rename-tab)" : ":",
	    wb_cmd_line);

	statusline_message(wb->status, m, 0);
	free(m);
	wb->dirty = true;
}

static void
wb_cmd_begin(struct wb *wb, enum wb_cmd_mode mode, const char *text)
{
	wb_ui_focus_tab(wb);
	wb_cmd_mode = mode;
	snprintf(wb_cmd_line, sizeof wb_cmd_line, "%s", text != NULL ? text : "");
	wb_cmd_len = strlen(wb_cmd_line);
	wb_cmd_show(wb);
}

bool
wb_cmd_shown(const struct wb *wb)
{
	(void)wb;
	return wb_cmd_mode != WB_CMD_NONE;
}

/* name for tab: control characters and what is over the width dropped;
 * empty: back to profile:workspace. */
static void
wb_cmd_rename(struct wb *wb, struct wb_tab *tab, const char *name)
{
	char *clean = xmalloc(strlen(name) + 1), *o = clean;
	const unsigned char *p;

	for (p = (const unsigned char *)name; *p != '\0'; p++)
		if (*p >= 0x20 && *p != 0x7f)
			*o++ = (char)*p;
	*o = '\0';
	while (o > clean && widget_width(clean) > WB_CMD_TITLE_COLS)
		*--o = '\0';	/* a whole UTF-8 character may need several */
	free(tab->title);
	tab->title = clean[strspn(clean, " ")] != '\0' ? clean : NULL;
	if (tab->title == NULL)
		free(clean);
	wb_tabs_save(wb);
	wb->dirty = true;
}

int
wb_cmd_reload(struct wb *wb, const char *file, lz_err_t *err)
{
	struct cfg *cfg = NULL;
	const char *was = getenv(CLI_CONFIG_ENV);
	char *keep = was != NULL ? xstrdup(was) : NULL;
	int r;

	/* cli_load_config reads $LAZARET_CONFIG (set from --config). */
	if (file != NULL && setenv(CLI_CONFIG_ENV, file, 1) < 0) {
		free(keep);
		return lz_err_sys(err, errno, "cannot set %s", CLI_CONFIG_ENV);
	}
	r = cli_load_config(&cfg, err);
	if (file != NULL) {
		if (keep != NULL)
			setenv(CLI_CONFIG_ENV, keep, 1);
		else
			unsetenv(CLI_CONFIG_ENV);
	}
	free(keep);
	if (r < 0)
		return -1;
	if (!wb->prefix_given && cfg->wb_prefix != NULL &&
	    wb_keys_set_prefix(wb->keys, cfg->wb_prefix, err) < 0) {
		lz_err_wrap(err, "%s:%d: workbench.prefix", cfg->file, cfg->wb_prefix_line);
		cfg_free(cfg);
		return -1;
	}
	/* The status line names the prefix: say the new one. */
	free(wb->hints);
	wb->hints = wb_keys_hints(wb->keys, NULL, 0);
	wb->old_cfgs = xreallocarray(wb->old_cfgs, wb->n_old_cfgs + 1, sizeof *wb->old_cfgs);
	wb->old_cfgs[wb->n_old_cfgs++] = wb->cfg;
	wb->cfg = cfg;
	wb_ui_log(wb, false, "configuration reloaded from %s", cfg->file);
	wb_ui_message(wb, "configuration reloaded from %s (running domains keep theirs until "
	    "lazaret stop)", cfg->file);
	wb->dirty = true;
	return 0;
}

/* One command line: source-file [FILE], rename-tab NAME. */
static void
wb_cmd_run(struct wb *wb, const char *line)
{
	struct wb_tab *tab = wb_tabs_active(wb);
	lz_err_t err = LZ_ERR_INIT;
	const char *arg;
	size_t n;

	line += strspn(line, " ");
	n = strcspn(line, " ");
	arg = line + n + strspn(line + n, " ");
	if (n == 0)
		return;
	if ((n == 11 && strncmp(line, "source-file", n) == 0) ||
	    (n == 6 && strncmp(line, "source", n) == 0)) {
		if (wb_cmd_reload(wb, *arg != '\0' ? arg : NULL, &err) < 0) {
			wb_ui_message(wb, "source-file: %s", err.msg);
			lz_err_clear(&err);
		}
	} else if ((n == 10 && strncmp(line, "rename-tab", n) == 0) ||
	    (n == 13 && strncmp(line, "rename-window", n) == 0)) {
		if (tab != NULL)
			wb_cmd_rename(wb, tab, arg);
	} else
		wb_ui_message(wb, "unknown command '%.*s': source-file [FILE], rename-tab NAME",
		    (int)(n < 64 ? n : 64), line);
}

void
wb_cmd_key(struct wb *wb, int key)
{
	enum wb_cmd_mode mode = wb_cmd_mode;
	struct wb_tab *tab = wb_tabs_active(wb);
	char u[8];
	size_t k;

	if (key == 13 || key == WIDGET_KEY_FN(KEY_ENTER)) {
		wb_cmd_mode = WB_CMD_NONE;
		statusline_message(wb->status, NULL, 0);
		if (mode == WB_CMD_RENAME && tab != NULL)
			wb_cmd_rename(wb, tab, wb_cmd_line);
		else if (mode == WB_CMD_PROMPT)
			wb_cmd_run(wb, wb_cmd_line);
		wb->dirty = true;
		return;
	}
	if (key == WIDGET_KEY_ESC || key == 7 /* C-g */) {
		wb_cmd_mode = WB_CMD_NONE;
		statusline_message(wb->status, NULL, 0);
		wb->dirty = true;
		return;
	}
	if (key == 127 || key == 8 || key == WIDGET_KEY_FN(KEY_BACKSPACE)) {
		while (wb_cmd_len > 0 && ((unsigned char)wb_cmd_line[--wb_cmd_len] & 0xc0) == 0x80)
			;
		wb_cmd_line[wb_cmd_len] = '\0';
	} else if (key == 21 /* C-u */) {
		wb_cmd_len = 0;
		wb_cmd_line[0] = '\0';
	} else if (key >= 0x20 && key != 0x7f && !WIDGET_KEY_IS_FN(key) &&
	    !(key & WIDGET_KEY_META) && key < 0x110000) {
		k = term_utf8_put((uint32_t)key, u);
		if (wb_cmd_len + k < sizeof wb_cmd_line) {
			memcpy(wb_cmd_line + wb_cmd_len, u, k);
			wb_cmd_len += k;
			wb_cmd_line[wb_cmd_len] = '\0';
		}
	}
	wb_cmd_show(wb);
}

void
wb_cmd_sighup(struct wb *wb)
{
	struct termios t;
	lz_err_t err = LZ_ERR_INIT;

	/* A hung-up terminal says EIO: that SIGHUP is the terminal gone (detach,
	 * as tmux's client does); with it still there, reload like tmux's
	 * source-file. */
	if (tcgetattr(STDIN_FILENO, &t) < 0) {
		wb_tabs_save(wb);
		wb->detached = true;
		wb->quit = true;
		uv_stop(wb->loop);
		return;
	}
	if (wb_cmd_reload(wb, NULL, &err) < 0) {
		wb_ui_message(wb, "SIGHUP: configuration not reloaded: %s", err.msg);
		lz_err_clear(&err);
	}
}

void
wb_cmd_action(struct wb *wb, enum wb_keys_action a)
{
	struct wb_tab *tab = wb_tabs_active(wb);

	if (a == WB_KEYS_DASHBOARD)
		wb_dash_open(wb);
	else if (a == WB_KEYS_RENAME_TAB && tab != NULL)
		wb_cmd_begin(wb, WB_CMD_RENAME, tab->title);
	else if (a == WB_KEYS_COMMAND)
		wb_cmd_begin(wb, WB_CMD_PROMPT, NULL);
}
