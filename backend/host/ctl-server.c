/* ctl-server.c - control socket: accept, frame, HELLO, write queues.
 *
 * Theory of operation: every client holds one reference for its connection
 * and one per write in flight; it is freed in the close callback of its pipe
 * once the last reference goes. Frames are handed to the coordinator in
 * order; a callback may close the client, after which the rest of its input
 * is ignored.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl-server.h"
#include "framew.h"
#include "xmalloc.h"

struct ctl_server {
	uv_loop_t *loop;
	uv_pipe_t listener;
	bool listening;
	char *path;
	struct ctl_server_cbs cbs;
	void *arg;
	struct ctl_server_client *clients;
	uint32_t next_id;
};

int
ctl_server_dir_check(const char *dir, bool create, lz_err_t *err)
{
	struct stat st;
	char *p, *s;

	if (create) {
		p = xstrdup(dir);
		for (s = p + 1; *s != '\0'; s++) {
			if (*s != '/')
				continue;
			*s = '\0';
			if (mkdir(p, 0700) < 0 && errno != EEXIST) {
				lz_err_sys(err, errno, "cannot create %s", p);
				free(p);
				return -1;
			}
			*s = '/';
		}
		free(p);
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return lz_err_sys(err, errno, "cannot create socket directory %s", dir);
	}
	if (lstat(dir, &st) < 0)
		return lz_err_sys(err, errno, "socket directory %s", dir);
	if (!S_ISDIR(st.st_mode))
		return lz_err_set(err, ENOTDIR, "socket directory %s is not a directory", dir);
	if (st.st_uid != geteuid())
		return lz_err_set(err, EPERM, "socket directory %s belongs to uid %u, not to you",
		    dir, (unsigned)st.st_uid);
	if ((st.st_mode & 077) != 0)
		return lz_err_set(err, EPERM, "socket directory %s has unsafe permissions %04o "
		    "(expected 0700): fix with 'chmod 700 %s'", dir,
		    (unsigned)(st.st_mode & 07777), dir);
	return 0;
}

static void
ctl_server_client_free(struct ctl_server_client *c)
{
	proto_buf_clear(&c->in);
	free(c);
}

void
ctl_server_client_ref(struct ctl_server_client *c)
{
	c->refs++;
}

static void
ctl_server_client_close_cb(uv_handle_t *h)
{
	ctl_server_client_unref(h->data);
}

void
ctl_server_client_unref(struct ctl_server_client *c)
{
	LZ_ASSERT(c->refs > 0);
	if (--c->refs == 0)
		ctl_server_client_free(c);
}

static void
ctl_server_unlink_client(struct ctl_server_client *c)
{
	struct ctl_server_client **pp;

	for (pp = &c->srv->clients; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	c->next = NULL;
}

static void
ctl_server_shutdown_cb(uv_shutdown_t *req, int status)
{
	struct ctl_server_client *c = req->data;

	(void)status;
	free(req);
	uv_close((uv_handle_t *)&c->pipe, ctl_server_client_close_cb);
}

void
ctl_server_client_close(struct ctl_server_client *c)
{
	uv_shutdown_t *req;

	if (c->closing)
		return;
	c->closing = true;
	uv_read_stop((uv_stream_t *)&c->pipe);
	ctl_server_unlink_client(c);
	if (c->hello && c->srv->cbs.disconnect_cb != NULL)
		c->srv->cbs.disconnect_cb(c, c->srv->arg);
	req = xcalloc(1, sizeof *req);
	req->data = c;
	/* Shutdown after the queued writes; a dead peer fails it at once. */
	if (uv_shutdown(req, (uv_stream_t *)&c->pipe, ctl_server_shutdown_cb) != 0) {
		free(req);
		uv_close((uv_handle_t *)&c->pipe, ctl_server_client_close_cb);
	}
}

static void
ctl_server_write_cb(uv_write_t *req, int status)
{
	struct framew_req *w = req->data;
	struct ctl_server_client *c = w->arg;
	bool was_high = c->queued >= CTL_SERVER_LOW_WATER;

	c->queued -= w->len;
	framew_req_free(w);
	if (status < 0)
		ctl_server_client_close(c);
	else if (was_high && c->queued < CTL_SERVER_LOW_WATER && !c->closing &&
	    c->srv->cbs.drain_cb != NULL)
		c->srv->cbs.drain_cb(c, c->srv->arg);
	ctl_server_client_unref(c);
}

