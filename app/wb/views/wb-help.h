/* wb-help.h - the key help (prefix ?, or ? in the focused panel), in
 * context: first what works where the keys go now (the tab, the side
 * panel's current list, scrollback, the review view), then every key. */
#ifndef LZ_WB_HELP_H
#define LZ_WB_HELP_H

struct wb;

/* Where the keys go now ("the Egress list"): the help page says it in its title. */
const char *wb_help_where(const struct wb *wb);
/* The lines for where the keys go now, then all (every line of all is
 * taken over). lz_strv_free. */
char **wb_help_context(const struct wb *wb, char **all);
/* Open the help page for where the keys go now over everything. */
void wb_help_open(struct wb *wb, char **all);

#endif
