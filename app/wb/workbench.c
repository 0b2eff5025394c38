/* workbench.c - lazaret-workbench: the ncurses cockpit (issue 5).
 *
 * Theory of operation. One libuv loop. Each tab is a session on its
 * domain's Session Coordinator; tabs of one domain share one connection
 * (wb-conn.c, started through the same hold-to-bind client code as `lazaret
 * run`). Workbench sessions are created with PROTO_SESSION_KEEP, so they
 * outlive the workbench: prefix d (detach) only records the open tabs in
 * the state file (wb-state.c) and exits; `lazaret-workbench attach` sends
 * ATTACH for each, gets the coordinator's current screen as a SNAPSHOT
 * (backend/coord/screen.c) and then the live stream.
 *
 * Bytes from a session are fed into its tab's term (vterm/term.h); the
 * screen is drawn once per loop turn (at most every WB_FRAME_MS) from a
 * uv_prepare_t, only the dirty rows of the shown tab (term-draw.c), the
 * tab bar, status line and side panel when something changed. Keys are
 * read with wget_wch on a uv_poll_t of stdin, folded (ESC+key is
 * Alt+key), run through the prefix table (wb-keys.c), and otherwise
 * encoded for the PTY with libvterm's keyboard encoder (wb-tab.c), which
 * follows the application's cursor-key mode.
 * SIGWINCH is a uv_signal_t (installed before initscr, so ncurses keeps out
 * of it): resize_term, relayout, and a RESIZE frame for every tab.
 *
 * This file is the start-up and the end, main's phases in order: wb_step
 * (a re-exec'd step), wb_args, wb_open_state (config, terminal, the locked
 * state file), wb_look (theme, keys, widgets), wb_start_loop, wb_start_ui
 * (screen, first tabs), wb_run; then one way out (wb_teardown, or
 * wb_look_free before the loop, and wb_close_state). The rest is split
 * along its seams, listed in wb.h: tabs and connections
 * (wb-tabs.c), the escalation queue and request view (wb-esc.c), keys
 * (wb-input.c) and drawing (wb-draw.c).
 */
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "steps/steps.h"
#include "strv.h"
#include "wb-state.h"
#include "wb.h"
#include "wb-egress.h"
#include "wb-audit.h"
#include "wb-tour.h"
#include "xmalloc.h"

#define WB_USAGE "lazaret-workbench [attach [-d]] [-s|-t NAME] [-p PROFILE] [-w DIR] [-m MODE]\n" \
	"       [--config FILE] [--prefix KEY] [--theme NAME|FILE] [--[no-]mouse]\n" \
	"       lazaret-workbench ls"
#define WB_FLUSH_MS	1000			/* at exit: wait for writes to go out */

static void
wb_winch_cb(uv_signal_t *h, int signum)
{
	struct wb *wb = h->data;
	struct winsize ws;

	(void)signum;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || ws.ws_row == 0 || ws.ws_col == 0)
		return;
	resize_term(ws.ws_row, ws.ws_col);
	wb->panel_overlay = false;	/* the narrow overlay was for the old size */
	wb_draw_relayout(wb);
	clearok(curscr, TRUE);
}

static void
wb_quit_cb(uv_signal_t *h, int signum)
{
	struct wb *wb = h->data;

	/* Like a lost terminal in tmux: the sessions keep running. */
	(void)signum;
	wb_tabs_save(wb);
	wb->detached = true;
	wb->quit = true;
	uv_stop(wb->loop);
}

static void
wb_hup_cb(uv_signal_t *h, int signum)
{
	(void)signum;
	wb_cmd_sighup(h->data);
}

/* The first of the command line, the environment and the config that is set. */
static const char *
wb_setting(const char *opt, const char *env, const char *cfg_value)
{
	const char *e = getenv(env);

	if (opt != NULL)
		return opt;
	if (e != NULL && e[0] != '\0')
		return e;
	return cfg_value;
}

