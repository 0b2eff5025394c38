/* term.c - one embedded terminal around libvterm 0.1.4 (see term.h).
 *
 * Theory of operation (after neovim's terminal.c): libvterm's screen layer
 * keeps the cells; its callbacks only record what changed. damage and
 * moverect widen one dirty row range, settermprop/movecursor/bell set event
 * bits, sb_pushline/sb_popline move lines through the ring in term-sb.c, and
 * the output callback appends replies to a byte buffer the caller drains.
 * Damage merge is VTERM_DAMAGE_SCROLL, so a burst of scrolling lines becomes
 * one moverect plus one damage per term_feed() instead of one per line.
 *
 * libvterm 0.1.4 traps worked around here (each found by tests/fuzz/fuzz-term,
 * each with a unit test that fails without the fix):
 *   - a CSI with more than 16 parameters writes past libvterm's array:
 *     feed_scan drops the excess parameter bytes (and digits beyond 9 in
 *     one parameter, which overflow a long);
 *   - a UTF-8 character left half-way across writes or cut by a control
 *     makes the decoder write past its array: feed_scan holds unfinished
 *     characters back and feeds U+FFFD for broken ones, and for C1
 *     controls written as UTF-8 (width -1 in libvterm: the cursor would
 *     leave the screen on the left);
 *   - one big write puts 4 bytes per input byte on the stack: feed_run
 *     slices writes to 16 KiB;
 *   - REP (CSI b) after a zero-width glyph, or before any printed
 *     character, loops forever: term_new prints a space and resets, and
 *     feed_scan defuses a REP after a character it cannot vouch for;
 *   - a DECSTBM top margin is not clamped on resize: term_resize resets the
 *     margins when the height shrinks;
 *   - a string's ST split from its ESC (by a write boundary or a control)
 *     makes the parser copy a fragment of length -1: the ESC is held back
 *     and such controls are dropped;
 *   - a saved cursor is restored (DECRC, ?1049l) without clamping it to a
 *     smaller screen: clamp_cursor puts it back;
 *   - a wide char in a 1-column terminal crashes: TERM_MIN_COLS is 2.
 */
#include <stdio.h>
#include <string.h>

#include "term.h"
#include "term-sb.h"
#include "xmalloc.h"

#define TERM_OUTPUT_MAX	(1u << 20)	/* replies beyond this are dropped */
#define TERM_FEED_SLICE	((size_t)16384)	/* bytes per vterm_input_write */
#define TERM_CSI_ARGS	16		/* libvterm's CSI_ARGS_MAX, unchecked there */

/* Where the byte stream stands, tracked alongside libvterm's own parser
 * (which is opaque): enough to tell "between sequences" from "inside one". */
enum term_scan {
	SCAN_GROUND,
	SCAN_ESC,		/* after ESC, and its intermediates (ESC ( B) */
	SCAN_CSI,		/* ESC [ leader, parameters, intermediates */
	SCAN_STRING,		/* OSC/DCS/APC/PM/SOS body */
	SCAN_STRING_ESC,	/* ESC inside a string: ST if '\\' follows */
};

struct term {
	VTerm *vt;
	VTermScreen *vs;
	VTermState *st;
	int rows, cols;
	struct term_sb *sb;
	size_t offset;			/* view scrolled back by this many lines */
	int dirty_start, dirty_end;	/* view rows; start == end: clean */
	unsigned events;
	unsigned long bells;
	struct term_cursor cursor;
	bool alt, reverse;
	int mouse;
	char title[TERM_TITLE_MAX + 1];
	char *out;
	size_t out_len, out_cap;
	bool replies;			/* keep replies made while feeding */
	bool in_key;			/* output now is a key encoding */
	enum term_scan scan;
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
	VTermScreenCell blank;
};

static void
dirty_rows(struct term *t, int start, int end)
{
	long s = (long)start + (long)t->offset, e = (long)end + (long)t->offset;

	if (s < 0)
		s = 0;
	if (e > t->rows)
		e = t->rows;
	if (s >= e)
		return;
	if (t->dirty_start == t->dirty_end) {
		t->dirty_start = (int)s;
		t->dirty_end = (int)e;
		return;
	}
	if (s < t->dirty_start)
		t->dirty_start = (int)s;
	if (e > t->dirty_end)
		t->dirty_end = (int)e;
}

