/* term-scan.h - the byte scanner in front of libvterm 0.1.4.
 *
 * Everything term_feed() is given passes here before libvterm sees it. The
 * scanner tracks where the stream stands (libvterm's own parser is opaque),
 * enough to tell "between sequences" from "inside one", and on the way
 * defuses the inputs that crash or hang libvterm 0.1.4 (list in
 * term-scan.c). No allocation; the state lives inside struct term.
 */
#ifndef LZ_TERM_SCAN_H
#define LZ_TERM_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vterm.h>

/* Where the byte stream stands, tracked alongside libvterm's own parser. */
enum term_scan_state {
	SCAN_GROUND,
	SCAN_ESC,		/* after ESC, and its intermediates (ESC ( B) */
	SCAN_CSI,		/* ESC [ leader, parameters, intermediates */
	SCAN_STRING,		/* OSC/DCS/APC/PM/SOS body */
	SCAN_STRING_ESC,	/* ESC inside a string: ST if '\\' follows */
};

struct term_scan {
	VTerm *vt;
	VTermState *vts;
	enum term_scan_state state;
	int utf8_left;			/* continuation bytes still expected */
	int csi_seps;			/* ';' and ':' in the current CSI */
	bool csi_drop;			/* dropping its excess parameters */
	bool csi_plain;			/* no leader or intermediate byte so far */
	int csi_phase;			/* 0 leader, 1 arguments, 2 intermediates */
	int csi_digits;			/* digits in the current parameter */
	bool esc_inter;			/* the ESC sequence has intermediates */
	bool esc_held;			/* a string's ESC not yet given to libvterm */
	uint32_t cp;			/* UTF-8 code point being decoded */
	unsigned char u8buf[6];		/* its bytes held back from libvterm */
	size_t u8len;
	uint32_t last_cp;		/* last character printed */
	/* What decides how plain ASCII lands (see term_scan_plain); libvterm
	 * 0.1.4 has no getters for these. */
	int csi_val;			/* the current parameter's value, capped */
	unsigned csi_modes;		/* 1: a parameter 4 seen, 2: a parameter 7 */
	unsigned char csi_leader;	/* '?', '>'... or 0 */
	unsigned char esc_i1;		/* first intermediate of an ESC sequence */
	bool nowrap;			/* DECAWM reset (?7l) */
	bool insert;			/* IRM set (CSI 4 h) */
	bool ss_pending;		/* SS2/SS3 waiting for a character */
	/* The last character printed was not ASCII: after a wide one in the
	 * last column libvterm 0.1.4 may keep a pending wrap through CR and LF
	 * that the next character takes (found by fuzz-term-fast). */
	bool odd_glyph;
	unsigned char gl;		/* G set shifted into GL (SO/SI, LS2/LS3) */
	unsigned char g_odd;		/* bit n: Gn may not be US-ASCII */
};

/* Start in the ground state, feeding vt. */
void term_scan_init(struct term_scan *, VTerm *vt);
/* Hand len bytes to libvterm, minus what would trip it; an unfinished UTF-8
 * character or a string's ESC is held back for the next call. */
void term_scan_feed(struct term_scan *, const unsigned char *p, size_t len);
/* True between sequences (see term_idle). */
bool term_scan_idle(const struct term_scan *);
/* True when printable ASCII now prints itself, cell by cell, wrapping at
 * the right edge: between sequences, nothing held back, autowrap on,
 * insert mode off, US-ASCII in GL, no single shift pending, and the last
 * character printed ASCII. Tracked conservatively: false whenever unsure. */
bool term_scan_plain(const struct term_scan *);
/* Put a cursor that lies off the screen (a restore after a shrink) back. */
void term_scan_clamp_cursor(struct term_scan *);

#endif
