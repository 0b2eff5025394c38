/* tabstate.h - who needs me: the state of one session (a workbench tab) as
 * the user reads it, drawn the same way in the tab bar, the dashboard and
 * `lazaret ls`. Pure: the caller feeds it what happened and the time, and
 * looks at the screen for it (tabstate_input_line); no I/O, no terminal.
 *
 *	starting   the session is not there yet
 *	running    it works (output now, or a command without a prompt)
 *	input      waiting for input: quiet for TABSTATE_QUIET_MS with the
 *	           cursor on an input line, or it rang the bell since the
 *	           user's last key
 *	approval   an escalation or a network request of it waits for a human
 *	exited     the program ended (status kept)
 *	limit      the sandbox was stopped for a limit (memory, pids, disk)
 *	failed     it could not start
 *
 * The last three are final. approval outranks input, input running. The
 * words and the marks ("!" approval, "?" input) are the ones every front
 * shows; tabstate_update says when the state changed, so a front notifies
 * once per change, never again while it stays.
 */
#ifndef LZ_TABSTATE_H
#define LZ_TABSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TABSTATE_QUIET_MS	800	/* quiet output before a prompt counts as waiting */

enum tabstate_kind {
	TABSTATE_STARTING,
	TABSTATE_RUNNING,
	TABSTATE_INPUT,
	TABSTATE_APPROVAL,
	TABSTATE_EXITED,
	TABSTATE_LIMIT,
	TABSTATE_FAILED,
};

struct tabstate {
	enum tabstate_kind state;	/* as of the last tabstate_update */
	uint64_t last_out_ms;	/* the last output (or start) */
	bool started;
	bool bell;		/* rang since the user's last key */
	unsigned approvals;	/* its requests waiting for a human */
	enum tabstate_kind final;	/* EXITED, LIMIT or FAILED once ended; else RUNNING */
	int status;		/* exit status once EXITED */
};

void tabstate_init(struct tabstate *);
/* The session is there (SESSION came). */
void tabstate_started(struct tabstate *, uint64_t now_ms);
/* Output came: it is working, not waiting. */
void tabstate_output(struct tabstate *, uint64_t now_ms);
void tabstate_bell(struct tabstate *);
/* The user typed into it: a bell is answered. */
void tabstate_key(struct tabstate *);
void tabstate_approvals(struct tabstate *, unsigned n);
/* Ended: exit status, or stopped for a limit. */
void tabstate_exited(struct tabstate *, int status, bool limit);
void tabstate_failed(struct tabstate *);
/* The state now (input_line: the caller's tabstate_input_line on the
 * screen); true when it is not the one of the last call. */
bool tabstate_update(struct tabstate *, uint64_t now_ms, bool input_line);

/* Does the state ask for the user (input or approval)? */
bool tabstate_needs_me(enum tabstate_kind);
/* "running", "input", "approval", "exited", "limit", "starting", "failed". */
const char *tabstate_name(enum tabstate_kind);
/* "!" approval, "?" input, "" otherwise. */
const char *tabstate_mark(enum tabstate_kind);
/* The word every front shows: the name, "exited N" with the status. */
void tabstate_text(const struct tabstate *, char *buf, size_t size);

/* Is the cursor on an input line? before: the row's text left of the
 * cursor, after: from the cursor on (UTF-8, as the screen holds it). A
 * visible cursor after some text, with nothing but blanks or box-drawing
 * borders right of it: a shell's prompt, an agent's input box. */
bool tabstate_input_line(const char *before, const char *after, bool cursor_visible);

#endif
