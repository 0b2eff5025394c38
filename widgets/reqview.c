/* reqview.c - an escalation request laid out for a human, and the key
 * sequence that decides it (see reqview.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <sodium.h>

#include "err.h"
#include "reqview.h"
#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

#define RV_MIN_WIDTH	16
#define RV_INDENT	"  "
#define RV_FRAME	"  | "
#define RV_REPLY_GAP_MS	300	/* a reply's keys come in one burst */
#define RV_REPLY_MAX	4096	/* keys one reply may swallow */
#define RV_VISIBLE_SPACE_CP	0x2423
#define RV_VISIBLE_SPACE	"\xe2\x90\xa3"	/* U+2423 OPEN BOX */

enum { RV_REPLY_NONE, RV_REPLY_ESC, RV_REPLY_CSI, RV_REPLY_STR, RV_REPLY_STR_ESC, RV_REPLY_SS3 };

struct rv_buf {
	char *p;
	size_t len, cap;
};

static void
rv_putn(struct rv_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = b->cap == 0 ? 64 : b->cap;
		while (b->len + n + 1 > b->cap)
			b->cap *= 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
rv_puts(struct rv_buf *b, const char *s)
{
	rv_putn(b, s, strlen(s));
}

static char *
rv_steal(struct rv_buf *b)
{
	if (b->p == NULL)
		rv_putn(b, "", 0);
	return b->p;
}

/* Spaces a terminal draws blank that are not U+0020. */
static bool
rv_odd_space(uint32_t c)
{
	return c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
	       c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000 || c == 0x115f ||
	       c == 0x1160 || c == 0x3164 || c == 0xffa0 || c == 0x2800;
}

/* Is the character of n bytes at p shown as it is? Printable with a width
 * of 1 or 2, not a control, format character or odd space. */
static bool
rv_shown(const unsigned char *p, size_t n, uint32_t cp)
{
	int w;

	if (cp < 0x20 || cp == 0x7f)
		return false;
	if (cp < 0x7f)
		return true;
	if (lz_shellwords_scan((const char *)p, n) & (LZ_SW_C1 | LZ_SW_FORMAT))
		return false;
	if (rv_odd_space(cp) || cp == RV_VISIBLE_SPACE_CP)
		return false;
	w = wcwidth((wchar_t)cp);
	return w == 1 || w == 2;
}

/* Append the escape for the character cp (n bytes at p, n == 0: invalid). */
static void
rv_escape(struct rv_buf *b, const unsigned char *p, size_t n, uint32_t cp)
{
	char tmp[16];

	if (n == 0)
		snprintf(tmp, sizeof tmp, "\\x%02x", p[0]);
	else if (cp == '\n')
		snprintf(tmp, sizeof tmp, "\\n");
	else if (cp == '\r')
		snprintf(tmp, sizeof tmp, "\\r");
	else if (cp == '\t')
		snprintf(tmp, sizeof tmp, "\\t");
	else if (cp < 0x80)
		snprintf(tmp, sizeof tmp, "\\x%02x", (unsigned)cp);
	else if (cp <= 0xffff)
		snprintf(tmp, sizeof tmp, "\\u%04x", (unsigned)cp);
	else
		snprintf(tmp, sizeof tmp, "\\U%08x", (unsigned)cp);
	rv_puts(b, tmp);
}

/* s[0..len) with everything not shown as is escaped; in a $'...' word
 * (word true) also \\, \' and padding spaces. Returns whether anything was
 * escaped. */
static bool
rv_visible(struct rv_buf *b, const char *s, size_t len, bool word)
{
	const unsigned char *p = (const unsigned char *)s;
	bool escaped = false;
	size_t i = 0;

	while (i < len) {
		uint32_t cp = 0;
		size_t n = lz_shellwords_utf8(p + i, len - i, &cp);

		if (word && p[i] == ' ') {
			size_t run = 0;
			char tmp[32];

			while (i + run < len && p[i + run] == ' ')
				run++;
			if (run == 1 && i > 0 && i + 1 < len) {
				rv_putn(b, " ", 1);
			} else {
				snprintf(tmp, sizeof tmp, "\\x20{%zu}", run);
				rv_puts(b, tmp);
				escaped = true;
			}
			i += run;
			continue;
		}
		if (n == 0 || !rv_shown(p + i, n, cp)) {
			rv_escape(b, p + i, n, cp);
			escaped = true;
			i += n == 0 ? 1 : n;
			continue;
		}
		if (word && (cp == '\\' || cp == '\''))
			rv_putn(b, "\\", 1);
		rv_putn(b, s + i, n);
		i += n;
	}
	return escaped;
}

char *
reqview_word(const char *w)
{
	struct rv_buf b = { NULL, 0, 0 }, probe = { NULL, 0, 0 };
	size_t len = strlen(w);
	bool odd = rv_visible(&probe, w, len, true);

	free(probe.p);
	if (!odd) {
		char *const one[] = { (char *)w, NULL };

		return lz_shellwords_join(one);
	}
	rv_puts(&b, "$'");
	rv_visible(&b, w, len, true);
	rv_puts(&b, "'");
	return rv_steal(&b);
}

char *
reqview_command(char *const *argv)
{
	struct rv_buf b = { NULL, 0, 0 };

	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++) {
		char *w = reqview_word(argv[i]);

		if (i > 0)
			rv_putn(&b, " ", 1);
		rv_puts(&b, w);
		free(w);
	}
	return rv_steal(&b);
}

