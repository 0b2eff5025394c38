/* proc.c - run a program to completion on a private libuv loop.
 *
 * Theory of operation: a fresh uv_loop_t per call keeps the caller's loop
 * untouched (the coordinator calls this from work threads and from start-up).
 * stdout/stderr arrive on pipes into growable buffers; stdin is fed from a
 * buffer and closed. The loop runs until the exit callback and both pipes
 * have hit EOF. proc_start/proc_finish split that in two: the program runs
 * meanwhile, its output waits in the pipes (a pipe's 64 KiB at most: for
 * programs that print little, such as `podman run -d`).
 */
#include <string.h>
#include <uv.h>

#include "proc.h"
#include "xmalloc.h"

#define PROC_OUT_MAX (64u << 20)	/* cap on captured output per stream */

struct proc_buf {
	uv_pipe_t pipe;
	char *data;
	size_t len;
	int open;
	size_t seen;		/* bytes already handed to line_cb */
	void (*line_cb)(const char *line, void *arg);
	void *arg;
};

struct proc_ctx {
	struct proc_buf out, err;
	uv_pipe_t in;
	uv_write_t wr;
	int64_t status;
	int signal;
	int exited;
};

static void
proc_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	(void)h;
	buf->base = xmalloc(hint);
	buf->len = hint;
}

static void
proc_close_cb(uv_handle_t *h)
{
	(void)h;
}

/* Hand each complete line (all that is left at EOF) to the line callback. */
static void
proc_lines(struct proc_buf *b, int eof)
{
	char *nl;

	if (b->line_cb == NULL)
		return;
	while (b->seen < b->len) {
		if ((nl = memchr(b->data + b->seen, '\n', b->len - b->seen)) == NULL) {
			if (!eof)
				return;
			nl = b->data + b->len;
		}
		{
			char *line = xstrndup(b->data + b->seen, (size_t)(nl - (b->data + b->seen)));

			b->line_cb(line, b->arg);
			free(line);
		}
		b->seen = nl < b->data + b->len ? (size_t)(nl - b->data) + 1 : b->len;
	}
}

static void
proc_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct proc_buf *b = (struct proc_buf *)s;

	if (n > 0 && b->len + (size_t)n <= PROC_OUT_MAX) {
		b->data = xrealloc(b->data, b->len + (size_t)n + 1);
		memcpy(b->data + b->len, buf->base, (size_t)n);
		b->len += (size_t)n;
		b->data[b->len] = '\0';
	}
	free(buf->base);
	proc_lines(b, n < 0);
	if (n < 0 && b->open) {
		b->open = 0;
		uv_close((uv_handle_t *)s, proc_close_cb);
	}
}

static void
proc_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct proc_ctx *c = p->data;

	c->status = status;
	c->signal = sig;
	c->exited = 1;
	uv_close((uv_handle_t *)p, proc_close_cb);
}

static void
proc_write_cb(uv_write_t *w, int status)
{
	(void)status;
	uv_close((uv_handle_t *)w->handle, proc_close_cb);
}

/* A started program: its private loop and what it collects. */
struct proc_job {
	uv_loop_t loop;
	uv_process_t proc;
	struct proc_ctx c;
	int spawned;
};

/* Spawn argv on job's own loop. -1: not started, the loop must still be run
 * out (proc_wait); -2: no loop at all. */
