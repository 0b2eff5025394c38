/* podman-ns.c - the way into rootless podman's namespaces without podman
 * (podman-ns.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/podman-ns.h"
#include "strv.h"
#include "xmalloc.h"

int
podman_ns_prefix(char ***argv)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	char exe[PATH_MAX], pid[16];
	_cleanup_free_ char *path = NULL;
	ssize_t n;
	size_t len;
	FILE *f;

	if (rt == NULL || rt[0] != '/' || (n = readlink("/proc/self/exe", exe, sizeof exe - 1)) < 0)
		return -1;
	exe[n] = '\0';
	path = xasprintf("%s/libpod/tmp/pause.pid", rt);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	len = fread(pid, 1, sizeof pid - 1, f);
	fclose(f);
	pid[len] = '\0';
	pid[strcspn(pid, "\n")] = '\0';
	if (pid[0] == '\0' || pid[strspn(pid, "0123456789")] != '\0')
		return -1;
	lz_strv_push(argv, exe);
	lz_strv_push(argv, "ns-exec");
	lz_strv_push(argv, "--pid");
	lz_strv_push(argv, pid);
	return 0;
}
