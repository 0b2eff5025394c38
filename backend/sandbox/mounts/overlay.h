/* overlay.h - the State Anchor (spec 4.1): a profile's persistent_dirs
 * (/usr, /var, ...) as fuse-overlayfs mounts whose writable layer lives in
 * the Domain Root, so what the agent installs survives container restarts.
 *
 * The mounts are made inside `podman unshare` (podman's rootless mount
 * namespace, the only one that sees `podman image mount`), lower layer = the
 * image's own directory; the container gets bind mounts of the merged dirs.
 * See overlay.c for the theory of operation.
 */
#ifndef LZ_OVERLAY_H
#define LZ_OVERLAY_H

#include <stdbool.h>
#include <stddef.h>

#include "anchor.h"
#include "sandbox/driver.h"
#include "err.h"

/* Mount (or reuse) one overlay per dir of image for anchor a and return the
 * binds merged -> dir in podman order (*mounts freed by the caller with
 * drv_mount_clear on each, then free). n == 0 needs no podman at all.
 * Idempotent: a healthy mount over the same image is reused; a stale one
 * (crash) or one over an older image is unmounted and made again. */
int overlay_mount(const struct anchor *a, const char *image, char *const *dirs, size_t n,
    struct drv_mount **mounts, size_t *n_mounts, lz_err_t *err);

/* Unmount every overlay of anchor a; the writable layers are kept. With
 * release_image, also release the image mount and forget it; without (a
 * sandbox's teardown), the image stays mounted in podman's namespace so the
 * next start finds it without podman. Idempotent (nothing mounted is fine),
 * also after a crash. */
int overlay_unmount(const struct anchor *a, bool release_image, lz_err_t *err);

/* The image mount the overlays of anchor a sit on (in podman's namespace),
 * from their record; NULL when none. Caller frees. */
char *overlay_image_mount(const struct anchor *a);
/* The directory name under <domain_root>/overlay/ for container dir
 * ("/usr/local" -> "usr-local"; '-', '_' and other bytes escaped as _XX so
 * two dirs never share one). Caller frees. */
char *overlay_dir_name(const char *dir);

/* Check a persistent dir: absolute, normalised, not "/", not below /proc,
 * /sys, /dev, /workspace or /run/lazaret. */
int overlay_dir_check(const char *dir, lz_err_t *err);


#endif
