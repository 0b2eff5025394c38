/* storage.h - what podman's storage (containers/storage, overlay driver)
 * says about a name, read from its own files instead of a podman start-up:
 * <graphroot>/overlay-images/images.json and
 * <graphroot>/overlay-containers/containers.json. The graphroot is found from
 * a mount podman made (<graphroot>/overlay/<layer>/merged). Any doubt is an
 * answer of "unknown", and the caller asks podman.
 */
#ifndef LZ_STORAGE_H
#define LZ_STORAGE_H

#include "sandbox/rootless/overlay-images.h"

/* The graphroot of the overlay mount mp (G of G/overlay/<layer>/merged), or
 * NULL. Caller frees. */
char *storage_graphroot_of(const char *mp);

/* The graphroot of the first overlay mount in mountinfo text, or NULL. */
char *storage_graphroot(const char *mountinfo);

/* Look name up in G/overlay-<kind>/<kind>.json, kind "images" or
 * "containers" (a file of ours, at most SURFACE_JSON_MAX bytes). Returns 1
 * with id and layer set, 0 when not there or the file cannot be read. */
int storage_lookup(const char *graphroot, const char *kind, const char *name,
    char id[OVERLAY_IMAGES_ID_LEN + 1], char layer[OVERLAY_IMAGES_ID_LEN + 1]);

/* storage_lookup in the graphroot of podman's namespace (found from the
 * pause process's mount table): name an image ("images") or a container
 * ("containers"). Returns 1 with *graphroot (caller frees), id and layer
 * set; 0 when unknown (no pause process, no overlay mount, not listed). */
int storage_find(const char *kind, const char *name, char **graphroot,
    char id[OVERLAY_IMAGES_ID_LEN + 1], char layer[OVERLAY_IMAGES_ID_LEN + 1]);

#endif
