/* sudo.c - Lazaret's passwordless `sudo` inside the sandbox (sudo.h).
 *
 * Theory of operation: the client makes a stream socketpair, sends one end
 * with its stdin, stdout and stderr (SCM_RIGHTS) over the holder's socket
 * (LAZARET_SUDO_FD, a SOCK_SEQPACKET end the holder gave COMMAND), then the
 * request (sudo-req.h) on its own end. The holder forks a runner per
 * request, still root: it reads the request, runs the command with those
 * fds (in the terminal's foreground process group when stdin is the
 * session's terminal: sudo's own job, so it reads the terminal and hears
 * Ctrl-C), passes on the signal numbers the client writes (SIGTERM, SIGHUP;
 * SIGINT, SIGQUIT too when not on a terminal), and writes the command's exit
 * status back. The gVisor boundary is the
 * isolation, as in Docker's sandboxes: no password.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strv.h"
#include "sudo-req.h"
#include "sudo.h"
#include "xmalloc.h"

#define SUDO_PATH	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static const char sudo_usage[] =
"usage: sudo [-nEHSkv] [-u root] [-i | -s] [--] [COMMAND [ARG...]]\n"
"Lazaret's sudo: runs COMMAND as root inside this sandbox, without a password\n"
"(the sandbox is the boundary). -i and -s start root's shell.\n";

static int sudo_fd = -1;	/* the client's end, for the signal handler */

static void
sudo_forward_cb(int sig)
{
	uint32_t s = (uint32_t)sig;
	int e = errno;

	if (sudo_fd >= 0)
		(void)write(sudo_fd, &s, sizeof s);
	errno = e;
}

static bool
sudo_env_dropped(const char *e)
{
	static const char *const drop[] = { "LAZARET_ESC_FD=", ESC_SUDO_FD_ENV "=", "HOME=",
	    "USER=", "LOGNAME=", "PATH=", "SUDO_USER=", "SUDO_UID=", "SUDO_GID=", "MAIL=" };
	size_t i;

	for (i = 0; i < sizeof drop / sizeof drop[0]; i++)
		if (strncmp(e, drop[i], strlen(drop[i])) == 0)
			return true;
	return false;
}

/* Root's environment: the caller's, with root's names and sudo's PATH. */
static char **
sudo_env(void)
{
	extern char **environ;
	char **env = NULL, *name = getenv("USER");
	size_t i;

	for (i = 0; environ[i] != NULL; i++)
		if (!sudo_env_dropped(environ[i]))
			lz_strv_push(&env, environ[i]);
	lz_strv_push(&env, "HOME=/root");
	lz_strv_push(&env, "USER=root");
	lz_strv_push(&env, "LOGNAME=root");
	lz_strv_push(&env, "PATH=" SUDO_PATH);
	lz_strv_pushf(&env, "SUDO_USER=%s", name != NULL ? name : "agent");
	lz_strv_pushf(&env, "SUDO_UID=%u", (unsigned)getuid());
	lz_strv_pushf(&env, "SUDO_GID=%u", (unsigned)getgid());
	return env;
}

