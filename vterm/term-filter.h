/* term-filter.h - what of a sandboxed program's output may reach the user's
 * own terminal (`lazaret run`), and which typed bytes are keys rather than
 * terminal reports (the escalation prompt's input). Issue 9: an agent that
 * can make the host terminal answer a query (XTVERSION, DA, DSR, DECRQSS,
 * ENQ) gets bytes typed for it; one that can send OSC 52 writes the user's
 * clipboard; a title or a DCS reaches tmux.
 *
 * Theory of operation: one ECMA-48 parser (ground, ESC, CSI, control
 * strings) with two policies. TERM_FILTER_OUTPUT passes text, the harmless C0
 * controls and an allowlist of complete ESC and CSI sequences (cursor, erase,
 * SGR, scrolling regions, the DEC modes full-screen programs set, cursor
 * shape, keyboard modes); everything else is dropped whole: OSC (title,
 * clipboard, colours), DCS, APC, PM, SOS, screen's ESC k title, every query
 * (DA, DSR/CPR, XTVERSION, DECRQM, window reports), window operations, ENQ,
 * every C1 control (8-bit or UTF-8 encoded) and malformed UTF-8. The host
 * terminal therefore only ever sees whole sequences we parsed and allowed:
 * its own parser is back in ground after each one. TERM_FILTER_KEYS passes
 * typed text, C0 keys and the encodings of cursor/editing/function keys
 * (CSI digits ; A-D H F Z ~, SS3); any other ESC-introduced unit is a report
 * (or Alt+key) and is dropped and counted: the prompt audits those.
 *
 * Pure: no fds, no allocation; state survives any split of the input into
 * chunks (feeding byte by byte gives the same output as feeding at once).
 * Every length is bounded: a sequence held is at most TERM_FILTER_SEQ_MAX
 * bytes (a longer one is dropped when it ends), a dropped control string is
 * skipped without being stored.
 */
#ifndef LZ_TERM_FILTER_H
#define LZ_TERM_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TERM_FILTER_SEQ_MAX	128	/* longest ESC/CSI sequence passed on */
#define TERM_FILTER_SAMPLE	64	/* bytes kept of the first dropped unit */
/* term_filter_feed writes at most len + TERM_FILTER_SLACK bytes. */
#define TERM_FILTER_SLACK	(TERM_FILTER_SEQ_MAX + 4)

enum term_filter_mode {
	TERM_FILTER_OUTPUT,	/* program output on its way to the user's terminal */
	TERM_FILTER_KEYS,	/* bytes typed (or reported) by the user's terminal */
};

struct term_filter {
	enum term_filter_mode mode;
	int state;
	uint8_t seq[TERM_FILTER_SEQ_MAX];	/* the ESC/CSI sequence being read */
	size_t seq_len;
	bool seq_over;			/* longer than seq: dropped at its end */
	uint8_t u8[4];			/* a UTF-8 character being read */
	unsigned u8_len, u8_need;
	unsigned skip;			/* KEYS: bytes of an X10 mouse report left */
	uint64_t dropped;		/* units dropped since init */
	/* The first unit dropped since the caller last set sample_len to 0. */
	uint8_t sample[TERM_FILTER_SAMPLE];
	size_t sample_len;
	bool sampling;			/* the unit being dropped is the sample */
};

void term_filter_init(struct term_filter *, enum term_filter_mode);
/* Filter len bytes of in into out (room for len + TERM_FILTER_SLACK bytes);
 * returns the bytes written. A sequence cut by the end of in is held until
 * the next call. */
size_t term_filter_feed(struct term_filter *, const uint8_t *in, size_t len, uint8_t *out);
/* KEYS: nothing came after a lone ESC for a while: it was the Esc key.
 * Writes it (at most 1 byte) to out; returns the bytes written. */
size_t term_filter_idle(struct term_filter *, uint8_t *out);
/* Is a sequence or character half-way (the next bytes decide)? */
bool term_filter_pending(const struct term_filter *);

#endif