int
reqview_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;
	int cols = 0;

	while (i < len) {
		uint32_t cp = 0;
		size_t n = lz_shellwords_utf8(p + i, len - i, &cp);
		int w = n == 0 ? 1 : cp < 0x80 ? 1 : wcwidth((wchar_t)cp);

		cols += w > 0 ? w : 0;
		i += n == 0 ? 1 : n;
	}
	return cols;
}

static void
rv_add(struct reqview *v, enum reqview_kind kind, char *text)
{
	if (v->n == v->cap) {
		v->cap = v->cap == 0 ? 16 : 2 * v->cap;
		v->lines = xreallocarray(v->lines, v->cap, sizeof(*v->lines));
	}
	v->lines[v->n++] = (struct reqview_line){ .kind = kind, .text = text };
}

/* Bytes of s (len bytes) that fit in cols columns, whole characters only. */
static size_t
rv_fit(const char *s, size_t len, int cols)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int used = 0;

	while (i < len) {
		uint32_t cp = 0;
		size_t n = lz_shellwords_utf8(p + i, len - i, &cp);
		int w = n == 0 ? 1 : cp < 0x80 ? 1 : wcwidth((wchar_t)cp);

		if (w < 0)
			w = 1;
		if (used + w > cols)
			break;
		used += w;
		i += n == 0 ? 1 : n;
	}
	return i;
}

/* indent and s[0..len): a space at either end of a piece of a word shows
 * as U+2423 (itself always escaped), so none hides at a line's edge. */
static char *
rv_line(const char *indent, const char *s, size_t len, bool mark, bool lead_space)
{
	struct rv_buf b = { NULL, 0, 0 };
	size_t from = 0, to = len;

	rv_puts(&b, indent);
	if (lead_space && len > 0 && s[0] == ' ') {
		rv_puts(&b, RV_VISIBLE_SPACE);
		from = 1;
	}
	if (mark && to > from && s[to - 1] == ' ')
		to--;
	rv_putn(&b, s + from, to - from);
	if (to < len)
		rv_puts(&b, RV_VISIBLE_SPACE);
	return rv_steal(&b);
}

/* s cut into lines of width - strlen(indent) columns, each prefixed with
 * indent. sep (may be NULL) marks the bytes where a line may break, the
 * byte itself dropped; without sep any space is such a byte. A break inside
 * a word falls between two non-spaces where it can; else rv_line marks the
 * space at the edge. */
static void
rv_wrap(struct reqview *v, enum reqview_kind kind, const char *indent, const char *s,
	const bool *sep, int width, size_t max_lines, size_t *total)
{
	size_t len = strlen(s), off = 0, count = 0;
	int cols = width - (int)strlen(indent);
	bool lead_space = false;

	if (cols < 1)
		cols = 1;
	do {
		size_t fit = rv_fit(s + off, len - off, cols), cut = fit, next;

		if (off + fit < len) {
			size_t k;

			for (k = fit; k > 0; k--)
				if (sep != NULL ? sep[off + k] : s[off + k] == ' ')
					break;
			if (k > 0) {
				cut = k;
				next = off + k + 1;
			} else {
				/* Inside a word: rather between two non-spaces. */
				for (k = fit; k > fit / 2; k--)
					if (s[off + k] != ' ' && s[off + k - 1] != ' ' &&
					    ((unsigned char)s[off + k] & 0xc0) != 0x80)
						break;	/* (and not inside a character) */
				cut = k > fit / 2 ? k : fit > 0 ? fit : 1;
				next = off + cut;
			}
		} else {
			next = len;
		}
		if (count < max_lines)
			rv_add(v, kind, rv_line(indent, s + off, cut, sep != NULL, lead_space));
		lead_space = next < len && s[next] == ' ' && !(sep != NULL ? sep[next] : false);
		count++;
		off = next;
	} while (off < len);
	if (total != NULL)
		*total = count;
}

