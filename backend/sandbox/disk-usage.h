/* disk-usage.h - what the disk bound counts (issue 10 item 1, issue 24 item 2).
 *
 * The sum of the blocks of every file and directory under the Domain Root
 * and the container's writable layer, symlinks and other filesystems not
 * followed. The agent writes there as the container's users, and can make a
 * directory mode 000 before it writes into it (root in the sandbox writes
 * through it): the host user cannot read such a directory, so the walk runs
 * in rootless podman's user namespace (`lazaret-exec ns-exec ...
 * disk-usage PATH...`), where it has CAP_DAC_READ_SEARCH over every file
 * the sandbox's uids own. What even that cannot read is counted as
 * unreadable and reported, never silently skipped.
 */
#ifndef LZ_DISK_USAGE_H
#define LZ_DISK_USAGE_H

#include <stdint.h>

#include "err.h"

struct disk_usage {
	uint64_t bytes;		/* st_blocks * 512, summed */
	uint64_t unreadable;	/* directories the walk could not enter */
};

/* Walk each path (NULL-terminated); a missing path counts 0. */
int disk_usage_walk(char *const *paths, struct disk_usage *du, lz_err_t *err);
/* The step's one output line: "bytes=N unreadable=M\n". Caller frees. */
char *disk_usage_format(const struct disk_usage *du);
/* Parse that line (at most len bytes, from a child's stdout). */
int disk_usage_parse(const char *buf, size_t len, struct disk_usage *du, lz_err_t *err);

#endif
