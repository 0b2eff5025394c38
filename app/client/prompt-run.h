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

#define PROMPT_RUN_SEEN	64	/* tickets remembered (a re-ATTACH sends pending ones again) */

/* What lasts from one prompt to the next. Zero it before the first. */
struct prompt_run {
	uint32_t seen[PROMPT_RUN_SEEN];	/* tickets already prompted, a ring */
	size_t n_seen;
	char *notice;	/* owned: to print once the session's screen is back */
};

/* Handle one ESC_PROMPT payload: 1 when a prompt was drawn (the caller
 * redraws the session's screen, then prints and frees pr->notice if set),
 * 0 when not (a ticket already prompted, no terminal), -1 only when the
 * decision cannot be sent. */
int prompt_run_frame(struct prompt_run *, struct client *c, const uint8_t *p, size_t len,
    lz_err_t *err);

#endif
