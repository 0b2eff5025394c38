/* prompt-run.c - the escalation prompt of `lazaret run` (see prompt-run.h).
 *
 * Theory of operation: the user's terminal is read here, raw, from
 * /dev/tty (or, without a controlling terminal, the terminal on our
 * standard streams: client-tty.h); ncurses never reads it. Bytes go through term_filter (KEYS):
 * terminal reports (XTVERSION, DA, colour, DECRQSS answers, mouse and focus
 * reports) are dropped, counted and audited (SUSPECT), and only typed keys reach ncurses,
 * through a pipe that is ncurses' input. Keys then go to reqview's confirm
 * machine (widgets/reqview.h): armed after REQVIEW_ARM_MS of quiet, approve
 * = a + the code shown + Enter. When the prompt opens, what was typed ahead
 * is read (to count reports among it) and flushed (tcflush).
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <panel.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "client-tty.h"
#include "editform.h"
#include "esc-ctl.h"
#include "esc-payload.h"
#include "prompt-run.h"
#include "reqview.h"
#include "term-filter.h"
#include "widget.h"
#include "xmalloc.h"

#define PROMPT_RUN_BUFFER_MAX	(8u << 20)	/* session output held while the prompt is up */
#define PROMPT_RUN_ESC_MS	50	/* a lone ESC, nothing after it: the Esc key */
#define PROMPT_RUN_TICK_MS	250	/* how often the window size is looked at */
#define PROMPT_RUN_REPORTS_OFF	"\033[?1000l\033[?1002l\033[?1003l" \
	"\033[?1004l\033[?2004l"

/* The terminal as the prompt reads it. */
struct prompt_run_io {
	int tty;			/* /dev/tty, read here */
	int keys[2];			/* filtered keys -> ncurses' input */
	struct term_filter filter;
	size_t typed_ahead;		/* keys flushed when the prompt opened */
	uint64_t opened_ms;
};

/* What is on screen and the decision machine. */
struct prompt_run_view {
	const struct esc_ctl_prompt *q;
	const char *command;		/* the request's, or the edited one */
	const char *verb;
	struct reqview *rv;
	bool *seen;			/* lines of rv shown so far */
	size_t top;			/* first line shown */
	int rows, cols;
	struct reqview_confirm cf;
	unsigned early, wrong;		/* keys discarded, wrong codes (all views) */
};

