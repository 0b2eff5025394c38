/* cmd-disk-usage.c - lazaret disk-usage: the hidden step the disk watchdog
 * runs inside rootless podman's user namespace (after ns-exec), where a
 * directory the agent made mode 000 is still readable: one line,
 * "bytes=N unreadable=M" (backend/sandbox/disk-usage.h). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "steps.h"
#include "sandbox/disk-usage.h"

#define DU_USAGE "lazaret disk-usage PATH..."

int
cmd_disk_usage(int argc, char **argv)
{
	struct disk_usage du;
	lz_err_t err = LZ_ERR_INIT;
	char *line;
	int i;

	if (argc < 2)
		return cli_usage_error("disk-usage", DU_USAGE, "missing PATH");
	for (i = 1; i < argc; i++)
		if (argv[i][0] != '/')
			return cli_usage_error("disk-usage", DU_USAGE, "'%s' is not an absolute path",
			    argv[i]);
	if (disk_usage_walk(argv + 1, &du, &err) < 0) {
		fprintf(stderr, "lazaret: disk-usage: %s\n", err.msg);
		lz_err_clear(&err);
		return 1;
	}
	line = disk_usage_format(&du);
	fputs(line, stdout);
	free(line);
	return fflush(stdout) == 0 ? 0 : 1;
}
