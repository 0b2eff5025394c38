/* net-build.h - the network of a kit's image build: a Network Sidecar of
 * its own whose router lets through only the entries the build declares (the
 * Debian mirror's hosts, the npm registry), default deny for the rest, as a
 * domain's. A child process keeps the sidecar for as long as the build runs
 * (its loop answers the router); the build's programs enter the sidecar's
 * network namespace from podman's user namespace, the router as their only
 * resolver.
 */
#ifndef LZ_NET_BUILD_H
#define LZ_NET_BUILD_H

#include <stddef.h>

#include "err.h"

struct net_build;

/* Start the sidecar for policy (allow_egress entries) and wait until its
 * rules are in place. dir: an existing directory of the build's (it names
 * the sidecar); socket_dir, data_root: the user's, as a domain's. */
int net_build_up(const char *dir, char *const *policy, size_t n, const char *data_root,
    const char *socket_dir, struct net_build **out, lz_err_t *err);
/* argv before a program's own: run it inside (podman unshare, a mount
 * namespace with the router's resolv.conf, nsenter). Owned by nb. */
char *const *net_build_wrap(const struct net_build *);
/* The sidecar container's name. */
const char *net_build_name(const struct net_build *);
/* The sidecar's network namespace (/proc/PID/ns/net), for podman build. */
const char *net_build_netns(const struct net_build *);
/* Take the sidecar down and wait for it; NULL is a no-op. */
void net_build_down(struct net_build *);

#endif
