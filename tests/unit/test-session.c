/* test-session.c - sessions on a real loop with host programs standing in for
 * podman exec: output before exit, exit status, PTY size, input and EOF, kill;
 * and the control server's framing answers on a real socket. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <uv.h>

#include "host/ctl-server.h"
#include "proto.h"
#include "coord/screen.h"
#include "coord/session.h"
#include "xmalloc.h"

struct run {
	char out[65536];
	size_t out_len;
	char err[4096];
	size_t err_len;
	size_t total;		/* stdout bytes, kept or not */
	char tail[16];		/* the last stdout bytes */
	int exits;
	int status;
};

static void
run_output_cb(struct session *s, uint8_t stream, const uint8_t *buf, size_t len, void *arg)
{
	struct run *r = arg;
	char *dst = stream == PROTO_STREAM_ERR ? r->err : r->out;
	size_t *n = stream == PROTO_STREAM_ERR ? &r->err_len : &r->out_len;
	size_t cap = stream == PROTO_STREAM_ERR ? sizeof r->err : sizeof r->out;

	(void)s;
	if (stream == PROTO_STREAM_OUT) {
		char t[sizeof r->tail * 2];
		size_t k = len < sizeof r->tail - 1 ? len : sizeof r->tail - 1;
		size_t m = strlen(r->tail);

		/* old tail + the end of this chunk, then its last 15 bytes */
		memcpy(t, r->tail, m);
		memcpy(t + m, buf + len - k, k);
		m += k;
		k = m < sizeof r->tail - 1 ? m : sizeof r->tail - 1;
		memcpy(r->tail, t + m - k, k);
		r->tail[k] = '\0';
		r->total += len;
	}
	if (*n + len < cap) {
		memcpy(dst + *n, buf, len);
		*n += len;
		dst[*n] = '\0';
	}
}

static void
run_exit_cb(struct session *s, void *arg)
{
	struct run *r = arg;

	r->exits++;
	r->status = s->status;
	session_close(s);
}

static void screen_output_cb(struct session *, uint8_t, const uint8_t *, size_t, void *);
static void screen_exit_cb(struct session *, void *);

/* Start argv as a session, optionally feed input, run the loop to the end;
 * with screen, a screen (coord/screen.h) is fed and answers queries. */
static void
run_session_with(char **argv, bool tty, const char *input, bool kill_it, bool screen,
    struct run *r)
{
	struct session_cbs cbs = { run_output_cb, run_exit_cb, NULL };
	struct session_cbs scbs = { screen_output_cb, screen_exit_cb, NULL };
	struct session_opts o = { 1, "0123456789abcdef0123456789abcdef", argv, "test", tty, 30, 100 };
	struct session *s;
	uv_loop_t loop;
	lz_err_t err = LZ_ERR_INIT;

	memset(r, 0, sizeof *r);
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_int_equal(session_start(&loop, &o, screen ? &scbs : &cbs, r, &s, &err), 0);
	assert_true(s->pid > 0);
	if (screen)
		assert_int_equal(screen_new(o.rows, o.cols, &s->screen, &err), 0);
	if (input != NULL) {
		session_write(s, (const uint8_t *)input, strlen(input));
		session_eof(s);
	}
	if (kill_it)
		session_kill(s);
	session_unref(s);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
}

static void
run_session(char **argv, bool tty, const char *input, bool kill_it, struct run *r)
{
	run_session_with(argv, tty, input, kill_it, false, r);
}

static void
test_session_pipe_output_comes_before_exit_status(void **state)
{
	char *argv[] = { (char *)"/bin/sh", (char *)"-c",
	    (char *)"i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done; echo oops >&2; exit 3",
	    NULL };
	struct run r;

	(void)state;
	run_session(argv, false, NULL, false, &r);
	assert_int_equal(r.exits, 1);
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.out, "line0\n"));
	assert_non_null(strstr(r.out, "line1999\n"));
	assert_string_equal(r.err, "oops\n");
}

static void
test_session_pipe_input_and_eof_reach_the_process(void **state)
{
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)"wc -c; cat", NULL };
	struct run r;

	(void)state;
	run_session(argv, false, "twelve bytes", false, &r);
	assert_int_equal(r.status, 0);
	assert_int_equal(atoi(r.out), 12);
}

static void
test_session_tty_has_the_requested_size(void **state)
{
	char *argv[] = { (char *)"/bin/sh", (char *)"-c",
	    (char *)"[ -t 0 ] && [ -t 1 ] && stty size; exit 5", NULL };
	struct run r;

	(void)state;
	run_session(argv, true, NULL, false, &r);
	assert_int_equal(r.status, 5);
	assert_non_null(strstr(r.out, "30 100"));
}

/* The screen answers the program's queries (DSR/CPR, DA) on the PTY: what
 * a terminal would have said, with the cursor where the program put it. */
static void
screen_output_cb(struct session *s, uint8_t stream, const uint8_t *buf, size_t len, void *arg)
{
	run_output_cb(s, stream, buf, len, arg);
}

