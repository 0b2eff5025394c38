/* prompt.h - the escalation prompt (spec 5.x, issue 9): a host command an
 * agent asks for, and the human's decision on it.
 *
 * Shown as a centred bordered window on its own panel, above whatever is
 * on the screen (the workbench, or the terminal of `lazaret run`). The body
 * is reqview.c's layout: the command first and whole (joined shell words,
 * word count, everything invisible made visible), then the agent's
 * justification framed and capped, then request, profile and directory.
 * When the request is taller than the screen the body scrolls (Up/Down,
 * PgUp/PgDn, Home/End) and says which rows are shown; the action row stays
 * put. Keys go through reqview's confirmation: the prompt arms after
 * REQVIEW_ARM_MS of quiet, approving is `a`, the code shown, Enter, and only
 * once every row of the command has been on screen; `d` denies, `e` edits,
 * `q` then `y` quits, Esc puts the prompt away. Given a command line instead
 * of argv, the prompt splits it with lz_shellwords_split (what runs is that
 * vector); a line that does not split is shown whole, marked as such, and
 * cannot be approved.
 */
#ifndef LZ_PROMPT_H
#define LZ_PROMPT_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>

#include "reqview.h"
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
	PROMPT_NONE,		/* key used, discarded or ignored: see prompt_last() */
	PROMPT_APPROVE,		/* a, the code, Enter (the whole command was seen) */
	PROMPT_DENY,		/* d, D */
	PROMPT_EDIT,		/* e, E: the caller opens an editform on prompt_command() */
	PROMPT_QUIT,		/* q then y: shut the session down */
};

struct prompt;

/* A prompt for req (copied) centred on a lines x cols screen; on a panel
 * of its own, on top; armed REQVIEW_ARM_MS from now. Free with prompt_free
 * (which removes the panel). */
struct prompt *prompt_new(const struct prompt_request *req, int lines, int cols);
void prompt_free(struct prompt *);
/* The screen changed size: re-centre and re-wrap. */
void prompt_resize(struct prompt *, int lines, int cols);
/* Show the prompt again, from now_ms: a fresh code, disarmed. With command
 * (may be NULL) it shows that command line instead (an edit to confirm) and
 * approving is worded as verb ("run the edited command"). */
void prompt_restart(struct prompt *, const char *command, const char *verb, uint64_t now_ms);
/* Draw into the prompt's window; update_panels()+doupdate() shows it. */
void prompt_draw(struct prompt *, const struct widget_palette *);
/* Feed a key (widget.h encoding, ESC+key folded to Alt) that came at now_ms. */
enum prompt_action prompt_key_at(struct prompt *, int key, uint64_t now_ms);
/* prompt_key_at at prompt_now_ms(). */
enum prompt_action prompt_handle_key(struct prompt *, int key);
/* What the last key did in reqview's terms (REQVIEW_REPLY: a terminal
 * reply was discarded, audit it; REQVIEW_CLOSE: Esc; REQVIEW_EARLY...). */
enum reqview_decision prompt_last(const struct prompt *);
/* Milliseconds until the prompt arms (0: armed): redraw then. */
uint64_t prompt_arm_in(struct prompt *, uint64_t now_ms);
/* The code approving takes now (for tests). */
const char *prompt_code(const struct prompt *);
/* The monotonic clock the prompt uses, in ms. */
uint64_t prompt_now_ms(void);
/* The command line to [E]dit (or the edited one shown): the request's
 * command when given, else argv joined as shell words; caller frees. */
char *prompt_command(const struct prompt *);
/* Body rows there are, and the first shown (for tests and scroll marks). */
int prompt_rows(const struct prompt *);
int prompt_scroll(const struct prompt *);
WINDOW *prompt_window(const struct prompt *);

#endif
