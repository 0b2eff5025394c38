/* reqprompt.h - the request view (issue 9): a host command an agent asks
 * for, and the human's decision on it; the workbench's escalation prompt.
 * (prompt.c is `lazaret run`'s until it moves to this one.)
 *
 * Shown as a centred bordered window on its own panel, above whatever is
 * on the screen. The body
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
#ifndef LZ_REQPROMPT_H
#define LZ_REQPROMPT_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>

#include "reqview.h"
#include "widget.h"

enum reqprompt_action {
	REQPROMPT_NONE,		/* key used, discarded or ignored: see reqprompt_last() */
	REQPROMPT_APPROVE,	/* a, the code, Enter (the whole command was seen) */
	REQPROMPT_DENY,		/* d, D */
	REQPROMPT_EDIT,		/* e, E: the caller opens an editform on reqprompt_command() */
	REQPROMPT_QUIT,		/* q then y: shut the session down */
};

struct reqprompt;

/* A prompt for req (copied) centred on a lines x cols screen; on a panel
 * of its own, on top; armed REQVIEW_ARM_MS from now. Free with reqprompt_free
 * (which removes the panel). */
struct reqprompt *reqprompt_new(const struct reqview_request *req, int lines, int cols);
void reqprompt_free(struct reqprompt *);
/* The screen changed size: re-centre and re-wrap. */
void reqprompt_resize(struct reqprompt *, int lines, int cols);
/* Show the prompt again, from now_ms: a fresh code, disarmed. With command
 * (may be NULL) it shows that command line instead (an edit to confirm) and
 * approving is worded as verb ("run the edited command"). */
void reqprompt_restart(struct reqprompt *, const char *command, const char *verb, uint64_t now_ms);
/* Draw into the prompt's window; update_panels()+doupdate() shows it. */
void reqprompt_draw(struct reqprompt *, const struct widget_palette *);
/* Feed a key (widget.h encoding, ESC+key folded to Alt) that came at now_ms. */
enum reqprompt_action reqprompt_key_at(struct reqprompt *, int key, uint64_t now_ms);
/* reqprompt_key_at at reqprompt_now_ms(). */
enum reqprompt_action reqprompt_handle_key(struct reqprompt *, int key);
/* What the last key did in reqview's terms (REQVIEW_REPLY: a terminal
 * reply was discarded, audit it; REQVIEW_CLOSE: Esc; REQVIEW_EARLY...). */
enum reqview_decision reqprompt_last(const struct reqprompt *);
/* Milliseconds until the prompt arms (0: armed): redraw then. */
uint64_t reqprompt_arm_in(struct reqprompt *, uint64_t now_ms);
/* The code approving takes now (for tests). */
const char *reqprompt_code(const struct reqprompt *);
/* The monotonic clock the prompt uses, in ms. */
uint64_t reqprompt_now_ms(void);
/* The command line to [E]dit (or the edited one shown): the request's
 * command when given, else argv joined as shell words; caller frees. */
char *reqprompt_command(const struct reqprompt *);
/* Body rows there are, and the first shown (for tests and scroll marks). */
int reqprompt_rows(const struct reqprompt *);
int reqprompt_scroll(const struct reqprompt *);
WINDOW *reqprompt_window(const struct reqprompt *);

#endif
