/* cmd-step.c - the coordinator's exec steps by name, for the programs that
 * are run as them: lazaret-exec, and lazaret-workbench as a coordinator. */
#include <stdbool.h>
#include <string.h>

#include "steps.h"

bool
cmd_step(int argc, char **argv, int *rc)
{
	if (argc < 2)
		return false;
	if (strcmp(argv[1], "ns-exec") == 0)
		*rc = cmd_ns_exec(argc - 1, argv + 1);
	else if (strcmp(argv[1], "cgroup-exec") == 0)
		*rc = cmd_cgroup_exec(argc - 1, argv + 1);
	else if (strcmp(argv[1], "sandbox-exec") == 0)
		*rc = cmd_sandbox_exec(argc - 1, argv + 1);
	else if (strcmp(argv[1], "disk-usage") == 0)
		*rc = cmd_disk_usage(argc - 1, argv + 1);
	else
		return false;
	return true;
}