static int
damage_cb(VTermRect rect, void *user)
{
	dirty_rows(user, rect.start_row, rect.end_row);
	return 1;
}

static int
moverect_cb(VTermRect dest, VTermRect src, void *user)
{
	dirty_rows(user, dest.start_row, dest.end_row);
	dirty_rows(user, src.start_row, src.end_row);
	return 1;
}

static int
movecursor_cb(VTermPos pos, VTermPos oldpos, int visible, void *user)
{
	struct term *t = user;

	(void)oldpos;
	t->cursor.row = pos.row;
	t->cursor.col = pos.col;
	t->cursor.visible = visible != 0;
	t->events |= TERM_EV_CURSOR;
	return 1;
}

static int
settermprop_cb(VTermProp prop, VTermValue *val, void *user)
{
	struct term *t = user;

	switch (prop) {
	case VTERM_PROP_CURSORVISIBLE:
		t->cursor.visible = val->boolean != 0;
		t->events |= TERM_EV_CURSOR;
		break;
	case VTERM_PROP_CURSORBLINK:
		t->cursor.blink = val->boolean != 0;
		t->events |= TERM_EV_CURSOR;
		break;
	case VTERM_PROP_CURSORSHAPE:
		t->cursor.shape = val->number;
		t->events |= TERM_EV_CURSOR;
		break;
	case VTERM_PROP_ALTSCREEN:
		t->alt = val->boolean != 0;
		t->events |= TERM_EV_ALTSCREEN;
		term_dirty_all(t);
		break;
	case VTERM_PROP_TITLE:
		snprintf(t->title, sizeof(t->title), "%s", val->string != NULL ? val->string : "");
		t->events |= TERM_EV_TITLE;
		break;
	case VTERM_PROP_REVERSE:
		t->reverse = val->boolean != 0;
		t->events |= TERM_EV_MODE;
		term_dirty_all(t);
		break;
	case VTERM_PROP_MOUSE:
		t->mouse = val->number;
		t->events |= TERM_EV_MODE;
		break;
	case VTERM_PROP_ICONNAME:
	case VTERM_N_PROPS:
		break;
	}
	return 1;
}

static int
bell_cb(void *user)
{
	struct term *t = user;

	t->bells++;
	t->events |= TERM_EV_BELL;
	return 1;
}

static int
resize_cb(int rows, int cols, void *user)
{
	struct term *t = user;

	t->rows = rows;
	t->cols = cols;
	t->events |= TERM_EV_RESIZE;
	return 1;
}

static int
sb_pushline_cb(int cols, const VTermScreenCell *cells, void *user)
{
	struct term *t = user;
	bool dropped = term_sb_push(t->sb, cols, cells, &t->blank);

	/* Keep a scrolled-back view on the same lines while output goes on. */
	if (t->offset > 0) {
		if (!dropped)
			t->offset++;
		else
			term_dirty_all(t);
	}
	return 1;
}

static int
sb_popline_cb(int cols, VTermScreenCell *cells, void *user)
{
	struct term *t = user;

	if (!term_sb_pop(t->sb, cols, cells, &t->blank))
		return 0;
	if (t->offset > term_sb_count(t->sb))
		t->offset = term_sb_count(t->sb);
	return 1;
}

static const VTermScreenCallbacks term_screen_cbs = {
	.damage = damage_cb,
	.moverect = moverect_cb,
	.movecursor = movecursor_cb,
	.settermprop = settermprop_cb,
	.bell = bell_cb,
	.resize = resize_cb,
	.sb_pushline = sb_pushline_cb,
	.sb_popline = sb_popline_cb,
};

static void
output_append(struct term *t, const char *s, size_t len)
{
	if (len == 0 || len > TERM_OUTPUT_MAX - t->out_len)
		return;
	if (t->out_len + len > t->out_cap) {
		size_t cap = t->out_cap > 0 ? t->out_cap : 256;

		while (cap < t->out_len + len)
			cap *= 2;
		t->out = xrealloc(t->out, cap);
		t->out_cap = cap;
	}
	memcpy(t->out + t->out_len, s, len);
	t->out_len += len;
}

static void
output_cb(const char *s, size_t len, void *user)
{
	struct term *t = user;

	if (!t->replies && !t->in_key)
		return;
	output_append(t, s, len);
}

