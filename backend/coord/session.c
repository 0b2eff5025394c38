/* session.c - an exec process (runsc exec or podman exec) on a PTY (or
 * pipes) the coordinator owns.
 *
 * Theory of operation: each uv handle the session opens holds a reference,
 * dropped in its close callback, so the session outlives every callback that
 * can reach it. When the process exits, output may still sit in the PTY or
 * the pipes: the session keeps reading until EOF (EIO on a PTY master) and
 * gives up after SESSION_DRAIN_MS (something else may hold the slave open),
 * draining what is left by hand; only then is exit_cb called, so a client
 * sees all output before SESSION_EXIT.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"
#include "coord/pty.h"
#include "coord/screen.h"
#include "coord/session.h"
#include "xmalloc.h"

#define SESSION_DRAIN_MS	1000
#define SESSION_KILL_MS		2000
#define SESSION_FD3_MAX		60000	/* under a pipe's 64 KiB */
#define SESSION_TICK_MS		10	/* the screen is fed at most this late */

struct session_write {
	uv_write_t req;
	struct session *s;
	char data[];
};

void
session_ref(struct session *s)
{
	s->refs++;
}

void
session_unref(struct session *s)
{
	LZ_ASSERT(s->refs > 0);
	if (--s->refs > 0)
		return;
	free(s->command);
	free(s->clients);
	free(s);
}

static void
session_close_cb(uv_handle_t *h)
{
	session_unref(h->data);
}

static void
session_check_done(struct session *s)
{
	if (s->done || !s->exited || !s->out_eof || (!s->tty && !s->err_eof))
		return;
	s->done = true;
	uv_timer_stop(&s->timer);
	s->cbs.exit_cb(s, s->arg);
}

static void
session_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	(void)h;
	(void)hint;
	/* PROTO_DATA_MAX per read: one read becomes one DATA frame. */
	buf->base = xmalloc(PROTO_DATA_MAX);
	buf->len = PROTO_DATA_MAX;
}

static void session_answer(struct session *);

/* Screen updates (screen.h) while output streams: the first bytes after a
 * quiet tick are fed at once (a query from an interactive program is
 * answered without delay), the rest of a burst is held back and fed once
 * per tick, in pieces big enough for the fast path. */
static void
session_tick_cb(uv_timer_t *t)
{
	struct session *s = t->data;

	if (s->screen == NULL || !screen_flush(s->screen))
		return;		/* quiet: the next output is fed at once */
	session_answer(s);
	uv_timer_start(&s->tick, session_tick_cb, SESSION_TICK_MS, 0);
}

/* Output: into the screen, then to output_cb. */
static void
session_output(struct session *s, uint8_t stream, const uint8_t *buf, size_t len)
{
	bool busy;

	s->last_out_ms = uv_now(s->loop);
	if (s->screen != NULL) {
		busy = uv_is_active((uv_handle_t *)&s->tick);
		screen_feed(s->screen, buf, len, busy);
		if (!busy && !s->closing)
			uv_timer_start(&s->tick, session_tick_cb, SESSION_TICK_MS, 0);
	}
	s->cbs.output_cb(s, stream, buf, len, s->arg);
}

void
session_notice(struct session *s, const char *text)
{
	if (s->exited || s->closing || !s->tty)
		return;
	session_output(s, PROTO_STREAM_OUT, (const uint8_t *)text, strlen(text));
}

/* Read what one output stream holds now, without the loop, and mark it done. */
static void
session_drain_stream(struct session *s, uv_pipe_t *p, uint8_t stream, bool *eof)
{
	uint8_t buf[PROTO_DATA_MAX];
	uv_os_fd_t fd;
	ssize_t n;
	int i;

	if (*eof)
		return;
	uv_read_stop((uv_stream_t *)p);
	if (uv_fileno((uv_handle_t *)p, &fd) == 0)
		for (i = 0; i < 4096 && (n = read(fd, buf, sizeof buf)) > 0; i++)
			session_output(s, stream, buf, (size_t)n);
	*eof = true;
}

/* End of output, by hand. libuv reports EOF on POLLHUP after a short read,
 * but a PTY master can still hold the slave's last output in the kernel's
 * flip buffers then: read(2) flushes them and returns EIO only once they are
 * empty. After the drain timeout, whatever the pipes hold is read the same
 * way (something else keeps their write ends open). */
static void
session_drain_master(struct session *s)
{
	session_drain_stream(s, &s->out, PROTO_STREAM_OUT, &s->out_eof);
	if (!s->tty)
		session_drain_stream(s, &s->err, PROTO_STREAM_ERR, &s->err_eof);
}

static uv_stream_t *session_in_stream(struct session *);