/* Text of ours (ASCII), wrapped at spaces like the rest. */
static void
rv_text(struct reqview *v, enum reqview_kind kind, const char *text, int width)
{
	rv_wrap(v, kind, "", text, NULL, width, SIZE_MAX, NULL);
}

/* The justification: each of its lines made visible, framed, wrapped, and
 * cut to max lines with "(N more lines)". */
static void
rv_justification(struct reqview *v, const char *why, int width, unsigned max)
{
	struct reqview sub = { 0 };
	const char *line = why, *nl;
	char *more;
	size_t shown;

	if (why == NULL || why[0] == '\0') {
		rv_text(v, REQVIEW_TITLE, "Justification: (none given)", width);
		return;
	}
	do {
		struct rv_buf b = { NULL, 0, 0 };

		nl = strchr(line, '\n');
		rv_visible(&b, line, nl != NULL ? (size_t)(nl - line) : strlen(line), false);
		rv_wrap(&sub, REQVIEW_WHY, RV_FRAME, rv_steal(&b), NULL, width, SIZE_MAX, NULL);
		free(b.p);
		line = nl != NULL ? nl + 1 : NULL;
	} while (line != NULL);
	rv_text(v, REQVIEW_TITLE, "Justification (the agent's words):", width);
	shown = sub.n <= max ? sub.n : max - 1;
	for (size_t i = 0; i < sub.n; i++) {
		if (i < shown)
			rv_add(v, REQVIEW_WHY, sub.lines[i].text);
		else
			free(sub.lines[i].text);
	}
	if (shown < sub.n) {
		more = xasprintf("(%zu more line%s)", sub.n - shown, sub.n - shown == 1 ? "" : "s");
		rv_wrap(v, REQVIEW_MORE, RV_FRAME, more, NULL, width, SIZE_MAX, NULL);
		free(more);
	}
	free(sub.lines);
}

static void
rv_field(struct reqview *v, enum reqview_kind kind, const char *label, const char *value, int width)
{
	struct rv_buf b = { NULL, 0, 0 };

	rv_puts(&b, label);
	rv_visible(&b, value, strlen(value), false);
	rv_wrap(v, kind, "", b.p, NULL, width, SIZE_MAX, NULL);
	free(b.p);
}

struct reqview *
reqview_new(const struct reqview_request *req, int width, unsigned why_lines)
{
	struct reqview *v = xcalloc(1, sizeof(*v));
	char **argv = NULL, *cmd, *title;
	bool *sep;
	size_t len, pos = 0;
	lz_err_t err = LZ_ERR_INIT;

	if (width < RV_MIN_WIDTH)
		width = RV_MIN_WIDTH;
	if (why_lines < 2)
		why_lines = REQVIEW_WHY_LINES;
	if (req->argv != NULL) {
		argv = lz_strv_dup(req->argv);
	} else if (req->command != NULL &&
		   lz_shellwords_split(req->command, strlen(req->command), &argv, &err) < 0) {
		v->split_failed = true;
		v->command_first = v->n;
		rv_text(v, REQVIEW_ALERT, "Command: does not split into words, cannot run:", width);
		rv_field(v, REQVIEW_ALERT, RV_INDENT, err.msg != NULL ? err.msg : "?", width);
		rv_field(v, REQVIEW_COMMAND, RV_INDENT, req->command, width);
		v->command_end = v->n;
		lz_err_clear(&err);
	}
	if (!v->split_failed) {
		char *const none[] = { NULL };

		if (argv == NULL)
			argv = lz_strv_dup(none);
		v->words = lz_strv_len(argv);
		title = xasprintf("Command, %zu word%s:", v->words, v->words == 1 ? "" : "s");
		rv_text(v, REQVIEW_TITLE, title, width);
		free(title);
		v->command_first = v->n;
		/* Where the joined line may break: the spaces between words. */
		cmd = reqview_command(argv);
		len = strlen(cmd);
		sep = xcalloc(len + 1, sizeof(*sep));
		for (size_t i = 0; argv[i] != NULL; i++) {
			char *w = reqview_word(argv[i]);

			pos += strlen(w);
			if (argv[i + 1] != NULL)
				sep[pos++] = true;
			free(w);
		}
		rv_wrap(v, REQVIEW_COMMAND, RV_INDENT, cmd, sep, width, SIZE_MAX, NULL);
		v->command_end = v->n;
		free(sep);
		free(cmd);
	}
	lz_strv_free(argv);
	rv_justification(v, req->justification, width, why_lines);
	rv_field(v, REQVIEW_FIELD, "Request ", req->request_id != NULL ? req->request_id : "", width);
	rv_field(v, REQVIEW_FIELD, "Profile ", req->profile != NULL ? req->profile : "", width);
	if (req->cwd != NULL)
		rv_field(v, REQVIEW_FIELD, "Directory ", req->cwd, width);
	if (req->note != NULL)
		rv_field(v, REQVIEW_ALERT, "Note: ", req->note, width);
	return v;
}