static int
check_size(int rows, int cols, lz_err_t *err)
{
	if (rows < 1 || rows > TERM_MAX_ROWS || cols < TERM_MIN_COLS || cols > TERM_MAX_COLS)
		return lz_err_set(err, LZ_EINVAL, "terminal size %dx%d out of range (1..%d rows, %d..%d columns)",
		    rows, cols, TERM_MAX_ROWS, TERM_MIN_COLS, TERM_MAX_COLS);
	return 0;
}

int
term_new(int rows, int cols, size_t sb_lines, struct term **out, lz_err_t *err)
{
	struct term *t;

	if (check_size(rows, cols, err) < 0)
		return -1;
	t = xcalloc(1, sizeof(*t));
	t->vt = vterm_new(rows, cols);
	LZ_ASSERT(t->vt != NULL);
	t->rows = rows;
	t->cols = cols;
	t->replies = true;
	t->cursor.visible = true;
	t->cursor.blink = true;
	t->cursor.shape = VTERM_PROP_CURSORSHAPE_BLOCK;
	t->sb = term_sb_new(sb_lines);
	vterm_set_utf8(t->vt, 1);
	vterm_output_set_callback(t->vt, output_cb, t);
	t->st = vterm_obtain_state(t->vt);
	t->vs = vterm_obtain_screen(t->vt);
	vterm_screen_enable_altscreen(t->vs, 1);
	vterm_screen_set_callbacks(t->vs, &term_screen_cbs, t);
	vterm_screen_set_damage_merge(t->vs, VTERM_DAMAGE_SCROLL);
	vterm_screen_reset(t->vs, 1);
	/* libvterm 0.1.4 loops forever on REP (CSI b) before any character was
	 * printed, and a reset does not clear the last character: print one
	 * space and reset, so an early REP repeats a blank instead. */
	vterm_input_write(t->vt, " ", 1);
	t->last_cp = ' ';
	vterm_screen_reset(t->vs, 1);
	vterm_screen_flush_damage(t->vs);
	t->blank.width = 1;
	vterm_state_get_default_colors(t->st, &t->blank.fg, &t->blank.bg);
	t->events = 0;
	term_dirty_all(t);
	*out = t;
	return 0;
}

void
term_free(struct term *t)
{
	if (t == NULL)
		return;
	vterm_free(t->vt);
	term_sb_free(t->sb);
	free(t->out);
	free(t);
}

/* libvterm 0.1.4 puts a uint32_t VLA of the write's length on the stack
 * for text: one 3 MB write overflows an 8 MB stack. Feed in slices. */
static void
feed_run(struct term *t, const unsigned char *p, size_t len)
{
	for (size_t off = 0; off < len; off += TERM_FEED_SLICE)
		vterm_input_write(t->vt, (const char *)p + off,
		    len - off < TERM_FEED_SLICE ? len - off : TERM_FEED_SLICE);
}

/* libvterm 0.1.4 restores a saved cursor without clamping it to a screen
 * that shrank since, then writes line info past its array: put it back on
 * the screen right after a restore. */
static void
clamp_cursor(struct term *t)
{
	VTermPos pos;
	char seq[32];
	int n;

	vterm_state_get_cursorpos(t->st, &pos);
	if (pos.row >= 0 && pos.row < t->rows && pos.col >= 0 && pos.col < t->cols)
		return;
	n = snprintf(seq, sizeof(seq), "\x1b[%d;%dH",
	    pos.row < 0 ? 1 : pos.row >= t->rows ? t->rows : pos.row + 1,
	    pos.col < 0 ? 1 : pos.col >= t->cols ? t->cols : pos.col + 1);
	vterm_input_write(t->vt, seq, (size_t)n);
}

/* Characters whose width libvterm surely finds non-zero: REP may repeat
 * them. After anything else (combining marks, zero-width or format chars,
 * unassigned code points) libvterm 0.1.4 would repeat a zero-width glyph
 * forever. */
static bool
rep_safe(uint32_t c)
{
	return (c >= 0x20 && c < 0x7f) || (c >= 0xa0 && c < 0x250 && c != 0xad) ||
	    (c >= 0x2190 && c < 0x2200) || (c >= 0x2500 && c < 0x2600) ||
	    (c >= 0x3040 && c < 0x3100) || (c >= 0x4e00 && c < 0xa000) ||
	    (c >= 0xac00 && c < 0xd7a4) || c == 0xfffd;
}