static struct theme *
wb_theme(const char *name, char **warning)
{
	char exe[PATH_MAX], *xdg = NULL, *rel = NULL, *path = NULL, *d;
	const char *dirs[5];
	struct theme *t;
	lz_err_t err = LZ_ERR_INIT;
	ssize_t n;
	size_t k = 0;

	*warning = NULL;
	if (name == NULL || name[0] == '\0')
		return theme_default();
	if (getenv("XDG_CONFIG_HOME") != NULL)
		xdg = xasprintf("%s/lazaret/themes", getenv("XDG_CONFIG_HOME"));
	else if (getenv("HOME") != NULL)
		xdg = xasprintf("%s/.config/lazaret/themes", getenv("HOME"));
	if (xdg != NULL)
		dirs[k++] = xdg;
	/* Next to the program: build/../themes in a source tree. */
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
		exe[n] = '\0';
		if ((d = strrchr(exe, '/')) != NULL)
			*d = '\0';
		rel = xasprintf("%s/../themes", exe);
		dirs[k++] = rel;
	}
	dirs[k++] = "/usr/local/share/lazaret/themes";
	dirs[k++] = "/usr/share/lazaret/themes";
	dirs[k] = NULL;
	if (theme_find(name, dirs, &path, &err) < 0) {
		*warning = xasprintf("theme %s: %s", name, err.msg);
		lz_err_clear(&err);
		t = theme_default();
	} else {
		if (theme_load(path, &t, &err) < 0) {
			*warning = xstrdup(err.msg);
			t = theme_default();
		}
		lz_err_clear(&err);
	}
	free(path);
	free(xdg);
	free(rel);
	return t;
}

static void
wb_help(void)
{
	printf("usage: %s\n\n"
	    "The Lazaret cockpit: every sandbox shell a tab with its own terminal, a\n"
	    "side panel with the escalation queue, the history and the egress log, and\n"
	    "approvals from the keyboard. Without tabs to restore it opens one for the\n"
	    "profile and workspace given (default profile, current directory). The\n"
	    "prefix key is C-a (C-a C-a sends it through); C-a ? lists the bindings.\n"
	    "C-a d detaches: every session keeps running in its coordinator, and\n"
	    "'lazaret-workbench attach' brings the tabs back with their screens.\n\n"
	    "  attach               restore the tabs of the last detach (fails without)\n"
	    "  attach -d            take the session over from the workbench attached to it\n"
	    "  ls                   list the workbench sessions, attached or detached\n"
	    "  -s, -t NAME          the workbench session (default: main); one workbench a\n"
	    "                       session: another one is refused unless attach -d\n"
	    "  -p, --profile P      profile of the first tab (default: \"default\")\n"
	    "  -w, --workspace DIR  open a tab on DIR (default: the current directory); with\n"
	    "                       -w the detached tabs are kept for attach, not restored\n"
	    "  --config FILE        use FILE instead of the default configuration\n"
	    "  -m, --mode MODE      isolated (default) or direct, for new tabs\n"
	    "  --prefix KEY         the prefix key (default C-a; e.g. C-b, M-a); else\n"
	    "                       $LAZARET_PREFIX, else the config's workbench.prefix\n"
	    "  --theme NAME|FILE    colour theme (default, light, high-contrast or a YAML\n"
	    "                       file); else $LAZARET_THEME, else workbench.theme\n"
	    "  --mouse, --no-mouse  take the mouse (click a tab or a request, the wheel\n"
	    "                       scrolls back) or leave it to the terminal (default:\n"
	    "                       workbench.mouse, off); a click never approves\n"
	    "  --version            print the version\n\n"
	    "The configuration is $LAZARET_CONFIG (an absolute path) or the default file.\n"
	    "Keys after the prefix: c new tab, x close tab (asks while it runs), n/p/0-9\n"
	    "switch, d detach, s side panel (shown from 100 columns), Tab focus it,\n"
	    "[ scrollback (PgUp/PgDn, / find, n/N next, q leaves; workbench.history\n"
	    "lines), r open the waiting request, D deny, e edit, R review the agent's\n"
	    "commits (diff, executable surface, merge, discard), a sends C-a (as\n"
	    "C-a C-a), ? one help page for every mode. Approving is only in the request view:\n"
	    "a, the 3-character code it shows, Enter.\n"
	    "The tab list is kept in $XDG_RUNTIME_DIR/lazaret/workbench.tabs (session\n"
	    "main; workbench.tabs.NAME for -s NAME; $LAZARET_WORKBENCH_STATE overrides).\n",
	    WB_USAGE);
}

