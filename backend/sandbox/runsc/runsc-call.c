/* runsc-call.c - the control socket's I/O (runsc-call.h). gVisor's urpc: a
 * stream socket, one JSON call each way, fds with the call (SCM_RIGHTS). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sandbox/runsc/runsc-call.h"
#include "sandbox/runsc/runsc-ctl.h"
#include "xmalloc.h"

#define RUNSC_CALL_FDS_MAX	8

int
runsc_call_connect(const char *id, lz_err_t *err)
{
	struct sockaddr_un sa;
	socklen_t sl;
	int fd, n;

	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	/* abstract, as Go binds "\x00name": a leading NUL and, in the length, a trailing one */
	n = snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, "runsc-sandbox.%s", id);
	if (n < 0 || (size_t)n + 2 > sizeof sa.sun_path)
		return lz_err_set(err, LZ_EINVAL, "sandbox id '%.80s' is too long", id);
	sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 2 + (size_t)n);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return lz_err_sys(err, errno, "socket");
	if (connect(fd, (struct sockaddr *)&sa, sl) < 0) {
		lz_err_sys(err, errno, "the control socket of sandbox %.64s", id);
		close(fd);
		return -1;
	}
	return fd;
}

int
runsc_call_send(int fd, const char *msg, const int *fds, size_t nfds, lz_err_t *err)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * RUNSC_CALL_FDS_MAX)];
		struct cmsghdr align;
	} u;
	size_t len = strlen(msg), off = 0;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;

	if (nfds > RUNSC_CALL_FDS_MAX)
		return lz_err_set(err, LZ_EINVAL, "%zu fds to send, at most %d", nfds,
		    RUNSC_CALL_FDS_MAX);
	while (off < len) {
		memset(&mh, 0, sizeof mh);
		iov.iov_base = (char *)msg + off;
		iov.iov_len = len - off;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (off == 0 && nfds > 0) {
			struct cmsghdr *c;

			memset(&u, 0, sizeof u);
			mh.msg_control = u.buf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			c = CMSG_FIRSTHDR(&mh);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
		}
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return lz_err_sys(err, n < 0 ? errno : EPIPE, "sending to the sandbox");
		off += (size_t)n;
	}
	return 0;
}

int
runsc_call_read(int fd, struct runsc_reply *r, lz_err_t *err)
{
	size_t end;
	ssize_t n;

	if (r->cap - r->len < 4096) {
		if (r->cap >= RUNSC_CTL_REPLY_MAX)
			return lz_err_set(err, LZ_EINVAL, "the sandbox's reply is over %u bytes",
			    RUNSC_CTL_REPLY_MAX);
		r->cap = r->cap == 0 ? 4096 : r->cap * 2;
		r->buf = xrealloc(r->buf, r->cap + 1);
	}
	do
		n = read(fd, r->buf + r->len, r->cap - r->len);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n < 0)
		return lz_err_sys(err, errno, "reading the sandbox's reply");
	if (n == 0)
		return lz_err_set(err, EPIPE, "the sandbox closed the call without a whole reply");
	r->len += (size_t)n;
	r->buf[r->len] = '\0';
	if ((end = runsc_ctl_reply_end(r->buf, r->len)) == 0)
		return 0;
	r->len = end;
	r->buf[end] = '\0';
	return 1;
}

void
runsc_reply_clear(struct runsc_reply *r)
{
	free(r->buf);
	memset(r, 0, sizeof *r);
}

int
runsc_call(const char *id, const char *msg, const int *fds, size_t nfds, int timeout_ms,
    char **result, lz_err_t *err)
{
	struct runsc_reply r = { 0 };
	struct pollfd p;
	int fd, rc = 0, ret = -1;

	*result = NULL;
	if ((fd = runsc_call_connect(id, err)) < 0)
		return -1;
	if (runsc_call_send(fd, msg, fds, nfds, err) < 0)
		goto out;
	while (rc == 0) {
		p.fd = fd;
		p.events = POLLIN;
		rc = poll(&p, 1, timeout_ms);
		if (rc < 0 && errno == EINTR) {
			rc = 0;
			continue;
		}
		if (rc < 0) {
			lz_err_sys(err, errno, "waiting for the sandbox's reply");
			goto out;
		}
		if (rc == 0) {
			lz_err_set(err, ETIMEDOUT, "the sandbox did not answer within %d ms", timeout_ms);
			goto out;
		}
		rc = runsc_call_read(fd, &r, err);
	}
	if (rc < 0 || runsc_ctl_reply(r.buf, r.len, result, err) < 0)
		goto out;
	ret = 0;
out:
	close(fd);
	runsc_reply_clear(&r);
	return ret;
}
