/* wb-gitstream.c - a child's stdout read on demand (see wb-gitstream.h). */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "wb-gitstream.h"
#include "xmalloc.h"

#define WB_GITSTREAM_BUF	(64 * 1024)

struct wb_gitstream {
	uv_process_t proc;
	uv_pipe_t out;
	wb_gitstream_data_fn data;
	wb_gitstream_end_fn end;
	void *arg;
	char buf[WB_GITSTREAM_BUF];
	bool reading, eof, exited, stopped;
	int status;
	int open;		/* handles not closed yet */
};

static void
wb_gitstream_closed_cb(uv_handle_t *h)
{
	struct wb_gitstream *s = h->data;

	if (--s->open == 0)
		free(s);
}

/* Both ends seen (or stopped and reaped): tell the reader, close up. */
static void
wb_gitstream_maybe_end(struct wb_gitstream *s)
{
	if (!s->exited || (!s->eof && !s->stopped))
		return;
	if (!s->stopped && s->end != NULL)
		s->end(s->arg, s->status);
	s->stopped = true;
	if (!uv_is_closing((uv_handle_t *)&s->out))
		uv_close((uv_handle_t *)&s->out, wb_gitstream_closed_cb);
	if (!uv_is_closing((uv_handle_t *)&s->proc))
		uv_close((uv_handle_t *)&s->proc, wb_gitstream_closed_cb);
}

static void
wb_gitstream_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct wb_gitstream *s = p->data;

	s->exited = true;
	s->status = sig != 0 ? 128 + sig : (int)status;
	wb_gitstream_maybe_end(s);
}

static void
wb_gitstream_alloc_cb(uv_handle_t *h, size_t want, uv_buf_t *b)
{
	struct wb_gitstream *s = h->data;

	(void)want;
	*b = uv_buf_init(s->buf, sizeof s->buf);
}

static void
wb_gitstream_read_cb(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
	struct wb_gitstream *s = st->data;

	if (n > 0 && !s->stopped) {
		s->data(s->arg, b->base, (size_t)n);
		return;
	}
	if (n < 0) {
		uv_read_stop(st);
		s->reading = false;
		s->eof = true;
		wb_gitstream_maybe_end(s);
	}
}

struct wb_gitstream *
wb_gitstream_start(uv_loop_t *loop, char **argv, char **env, wb_gitstream_data_fn data,
    wb_gitstream_end_fn end, void *arg, lz_err_t *err)
{
	struct wb_gitstream *s = xcalloc(1, sizeof *s);
	uv_process_options_t o = { 0 };
	uv_stdio_container_t io[3];
	int r;

	s->data = data;
	s->end = end;
	s->arg = arg;
	uv_pipe_init(loop, &s->out, 0);
	s->out.data = s;
	s->proc.data = s;
	s->open = 1;
	io[0].flags = UV_IGNORE;
	io[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	io[1].data.stream = (uv_stream_t *)&s->out;
	io[2].flags = UV_IGNORE;
	o.file = argv[0];
	o.args = argv;
	o.env = env;
	o.stdio = io;
	o.stdio_count = 3;
	o.exit_cb = wb_gitstream_exit_cb;
	if ((r = uv_spawn(loop, &s->proc, &o)) < 0) {
		lz_err_set(err, -r, "cannot run %s: %s", argv[0], uv_strerror(r));
		s->stopped = true;
		uv_close((uv_handle_t *)&s->out, wb_gitstream_closed_cb);
		/* uv_spawn initialised the process handle: it is closed too. */
		s->open++;
		uv_close((uv_handle_t *)&s->proc, wb_gitstream_closed_cb);
		return NULL;
	}
	s->open = 2;
	wb_gitstream_resume(s);
	return s;
}

void
wb_gitstream_pause(struct wb_gitstream *s)
{
	if (s->reading && !s->eof) {
		uv_read_stop((uv_stream_t *)&s->out);
		s->reading = false;
	}
}

void
wb_gitstream_resume(struct wb_gitstream *s)
{
	if (!s->reading && !s->eof && !s->stopped &&
	    uv_read_start((uv_stream_t *)&s->out, wb_gitstream_alloc_cb, wb_gitstream_read_cb) == 0)
		s->reading = true;
}

void
wb_gitstream_stop(struct wb_gitstream *s)
{
	if (s == NULL || s->stopped)
		return;
	s->stopped = true;
	wb_gitstream_pause(s);
	/* git blocked on the full pipe ends at once; the loop reaps it. */
	if (!uv_is_closing((uv_handle_t *)&s->out))
		uv_close((uv_handle_t *)&s->out, wb_gitstream_closed_cb);
	if (!s->exited)
		(void)uv_process_kill(&s->proc, SIGTERM);
	wb_gitstream_maybe_end(s);
}
