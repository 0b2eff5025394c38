/* esc-reserve.h - room kept on the filesystem of the state store so the
 * audit trail can still record that it ran out of room.
 *
 * Decision (issue 9): a preallocated reserve file next to state.db
 * (state.db.reserve, ESC_RESERVE_BYTES, blocks allocated with fallocate so
 * they are really taken). When an audit row cannot be written the
 * coordinator deletes it: the refusal of the command and the rows that
 * follow fit in the room it frees. Escalations stay refused until the file
 * can be made again (someone freed space), so the reserve is never spent on
 * running commands. A free-space check alone would not do: another writer
 * can fill the disk between the check and the row.
 */
#ifndef LZ_ESC_RESERVE_H
#define LZ_ESC_RESERVE_H

#include "err.h"

#define ESC_RESERVE_BYTES	(4 << 20)

/* Make path (0600) with ESC_RESERVE_BYTES allocated; -1 when there is no
 * room for it (nothing is left behind then). An existing one is kept. */
int esc_reserve_make(const char *path, lz_err_t *err);
/* Give the room back (unlink). */
void esc_reserve_release(const char *path);

#endif
