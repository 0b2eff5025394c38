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
 *
 * Layout, as tmux's input.c: term_scan_feed takes a byte through an
 * unfinished UTF-8 character (scan_utf8), then the table scan_states[]:
 * what the state does with it first (GROUND's text, a string's ESC), the
 * bytes every state treats alike (scan_anywhere: NUL, DEL, CAN, SUB, ESC,
 * C0), and what the state does with the rest.
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

/* One term_scan_feed call: where it stands in p. Bytes from run on are not
 * yet given to libvterm; they go in one write when something must be left
 * out or held back. */
struct scan_feed {
	struct term_scan *s;
	const unsigned char *p;
	size_t i;		/* the byte at hand */
	size_t run;		/* first byte not yet given to libvterm */
	size_t seq_start;	/* an unfinished UTF-8 character; SIZE_MAX: began in an
				 * earlier call */
	size_t esc_pos;		/* ESC of a string's possible ST; SIZE_MAX: none */
	enum term_scan_state st;
	int left;		/* UTF-8 continuation bytes still expected */
};

/* Give libvterm what came before the character at hand (when it began in
 * this call), and U+FFFD for that character, which it must not see. */
static void
scan_replace(struct scan_feed *f)
{
	if (f->seq_start != SIZE_MAX)
		feed_run(f->s, f->p + f->run, f->seq_start - f->run);
	feed_run(f->s, (const unsigned char *)"\xef\xbf\xbd", 3);
	f->s->last_cp = 0xfffd;
}

/* A byte while a UTF-8 character is unfinished: true when it was a
 * continuation byte (taken); false when it broke the character, which is
 * replaced, and the byte goes on as if none were pending. */
static bool
scan_utf8(struct scan_feed *f, unsigned char c)
{
	struct term_scan *s = f->s;

	if (c >= 0x80 && c < 0xc0) {
		s->cp = s->cp << 6 | (c & 0x3f);
		if (--f->left > 0)
			return true;
		if (s->cp >= 0x80 && s->cp < 0xa0) {
			/* A C1 control as UTF-8: libvterm gives it width -1
			 * and walks the cursor off the left edge. */
			scan_replace(f);
			f->run = f->i + 1;
		} else {
			/* Complete: what an earlier call held back goes first. */
			feed_run(s, s->u8buf, s->u8len);
			s->last_cp = s->cp;
		}
		s->u8len = 0;
		return true;
	}
	/* Broken: libvterm never sees it (its decoder would keep the half
	 * sequence and later write past its code point array). */
	scan_replace(f);
	s->u8len = 0;
	f->run = f->i;
	f->left = 0;
	return false;
}

/* ---- what a byte does before the bytes every state treats alike: true
 * when it was taken ---- */

/* GROUND: text. ASCII prints; a UTF-8 lead byte starts a character. */
static bool
scan_ground_text(struct scan_feed *f, unsigned char c)
{
	struct term_scan *s = f->s;

	if (c < 0x20 || c == 0x7f)
		return false;
	s->odd_glyph = c >= 0x80;
	if (c < 0x80) {
		s->last_cp = c;
		s->ss_pending = false;
	} else if (c < 0xc0 || c >= 0xfe)
		s->last_cp = 0xfffd;	/* libvterm shows U+FFFD */
	else {
		f->left = c < 0xe0 ? 1 : c < 0xf0 ? 2 : c < 0xf8 ? 3 : c < 0xfc ? 4 : 5;
		s->cp = c & (0x3fu >> f->left);
		f->seq_start = f->i;
	}
	return true;
}

/* STRING_ESC: the ESC a call held back, and controls between a string's
 * ESC and its '\\'. */
static bool
scan_string_esc_early(struct scan_feed *f, unsigned char c)
{
	struct term_scan *s = f->s;
	bool abort = c == 0x18 || c == 0x1a || c == 0x1b;

	if (s->esc_held && !abort && c >= 0x20 && c != 0x7f) {
		/* The ESC held back by the last call goes in one write with
		 * what follows it (see term_scan_feed's end). */
		s->esc_held = false;
		if (c == '\\') {
			feed_run(s, (const unsigned char *)"\x1b\\", 2);
			f->run = f->i + 1;
			f->st = SCAN_GROUND;
			return true;
		}
		feed_run(s, (const unsigned char *)"\x1b", 1);
	}
	if ((c < 0x20 || c == 0x7f) && !abort) {
		/* libvterm 0.1.4 restarts its string fragment after a control
		 * between ESC and '\\' and then copies a fragment of length -1:
		 * such a control is dropped, and the ESC held back. */
		if (!s->esc_held) {
			feed_run(s, f->p + f->run, f->esc_pos - f->run);
			s->esc_held = true;
		}
		f->run = f->i + 1;
		return true;
	}
	return false;
}

