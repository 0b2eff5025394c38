/* effcfg.h - a domain's effective configuration as one canonical text, and
 * the differences between two (issue 10, item 3: configuration drift).
 *
 * The coordinator builds it at start-up from what it really runs (image id
 * included) and serves it (STATUS_REQ format PROTO_STATUS_CONFIG); a client
 * builds its own from the configuration it loaded and compares. Lines are
 * "KEY\tFIELD[\tFIELD...]" sorted within each key: image, image_id, mode,
 * env NAME HASH (SHA-256 of the value, first 16 hex: values never travel),
 * volume HOST CONTAINER MODE, persist DIR, egress CIDR, limits TEXT.
 */
#ifndef LZ_EFFCFG_H
#define LZ_EFFCFG_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "err.h"

#define EFFCFG_MAX	(256 * 1024)	/* bytes of one text */

/* The text for r (image_id may be NULL: unknown). Caller frees. */
char *effcfg_build(const struct cfg_resolved *r, const char *image_id, const char *mode);

/* text with the allow_egress entry added (once) or removed: a grant for
 * the profile applied at run time, or revoked, is what the domain runs and
 * what its grants file now says. Caller frees. */
char *effcfg_egress_edit(const char *text, const char *entry, bool add);

/* What differs between the running text and ours, one line each naming the
 * configuration key of profile (NULL: "PROFILE") it comes from
 * ("profiles.web.env.GITHUB_TOKEN: a different value", "profiles.web.limits.
 * pids: running 64, yours 128"), NULL-terminated; NULL when they agree. A
 * key missing on one side (an older coordinator) is not a difference. -1
 * with err when running is malformed. */
int effcfg_diff(const char *running, size_t len, const char *ours, const char *profile,
    char ***lines, lz_err_t *err);

#endif