static void
wb_init_screen(struct wb *wb)
{
	/* Long enough for a key sequence split by a busy host, short for Esc in vim. */
	set_escdelay(100);
	initscr();
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	meta(stdscr, TRUE);
	if (has_colors())
		start_color();
	wb->draw = term_draw_new();
	wb->draw_gen = term_draw_generation(wb->draw);
	widget_palette_init(&wb->pal, wb->theme, wb->draw);
	wb->termwin = newwin(1, 1, 0, 0);
	wb->sidewin = newwin(1, 1, 0, 0);
	wb->termpanel = new_panel(wb->termwin);
	wb->sidepanel = new_panel(wb->sidewin);
	hide_panel(wb->sidepanel);
	wb->started = true;
	wb_draw_relayout(wb);
}

static void
wb_walk_close_cb(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* Give queued writes (KILL of a closed tab) a moment to reach the coordinators. */
static void
wb_flush_writes(struct wb *wb)
{
	uint64_t deadline = uv_now(wb->loop) + WB_FLUSH_MS;
	size_t i, q;

	for (;;) {
		for (i = 0, q = 0; i < wb->n_conns; i++)
			q += wb_conn_queued(wb->conns[i]);
		if (q == 0 || uv_now(wb->loop) > deadline)
			break;
		uv_run(wb->loop, UV_RUN_ONCE);
	}
}

/* What the command line asked for (wb_args). */
struct wb_opts {
	const char *profile, *workspace, *theme, *prefix, *session;
	bool attach, take_over;
	int mouse;			/* -1: as the config says */
};

/* The session's state file as found (wb_open_state), until the end. */
struct wb_saved {
	struct wb_state_tab *tabs;	/* the tabs to open again */
	size_t n;
	int panel;			/* the side panel at the last detach, -1 unknown */
	int lock_fd;			/* one workbench a session */
};

#define WB_GO_ON	(-1)		/* wb_args: no exit code, start */

/* The coordinator a tab starts is this program again (client.c execs
 * /proc/self/exe coordinator ...), and so are the coordinator's guard,
 * cgroup, namespace and session steps: true, with *rc, when argv is one. */
static bool
wb_step(int argc, char **argv, int *rc)
{
	if (argc > 1 && strcmp(argv[1], "coordinator") == 0) {
		*rc = cmd_coordinator(argc - 1, argv + 1);
		return true;
	}
	if (argc > 1 && strcmp(argv[1], "guard") == 0) {
		*rc = cmd_guard(argc - 1, argv + 1);
		return true;
	}
	return cmd_step(argc, argv, rc);
}

/* Options and words into *o and wb->mode: WB_GO_ON, or the exit code of
 * what is done already (--help, --version, ls) or refused (129). */
static int
wb_args(int argc, char **argv, struct wb *wb, struct wb_opts *o)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "mode", required_argument, NULL, 'm' },
		{ "theme", required_argument, NULL, 'T' },
		{ "prefix", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "config", required_argument, NULL, 'c' },
		{ "session", required_argument, NULL, 's' },
		{ "mouse", no_argument, NULL, 'M' },
		{ "no-mouse", no_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	lz_err_t err = LZ_ERR_INIT;
	int c;

	memset(o, 0, sizeof *o);
	o->session = WB_STATE_MAIN;
	o->mouse = -1;
	wb->mode = "isolated";
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:w:m:s:t:dh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': o->profile = optarg; break;
		case 's':
		case 't': o->session = optarg; break;
		case 'd': o->take_over = true; break;
		case 'c': setenv(CLI_CONFIG_ENV, optarg, 1); break;
		case 'w': o->workspace = optarg; break;
		case 'm': wb->mode = optarg; break;
		case 'T': o->theme = optarg; break;
		case 'P': o->prefix = optarg; break;
		case 'M': o->mouse = 1; break;
		case 'N': o->mouse = 0; break;
		case 'h': wb_help(); return 0;
		case 'V': printf("lazaret-workbench %s\n", LZ_VERSION); return 0;
		default:
			fprintf(stderr, "lazaret-workbench: unknown option '%s'\nusage: %s\n",
			    argv[optind - 1], WB_USAGE);
			return 129;
		}
	}
	if (optind < argc && strcmp(argv[optind], "attach") == 0) {
		o->attach = true;
		optind++;
	} else if (optind < argc && strcmp(argv[optind], "ls") == 0 && optind + 1 == argc) {
		if (wb_state_list(stdout, &err) < 0)
			return cli_fail(&err);
		return 0;
	}
	if (optind < argc) {
		fprintf(stderr, "lazaret-workbench: unexpected argument '%s'\nusage: %s\n",
		    argv[optind], WB_USAGE);
		return 129;
	}
	if (strcmp(wb->mode, "isolated") != 0 && strcmp(wb->mode, "direct") != 0) {
		fprintf(stderr, "lazaret-workbench: --mode: expected isolated or direct, not '%s'\n",
		    wb->mode);
		return 129;
	}
	return WB_GO_ON;
}

