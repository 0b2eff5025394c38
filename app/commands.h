/* commands.h - every lazaret subcommand: int cmd_NAME(int argc, char **argv),
 * argv[0] being the subcommand's name; returns the process exit status. */
#ifndef LZ_COMMANDS_H
#define LZ_COMMANDS_H

int cmd_config(int argc, char **argv);
int cmd_domain(int argc, char **argv);

#endif