/* Follow the stream's state and hand it to libvterm, leaving out the
 * parameters of a CSI beyond the 16th: libvterm 0.1.4 writes them past its
 * argument array (heap corruption from any PTY output), and turning a REP
 * after a character rep_safe() does not know into an unknown CSI. */
static void
feed_scan(struct term *t, const unsigned char *p, size_t len)
{
	enum term_scan st = t->scan;
	int left = t->utf8_left;
	size_t run = 0, seq_start = SIZE_MAX;	/* SIZE_MAX: began in an earlier call */
	size_t esc_pos = SIZE_MAX;		/* ESC of a string's possible ST */

	for (size_t i = 0; i < len; i++) {
		unsigned char c = p[i];

		if (left > 0) {
			if (c >= 0x80 && c < 0xc0) {
				t->cp = t->cp << 6 | (c & 0x3f);
				if (--left > 0)
					continue;
				if (t->cp >= 0x80 && t->cp < 0xa0) {
					/* A C1 control as UTF-8: libvterm gives it width -1
					 * and walks the cursor off the left edge. */
					if (seq_start != SIZE_MAX)
						feed_run(t, p + run, seq_start - run);
					feed_run(t, (const unsigned char *)"\xef\xbf\xbd", 3);
					t->last_cp = 0xfffd;
					run = i + 1;
				} else {
					/* Complete: what an earlier call held back goes first. */
					feed_run(t, t->u8buf, t->u8len);
					t->last_cp = t->cp;
				}
				t->u8len = 0;
				continue;
			}
			/* Broken: libvterm never sees it (its decoder would keep the
			 * half sequence and later write past its code point array). */
			if (seq_start != SIZE_MAX)
				feed_run(t, p + run, seq_start - run);
			feed_run(t, (const unsigned char *)"\xef\xbf\xbd", 3);
			t->u8len = 0;
			t->last_cp = 0xfffd;
			run = i;
			left = 0;
		}
		if (st == SCAN_GROUND && c >= 0x20 && c != 0x7f) {
			if (c < 0x80)
				t->last_cp = c;
			else if (c < 0xc0 || c >= 0xfe)
				t->last_cp = 0xfffd;	/* libvterm shows U+FFFD */
			else {
				left = c < 0xe0 ? 1 : c < 0xf0 ? 2 : c < 0xf8 ? 3 : c < 0xfc ? 4 : 5;
				t->cp = c & (0x3fu >> left);
				seq_start = i;
			}
			continue;
		}
		if (st == SCAN_STRING_ESC && t->esc_held && c != 0x18 && c != 0x1a &&
		    c != 0x1b && c >= 0x20 && c != 0x7f) {
			/* The ESC held back by the last call goes in one write with
			 * what follows it (see below). */
			t->esc_held = false;
			if (c == '\\') {
				feed_run(t, (const unsigned char *)"\x1b\\", 2);
				run = i + 1;
				st = SCAN_GROUND;
				continue;
			}
			feed_run(t, (const unsigned char *)"\x1b", 1);
		}
		if (st == SCAN_STRING_ESC && (c < 0x20 || c == 0x7f) && c != 0x18 && c != 0x1a && c != 0x1b) {
			/* libvterm 0.1.4 restarts its string fragment after a control
			 * between ESC and '\\' and then copies a fragment of length -1:
			 * such a control is dropped, and the ESC held back. */
			if (!t->esc_held) {
				feed_run(t, p + run, esc_pos - run);
				t->esc_held = true;
			}
			run = i + 1;
			continue;
		}
		if (t->esc_held) {
			/* CAN, SUB or ESC after a held ESC: libvterm would leave the
			 * string on those too; nothing of the held ESC matters. */
			t->esc_held = false;
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
			t->esc_inter = false;
			continue;
		}
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
				t->csi_phase = 0;
				t->csi_seps = 0;
				t->csi_digits = 0;
				t->csi_drop = false;
				t->csi_plain = true;
			} else if (c == 'P' || c == ']')
				st = SCAN_STRING;
			else if (c >= 0x20 && c <= 0x2f)
				t->esc_inter = true;
			else if (c >= 0x30 && c <= 0x7e) {
				st = SCAN_GROUND;
				if (c == '8' && !t->esc_inter) {	/* DECRC */
					feed_run(t, p + run, i + 1 - run);
					run = i + 1;
					clamp_cursor(t);
				}
			}
			break;
		case SCAN_CSI:
			/* Phases as libvterm's parser: leader, arguments, intermediates. */
			if (t->csi_phase == 0) {
				if (c >= 0x3c && c <= 0x3f) {
					t->csi_plain = false;
					break;
				}
				t->csi_phase = 1;
			}
			if (t->csi_phase == 1) {
				if ((c >= '0' && c <= '9') || c == ':' || c == ';') {
					bool drop_digit = false;

					if (!t->csi_drop && c >= ':' && ++t->csi_seps >= TERM_CSI_ARGS)
						t->csi_drop = true;
					if (c >= ':')
						t->csi_digits = 0;
					else	/* more would overflow libvterm's long (UB) */
						drop_digit = ++t->csi_digits > 9;
					if (t->csi_drop || drop_digit) {
						feed_run(t, p + run, i - run);
						run = i + 1;
					}
					break;
				}
				t->csi_phase = 2;
			}
			if (c >= 0x20 && c <= 0x2f) {
				t->csi_plain = false;
				break;
			}
			st = SCAN_GROUND;	/* a final byte, or an invalid one */
			if (c == 'b' && t->csi_plain && !rep_safe(t->last_cp)) {
				feed_run(t, p + run, i - run);
				feed_run(t, (const unsigned char *)"N", 1);
				run = i + 1;
			} else if (c == 'l' || c == 'h') {	/* ?1048l/?1049l restore too */
				feed_run(t, p + run, i + 1 - run);
				run = i + 1;
				clamp_cursor(t);
			}
			break;
		case SCAN_STRING:
			if (c == 0x07)
				st = SCAN_GROUND;
			break;
		}
	}
	t->scan = st;
	t->utf8_left = left;
	if (st == SCAN_STRING_ESC && !t->esc_held && esc_pos != SIZE_MAX) {
		/* A write that ends between a string's ESC and its '\\' makes
		 * libvterm copy a fragment of length -1: hold the ESC back. */
		feed_run(t, p + run, esc_pos - run);
		t->esc_held = true;
		return;
	}
	if (left > 0) {
		/* Hold the unfinished character back until it completes. */
		size_t from = seq_start != SIZE_MAX ? seq_start : run;

		feed_run(t, p + run, from - run);
		LZ_ASSERT(t->u8len + (len - from) <= sizeof(t->u8buf));
		memcpy(t->u8buf + t->u8len, p + from, len - from);
		t->u8len += len - from;
		return;
	}
	feed_run(t, p + run, len - run);
}

