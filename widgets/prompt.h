/* prompt.h - the escalation prompt (spec 5.x): request ID, profile,
 * justification and the exact argv of a host command, with the four actions
 * [A]pprove & run, [D]eny, [E]dit, [Q]uit.
 *
 * Shown as a centred bordered window on its own panel, above whatever is
 * on the screen (the workbench, or the terminal of `lazaret run`). Every
 * word of argv is on its own row, numbered, underlined to show where it
 * ends, wrapped (never cut) with control characters, bytes that are not
 * UTF-8 and invisible format characters drawn visibly in reverse video
 * (^[, \n, \xff, <U+202E>). When the request is taller than the screen the
 * body scrolls (Up/Down, PgUp/PgDn) and says which rows are shown; the
 * action row stays put. A note (why no auto-approval) shows in the alert
 * style. Given a command line instead of argv, the prompt splits it with
 * lz_shellwords_split (what runs is that vector); a line that does not
 * split is shown whole, marked as such.
 */
#ifndef LZ_PROMPT_H
#define LZ_PROMPT_H

#include <curses.h>
#include <stdbool.h>

#include "widget.h"

struct prompt_request {
	const char *request_id;
	const char *profile;
	const char *justification;
	const char *cwd;		/* may be NULL */
	const char *note;		/* why it needs a human ("holds ';'"); may be NULL */
	char *const *argv;		/* NULL-terminated; or NULL and: */
	const char *command;		/* the request's command line, split here */
};

enum prompt_action {
	PROMPT_NONE,		/* key used for scrolling, or ignored */
	PROMPT_APPROVE,		/* a, A */
	PROMPT_DENY,		/* d, D */
	PROMPT_EDIT,		/* e, E: the caller opens an editform on prompt_command() */
	PROMPT_QUIT,		/* q, Q: shut the session down */
};

struct prompt;

/* A prompt for req (copied) centred on a lines x cols screen; on a panel
 * of its own, on top. Free with prompt_free (which removes the panel). */
struct prompt *prompt_new(const struct prompt_request *req, int lines, int cols);
void prompt_free(struct prompt *);
/* The screen changed size: re-centre and re-wrap. */
void prompt_resize(struct prompt *, int lines, int cols);
/* Draw into the prompt's window; update_panels()+doupdate() shows it. */
void prompt_draw(struct prompt *, const struct widget_palette *);
enum prompt_action prompt_handle_key(struct prompt *, int key);
/* The command line to [E]dit: the request's command when given, else argv
 * joined as shell words; caller frees. */
char *prompt_command(const struct prompt *);
/* Body rows there are, and the first shown (for tests and scroll marks). */
int prompt_rows(const struct prompt *);
int prompt_scroll(const struct prompt *);
WINDOW *prompt_window(const struct prompt *);

#endif
