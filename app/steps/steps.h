/* steps.h - the hidden re-exec steps: the coordinator and its guard (run by
 * lazaret and lazaret-workbench), and the exec steps lazaret-exec runs too.
 * Each is int cmd_NAME(int argc, char **argv), argv[0] being the step's name,
 * returning the process exit status. */
#ifndef LZ_STEPS_H
#define LZ_STEPS_H

#include <stdbool.h>

int cmd_coordinator(int argc, char **argv);
int cmd_guard(int argc, char **argv);
int cmd_cgroup_exec(int argc, char **argv);
int cmd_ns_exec(int argc, char **argv);
int cmd_sandbox_exec(int argc, char **argv);
int cmd_disk_usage(int argc, char **argv);

/* Run argv[1] when it names an exec step (ns-exec, cgroup-exec, sandbox-exec,
 * disk-usage): *rc is its exit status and true is returned; false otherwise. */
bool cmd_step(int argc, char **argv, int *rc);

#endif
