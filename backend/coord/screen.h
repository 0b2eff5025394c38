/* screen.h - the coordinator's copy of a tty session's screen (DESIGN
 * "Sessions and PTYs"): a term (vterm/term.h) fed with every byte the PTY
 * writes, attached or not, so a client that attaches gets the current screen
 * at once as a snapshot (vterm/term-snap.h) and then the live stream.
 *
 * The screen is the one place that answers the application's terminal
 * queries (DA, DSR/CPR, DECRQSS...): libvterm queues the replies and the
 * session writes them to the PTY (session_answer). Clients never forward
 * their own terminal's replies: `lazaret run` filters queries out of what
 * it shows (vterm/term-filter.h), so the user's terminal is never asked.
 */
#ifndef LZ_SCREEN_H
#define LZ_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Scrollback lines kept per session, and sent with a snapshot at most. */
#define SCREEN_SB_LINES		2000
#define SCREEN_SNAP_SB		500

struct screen;

/* A screen of rows x cols (0 or out of range: 24x80). */
int screen_new(uint16_t rows, uint16_t cols, struct screen **out, lz_err_t *err);
void screen_free(struct screen *);
/* Bytes the PTY wrote: fed to the terminal now, or, with hold, kept back
 * (term_feed_later: in order, at most TERM_HOLD_MAX bytes) until
 * screen_flush. A `cat` fed in big pieces costs a fraction of one fed per
 * PTY read (term-fast.h); the snapshot and a resize feed held bytes first,
 * so neither ever misses one. */
void screen_feed(struct screen *, const uint8_t *buf, size_t len, bool hold);
/* Feed what is held; false when nothing was (the buffer is freed then). */
bool screen_flush(struct screen *);
/* Replies owed to the PTY after feeding (NULL when none); consume what
 * was written. */
const uint8_t *screen_reply(const struct screen *, size_t *len);
void screen_reply_consume(struct screen *, size_t n);
/* The PTY was resized. */
int screen_resize(struct screen *, uint16_t rows, uint16_t cols, lz_err_t *err);
/* The encoded snapshot (term_snap_encode) in at most max bytes: the
 * scrollback sent shrinks until it fits. *buf freed by the caller; -1 when
 * even the bare screen does not fit. */
/* The cursor sits on an input line (term_input_line), held bytes fed first. */
bool screen_input_line(struct screen *);
int screen_snapshot(struct screen *, size_t max, uint8_t **buf, size_t *len, lz_err_t *err);

#endif
