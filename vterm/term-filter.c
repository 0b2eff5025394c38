/* term-filter.c - output and key filter for the user's terminal (see term-filter.h). */
#include <string.h>

#include "term-fast.h"
#include "term-filter.h"

enum {
	TF_GROUND,
	TF_ESC,		/* ESC (and intermediates) read */
	TF_CSI,		/* ESC [ read */
	TF_SS3,		/* KEYS: ESC O read */
	TF_STRING,	/* inside a dropped control string */
	TF_STRING_ESC,	/* ESC inside it: ST or a new sequence */
	TF_MOUSE,	/* KEYS: the 3 bytes of an X10 mouse report */
};

#define ESC	0x1b
#define CAN	0x18
#define SUB	0x1a
#define BEL	0x07

/* DEC private modes a program may set on the user's terminal: cursor keys,
 * screen, wrap, cursor, alt screen, mouse and focus reports, paste, sync. */
static const unsigned tf_dec_modes[] = {
	1, 5, 6, 7, 8, 9, 12, 25, 45, 47, 66, 67, 69, 1000, 1002, 1003, 1004, 1005,
	1006, 1007, 1015, 1016, 1034, 1035, 1036, 1037, 1039, 1042, 1043, 1047, 1048,
	1049, 2004, 2026,
};
/* ANSI modes: insert (IRM) and newline (LNM); not KAM (locks the keyboard)
 * nor SRM (local echo). */
static const unsigned tf_ansi_modes[] = { 4, 20 };

static void
tf_sample(struct term_filter *f, const uint8_t *b, size_t n)
{
	size_t room = sizeof f->sample - f->sample_len;

	if (!f->sampling)
		return;
	if (n > room)
		n = room;
	memcpy(f->sample + f->sample_len, b, n);
	f->sample_len += n;
}

/* Start dropping a unit whose first bytes are b[0..n). */
static void
tf_drop(struct term_filter *f, const uint8_t *b, size_t n)
{
	f->dropped++;
	f->sampling = f->sample_len == 0;
	tf_sample(f, b, n);
}

static void
tf_drop_seq(struct term_filter *f)
{
	tf_drop(f, f->seq, f->seq_len);
	f->sampling = false;
	f->seq_len = 0;
	f->seq_over = false;
}

static void
tf_seq_add(struct term_filter *f, uint8_t b)
{
	if (f->seq_len < sizeof f->seq)
		f->seq[f->seq_len++] = b;
	else
		f->seq_over = true;
}

static bool
tf_in(unsigned v, const unsigned *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i] == v)
			return true;
	return false;
}

/* Every parameter of p[0..n) (digits and ';') is in set; empty ones skip. */
static bool
tf_params_in(const uint8_t *p, size_t n, const unsigned *set, size_t nset)
{
	unsigned v = 0;
	bool have = false;
	size_t i;

	for (i = 0; i <= n; i++) {
		if (i == n || p[i] == ';') {
			if (have && !tf_in(v, set, nset))
				return false;
			v = 0;
			have = false;
		} else if (p[i] >= '0' && p[i] <= '9') {
			if (v < 100000)
				v = v * 10 + (unsigned)(p[i] - '0');
			have = true;
		} else
			return false;
	}
	return true;
}

/* Parameters are digits, ';' (and ':' when colon is true) only. */
static bool
tf_params_plain(const uint8_t *p, size_t n, bool colon)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || p[i] == ';' || (colon && p[i] == ':')))
			return false;
	return true;
}

/* May CSI seq[2..) final reach the user's terminal (mode OUTPUT), or is it
 * a key's encoding (mode KEYS)? */
