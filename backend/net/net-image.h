/* net-image.h - the network sidecar's image, built locally: FROM scratch,
 * holding lazaret-sidecar and exactly the libraries `ldd` lists for it (the
 * loader, libc, libmnl, libnftnl), no shell, no other file. Tagged with a hash
 * of the binary, so a new build of the sidecar gets a new image. */
#ifndef LZ_NET_IMAGE_H
#define LZ_NET_IMAGE_H

#include <stdio.h>

#include "err.h"

#define NET_IMAGE_REPO	"localhost/lazaret-sidecar"
#define NET_IMAGE_BIN	"/lazaret-sidecar"	/* the binary's path in the image */

/* The image name for the sidecar binary bin ("localhost/lazaret-sidecar:<12
 * hex>"); caller frees. */
int net_image_name(const char *bin, char **name, lz_err_t *err);
/* Build that image unless it exists; *name (caller frees) is its name.
 * Progress lines go to progress (may be NULL). */
int net_image_ensure(const char *bin, char **name, FILE *progress, lz_err_t *err);
/* lazaret-sidecar: PREFIX/libexec/lazaret, or next to lazaret (build tree);
 * caller frees. */
int net_image_bin(char **bin, lz_err_t *err);

#endif
