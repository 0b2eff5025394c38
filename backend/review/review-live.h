/* review-live.h - `lazaret sync` on a running domain (issue 30): the
 * SENTRY_CTL_SYNC frame a client sends its coordinator, which refreshes
 * the agent's view of the host's branches at once (sentry-follow.h) and
 * prints a one-line notice in the domain's running tty sessions. Pure:
 * encode and a decoder that checks every length (fuzzed with the protocol).
 */
#ifndef LZ_REVIEW_LIVE_H
#define LZ_REVIEW_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "proto.h"

#define REVIEW_LIVE_TEXT_MAX	512	/* bytes of the notice, at most */
#define REVIEW_LIVE_BRANCH_MAX	256

/* SENTRY_CTL_SYNC: string target (the user's branch, "" for none), string
 * notice ("": the coordinator's own words). Reply: STATUS with what the
 * agent now sees and how many sessions were told. */
void review_live_encode(struct proto_buf *b, const char *target, const char *notice);
/* *target and *notice are owned; the notice has no control characters. */
int review_live_decode(const uint8_t *p, size_t len, char **target, char **notice,
    lz_err_t *err);

#endif
