/* probe-fork.h - lazaret-probe fork-as: processes under several uids
 * against the pids limit (probe-fork.c). */
#ifndef LZ_PROBE_FORK_H
#define LZ_PROBE_FORK_H

/* argv: "lazaret-probe" "fork-as" SECONDS UID...; the exit status. */
int probe_fork_as(int argc, char **argv);

#endif
