/* cmd-cgroup-exec.c - lazaret cgroup-exec: the hidden step the coordinator
 * puts before `podman run`: join each given cgroup, then exec the command,
 * so that podman, conmon and the runtime (and every task they start) are
 * counted against the domain's limits (backend/sandbox/limits.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "steps.h"

#define CGEXEC_USAGE "lazaret cgroup-exec --cgroup DIR [--cgroup DIR]... -- COMMAND [ARG]..."

int
cmd_cgroup_exec(int argc, char **argv)
{
	char pid[32];
	int i, fd, n;

	n = snprintf(pid, sizeof pid, "%ld", (long)getpid());
	for (i = 1; i + 1 < argc && strcmp(argv[i], "--cgroup") == 0; i += 2) {
		char path[4096];

		if (argv[i + 1][0] != '/' || snprintf(path, sizeof path, "%s/cgroup.procs",
		    argv[i + 1]) >= (int)sizeof path)
			return cli_usage_error("cgroup-exec", CGEXEC_USAGE, "bad cgroup '%s'",
			    argv[i + 1]);
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 || write(fd, pid, (size_t)n) != n) {
			fprintf(stderr, "lazaret: cannot join cgroup %s: %s\n", argv[i + 1],
			    strerror(errno));
			return 125;
		}
		close(fd);
	}
	if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc)
		return cli_usage_error("cgroup-exec", CGEXEC_USAGE, "missing -- COMMAND");
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "lazaret: cannot run %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
}