void
ctl_server_send(struct ctl_server_client *c, struct proto_buf *b)
{
	ssize_t n;

	if (b->len == 0)
		return;
	if (c->closing) {
		proto_buf_clear(b);
		return;
	}
	n = framew_send((uv_stream_t *)&c->pipe, b, true, ctl_server_write_cb, c);
	if (n < 0) {
		ctl_server_client_close(c);
		return;
	}
	if (n > 0) {
		c->queued += (size_t)n;
		ctl_server_client_ref(c);
	}
}

void
ctl_server_send_error(struct ctl_server_client *c, uint32_t code, const char *fmt, ...)
{
	struct proto_buf b = { 0 };
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	proto_encode_error(&b, code, text);
	free(text);
	ctl_server_send(c, &b);
}

static void
ctl_server_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	struct ctl_server_client *c = h->data;
	size_t room;
	uint8_t *p;

	(void)hint;
	/* Read straight into the frame buffer: no copy on the input path. */
	p = proto_buf_space(&c->in, PROTO_READ_CHUNK, &room);
	*buf = uv_buf_init((char *)p, (unsigned)room);
}

static int
ctl_server_hello(struct ctl_server_client *c, const struct proto_header *h,
    const uint8_t *payload)
{
	struct proto_buf b = { 0 };
	struct proto_hello hello, mine;
	lz_err_t err = LZ_ERR_INIT;

	if (h->type != PROTO_HELLO) {
		ctl_server_send_error(c, PROTO_E_STATE, "expected HELLO, got %s",
		    proto_type_name(h->type));
		return -1;
	}
	if (proto_decode_hello(payload, h->length, &hello, &err) < 0) {
		ctl_server_send_error(c, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return -1;
	}
	if (hello.version != PROTO_VERSION) {
		ctl_server_send_error(c, PROTO_E_VERSION, "client speaks protocol %u, this "
		    "coordinator speaks %u: stop it with 'lazaret stop' and retry",
		    hello.version, PROTO_VERSION);
		return -1;
	}
	mine.version = PROTO_VERSION;
	mine.pid = (uint32_t)getpid();
	mine.uid = (uint32_t)geteuid();
	proto_encode_hello(&b, &mine);
	ctl_server_send(c, &b);
	c->hello = true;
	if (c->srv->cbs.connect_cb != NULL)
		c->srv->cbs.connect_cb(c, c->srv->arg);
	return 0;
}

static int
ctl_server_frame_cb(const struct proto_header *h, const uint8_t *payload, void *arg)
{
	struct ctl_server_client *c = arg;

	if (!c->hello) {
		if (ctl_server_hello(c, h, payload) < 0)
			ctl_server_client_close(c);
	} else if (!proto_type_known(h->type) || h->type == PROTO_HELLO) {
		ctl_server_send_error(c, PROTO_E_UNKNOWN_TYPE, "unknown message type %u",
		    h->type);
	} else
		c->srv->cbs.frame_cb(c, h, payload, c->srv->arg);
	return c->closing;
}

static void
ctl_server_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct ctl_server_client *c = s->data;
	lz_err_t err = LZ_ERR_INIT;

	(void)buf;
	if (n < 0) {
		ctl_server_client_close(c);
		return;
	}
	c->in.len += (size_t)n;
	ctl_server_client_ref(c);
	if (!c->closing && proto_buf_frames(&c->in, ctl_server_frame_cb, c, &err) < 0) {
		/* The header cannot be trusted: answer once and hang up. */
		ctl_server_send_error(c, (uint32_t)err.code, "%s", err.msg);
		lz_err_clear(&err);
		ctl_server_client_close(c);
	}
	ctl_server_client_unref(c);
}

void
ctl_server_client_pause(struct ctl_server_client *c, bool paused)
{
	if (c->closing || c->paused == paused)
		return;
	c->paused = paused;
	if (paused)
		uv_read_stop((uv_stream_t *)&c->pipe);
	else
		uv_read_start((uv_stream_t *)&c->pipe, ctl_server_alloc_cb, ctl_server_read_cb);
}