static uint64_t
prompt_run_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Is ticket withdrawn by a frame buffered after the current one (the
 * prompt's own, at the start of c->in)? Frames are not handed out here. */
static bool
prompt_run_withdrawn(const struct client *c, uint32_t ticket)
{
	struct proto_header h;
	const uint8_t *pl;
	lz_err_t err = LZ_ERR_INIT;
	size_t off = c->consumed;
	uint32_t t;

	while (proto_frame_parse(c->in.data + off, c->in.len - off, &h, &pl, &err) == PROTO_FRAME) {
		if (h.type == ESC_CTL_WITHDRAWN && h.length == 4) {
			memcpy(&t, pl, 4);
			if (ntohl(t) == ticket)
				return true;
		}
		off += PROTO_HEADER_LEN + h.length;
	}
	lz_err_clear(&err);
	return false;
}

/* Bytes from the terminal: keys on to ncurses unless discard. */
static void
prompt_run_input(struct prompt_run_io *io, const uint8_t *buf, size_t n, bool discard)
{
	uint8_t out[512 + TERM_FILTER_SLACK];
	size_t k;

	while (n > 0) {
		size_t chunk = n < 512 ? n : 512;

		k = term_filter_feed(&io->filter, buf, chunk, out);
		if (discard)
			io->typed_ahead += k;
		else if (k > 0)
			(void)!write(io->keys[1], out, k);	/* full: the keys are dropped */
		buf += chunk;
		n -= chunk;
	}
}

/* What was typed ahead (or answered by the terminal) before the prompt:
 * read to count the reports in it, then flushed. */
static void
prompt_run_flush(struct prompt_run_io *io)
{
	uint8_t buf[4096];
	ssize_t n;
	int fl = fcntl(io->tty, F_GETFL);

	if (fl >= 0 && fcntl(io->tty, F_SETFL, fl | O_NONBLOCK) == 0) {
		while ((n = read(io->tty, buf, sizeof buf)) > 0)
			prompt_run_input(io, buf, (size_t)n, true);
		(void)fcntl(io->tty, F_SETFL, fl);
	}
	(void)tcflush(io->tty, TCIFLUSH);
}

static void
prompt_run_view_clear(struct prompt_run_view *v)
{
	reqview_free(v->rv);
	free(v->seen);
	v->rv = NULL;
	v->seen = NULL;
}

/* Lay the request out for the screen size (again). */
static void
prompt_run_layout(struct prompt_run_view *v)
{
	struct reqview_request req = {
		.request_id = v->q->request_id, .profile = v->q->profile,
		.justification = v->q->justification, .cwd = v->q->cwd, .note = v->q->reason,
		.argv = NULL, .command = v->command,
	};

	prompt_run_view_clear(v);
	getmaxyx(stdscr, v->rows, v->cols);
	v->rv = reqview_new(&req, v->cols, 0);
	v->seen = xcalloc(v->rv->n + 1, sizeof *v->seen);
	if (v->top >= v->rv->n)
		v->top = 0;
}

/* A new code and arming: the prompt is shown (again) for v->command. */
static void
prompt_run_start(struct prompt_run_view *v, const char *command, const char *verb)
{
	v->command = command;
	v->verb = verb;
	v->top = 0;
	prompt_run_layout(v);
	reqview_confirm_start(&v->cf, prompt_run_now());
}

static int
prompt_run_body_rows(const struct prompt_run_view *v)
{
	return v->rows > 4 ? v->rows - 3 : 1;
}

static void
prompt_run_draw(struct prompt_run_view *v)
{
	struct widget_style title = { A_REVERSE | A_BOLD, 0 }, plain = { A_NORMAL, 0 },
	    bold = { A_BOLD, 0 }, dim = { A_DIM, 0 }, alert = { A_STANDOUT | A_BOLD, 0 },
	    hint = { A_REVERSE, 0 };
	const struct widget_style *st;
	int h = prompt_run_body_rows(v), i;
	size_t line, k;
	bool all = true;
	char *s;

	erase();
	widget_puts(stdscr, 0, 0, " lazaret: the sandbox asks to run a command on the host ",
	    v->cols, &title);
	for (i = 0; i < h && (line = v->top + (size_t)i) < v->rv->n; i++) {
		switch (v->rv->lines[line].kind) {
		case REQVIEW_TITLE:
		case REQVIEW_COMMAND:
			st = &bold;
			break;
		case REQVIEW_MORE:
			st = &dim;
			break;
		case REQVIEW_ALERT:
			st = &alert;
			break;
		case REQVIEW_WHY:
		case REQVIEW_FIELD:
		default:
			st = &plain;
			break;
		}
		widget_puts(stdscr, 1 + i, 0, v->rv->lines[line].text, v->cols, st);
		v->seen[line] = true;
	}
	/* Approving needs every line of the command shown at least once. */
	for (k = v->rv->command_first; k < v->rv->command_end; k++)
		all = all && v->seen[k];
	reqview_confirm_set_seen(&v->cf, all);
	if (v->rv->n > (size_t)h) {
		s = xasprintf("lines %zu-%zu of %zu   Up/Down PgUp/PgDn: scroll%s", v->top + 1,
		    v->top + (size_t)i, v->rv->n, all ? "" : "   (read the whole command first)");
		widget_puts(stdscr, v->rows - 2, 0, s, v->cols, &dim);
		free(s);
	}
	s = reqview_confirm_hint(&v->cf, v->verb);
	/* There is no queue in `lazaret run` to put a request away in. */
	if (strstr(s, "   Esc: later") != NULL)
		*strstr(s, "   Esc: later") = '\0';
	widget_puts(stdscr, v->rows - 1, 0, s, v->cols, &hint);
	free(s);
}

/* Up/Down/PgUp/PgDn/Home/End; false when key is none of them. */
static bool
prompt_run_scroll(struct prompt_run_view *v, int key)
{
	size_t h = (size_t)prompt_run_body_rows(v);
	size_t max = v->rv->n > h ? v->rv->n - h : 0;

	switch (key) {
	case KEY_UP:
		v->top = v->top > 0 ? v->top - 1 : 0;
		break;
	case KEY_DOWN:
		v->top = v->top < max ? v->top + 1 : max;
		break;
	case KEY_PPAGE:
		v->top = v->top > h ? v->top - h : 0;
		break;
	case KEY_NPAGE:
		v->top = v->top + h < max ? v->top + h : max;
		break;
	case KEY_HOME:
		v->top = 0;
		break;
	case KEY_END:
		v->top = max;
		break;
	default:
		return false;
	}
	return true;
}

/* Wait for the next thing to do: keys for ncurses (0), -2 withdrawn or
 * no coordinator, -1 the terminal went away. Also keeps the window size. */
static int
prompt_run_wait(struct client *c, struct prompt_run_io *io, struct prompt_run_view *v,
    uint32_t ticket)
{
	struct pollfd pfd[2];
	lz_err_t err = LZ_ERR_INIT;
	uint8_t buf[4096], esc[1];
	uint64_t arm;
	struct winsize ws;
	int timeout = PROMPT_RUN_TICK_MS, r;
	ssize_t n;

	arm = reqview_confirm_arm_in(&v->cf, prompt_run_now());
	if (arm > 0 && arm < (uint64_t)timeout)
		timeout = (int)arm + 1;
	if (term_filter_pending(&io->filter))
		timeout = PROMPT_RUN_ESC_MS;
	pfd[0].fd = io->tty;
	pfd[0].events = POLLIN;
	/* Stop reading the socket when too much output piles up meanwhile. */
	pfd[1].fd = c->in.len < PROMPT_RUN_BUFFER_MAX ? c->fd : -1;
	pfd[1].events = POLLIN;
	r = poll(pfd, 2, timeout);
	if (r < 0)
		return 0;	/* EINTR: a signal (SIGWINCH) */
	if (r == 0 && term_filter_idle(&io->filter, esc) == 1)
		(void)!write(io->keys[1], esc, 1);
	if (ioctl(io->tty, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0 &&
	    (ws.ws_row != v->rows || ws.ws_col != v->cols)) {
		resize_term(ws.ws_row, ws.ws_col);
		prompt_run_layout(v);
	}
	if (pfd[0].revents & POLLIN) {
		if ((n = read(io->tty, buf, sizeof buf)) > 0)
			prompt_run_input(io, buf, (size_t)n, false);
		else if (n == 0 || (errno != EINTR && errno != EAGAIN))
			return -1;
	} else if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
		return -1;
	if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
		if (client_fill(c, &err) <= 0) {
			lz_err_clear(&err);
			return -2;
		}
		if (prompt_run_withdrawn(c, ticket))
			return -2;
	}
	return 0;
}

/* How the decision was made, for the audit trail; caller frees. */
static char *
prompt_run_how(const struct prompt_run_view *v, const struct prompt_run_io *io, int act,
    bool edited)
{
	const char *keys;

	switch (act) {
	case ESC_CTL_APPROVE:
	case ESC_CTL_EDIT:
		keys = edited ? "e, the edit form, then a + the code shown + Enter" :
		    "a + the code shown + Enter";
		break;
	case ESC_CTL_QUIT:
		keys = "q then y";
		break;
	case ESC_CTL_DENY:
	default:
		keys = "d";
		break;
	}
	return xasprintf("%s at the terminal of lazaret run (pid %ld): %s, %.1f s after the "
	    "prompt opened; %zu keys typed ahead and %u typed before it was armed were "
	    "discarded; %u wrong code keys", esc_ctl_action_name((enum esc_ctl_action)act),
	    (long)getpid(), keys, (double)(prompt_run_now() - io->opened_ms) / 1000.0,
	    io->typed_ahead, v->early + v->cf.early, v->wrong);
}

/* Run the prompt until a decision; *edited set for EDIT; -1: withdrawn.
 * *how says how it was decided (caller frees). */
static int
prompt_run_loop(struct client *c, struct prompt_run_io *io, const struct esc_ctl_prompt *q,
    char **edited, char **how)
{
	struct prompt_run_view v;
	struct widget_palette pal;
	struct editform *ef = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int act = -1, key, r;
	char *cmd;

	memset(&v, 0, sizeof v);
	v.q = q;
	widget_palette_mono(&pal);
	prompt_run_start(&v, q->command, "approve & run");
	for (;;) {
		if (ef != NULL)
			editform_draw(ef, &pal);
		else
			prompt_run_draw(&v);
		update_panels();
		if (ef != NULL)
			editform_cursor(ef);
		doupdate();
		if ((key = getch()) == ERR) {
			if ((r = prompt_run_wait(c, io, &v, q->ticket)) == -2)
				goto out;	/* decided elsewhere, timed out, or no coordinator */
			if (r == -1) {
				act = ESC_CTL_DENY;
				*how = xstrdup("deny: the terminal of lazaret run went away");
				goto out;
			}
			continue;
		}
		if (key == KEY_RESIZE)
			continue;
		if (ef != NULL) {
			switch (editform_handle_key(ef, key)) {
			case EDITFORM_ACCEPT:
				free(*edited);
				*edited = editform_text(ef);
				editform_free(ef);
				ef = NULL;
				/* Running the edit takes the same chord. */
				prompt_run_start(&v, *edited, "run the edited command");
				break;
			case EDITFORM_CANCEL:
				editform_free(ef);
				ef = NULL;
				break;
			case EDITFORM_NONE:
				break;
			}
			continue;
		}
		if (prompt_run_scroll(&v, key))
			continue;
		switch (reqview_confirm_key(&v.cf, key >= KEY_MIN ? REQVIEW_KEY_FN(key) : key,
		    prompt_run_now())) {
		case REQVIEW_APPROVE:
			act = *edited != NULL ? ESC_CTL_EDIT : ESC_CTL_APPROVE;
			goto out;
		case REQVIEW_DENY:
			act = ESC_CTL_DENY;
			goto out;
		case REQVIEW_QUIT:
			act = ESC_CTL_QUIT;
			goto out;
		case REQVIEW_EDIT:
			cmd = xstrdup(v.command != NULL ? v.command : "");
			/* A command the form cannot show faithfully is not edited. */
			if (editform_new("Edit the command (Enter: done, Esc: back)", cmd,
			    ESC_COMMAND_MAX, LINES, COLS, &ef, &err) < 0) {
				lz_err_clear(&err);
				ef = NULL;
				beep();
			}
			free(cmd);
			v.early += v.cf.early;
			reqview_confirm_start(&v.cf, prompt_run_now());
			break;
		case REQVIEW_WRONG:
			v.wrong++;
			break;
		case REQVIEW_CLOSE:	/* no queue to put it in here: it stays */
		case REQVIEW_NONE:
		case REQVIEW_EARLY:
		case REQVIEW_REPLY:
		case REQVIEW_UNSEEN:
			break;
		}
	}
out:
	if (act >= 0 && *how == NULL)
		*how = prompt_run_how(&v, io, act, *edited != NULL);
	editform_free(ef);
	prompt_run_view_clear(&v);
	return act;
}

/* Was ticket prompted already? Remember it if not. */
static bool
prompt_run_seen(struct prompt_run *pr, uint32_t ticket)
{
	size_t i, n = pr->n_seen < PROMPT_RUN_SEEN ? pr->n_seen : PROMPT_RUN_SEEN;

	for (i = 0; i < n; i++)
		if (pr->seen[i] == ticket)
			return true;
	pr->seen[pr->n_seen++ % PROMPT_RUN_SEEN] = ticket;
	return false;
}

/* The first discarded report, printable: \e, \xNN. */
static char *
prompt_run_sample(const struct term_filter *f)
{
	char *s = xmalloc(f->sample_len * 4 + 1), *o = s;
	size_t i;

	for (i = 0; i < f->sample_len; i++) {
		uint8_t b = f->sample[i];

		if (b == 0x1b)
			o += sprintf(o, "\\e");
		else if (b < 0x20 || b >= 0x7f || b == '\\')
			o += sprintf(o, "\\x%02x", b);
		else
			*o++ = (char)b;
	}
	*o = '\0';
	return s;
}

/* Append a NOTE for the audit trail to b. */
static void
prompt_run_note(struct proto_buf *b, const struct esc_ctl_prompt *q, const char *kind,
    const char *text)
{
	struct proto_note n = { q->session, (char *)kind, q->request_id, (char *)text };

	proto_encode_note(b, &n);
}

/* Terminal reports that came while the prompt was up: one SUSPECT (as the
 * workbench sends), audited as esc.suspicious; the first one as sample. */
static void
prompt_run_note_reports(struct proto_buf *b, const struct esc_ctl_prompt *q,
    const struct prompt_run_io *io)
{
	struct proto_suspect sus;
	char *sample;

	if (io->filter.dropped == 0)
		return;
	sample = prompt_run_sample(&io->filter);
	sus.session = q->session;
	sus.request_id = q->request_id;
	sus.what = xasprintf("terminal-reply (%llu discarded)",
	    (unsigned long long)io->filter.dropped);
	sus.sample = sample;
	proto_encode_suspect(b, &sus);
	free(sus.what);
	free(sample);
}

static int
prompt_run_open(struct prompt_run_io *io)
{
	memset(io, 0, sizeof *io);
	io->keys[0] = io->keys[1] = -1;
	term_filter_init(&io->filter, TERM_FILTER_KEYS);
	io->opened_ms = prompt_run_now();
	if ((io->tty = client_tty_open()) < 0)
		return -1;
	if (pipe2(io->keys, O_CLOEXEC | O_NONBLOCK) < 0) {
		close(io->tty);
		io->tty = -1;
		return -1;
	}
	return 0;
}

int
prompt_run_frame(struct prompt_run *prs, struct client *c, const uint8_t *p, size_t len,
    lz_err_t *err)
{
	struct prompt_run_io io = { .tty = -1, .keys = { -1, -1 } };
	struct esc_ctl_prompt q;
	struct esc_ctl_decision d;
	struct proto_buf b = { NULL, 0, 0 };
	lz_err_t perr = LZ_ERR_INIT;
	char *edited = NULL, *how = NULL;
	FILE *in = NULL, *out = NULL;
	SCREEN *scr;
	int ret = 0, act;

	if (esc_ctl_decode_prompt(p, len, &q, &perr) < 0) {
		lz_err_clear(&perr);
		return 0;	/* a newer coordinator's layout: let the host time out */
	}
	if (prompt_run_seen(prs, q.ticket))
		goto done;
	if (prompt_run_open(&io) < 0)
		goto done;	/* no terminal: the request waits on the host */
	/* ncurses writes the terminal and reads only the filtered keys. */
	if ((out = fdopen(dup(io.tty), "we")) == NULL || (in = fdopen(io.keys[0], "re")) == NULL)
		goto done;
	io.keys[0] = -1;
	setlocale(LC_CTYPE, "");
	/* No mouse, focus or paste reports while the prompt is up (the redraw
	 * sets the session's again; the mouse encodings stay, it cannot read
	 * them back); then what was typed ahead goes. */
	(void)!write(io.tty, PROMPT_RUN_REPORTS_OFF, sizeof PROMPT_RUN_REPORTS_OFF - 1);
	prompt_run_flush(&io);
	if ((scr = newterm(NULL, out, in)) == NULL)
		goto done;
	set_term(scr);
	raw();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);	/* the filter already held a lone ESC a while */
	curs_set(0);
	nodelay(stdscr, TRUE);
	act = prompt_run_loop(c, &io, &q, &edited, &how);
	/* endwin gives the terminal back in the modes newterm found (raw); the
	 * caller redraws the session's screen from the coordinator's. */
	endwin();
	delscreen(scr);
	(void)tcflush(io.tty, TCIFLUSH);	/* keys typed after the decision */
	ret = 1;
	prompt_run_note_reports(&b, &q, &io);
	if (act < 0) {
		free(prs->notice);
		prs->notice = xasprintf("\r\nlazaret: escalation %.8s: no longer waiting for a "
		    "decision (timed out or decided elsewhere)\r\n", q.request_id);
	} else {
		prompt_run_note(&b, &q, "esc.decision-how", how);
		memset(&d, 0, sizeof d);
		d.ticket = q.ticket;
		d.action = (enum esc_ctl_action)act;
		d.command = edited != NULL ? edited : (char *)"";
		esc_ctl_encode_decision(&b, &d);
	}
	if (b.len > 0 && client_send(c, &b, err) < 0)
		ret = -1;
done:
	proto_buf_clear(&b);
	if (in != NULL)
		fclose(in);
	if (out != NULL)
		fclose(out);
	if (io.tty >= 0)
		close(io.tty);
	if (io.keys[0] >= 0)
		close(io.keys[0]);
	if (io.keys[1] >= 0)
		close(io.keys[1]);
	free(edited);
	free(how);
	esc_ctl_prompt_clear(&q);
	return ret;
}