static bool
tf_csi_allowed(const struct term_filter *f, uint8_t final)
{
	const uint8_t *body = f->seq + 2;
	size_t n = f->seq_len - 2, np, ni;
	uint8_t prefix = 0, inter = 0;

	if (n > 0 && body[0] >= '<' && body[0] <= '?') {
		prefix = body[0];
		body++;
		n--;
	}
	/* Parameters, then at most one intermediate. */
	for (np = 0; np < n && body[np] >= 0x30 && body[np] <= 0x3f; np++)
		;
	ni = n - np;
	if (ni > 1 || (ni == 1 && (body[np] < 0x20 || body[np] > 0x2f)))
		return false;
	if (ni == 1)
		inter = body[np];
	if (f->mode == TERM_FILTER_KEYS)
		return prefix == 0 && inter == 0 && tf_params_plain(body, np, false) &&
		    strchr("ABCDHFZ~", final) != NULL;
	if (final == 'm' && prefix == 0 && inter == 0)
		return tf_params_plain(body, np, true);	/* SGR, with ':' sub-parameters */
	if (!tf_params_plain(body, np, false))
		return false;
	switch (inter) {
	case 0:
		break;
	case ' ':	/* DECSCUSR cursor shape, SL, SR */
		return prefix == 0 && (final == 'q' || final == '@' || final == 'A');
	case '!':	/* DECSTR soft reset */
		return prefix == 0 && final == 'p';
	case '"':	/* DECSCA */
		return prefix == 0 && final == 'q';
	default:	/* '$' '\'' '*' '#' ...: requests, rectangles, locator */
		return false;
	}
	switch (prefix) {
	case 0:
		if (final == 'h' || final == 'l')
			return tf_params_in(body, np, tf_ansi_modes,
			    sizeof tf_ansi_modes / sizeof tf_ansi_modes[0]);
		/* T with 5 parameters is xterm's mouse highlight tracking. */
		if (final == 'T')
			return memchr(body, ';', np) == NULL;
		return strchr("@ABCDEFGHIJKLMPSXZ`abdefgrsu", final) != NULL;
	case '?':
		if (final == 'h' || final == 'l' || final == 's' || final == 'r')
			return tf_params_in(body, np, tf_dec_modes,
			    sizeof tf_dec_modes / sizeof tf_dec_modes[0]);
		return final == 'J' || final == 'K';
	case '>':	/* key modifiers (XTMODKEYS), pointer mode, kitty keyboard push */
		return final != 0 && strchr("mnpsuf", final) != NULL;
	case '<':	/* kitty keyboard pop and set */
	case '=':
		return final == 'u';
	default:
		return false;
	}
}

/* May ESC seq[1..) final pass (mode OUTPUT)? */
static bool
tf_esc_allowed(const struct term_filter *f, uint8_t final)
{
	const uint8_t *in = f->seq + 1;
	size_t ni = f->seq_len - 1;

	if (f->mode == TERM_FILTER_KEYS)
		return false;	/* Alt+key or a report */
	if (ni == 0)
		return strchr("78=>DEHMcNO", final) != NULL;
	if (strchr("()*+-./", in[0]) != NULL)	/* charset designation */
		return ni == 1 || (ni == 2 && in[1] >= 0x20 && in[1] <= 0x2f);
	if (ni != 1)
		return false;
	if (in[0] == '#')	/* DECDHL, DECSWL, DECDWL, DECALN */
		return final >= '3' && final <= '8';
	if (in[0] == ' ')	/* S7C1T */
		return final == 'F';
	return false;	/* ESC % (leaves UTF-8), S8C1T, ... */
}

static bool
tf_c0_allowed(const struct term_filter *f, uint8_t b)
{
	if (f->mode == TERM_FILTER_KEYS)
		return b != ESC;
	/* BEL BS HT LF VT FF CR SO SI; not ENQ (answerback) nor the rest. */
	return b >= 0x07 && b <= 0x0f;
}

static size_t
tf_emit(uint8_t *out, size_t o, const uint8_t *b, size_t n)
{
	memcpy(out + o, b, n);
	return o + n;
}

/* A control character inside a sequence: terminals run it at once. */
static size_t
tf_c0(struct term_filter *f, uint8_t b, uint8_t *out, size_t o)
{
	if (tf_c0_allowed(f, b))
		out[o++] = b;
	else {
		tf_drop(f, &b, 1);
		f->sampling = false;
	}
	return o;
}

static void
tf_esc_begin(struct term_filter *f)
{
	f->seq[0] = ESC;
	f->seq_len = 1;
	f->seq_over = false;
	f->state = TF_ESC;
}

static void
tf_string_begin(struct term_filter *f)
{
	tf_drop(f, f->seq, f->seq_len);	/* sampling stays on for its body */
	f->seq_len = 0;
	f->state = TF_STRING;
}

