/* client-run.c - the attached session of `lazaret run` (see client-run.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "client-run.h"
#include "esc-ctl.h"
#include "prompt-run.h"
#include "term-filter.h"
#include "term-snap.h"
#include "trace.h"
#include "xmalloc.h"

/* The saved terminal mode: file-static because atexit and the signal path
 * must reach it. */
static struct termios client_saved_tio;
static int client_tio_saved;
/* Self-pipe for signals (handlers only write a byte). */
static int client_sig_pipe[2] = { -1, -1 };

/* What the loop carries between frames. */
struct client_run_state {
	uint32_t id;
	bool tty;
	/* Output for a terminal is filtered, one parser per stream. */
	struct term_filter filter[2];
	bool to_tty[2];
	struct prompt_run prompts;
};

static void
client_tty_restore(void)
{
	if (client_tio_saved) {
		(void)tcsetattr(STDIN_FILENO, TCSADRAIN, &client_saved_tio);
		client_tio_saved = 0;
	}
}

static int
client_tty_raw(lz_err_t *err)
{
	struct termios t;
	static int registered;

	if (tcgetattr(STDIN_FILENO, &client_saved_tio) < 0)
		return lz_err_sys(err, errno, "tcgetattr");
	if (!registered) {
		atexit(client_tty_restore);
		registered = 1;
	}
	client_tio_saved = 1;
	t = client_saved_tio;
	cfmakeraw(&t);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &t) < 0) {
		client_tio_saved = 0;
		return lz_err_sys(err, errno, "tcsetattr");
	}
	return 0;
}

static void
client_sig_handler(int sig)
{
	int e = errno;
	unsigned char b = (unsigned char)sig;

	(void)!write(client_sig_pipe[1], &b, 1);
	errno = e;
}