void
reqview_free(struct reqview *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < v->n; i++)
		free(v->lines[i].text);
	free(v->lines);
	free(v);
}

/* Confirmation. */

void
reqview_code_new(char out[REQVIEW_CODE_LEN + 1])
{
	static const char alphabet[] = REQVIEW_CODE_ALPHABET;

	LZ_ASSERT(sodium_init() >= 0);
	for (size_t i = 0; i < REQVIEW_CODE_LEN; i++)
		out[i] = alphabet[randombytes_uniform(sizeof(alphabet) - 1)];
	out[REQVIEW_CODE_LEN] = '\0';
}

void
reqview_confirm_start(struct reqview_confirm *c, uint64_t now_ms)
{
	memset(c, 0, sizeof(*c));
	c->state = REQVIEW_ARMING;
	c->quiet_since = now_ms;
	c->last_key = now_ms;
	c->seen = true;
	reqview_code_new(c->code);
}

uint64_t
reqview_confirm_arm_in(struct reqview_confirm *c, uint64_t now_ms)
{
	if (c->state != REQVIEW_ARMING)
		return 0;
	if (now_ms >= c->quiet_since + REQVIEW_ARM_MS) {
		c->state = REQVIEW_READY;
		return 0;
	}
	return c->quiet_since + REQVIEW_ARM_MS - now_ms;
}

void
reqview_confirm_set_seen(struct reqview_confirm *c, bool seen)
{
	c->seen = seen;
}

static void
rv_disarm(struct reqview_confirm *c, uint64_t now_ms)
{
	c->state = REQVIEW_ARMING;
	c->typed = 0;
	c->quiet_since = now_ms;
}

/* Is key (after ESC) the introducer of a terminal report? Sets c->reply. */
static bool
rv_reply_intro(struct reqview_confirm *c, int ch)
{
	switch (ch) {
	case '[':
		c->reply = RV_REPLY_CSI;
		return true;
	case 'O':
		c->reply = RV_REPLY_SS3;
		return true;
	case 'P': case ']': case '_': case '^': case 'X':
		c->reply = RV_REPLY_STR;
		return true;
	default:
		return false;
	}
}

/* Feed a key to a reply in progress; false when the key is not part of one. */
static bool
rv_reply_key(struct reqview_confirm *c, int key)
{
	bool meta = (key & REQVIEW_KEY_META) != 0;
	int ch = key & ~REQVIEW_KEY_META;

	if (++c->reply_keys > RV_REPLY_MAX) {
		c->reply = RV_REPLY_NONE;
		return true;
	}
	switch (c->reply) {
	case RV_REPLY_ESC:
		if (!meta && rv_reply_intro(c, ch))
			return true;
		c->reply = RV_REPLY_NONE;
		return false;
	case RV_REPLY_CSI:
		if (meta || ch < 0x20 || ch > 0x7e)
			c->reply = RV_REPLY_NONE;	/* broken off: swallowed all the same */
		else if (ch >= 0x40)
			c->reply = RV_REPLY_NONE;	/* final byte */
		return true;
	case RV_REPLY_SS3:
		c->reply = RV_REPLY_NONE;
		return true;
	case RV_REPLY_STR:
		if (meta && ch == '\\')
			c->reply = RV_REPLY_NONE;	/* ST folded as Alt-\ */
		else if (key == 7)
			c->reply = RV_REPLY_NONE;	/* BEL */
		else if (key == 27)
			c->reply = RV_REPLY_STR_ESC;
		return true;
	case RV_REPLY_STR_ESC:
		c->reply = ch == '\\' ? RV_REPLY_NONE : RV_REPLY_STR;
		return true;
	default:
		return false;
	}
}

static bool
rv_is_enter(int key)
{
	return key == '\r' || key == '\n' || key == REQVIEW_KEY_ENTER_FN;
}

