/* term-scan.c - the byte scanner in front of libvterm 0.1.4 (see term-scan.h).
 *
 * libvterm 0.1.4 traps defused here (each found by tests/fuzz/fuzz-term,
 * each with a unit test in test-term.c that fails without the fix):
 *   - a CSI with more than 16 parameters writes past libvterm's array:
 *     term_scan_feed drops the excess parameter bytes (and digits beyond 9
 *     in one parameter, which overflow a long);
 *   - a UTF-8 character left half-way across writes or cut by a control
 *     makes the decoder write past its array: term_scan_feed holds
 *     unfinished characters back and feeds U+FFFD for broken ones, and for
 *     C1 controls written as UTF-8 (width -1 in libvterm: the cursor would
 *     leave the screen on the left);
 *   - one big write puts 4 bytes per input byte on the stack: feed_run
 *     slices writes to 16 KiB;
 *   - REP (CSI b) after a zero-width glyph loops forever, after a wide one
 *     that must wrap it crashes: term_scan_feed defuses a REP after a
 *     character it cannot vouch for;
 *   - a string's ST split from its ESC (by a write boundary or a control)
 *     makes the parser copy a fragment of length -1: the ESC is held back
 *     and such controls are dropped;
 *   - a saved cursor is restored (DECRC, ?1049l) without clamping it to a
 *     smaller screen: term_scan_clamp_cursor puts it back.
 */
#include <stdio.h>
#include <string.h>

#include "term-scan.h"
#include "xmalloc.h"	/* LZ_ASSERT */

#define TERM_FEED_SLICE	((size_t)16384)	/* bytes per vterm_input_write */
#define TERM_CSI_ARGS	16		/* libvterm's CSI_ARGS_MAX, unchecked there */

void
term_scan_init(struct term_scan *s, VTerm *vt)
{
	memset(s, 0, sizeof(*s));
	s->vt = vt;
	s->vts = vterm_obtain_state(vt);
}

bool
term_scan_idle(const struct term_scan *s)
{
	return s->state == SCAN_GROUND && s->utf8_left == 0;
}

bool
term_scan_plain(const struct term_scan *s)
{
	return term_scan_idle(s) && !s->esc_held && s->u8len == 0 && !s->nowrap &&
	    !s->insert && !s->ss_pending && !s->odd_glyph && (s->g_odd & (1u << s->gl)) == 0;
}

/* A CSI parameter libvterm was given ended: note the modes term_scan_plain
 * cares about (sub-parameters count too, as libvterm's mode loop sees them). */
static void
csi_param_end(struct term_scan *s)
{
	if (s->csi_val == 4)
		s->csi_modes |= 1u;
	else if (s->csi_val == 7)
		s->csi_modes |= 2u;
	s->csi_val = 0;
}

/* An ESC sequence ended on final byte c: follow resets, shifts and the
 * character sets designated (anything but 'B', US-ASCII, counts as odd). */
static void
esc_final(struct term_scan *s, unsigned char c)
{
	unsigned char i1 = s->esc_i1;

	if (!s->esc_inter) {
		if (c == 'c') {		/* RIS: libvterm resets modes and sets */
			s->nowrap = s->insert = s->ss_pending = false;
			s->gl = 0;
			s->g_odd = 0;
		} else if (c == 'N' || c == 'O')
			s->ss_pending = true;
		else if (c == 'n' || c == 'o')
			s->gl = c == 'n' ? 2 : 3;
		return;
	}
	if (i1 >= '(' && i1 <= '+') {
		if (c == 'B')
			s->g_odd &= (unsigned char)~(1u << (i1 - '('));
		else
			s->g_odd |= (unsigned char)(1u << (i1 - '('));
	} else if (i1 >= '-' && i1 <= '/')
		s->g_odd |= (unsigned char)(1u << (i1 - ','));
	else if (i1 & 0x80)	/* several intermediates: any set may change */
		s->g_odd = 0x0f;
}

/* A CSI ended on final byte c (no intermediates): follow DECAWM and IRM. */
static void
csi_final(struct term_scan *s, unsigned char c)
{
	if ((c != 'h' && c != 'l') || (s->csi_modes & 4u) != 0)
		return;
	if (s->csi_leader == '?' && (s->csi_modes & 2u) != 0)
		s->nowrap = c == 'l';
	else if (s->csi_leader == 0 && (s->csi_modes & 1u) != 0)
		s->insert = c == 'h';
}

/* libvterm 0.1.4 puts a uint32_t VLA of the write's length on the stack
 * for text: one 3 MB write overflows an 8 MB stack. Feed in slices. */
static void
feed_run(struct term_scan *s, const unsigned char *p, size_t len)
{
	for (size_t off = 0; off < len; off += TERM_FEED_SLICE)
		vterm_input_write(s->vt, (const char *)p + off,
		    len - off < TERM_FEED_SLICE ? len - off : TERM_FEED_SLICE);
}

/* libvterm 0.1.4 restores a saved cursor without clamping it to a screen
 * that shrank since, then writes line info past its array: put it back on
 * the screen right after a restore. */
