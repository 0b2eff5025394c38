/* wb-conn.c - one coordinator connection of the workbench (see wb-conn.h).
 *
 * Lifetime: the work request and the pipe handle each hold a reference, so
 * an unref while the connect still runs on the threadpool, or while the
 * handle closes, never frees memory a callback will touch.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "host/framew.h"
#include "wb-conn.h"
#include "strv.h"
#include "xmalloc.h"

struct wb_conn {
	uv_loop_t *loop;
	int refs;
	bool closing;
	enum wb_conn_state state;
	struct anchor *a;
	char *mode;
	char *error;
	struct wb_conn_cbs cbs;
	void *arg;
	uv_work_t work;
	struct client *cl;	/* from the threadpool */
	char *config;		/* ours, to compare (effcfg.h), or NULL */
	char *drift;		/* from the threadpool: what differs, or NULL */
	lz_err_t werr;
	bool pipe_open;
	uv_pipe_t pipe;
	struct proto_buf in;
	size_t queued;
	bool close_queued;	/* closed with writes queued: the pipe goes after them */
	void **expect;
	size_t n_expect;
	bool esc_replay;	/* ESC_LIST sent, its OK not come yet */
};

static struct anchor *
wb_conn_anchor_copy(const struct anchor *a)
{
	struct anchor *b = xcalloc(1, sizeof *b);

	memcpy(b->hash, a->hash, sizeof b->hash);
	b->profile = xstrdup(a->profile);
	b->workspace = xstrdup(a->workspace);
	b->container = xstrdup(a->container);
	b->sidecar = xstrdup(a->sidecar);
	b->lockfile = xstrdup(a->lockfile);
	b->ctl_socket = xstrdup(a->ctl_socket);
	b->esc_socket = xstrdup(a->esc_socket);
	b->domain_root = xstrdup(a->domain_root);
	b->state_db = xstrdup(a->state_db);
	b->worktree = xstrdup(a->worktree);
	b->branch = xstrdup(a->branch);
	return b;
}

static void __attribute__((format(printf, 2, 3)))
wb_conn_fail(struct wb_conn *c, const char *fmt, ...)
{
	va_list ap;

	if (c->state == WB_CONN_FAILED || c->state == WB_CONN_CLOSED)
		return;
	free(c->error);
	va_start(ap, fmt);
	c->error = xvasprintf(fmt, ap);
	va_end(ap);
	c->state = WB_CONN_FAILED;
	if (!c->closing && c->cbs.state_cb != NULL)
		c->cbs.state_cb(c, c->arg);
}

static void
wb_conn_work_cb(uv_work_t *req)
{
	struct wb_conn *c = req->data;
	struct client_start st = { c->mode };

	lz_err_t err = LZ_ERR_INIT;
	char **lines = NULL;
	size_t i;

	if (client_connect(c->a, &st, &c->cl, &c->werr) < 0) {
		c->cl = NULL;
		return;
	}
	/* Before the loop takes the socket: one request and its answer. */
	if (c->config != NULL && client_config_diff(c->cl, c->config, c->a->profile, &lines, NULL, &err) == 0)
		for (i = 0; lines != NULL && lines[i] != NULL; i++) {
			char *t = xasprintf("%s%s%s", c->drift ? c->drift : "", i ? "; " : "",
			    lines[i]);

			free(c->drift);
			c->drift = t;
		}
	lz_strv_free(lines);
	lz_err_clear(&err);
}

static void
wb_conn_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct wb_conn *c = h->data;

	(void)suggested;
	buf->base = (char *)proto_buf_space(&c->in, PROTO_READ_CHUNK, &buf->len);
}

static void wb_conn_unref(struct wb_conn *);

static void
wb_conn_ref(struct wb_conn *c)
{
	c->refs++;
}

static void
wb_conn_close_cb(uv_handle_t *h)
{
	wb_conn_unref(h->data);
}

static void
wb_conn_close_pipe(struct wb_conn *c)
{
	if (c->pipe_open && !uv_is_closing((uv_handle_t *)&c->pipe))
		uv_close((uv_handle_t *)&c->pipe, wb_conn_close_cb);
}

