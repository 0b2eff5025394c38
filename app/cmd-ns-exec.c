/* cmd-ns-exec.c - lazaret ns-exec: the hidden step the overlays use instead
 * of `podman unshare`: join the user and mount namespaces of rootless
 * podman's pause process, then exec the command, as `podman unshare` does
 * but without podman's ~60-100 ms start-up (backend/sandbox/overlay.c).
 * Anything that does not look like our own rootless namespace falls back to
 * `podman unshare COMMAND`, so the result is the same, only slower. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "sandbox/pause.h"

#define NSEXEC_USAGE "lazaret ns-exec --pid PID -- COMMAND [ARG]..."

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
	const char *pid;
	char **v;
	int i;

	if (argc < 5 || strcmp(argv[1], "--pid") != 0 || strcmp(argv[3], "--") != 0)
		return cli_usage_error("ns-exec", NSEXEC_USAGE, "missing --pid PID -- COMMAND");
	pid = argv[2];
	if (pid[strspn(pid, "0123456789")] != '\0' || pid[0] == '\0' || strlen(pid) > 10)
		return cli_usage_error("ns-exec", NSEXEC_USAGE, "bad pid '%s'", pid);
	snprintf(uid, sizeof uid, "%lu", (unsigned long)getuid());
	snprintf(gid, sizeof gid, "%lu", (unsigned long)getgid());
	if (pause_is_ours(pid) && ns_exec_join(pid) == 0) {
		/* What podman unshare sets, so a podman run inside does not join again. */
		setenv("_CONTAINERS_USERNS_CONFIGURED", "done", 1);
		setenv("_CONTAINERS_ROOTLESS_UID", uid, 1);
		setenv("_CONTAINERS_ROOTLESS_GID", gid, 1);
		execvp(argv[4], argv + 4);
		fprintf(stderr, "lazaret: ns-exec: cannot run %s: %s\n", argv[4], strerror(errno));
		return errno == ENOENT ? 127 : 126;
	}
	/* Not podman's namespace (pause process gone, pid reused): podman joins it. */
	v = calloc((size_t)argc, sizeof *v);
	if (v == NULL)
		return 125;
	v[0] = (char *)"podman";
	v[1] = (char *)"unshare";
	for (i = 4; i < argc; i++)
		v[i - 2] = argv[i];
	execvp("podman", v);
	fprintf(stderr, "lazaret: ns-exec: cannot run podman: %s\n", strerror(errno));
	free(v);
	return 127;
}