static int
sudo_send_fds(int fd, const int *fds, size_t n)
{
	char byte = 'S';
	struct iovec iov = { &byte, 1 };
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { 0 };
	struct cmsghdr *c;

	memset(&u, 0, sizeof u);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

static int
sudo_write_all(int fd, const uint8_t *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int
sudo_read_all(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;
	ssize_t r;

	while (n > 0) {
		if ((r = read(fd, p, n)) <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int
esc_sudo_main(int argc, char **argv)
{
	const char *hfd = getenv(ESC_SUDO_FD_ENV);
	char **cmd = NULL, cwd[4096], *end;
	_cleanup_free_ uint8_t *req = NULL;
	char **env = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int i, sv[2], fds[4], shell = 0, status = 1;
	size_t len;
	long fd;
	uint8_t st[4];

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *o = argv[i] + 1;

		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "--help") == 0 || strcmp(o, "h") == 0) {
			fputs(sudo_usage, stdout);
			return 0;
		}
		for (; *o != '\0'; o++) {
			if (*o == 'u') {
				const char *u = o[1] != '\0' ? o + 1 : (i + 1 < argc ? argv[++i] : "");

				if (strcmp(u, "root") != 0 && strcmp(u, "#0") != 0 && strcmp(u, "0") != 0) {
					fprintf(stderr, "sudo: only root is supported here, not '%s'\n", u);
					return 1;
				}
				break;
			}
			if (*o == 'i' || *o == 's')
				shell = *o;
			else if (strchr("nEHSkvAPb", *o) == NULL || *o == 'A' || *o == 'b') {
				fprintf(stderr, "sudo: unknown option -%c\n%s", *o, sudo_usage);
				return 1;
			}
		}
	}
	if (i < argc)
		for (; i < argc; i++)
			lz_strv_push(&cmd, argv[i]);
	else if (shell != 0) {
		lz_strv_push(&cmd, access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh");
		if (shell == 'i')
			lz_strv_push(&cmd, "-l");
	} else {
		return 0;	/* -v, -k and the like: nothing to run */
	}
	if (geteuid() == 0) {
		execvp(cmd[0], cmd);
		fprintf(stderr, "sudo: %s: %s\n", cmd[0], strerror(errno));
		return errno == ENOENT ? 127 : 126;
	}
	fd = hfd != NULL ? strtol(hfd, &end, 10) : -1;
	if (hfd == NULL || *end != '\0' || fd < 3 || fd > 65535 || fcntl((int)fd, F_GETFD) < 0) {
		fputs("sudo: this process has no way to root: Lazaret's sudo works in the "
		    "sessions Lazaret starts (it needs LAZARET_SUDO_FD, which was lost on the "
		    "way here)\n", stderr);
		return 1;
	}
	/* -i: a login as root, in root's home (0700: not ours to check) */
	if (shell == 'i')
		strcpy(cwd, "/root");
	else if (getcwd(cwd, sizeof cwd) == NULL)
		strcpy(cwd, "/");
	env = sudo_env();
	if (sudo_req_encode(cwd, cmd, env, &req, &len, &err) < 0) {
		fprintf(stderr, "sudo: %s\n", err.msg);
		goto out;
	}
	for (i = 0; i < 3; i++)
		if (fcntl(i, F_GETFD) < 0)
			(void)open("/dev/null", O_RDWR);	/* takes the lowest free fd: i */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		fprintf(stderr, "sudo: socketpair: %s\n", strerror(errno));
		goto out;
	}
	fds[0] = sv[1];
	fds[1] = 0;
	fds[2] = 1;
	fds[3] = 2;
	if (sudo_send_fds((int)fd, fds, 4) < 0 || (close(sv[1]), sudo_write_all(sv[0], req, len)) < 0) {
		fprintf(stderr, "sudo: the session's holder does not answer: %s\n", strerror(errno));
		goto out;
	}
	sudo_fd = sv[0];
	/* In the foreground of a terminal, the command joins our process group
	 * (sudo_run) and gets the terminal's signals itself: not twice. */
	if (isatty(0) && tcgetpgrp(0) == getpgrp()) {
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
	} else {
		signal(SIGINT, sudo_forward_cb);
		signal(SIGQUIT, sudo_forward_cb);
	}
	signal(SIGTERM, sudo_forward_cb);
	signal(SIGHUP, sudo_forward_cb);
	if (sudo_read_all(sv[0], st, sizeof st) < 0) {
		fputs("sudo: the command's runner went away without a status\n", stderr);
		goto out;
	}
	status = st[0];
out:
	lz_err_clear(&err);
	lz_strv_free(env);
	lz_strv_free(cmd);
	return status;
}

/* One fd set of SCM_RIGHTS: the reply socket and stdio. */
static int
sudo_recv_fds(int fd, int fds[4])
{
	char byte;
	struct iovec iov = { &byte, 1 };
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { 0 };
	struct cmsghdr *c;
	ssize_t r;

	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof u.buf;
	do
		r = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		if (c->cmsg_len == CMSG_LEN(4 * sizeof(int)) && !(mh.msg_flags & MSG_CTRUNC)) {
			memcpy(fds, CMSG_DATA(c), 4 * sizeof(int));
			return 0;
		}
		/* the wrong number of fds: close whatever came */
		{
			size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int), i;
			int *p = (int *)CMSG_DATA(c);

			for (i = 0; i < n; i++)
				close(p[i]);
		}
	}
	return -2;
}

