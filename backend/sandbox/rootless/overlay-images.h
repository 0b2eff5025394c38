/* overlay-images.h - read containers/storage's images file
 * (<graphroot>/overlay-images/images.json) for the image a name stands for,
 * so that a warm start knows its image without a podman start-up
 * (backend/sandbox/mounts/overlay.c). Pure: bytes in, answer out; fuzzed
 * (tests/fuzz/fuzz-overlay-images.c).
 */
#ifndef LZ_OVERLAY_IMAGES_H
#define LZ_OVERLAY_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define OVERLAY_IMAGES_ID_LEN	64	/* hex digits of an image or layer id */

/* Is ref a name this reader can match exactly (registry/name:tag as podman
 * stores it, e.g. localhost/lazaret-default:latest)? Short names, ids and
 * digests are podman's to resolve. */
bool overlay_images_ref_ok(const char *ref);

/* Find the image whose names list ref exactly in images.json text buf
 * (or the container named ref in containers.json, the same shape).
 * Returns 1 with id and layer (64 hex digits each, NUL-terminated) set, 0
 * when no image has that name (or ref has a character JSON would escape),
 * -1 with err when buf is not an images file. */
int overlay_images_find(const uint8_t *buf, size_t len, const char *ref,
    char id[OVERLAY_IMAGES_ID_LEN + 1], char layer[OVERLAY_IMAGES_ID_LEN + 1], lz_err_t *err);

#endif