static void
screen_exit_cb(struct session *s, void *arg)
{
	screen_free(s->screen);
	s->screen = NULL;
	run_exit_cb(s, arg);
}

static void
test_session_screen_answers_terminal_queries(void **state)
{
	char *argv[] = { (char *)"/bin/sh", (char *)"-c",
	    (char *)"stty raw -echo; printf '\\033[5;3H\\033[6n'; "
	    "timeout 5 head -c 6 | od -An -tx1; printf '\\033[c'; timeout 5 head -c 3 | od -An -c", NULL };
	struct run r;

	(void)state;
	run_session_with(argv, true, NULL, false, true, &r);
	assert_int_equal(r.exits, 1);
	/* ESC [ 5 ; 3 R, then the start of a DA answer: ESC [ ? */
	assert_non_null(strstr(r.out, "1b 5b 35 3b 33 52"));
	assert_non_null(strstr(r.out, "033   [   ?"));
}

/* Mid-burst, when the screen holds output back, a query is still answered
 * (within a tick), from the screen with the burst in it. */
static void
test_session_screen_answers_a_query_after_a_burst(void **state)
{
	char *argv[] = { (char *)"/bin/sh", (char *)"-c",
	    (char *)"stty raw -echo; yes 'burst line' | head -c 400000 | sed 's/$/\r/'; "
	    "printf 'abc\\033[6n'; a=$(timeout 5 head -c 7); "
	    "[ \"$a\" = \"$(printf '\\033[30;4R')\" ] && echo ANSWERED", NULL };
	struct run r;

	(void)state;
	run_session_with(argv, true, NULL, false, true, &r);
	assert_int_equal(r.exits, 1);
	/* ESC [ 3 0 ; 4 R: the bottom row, after "abc" */
	assert_non_null(strstr(r.tail, "ANSWERED"));
}

static void
test_session_tty_output_is_drained_after_exit(void **state)
{
	char *argv[] = { (char *)"/bin/sh", (char *)"-c",
	    (char *)"head -c 200000 /dev/zero | tr '\\0' x; echo END", NULL };
	struct run r;

	(void)state;
	run_session(argv, true, NULL, false, &r);
	assert_int_equal(r.status, 0);
	if (strstr(r.tail, "END") == NULL) fprintf(stderr, "total %zu tail [%s]\n", r.total, r.tail);
	assert_non_null(strstr(r.tail, "END"));
	assert_true(r.total >= 200000 + 3);
}

static void
test_session_kill_ends_it_as_terminated(void **state)
{
	char *argv[] = { (char *)"/bin/sleep", (char *)"100", NULL };
	struct run r;

	(void)state;
	run_session(argv, false, NULL, true, &r);
	assert_int_equal(r.exits, 1);
	assert_int_equal(r.status, 128 + SIGTERM);
}

static void
test_session_start_failure_is_an_error(void **state)
{
	char *argv[] = { (char *)"/nonexistent/podman", NULL };
	struct session_cbs cbs = { run_output_cb, run_exit_cb, NULL };
	struct session_opts o = { 1, NULL, argv, "x", false, 0, 0 };
	struct session *s;
	struct run r;
	uv_loop_t loop;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	memset(&r, 0, sizeof r);
	uv_loop_init(&loop);
	assert_int_equal(session_start(&loop, &o, &cbs, &r, &s, &err), -1);
	assert_null(s);
	assert_non_null(strstr(err.msg, "/nonexistent/podman"));
	lz_err_clear(&err);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
	assert_int_equal(r.exits, 0);
}

/* The control server, driven with a blocking client socket. */

struct srv {
	uv_loop_t loop;
	struct ctl_server *srv;
	int frames, connects, disconnects;
	uint16_t last_type;
};

static void
srv_connect_cb(struct ctl_server_client *c, void *arg)
{
	(void)c;
	((struct srv *)arg)->connects++;
}

static void
srv_frame_cb(struct ctl_server_client *c, const struct proto_header *h, const uint8_t *p,
    void *arg)
{
	struct srv *s = arg;
	struct proto_buf b = { 0 };

	(void)p;
	s->frames++;
	s->last_type = h->type;
	proto_encode_ok(&b, h->type);
	ctl_server_send(c, &b);
}

static void
srv_disconnect_cb(struct ctl_server_client *c, void *arg)
{
	(void)c;
	((struct srv *)arg)->disconnects++;
}

/* What a test client has read and not yet consumed. */
struct rdbuf {
	uint8_t buf[8192];
	size_t len, used;
};

/* The next frame: 1 (h, p set), 0 when the server closed, -1 after 5 s. The
 * loop runs while we wait, as the coordinator's would. */
