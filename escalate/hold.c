/* hold.c - the session's credential holder (see hold.h and cred-fd.h).
 *
 * Theory of operation: read the credential from the pipe LAZARET_HOLD_FD
 * names (the session's fd 3, from lazaret sandbox-exec) and close it, or
 * take LAZARET_CRED when set by hand, overwriting its bytes in place; fork
 * COMMAND with one end of a socketpair as LAZARET_ESC_FD; then wait
 * on the other end and on a signalfd: answer credential requests, pass
 * SIGTERM and SIGHUP on to COMMAND, leave terminal signals to it (it got
 * them from the terminal too), and exit with its status when it exits.
 *
 * With --user=UID:GID (the agent user, coord-user.c) the holder stays root
 * and COMMAND runs as UID: it gets a second socket, LAZARET_SUDO_FD, on
 * which Lazaret's sudo (sudo.c) asks the holder to run a command as root
 * (runsc sets no_new_privs, so a setuid sudo cannot). A process of UID
 * cannot read the root holder's memory, so the credential stays out of its
 * reach; it only asks for signatures as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
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
#include "sudo.h"
#include "xmalloc.h"

#define ESC_HOLD_FD_MIN	100

struct esc_hold_user {
	bool set;
	uid_t uid;
	gid_t gid;
};

/* --user=UID:GID */
static int
esc_hold_user_parse(const char *s, struct esc_hold_user *u)
{
	unsigned long a, b;
	char *end;

	errno = 0;
	a = strtoul(s, &end, 10);
	if (end == s || *end != ':' || errno != 0 || a > 65535)
		return -1;
	s = end + 1;
	b = strtoul(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || b > 65535)
		return -1;
	u->set = a != 0;
	u->uid = (uid_t)a;
	u->gid = (gid_t)b;
	return 0;
}

/* Become the user for good (groups, gid, uid), with its HOME and names. */
static void
esc_hold_drop(const struct esc_hold_user *u)
{
	struct passwd *pw = getpwuid(u->uid);
	char num[16];

	if (pw == NULL || initgroups(pw->pw_name, u->gid) < 0)
		(void)setgroups(1, &u->gid);
	if (setgid(u->gid) < 0 || setuid(u->uid) < 0 || getuid() != u->uid || geteuid() != u->uid) {
		fprintf(stderr, "lazaret-escalate: cannot become uid %u: %s\n", (unsigned)u->uid,
		    strerror(errno));
		_exit(127);
	}
	snprintf(num, sizeof num, "%u", (unsigned)u->uid);
	setenv("HOME", pw != NULL && pw->pw_dir[0] == '/' ? pw->pw_dir : "/", 1);
	setenv("USER", pw != NULL ? pw->pw_name : num, 1);
	setenv("LOGNAME", pw != NULL ? pw->pw_name : num, 1);
	if (pw != NULL && pw->pw_shell[0] == '/')
		setenv("SHELL", pw->pw_shell, 1);
}

static void
esc_hold_exec(char **argv, const sigset_t *old, int fd, int sudo_fd,
    const struct esc_hold_user *u)
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
	if (sudo_fd >= 0) {
		snprintf(num, sizeof num, "%d", sudo_fd);
		setenv(ESC_SUDO_FD_ENV, num, 1);
	}
	if (u != NULL && u->set)
		esc_hold_drop(u);
	execvp(argv[0], argv);
	fprintf(stderr, "lazaret-escalate: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int
esc_hold_main(int argc, char **argv)
{
	char *v = getenv(LZ_SIGN_ENV_CRED), *hfd = getenv(LZ_CRED_HOLD_ENV), *cred = NULL;
	lz_err_t err = LZ_ERR_INIT;
	struct esc_hold_user user = { 0 };
	sigset_t set, old;
	struct pollfd p[3];
	struct signalfd_siginfo si;
	pid_t pid, w;
	int sv[2] = { -1, -1 }, su[2] = { -1, -1 }, sfd, st, code = 127;
	bool done = false;

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
	if (argc > 0 && strncmp(argv[0], "--user=", 7) == 0) {
		if (esc_hold_user_parse(argv[0] + 7, &user) < 0) {
			fprintf(stderr, "lazaret-escalate: --hold: bad %s (expected --user=UID:GID)\n",
			    argv[0]);
			return 129;
		}
		argc--;
		argv++;
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
	if (user.set && getuid() != 0)
		user.set = false;	/* started as a user already: nothing to drop */
	if (cred == NULL && !user.set)
		esc_hold_exec(argv, &old, -1, -1, NULL);	/* escalation is off: nothing to hold */
	if ((cred != NULL && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) ||
	    (user.set && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, su) < 0)) {
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
		if (cred != NULL)
			explicit_bzero(cred, strlen(cred));
		if (sv[0] >= 0)
			close(sv[0]);
		if (su[0] >= 0)
			close(su[0]);
		close(sfd);
		/* Not CLOEXEC, so COMMAND and what it runs may all ask; high, so
		 * a script's `exec 3<file` does not replace it (and bash -l in
		 * gVisor closed a 3). */
		esc_hold_exec(argv, &old, sv[1] >= 0 ? fcntl(sv[1], F_DUPFD, ESC_HOLD_FD_MIN) : -1,
		    su[1] >= 0 ? fcntl(su[1], F_DUPFD, ESC_HOLD_FD_MIN) : -1, &user);
	}
	if (sv[1] >= 0)
		close(sv[1]);
	if (su[1] >= 0)
		close(su[1]);
	p[0] = (struct pollfd){ sfd, POLLIN, 0 };
	p[1] = (struct pollfd){ sv[0], POLLIN, 0 };	/* fd -1: ignored by poll */
	p[2] = (struct pollfd){ su[0], POLLIN, 0 };
	for (;;) {
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].fd >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    lz_cred_fd_serve(sv[0], cred) < 0)
			p[1].fd = -1;	/* nobody can ask any more; wait for COMMAND */
		if (p[2].fd >= 0 && (p[2].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    esc_sudo_accept(su[0], cred) < 0)
			p[2].fd = -1;
		if (!(p[0].revents & POLLIN) || read(sfd, &si, sizeof si) != sizeof si)
			continue;
		if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP)
			(void)kill(pid, (int)si.ssi_signo);
		if (si.ssi_signo != SIGCHLD)
			continue;
		/* COMMAND, or a sudo runner (reaped, nothing to say) */
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			if (w == pid) {
				code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
				done = true;
			}
		if (done || w < 0)
			break;
	}
	if (cred != NULL) {
		explicit_bzero(cred, strlen(cred));
		free(cred);
	}
	return code;
}
