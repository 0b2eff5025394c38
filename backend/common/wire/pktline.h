/* pktline.h - the commands at the start of a git receive-pack request (the
 * body of POST .../git-receive-pack), read by the credential broker before it
 * forwards a push: pure, over a byte buffer, fuzzable. Each command is a
 * pkt-line "OLD NEW REF" (the first with NUL and capabilities after it),
 * then a flush-pkt "0000"; the pack follows. */
#ifndef LZ_PKTLINE_H
#define LZ_PKTLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PKTLINE_MAX_CMDS	64
#define PKTLINE_REF_MAX		255
#define PKTLINE_HEAD_MAX	65536	/* bytes of commands read before the pack */

struct pktline_cmd {
	char old_id[65], new_id[65];	/* hex, SHA-1 or SHA-256 */
	char ref[PKTLINE_REF_MAX + 1];
	bool is_delete;			/* new id all zeros */
	bool is_create;			/* old id all zeros */
};

/* Read the commands from buf[0..len). Returns 1 with *n commands and *used
 * the bytes up to and with the flush-pkt, 0 when more bytes are needed, -1
 * on anything malformed or over the bounds (why: one line, static). */
int pktline_commands(const uint8_t *buf, size_t len, struct pktline_cmd *out, size_t *n,
    size_t *used, bool *sideband, const char **why);

/* Whether ref matches one of the patterns: exact, or a prefix ending in a
 * slash and a star (refs/heads/lazaret/STAR matches refs/heads/lazaret/a/b). A ref with
 * "..", "//", a control byte or not under refs/ matches nothing. */
bool pktline_ref_allowed(const char *ref, char *const *patterns, size_t n);
/* The same, giving the index of the first pattern ref matches, or -1. A
 * pattern may start with "+" (git's refspec mark: its refs may be forced),
 * which is not part of the match. */
int pktline_ref_match(const char *ref, char *const *patterns, size_t n);

/* A git-readable refusal for a push: the receive-pack result a client
 * prints ("! [remote rejected] REF (why)") for each command, why[i] for a
 * refused one and "another ref ... was refused" where why[i] is NULL, in
 * sideband or not as the request asked; written into out (cap bytes), its
 * length or 0 when it does not fit. */
size_t pktline_refusal(const struct pktline_cmd *cmds, size_t n, const char *const *why,
    bool sideband, uint8_t *out, size_t cap);

#endif