/* The configuration, the terminal, and the session's state file, locked:
 * 0, or the exit code. */
static int
wb_open_state(struct wb *wb, const struct wb_opts *o, struct wb_saved *sv)
{
	lz_err_t err = LZ_ERR_INIT;

	if (cli_refuse_root(&err) < 0 || cli_load_config(&wb->cfg, &err) < 0)
		return cli_fail(&err);
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "lazaret-workbench: needs a terminal (use 'lazaret run' without one)\n");
		return 1;
	}
	/* One workbench a session: the lock first, so a taken-over one has saved its tabs. */
	if (wb_state_session_path(o->session, &wb->state_path, &err) < 0 ||
	    (sv->lock_fd = wb_state_lock(wb->state_path, o->session, o->take_over, &err)) < 0)
		return cli_fail(&err);
	if (wb_state_read(wb->state_path, &sv->tabs, &sv->n, &sv->panel, &err) < 0) {
		fprintf(stderr, "lazaret-workbench: %s (starting without it)\n", err.msg);
		lz_err_clear(&err);
	}
	if (o->attach && sv->n == 0) {
		fprintf(stderr, "lazaret-workbench: no tabs to attach to in session %s (%s is "
		    "empty)\n", o->session, wb->state_path);
		return 1;
	}
	if (!o->attach && o->workspace != NULL) {
		/* -w opens that workspace; the detached tabs stay for `attach`. */
		wb->kept = sv->tabs;
		wb->n_kept = sv->n;
		sv->tabs = NULL;
		sv->n = 0;
	}
	return 0;
}

/* The theme, the keys with their prefix, and the widgets: 0, or the exit
 * code (what is made here is freed by wb_look_free or wb_teardown). */
static int
wb_look(struct wb *wb, const struct wb_opts *o)
{
	struct sidelist_item note = { NULL, WB_EGRESS_NOTE, false };
	const char *prefix = o->prefix;
	char *prefix_from = NULL;	/* where prefix came from, for its error */
	lz_err_t err = LZ_ERR_INIT;

	wb->theme = wb_theme(wb_setting(o->theme, "LAZARET_THEME", wb->cfg->wb_theme),
	    &wb->theme_warning);
	if (wb->theme_warning != NULL && wb_setting(o->theme, "LAZARET_THEME", NULL) != NULL) {
		/* Asked for by name here and now: an error, like a bad --prefix. */
		fprintf(stderr, "lazaret-workbench: %s: %s\n", o->theme != NULL ? "--theme" :
		    "LAZARET_THEME", wb->theme_warning);
		return 1;
	}
	if (wb->theme_warning != NULL) {
		/* From the config: start with the default, and say where the bad line is. */
		char *w = xasprintf("%s:%d: workbench.theme: %s; using the default theme",
		    wb->cfg->file, wb->cfg->wb_theme_line, wb->theme_warning);

		free(wb->theme_warning);
		wb->theme_warning = w;
		fprintf(stderr, "lazaret-workbench: %s\n", wb->theme_warning);
	}
	wb->cwd = getcwd(NULL, 0);
	if (wb->cwd == NULL)
		wb->cwd = xstrdup("/");
	wb->keys = wb_keys_new();
	prefix_from = prefix != NULL ? xstrdup("--prefix") : NULL;
	if (prefix == NULL && (prefix = wb_setting(NULL, "LAZARET_PREFIX", NULL)) != NULL)
		prefix_from = xstrdup("LAZARET_PREFIX");
	if (prefix == NULL && (prefix = wb->cfg->wb_prefix) != NULL)
		prefix_from = xasprintf("%s:%d: workbench.prefix", wb->cfg->file,
		    wb->cfg->wb_prefix_line);
	wb->prefix_given = prefix != NULL && prefix != wb->cfg->wb_prefix;
	if (prefix != NULL && wb_keys_set_prefix(wb->keys, prefix, &err) < 0) {
		fprintf(stderr, "lazaret-workbench: %s: %s\n", prefix_from, err.msg);
		lz_err_clear(&err);
		free(prefix_from);
		return 129;
	}
	free(prefix_from);
	wb->tabbar = tabbar_new();
	wb->side = sidelist_new();
	wb->status = statusline_new();
	statusline_set_clock(wb->status, true);
	wb->hints = wb_keys_hints(wb->keys, NULL, 0);
	sidelist_set(wb->side, SIDELIST_EGRESS, &note, 1);
	return 0;
}

