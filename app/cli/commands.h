/* commands.h - every lazaret subcommand: int cmd_NAME(int argc, char **argv),
 * argv[0] being the subcommand's name; returns the process exit status. */
#ifndef LZ_COMMANDS_H
#define LZ_COMMANDS_H

#include <stdbool.h>

int cmd_audit(int argc, char **argv);
int cmd_cgroup_exec(int argc, char **argv);
int cmd_ns_exec(int argc, char **argv);
int cmd_disk_usage(int argc, char **argv);
int cmd_sandbox_exec(int argc, char **argv);
/* argv[1] is one of the coordinator's exec steps (ns-exec, cgroup-exec, disk-usage,
 * sandbox-exec): run it, *rc its exit status (cmd-step.c). */
bool cmd_step(int argc, char **argv, int *rc);
int cmd_config(int argc, char **argv);
int cmd_coordinator(int argc, char **argv);
int cmd_guard(int argc, char **argv);
int cmd_debug(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_discard(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_domain(int argc, char **argv);
int cmd_egress(int argc, char **argv);
int cmd_driver(int argc, char **argv);
int cmd_image(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_sync(int argc, char **argv);

#endif