/* Answer the program's terminal queries from what the screen was just fed
 * (screen.h): replies go to the PTY like typed input. A program that floods
 * queries without reading the answers loses answers, not memory. */
static void
session_answer(struct session *s)
{
	const uint8_t *r;
	size_t len;

	if (s->screen == NULL || (r = screen_reply(s->screen, &len)) == NULL)
		return;
	if (uv_stream_get_write_queue_size(session_in_stream(s)) < SESSION_IN_HIGH)
		session_write(s, r, len);
	screen_reply_consume(s->screen, len);
}

/* A PTY read returns at most what its line discipline holds (4 KB) while
 * the writer has more on the way: read on while there is more, so that one
 * DATA frame (and one screen feed, one socket write) carries up to
 * PROTO_DATA_MAX bytes. A pipe read takes all there is already. */
static ssize_t
session_read_more(struct session *s, ssize_t n, const uv_buf_t *buf)
{
	ssize_t r;

	while ((size_t)n < buf->len) {
		r = read(s->master, buf->base + n, buf->len - (size_t)n);
		if (r <= 0)
			break;	/* EAGAIN; EOF and errors are libuv's to see next */
		n += r;
	}
	return n;
}

static void
session_read(struct session *s, uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	bool is_err = st == (uv_stream_t *)&s->err;

	if (n > 0 && s->tty)
		n = session_read_more(s, n, buf);
	if (n > 0) {
		session_output(s, is_err ? PROTO_STREAM_ERR : PROTO_STREAM_OUT,
		    (const uint8_t *)buf->base, (size_t)n);
		session_answer(s);
	}
	free(buf->base);
	if (n >= 0)
		return;
	/* UV_EOF on a pipe; UV_EIO (or a POLLHUP EOF) on a PTY master. */
	if (s->tty) {
		session_drain_master(s);
		session_check_done(s);
		return;
	}
	uv_read_stop(st);
	if (is_err)
		s->err_eof = true;
	else
		s->out_eof = true;
	session_check_done(s);
}

static void
session_read_cb(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	session_read(st->data, st, n, buf);
}

static void
session_timer_cb(uv_timer_t *t)
{
	struct session *s = t->data;

	if (!s->exited) {
		if (s->pid > 0)
			kill(s->pid, SIGKILL);
		return;
	}
	session_drain_master(s);
	session_check_done(s);
}

static void
session_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct session *s = p->data;

	s->exited = true;
	s->status = sig != 0 ? 128 + sig : (int)status;
	/* podman exec exits 0 on our SIGTERM, runsc exec with the status of the
	 * signal that ended the command (SIGHUP for a shell): terminated all the same. */
	if (s->killing && (s->status == 0 || s->status > 128))
		s->status = 128 + SIGTERM;
	uv_timer_stop(&s->timer);
	/* A killed direct exec's command may still hold the PTY: no waiting for EOF. */
	uv_timer_start(&s->timer, session_timer_cb, s->killing ? 0 : SESSION_DRAIN_MS, 0);
	session_check_done(s);
}

static void
session_init_handle(struct session *s, uv_handle_t *h)
{
	h->data = s;
	session_ref(s);
}

/* A pipe holding text (at most what a pipe holds without a reader), its
 * write end closed: the read end, CLOEXEC, or -1. */
