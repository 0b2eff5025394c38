/* wb-tour.c - the first start's tour (see wb-tour.h). The mark is an
 * empty file; writing it fails quietly (a read-only home shows the tour
 * again, which is better than a start that fails). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strv.h"
#include "wb.h"
#include "wb-tour.h"
#include "xmalloc.h"

char *
wb_tour_mark_path(void)
{
	const char *st = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (st != NULL && st[0] == '/')
		return xasprintf("%s/lazaret/tour-seen", st);
	if (home != NULL && home[0] == '/')
		return xasprintf("%s/.local/state/lazaret/tour-seen", home);
	return NULL;
}

/* mkdir -p of the mark's directory, 0700 for what we make. */
static void
wb_tour_mkdirs(char *path)
{
	for (char *p = strchr(path + 1, '/'); p != NULL; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			*p = '/';
			return;
		}
		*p = '/';
	}
}

/* One screen; "%prefix" is the line naming the prefix key. */
static const char *const wb_tour_text[] = {
	"Agents in sandboxes, you in control. What is on the screen:",
	"",
	"Tabs (top row)      a sandboxed shell or agent each; ! marks one that waits for you",
	"Side panel (right)  Escalations  the agent asks to run a command on your host",
	"                    Audit        what happened, in words; Enter shows a row whole",
	"                    Egress       where the sandbox connects, a row a destination",
	"                    Review       the agent's commits to review, flagged files first",
	"Status line         the tab's domain, its network, memory/pids/disk gauges, the time",
	"",
	"%prefix",
	"  c new tab    n p next, previous tab    Tab the side panel    t what the agent did",
	"  R review the agent's commits    [ scroll back    d detach (sessions keep running)",
	"  ? every key, starting with what works where you are (/ searches it)",
	"",
	"Nothing the agent asks runs on your host until you approve it, in the request",
	"view, with the 3-character code it shows.",
	"",
	"q, Esc or Enter closes this tour; it will not show again.",
	NULL,
};

void
wb_tour_maybe_open(struct wb *wb)
{
	_cleanup_free_ char *mark = wb_tour_mark_path();
	char pre[WB_KEYS_NAME_MAX], **l = NULL;

	if (mark == NULL || access(mark, F_OK) == 0)
		return;
	wb_keys_key_name(wb_keys_prefix(wb->keys), pre);
	for (size_t i = 0; wb_tour_text[i] != NULL; i++)
		if (strcmp(wb_tour_text[i], "%prefix") == 0)
			lz_strv_pushf(&l, "Every key goes to the tab except the prefix %s; after it:", pre);
		else
			lz_strv_push(&l, wb_tour_text[i]);
	textview_free(wb->help);
	wb->help = textview_new("Welcome to lazaret-workbench", l, LINES, COLS);
	wb->tour_view = wb->help;
	wb->audit_view = NULL;
	lz_strv_free(l);
	wb->dirty = true;
}

void
wb_tour_closing(struct wb *wb, const struct textview *tv)
{
	_cleanup_free_ char *mark = NULL;
	int fd;

	if (tv == NULL || tv != wb->tour_view)
		return;
	wb->tour_view = NULL;
	if ((mark = wb_tour_mark_path()) == NULL)
		return;
	wb_tour_mkdirs(mark);
	fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0)
		close(fd);
}
