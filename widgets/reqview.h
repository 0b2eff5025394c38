/* reqview.h - an escalation request as a human must see it before deciding,
 * and the key sequence that decides it (issue 9). Pure: no curses, no I/O;
 * both `lazaret run` and the workbench draw these lines and feed keys to the
 * same state machine, and the unit tests check both.
 *
 * Display. The command comes FIRST and whole: argv joined as shell words,
 * "Command, N words:", then the words wrapped to the width (a line breaks
 * between words; inside a word, a space at a line's edge shows as U+2423,
 * which is itself always escaped). A word that holds
 * anything a human cannot see is written in bash's $'...' form: \\ and \',
 * \n \r \t, other C0 and DEL as \xNN, invalid UTF-8 as \xNN, C1 controls,
 * bidi, zero-width and other format characters and non-ASCII spaces as
 * \uNNNN (\UNNNNNNNN above the BMP), and a leading, trailing or repeated run
 * of N spaces as \x20{N}. Then the agent's justification, each line framed
 * with "| " and capped to a few lines with "(N more lines)", so it can
 * never draw a block that looks like the command. Then request, profile,
 * directory and the host's note.
 *
 * Decision. The prompt is armed only after REQVIEW_ARM_MS of quiet: every
 * key before that is discarded and restarts the delay (typed-ahead text).
 * Approve is `a`, then the REQVIEW_CODE_LEN-character code shown in the
 * prompt (drawn fresh from libsodium each time the prompt is shown, from an
 * alphabet without look-alikes), then Enter; a wrong character draws a new
 * code. Deny is `d`; Edit is `e` (the caller runs an edit form, then starts
 * the machine again: running the edited command takes the same chord); Quit
 * is `q` then `y`; Esc closes the prompt (the request keeps waiting). An
 * ESC-introduced sequence (CSI, DCS, OSC, APC, PM, SOS, SS3: what terminals
 * send as replies) is swallowed whole, reported once as REQVIEW_REPLY (the
 * caller audits it) and disarms the prompt again.
 */
#ifndef LZ_REQVIEW_H
#define LZ_REQVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REQVIEW_ARM_MS		700	/* quiet time before the prompt takes keys */
#define REQVIEW_CODE_LEN	3
/* No look-alikes (0/o, 1/l/i, 5/s, 2/z, 8/b, 9/g/q, u/v) and none of the
 * action letters a d e q y. */
#define REQVIEW_CODE_ALPHABET	"cfhjkmnprtwx347"
#define REQVIEW_WHY_LINES	4	/* justification lines shown by default */

/* Keys are those of widget.h: a Unicode code point (27 Esc, 13 Enter),
 * REQVIEW_KEY_FN(k) for an ncurses function key, REQVIEW_KEY_META added
 * for Alt (ESC folded with the next key). */
#define REQVIEW_KEY_FN(k)	(0x1000000 | (k))
#define REQVIEW_KEY_META	0x2000000
#define REQVIEW_KEY_ENTER_FN	REQVIEW_KEY_FN(0527)	/* ncurses KEY_ENTER */
#define REQVIEW_KEY_BS_FN	REQVIEW_KEY_FN(0407)	/* ncurses KEY_BACKSPACE */

struct reqview_request {
	const char *request_id;
	const char *profile;
	const char *justification;	/* the agent's; may be NULL */
	const char *cwd;		/* may be NULL */
	const char *note;		/* the host's: why it needs a human; may be NULL */
	char *const *argv;		/* NULL-terminated; or NULL and: */
	const char *command;		/* a command line, split with lz_shellwords_split */
};

enum reqview_kind {
	REQVIEW_TITLE,		/* "Command, N words:" / "Justification..." */
	REQVIEW_COMMAND,	/* the joined argv, wrapped */
	REQVIEW_WHY,		/* "| " framed justification */
	REQVIEW_MORE,		/* "| (N more lines)" */
	REQVIEW_FIELD,		/* request, profile, directory */
	REQVIEW_ALERT,		/* the note, or why the command does not split */
};