static int
client_signals(bool on, lz_err_t *err)
{
	static const int sigs[] = { SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	if (on) {
		if (pipe2(client_sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
			return lz_err_sys(err, errno, "pipe");
		sa.sa_handler = client_sig_handler;
		sa.sa_flags = SA_RESTART;
	} else
		sa.sa_handler = SIG_DFL;
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
	if (!on) {
		close(client_sig_pipe[0]);
		close(client_sig_pipe[1]);
		client_sig_pipe[0] = client_sig_pipe[1] = -1;
	}
	return 0;
}

static void
client_winsize(uint16_t *rows, uint16_t *cols)
{
	struct winsize ws;

	*rows = *cols = 0;
	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0 ||
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* Create the session; 0 with *id, or -1. */
static int
client_new_session(struct client *c, const struct client_run_opts *o, uint32_t *id,
    lz_err_t *err)
{
	struct proto_new_session ns;
	struct proto_session s;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	const char *term = getenv("TERM");
	char *none[] = { NULL };

	memset(&ns, 0, sizeof ns);
	ns.flags = (o->tty ? PROTO_SESSION_TTY : 0) | (o->direct ? PROTO_SESSION_DIRECT : 0);
	if (o->tty)
		client_winsize(&ns.rows, &ns.cols);
	ns.term = (char *)(term != NULL ? term : "");
	ns.argv = o->argv != NULL ? o->argv : none;
	if (client_anchor_new_session(&b, &ns, err) < 0)
		return -1;
	if (client_request(c, &b, PROTO_SESSION, 30000, &h, &p, err) < 0)
		return -1;
	if (proto_decode_session(p, h.length, &s, err) < 0)
		return lz_err_wrap(err, "the coordinator's SESSION");
	lz_trace("session %u started", s.id);
	*id = s.id;
	return 0;
}

/* Session output to fd: filtered when fd is a terminal (client-run.h). */
static int
client_output(struct client_run_state *rs, uint8_t stream, const uint8_t *buf, size_t len)
{
	int k = stream == PROTO_STREAM_ERR ? 1 : 0;
	int fd = k == 1 ? STDERR_FILENO : STDOUT_FILENO;
	uint8_t *out;
	size_t n;
	int r;

	if (!rs->to_tty[k])
		return client_write_all(fd, buf, len);
	out = xmalloc(len + TERM_FILTER_SLACK);
	n = term_filter_feed(&rs->filter[k], buf, len, out);
	r = client_write_all(fd, out, n);
	free(out);
	return r;
}

/* What the prompt left to say, once the screen is back. */
static void
client_notice(struct client_run_state *rs)
{
	char *n = rs->prompts.notice;

	if (n != NULL)
		(void)client_write_all(STDERR_FILENO, n, strlen(n));
	free(n);
	rs->prompts.notice = NULL;
}

/* Redraw the session's screen from the coordinator's model (after the
 * prompt): its visible screen only, the scrollback is on the terminal
 * already. Drawn through the filter like any output (the title stays out). */
static int
client_redraw(struct client_run_state *rs, const uint8_t *p, size_t len)
{
	struct term_snap *snap;
	lz_err_t err = LZ_ERR_INIT;
	const uint8_t *sp;
	size_t sl, n_sb, alen;
	uint32_t id;
	char *ansi;
	int r;

	if (!rs->tty || proto_decode_snapshot(p, len, &id, &sp, &sl, &err) < 0 || id != rs->id ||
	    term_snap_decode(sp, sl, &snap, &err) < 0) {
		lz_err_clear(&err);
		client_notice(rs);
		return 0;	/* nothing to draw: the next output repaints what it touches */
	}
	n_sb = snap->n_sb;
	snap->n_sb = 0;
	ansi = term_snap_to_ansi(snap, &alen);
	snap->n_sb = n_sb;
	term_snap_free(snap);
	r = client_output(rs, PROTO_STREAM_OUT, (const uint8_t *)ansi, alen);
	free(ansi);
	client_notice(rs);
	return r;
}

/* The code of an ERROR payload (0 when it does not decode). */
static uint32_t
client_error_code(const uint8_t *p, size_t len)
{
	struct proto_error e;
	lz_err_t err = LZ_ERR_INIT;
	uint32_t code;

	if (proto_decode_error(p, len, &e, &err) < 0) {
		lz_err_clear(&err);
		return 0;
	}
	code = e.code;
	proto_error_clear(&e);
	return code;
}

/* Frames from the coordinator; 1 when the session ended (*status set). */
static int
client_handle_frame(struct client_run_state *rs, const struct proto_header *h,
    const uint8_t *p, int *status, lz_err_t *err)
{
	struct proto_data d;
	struct proto_exit e;

	switch ((enum proto_type)h->type) {
	case PROTO_DATA:
		if (proto_decode_data(p, h->length, &d, err) < 0 || d.id != rs->id)
			return 0;
		if (client_output(rs, d.stream, d.data, d.len) < 0 && errno != EPIPE)
			return lz_err_sys(err, errno, "write");
		return 0;
	case PROTO_SNAPSHOT:
		if (client_redraw(rs, p, h->length) < 0 && errno != EPIPE)
			return lz_err_sys(err, errno, "write");
		return 0;
	case PROTO_SESSION_EXIT:
		if (proto_decode_exit(p, h->length, &e, err) < 0)
			return -1;
		if (e.id != rs->id)
			return 0;
		*status = e.status;
		return 1;
	case PROTO_ERROR:
		/* An older coordinator that does not know NOTE: the audit row is
		 * lost, the session goes on. */
		if (client_error_code(p, h->length) == PROTO_E_UNKNOWN_TYPE)
			return 0;
		return client_error_frame(p, h->length, err);
	case PROTO_HELLO:
	case PROTO_OK:
	case PROTO_NEW_SESSION:
	case PROTO_SESSION:
	case PROTO_ATTACH:
	case PROTO_EOF:
	case PROTO_RESIZE:
	case PROTO_DETACH:
	case PROTO_STATUS_REQ:
	case PROTO_STATUS:
	case PROTO_LIST:
	case PROTO_STOP:
	case PROTO_EGRESS_REQ:
	case PROTO_EGRESS_EDIT:
	case PROTO_KILL:
	default:
		return 0;	/* newer coordinators may send more: ignore */
	}
}

/* An escalation prompt; then the screen is asked for again. */
static int
client_prompt(struct client *c, struct client_run_state *rs, const uint8_t *p, size_t len,
    lz_err_t *err)
{
	struct proto_buf b = { 0 };
	int r;

	if ((r = prompt_run_frame(&rs->prompts, c, p, len, err)) <= 0)
		return r;
	if (!rs->tty) {
		client_notice(rs);
		return 0;
	}
	proto_encode_attach(&b, rs->id);
	return client_send(c, &b, err);
}

int
client_run(struct client *c, const struct client_run_opts *o, int *status, lz_err_t *err)
{
	struct client_run_state rs;
	struct proto_buf b = { 0 };
	struct proto_header h;
	struct proto_resize rz;
	struct pollfd pfd[3];
	const uint8_t *p;
	uint8_t buf[PROTO_DATA_MAX];
	bool in_open = true;
	ssize_t n;
	int r, ret = -1;

	*status = 255;
	memset(&rs, 0, sizeof rs);
	rs.tty = o->tty;
	rs.to_tty[0] = isatty(STDOUT_FILENO);
	rs.to_tty[1] = isatty(STDERR_FILENO);
	term_filter_init(&rs.filter[0], TERM_FILTER_OUTPUT);
	term_filter_init(&rs.filter[1], TERM_FILTER_OUTPUT);
	if (client_new_session(c, o, &rs.id, err) < 0)
		return -1;
	if (client_signals(true, err) < 0)
		return -1;
	if (o->tty && client_tty_raw(err) < 0)
		goto out;
	for (;;) {
		/* Whole frames first (some may have come with the SESSION reply). */
		while ((r = client_next(c, &h, &p, err)) == 1)
			if (h.type == ESC_CTL_PROMPT) {
				/* Forwarding waits while the prompt is up. */
				if (client_prompt(c, &rs, p, h.length, err) < 0)
					goto out;
			} else if ((r = client_handle_frame(&rs, &h, p, status, err)) != 0) {
				ret = r > 0 ? 0 : -1;
				goto out;
			}
		if (r < 0)
			goto out;
		pfd[0].fd = c->fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = in_open ? STDIN_FILENO : -1;
		pfd[1].events = POLLIN;
		pfd[2].fd = client_sig_pipe[0];
		pfd[2].events = POLLIN;
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			lz_err_sys(err, errno, "poll");
			goto out;
		}
		if (pfd[2].revents & POLLIN) {
			unsigned char sig;

			while (read(client_sig_pipe[0], &sig, 1) == 1) {
				if (sig == SIGWINCH && o->tty) {
					rz.id = rs.id;
					client_winsize(&rz.rows, &rz.cols);
					proto_encode_resize(&b, &rz);
					if (client_send(c, &b, err) < 0)
						goto out;
				} else if (sig != SIGWINCH) {
					/* Leaving ends the session (the coordinator sees us go). */
					*status = 128 + sig;
					ret = 0;
					goto out;
				}
			}
		}
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(STDIN_FILENO, buf, sizeof buf);
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				in_open = false;
				proto_encode_eof(&b, rs.id);
			} else
				proto_encode_data(&b, rs.id, PROTO_STREAM_IN, buf, (size_t)n);
			if (client_send(c, &b, err) < 0)
				goto out;
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if ((n = client_fill(c, err)) < 0)
				goto out;
			if (n == 0) {
				lz_err_set(err, ECONNRESET, "lost the connection to the coordinator");
				goto out;
			}
		}
	}
out:
	client_tty_restore();
	client_signals(false, NULL);
	free(rs.prompts.notice);
	return ret;
}
