/* uidmap.h - the agent user (uid 1000) on host-owned directories.
 *
 * Rootless podman maps the sandbox's root to the host user and its uid N to
 * a subuid, and this runsc starts only under that mapping (docs/images.md),
 * so a uid 1000 agent would create subuid-owned files in /workspace and could
 * not write the host user's. A bindfs with --map=0/UID:@0/@GID, mounted in
 * podman's namespace like the overlays, shows the host user's files as UID
 * and turns UID's files back into the host user's. See uidmap.c.
 */
#ifndef LZ_UIDMAP_H
#define LZ_UIDMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "anchor.h"
#include "err.h"

/* Mount src (a host directory) at <domain_root>/overlay/-uidmap-NAME/merged
 * with the sandbox's uid and gid mapped onto the host user's; *mnt (caller
 * frees) is what the container binds instead of src. A mount left by an
 * earlier run is replaced. overlay_unmount takes these down with the
 * overlays (the guard too). */
int uidmap_mount(const struct anchor *a, const char *name, const char *src, unsigned uid,
    unsigned gid, char **mnt, lz_err_t *err);

/* The image's /etc/passwd as the sandbox will see it: the /etc State
 * Anchor's upper copy when the agent changed it, else the image mount the
 * overlays took (image_mount), read through the pause process's root; NULL
 * when there is none (no persistent dirs) or it is unreadable. Caller frees. */
char *uidmap_image_passwd(const struct anchor *a, const char *image_mount);

#endif
