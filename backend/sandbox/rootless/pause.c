/* pause.c - find rootless podman's pause process and read its mount table.
 * The checks are those `podman unshare` would need to hold: a pid whose user
 * namespace is a child of ours mapping our uid to root. A stale pause.pid
 * (pid reused by another process of ours) fails them, and the callers fall
 * back to podman itself. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prefix.h"
#include "sandbox/rootless/pause.h"
#include "strv.h"
#include "xmalloc.h"

#define PAUSE_MOUNTINFO_MAX	(8u * 1024 * 1024)	/* bytes: a few thousand mounts */

int
pause_pid(char pid[PAUSE_PID_MAX])
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	_cleanup_free_ char *path = NULL;
	size_t len;
	FILE *f;

	pid[0] = '\0';
	if (rt == NULL || rt[0] != '/')
		return -1;
	path = xasprintf("%s/libpod/tmp/pause.pid", rt);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	len = fread(pid, 1, PAUSE_PID_MAX - 1, f);
	fclose(f);
	pid[len] = '\0';
	pid[strcspn(pid, "\n")] = '\0';
	if (pid[0] == '\0' || pid[strspn(pid, "0123456789")] != '\0') {
		pid[0] = '\0';
		return -1;
	}
	return 0;
}

bool
pause_is_ours(const char *pid)
{
	char path[64], buf[128];
	struct stat a, b;
	unsigned long in, out, n;
	bool ok;
	FILE *f;

	if (pid[0] == '\0' || pid[strspn(pid, "0123456789")] != '\0' || strlen(pid) > 10)
		return false;
	snprintf(path, sizeof path, "/proc/%s/ns/user", pid);
	if (stat(path, &a) < 0 || stat("/proc/self/ns/user", &b) < 0 || a.st_ino == b.st_ino)
		return false;
	snprintf(path, sizeof path, "/proc/%s", pid);
	if (stat(path, &a) < 0 || a.st_uid != getuid())
		return false;
	snprintf(path, sizeof path, "/proc/%s/uid_map", pid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	ok = fgets(buf, sizeof buf, f) != NULL && sscanf(buf, "%lu %lu %lu", &in, &out, &n) == 3 &&
	    in == 0 && out == (unsigned long)getuid() && n == 1;
	fclose(f);
	return ok;
}

char *
pause_mountinfo(void)
{
	char pid[PAUSE_PID_MAX], path[64];
	_cleanup_close_ int fd = -1;
	size_t len = 0, cap = 65536;
	char *buf;
	ssize_t r;

	if (pause_pid(pid) < 0 || !pause_is_ours(pid))
		return NULL;
	snprintf(path, sizeof path, "/proc/%s/mountinfo", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	buf = xmalloc(cap + 1);
	for (;;) {
		if (len == cap) {
			if (cap >= PAUSE_MOUNTINFO_MAX) {
				free(buf);
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	return buf;
}

int
pause_exec_prefix(char ***argv)
{
	char pid[PAUSE_PID_MAX], *exe;

	if (pause_pid(pid) < 0 || (exe = lz_prefix_exec_helper()) == NULL)
		return -1;
	lz_strv_push(argv, exe);
	free(exe);
	lz_strv_push(argv, "ns-exec");
	lz_strv_push(argv, "--pid");
	lz_strv_push(argv, pid);
	lz_strv_push(argv, "--");
	return 0;
}