void
term_scan_clamp_cursor(struct term_scan *s)
{
	VTermPos pos;
	char seq[32];
	int n, rows, cols;

	vterm_get_size(s->vt, &rows, &cols);
	vterm_state_get_cursorpos(s->vts, &pos);
	if (pos.row >= 0 && pos.row < rows && pos.col >= 0 && pos.col < cols)
		return;
	n = snprintf(seq, sizeof(seq), "\x1b[%d;%dH",
	    pos.row < 0 ? 1 : pos.row >= rows ? rows : pos.row + 1,
	    pos.col < 0 ? 1 : pos.col >= cols ? cols : pos.col + 1);
	vterm_input_write(s->vt, seq, (size_t)n);
}

/* Characters whose width libvterm surely finds 1: REP may repeat them.
 * After anything else (combining marks, zero-width or format chars,
 * unassigned code points) libvterm 0.1.4 would repeat a zero-width glyph
 * forever, and a wide one that has to wrap crashes it (found by
 * fuzz-term-fast: U+4E16 then CSI b in 3 columns). */
static bool
rep_safe(uint32_t c)
{
	return (c >= 0x20 && c < 0x7f) || (c >= 0xa0 && c < 0x250 && c != 0xad) ||
	    (c >= 0x2190 && c < 0x2200) || (c >= 0x2500 && c < 0x2600) || c == 0xfffd;
}

/* Follow the stream's state and hand it to libvterm, leaving out the
 * parameters of a CSI beyond the 16th: libvterm 0.1.4 writes them past its
 * argument array (heap corruption from any PTY output), and turning a REP
 * after a character rep_safe() does not know into an unknown CSI. */
