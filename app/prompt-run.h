/* prompt-run.h - the escalation prompt of `lazaret run` (spec 5.x): when an
 * ESC_PROMPT frame arrives, the terminal forwarding stops (the caller's loop
 * is simply not running), an ncurses screen opens on /dev/tty (newterm, the
 * alternate screen where the terminal has one), the prompt widget takes
 * A/D/E/Q (E opens the edit form on the command), the screen is restored
 * with the terminal modes it had (raw), and the decision goes back as
 * ESC_DECISION. Without a terminal nothing is drawn: the request waits on
 * the host and times out there.
 */
#ifndef LZ_PROMPT_RUN_H
#define LZ_PROMPT_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "client.h"
#include "err.h"

/* Handle one ESC_PROMPT payload; -1 only when the decision cannot be sent. */
int prompt_run_frame(struct client *c, const uint8_t *p, size_t len, lz_err_t *err);

#endif
