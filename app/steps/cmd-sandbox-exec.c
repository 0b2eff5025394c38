/* cmd-sandbox-exec.c - lazaret sandbox-exec: the hidden step a session runs
 * instead of `runsc exec` when the sandbox's runsc is one whose control
 * calls Lazaret knows (backend/sandbox/runsc/runsc-ctl.h, rexec.c): the same
 * three calls runsc exec makes, without its ~30 ms of Go start-up.
 *
 * It reads the OCI process JSON (runsc exec --process) from fd 3, asks the
 * sandbox to start it with our stdin, stdout and stderr, forwards each
 * signal it gets to the command (with a terminal: to the terminal's
 * foreground process group, as runsc exec does, so Ctrl-C, Ctrl-Z and
 * SIGWINCH reach the right job), and exits with the command's status
 * (128+n when a signal ended it). --ctty: stdin, a terminal, becomes our
 * controlling terminal first (the caller made us a session leader). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cli.h"
#include "steps.h"
#include "cred-fd.h"
#include "sandbox/runsc/runsc-call.h"
#include "surface-json.h"
#include "sandbox/runsc/runsc-ctl.h"
#include "sign.h"
#include "xmalloc.h"

#define SBX_USAGE "lazaret sandbox-exec [--ctty] --sandbox ID --container ID  (process JSON on fd 3)"
#define SBX_PROC_MAX	(64u << 10)
#define SBX_CALL_MS	10000	/* ExecuteAsync and Signal answer at once; this is for a hung sandbox */

/* fd 3 to its end, at most SBX_PROC_MAX bytes. */
static int
sbx_read_proc(char **buf, size_t *len)
{
	size_t n = 0;
	ssize_t r;

	*buf = xmalloc(SBX_PROC_MAX + 1);
	while (n <= SBX_PROC_MAX && (r = read(3, *buf + n, SBX_PROC_MAX + 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "lazaret: sandbox-exec: reading the process JSON on fd 3: %s\n",
			    strerror(errno));
			return -1;
		}
		n += (size_t)r;
	}
	close(3);
	if (n > SBX_PROC_MAX) {
		fprintf(stderr, "lazaret: sandbox-exec: the process JSON on fd 3 is over %u bytes\n",
		    SBX_PROC_MAX);
		return -1;
	}
	*len = n;
	return 0;
}

/* The signals we pass on: all but those we cannot catch, our own faults and
 * SIGCHLD (runsc exec passes the same). */
/* A pipe holding secret, its read end returned (the write end closed, so
 * the reader sees EOF after it); -1 after saying why. */
static int
sbx_secret_pipe(const char *secret)
{
	size_t len = strlen(secret);
	int p[2];

	if (len >= LZ_CRED_FD_MAX || pipe2(p, O_CLOEXEC) < 0) {
		fprintf(stderr, "lazaret: sandbox-exec: cannot hand the session its credential: %s\n",
		    len >= LZ_CRED_FD_MAX ? "it is too long" : strerror(errno));
		return -1;
	}
	/* far under a pipe's 64 KiB: never blocks */
	if (write(p[1], secret, len) != (ssize_t)len) {
		fprintf(stderr, "lazaret: sandbox-exec: cannot hand the session its credential: %s\n",
		    strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	return p[0];
}

static void
sbx_forwarded(sigset_t *set)
{
	static const int keep[] = { SIGKILL, SIGSTOP, SIGCHLD, SIGSEGV, SIGBUS, SIGFPE, SIGILL,
		SIGTRAP, SIGSYS, SIGABRT };
	size_t i;

	sigfillset(set);
	for (i = 0; i < sizeof keep / sizeof keep[0]; i++)
		sigdelset(set, keep[i]);
}

static void
sbx_forward(int sfd, const char *sid, const char *cid, int32_t pid, bool tty)
{
	struct signalfd_siginfo si;
	lz_err_t err = LZ_ERR_INIT;
	char *msg, *res = NULL;

	while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
		msg = runsc_ctl_signal_msg(cid, pid, (int)si.ssi_signo, tty);
		/* a command that just ended refuses it: the wait says the rest */
		if (runsc_call(sid, msg, NULL, 0, SBX_CALL_MS, &res, &err) < 0)
			lz_err_clear(&err);
		free(res);
		res = NULL;
		free(msg);
	}
}

/* Wait on the WaitPID call on wfd, forwarding signals meanwhile. */
static int
sbx_wait(int wfd, int sfd, const char *sid, const char *cid, int32_t pid, bool tty)
{
	struct runsc_reply r = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	struct pollfd p[2];
	char *res = NULL;
	int64_t st;
	int rc = 0, code = 125;

	while (rc == 0) {
		p[0].fd = wfd;
		p[0].events = POLLIN;
		p[1].fd = sfd;
		p[1].events = POLLIN;
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			lz_err_sys(&err, errno, "poll");
			break;
		}
		if (p[1].revents != 0)
			sbx_forward(sfd, sid, cid, pid, tty);
		if (p[0].revents != 0)
			rc = runsc_call_read(wfd, &r, &err);
	}
	if (rc == 1 && runsc_ctl_reply(r.buf, r.len, &res, &err) == 0 &&
	    surface_json_int(res, 0, UINT32_MAX, &st, &err) == 0)
		code = runsc_ctl_exit_code((uint32_t)st);
	else
		fprintf(stderr, "lazaret: sandbox-exec: waiting for pid %ld in the sandbox: %s\n",
		    (long)pid, err.msg != NULL ? err.msg : "unknown error");
	free(res);
	runsc_reply_clear(&r);
	lz_err_clear(&err);
	return code;
}

