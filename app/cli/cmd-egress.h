/* cmd-egress.h - what cmd-egress.c (the log, allow/deny) and cmd-egress-req.c
 * (requests, decisions, grants) share. */
#ifndef LZ_CMD_EGRESS_H
#define LZ_CMD_EGRESS_H

#include <stdbool.h>

#include "anchor.h"
#include "client.h"
#include "config.h"
#include "err.h"

/* The requests the coordinator keeps (pending first), then live when following. */
int egress_pending(struct client *cl, bool json, bool follow, lz_err_t *err);
/* Answer request idtext with scope (NETREQ_SCOPE_*); a broad grant needs
 * yes_broad, or the pattern typed again at a terminal. */
int egress_decide(struct client *cl, const char *idtext, int scope, const char *widen,
    bool yes_broad, lz_err_t *err);
/* The profile's saved grants, through the coordinator or from the file (cl NULL). */
int egress_grants(struct client *cl, const struct cfg *cfg, const char *profile, bool json,
    lz_err_t *err);
int egress_revoke(struct client *cl, const struct cfg *cfg, const struct anchor *a,
    const char *what, lz_err_t *err);

#endif
