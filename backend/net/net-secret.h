/* net-secret.h - the credential broker's secrets, read on the host at start
 * and packed for the router (net-secret.c). */
#ifndef LZ_NET_SECRET_H
#define LZ_NET_SECRET_H

#include <stddef.h>

#include "config.h"
#include "err.h"
#include "proto.h"

/* Read every active credential of p (env:, file:, command:), resolve its
 * upstream, read its CA bundle, and build the NETCTL_CRED_SET frame in
 * locked memory: *out (NULL when p has none; free with net_secret_free),
 * *n the entries in it. An error names the entry and its source. */
int net_secret_frame(const struct cfg_profile *p, struct proto_buf **out, size_t *n,
    lz_err_t *err);
/* Wipe and free the frame; NULL is a no-op. */
void net_secret_free(struct proto_buf *);

#endif
