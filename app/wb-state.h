/* wb-state.h - the workbench's open tabs, recorded for `lazaret-workbench
 * attach`: $XDG_RUNTIME_DIR/lazaret/workbench.tabs, one tab a line,
 * "session-id TAB mode TAB profile TAB workspace", and "panel TAB shown" or
 * "panel TAB hidden" (the side panel's visibility). Written whole to a
 * temporary file and renamed, so a reader never sees half of it.
 */
#ifndef LZ_WB_STATE_H
#define LZ_WB_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define WB_STATE_MAX	(256u * 1024)	/* larger files are refused */

struct wb_state_tab {
	uint32_t id;
	char *mode;
	char *profile;
	char *workspace;
};

/* The state file's path (caller frees); -1 without XDG_RUNTIME_DIR. */
int wb_state_path(char **path, lz_err_t *err);
/* Read tabs from path; a missing file is no tabs. Bad lines are skipped.
 * *panel: 1 shown, 0 hidden, -1 not recorded. */
int wb_state_read(const char *path, struct wb_state_tab **tabs, size_t *n, int *panel,
    lz_err_t *err);
/* Replace the file with tabs and the panel's visibility (no tabs: remove it). */
int wb_state_write(const char *path, const struct wb_state_tab *tabs, size_t n, bool panel,
    lz_err_t *err);
void wb_state_tabs_free(struct wb_state_tab *tabs, size_t n);

#endif