void
term_scan_feed(struct term_scan *s, const unsigned char *p, size_t len)
{
	enum term_scan_state st = s->state;
	int left = s->utf8_left;
	size_t run = 0, seq_start = SIZE_MAX;	/* SIZE_MAX: began in an earlier call */
	size_t esc_pos = SIZE_MAX;		/* ESC of a string's possible ST */

	for (size_t i = 0; i < len; i++) {
		unsigned char c = p[i];

		if (left > 0) {
			if (c >= 0x80 && c < 0xc0) {
				s->cp = s->cp << 6 | (c & 0x3f);
				if (--left > 0)
					continue;
				if (s->cp >= 0x80 && s->cp < 0xa0) {
					/* A C1 control as UTF-8: libvterm gives it width -1
					 * and walks the cursor off the left edge. */
					if (seq_start != SIZE_MAX)
						feed_run(s, p + run, seq_start - run);
					feed_run(s, (const unsigned char *)"\xef\xbf\xbd", 3);
					s->last_cp = 0xfffd;
					run = i + 1;
				} else {
					/* Complete: what an earlier call held back goes first. */
					feed_run(s, s->u8buf, s->u8len);
					s->last_cp = s->cp;
				}
				s->u8len = 0;
				continue;
			}
			/* Broken: libvterm never sees it (its decoder would keep the
			 * half sequence and later write past its code point array). */
			if (seq_start != SIZE_MAX)
				feed_run(s, p + run, seq_start - run);
			feed_run(s, (const unsigned char *)"\xef\xbf\xbd", 3);
			s->u8len = 0;
			s->last_cp = 0xfffd;
			run = i;
			left = 0;
		}
		if (st == SCAN_GROUND && c >= 0x20 && c != 0x7f) {
			s->odd_glyph = c >= 0x80;
			if (c < 0x80) {
				s->last_cp = c;
				s->ss_pending = false;
			} else if (c < 0xc0 || c >= 0xfe)
				s->last_cp = 0xfffd;	/* libvterm shows U+FFFD */
			else {
				left = c < 0xe0 ? 1 : c < 0xf0 ? 2 : c < 0xf8 ? 3 : c < 0xfc ? 4 : 5;
				s->cp = c & (0x3fu >> left);
				seq_start = i;
			}
			continue;
		}
		if (st == SCAN_STRING_ESC && s->esc_held && c != 0x18 && c != 0x1a &&
		    c != 0x1b && c >= 0x20 && c != 0x7f) {
			/* The ESC held back by the last call goes in one write with
			 * what follows it (see below). */
			s->esc_held = false;
			if (c == '\\') {
				feed_run(s, (const unsigned char *)"\x1b\\", 2);
				run = i + 1;
				st = SCAN_GROUND;
				continue;
			}
			feed_run(s, (const unsigned char *)"\x1b", 1);
		}
		if (st == SCAN_STRING_ESC && (c < 0x20 || c == 0x7f) && c != 0x18 && c != 0x1a && c != 0x1b) {
			/* libvterm 0.1.4 restarts its string fragment after a control
			 * between ESC and '\\' and then copies a fragment of length -1:
			 * such a control is dropped, and the ESC held back. */
			if (!s->esc_held) {
				feed_run(s, p + run, esc_pos - run);
				s->esc_held = true;
			}
			run = i + 1;
			continue;
		}
		if (s->esc_held) {
			/* CAN, SUB or ESC after a held ESC: libvterm would leave the
			 * string on those too; nothing of the held ESC matters. */
			s->esc_held = false;
		}
		if (c == 0x00 || c == 0x7f)
			continue;		/* libvterm skips NUL and DEL everywhere */
		if (c == 0x18 || c == 0x1a) {	/* CAN/SUB abort any sequence */
			st = SCAN_GROUND;
			continue;
		}
		if (c == 0x1b) {
			if (st == SCAN_STRING)
				esc_pos = i;
			st = st == SCAN_STRING ? SCAN_STRING_ESC : SCAN_ESC;
			s->esc_inter = false;
			continue;
		}
		if (c == 0x0e)			/* SO: G1 into GL */
			s->gl = 1;
		else if (c == 0x0f && st == SCAN_GROUND)	/* SI: G0 back */
			s->gl = 0;
		if (c < 0x20 && !(c == 0x07 && st == SCAN_STRING))
			continue;		/* other C0: run, the sequence goes on */
		switch (st) {
		case SCAN_GROUND:
			break;
		case SCAN_STRING_ESC:
			if (c == '\\') {
				st = SCAN_GROUND;
				break;
			}
			st = SCAN_ESC;
			/* c continues a new escape sequence */
			__attribute__((fallthrough));
		case SCAN_ESC:
			/* as libvterm: '[' 'P' ']' even after intermediates */
			if (c == '[') {
				st = SCAN_CSI;
				s->csi_phase = 0;
				s->csi_seps = 0;
				s->csi_digits = 0;
				s->csi_drop = false;
				s->csi_plain = true;
				s->csi_val = 0;
				s->csi_modes = 0;
				s->csi_leader = 0;
			} else if (c == 'P' || c == ']')
				st = SCAN_STRING;
			else if (c >= 0x20 && c <= 0x2f) {
				s->esc_i1 = s->esc_inter ? (unsigned char)(s->esc_i1 | 0x80) : c;
				s->esc_inter = true;
			} else if (c >= 0x30 && c <= 0x7e) {
				st = SCAN_GROUND;
				esc_final(s, c);
				if (c == '8' && !s->esc_inter) {	/* DECRC */
					feed_run(s, p + run, i + 1 - run);
					run = i + 1;
					term_scan_clamp_cursor(s);
				}
			}
			break;
		case SCAN_CSI:
			/* Phases as libvterm's parser: leader, arguments, intermediates. */
			if (s->csi_phase == 0) {
				if (c >= 0x3c && c <= 0x3f) {
					s->csi_leader = s->csi_plain ? c : 0xff;
					s->csi_plain = false;
					break;
				}
				s->csi_phase = 1;
			}
			if (s->csi_phase == 1) {
				if ((c >= '0' && c <= '9') || c == ':' || c == ';') {
					bool drop_digit = false;

					if (c >= ':' && !s->csi_drop)
						csi_param_end(s);
					if (!s->csi_drop && c >= ':' && ++s->csi_seps >= TERM_CSI_ARGS)
						s->csi_drop = true;
					if (c >= ':')
						s->csi_digits = 0;
					else	/* more would overflow libvterm's long (UB) */
						drop_digit = ++s->csi_digits > 9;
					if (c < ':' && !drop_digit && !s->csi_drop && s->csi_val < 100000)
						s->csi_val = s->csi_val * 10 + (c - '0');
					if (s->csi_drop || drop_digit) {
						feed_run(s, p + run, i - run);
						run = i + 1;
					}
					break;
				}
				s->csi_phase = 2;
			}
			if (c >= 0x20 && c <= 0x2f) {
				s->csi_plain = false;
				s->csi_modes |= 4u;
				break;
			}
			st = SCAN_GROUND;	/* a final byte, or an invalid one */
			if (!s->csi_drop)
				csi_param_end(s);
			csi_final(s, c);
			if (c == 'b' && s->csi_plain && !rep_safe(s->last_cp)) {
				feed_run(s, p + run, i - run);
				feed_run(s, (const unsigned char *)"N", 1);
				run = i + 1;
			} else if (c == 'l' || c == 'h') {	/* ?1048l/?1049l restore too */
				feed_run(s, p + run, i + 1 - run);
				run = i + 1;
				term_scan_clamp_cursor(s);
			}
			break;
		case SCAN_STRING:
			if (c == 0x07)
				st = SCAN_GROUND;
			break;
		}
	}
	s->state = st;
	s->utf8_left = left;
	if (st == SCAN_STRING_ESC && !s->esc_held && esc_pos != SIZE_MAX) {
		/* A write that ends between a string's ESC and its '\\' makes
		 * libvterm copy a fragment of length -1: hold the ESC back. */
		feed_run(s, p + run, esc_pos - run);
		s->esc_held = true;
		return;
	}
	if (left > 0) {
		/* Hold the unfinished character back until it completes. */
		size_t from = seq_start != SIZE_MAX ? seq_start : run;

		feed_run(s, p + run, from - run);
		LZ_ASSERT(s->u8len + (len - from) <= sizeof(s->u8buf));
		memcpy(s->u8buf + s->u8len, p + from, len - from);
		s->u8len += len - from;
		return;
	}
	feed_run(s, p + run, len - run);
}
