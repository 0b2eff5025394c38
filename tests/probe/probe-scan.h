/* probe-scan.h - lazaret-probe scan: look for secrets in every process's
 * environment and command line (probe-scan.c). */
#ifndef LZ_PROBE_SCAN_H
#define LZ_PROBE_SCAN_H

/* argv: "lazaret-probe" "scan" SECONDS HEX... (patterns in hex); the exit status. */
int probe_scan(int argc, char **argv);

#endif