struct reqview_line {
	enum reqview_kind kind;
	char *text;		/* printable UTF-8 only; at most width columns */
};

struct reqview {
	struct reqview_line *lines;
	size_t n, cap;
	size_t words;		/* argv entries */
	size_t command_first, command_end;	/* lines[first..end) show the command */
	bool split_failed;	/* command given and did not split: nothing to approve */
};

/* Lay req out in lines of at most width columns (>= 16 used), with at most
 * why_lines justification lines (0: REQVIEW_WHY_LINES). Free with
 * reqview_free. */
struct reqview *reqview_new(const struct reqview_request *req, int width, unsigned why_lines);
void reqview_free(struct reqview *);
/* One word as shown (bare, '...' or $'...'); caller frees. */
char *reqview_word(const char *w);
/* argv as one line of shown words joined by single spaces; caller frees. */
char *reqview_command(char *const *argv);
/* Columns s takes on a UTF-8 terminal (the text reqview makes). */
int reqview_width(const char *s);

/* A fresh code: REQVIEW_CODE_LEN characters of REQVIEW_CODE_ALPHABET from
 * libsodium's randombytes, NUL-terminated. */
void reqview_code_new(char out[REQVIEW_CODE_LEN + 1]);

enum reqview_decision {
	REQVIEW_NONE,		/* key used, or ignored: redraw */
	REQVIEW_APPROVE,	/* a, the code, Enter */
	REQVIEW_DENY,		/* d */
	REQVIEW_EDIT,		/* e: the caller opens the edit form */
	REQVIEW_QUIT,		/* q, then y */
	REQVIEW_CLOSE,		/* Esc: put the prompt away, the request waits */
	REQVIEW_EARLY,		/* a key before the prompt was armed: discarded */
	REQVIEW_REPLY,		/* a terminal reply started: discarded, audit it */
	REQVIEW_UNSEEN,		/* a before the whole command was on screen */
	REQVIEW_WRONG,		/* a wrong code character: a new code is drawn */
};

enum reqview_state {
	REQVIEW_ARMING,		/* keys are discarded */
	REQVIEW_READY,		/* a d e q Esc */
	REQVIEW_CODE,		/* after a: typing the code */
	REQVIEW_ENTER,		/* code typed: Enter approves */
	REQVIEW_QUIT_ASK,	/* after q: y stops the domain */
};

struct reqview_confirm {
	enum reqview_state state;
	char code[REQVIEW_CODE_LEN + 1];
	size_t typed;		/* code characters typed */
	uint64_t quiet_since;	/* armed at quiet_since + REQVIEW_ARM_MS */
	uint64_t last_key;
	int reply;		/* inside a terminal reply: RV_REPLY_* (reqview.c) */
	size_t reply_keys;
	bool seen;		/* the whole command was on screen (caller sets) */
	unsigned early, replies;	/* discarded keys, replies seen */
};

/* Show the prompt (again): a fresh code, disarmed until REQVIEW_ARM_MS of
 * quiet from now_ms (a monotonic clock in ms). seen starts true. */
void reqview_confirm_start(struct reqview_confirm *, uint64_t now_ms);
/* Feed one key that arrived at now_ms. */
enum reqview_decision reqview_confirm_key(struct reqview_confirm *, int key, uint64_t now_ms);
/* Milliseconds until the prompt arms (0: armed), for the caller's timer;
 * moves ARMING to READY when the time has come. */
uint64_t reqview_confirm_arm_in(struct reqview_confirm *, uint64_t now_ms);
/* The caller tells whether the whole command is on screen now. */
void reqview_confirm_set_seen(struct reqview_confirm *, bool seen);
/* The action row for the state, with the code in upper case ("a 7KM
 * Enter: approve & run   d: deny   e: edit   q: quit   Esc: later"); verb
 * names what approving does ("approve & run", "run the edited command").
 * Caller frees. */
char *reqview_confirm_hint(const struct reqview_confirm *, const char *verb);

#endif
