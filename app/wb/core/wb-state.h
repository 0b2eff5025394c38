/* wb-state.h - the workbench's open tabs, recorded for `lazaret-workbench
 * attach`: $XDG_RUNTIME_DIR/lazaret/workbench.tabs, one tab a line,
 * "session-id TAB mode TAB profile TAB workspace", with "TAB name" after it
 * for a tab the user named (prefix ,), and "panel TAB shown" or
 * "panel TAB hidden" (the side panel's visibility). Written whole to a
 * temporary file and renamed, so a reader never sees half of it.
 */
#ifndef LZ_WB_STATE_H
#define LZ_WB_STATE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What `attach -d` sends the workbench attached: detach (tmux attach -d). */
#define WB_STATE_DETACH_SIG	SIGUSR1

#include "err.h"

#define WB_STATE_MAX	(256u * 1024)	/* larger files are refused */
#define WB_STATE_TITLE_MAX	256	/* bytes of a tab's name (32 columns of UTF-8, with room) */

struct wb_state_tab {
	uint32_t id;
	char *mode;
	char *profile;
	char *workspace;
	char *title;		/* the user's name for the tab, or NULL */
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

#define WB_STATE_MAIN	"main"		/* the session without -s */
#define WB_STATE_NAME_MAX	32

/* The state file of workbench session name (WB_STATE_MAIN: the plain one):
 * $LAZARET_WORKBENCH_STATE or the default path, with ".NAME" after it for
 * other names. -1 for a name that is not [A-Za-z0-9_-]{1,32}. */
int wb_state_session_path(const char *name, char **path, lz_err_t *err);
/* Hold session name's lock (path + ".lock", our pid in it) for this
 * process's life: one workbench drives a session. Held elsewhere: an error
 * naming the pid, or with take_over that workbench is sent SIGHUP (it
 * detaches) and the lock taken when it lets go. Returns the fd. */
int wb_state_lock(const char *path, const char *name, bool take_over, lz_err_t *err);
/* Print the sessions (name, tabs, attached or detached) like tmux ls. */
int wb_state_list(FILE *out, lz_err_t *err);

#endif
