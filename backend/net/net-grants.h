/* net-grants.h - a profile's persisted grants ("approve --scope profile") as
 * the coordinator and `lazaret egress grants/revoke` use them: the file, its
 * entries with their reach, adding and removing one. A seam over the grants
 * file module, so the callers do not depend on its layout.
 */
#ifndef LZ_NET_GRANTS_H
#define LZ_NET_GRANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "err.h"
#include "netreq.h"

/* The grants file of profile for the loaded configuration; caller frees. */
int net_grants_path(const struct cfg *cfg, const char *profile, char **out, lz_err_t *err);
/* Every grant with its 1-based index, note (when, who, why) and reach; *out owned (free()). A
 * missing file is no grants. */
int net_grants_list(const char *path, struct netreq_grant **out, size_t *n, lz_err_t *err);
/* Add entry (canonical) with a note saying when, who and why; *added false
 * when it was there already. */
int net_grants_add(const char *path, const char *entry, const char *who, const char *why,
    bool *added, lz_err_t *err);
/* Remove the grant what names (its entry, or "#N"/"N" its index); *removed
 * (owned) says which. ENOENT when none matches. */
int net_grants_remove(const char *path, const char *what, char **removed, lz_err_t *err);

#endif