/* What wb_look made, when the workbench stops before its loop. */
static void
wb_look_free(struct wb *wb)
{
	wb_keys_free(wb->keys);
	theme_free(wb->theme);
	free(wb->theme_warning);
	free(wb->cwd);
}

static void
wb_signal(struct wb *wb, uv_signal_t *h, uv_signal_cb cb, int signum)
{
	uv_signal_init(wb->loop, h);
	h->data = wb;
	uv_signal_start(h, cb, signum);
}

/* The loop, its signals and the timers the first tabs may arm. */
static void
wb_start_loop(struct wb *wb)
{
	wb->loop = uv_default_loop();
	/* Our SIGWINCH handler first: ncurses then leaves the signal alone. */
	wb_signal(wb, &wb->sig_winch, wb_winch_cb, SIGWINCH);
	wb_signal(wb, &wb->sig_term, wb_quit_cb, SIGTERM);
	wb_signal(wb, &wb->sig_hup, wb_hup_cb, SIGHUP);
	wb_signal(wb, &wb->sig_detach, wb_quit_cb, WB_STATE_DETACH_SIG);
	signal(SIGPIPE, SIG_IGN);
	uv_timer_init(wb->loop, &wb->arm);
	wb->arm.data = wb;
	uv_timer_init(wb->loop, &wb->narm);
	wb->narm.data = wb;
	uv_timer_init(wb->loop, &wb->gone_arm);
	wb->gone_arm.data = wb;
}

/* The screen, and the tabs: the saved ones, or the first: 0, or the exit
 * code with the screen ended. */
static int
wb_start_ui(struct wb *wb, const struct wb_opts *o, const struct wb_saved *sv)
{
	lz_err_t err = LZ_ERR_INIT;
	size_t i;

	/* The side panel is the cockpit's point: shown unless the last detach had it hidden. */
	wb->panel_want = sv->panel != 0;
	wb_init_screen(wb);
	wb->mouse = o->mouse >= 0 ? o->mouse == 1 : wb->cfg->wb_mouse;
	wb_input_mouse_mode(wb, true);
	if (wb->theme_warning != NULL)
		statusline_message(wb->status, wb->theme_warning, 0);	/* until a key */
	wb->fallback = !o->attach && sv->n > 0;
	wb->def_profile = o->profile;
	wb->def_workspace = o->workspace;
	for (i = 0; i < sv->n; i++)
		if (wb_tabs_restore(wb, &sv->tabs[i], &err) == NULL) {
			wb_ui_message(wb, "%s", err.msg);
			lz_err_clear(&err);
		}
	if (sv->n == 0 && wb_tabs_add(wb, o->profile, o->workspace, wb->mode, 0, &err) == NULL) {
		wb_input_mouse_mode(wb, false);
		endwin();
		return cli_fail(&err);
	}
	return 0;
}

/* Keys, frames and ticks until quit, detach or the last tab gone; then the
 * screen ends and the goodbye is said: the exit code. */