/* The runner (a child of the holder, root): request, command, status. */
static void
sudo_run(int fds[4])
{
	struct sudo_req r;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t hdr[4], *body, st[4] = { 0 };
	uint32_t n, sig;
	sigset_t set;
	struct signalfd_siginfo si;
	struct pollfd p[2];
	int sfd, ws, code = 1, i;
	pid_t pid;

	if (sudo_read_all(fds[0], hdr, 4) < 0)
		_exit(1);
	n = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 24;
	if (n > SUDO_REQ_MAX)
		_exit(1);
	body = xmalloc(n == 0 ? 1 : n);
	if (sudo_read_all(fds[0], body, n) < 0 || sudo_req_parse(body, n, &r, &err) < 0) {
		dprintf(fds[3], "sudo: %s\n", err.msg != NULL ? err.msg : "request cut short");
		st[0] = 1;
		(void)sudo_write_all(fds[0], st, 4);
		_exit(1);
	}
	free(body);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if ((sfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0 || (pid = fork()) < 0) {
		dprintf(fds[3], "sudo: cannot start %s: %s\n", r.argv[0], strerror(errno));
		_exit(1);
	}
	if (pid == 0) {
		extern char **environ;

		for (i = 1; i < 4; i++)
			if (dup2(fds[i], i - 1) < 0)
				_exit(126);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		for (i = 1; i < NSIG; i++)
			(void)signal(i, SIG_DFL);
		if (chdir(r.cwd) < 0)
			(void)chdir("/");
		/* Into the terminal's foreground group (sudo's job, same session):
		 * it reads the terminal without SIGTTIN and hears Ctrl-C, Ctrl-Z. */
		{
			pid_t fg = isatty(0) ? tcgetpgrp(0) : -1;

			if (fg > 0)
				(void)setpgid(0, fg);
		}
		/* execvp looks in PATH of environ: root's, from the request */
		environ = r.env;
		execvp(r.argv[0], r.argv);
		fprintf(stderr, "sudo: %s: %s\n", r.argv[0], errno == ENOENT ?
		    "command not found" : strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	for (i = 1; i < 4; i++)
		close(fds[i]);
	p[0] = (struct pollfd){ sfd, POLLIN, 0 };
	p[1] = (struct pollfd){ fds[0], POLLIN, 0 };
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((p[1].revents & POLLIN) && read(fds[0], &sig, sizeof sig) == (ssize_t)sizeof sig &&
		    sig > 0 && sig < NSIG)
			(void)kill(pid, (int)sig);
		else if (p[1].revents & (POLLHUP | POLLERR | POLLIN))
			p[1].fd = -1;	/* the client is gone: the command runs on */
		if ((p[0].revents & POLLIN) && read(sfd, &si, sizeof si) == sizeof si &&
		    waitpid(pid, &ws, WNOHANG) == pid) {
			code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
			break;
		}
	}
	st[0] = (uint8_t)code;
	(void)sudo_write_all(fds[0], st, 4);
	_exit(0);
}

int
esc_sudo_accept(int fd, char *wipe)
{
	int fds[4], i, r;
	pid_t pid;

	if ((r = sudo_recv_fds(fd, fds)) < 0)
		return r == -1 ? -1 : 0;
	if ((pid = fork()) == 0) {
		/* nothing of the holder's but the fds it was handed */
		sigset_t none;

		if (wipe != NULL)
			explicit_bzero(wipe, strlen(wipe));
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (i = 1; i < NSIG; i++)
			(void)signal(i, SIG_DFL);
		(void)signal(SIGPIPE, SIG_IGN);
		sudo_run(fds);
	}
	for (i = 0; i < 4; i++)
		close(fds[i]);
	return pid < 0 ? 0 : (int)pid;
}
