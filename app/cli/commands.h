/* commands.h - every user-facing lazaret subcommand (the hidden steps are in
 * steps/steps.h): int cmd_NAME(int argc, char **argv), argv[0] being the
 * subcommand's name; returns the process exit status. */
#ifndef LZ_COMMANDS_H
#define LZ_COMMANDS_H

int cmd_audit(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_debug(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_discard(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_domain(int argc, char **argv);
int cmd_egress(int argc, char **argv);
int cmd_escalations(int argc, char **argv);
int cmd_driver(int argc, char **argv);
int cmd_image(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_sync(int argc, char **argv);

#endif