static int
wb_run(struct wb *wb)
{
	size_t i, n_sessions = 0;

	uv_poll_init(wb->loop, &wb->in, STDIN_FILENO);
	wb->in.data = wb;
	uv_poll_start(&wb->in, UV_READABLE, wb_input_cb);
	uv_prepare_init(wb->loop, &wb->prep);
	wb->prep.data = wb;
	uv_prepare_start(&wb->prep, wb_draw_prepare_cb);
	uv_timer_init(wb->loop, &wb->tick);
	wb->tick.data = wb;
	uv_timer_start(&wb->tick, wb_draw_tick_cb, 1000, 1000);
	wb_need_start(wb);
	uv_timer_init(wb->loop, &wb->frame);
	wb->frame.data = wb;
	wb_review_count_start(wb);
	wb_tour_maybe_open(wb);

	wb->redraw_all = true;
	while (!wb->quit)
		uv_run(wb->loop, UV_RUN_DEFAULT);
	for (i = 0; i < wb->n_tabs; i++)
		if (wb->tabs[i]->state == WB_TAB_RUNNING)
			n_sessions++;
	wb_flush_writes(wb);
	wb_input_mouse_mode(wb, false);
	endwin();
	if (wb->detached)
		printf("[detached: %zu session%s keep running; 'lazaret-workbench attach' brings "
		    "them back]\n", n_sessions, n_sessions == 1 ? "" : "s");
	else if (wb->exit_why != NULL) {
		fprintf(stderr, "lazaret-workbench: no tab left: %s\n", wb->exit_why);
		return 1;
	}
	return 0;
}

/* Everything from wb_look on, once the loop has started: the tabs, the
 * connections, every handle closed and the loop run out, the views, windows
 * and widgets. */
static void
wb_teardown(struct wb *wb)
{
	size_t i;

	wb_review_count_stop(wb);
	wb_review_close(wb);
	wb_dash_close(wb);
	for (i = 0; i < wb->n_tabs; i++)
		wb_tab_free(wb->tabs[i]);
	wb->n_tabs = 0;
	while (wb->n_conns > 0)
		wb_tabs_conn_drop(wb, wb->conns[0]);
	uv_walk(wb->loop, wb_walk_close_cb, NULL);
	uv_run(wb->loop, UV_RUN_DEFAULT);
	(void)uv_loop_close(wb->loop);
	reqprompt_free(wb->prompt);
	wb_dash_free(wb);
	for (i = 0; i < wb->n_old_cfgs; i++)
		cfg_free(wb->old_cfgs[i]);
	free(wb->old_cfgs);
	wb_netreq_free(wb);
	wb_gone_close(wb);
	wb_egress_free(wb);
	wb_audit_free(wb);
	editform_free(wb->edit);
	newtab_free(wb->newtab);
	textview_free(wb->help);
	if (wb->termpanel != NULL)
		del_panel(wb->termpanel);
	if (wb->sidepanel != NULL)
		del_panel(wb->sidepanel);
	if (wb->termwin != NULL)
		delwin(wb->termwin);
	if (wb->sidewin != NULL)
		delwin(wb->sidewin);
	tabbar_free(wb->tabbar);
	sidelist_free(wb->side);
	statusline_free(wb->status);
	term_draw_free(wb->draw);
	wb_keys_free(wb->keys);
	theme_free(wb->theme);
	free(wb->theme_warning);
	free(wb->hints);
	free(wb->exit_why);
	free(wb->cwd);
	free(wb->tabs);
	free(wb->conns);
	free(wb->escs);
}

/* What wb_open_state took: the saved and kept tabs, the lock, the config. */
static void
wb_close_state(struct wb *wb, struct wb_saved *sv)
{
	wb_state_tabs_free(sv->tabs, sv->n);
	wb_state_tabs_free(wb->kept, wb->n_kept);
	if (sv->lock_fd >= 0)
		close(sv->lock_fd);
	free(wb->state_path);
	cfg_free(wb->cfg);
}

/* The phases in order; each failure goes to the one way out, which undoes
 * what the phases before it did. */
int
main(int argc, char **argv)
{
	struct wb_saved sv = { .panel = -1, .lock_fd = -1 };
	struct wb_opts o;
	struct wb wb;
	int rc;

	if (wb_step(argc, argv, &rc))
		return rc;
	setlocale(LC_ALL, "");
	memset(&wb, 0, sizeof wb);
	wb.hooks = &wb_frames_hooks;
	if ((rc = wb_args(argc, argv, &wb, &o)) != WB_GO_ON)
		goto out;
	if ((rc = wb_open_state(&wb, &o, &sv)) != 0 || (rc = wb_look(&wb, &o)) != 0)
		goto out;
	wb_start_loop(&wb);
	if ((rc = wb_start_ui(&wb, &o, &sv)) == 0)
		rc = wb_run(&wb);
out:
	if (wb.loop != NULL)
		wb_teardown(&wb);
	else
		wb_look_free(&wb);
	wb_close_state(&wb, &sv);
	return rc;
}
