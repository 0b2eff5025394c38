/* runsc-version.h - which runsc a sandbox runs, for runsc_ctl_known. */
#ifndef LZ_RUNSC_VERSION_H
#define LZ_RUNSC_VERSION_H

#include <stdint.h>

#include "err.h"

/* The first line of `runsc --version` of the runsc that sandbox process pid
 * runs (/proc/PID/exe), cached per binary (device, inode, size, mtime) in
 * $XDG_RUNTIME_DIR/lazaret/runsc-version, so it is asked once. */
int runsc_version_of(int64_t pid, char **line, lz_err_t *err);

#endif
