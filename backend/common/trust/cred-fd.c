/* cred-fd.c - asking the session's holder for its credential (see cred-fd.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cred-fd.h"
#include "xmalloc.h"

#define LZ_CRED_FD_ASK		"cred?"
#define LZ_CRED_FD_WAIT_MS	10000

int
lz_cred_fd_ask(int fd, int *reply, lz_err_t *err)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	struct iovec iov = { (void *)LZ_CRED_FD_ASK, sizeof LZ_CRED_FD_ASK - 1 };
	struct msghdr m = { 0 };
	struct stat st;
	int sv[2];

	*reply = -1;
	/* Checked first: a closed fd would be reused by the socketpair below. */
	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
		return lz_err_set(err, EBADF, "%s=%d is no socket: the session's credential "
		    "holder cannot be reached (was the fd closed?)", LZ_CRED_FD_ENV, fd);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return lz_err_sys(err, errno, "socketpair");
	memset(&u, 0, sizeof u);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.b;
	m.msg_controllen = sizeof u.b;
	CMSG_FIRSTHDR(&m)->cmsg_level = SOL_SOCKET;
	CMSG_FIRSTHDR(&m)->cmsg_type = SCM_RIGHTS;
	CMSG_FIRSTHDR(&m)->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(CMSG_FIRSTHDR(&m)), &sv[1], sizeof(int));
	if (sendmsg(fd, &m, MSG_NOSIGNAL) < 0) {
		lz_err_sys(err, errno, "the session's credential holder (%s=%d) is gone",
		    LZ_CRED_FD_ENV, fd);
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	close(sv[1]);
	*reply = sv[0];
	return 0;
}

int
lz_cred_fd_answer(int reply, char **out, lz_err_t *err)
{
	struct pollfd p = { reply, POLLIN, 0 };
	char buf[LZ_CRED_FD_MAX];
	int ret = -1;
	ssize_t n;

	if (poll(&p, 1, LZ_CRED_FD_WAIT_MS) <= 0) {
		lz_err_set(err, ETIMEDOUT, "the session's credential holder did not answer");
		goto out;
	}
	n = recv(reply, buf, sizeof buf - 1, 0);
	if (n <= 0) {
		lz_err_set(err, EPROTO, "the session's credential holder gave no credential");
		goto out;
	}
	buf[n] = '\0';
	*out = xstrdup(buf);
	ret = 0;
out:
	explicit_bzero(buf, sizeof buf);
	close(reply);
	return ret;
}

int
lz_cred_fd_fetch(int fd, char **out, lz_err_t *err)
{
	int reply;

	if (lz_cred_fd_ask(fd, &reply, err) < 0)
		return -1;
	return lz_cred_fd_answer(reply, out, err);
}

int
lz_cred_fd_serve(int fd, const char *cred)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 4)]; } u;
	char buf[16];
	struct iovec iov = { buf, sizeof buf };
	struct msghdr m = { 0 };
	struct cmsghdr *c;
	int rfd = -1;
	ssize_t n;

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.b;
	m.msg_controllen = sizeof u.b;
	n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n == 0)
		return -1;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c)) {
		size_t k, nfd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (k = 0; k < nfd; k++) {
			int f;

			memcpy(&f, CMSG_DATA(c) + k * sizeof(int), sizeof f);
			if (rfd < 0)
				rfd = f;
			else
				close(f);	/* one reply socket per request */
		}
	}
	if (rfd < 0)
		return 0;
	if ((size_t)n == sizeof LZ_CRED_FD_ASK - 1 && memcmp(buf, LZ_CRED_FD_ASK, (size_t)n) == 0)
		(void)send(rfd, cred, strlen(cred), MSG_NOSIGNAL | MSG_DONTWAIT);
	close(rfd);
	return 0;
}

int
lz_cred_fd_take(const char *fds, char **out, lz_err_t *err)
{
	char buf[LZ_CRED_FD_MAX], *end;
	size_t len = 0;
	ssize_t n;
	long fd;
	int ret = -1;

	*out = NULL;
	errno = 0;
	fd = strtol(fds, &end, 10);
	if (errno != 0 || *end != '\0' || fd < 3 || fd > 65535 || fcntl((int)fd, F_GETFD) < 0)
		return lz_err_set(err, EBADF, "%s=%.16s: no such file descriptor: the session's "
		    "credential did not reach its holder", LZ_CRED_HOLD_ENV, fds);
	for (;;) {
		n = read((int)fd, buf + len, sizeof buf - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			lz_err_sys(err, errno, "reading the session's credential (%s=%ld)",
			    LZ_CRED_HOLD_ENV, fd);
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == sizeof buf - 1) {
			lz_err_set(err, EMSGSIZE, "the session's credential (%s=%ld) is over %d bytes",
			    LZ_CRED_HOLD_ENV, fd, LZ_CRED_FD_MAX - 1);
			goto out;
		}
	}
	if (len == 0) {
		lz_err_set(err, ENODATA, "the session's credential (%s=%ld) is empty",
		    LZ_CRED_HOLD_ENV, fd);
		goto out;
	}
	buf[len] = '\0';
	*out = xstrdup(buf);
	ret = 0;
out:
	explicit_bzero(buf, sizeof buf);
	close((int)fd);
	return ret;
}