/* Every state alike: NUL and DEL skipped, CAN and SUB abort, ESC starts a
 * sequence (or may end a string), SO/SI shift, other C0 controls run
 * inside a sequence. True when the byte was taken. */
static bool
scan_anywhere(struct scan_feed *f, unsigned char c)
{
	struct term_scan *s = f->s;

	if (s->esc_held) {
		/* CAN, SUB or ESC after a held ESC: libvterm would leave the
		 * string on those too; nothing of the held ESC matters. */
		s->esc_held = false;
	}
	if (c == 0x00 || c == 0x7f)
		return true;		/* libvterm skips NUL and DEL everywhere */
	if (c == 0x18 || c == 0x1a) {	/* CAN/SUB abort any sequence */
		f->st = SCAN_GROUND;
		return true;
	}
	if (c == 0x1b) {
		if (f->st == SCAN_STRING)
			f->esc_pos = f->i;
		f->st = f->st == SCAN_STRING ? SCAN_STRING_ESC : SCAN_ESC;
		s->esc_inter = false;
		return true;
	}
	if (c == 0x0e)			/* SO: G1 into GL */
		s->gl = 1;
	else if (c == 0x0f && f->st == SCAN_GROUND)	/* SI: G0 back */
		s->gl = 0;
	/* other C0: run, the sequence goes on (BEL ends a string) */
	return c < 0x20 && !(c == 0x07 && f->st == SCAN_STRING);
}

/* ---- what the rest of the bytes do, state by state ---- */

static void
scan_esc_byte(struct scan_feed *f, unsigned char c)
{
	struct term_scan *s = f->s;

	/* as libvterm: '[' 'P' ']' even after intermediates */
	if (c == '[') {
		f->st = SCAN_CSI;
		s->csi_phase = 0;
		s->csi_seps = 0;
		s->csi_digits = 0;
		s->csi_drop = false;
		s->csi_plain = true;
		s->csi_val = 0;
		s->csi_modes = 0;
		s->csi_leader = 0;
	} else if (c == 'P' || c == ']')
		f->st = SCAN_STRING;
	else if (c >= 0x20 && c <= 0x2f) {
		s->esc_i1 = s->esc_inter ? (unsigned char)(s->esc_i1 | 0x80) : c;
		s->esc_inter = true;
	} else if (c >= 0x30 && c <= 0x7e) {
		f->st = SCAN_GROUND;
		esc_final(s, c);
		if (c == '8' && !s->esc_inter) {	/* DECRC */
			feed_run(s, f->p + f->run, f->i + 1 - f->run);
			f->run = f->i + 1;
			term_scan_clamp_cursor(s);
		}
	}
}

/* A string's ESC then c: ST, or a new escape sequence. */
static void
scan_string_esc_byte(struct scan_feed *f, unsigned char c)
{
	if (c == '\\') {
		f->st = SCAN_GROUND;
		return;
	}
	f->st = SCAN_ESC;
	scan_esc_byte(f, c);
}

/* A CSI parameter byte (digit, ':' or ';'): the 17th parameter on and
 * digits beyond the 9th are left out. */
static void
scan_csi_param(struct scan_feed *f, unsigned char c)
{
	struct term_scan *s = f->s;
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
		feed_run(s, f->p + f->run, f->i - f->run);
		f->run = f->i + 1;
	}
}

/* A CSI's final byte (or an invalid one): REP after a character libvterm
 * may loop or crash on becomes an unknown CSI; a mode change may restore a
 * cursor. */
