/* net-control.c - the router's control socket, seen from the coordinator:
 * one subscribed connection that brings its events, requests and counters
 * (read on the loop), and one short connection per request the coordinator
 * makes (a policy edit, a verdict, the host's addresses, the broker's
 * credentials), answered OK or ERROR. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "net/net-coord-int.h"
#include "net/net-hostaddr.h"

static int
net_control_sock(const char *path, lz_err_t *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof sun.sun_path)
		return lz_err_set(err, ENAMETOOLONG, "socket path too long: %s", path);
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return lz_err_sys(err, errno, "socket");
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) < 0) {
		int e = errno;

		close(fd);
		return lz_err_sys(err, e, "cannot connect to %s", path);
	}
	return fd;
}

static void
net_control_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	static char chunk[16384];

	(void)h;
	(void)hint;
	*buf = uv_buf_init(chunk, sizeof chunk);
}

static void
net_control_close_cb(uv_handle_t *h)
{
	struct net_coord *nc = h->data;

	nc->pipe_live = false;
	proto_buf_clear(&nc->in);
}

void
net_control_close(struct net_coord *nc)
{
	if (nc->pipe_live && !uv_is_closing((uv_handle_t *)&nc->pipe))
		uv_close((uv_handle_t *)&nc->pipe, net_control_close_cb);
}

static void
net_control_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct net_coord *nc = s->data;
	size_t off = 0;

	if (n < 0) {
		net_control_close(nc);	/* the router went away; its exit is handled there */
		return;
	}
	proto_put(&nc->in, buf->base, (size_t)n);
	for (;;) {
		struct proto_header h;
		const uint8_t *p;
		struct netctl_event ev;
		lz_err_t err = LZ_ERR_INIT;
		int r = proto_frame_parse(nc->in.data + off, nc->in.len - off, &h, &p, &err);

		if (r == PROTO_NEED_MORE)
			break;
		if (r < 0) {
			net_log(nc, "network sidecar: bad frame: %s", err.msg);
			lz_err_clear(&err);
			net_control_close(nc);
			return;
		}
		if (h.type == NETCTL_EVENT) {
			if (netctl_decode_event(p, h.length, &ev, &err) < 0) {
				net_log(nc, "network sidecar: %s", err.msg);
				lz_err_clear(&err);
			} else if (nc->o.event_cb != NULL)
				nc->o.event_cb(&ev, nc->o.arg);
		} else if (h.type == NETCTL_ASK) {
			struct netreq_item it;

			if (netreq_decode_item(p, h.length, &it, &err) < 0) {
				net_log(nc, "network sidecar: %s", err.msg);
				lz_err_clear(&err);
			} else if (nc->o.ask_cb != NULL)
				nc->o.ask_cb(&it, nc->o.arg);
		} else if (h.type == NETREQ_SUMMARY) {
			struct netreq_summary sum;

			if (netreq_decode_summary(p, h.length, &sum, &err) < 0) {
				net_log(nc, "network sidecar: %s", err.msg);
				lz_err_clear(&err);
			} else if (nc->o.summary_cb != NULL)
				nc->o.summary_cb(&sum, nc->o.arg);
		}
		off += PROTO_HEADER_LEN + h.length;
	}
	proto_buf_consume(&nc->in, off);
}

/* Connect and subscribe; 1 when connected, 0 when the router is not up yet. */
int
net_control_connect(struct net_coord *nc)
{
	struct proto_buf b = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	int fd = net_control_sock(nc->ctl, &err);
	ssize_t w;

	lz_err_clear(&err);
	if (fd < 0)
		return 0;
	netctl_encode_empty(&b, NETCTL_SUBSCRIBE);
	w = write(fd, b.data, b.len);
	proto_buf_clear(&b);
	if (w < 0) {
		close(fd);
		return 0;
	}
	uv_pipe_init(nc->o.loop, &nc->pipe, 0);
	nc->pipe.data = nc;
	uv_pipe_open(&nc->pipe, fd);
	nc->pipe_live = true;
	uv_read_start((uv_stream_t *)&nc->pipe, net_control_alloc_cb, net_control_read_cb);
	return 1;
}

/* One request on a connection of its own; reads the OK or ERROR reply. */
int
net_control_request(struct net_coord *nc, struct proto_buf *req, uint32_t *value,
    lz_err_t *err)
{
	struct timeval tv = { 5, 0 };
	struct proto_buf in = { 0 };
	uint8_t buf[4096];
	int fd, ret = -1;

	if ((fd = net_control_sock(nc->ctl, err)) < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (write(fd, req->data, req->len) != (ssize_t)req->len) {
		lz_err_sys(err, errno, "network sidecar: write");
		goto out;
	}
	for (;;) {
		struct proto_header h;
		const uint8_t *p;
		ssize_t n = read(fd, buf, sizeof buf);
		int r;

		/* A socket with SO_RCVTIMEO is never restarted after a signal (signal(7)). */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			lz_err_sys(err, n < 0 ? errno : EPIPE, "network sidecar: no answer");
			goto out;
		}
		proto_put(&in, buf, (size_t)n);
		r = proto_frame_parse(in.data, in.len, &h, &p, err);
		if (r < 0)
			goto out;
		if (r == PROTO_NEED_MORE)
			continue;
		if (h.type == PROTO_OK) {
			if (value != NULL && proto_decode_u32(p, h.length, value, err) < 0)
				goto out;
			ret = 0;
		}
		else if (h.type == PROTO_ERROR) {
			struct proto_error e;

			if (proto_decode_error(p, h.length, &e, err) == 0) {
				lz_err_set(err, LZ_EINVAL, "%s", e.text);
				proto_error_clear(&e);
			}
		} else
			lz_err_set(err, EPROTO, "network sidecar: unexpected reply %u", h.type);
		break;
	}
out:
	close(fd);
	proto_buf_clear(&in);
	return ret;
}

/* The router guards the host's current addresses; one that is not up gets
 * them when it is (at its start they are on its command line). */
void
net_control_hosts_push(struct net_coord *nc)
{
	struct proto_buf b = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	size_t n;
	char *const *v = net_hostaddr_list(nc->hosts, &n);

	nc->hosts_pending = nc->state != NET_UP;
	if (nc->hosts_pending)
		return;
	netctl_encode_list(&b, NETCTL_HOST_ADDRS, v, n);
	if (net_control_request(nc, &b, NULL, &err) < 0) {
		net_log(nc, "network sidecar: guarding the host's %zu addresses: %s", n, err.msg);
		lz_err_clear(&err);
	}
	proto_buf_clear(&b);
}

/* The broker's credentials, to a router that just came up (it holds none). */
int
net_control_creds_push(struct net_coord *nc, lz_err_t *err)
{
	uint32_t n = 0;

	if (nc->o.creds == NULL || nc->o.creds->len == 0)
		return 0;
	if (net_control_request(nc, (struct proto_buf *)nc->o.creds, &n, err) < 0)
		return lz_err_wrap(err, "network sidecar: credentials");
	net_log(nc, "network sidecar: brokering %u credentials", n);
	return 0;
}
