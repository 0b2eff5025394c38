/* cmd-ns-exec.c - lazaret ns-exec: the hidden step the overlays use instead
 * of `podman unshare`: join the user and mount namespaces of rootless
 * podman's pause process, then exec the command, as `podman unshare` does
 * but without podman's ~60-100 ms start-up (backend/sandbox/mounts/overlay.c).
 * Anything that does not look like our own rootless namespace falls back to
 * `podman unshare COMMAND`, so the result is the same, only slower.
 * --ctty: make stdin (a terminal) the controlling terminal first, so that
 * the terminal's signals (Ctrl-C, Ctrl-Z, SIGWINCH) reach the command's
 * process group (a session's `runsc exec`, which forwards them inside). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "steps.h"
#include "sandbox/rootless/pause.h"

#define NSEXEC_USAGE "lazaret ns-exec [--ctty] --pid PID -- COMMAND [ARG]..."

/* Join pid's user then mount namespace; -1 leaves us where we were. */
static int
ns_exec_join(const char *pid)
{
	char path[64];
	int ufd = -1, mfd = -1, ret = -1;

	snprintf(path, sizeof path, "/proc/%s/ns/user", pid);
	ufd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof path, "/proc/%s/ns/mnt", pid);
	mfd = open(path, O_RDONLY | O_CLOEXEC);
	if (ufd < 0 || mfd < 0 || setns(ufd, CLONE_NEWUSER) < 0)
		goto out;
	if (setns(mfd, CLONE_NEWNS) < 0) {
		/* Half joined: only exec from here, never run the command. */
		fprintf(stderr, "lazaret: ns-exec: cannot join the mount namespace of %s: %s\n",
		    pid, strerror(errno));
		_exit(125);
	}
	ret = 0;
out:
	if (ufd >= 0)
		close(ufd);
	if (mfd >= 0)
		close(mfd);
	return ret;
}

int
cmd_ns_exec(int argc, char **argv)
{
	char uid[32], gid[32];
	const char *pid = NULL;
	char **v, **cmd;
	bool ctty = false;
	int i, n;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--ctty") == 0)
			ctty = true;
		else if (strcmp(argv[i], "--pid") == 0 && i + 1 < argc)
			pid = argv[++i];
		else
			return cli_usage_error("ns-exec", NSEXEC_USAGE, "unknown option '%s'", argv[i]);
	}
	if (pid == NULL || i + 1 >= argc)
		return cli_usage_error("ns-exec", NSEXEC_USAGE, "missing --pid PID -- COMMAND");
	cmd = argv + i + 1;
	if (pid[strspn(pid, "0123456789")] != '\0' || pid[0] == '\0' || strlen(pid) > 10)
		return cli_usage_error("ns-exec", NSEXEC_USAGE, "bad pid '%s'", pid);
	/* the caller made us a session leader (setsid) with the terminal on fd 0 */
	if (ctty && ioctl(0, TIOCSCTTY, 0) < 0) {
		fprintf(stderr, "lazaret: ns-exec: cannot take the terminal on stdin as the "
		    "controlling terminal: %s\n", strerror(errno));
		return 125;
	}
	snprintf(uid, sizeof uid, "%lu", (unsigned long)getuid());
	snprintf(gid, sizeof gid, "%lu", (unsigned long)getgid());
	if (pause_is_ours(pid) && ns_exec_join(pid) == 0) {
		/* What podman unshare sets, so a podman run inside does not join again. */
		setenv("_CONTAINERS_USERNS_CONFIGURED", "done", 1);
		setenv("_CONTAINERS_ROOTLESS_UID", uid, 1);
		setenv("_CONTAINERS_ROOTLESS_GID", gid, 1);
		execvp(cmd[0], cmd);
		fprintf(stderr, "lazaret: ns-exec: cannot run %s: %s\n", cmd[0], strerror(errno));
		return errno == ENOENT ? 127 : 126;
	}
	/* Not podman's namespace (pause process gone, pid reused): podman joins it. */
	for (n = 0; cmd[n] != NULL; n++)
		;
	v = calloc((size_t)n + 3, sizeof *v);
	if (v == NULL)
		return 125;
	v[0] = (char *)"podman";
	v[1] = (char *)"unshare";
	for (i = 0; i < n; i++)
		v[i + 2] = cmd[i];
	execvp("podman", v);
	fprintf(stderr, "lazaret: ns-exec: cannot run podman: %s\n", strerror(errno));
	free(v);
	return 127;
}
