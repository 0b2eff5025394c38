/* lazaret-exec.c - the coordinator's exec steps as a small static program:
 * `lazaret-exec ns-exec|cgroup-exec|sandbox-exec|disk-usage ARGS`, the same
 * steps as `lazaret STEP ARGS` (cmd-ns-exec.c, cmd-cgroup-exec.c,
 * cmd-sandbox-exec.c, cmd-disk-usage.c), without loading lazaret's fourteen libraries: each
 * step starts in ~0.7 ms instead of ~3, and a cold start runs three of them
 * one after another (the /usr overlay's mount, podman run, the first
 * session). Installed in PREFIX/libexec/lazaret (prefix.h); the coordinator
 * runs itself instead when it is missing. */
#include <stdio.h>

#include "steps.h"

int
main(int argc, char **argv)
{
	int rc;

	if (cmd_step(argc, argv, &rc))
		return rc;
	fprintf(stderr, "lazaret-exec: '%s' is not a step; this is the coordinator's helper: "
	    "ns-exec, cgroup-exec, sandbox-exec or disk-usage\n", argc > 1 ? argv[1] : "");
	return 129;
}