static int
session_fd3_pipe(const char *text, lz_err_t *err)
{
	size_t n = strlen(text);
	int p[2];

	if (n > SESSION_FD3_MAX)
		return lz_err_set(err, E2BIG, "the session's environment or exec description "
		    "(%zu bytes) is too long", n);
	if (pipe2(p, O_CLOEXEC) < 0)
		return lz_err_sys(err, errno, "pipe");
	/* non-blocking: a pipe shrunk by the user's pipe limits fails, never hangs */
	errno = 0;
	if (fcntl(p[1], F_SETFL, O_NONBLOCK) < 0 || write(p[1], text, n) != (ssize_t)n) {
		lz_err_sys(err, errno != 0 ? errno : EAGAIN, "cannot write the session's fd 3 pipe");
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	return p[0];
}

int
session_start(uv_loop_t *loop, const struct session_opts *o, const struct session_cbs *cbs,
    void *arg, struct session **out, lz_err_t *err)
{
	uv_process_options_t po;
	uv_stdio_container_t io[4];
	struct session *s;
	int master = -1, slave = -1, fd3 = -1, r, i;

	*out = NULL;
	if (o->fd3 != NULL && (fd3 = session_fd3_pipe(o->fd3, err)) < 0)
		return -1;
	s = xcalloc(1, sizeof *s);
	s->refs = 1;
	s->loop = loop;
	s->id = o->id;
	s->command = xstrdup(o->command != NULL ? o->command : "");
	s->tty = o->tty;
	s->direct = o->direct;
	s->cbs = *cbs;
	s->arg = arg;
	s->master = -1;
	snprintf(s->uuid, sizeof s->uuid, "%s", o->uuid != NULL ? o->uuid : "");
	s->started_ms = (int64_t)time(NULL) * 1000;

	uv_timer_init(loop, &s->timer);
	session_init_handle(s, (uv_handle_t *)&s->timer);
	uv_timer_init(loop, &s->tick);
	session_init_handle(s, (uv_handle_t *)&s->tick);
	uv_pipe_init(loop, &s->out, 0);
	session_init_handle(s, (uv_handle_t *)&s->out);
	memset(&po, 0, sizeof po);
	if (s->tty) {
		if (pty_open(o->rows, o->cols, &master, &slave, err) < 0)
			goto fail;
		if ((r = uv_pipe_open(&s->out, master)) != 0) {
			lz_err_set(err, -r, "pty: %s", uv_strerror(r));
			close(master);
			goto fail;
		}
		s->master = master;
		for (i = 0; i < 3; i++) {
			io[i].flags = UV_INHERIT_FD;
			io[i].data.fd = slave;
		}
		s->err_eof = s->in_closed = true;
	} else {
		uv_pipe_init(loop, &s->in, 0);
		session_init_handle(s, (uv_handle_t *)&s->in);
		uv_pipe_init(loop, &s->err, 0);
		session_init_handle(s, (uv_handle_t *)&s->err);
		io[0].flags = UV_CREATE_PIPE | UV_READABLE_PIPE;
		io[0].data.stream = (uv_stream_t *)&s->in;
		io[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
		io[1].data.stream = (uv_stream_t *)&s->out;
		io[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
		io[2].data.stream = (uv_stream_t *)&s->err;
	}
	io[3].flags = UV_INHERIT_FD;
	io[3].data.fd = fd3;
	po.file = o->exec_argv[0];
	po.args = o->exec_argv;
	po.stdio = io;
	po.stdio_count = fd3 >= 0 ? 4 : 3;
	po.exit_cb = session_exit_cb;
	/* setsid(): the exec is no child of the user's terminal session. */
	po.flags = UV_PROCESS_DETACHED;
	session_init_handle(s, (uv_handle_t *)&s->proc);
	r = uv_spawn(loop, &s->proc, &po);
	if (slave >= 0)
		close(slave);
	if (fd3 >= 0)
		close(fd3);	/* the child has its copy; the pipe dies with it */
	fd3 = -1;
	if (r != 0) {
		lz_err_set(err, -r, "cannot run %s: %s", o->exec_argv[0], uv_strerror(r));
		s->exited = true;
		goto fail;
	}
	s->pid = s->proc.pid;
	uv_read_start((uv_stream_t *)&s->out, session_alloc_cb, session_read_cb);
	if (!s->tty)
		uv_read_start((uv_stream_t *)&s->err, session_alloc_cb, session_read_cb);
	*out = s;
	return 0;
fail:
	if (fd3 >= 0)
		close(fd3);
	s->done = true;
	session_close(s);
	session_unref(s);
	return -1;
}

static uv_stream_t *
session_in_stream(struct session *s)
{
	return s->tty ? (uv_stream_t *)&s->out : (uv_stream_t *)&s->in;
}

static void
session_write_cb(uv_write_t *req, int status)
{
	struct session_write *w = req->data;
	struct session *s = w->s;

	(void)status;	/* a dead process shows up in exit_cb */
	free(w);
	if (s->in_full && !s->closing &&
	    uv_stream_get_write_queue_size(session_in_stream(s)) < SESSION_IN_LOW) {
		s->in_full = false;
		if (s->cbs.input_cb != NULL)
			s->cbs.input_cb(s, false, s->arg);
	}
	session_unref(s);
}

void
session_write(struct session *s, const uint8_t *buf, size_t len)
{
	uv_stream_t *st = session_in_stream(s);
	struct session_write *w;
	uv_buf_t b = uv_buf_init((char *)buf, (unsigned)len);
	int n;

	if (s->closing || s->exited || len == 0 || (!s->tty && s->in_closed))
		return;
	/* Most writes go through at once; queue only the rest. */
	if (uv_stream_get_write_queue_size(st) == 0) {
		n = uv_try_write(st, &b, 1);
		if (n == (int)len)
			return;
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		}
	}
	w = xmalloc(sizeof *w + len);
	memcpy(w->data, buf, len);
	w->s = s;
	w->req.data = w;
	b = uv_buf_init(w->data, (unsigned)len);
	if (uv_write(&w->req, st, &b, 1, session_write_cb) != 0) {
		free(w);
		return;
	}
	session_ref(s);
	/* Back-pressure on input: the process reads slower than clients send. */
	if (!s->in_full && uv_stream_get_write_queue_size(st) >= SESSION_IN_HIGH) {
		s->in_full = true;
		if (s->cbs.input_cb != NULL)
			s->cbs.input_cb(s, true, s->arg);
	}
}

static void
session_shutdown_cb(uv_shutdown_t *req, int status)
{
	struct session *s = req->data;

	(void)status;
	free(req);
	if (!s->closing)
		uv_close((uv_handle_t *)&s->in, session_close_cb);
	session_unref(s);
}

void
session_eof(struct session *s)
{
	uv_shutdown_t *req;

	if (s->closing || s->exited)
		return;
	if (s->tty) {
		session_write(s, (const uint8_t *)"\x04", 1);
		return;
	}
	if (s->in_closed)
		return;
	s->in_closed = true;
	req = xcalloc(1, sizeof *req);
	req->data = s;
	session_ref(s);
	if (uv_shutdown(req, (uv_stream_t *)&s->in, session_shutdown_cb) != 0) {
		free(req);
		session_unref(s);
		uv_close((uv_handle_t *)&s->in, session_close_cb);
	}
}

int
session_resize(struct session *s, uint16_t rows, uint16_t cols, lz_err_t *err)
{
	if (!s->tty || s->exited || s->closing || rows == 0 || cols == 0)
		return 0;
	if (pty_resize(s->master, rows, cols, err) < 0)
		return -1;
	/* podman exec has no controlling terminal: it learns of the change from us. */
	if (s->pid > 0 && !s->direct)
		kill(s->pid, SIGWINCH);
	return 0;
}

void
session_pause(struct session *s, bool paused)
{
	if (s->paused == paused || s->closing)
		return;
	s->paused = paused;
	if (paused) {
		if (!s->out_eof)
			uv_read_stop((uv_stream_t *)&s->out);
		if (!s->err_eof)
			uv_read_stop((uv_stream_t *)&s->err);
		return;
	}
	if (!s->out_eof)
		uv_read_start((uv_stream_t *)&s->out, session_alloc_cb, session_read_cb);
	if (!s->err_eof)
		uv_read_start((uv_stream_t *)&s->err, session_alloc_cb, session_read_cb);
}

void
session_kill(struct session *s)
{
	if (s->exited || s->killing || s->pid <= 0)
		return;
	s->killing = true;
	if (s->direct && s->tty)
		kill(s->pid, SIGHUP);
	kill(s->pid, SIGTERM);
	uv_timer_start(&s->timer, session_timer_cb, SESSION_KILL_MS, 0);
}

void
session_end(struct session *s)
{
	if (!s->direct) {
		session_kill(s);
		return;
	}
	if (s->exited || s->pid <= 0)
		return;
	s->killing = true;
	kill(s->pid, SIGKILL);
}

static void
session_close_handle(struct session *s, uv_handle_t *h)
{
	if (h->data == s && !uv_is_closing(h))
		uv_close(h, session_close_cb);
}

void
session_close(struct session *s)
{
	if (s->closing)
		return;
	s->closing = true;
	if (!s->exited && s->pid > 0)
		kill(s->pid, SIGKILL);
	session_close_handle(s, (uv_handle_t *)&s->timer);
	session_close_handle(s, (uv_handle_t *)&s->tick);
	session_close_handle(s, (uv_handle_t *)&s->out);
	session_close_handle(s, (uv_handle_t *)&s->proc);
	if (!s->tty) {
		session_close_handle(s, (uv_handle_t *)&s->err);
		session_close_handle(s, (uv_handle_t *)&s->in);
	}
}

void
session_attach(struct session *s, struct ctl_server_client *c)
{
	if (session_has_client(s, c))
		return;
	s->clients = xreallocarray(s->clients, s->n_clients + 1, sizeof *s->clients);
	s->clients[s->n_clients++] = c;
}

void
session_detach(struct session *s, struct ctl_server_client *c)
{
	size_t i;

	for (i = 0; i < s->n_clients; i++)
		if (s->clients[i] == c) {
			s->clients[i] = s->clients[--s->n_clients];
			break;
		}
	if (s->owner == c)
		s->owner = NULL;
}

bool
session_has_client(const struct session *s, const struct ctl_server_client *c)
{
	size_t i;

	for (i = 0; i < s->n_clients; i++)
		if (s->clients[i] == c)
			return true;
	return false;
}
