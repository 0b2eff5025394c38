/* wb-help.c - the key help in context (see wb-help.h): a daily user of
 * lazygit or k9s presses ? and first reads what works in the panel in
 * front of them; the whole table follows, and / searches it. */
#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "wb.h"
#include "wb-help.h"
#include "xmalloc.h"

static const char *const wb_help_tab[] = {
	"every key goes to the tab's program, except the prefix (see below)",
	"prefix Tab  the side panel      prefix t  what this tab's agent did (timeline)",
	"prefix [    scroll back         prefix R  review the agent's commits",
	NULL,
};
static const char *const wb_help_queue[] = {
	"Up Down k j  choose a request     a Enter  open it (approve there, with its code)",
	"d  deny      e  edit the command  q  stop the request's domain (asks y)",
	"/  search the list, n N next      Tab Shift-Tab  the next list   Esc  back to the tab",
	NULL,
};
static const char *const wb_help_audit[] = {
	"Up Down k j PgUp PgDn g G  choose a row     Enter  the row whole: JSON, hashes, verify",
	"/  search the list, n N next      Tab Shift-Tab  the next list   Esc  back to the tab",
	NULL,
};
static const char *const wb_help_egress[] = {
	"one row a destination: verdict, count, last seen, destination, the entry that decided",
	"b  blocked destinations only (b again: all)",
	"on a pending request (? at the top): d deny; Enter a o r p open it (once, run, profile)",
	"/  search the list, n N next      Tab Shift-Tab  the next list   Esc  back to the tab",
	NULL,
};
static const char *const wb_help_review[] = {
	"one row a domain, the ones with a flagged executable surface first",
	"prefix R on a tab opens its review: diff, surface, merge, discard",
	"/  search the list, n N next      Tab Shift-Tab  the next list   Esc  back to the tab",
	NULL,
};
static const char *const wb_help_scroll[] = {
	"PgUp PgDn Up Down k j  move     g G  oldest, newest     q Esc  back to live",
	"/ or ?  find text (towards older lines)   n N  next older, newer   y  copy the line",
	NULL,
};
static const char *const wb_help_rv[] = {
	"j k PgUp PgDn g G move, Enter a file's diff (/ n N ] [), m merge, D discard,",
	"S sync, F every surface flag, r reload, q Esc back",
	NULL,
};

static const char *const *
wb_help_now(const struct wb *wb, const char **where)
{
	struct wb_tab *tab = wb_tabs_active((struct wb *)wb);

	if (wb->review != NULL) {
		*where = "the review view";
		return wb_help_rv;
	}
	if (sidelist_focused(wb->side))
		switch (sidelist_current(wb->side)) {
		case SIDELIST_QUEUE:
			*where = "the Escalations list";
			return wb_help_queue;
		case SIDELIST_AUDIT:
			*where = "the Audit list";
			return wb_help_audit;
		case SIDELIST_EGRESS:
			*where = "the Egress list";
			return wb_help_egress;
		case SIDELIST_REVIEW:
		case SIDELIST_N:
			*where = "the Review list";
			return wb_help_review;
		}
	if (tab != NULL && tab->scrolling) {
		*where = "scrollback";
		return wb_help_scroll;
	}
	*where = "the tab";
	return wb_help_tab;
}

const char *
wb_help_where(const struct wb *wb)
{
	const char *where;

	(void)wb_help_now(wb, &where);
	return where;
}

char **
wb_help_context(const struct wb *wb, char **all)
{
	const char *where;
	const char *const *now = wb_help_now(wb, &where);
	char **lines = NULL;

	lz_strv_pushf(&lines, "Here, in %s:", where);
	for (size_t i = 0; now[i] != NULL; i++)
		lz_strv_pushf(&lines, "  %s", now[i]);
	lz_strv_pushf(&lines, "%s", "");
	lz_strv_pushf(&lines, "%s", "Every key (/ searches this page, n N the next match):");
	for (size_t i = 0; all != NULL && all[i] != NULL; i++)
		lz_strv_push(&lines, all[i]);
	lz_strv_free(all);
	return lines;
}

void
wb_help_open(struct wb *wb, char **all)
{
	char **lines = wb_help_context(wb, all), *title;

	title = xasprintf("lazaret-workbench keys: %s", wb_help_where(wb));
	textview_free(wb->help);
	wb->help = textview_new(title, lines, LINES, COLS);
	textview_searchable(wb->help);
	wb->audit_view = NULL;
	free(title);
	lz_strv_free(lines);
	wb->dirty = true;
}