bool
term_idle(const struct term *t)
{
	return t->scan == SCAN_GROUND && t->utf8_left == 0;
}

void
term_feed(struct term *t, const char *buf, size_t len)
{
	if (len == 0)
		return;
	feed_scan(t, (const unsigned char *)buf, len);
	vterm_screen_flush_damage(t->vs);
}

int
term_resize(struct term *t, int rows, int cols, lz_err_t *err)
{
	bool shrink;

	if (check_size(rows, cols, err) < 0)
		return -1;
	if (rows == t->rows && cols == t->cols)
		return 0;
	/* CAN ends a half-sent sequence or character at the old size, in both
	 * parsers alike, so nothing half-parsed lands on the new geometry. */
	if (!term_idle(t))
		feed_scan(t, (const unsigned char *)"\x18", 1);
	shrink = rows < t->rows;
	vterm_set_size(t->vt, rows, cols);
	if (shrink) {
		/* libvterm 0.1.4 does not clamp a top margin (DECSTBM) to the new
		 * height, and the next scroll memmoves a negative size. Reset the
		 * margins like xterm does on resize (the app redraws on SIGWINCH)
		 * and put the cursor back. */
		VTermPos pos;
		char seq[32];
		int n;

		vterm_state_get_cursorpos(t->st, &pos);
		n = snprintf(seq, sizeof(seq), "\x1b[r\x1b[%d;%dH",
		    pos.row < rows ? pos.row + 1 : rows, pos.col < cols ? pos.col + 1 : cols);
		feed_scan(t, (const unsigned char *)seq, (size_t)n);
	}
	clamp_cursor(t);
	vterm_screen_flush_damage(t->vs);
	t->rows = rows;
	t->cols = cols;
	if (t->offset > term_sb_count(t->sb))
		t->offset = term_sb_count(t->sb);
	t->events |= TERM_EV_RESIZE;
	term_dirty_all(t);
	return 0;
}

