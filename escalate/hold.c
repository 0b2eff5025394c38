/* hold.c - the session's credential holder (see hold.h and cred-fd.h).
 *
 * Theory of operation: read the credential from the pipe LAZARET_HOLD_FD
 * names (the session's fd 3, from lazaret sandbox-exec) and close it, or
 * take LAZARET_CRED when set by hand, overwriting its bytes in place; fork
 * COMMAND with one end of a socketpair as LAZARET_ESC_FD; then wait
 * on the other end and on a signalfd: answer credential requests, pass
 * SIGTERM and SIGHUP on to COMMAND, leave terminal signals to it (it got
 * them from the terminal too), and exit with its status when it exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cred-fd.h"
#include "hold.h"
#include "sign.h"
#include "xmalloc.h"

#define ESC_HOLD_FD_MIN	100

static void
esc_hold_exec(char **argv, const sigset_t *old, int fd)
{
	char num[16];
	int sig;

	for (sig = 1; sig < NSIG; sig++)
		(void)signal(sig, SIG_DFL);	/* ignored ones would stay ignored */
	sigprocmask(SIG_SETMASK, old, NULL);
	if (fd >= 0) {
		snprintf(num, sizeof num, "%d", fd);
		setenv(LZ_CRED_FD_ENV, num, 1);
	}
	execvp(argv[0], argv);
	fprintf(stderr, "lazaret-escalate: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int
esc_hold_main(int argc, char **argv)
{
	char *v = getenv(LZ_SIGN_ENV_CRED), *hfd = getenv(LZ_CRED_HOLD_ENV), *cred = NULL;
	lz_err_t err = LZ_ERR_INIT;
	sigset_t set, old;
	struct pollfd p[2];
	struct signalfd_siginfo si;
	pid_t pid;
	int sv[2], sfd, st, np = 2, code = 127;

	(void)prctl(PR_SET_DUMPABLE, 0);	/* Linux hides environ, fd and mem then */
	if (hfd != NULL) {
		/* the way Lazaret starts sessions: the credential on an inherited pipe */
		int r = lz_cred_fd_take(hfd, &cred, &err);

		unsetenv(LZ_CRED_HOLD_ENV);
		if (r < 0) {
			fprintf(stderr, "lazaret-escalate: %s\n", err.msg);
			lz_err_clear(&err);
			return 127;
		}
	} else if (v != NULL) {
		/* set by hand (tests, host tools); Lazaret itself never does */
		cred = xstrdup(v);
		explicit_bzero(v, strlen(v));
		unsetenv(LZ_SIGN_ENV_CRED);
	}
	if (argc > 0 && strcmp(argv[0], "--") == 0) {
		argc--;
		argv++;
	}
	if (argc < 1) {
		fputs("usage: lazaret-escalate --hold [--] COMMAND [ARG...]\n", stderr);
		return 129;
	}
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, &old);
	if (cred == NULL)
		esc_hold_exec(argv, &old, -1);	/* escalation is off: nothing to hold */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		fprintf(stderr, "lazaret-escalate: socketpair: %s\n", strerror(errno));
		return 127;
	}
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	/* Terminal signals are COMMAND's; the holder must outlive them. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	if ((sfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0 || (pid = fork()) < 0) {
		fprintf(stderr, "lazaret-escalate: cannot start %s: %s\n", argv[0], strerror(errno));
		return 127;
	}
	if (pid == 0) {
		explicit_bzero(cred, strlen(cred));
		close(sv[0]);
		close(sfd);
		/* Not CLOEXEC, so COMMAND and what it runs may all ask; high, so
		 * a script's `exec 3<file` does not replace it (and bash -l in
		 * gVisor closed a 3). */
		esc_hold_exec(argv, &old, fcntl(sv[1], F_DUPFD, ESC_HOLD_FD_MIN));
	}
	close(sv[1]);
	p[0] = (struct pollfd){ sfd, POLLIN, 0 };
	p[1] = (struct pollfd){ sv[0], POLLIN, 0 };
	for (;;) {
		if (poll(p, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (np == 2 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    lz_cred_fd_serve(sv[0], cred) < 0)
			np = 1;	/* nobody can ask any more; wait for COMMAND */
		if (!(p[0].revents & POLLIN) || read(sfd, &si, sizeof si) != sizeof si)
			continue;
		if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP)
			(void)kill(pid, (int)si.ssi_signo);
		if (si.ssi_signo == SIGCHLD && waitpid(pid, &st, WNOHANG) == pid) {
			code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
	}
	explicit_bzero(cred, strlen(cred));
	free(cred);
	return code;
}