static int
srv_read_frame(struct srv *s, int fd, struct rdbuf *rb, struct proto_header *h,
    const uint8_t **p)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	lz_err_t err = LZ_ERR_INIT;
	ssize_t n;
	int i, r;

	memmove(rb->buf, rb->buf + rb->used, rb->len - rb->used);
	rb->len -= rb->used;
	rb->used = 0;
	for (i = 0; i < 5000; i++) {
		r = proto_frame_parse(rb->buf, rb->len, h, p, &err);
		assert_true(r >= 0);
		if (r == PROTO_FRAME) {
			rb->used = PROTO_HEADER_LEN + h->length;
			return 1;
		}
		uv_run(&s->loop, UV_RUN_NOWAIT);
		if (poll(&pfd, 1, 1) <= 0)
			continue;
		n = read(fd, rb->buf + rb->len, sizeof rb->buf - rb->len);
		if (n <= 0)
			return (int)n;
		rb->len += (size_t)n;
	}
	return -1;
}

static int
srv_connect(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sun, sizeof sun), 0);
	return fd;
}

static void
test_ctl_server_hello_frames_errors_and_close(void **state)
{
	static const struct ctl_server_cbs cbs = {
		srv_connect_cb, srv_frame_cb, srv_disconnect_cb, NULL,
	};
	char dir[] = "/tmp/lz-test-ctl.XXXXXX", *path;
	struct proto_hello hello = { PROTO_VERSION, 1, 2 };
	struct proto_buf b = { 0 };
	struct proto_header h;
	struct proto_error e;
	const uint8_t *p;
	struct rdbuf rb = { .len = 0 };
	struct srv s;
	lz_err_t err = LZ_ERR_INIT;
	int fd, i;

	(void)state;
	memset(&s, 0, sizeof s);
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/x.ctl", dir);
	uv_loop_init(&s.loop);
	assert_int_equal(ctl_server_listen(&s.loop, path, &cbs, &s, &s.srv, &err), 0);

	fd = srv_connect(path);
	proto_encode_hello(&b, &hello);
	proto_encode_stop(&b);	/* pipelined behind HELLO */
	proto_encode_raw(&b, PROTO_VERSION, 4242, "zz", 2);
	assert_int_equal(write(fd, b.data, b.len), (ssize_t)b.len);
	proto_buf_clear(&b);
	assert_int_equal(srv_read_frame(&s, fd, &rb, &h, &p), 1);
	assert_int_equal(h.type, PROTO_HELLO);
	for (i = 0; i < 2; i++) {
		assert_int_equal(srv_read_frame(&s, fd, &rb, &h, &p), 1);
		if (h.type == PROTO_OK)
			assert_int_equal(s.last_type, PROTO_STOP);
		else {
			assert_int_equal(h.type, PROTO_ERROR);
			assert_int_equal(proto_decode_error(p, h.length, &e, &err), 0);
			assert_int_equal(e.code, PROTO_E_UNKNOWN_TYPE);
			proto_error_clear(&e);
		}
	}
	assert_int_equal(s.connects, 1);
	assert_int_equal(s.frames, 1);	/* the unknown type never reaches the coordinator */
	/* a bad magic: one ERROR, then the server hangs up */
	assert_int_equal(write(fd, "GARBAGE!GARBAGE!", 16), 16);
	assert_int_equal(srv_read_frame(&s, fd, &rb, &h, &p), 1);
	assert_int_equal(h.type, PROTO_ERROR);
	assert_int_equal(srv_read_frame(&s, fd, &rb, &h, &p), 0);
	assert_int_equal(s.disconnects, 1);
	close(fd);

	ctl_server_shutdown(s.srv);
	uv_run(&s.loop, UV_RUN_DEFAULT);
	assert_int_equal(access(path, F_OK), -1);	/* the socket file is gone */
	ctl_server_free(s.srv);
	assert_int_equal(uv_loop_close(&s.loop), 0);
	rmdir(dir);
	free(path);
}

static void
test_ctl_server_refuses_overlong_path(void **state)
{
	static const struct ctl_server_cbs cbs = { NULL, srv_frame_cb, NULL, NULL };
	char path[200];
	struct ctl_server *srv;
	uv_loop_t loop;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	memset(path, 'a', sizeof path - 1);
	path[0] = '/';
	path[sizeof path - 1] = '\0';
	uv_loop_init(&loop);
	assert_int_equal(ctl_server_listen(&loop, path, &cbs, NULL, &srv, &err), -1);
	assert_null(srv);
	assert_non_null(strstr(err.msg, "longer than"));
	lz_err_clear(&err);
	assert_int_equal(uv_loop_close(&loop), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_pipe_output_comes_before_exit_status),
		cmocka_unit_test(test_session_pipe_input_and_eof_reach_the_process),
		cmocka_unit_test(test_session_tty_has_the_requested_size),
		cmocka_unit_test(test_session_tty_output_is_drained_after_exit),
		cmocka_unit_test(test_session_screen_answers_terminal_queries),
		cmocka_unit_test(test_session_screen_answers_a_query_after_a_burst),
		cmocka_unit_test(test_session_kill_ends_it_as_terminated),
		cmocka_unit_test(test_session_start_failure_is_an_error),
		cmocka_unit_test(test_ctl_server_hello_frames_errors_and_close),
		cmocka_unit_test(test_ctl_server_refuses_overlong_path),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