void
term_size(const struct term *t, int *rows, int *cols)
{
	*rows = t->rows;
	*cols = t->cols;
}

bool
term_dirty(const struct term *t, int *start, int *end)
{
	if (t->dirty_start >= t->dirty_end)
		return false;
	*start = t->dirty_start;
	*end = t->dirty_end;
	return true;
}

void
term_dirty_clear(struct term *t)
{
	t->dirty_start = t->dirty_end = 0;
}

void
term_dirty_all(struct term *t)
{
	t->dirty_start = 0;
	t->dirty_end = t->rows;
}

unsigned
term_events_take(struct term *t)
{
	unsigned ev = t->events;

	t->events = 0;
	return ev;
}

unsigned long
term_bell_count(const struct term *t)
{
	return t->bells;
}

const char *
term_title(const struct term *t)
{
	return t->title;
}

void
term_cursor(const struct term *t, struct term_cursor *out)
{
	VTermPos pos;

	*out = t->cursor;
	/* The state's position, clamped: movecursor may lag behind a resize. */
	vterm_state_get_cursorpos(t->st, &pos);
	out->row = pos.row < 0 ? 0 : pos.row >= t->rows ? t->rows - 1 : pos.row;
	out->col = pos.col < 0 ? 0 : pos.col >= t->cols ? t->cols - 1 : pos.col;
}

bool
term_altscreen(const struct term *t)
{
	return t->alt;
}

bool
term_reverse(const struct term *t)
{
	return t->reverse;
}

int
term_mouse(const struct term *t)
{
	return t->mouse;
}

/* Bytes one probe added to the output, then forgotten. */
static size_t
probe_len(struct term *t, size_t mark, char *last2)
{
	size_t n = t->out_len - mark;

	last2[0] = n >= 2 ? t->out[t->out_len - 2] : '\0';
	last2[1] = n >= 1 ? t->out[t->out_len - 1] : '\0';
	t->out_len = mark;
	return n;
}

unsigned
term_modes(struct term *t)
{
	size_t mark = t->out_len;
	bool in_key = t->in_key;
	unsigned m = 0;
	char l2[2];

	t->in_key = true;
	vterm_keyboard_key(t->vt, VTERM_KEY_UP, VTERM_MOD_NONE);
	/* ESC O A (or SS3 A) in application mode, ESC [ A otherwise */
	if (probe_len(t, mark, l2) >= 2 && l2[1] == 'A' && (l2[0] == 'O' || l2[0] == (char)0x8f))
		m |= TERM_MODE_APPCURSOR;
	vterm_keyboard_key(t->vt, VTERM_KEY_KP_0, VTERM_MOD_NONE);
	if (probe_len(t, mark, l2) > 1)
		m |= TERM_MODE_APPKEYPAD;
	vterm_keyboard_start_paste(t->vt);
	if (probe_len(t, mark, l2) > 0)
		m |= TERM_MODE_BRACKETPASTE;
	vterm_state_focus_in(t->st);
	if (probe_len(t, mark, l2) > 0)
		m |= TERM_MODE_FOCUS;
	t->in_key = in_key;
	return m;
}

const char *
term_output(const struct term *t, size_t *len)
{
	*len = t->out_len;
	return t->out;
}

void
term_output_consume(struct term *t, size_t n)
{
	if (n >= t->out_len) {
		t->out_len = 0;
		return;
	}
	memmove(t->out, t->out + n, t->out_len - n);
	t->out_len -= n;
}

void
term_set_replies(struct term *t, bool on)
{
	t->replies = on;
}

void
term_key(struct term *t, VTermKey key, VTermModifier mod)
{
	t->in_key = true;
	vterm_keyboard_key(t->vt, key, mod);
	t->in_key = false;
}

void
term_key_char(struct term *t, uint32_t c, VTermModifier mod)
{
	t->in_key = true;
	vterm_keyboard_unichar(t->vt, c, mod);
	t->in_key = false;
}

