/* esc-exec.c - run one approved host command (see esc-exec.h).
 *
 * Three handles (a SIGCHLD watcher, stdout, stderr) and a timer (the first
 * reap check, then the kill), made only once the child runs (esc-spawn.c reports a failed start
 * in the call); the exec is freed when the last of them is closed, after
 * done_cb. done_cb waits for the exit and both EOFs, so no output is lost.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "escalation/esc-exec.h"
#include "escalation/esc-spawn.h"
#include "strv.h"
#include "xmalloc.h"

#define ESC_EXEC_KILL_MS	2000

struct esc_exec {
	uv_loop_t *loop;
	uv_signal_t chld;	/* SIGCHLD: is it ours? */
	pid_t pid;
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
	uv_close((uv_handle_t *)&x->chld, esc_exec_close_cb);
	uv_close((uv_handle_t *)&x->out, esc_exec_close_cb);
	uv_close((uv_handle_t *)&x->err, esc_exec_close_cb);
	uv_close((uv_handle_t *)&x->timer, esc_exec_close_cb);
}

static void
esc_exec_reap(struct esc_exec *x)
{
	int st;

	if (x->exited || (st = esc_spawn_reap(x->pid)) < 0)
		return;
	uv_signal_stop(&x->chld);
	x->exited = true;
	x->status = st;
	uv_timer_stop(&x->timer);
	esc_exec_maybe_done(x);
}

static void
esc_exec_chld_cb(uv_signal_t *h, int sig)
{
	(void)sig;
	esc_exec_reap(h->data);
}

/* The child may have exited before the watcher started. */
static void
esc_exec_first_cb(uv_timer_t *t)
{
	esc_exec_reap(t->data);
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
		(void)kill(-x->pid, SIGKILL);
}

int
esc_exec_start(uv_loop_t *loop, const struct esc_exec_opts *o, const struct esc_exec_cbs *cbs,
    void *arg, struct esc_exec **out, lz_err_t *err)
{
	struct esc_exec *x;
	struct esc_spawn_opts so;
	uv_file po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	char **env = NULL;
	const char *lang = getenv("LANG");
	pid_t pid;
	int r, ret = -1;

	lz_strv_pushf(&env, "PATH=%s", o->path);
	lz_strv_pushf(&env, "HOME=%s", o->home);
	lz_strv_pushf(&env, "LANG=%s", lang != NULL && *lang != '\0' ? lang : "C.UTF-8");
	lz_strv_push(&env, "TERM=dumb");
	if ((r = uv_pipe(po, UV_NONBLOCK_PIPE, 0)) != 0 || (r = uv_pipe(pe, UV_NONBLOCK_PIPE, 0)) != 0) {
		lz_err_set(err, -r, "cannot run %s: pipe: %s", o->file, uv_strerror(r));
		goto out;
	}
	so = (struct esc_spawn_opts){ o->file, o->argv, env, o->dir_fd, po[1], pe[1] };
	r = esc_spawn(&so, &pid, err);
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	if (r < 0)
		goto out;
	x = xcalloc(1, sizeof *x);
	x->loop = loop;
	x->cbs = *cbs;
	x->arg = arg;
	x->pid = pid;
	x->started_ms = esc_exec_now_ms();
	uv_pipe_init(loop, &x->out, 0);
	uv_pipe_init(loop, &x->err, 0);
	uv_timer_init(loop, &x->timer);
	uv_signal_init(loop, &x->chld);
	x->out.data = x->err.data = x->timer.data = x->chld.data = x;
	x->open_handles = 4;
	/* uv_pipe_open of a fresh pipe fd cannot fail but for a bad fd. */
	LZ_ASSERT(uv_pipe_open(&x->out, po[0]) == 0 && uv_pipe_open(&x->err, pe[0]) == 0);
	po[0] = pe[0] = -1;
	uv_signal_start(&x->chld, esc_exec_chld_cb, SIGCHLD);
	uv_timer_start(&x->timer, esc_exec_first_cb, 0, 0);
	uv_read_start((uv_stream_t *)&x->out, esc_exec_alloc_cb, esc_exec_read_cb);
	uv_read_start((uv_stream_t *)&x->err, esc_exec_alloc_cb, esc_exec_read_cb);
	*out = x;
	ret = 0;
out:
	for (r = 0; r < 2; r++) {
		if (po[r] >= 0)
			close(po[r]);
		if (pe[r] >= 0)
			close(pe[r]);
	}
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
	(void)kill(-x->pid, SIGTERM);
	uv_timer_start(&x->timer, esc_exec_kill_cb, ESC_EXEC_KILL_MS, 0);
}

int
esc_exec_pid(const struct esc_exec *x)
{
	return x->pid;
}
