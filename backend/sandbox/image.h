/* image.h - the default sandbox image, built locally without a registry.
 *
 * `lazaret image build-default` assembles a rootfs from the host's own
 * binaries (busybox-static for the basics, bash, coreutils, git, less, vim)
 * with every shared library ldd lists, then `podman import`s it.
 */
#ifndef LZ_IMAGE_H
#define LZ_IMAGE_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

#define IMAGE_DEFAULT "localhost/lazaret-default:latest"
/* Label set on every image Lazaret builds (lazaret image ls). */
#define IMAGE_LABEL "org.lazaret.image"

/* Build image `name` (IMAGE_DEFAULT when NULL) unless it exists and !force.
 * Progress lines go to progress (may be NULL). */
int image_build_default(const char *name, bool force, FILE *progress, lz_err_t *err);

/* Library paths in `ldd FILE...` output (absolute, de-duplicated, in order
 * of first appearance). Returns the count; caller frees *paths (strv). */
size_t image_ldd_parse(const char *out, char ***paths);

#endif