static void
scan_csi_final(struct scan_feed *f, unsigned char c)
{
	struct term_scan *s = f->s;

	f->st = SCAN_GROUND;
	if (!s->csi_drop)
		csi_param_end(s);
	csi_final(s, c);
	if (c == 'b' && s->csi_plain && !rep_safe(s->last_cp)) {
		feed_run(s, f->p + f->run, f->i - f->run);
		feed_run(s, (const unsigned char *)"N", 1);
		f->run = f->i + 1;
	} else if (c == 'l' || c == 'h') {	/* ?1048l/?1049l restore too */
		feed_run(s, f->p + f->run, f->i + 1 - f->run);
		f->run = f->i + 1;
		term_scan_clamp_cursor(s);
	}
}

/* Phases as libvterm's parser: leader, arguments, intermediates, final. */
static void
scan_csi_byte(struct scan_feed *f, unsigned char c)
{
	struct term_scan *s = f->s;

	if (s->csi_phase == 0) {
		if (c >= 0x3c && c <= 0x3f) {
			s->csi_leader = s->csi_plain ? c : 0xff;
			s->csi_plain = false;
			return;
		}
		s->csi_phase = 1;
	}
	if (s->csi_phase == 1) {
		if ((c >= '0' && c <= '9') || c == ':' || c == ';') {
			scan_csi_param(f, c);
			return;
		}
		s->csi_phase = 2;
	}
	if (c >= 0x20 && c <= 0x2f) {
		s->csi_plain = false;
		s->csi_modes |= 4u;
		return;
	}
	scan_csi_final(f, c);
}

static void
scan_string_byte(struct scan_feed *f, unsigned char c)
{
	if (c == 0x07)
		f->st = SCAN_GROUND;
}

/* The state table, as tmux's input.c: for each state, what a byte does
 * before the bytes every state treats alike (scan_anywhere), and what the
 * rest do. GROUND's text is all taken early: its other bytes are controls. */
static const struct {
	bool (*early)(struct scan_feed *, unsigned char c);
	void (*byte)(struct scan_feed *, unsigned char c);
} scan_states[] = {
	[SCAN_GROUND] = { scan_ground_text, NULL },
	[SCAN_ESC] = { NULL, scan_esc_byte },
	[SCAN_CSI] = { NULL, scan_csi_byte },
	[SCAN_STRING] = { NULL, scan_string_byte },
	[SCAN_STRING_ESC] = { scan_string_esc_early, scan_string_esc_byte },
};

/* The end of a call: a string's ESC or an unfinished character is held
 * back for the next; the rest goes to libvterm. */
static void
scan_end(struct scan_feed *f, size_t len)
{
	struct term_scan *s = f->s;

	s->state = f->st;
	s->utf8_left = f->left;
	if (f->st == SCAN_STRING_ESC && !s->esc_held && f->esc_pos != SIZE_MAX) {
		/* A write that ends between a string's ESC and its '\\' makes
		 * libvterm copy a fragment of length -1: hold the ESC back. */
		feed_run(s, f->p + f->run, f->esc_pos - f->run);
		s->esc_held = true;
		return;
	}
	if (f->left > 0) {
		/* Hold the unfinished character back until it completes. */
		size_t from = f->seq_start != SIZE_MAX ? f->seq_start : f->run;

		feed_run(s, f->p + f->run, from - f->run);
		LZ_ASSERT(s->u8len + (len - from) <= sizeof(s->u8buf));
		memcpy(s->u8buf + s->u8len, f->p + from, len - from);
		s->u8len += len - from;
		return;
	}
	feed_run(s, f->p + f->run, len - f->run);
}

/* Follow the stream's state and hand it to libvterm, leaving out the
 * parameters of a CSI beyond the 16th: libvterm 0.1.4 writes them past its
 * argument array (heap corruption from any PTY output), and turning a REP
 * after a character rep_safe() does not know into an unknown CSI. */
void
term_scan_feed(struct term_scan *s, const unsigned char *p, size_t len)
{
	struct scan_feed f = { .s = s, .p = p, .seq_start = SIZE_MAX, .esc_pos = SIZE_MAX,
		.st = s->state, .left = s->utf8_left };

	for (f.i = 0; f.i < len; f.i++) {
		unsigned char c = p[f.i];

		if (f.left > 0 && scan_utf8(&f, c))
			continue;
		if (scan_states[f.st].early != NULL && scan_states[f.st].early(&f, c))
			continue;
		if (scan_anywhere(&f, c))
			continue;
		if (scan_states[f.st].byte != NULL)
			scan_states[f.st].byte(&f, c);
	}
	scan_end(&f, len);
}