static int
wb_conn_frame_cb(const struct proto_header *h, const uint8_t *p, void *arg)
{
	struct wb_conn *c = arg;

	if (c->cbs.frame_cb != NULL)
		c->cbs.frame_cb(c, h, p, c->arg);
	return c->closing || c->state != WB_CONN_READY;
}

static void
wb_conn_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct wb_conn *c = s->data;
	lz_err_t err = LZ_ERR_INIT;

	(void)buf;
	if (n == 0)
		return;
	if (n < 0) {
		uv_read_stop(s);
		wb_conn_fail(c, "the coordinator went away (%s)",
		    n == UV_EOF ? "closed" : uv_strerror((int)n));
		wb_conn_close_pipe(c);
		return;
	}
	c->in.len += (size_t)n;
	wb_conn_ref(c);
	if (!c->closing && c->state == WB_CONN_READY &&
	    proto_buf_frames(&c->in, wb_conn_frame_cb, c, &err) < 0) {
		wb_conn_fail(c, "bad frame from the coordinator: %s", err.msg);
		lz_err_clear(&err);
		uv_read_stop(s);
		wb_conn_close_pipe(c);
	}
	wb_conn_unref(c);
}

static void
wb_conn_after_work_cb(uv_work_t *req, int status)
{
	struct wb_conn *c = req->data;
	int fd, r;

	(void)status;
	if (c->cl == NULL) {
		wb_conn_fail(c, "%s", c->werr.msg != NULL ? c->werr.msg : "cannot connect");
		goto out;
	}
	if (c->closing)
		goto out;
	/* Take the socket over: the loop reads it from now on. */
	fd = c->cl->fd;
	c->cl->fd = -1;
	proto_buf_consume(&c->cl->in, c->cl->consumed);
	c->cl->consumed = 0;
	if (c->cl->in.len > 0) {
		c->in.data = proto_buf_steal(&c->cl->in, &c->in.len);
		c->in.cap = c->in.len;
	}
	if ((r = uv_pipe_init(c->loop, &c->pipe, 0)) != 0) {
		close(fd);
		wb_conn_fail(c, "uv_pipe_init: %s", uv_strerror(r));
		goto out;
	}
	c->pipe.data = c;
	wb_conn_ref(c);		/* the handle's */
	c->pipe_open = true;
	if ((r = uv_pipe_open(&c->pipe, fd)) != 0 ||
	    (r = uv_read_start((uv_stream_t *)&c->pipe, wb_conn_alloc_cb, wb_conn_read_cb)) != 0) {
		close(fd);
		wb_conn_fail(c, "the coordinator's socket: %s", uv_strerror(r));
		wb_conn_close_pipe(c);
		goto out;
	}
	c->state = WB_CONN_READY;
	if (c->cbs.state_cb != NULL)
		c->cbs.state_cb(c, c->arg);
out:
	client_free(c->cl);
	c->cl = NULL;
	lz_err_clear(&c->werr);
	wb_conn_unref(c);	/* the work request's */
}

struct wb_conn *
wb_conn_new(uv_loop_t *loop, const struct anchor *a, const char *mode,
    const char *config, const struct wb_conn_cbs *cbs, void *arg)
{
	struct wb_conn *c = xcalloc(1, sizeof *c);
	int r;

	c->loop = loop;
	c->refs = 1;
	c->state = WB_CONN_CONNECTING;
	c->a = wb_conn_anchor_copy(a);
	c->mode = xstrdup(mode);
	c->config = config != NULL ? xstrdup(config) : NULL;
	c->cbs = *cbs;
	c->arg = arg;
	c->werr = (lz_err_t)LZ_ERR_INIT;
	c->work.data = c;
	wb_conn_ref(c);		/* the work request's */
	if ((r = uv_queue_work(loop, &c->work, wb_conn_work_cb, wb_conn_after_work_cb)) != 0) {
		wb_conn_unref(c);
		c->state = WB_CONN_FAILED;
		c->error = xasprintf("uv_queue_work: %s", uv_strerror(r));
	}
	return c;
}

