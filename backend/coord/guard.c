/* guard.c - the coordinator's guard (see guard.h for why this mechanism).
 *
 * Start: socketpair, fork, the child forks again (so the guard is nobody's
 * zombie) and the grandchild, in a session of its own with stdin/stdout on
 * /dev/null and stderr on the coordinator's log, execs `lazaret guard`. The
 * guard writes GUARD_READY; the coordinator waits for that byte before it
 * creates anything, so no container ever exists unguarded.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coord/guard.h"
#include "coord/lock.h"
#include "coord/reap.h"
#include "sandbox/driver.h"
#include "xmalloc.h"

#define GUARD_START_MS	5000	/* the guard's exec and first byte */
#define GUARD_LOCK_MS	10000	/* the dead coordinator's lock: free at once */

static void __attribute__((format(printf, 1, 2)))
guard_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lz_logv("guard", fmt, ap);
	va_end(ap);
}

/* In the forked child: never returns. */
static void __attribute__((noreturn))
guard_exec(int fd, char *const argv[])
{
	sigset_t none;
	int devnull;

	if (fork() != 0)
		_exit(0);	/* the middle child: the guard is reparented at once */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/* Not in the coordinator's process group: a kill of that group spares it. */
	if (setsid() < 0)
		_exit(127);
	if (fd != 3) {
		if (dup2(fd, 3) < 0)
			_exit(127);
	} else if (fcntl(3, F_SETFD, 0) < 0)
		_exit(127);
	if ((devnull = open("/dev/null", O_RDWR)) < 0 || dup2(devnull, 0) < 0 ||
	    dup2(devnull, 1) < 0)
		_exit(127);
	closefrom(4);
	execv(argv[0], argv);
	_exit(127);
}

int
guard_start(const struct anchor *a, const char *data_root, const char *socket_dir,
    int *fdp, lz_err_t *err)
{
	char exe[PATH_MAX];
	char *argv[] = { exe, (char *)"guard", (char *)"--fd", (char *)"3", (char *)"--profile",
	    a->profile, (char *)"--workspace", a->workspace, (char *)"--data-root",
	    (char *)data_root, (char *)"--socket-dir", (char *)socket_dir, NULL };
	ssize_t n;
	int sv[2], status;
	pid_t pid;

	*fdp = -1;
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) < 0)
		return lz_err_sys(err, errno, "guard: cannot find my own executable");
	exe[n] = '\0';
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return lz_err_sys(err, errno, "guard: socketpair");
	if ((pid = fork()) < 0) {
		close(sv[0]);
		close(sv[1]);
		return lz_err_sys(err, errno, "guard: fork");
	}
	if (pid == 0)
		guard_exec(sv[1], argv);
	close(sv[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*fdp = sv[0];
	return 0;
}

int
guard_ready(int fd, lz_err_t *err)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n = 0;
	char b = 0;
	int r;

	do
		r = poll(&pfd, 1, GUARD_START_MS);
	while (r < 0 && errno == EINTR);
	if (r > 0)
		n = read(fd, &b, 1);
	if (r <= 0 || n != 1 || b != GUARD_READY)
		return lz_err_set(err, ECHILD, "the guard process did not start (lazaret guard)");
	return 0;
}

void
guard_done(int fd)
{
	char b = GUARD_DONE;

	if (fd < 0)
		return;
	(void)!write(fd, &b, 1);
	close(fd);
}

/* The coordinator is gone without GUARD_DONE: clean up after it. */
static int
guard_reap(const struct anchor *a)
{
	_cleanup_free_ char *live = lock_live_path(a);
	lz_err_t err = LZ_ERR_INIT;
	int fd = -1, r, rc = 1;

	guard_log("the coordinator of domain %s is gone without a clean teardown: stopping "
	    "its sandbox", a->hash);
	if (lock_open(live, &fd, &err) < 0)
		goto out;
	if ((r = lock_wait(fd, GUARD_LOCK_MS, &err)) < 0)
		goto out;
	if (r == 0) {
		/* A new coordinator took the domain over: it replaces what is left. */
		guard_log("a new coordinator holds %s: leaving the domain to it", live);
		rc = 0;
		goto out;
	}
	if (reap_domain(a, &podman_ops, "the coordinator died", &err) < 0)
		goto out;
	guard_log("domain %s cleaned up: containers removed, overlays unmounted, sockets and "
	    "TLS files removed", a->hash);
	rc = 0;
out:
	if (err.msg != NULL)
		guard_log("%s", err.msg);
	lz_err_clear(&err);
	if (fd >= 0)
		close(fd);
	return rc;
}

int
guard_main(int fd, const struct anchor *a)
{
	char buf[64], b = GUARD_READY;
	bool done = false;
	ssize_t n, i;

	/* Terminal signals are not ours: only the coordinator's end matters. */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (write(fd, &b, 1) != 1)
		return guard_reap(a);
	for (;;) {
		n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			done |= buf[i] == GUARD_DONE;
	}
	close(fd);
	if (done)
		return 0;
	return guard_reap(a);
}