static void
ctl_server_connection_cb(uv_stream_t *l, int status)
{
	struct ctl_server *srv = l->data;
	struct ctl_server_client *c;
	struct ucred cred;
	socklen_t len = sizeof cred;
	uv_os_fd_t fd;

	if (status < 0)
		return;
	c = xcalloc(1, sizeof *c);
	c->srv = srv;
	c->refs = 1;
	c->id = ++srv->next_id;
	uv_pipe_init(srv->loop, &c->pipe, 0);
	c->pipe.data = c;
	if (uv_accept(l, (uv_stream_t *)&c->pipe) != 0) {
		c->closing = true;
		uv_close((uv_handle_t *)&c->pipe, ctl_server_client_close_cb);
		return;
	}
	c->next = srv->clients;
	srv->clients = c;
	/* The directory is 0700 already; refuse any other uid all the same. */
	if (uv_fileno((uv_handle_t *)&c->pipe, &fd) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    cred.uid != geteuid()) {
		ctl_server_client_close(c);
		return;
	}
	c->pid = cred.pid;
	c->uid = cred.uid;
	uv_read_start((uv_stream_t *)&c->pipe, ctl_server_alloc_cb, ctl_server_read_cb);
}

int
ctl_server_listen(uv_loop_t *loop, const char *path, const struct ctl_server_cbs *cbs,
    void *arg, struct ctl_server **out, lz_err_t *err)
{
	struct sockaddr_un sun;
	struct ctl_server *srv;
	struct stat st;
	mode_t old;
	int fd, r;

	*out = NULL;
	memset(&sun, 0, sizeof sun);
	if (strlen(path) >= sizeof sun.sun_path)
		return lz_err_set(err, ENAMETOOLONG, "control socket path %s is %zu bytes, "
		    "longer than the %zu a UNIX socket allows: set escalation.socket_dir to a "
		    "shorter directory", path, strlen(path), sizeof sun.sun_path - 1);
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return lz_err_set(err, EEXIST, "%s exists and is not a socket: refusing "
			    "to replace it", path);
		if (unlink(path) < 0)
			return lz_err_sys(err, errno, "cannot remove stale socket %s", path);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return lz_err_sys(err, errno, "socket");
	old = umask(077);
	r = bind(fd, (struct sockaddr *)&sun, sizeof sun);
	umask(old);
	if (r < 0 || listen(fd, 128) < 0) {
		lz_err_sys(err, errno, "cannot listen on %s", path);
		close(fd);
		return -1;
	}
	srv = xcalloc(1, sizeof *srv);
	srv->loop = loop;
	srv->path = xstrdup(path);
	srv->cbs = *cbs;
	srv->arg = arg;
	uv_pipe_init(loop, &srv->listener, 0);
	srv->listener.data = srv;
	if ((r = uv_pipe_open(&srv->listener, fd)) != 0 ||
	    (r = uv_listen((uv_stream_t *)&srv->listener, 128, ctl_server_connection_cb)) != 0) {
		lz_err_set(err, -r, "cannot listen on %s: %s", path, uv_strerror(r));
		uv_close((uv_handle_t *)&srv->listener, NULL);
		unlink(path);
		srv->listening = false;
		*out = srv;	/* freed by the caller after the loop has run out */
		return -1;
	}
	srv->listening = true;
	*out = srv;
	return 0;
}

void
ctl_server_stop(struct ctl_server *srv)
{
	if (srv == NULL || !srv->listening)
		return;
	srv->listening = false;
	unlink(srv->path);
	uv_close((uv_handle_t *)&srv->listener, NULL);
}

void
ctl_server_shutdown(struct ctl_server *srv)
{
	if (srv == NULL)
		return;
	ctl_server_stop(srv);
	while (srv->clients != NULL)
		ctl_server_client_close(srv->clients);
}

void
ctl_server_free(struct ctl_server *srv)
{
	if (srv == NULL)
		return;
	free(srv->path);
	free(srv);
}

size_t
ctl_server_clients(const struct ctl_server *srv)
{
	const struct ctl_server_client *c;
	size_t n = 0;

	for (c = srv->clients; c != NULL; c = c->next)
		if (c->hello && !c->closing)
			n++;
	return n;
}
