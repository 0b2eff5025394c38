/* wb-cmd.c - the workbench's commands beyond the tab: the dashboard (prefix
 * w), renaming a tab (prefix ,), the command line (prefix :) and reloading
 * the configuration (source-file, SIGHUP). */
#include "wb.h"

void
wb_cmd_action(struct wb *wb, enum wb_keys_action a)
{
	(void)a;
	wb_ui_message(wb, "not yet");
}
