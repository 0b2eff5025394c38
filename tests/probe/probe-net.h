/* probe-net.h - lazaret-probe's network operations (probe-net.c). */
#ifndef LZ_PROBE_NET_H
#define LZ_PROBE_NET_H

/* Run a network operation; -1 when argv[1] is not one (exit status otherwise). */
int probe_net(int argc, char **argv);
/* "ECONNREFUSED" and the like (probe.c). */
const char *probe_errname(int e);

#endif