static int
proc_spawn(struct proc_job *j, char *const argv[], char *const env[], const char *input,
    int flags, lz_err_t *err)
{
	uv_process_options_t o;
	uv_stdio_container_t io[3];
	struct proc_ctx *c = &j->c;
	int r;

	{
		void (*cb)(const char *, void *) = (flags & PROC_LINE_CB) ? c->out.line_cb : NULL;
		void *arg = (flags & PROC_LINE_CB) ? c->out.arg : NULL;

		memset(c, 0, sizeof *c);
		c->out.line_cb = c->err.line_cb = cb;
		c->out.arg = c->err.arg = arg;
	}
	memset(&o, 0, sizeof o);
	j->spawned = 0;
	if ((r = uv_loop_init(&j->loop)) != 0) {
		lz_err_set(err, -r, "cannot start %s: %s", argv[0], uv_strerror(r));
		return -2;
	}
	uv_pipe_init(&j->loop, &c->in, 0);
	uv_pipe_init(&j->loop, &c->out.pipe, 0);
	uv_pipe_init(&j->loop, &c->err.pipe, 0);
	io[0].flags = UV_CREATE_PIPE | UV_READABLE_PIPE;
	io[0].data.stream = (uv_stream_t *)&c->in;
	if (flags & PROC_INHERIT_STDOUT) {
		io[1].flags = UV_INHERIT_FD;
		io[1].data.fd = 1;
	} else {
		io[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
		io[1].data.stream = (uv_stream_t *)&c->out.pipe;
	}
	if (flags & PROC_INHERIT_STDERR) {
		io[2].flags = UV_INHERIT_FD;
		io[2].data.fd = 2;
	} else {
		io[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
		io[2].data.stream = (uv_stream_t *)&c->err.pipe;
	}
	o.file = argv[0];
	o.args = (char **)argv;
	o.env = (char **)env;
	o.stdio = io;
	o.stdio_count = 3;
	o.exit_cb = proc_exit_cb;
	j->proc.data = c;
	if ((r = uv_spawn(&j->loop, &j->proc, &o)) != 0) {
		lz_err_set(err, -r, "cannot run %s: %s", argv[0], uv_strerror(r));
		uv_close((uv_handle_t *)&j->proc, proc_close_cb);
		uv_close((uv_handle_t *)&c->in, proc_close_cb);
		uv_close((uv_handle_t *)&c->out.pipe, proc_close_cb);
		uv_close((uv_handle_t *)&c->err.pipe, proc_close_cb);
		return -1;
	}
	j->spawned = 1;
	if (!(flags & PROC_INHERIT_STDOUT)) {
		c->out.open = 1;
		uv_read_start((uv_stream_t *)&c->out.pipe, proc_alloc_cb, proc_read_cb);
	} else
		uv_close((uv_handle_t *)&c->out.pipe, proc_close_cb);
	if (!(flags & PROC_INHERIT_STDERR)) {
		c->err.open = 1;
		uv_read_start((uv_stream_t *)&c->err.pipe, proc_alloc_cb, proc_read_cb);
	} else
		uv_close((uv_handle_t *)&c->err.pipe, proc_close_cb);
	if (input != NULL && *input != '\0') {
		uv_buf_t b = uv_buf_init((char *)input, (unsigned)strlen(input));

		if (uv_write(&c->wr, (uv_stream_t *)&c->in, &b, 1, proc_write_cb) != 0)
			uv_close((uv_handle_t *)&c->in, proc_close_cb);
	} else
		uv_close((uv_handle_t *)&c->in, proc_close_cb);
	return 0;
}

/* Run job's loop out: the exit and both pipes' EOF. res set when it ran. */
static void
proc_wait(struct proc_job *j, struct proc_result *res)
{
	struct proc_ctx *c = &j->c;

	uv_run(&j->loop, UV_RUN_DEFAULT);
	uv_loop_close(&j->loop);
	memset(res, 0, sizeof *res);
	if (j->spawned) {
		res->status = c->signal != 0 ? 128 + c->signal : (int)c->status;
		res->out = c->out.data != NULL ? c->out.data : xstrdup("");
		res->out_len = c->out.len;
		res->errout = c->err.data != NULL ? c->err.data : xstrdup("");
		res->err_len = c->err.len;
	} else {
		free(c->out.data);
		free(c->err.data);
	}
}

int
proc_run_lines(char *const argv[], void (*line_cb)(const char *line, void *arg), void *arg,
    struct proc_result *res, lz_err_t *err)
{
	struct proc_job j;
	int r;

	/* proc_spawn keeps these when PROC_LINE_CB is set */
	j.c.out.line_cb = j.c.err.line_cb = line_cb;
	j.c.out.arg = j.c.err.arg = arg;
	r = proc_spawn(&j, argv, NULL, NULL, PROC_LINE_CB, err);
	if (r == -2) {
		memset(res, 0, sizeof *res);
		return -1;
	}
	proc_wait(&j, res);
	return r < 0 ? -1 : 0;
}

int
proc_run(char *const argv[], char *const env[], const char *input, int flags,
    struct proc_result *res, lz_err_t *err)
{
	struct proc_job j;
	int r = proc_spawn(&j, argv, env, input, flags, err);

	if (r == -2) {
		memset(res, 0, sizeof *res);
		return -1;
	}
	proc_wait(&j, res);
	return r < 0 ? -1 : 0;
}

int
proc_start(char *const argv[], struct proc_job **job, lz_err_t *err)
{
	return proc_start_env(argv, NULL, job, err);
}

int
proc_start_env(char *const argv[], char *const env[], struct proc_job **job, lz_err_t *err)
{
	struct proc_job *j = xcalloc(1, sizeof *j);

	int r = proc_spawn(j, argv, env, NULL, 0, err);

	if (r < 0) {
		struct proc_result res;

		if (r == -1) {
			proc_wait(j, &res);
			proc_result_clear(&res);
		}
		free(j);
		*job = NULL;
		return -1;
	}
	*job = j;
	return 0;
}

bool
proc_job_done(struct proc_job *job)
{
	uv_run(&job->loop, UV_RUN_NOWAIT);
	return !job->spawned || job->c.exited;
}

void
proc_finish(struct proc_job *job, struct proc_result *res)
{
	proc_wait(job, res);
	free(job);
}

void
proc_result_clear(struct proc_result *res)
{
	free(res->out);
	free(res->errout);
	memset(res, 0, sizeof *res);
}

static void
proc_chomp(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

int
proc_run_ok(char *const argv[], char **out, lz_err_t *err)
{
	struct proc_result res;

	if (proc_run(argv, NULL, NULL, 0, &res, err) < 0)
		return -1;
	if (res.status != 0) {
		proc_chomp(res.errout);
		lz_err_set(err, LZ_EINVAL, "%s %s failed (exit %d)%s%s", argv[0],
		    argv[1] != NULL ? argv[1] : "", res.status,
		    *res.errout != '\0' ? ": " : "", res.errout);
		proc_result_clear(&res);
		return -1;
	}
	if (out != NULL) {
		proc_chomp(res.out);
		*out = lz_steal_ptr(&res.out);
	}
	proc_result_clear(&res);
	return 0;
}