/* One byte of text: whole valid UTF-8 characters pass, C1 controls in
 * either encoding and malformed sequences are dropped. */
static size_t
tf_text(struct term_filter *f, uint8_t b, uint8_t *out, size_t o)
{
	bool ok;

	if (f->u8_need > 0) {
		ok = b >= 0x80 && b <= 0xbf;
		/* Overlong, surrogate and beyond-U+10FFFF second bytes. */
		if (ok && f->u8_len == 1)
			ok = !((f->u8[0] == 0xe0 && b < 0xa0) || (f->u8[0] == 0xed && b > 0x9f) ||
			    (f->u8[0] == 0xf0 && b < 0x90) || (f->u8[0] == 0xf4 && b > 0x8f));
		if (!ok) {
			tf_drop(f, f->u8, f->u8_len);
			f->sampling = false;
			f->u8_need = f->u8_len = 0;
			return (size_t)-1;	/* b starts afresh */
		}
		f->u8[f->u8_len++] = b;
		if (--f->u8_need > 0)
			return o;
		if (f->u8_len == 2 && f->u8[0] == 0xc2 && f->u8[1] <= 0x9f) {	/* U+0080..9F */
			tf_drop(f, f->u8, f->u8_len);
			f->sampling = false;
		} else
			o = tf_emit(out, o, f->u8, f->u8_len);
		f->u8_len = 0;
		return o;
	}
	if (b < 0x80) {
		out[o++] = b;
		return o;
	}
	if (b >= 0xc2 && b <= 0xdf)
		f->u8_need = 1;
	else if (b >= 0xe0 && b <= 0xef)
		f->u8_need = 2;
	else if (b >= 0xf0 && b <= 0xf4)
		f->u8_need = 3;
	else {	/* 8-bit C1, a stray continuation byte, C0/C1/F5..FF leads */
		tf_drop(f, &b, 1);
		f->sampling = false;
		return o;
	}
	f->u8[0] = b;
	f->u8_len = 1;
	return o;
}

static size_t
tf_ground(struct term_filter *f, uint8_t b, uint8_t *out, size_t o)
{
	size_t r;

	if (f->u8_need == 0 && b < 0x20) {
		if (b == ESC)
			tf_esc_begin(f);
		else
			o = tf_c0(f, b, out, o);
		return o;
	}
	if ((r = tf_text(f, b, out, o)) != (size_t)-1)
		return r;
	return tf_ground(f, b, out, o);	/* a broken character ended: b again */
}

static size_t tf_byte(struct term_filter *, uint8_t, uint8_t *, size_t);

/* Bytes that act alike inside any ESC or CSI sequence: ESC restarts, CAN
 * and SUB abort, C0 runs at once, DEL is ignored, an 8-bit byte aborts and
 * is read again as text. True when b was one of them. */
static bool
tf_in_seq(struct term_filter *f, uint8_t b, uint8_t *out, size_t *o)
{
	if (b == ESC) {
		tf_drop_seq(f);
		tf_esc_begin(f);
	} else if (b == CAN || b == SUB) {
		tf_seq_add(f, b);
		tf_drop_seq(f);
		f->state = TF_GROUND;
	} else if (b < 0x20)
		*o = tf_c0(f, b, out, *o);
	else if (b >= 0x80) {
		tf_drop_seq(f);
		f->state = TF_GROUND;
		*o = tf_byte(f, b, out, *o);
	} else if (b != 0x7f)
		return false;
	return true;
}

static size_t
tf_escape(struct term_filter *f, uint8_t b, uint8_t *out, size_t o)
{
	if (tf_in_seq(f, b, out, &o))
		return o;
	if (b <= 0x2f)
		tf_seq_add(f, b);
	else {
		if (f->seq_len == 1 && b == '[') {
			tf_seq_add(f, b);
			f->state = TF_CSI;
		} else if (f->seq_len == 1 && strchr("]PX^_k", b) != NULL) {
			tf_seq_add(f, b);	/* OSC DCS SOS PM APC, screen's title */
			tf_string_begin(f);
		} else if (f->seq_len == 1 && b == 'O' && f->mode == TERM_FILTER_KEYS) {
			tf_seq_add(f, b);
			f->state = TF_SS3;
		} else {
			if (!f->seq_over && tf_esc_allowed(f, b)) {
				o = tf_emit(out, o, f->seq, f->seq_len);
				out[o++] = b;
				f->seq_len = 0;
			} else {
				tf_seq_add(f, b);
				tf_drop_seq(f);
			}
			f->state = TF_GROUND;
		}
	}
	return o;
}