enum reqview_decision
reqview_confirm_key(struct reqview_confirm *c, int key, uint64_t now_ms)
{
	int ch = key & ~REQVIEW_KEY_META;

	/* A reply's keys come together; a pause means it is over. */
	if (c->reply != RV_REPLY_NONE && now_ms > c->last_key + RV_REPLY_GAP_MS)
		c->reply = RV_REPLY_NONE;
	c->last_key = now_ms;
	if (c->reply != RV_REPLY_NONE) {
		bool was_esc = c->reply == RV_REPLY_ESC;

		if (rv_reply_key(c, key)) {
			rv_disarm(c, now_ms);
			if (was_esc) {
				c->replies++;
				return REQVIEW_REPLY;
			}
			return REQVIEW_NONE;
		}
	}
	if ((key & REQVIEW_KEY_META) && rv_reply_intro(c, ch)) {
		c->reply_keys = 0;
		c->replies++;
		rv_disarm(c, now_ms);
		return REQVIEW_REPLY;
	}
	if (reqview_confirm_arm_in(c, now_ms) > 0) {
		c->early++;
		if (key == 27) {
			c->reply = RV_REPLY_ESC;
			c->reply_keys = 0;
		}
		rv_disarm(c, now_ms);
		return REQVIEW_EARLY;
	}
	if (key == 27) {
		/* Esc: back out of a chord, or close; what follows may be a reply. */
		c->reply = RV_REPLY_ESC;
		c->reply_keys = 0;
		if (c->state != REQVIEW_READY) {
			c->state = REQVIEW_READY;
			c->typed = 0;
			return REQVIEW_NONE;
		}
		return REQVIEW_CLOSE;
	}
	if (key & REQVIEW_KEY_META)
		return REQVIEW_NONE;	/* Alt-something: nothing here */
	switch (c->state) {
	case REQVIEW_ARMING:
	case REQVIEW_READY:
		switch (key) {
		case 'a': case 'A':
			if (!c->seen)
				return REQVIEW_UNSEEN;
			c->state = REQVIEW_CODE;
			c->typed = 0;
			return REQVIEW_NONE;
		case 'd': case 'D':
			return REQVIEW_DENY;
		case 'e': case 'E':
			return REQVIEW_EDIT;
		case 'q': case 'Q':
			c->state = REQVIEW_QUIT_ASK;
			return REQVIEW_NONE;
		default:
			return REQVIEW_NONE;
		}
	case REQVIEW_CODE:
		if (key == 127 || key == 8 || key == REQVIEW_KEY_BS_FN) {
			if (c->typed > 0)
				c->typed--;
			else
				c->state = REQVIEW_READY;
			return REQVIEW_NONE;
		}
		if (key < 0x80 && tolower(key) == c->code[c->typed]) {
			if (++c->typed == REQVIEW_CODE_LEN)
				c->state = REQVIEW_ENTER;
			return REQVIEW_NONE;
		}
		break;
	case REQVIEW_ENTER:
		if (rv_is_enter(key)) {
			/* Decided: the next approval needs a new code. */
			c->state = REQVIEW_READY;
			c->typed = 0;
			reqview_code_new(c->code);
			return REQVIEW_APPROVE;
		}
		if (key == 127 || key == 8 || key == REQVIEW_KEY_BS_FN) {
			c->typed--;
			c->state = REQVIEW_CODE;
			return REQVIEW_NONE;
		}
		break;
	case REQVIEW_QUIT_ASK:
		c->state = REQVIEW_READY;
		return key == 'y' || key == 'Y' ? REQVIEW_QUIT : REQVIEW_NONE;
	}
	/* A wrong key in the chord: start over with a new code. */
	c->state = REQVIEW_READY;
	c->typed = 0;
	reqview_code_new(c->code);
	return REQVIEW_WRONG;
}

char *
reqview_confirm_hint(const struct reqview_confirm *c, const char *verb)
{
	char upper[REQVIEW_CODE_LEN + 1];

	for (size_t i = 0; i <= REQVIEW_CODE_LEN; i++)
		upper[i] = (char)toupper((unsigned char)c->code[i]);
	switch (c->state) {
	case REQVIEW_ARMING:
		return xstrdup("(read the request: keys wait until it has been shown a moment)");
	case REQVIEW_READY:
		return xasprintf("a %s Enter: %s   d: deny   e: edit   q: quit   Esc: later", upper, verb);
	case REQVIEW_CODE:
		return xasprintf("type %s, then Enter: %s (typed %zu of %d; Esc: back)", upper, verb,
				 c->typed, REQVIEW_CODE_LEN);
	case REQVIEW_ENTER:
		return xasprintf("Enter: %s   (Esc: back)", verb);
	case REQVIEW_QUIT_ASK:
		return xstrdup("stop this domain's sandbox? y: yes, any other key: no");
	}
	return xstrdup("");
}
