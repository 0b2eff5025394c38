/* net-hostaddr.h - every address of the host itself (all interfaces, IPv4 and
 * IPv6), kept current from rtnetlink address events (libmnl).
 *
 * Why: slirp4netns connects from the host's own namespace, so an address of
 * the host (its LAN address, a bridge, a veth) reaches the host's services
 * from the sandbox. The router guards these addresses like 10.0.2.2: a name
 * that resolves to one is refused, never asked about (issue 24). The router
 * lives in another namespace and cannot see them; the coordinator can.
 */
#ifndef LZ_NET_HOSTADDR_H
#define LZ_NET_HOSTADDR_H

#include <stddef.h>
#include <uv.h>

#include "err.h"

#define NET_HOSTADDR_MAX	1024	/* addresses kept (NETCTL_MAX_ENTRIES) */
#define NET_HOSTADDR_SETTLE_MS	20	/* events within this are read as one change */

struct net_hostaddr;

/* Read the host's addresses now and follow changes on loop; cb runs after
 * each change of the list (not for the first read). */
int net_hostaddr_new(uv_loop_t *loop, void (*cb)(void *arg), void *arg,
    struct net_hostaddr **out, lz_err_t *err);
/* The current list, text form, sorted, loopback left out (the namespace's own
 * loopback is another); owned by h, valid until the next change. */
char *const *net_hostaddr_list(const struct net_hostaddr *h, size_t *n);
/* Read the addresses into a new sorted vector (lz_strv_free); a one-shot
 * for tests and for `lazaret doctor`. */
int net_hostaddr_read(char ***out, size_t *n, lz_err_t *err);
/* Close its handles (in the loop's shutdown); freed once they are closed.
 * NULL is a no-op. */
void net_hostaddr_close(struct net_hostaddr *h);

#endif