void
term_paste(struct term *t, const char *buf, size_t len)
{
	t->in_key = true;
	vterm_keyboard_start_paste(t->vt);
	output_append(t, buf, len);
	vterm_keyboard_end_paste(t->vt);
	t->in_key = false;
}

bool
term_cell(const struct term *t, int row, int col, VTermScreenCell *out)
{
	memset(out, 0, sizeof(*out));
	if (row < 0 || row >= t->rows || col < 0 || col >= t->cols)
		return false;
	return vterm_screen_get_cell(t->vs, (VTermPos){ .row = row, .col = col }, out) != 0;
}

bool
term_view_cell(const struct term *t, int row, int col, VTermScreenCell *out)
{
	if (row < 0 || row >= t->rows || col < 0 || col >= t->cols) {
		memset(out, 0, sizeof(*out));
		return false;
	}
	if ((size_t)row >= t->offset)
		return term_cell(t, row - (int)t->offset, col, out);
	if (!term_sb_cell(t->sb, t->offset - 1 - (size_t)row, col, out))
		*out = t->blank;
	return true;
}

unsigned
term_attrs_pack(const VTermScreenCellAttrs *a)
{
	return (unsigned)a->bold | (unsigned)a->underline << 1 | (unsigned)a->italic << 3 |
	    (unsigned)a->blink << 4 | (unsigned)a->reverse << 5 | (unsigned)a->strike << 6 |
	    (unsigned)a->font << 7 | (unsigned)a->dwl << 11 | (unsigned)a->dhl << 12;
}

int
term_attrs_unpack(unsigned v, VTermScreenCellAttrs *a)
{
	if (v >> 14 != 0 || ((v >> 7) & 0xf) > 9 || ((v >> 12) & 3) == 3)
		return -1;
	a->bold = v & 1;
	a->underline = (v >> 1) & 3;
	a->italic = (v >> 3) & 1;
	a->blink = (v >> 4) & 1;
	a->reverse = (v >> 5) & 1;
	a->strike = (v >> 6) & 1;
	a->font = (v >> 7) & 0xf;
	a->dwl = (v >> 11) & 1;
	a->dhl = (v >> 12) & 3;
	return 0;
}

size_t
term_utf8_put(uint32_t c, char *o)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | (c >> 6));
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | (c >> 12));
		o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c > 0x10ffff)
		return term_utf8_put(0xfffd, o);
	o[0] = (char)(0xf0 | (c >> 18));
	o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

size_t
term_view_text(const struct term *t, int row, char *buf, size_t size)
{
	VTermScreenCell c;
	size_t n = 0, keep = 0;
	char u[4];

	if (size == 0)
		return 0;
	for (int col = 0; col < t->cols; col++) {
		if (!term_view_cell(t, row, col, &c) || c.chars[0] == (uint32_t)-1)
			continue;
		for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && (i == 0 || c.chars[i] != 0); i++) {
			size_t k = term_utf8_put(c.chars[i] != 0 ? c.chars[i] : ' ', u);

			if (n + k >= size)
				goto out;
			memcpy(buf + n, u, k);
			n += k;
		}
		if (c.chars[0] != 0 && c.chars[0] != ' ')
			keep = n;
	}
out:
	buf[keep] = '\0';
	return keep;
}

const struct term_sb *
term_scrollback(const struct term *t)
{
	return t->sb;
}

size_t
term_scroll(struct term *t, long delta)
{
	size_t max = term_sb_count(t->sb), off = t->offset;

	if (delta < 0)
		off = (size_t)-delta >= off ? 0 : off - (size_t)-delta;
	else
		off = (size_t)delta >= max - off ? max : off + (size_t)delta;
	if (off != t->offset) {
		t->offset = off;
		term_dirty_all(t);
	}
	return t->offset;
}

size_t
term_scroll_offset(const struct term *t)
{
	return t->offset;
}

void
term_scroll_reset(struct term *t)
{
	term_scroll(t, -(long)t->offset);
}

void
term_default_colors(const struct term *t, VTermColor *fg, VTermColor *bg)
{
	*fg = t->blank.fg;
	*bg = t->blank.bg;
}

void
term_blank_cell(const struct term *t, VTermScreenCell *out)
{
	*out = t->blank;
}

VTermScreen *
term_vterm_screen(const struct term *t)
{
	return t->vs;
}