static void
wb_conn_free(struct wb_conn *c)
{
	anchor_free(c->a);
	free(c->mode);
	free(c->config);
	free(c->drift);
	free(c->error);
	free(c->expect);
	proto_buf_clear(&c->in);
	free(c);
}

static void
wb_conn_unref(struct wb_conn *c)
{
	if (c == NULL)
		return;
	LZ_ASSERT(c->refs > 0);
	if (--c->refs == 0)
		wb_conn_free(c);
}

void
wb_conn_close(struct wb_conn *c)
{
	if (c == NULL)
		return;
	c->closing = true;
	if (c->state == WB_CONN_READY || c->state == WB_CONN_CONNECTING)
		c->state = WB_CONN_CLOSED;
	/* A KILL still queued must reach the coordinator (uv_close cancels it). */
	if (c->queued > 0)
		c->close_queued = true;
	else
		wb_conn_close_pipe(c);
	wb_conn_unref(c);
}

enum wb_conn_state
wb_conn_state(const struct wb_conn *c)
{
	return c->state;
}

const char *
wb_conn_error(const struct wb_conn *c)
{
	return c->error != NULL ? c->error : "";
}

const struct anchor *
wb_conn_anchor(const struct wb_conn *c)
{
	return c->a;
}

const char *
wb_conn_mode(const struct wb_conn *c)
{
	return c->mode;
}

static void
wb_conn_write_cb(uv_write_t *req, int status)
{
	struct framew_req *w = req->data;
	struct wb_conn *c = w->arg;

	c->queued -= w->len;
	/* A closed peer: what it sent before closing (a session's exit) is still to be read; EOF reports it. */
	if (status < 0 && status != UV_ECANCELED && status != UV_EPIPE)
		wb_conn_fail(c, "cannot write to the coordinator: %s", uv_strerror(status));
	framew_req_free(w);
	if (c->close_queued && c->queued == 0) {
		c->close_queued = false;
		wb_conn_close_pipe(c);
	}
	wb_conn_unref(c);
}

void
wb_conn_send(struct wb_conn *c, struct proto_buf *b)
{
	ssize_t n;

	if (b->len == 0)
		return;
	if (c->state != WB_CONN_READY || c->closing) {
		proto_buf_clear(b);
		return;
	}
	n = framew_send((uv_stream_t *)&c->pipe, b, false, wb_conn_write_cb, c);
	if (n > 0) {
		wb_conn_ref(c);
		c->queued += (size_t)n;
	}
}

size_t
wb_conn_queued(const struct wb_conn *c)
{
	return c->queued;
}

void
wb_conn_expect(struct wb_conn *c, void *who)
{
	c->expect = xreallocarray(c->expect, c->n_expect + 1, sizeof *c->expect);
	c->expect[c->n_expect++] = who;
}

void *
wb_conn_answered(struct wb_conn *c)
{
	void *who;

	if (c->n_expect == 0)
		return NULL;
	who = c->expect[0];
	memmove(c->expect, c->expect + 1, (c->n_expect - 1) * sizeof *c->expect);
	c->n_expect--;
	return who;
}

void
wb_conn_forget(struct wb_conn *c, void *who)
{
	size_t i;

	/* Keep the slot (the answer still comes) but with nobody behind it. */
	for (i = 0; i < c->n_expect; i++)
		if (c->expect[i] == who)
			c->expect[i] = NULL;
}

bool
wb_conn_expecting(const struct wb_conn *c)
{
	return c->n_expect > 0;
}

const char *
wb_conn_drift(const struct wb_conn *c)
{
	return c->state == WB_CONN_READY ? c->drift : NULL;
}

void
wb_conn_set_esc_replay(struct wb_conn *c, bool on)
{
	c->esc_replay = on;
}

bool
wb_conn_esc_replay(const struct wb_conn *c)
{
	return c->esc_replay;
}