static size_t
tf_csi(struct term_filter *f, uint8_t b, uint8_t *out, size_t o)
{
	bool mouse, first;

	if (tf_in_seq(f, b, out, &o))
		return o;
	if (b <= 0x3f)
		tf_seq_add(f, b);
	else {
		f->state = TF_GROUND;
		if (!f->seq_over && tf_csi_allowed(f, b)) {
			o = tf_emit(out, o, f->seq, f->seq_len);
			out[o++] = b;
			f->seq_len = 0;
			return o;
		}
		/* KEYS: an X10 mouse report is CSI M and three raw bytes. */
		mouse = f->mode == TERM_FILTER_KEYS && b == 'M' && f->seq_len == 2;
		first = f->sample_len == 0;
		tf_seq_add(f, b);
		tf_drop_seq(f);
		if (mouse) {
			f->skip = 3;
			f->state = TF_MOUSE;
			f->sampling = first;
		}
	}
	return o;
}

static size_t
tf_byte(struct term_filter *f, uint8_t b, uint8_t *out, size_t o)
{
	switch (f->state) {
	case TF_GROUND:
		return tf_ground(f, b, out, o);
	case TF_ESC:
		return tf_escape(f, b, out, o);
	case TF_CSI:
		return tf_csi(f, b, out, o);
	case TF_SS3:
		f->state = TF_GROUND;
		if (strchr("ABCDHFPQRS", b) != NULL && b != 0) {
			o = tf_emit(out, o, f->seq, f->seq_len);
			out[o++] = b;
			f->seq_len = 0;
			return o;
		}
		tf_drop_seq(f);
		return tf_byte(f, b, out, o);
	case TF_MOUSE:
		tf_sample(f, &b, 1);
		if (--f->skip == 0) {
			f->state = TF_GROUND;
			f->sampling = false;
		}
		return o;
	case TF_STRING:
		if (b == ESC)
			f->state = TF_STRING_ESC;
		else if (b == BEL || b == CAN || b == SUB) {
			tf_sample(f, &b, 1);
			f->sampling = false;
			f->state = TF_GROUND;
		} else
			tf_sample(f, &b, 1);
		return o;
	case TF_STRING_ESC:
		if (b == '\\') {
			tf_sample(f, (const uint8_t *)"\x1b\\", 2);
			f->sampling = false;
			f->state = TF_GROUND;
			return o;
		}
		/* Terminals end the string at any ESC: b belongs to a new sequence. */
		f->sampling = false;
		tf_esc_begin(f);
		return tf_escape(f, b, out, o);
	default:
		f->state = TF_GROUND;
		return o;
	}
}

void
term_filter_init(struct term_filter *f, enum term_filter_mode mode)
{
	memset(f, 0, sizeof *f);
	f->mode = mode;
	f->state = TF_GROUND;
}

size_t
term_filter_feed(struct term_filter *f, const uint8_t *in, size_t len, uint8_t *out)
{
	size_t i = 0, o = 0, run;

	while (i < len) {
		/* Plain ASCII text in ground state: copied in runs (most output). */
		if (f->state == TF_GROUND && f->u8_need == 0) {
			run = i + term_fast_plain_span(in + i, len - i);
			if (run > i) {
				o = tf_emit(out, o, in + i, run - i);
				i = run;
				continue;
			}
		}
		o = tf_byte(f, in[i++], out, o);
	}
	return o;
}

size_t
term_filter_idle(struct term_filter *f, uint8_t *out)
{
	if (f->mode != TERM_FILTER_KEYS || f->state != TF_ESC || f->seq_len != 1)
		return 0;
	f->state = TF_GROUND;
	f->seq_len = 0;
	out[0] = ESC;
	return 1;
}

bool
term_filter_pending(const struct term_filter *f)
{
	return f->state != TF_GROUND || f->u8_need > 0;
}
