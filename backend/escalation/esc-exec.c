/* esc-exec.c - run one approved host command (see esc-exec.h).
 *
 * Three handles (process, stdout, stderr) and a kill timer; the exec is
 * freed when the last of them is closed, after done_cb. done_cb waits for
 * the exit and both EOFs, so no output is lost.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "escalation/esc-exec.h"
#include "strv.h"
#include "xmalloc.h"

#define ESC_EXEC_KILL_MS	2000

struct esc_exec {
	uv_loop_t *loop;
	uv_process_t proc;
	uv_pipe_t out, err;
	uv_timer_t timer;
	struct esc_exec_cbs cbs;
	void *arg;
	int open_handles;
	bool exited, out_eof, err_eof, done, paused, killing;
	int status;
	int64_t started_ms;
	uint64_t bytes;
};

static int64_t
esc_exec_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
esc_exec_close_cb(uv_handle_t *h)
{
	struct esc_exec *x = h->data;

	if (--x->open_handles == 0)
		free(x);
}

static void
esc_exec_maybe_done(struct esc_exec *x)
{
	if (x->done || !x->exited || !x->out_eof || !x->err_eof)
		return;
	x->done = true;
	x->cbs.done_cb(x, x->status, esc_exec_now_ms() - x->started_ms, x->bytes, x->arg);
	uv_close((uv_handle_t *)&x->proc, esc_exec_close_cb);
	uv_close((uv_handle_t *)&x->out, esc_exec_close_cb);
	uv_close((uv_handle_t *)&x->err, esc_exec_close_cb);
	uv_close((uv_handle_t *)&x->timer, esc_exec_close_cb);
}

static void
esc_exec_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct esc_exec *x = p->data;

	x->exited = true;
	x->status = sig != 0 ? 128 + sig : (int)status;
	uv_timer_stop(&x->timer);
	esc_exec_maybe_done(x);
}

static void
esc_exec_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	(void)h;
	(void)hint;
	buf->base = xmalloc(64 * 1024);
	buf->len = 64 * 1024;
}

static void
esc_exec_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct esc_exec *x = s->data;
	bool is_out = s == (uv_stream_t *)&x->out;

	if (n > 0) {
		x->bytes += (uint64_t)n;
		x->cbs.output_cb(x, is_out ? 1 : 2, (const uint8_t *)buf->base, (size_t)n, x->arg);
	} else if (n < 0) {
		uv_read_stop(s);
		if (is_out)
			x->out_eof = true;
		else
			x->err_eof = true;
	}
	free(buf->base);
	if (n < 0)
		esc_exec_maybe_done(x);
}

static void
esc_exec_kill_cb(uv_timer_t *t)
{
	struct esc_exec *x = t->data;

	if (!x->exited)
		(void)kill(-x->proc.pid, SIGKILL);
}

int
esc_exec_start(uv_loop_t *loop, const struct esc_exec_opts *o, const struct esc_exec_cbs *cbs,
    void *arg, struct esc_exec **out, lz_err_t *err)
{
	struct esc_exec *x;
	uv_process_options_t po;
	uv_stdio_container_t io[3];
	char **env = NULL, *now = NULL;
	const char *lang = getenv("LANG");
	int r, ret = -1;

	/* The directory was checked at decision time; it must still be that one. */
	if ((now = realpath(o->cwd, NULL)) == NULL)
		return lz_err_sys(err, errno, "host directory %s", o->cwd);
	if (strcmp(now, o->cwd) != 0) {
		lz_err_set(err, EXDEV, "host directory %s now resolves to %s: not run", o->cwd, now);
		free(now);
		return -1;
	}
	free(now);
	x = xcalloc(1, sizeof *x);
	x->loop = loop;
	x->cbs = *cbs;
	x->arg = arg;
	lz_strv_pushf(&env, "PATH=%s", o->path);
	lz_strv_pushf(&env, "HOME=%s", o->home);
	lz_strv_pushf(&env, "LANG=%s", lang != NULL && *lang != '\0' ? lang : "C.UTF-8");
	lz_strv_push(&env, "TERM=dumb");
	uv_pipe_init(loop, &x->out, 0);
	uv_pipe_init(loop, &x->err, 0);
	uv_timer_init(loop, &x->timer);
	x->out.data = x->err.data = x->timer.data = x->proc.data = x;
	memset(&po, 0, sizeof po);
	io[0].flags = UV_IGNORE;	/* libuv opens /dev/null */
	io[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	io[1].data.stream = (uv_stream_t *)&x->out;
	io[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	io[2].data.stream = (uv_stream_t *)&x->err;
	po.file = o->file;
	po.args = (char **)o->argv;
	po.env = env;
	po.cwd = o->cwd;
	po.stdio = io;
	po.stdio_count = 3;
	po.exit_cb = esc_exec_exit_cb;
	/* Own process group: a kill reaches what it forked too. */
	po.flags = UV_PROCESS_DETACHED;
	x->started_ms = esc_exec_now_ms();
	if ((r = uv_spawn(loop, &x->proc, &po)) != 0) {
		lz_err_set(err, -r, "cannot run %s: %s", o->file, uv_strerror(r));
		x->open_handles = 3;
		uv_close((uv_handle_t *)&x->out, esc_exec_close_cb);
		uv_close((uv_handle_t *)&x->err, esc_exec_close_cb);
		uv_close((uv_handle_t *)&x->timer, esc_exec_close_cb);
		goto out;
	}
	x->open_handles = 4;
	uv_read_start((uv_stream_t *)&x->out, esc_exec_alloc_cb, esc_exec_read_cb);
	uv_read_start((uv_stream_t *)&x->err, esc_exec_alloc_cb, esc_exec_read_cb);
	*out = x;
	ret = 0;
out:
	lz_strv_free(env);
	return ret;
}

void
esc_exec_pause(struct esc_exec *x, bool paused)
{
	if (x->paused == paused || x->done)
		return;
	x->paused = paused;
	if (!x->out_eof) {
		if (paused)
			uv_read_stop((uv_stream_t *)&x->out);
		else
			uv_read_start((uv_stream_t *)&x->out, esc_exec_alloc_cb, esc_exec_read_cb);
	}
	if (!x->err_eof) {
		if (paused)
			uv_read_stop((uv_stream_t *)&x->err);
		else
			uv_read_start((uv_stream_t *)&x->err, esc_exec_alloc_cb, esc_exec_read_cb);
	}
}

void
esc_exec_kill(struct esc_exec *x)
{
	if (x->exited || x->killing)
		return;
	x->killing = true;
	esc_exec_pause(x, false);
	(void)kill(-x->proc.pid, SIGTERM);
	uv_timer_start(&x->timer, esc_exec_kill_cb, ESC_EXEC_KILL_MS, 0);
}

int
esc_exec_pid(const struct esc_exec *x)
{
	return x->proc.pid;
}
