/* mountinfo.h - the mount points in /proc/PID/mountinfo text (the overlays
 * read podman's namespace's; storage.c finds podman's graphroot there). */
#ifndef LZ_MOUNTINFO_H
#define LZ_MOUNTINFO_H

#include <stdbool.h>

/* Is path a mount point in mountinfo text (/proc/PID/mountinfo format,
 * octal escapes decoded)? */
bool mountinfo_has(const char *mountinfo, const char *path);

/* The mount point of the mountinfo line at *line (decoded; caller frees),
 * *line moved on to the next line; NULL at the end, "" for a malformed line. */
char *mountinfo_next(const char **line);

#endif
