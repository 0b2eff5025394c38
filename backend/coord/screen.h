/* screen.h - the coordinator's copy of a tty session's screen (DESIGN
 * "Sessions and PTYs"): a term (vterm/term.h) fed with every byte the PTY
 * writes, attached or not, so a client that attaches gets the current screen
 * at once as a snapshot (vterm/term-snap.h) and then the live stream.
 *
 * Replies the terminal owes the application (DA, DSR) are not sent from
 * here: the attached clients' own terminals answer them.
 */
#ifndef LZ_SCREEN_H
#define LZ_SCREEN_H

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
/* Bytes the PTY wrote. */
void screen_feed(struct screen *, const uint8_t *buf, size_t len);
/* The PTY was resized. */
int screen_resize(struct screen *, uint16_t rows, uint16_t cols, lz_err_t *err);
/* The encoded snapshot (term_snap_encode) in at most max bytes: the
 * scrollback sent shrinks until it fits. *buf freed by the caller; -1 when
 * even the bare screen does not fit. */
int screen_snapshot(struct screen *, size_t max, uint8_t **buf, size_t *len, lz_err_t *err);

#endif