int
cmd_sandbox_exec(int argc, char **argv)
{
	const char *sid = NULL, *cid = NULL;
	lz_err_t err = LZ_ERR_INIT;
	struct runsc_ctl_take take = { LZ_SIGN_ENV_CRED, LZ_CRED_HOLD_ENV "=3", NULL };
	int stdio[4] = { 0, 1, 2, -1 };
	char *proc = NULL, *msg = NULL, *res = NULL, *wmsg = NULL;
	size_t len = 0;
	sigset_t set;
	int64_t pid;
	bool ctty = false, tty;
	int i, rc, sfd = -1, wfd = -1, nul, code = 125;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--ctty") == 0)
			ctty = true;
		else if (strcmp(argv[i], "--sandbox") == 0 && i + 1 < argc)
			sid = argv[++i];
		else if (strcmp(argv[i], "--container") == 0 && i + 1 < argc)
			cid = argv[++i];
		else
			return cli_usage_error("sandbox-exec", SBX_USAGE, "unknown option '%s'", argv[i]);
	}
	if (sid == NULL || cid == NULL)
		return cli_usage_error("sandbox-exec", SBX_USAGE, "missing --sandbox or --container");
	if (ctty && ioctl(0, TIOCSCTTY, 0) < 0) {
		fprintf(stderr, "lazaret: sandbox-exec: cannot take the terminal on stdin as the "
		    "controlling terminal: %s\n", strerror(errno));
		return 125;
	}
	if (sbx_read_proc(&proc, &len) < 0)
		goto out;
	if (runsc_ctl_exec_msg((const uint8_t *)proc, len, cid, &take, &msg, &tty, &err) < 0) {
		fprintf(stderr, "lazaret: sandbox-exec: %s\n", err.msg);
		goto out;
	}
	/* the credential goes in as the command's fd 3, never in its environment */
	if (take.value != NULL && (stdio[3] = sbx_secret_pipe(take.value)) < 0)
		goto out;
	/* blocked before the command starts: a signal meanwhile waits for its pid */
	sbx_forwarded(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
	    (sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		fprintf(stderr, "lazaret: sandbox-exec: signalfd: %s\n", strerror(errno));
		goto out;
	}
	rc = runsc_call(sid, msg, stdio, stdio[3] >= 0 ? 4 : 3, SBX_CALL_MS, &res, &err);
	if (stdio[3] >= 0)
		close(stdio[3]);	/* the sandbox has its own copy now */
	stdio[3] = -1;
	if (rc < 0) {
		if (err.code == EPERM) {
			/* the sandbox refused the command (not found, not executable) */
			fprintf(stderr, "lazaret: cannot run the command in the sandbox: %s\n", err.msg);
			code = runsc_ctl_refused_code(err.msg);
		} else {
			fprintf(stderr, "lazaret: sandbox-exec: %s\n", err.msg);
		}
		goto out;
	}
	if (surface_json_int(res, 1, INT32_MAX, &pid, &err) < 0) {
		fprintf(stderr, "lazaret: sandbox-exec: the sandbox's pid: %s\n", err.msg);
		goto out;
	}
	/* the sandbox holds the command's stdio now; stderr stays for our errors */
	if ((nul = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		close(nul);
	}
	wmsg = runsc_ctl_wait_msg(cid, (int32_t)pid);
	if ((wfd = runsc_call_connect(sid, &err)) < 0 ||
	    runsc_call_send(wfd, wmsg, NULL, 0, &err) < 0) {
		fprintf(stderr, "lazaret: sandbox-exec: waiting for pid %ld: %s\n", (long)pid, err.msg);
		goto out;
	}
	code = sbx_wait(wfd, sfd, sid, cid, (int32_t)pid, tty);
out:
	runsc_ctl_take_clear(&take);
	if (stdio[3] >= 0)
		close(stdio[3]);
	if (proc != NULL)
		explicit_bzero(proc, len);
	if (msg != NULL)
		explicit_bzero(msg, strlen(msg));
	free(proc);
	free(msg);
	free(res);
	free(wmsg);
	if (sfd >= 0)
		close(sfd);
	if (wfd >= 0)
		close(wfd);
	lz_err_clear(&err);
	return code;
}
