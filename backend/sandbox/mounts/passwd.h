/* passwd.h - /etc/passwd text as data (an image's, which the agent may have
 * changed): which uids it has. */
#ifndef LZ_PASSWD_H
#define LZ_PASSWD_H

#include <stdbool.h>
#include <stddef.h>

/* Does passwd text (len bytes, no NUL needed) have an entry for uid? Sets
 * *gid to its group. Lines that are not name:pw:uid:gid... are skipped. */
bool passwd_find(const char *buf, size_t len, unsigned uid, unsigned *gid);

#endif
