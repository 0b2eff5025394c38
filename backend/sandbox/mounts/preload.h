/* preload.h - lazaret-statx.so in every sandbox (shim/statx.c).
 *
 * runsc 0.0~20221219 answers statx/fstatat with AT_NO_AUTOMOUNT by EINVAL,
 * which breaks GNU ls, stat, find and du in any Debian image. The shim is
 * bind-mounted read-only at PRELOAD_SO_DST and named by a read-only
 * /etc/ld.so.preload of ours, so every dynamically linked program (sudo's
 * too: ld.so reads that file in secure mode) loads it; the image on disk is
 * not changed. An image's own /etc/ld.so.preload is hidden while it runs.
 */
#ifndef LZ_PRELOAD_H
#define LZ_PRELOAD_H

#include "anchor.h"
#include "err.h"
#include "sandbox/driver.h"

#define PRELOAD_SO_NAME	"lazaret-statx.so"
#define PRELOAD_SO_DST	"/run/lazaret/lazaret-statx.so"
#define PRELOAD_FILE_DST	"/etc/ld.so.preload"

/* Add the shim's two read-only mounts to sp; writes <domain_root>/ld.so.preload. */
int preload_spec(const struct anchor *a, struct drv_spec *sp, lz_err_t *err);
/* The pieces, for doctor --deep: the shim's host path (caller frees), and
 * an ld.so.preload naming PRELOAD_SO_DST written at path. */
int preload_so_path(char **so, lz_err_t *err);
int preload_file_write(const char *path, lz_err_t *err);

#endif
