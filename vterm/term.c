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
 * The bytes pass term-scan.c first, which defuses libvterm 0.1.4's input
 * traps. The traps worked around here (each found by tests/fuzz/fuzz-term,
 * each with a unit test that fails without the fix):
 *   - REP (CSI b) before any printed character loops forever: term_new
 *     prints a space and resets;
 *   - a DECSTBM top margin is not clamped on resize: term_resize resets the
 *     margins when the height shrinks;
 *   - a wide char in a 1-column terminal crashes: TERM_MIN_COLS is 2.
 */
#include <stdio.h>
#include <string.h>

#include "term.h"
#include "term-priv.h"
#include "term-sb.h"
#include "term-scan.h"
#include "xmalloc.h"

#define TERM_OUTPUT_MAX	(1u << 20)	/* replies beyond this are dropped */

/* struct term is in term-priv.h. */

static int
damage_cb(VTermRect rect, void *user)
{
	term_dirty_rows(user, rect.start_row, rect.end_row);
	return 1;
}

static int
moverect_cb(VTermRect dest, VTermRect src, void *user)
{
	term_dirty_rows(user, dest.start_row, dest.end_row);
	term_dirty_rows(user, src.start_row, src.end_row);
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

	t->pushes++;
	if (t->sb_skip > 0)
		t->sb_skip--;	/* fast_run pushed this row already */
	else
		term_sb_pushed(t, cols, cells);
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
	t->fast = true;
	t->cursor.visible = true;
	t->cursor.blink = true;
	t->cursor.shape = VTERM_PROP_CURSORSHAPE_BLOCK;
	t->sb = term_sb_new(sb_lines);
	vterm_set_utf8(t->vt, 1);
	vterm_output_set_callback(t->vt, output_cb, t);
	t->st = vterm_obtain_state(t->vt);
	term_scan_init(&t->scan, t->vt);
	t->vs = vterm_obtain_screen(t->vt);
	vterm_screen_enable_altscreen(t->vs, 1);
	vterm_screen_set_callbacks(t->vs, &term_screen_cbs, t);
	vterm_screen_set_damage_merge(t->vs, VTERM_DAMAGE_SCROLL);
	vterm_screen_reset(t->vs, 1);
	/* libvterm 0.1.4 loops forever on REP (CSI b) before any character was
	 * printed, and a reset does not clear the last character: print one
	 * space and reset, so an early REP repeats a blank instead. */
	vterm_input_write(t->vt, " ", 1);
	t->scan.last_cp = ' ';
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
	free(t->row);
	free(t->paint);
	free(t->held);
	free(t->out);
	free(t);
}

bool
term_idle(const struct term *t)
{
	return term_scan_idle(&t->scan);
}


int
term_resize(struct term *t, int rows, int cols, lz_err_t *err)
{
	bool shrink;

	if (check_size(rows, cols, err) < 0)
		return -1;
	term_flush(t);	/* written for the old size */
	if (rows == t->rows && cols == t->cols)
		return 0;
	/* CAN ends a half-sent sequence or character at the old size, in both
	 * parsers alike, so nothing half-parsed lands on the new geometry. */
	if (!term_idle(t))
		term_scan_feed(&t->scan, (const unsigned char *)"\x18", 1);
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
		term_scan_feed(&t->scan, (const unsigned char *)seq, (size_t)n);
	}
	term_scan_clamp_cursor(&t->scan);
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
term_mouse_report(struct term *t, int row, int col, int button, bool pressed, VTermModifier mod)
{
	t->in_key = true;
	vterm_mouse_move(t->vt, row, col, mod);
	if (button > 0)
		vterm_mouse_button(t->vt, button, pressed, mod);
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

bool
term_line_cell(const struct term *t, size_t line, int col, VTermScreenCell *out)
{
	size_t count = term_sb_count(t->sb);

	if (line >= count)
		return term_cell(t, (int)(line - count), col, out);
	if (!term_sb_cell(t->sb, count - 1 - line, col, out))
		*out = t->blank;
	return true;
}

size_t
term_lines(const struct term *t)
{
	return term_sb_count(t->sb) + (size_t)t->rows;
}

size_t
term_view_top(const struct term *t)
{
	return term_sb_count(t->sb) - t->offset;
}

void
term_scroll_to(struct term *t, size_t line)
{
	size_t count = term_sb_count(t->sb);

	term_scroll(t, (long)(count - (line < count ? line : count)) - (long)t->offset);
}

size_t
term_view_text(const struct term *t, int row, char *buf, size_t size)
{
	if (row < 0 || row >= t->rows) {
		if (size > 0)
			buf[0] = '\0';
		return 0;
	}
	return term_line_text(t, term_view_top(t) + (size_t)row, buf, size);
}

long
term_find(const struct term *t, const char *needle, size_t from, bool older)
{
	size_t n = term_lines(t), line, i;
	char buf[4096];

	if (needle[0] == '\0' || n == 0)
		return -1;
	if (from >= n)
		from = n - 1;
	/* Every line once, starting at from, wrapping round like tmux's wrap-search. */
	for (i = 0; i < n; i++) {
		line = older ? (from + n - i) % n : (from + i) % n;
		term_line_text(t, line, buf, sizeof buf);
		if (strstr(buf, needle) != NULL)
			return (long)line;
	}
	return -1;
}

size_t
term_line_text(const struct term *t, size_t line, char *buf, size_t size)
{
	VTermScreenCell c;
	size_t n = 0, keep = 0;
	char u[4];

	if (size == 0)
		return 0;
	for (int col = 0; col < t->cols; col++) {
		if (line >= term_lines(t) || !term_line_cell(t, line, col, &c) ||
		    c.chars[0] == (uint32_t)-1)
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
