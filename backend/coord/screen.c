/* screen.c - a session's screen in the coordinator (see screen.h). */
#include <errno.h>
#include <stdlib.h>

#include "coord/screen.h"
#include "term-snap.h"
#include "term.h"
#include "xmalloc.h"

struct screen {
	struct term *t;
};

static void
screen_clamp(uint16_t *rows, uint16_t *cols)
{
	if (*rows == 0 || *rows > TERM_MAX_ROWS)
		*rows = 24;
	if (*cols < TERM_MIN_COLS || *cols > TERM_MAX_COLS)
		*cols = 80;
}

int
screen_new(uint16_t rows, uint16_t cols, struct screen **out, lz_err_t *err)
{
	struct screen *s;
	struct term *t;

	*out = NULL;
	screen_clamp(&rows, &cols);
	if (term_new(rows, cols, SCREEN_SB_LINES, &t, err) < 0)
		return -1;
	s = xcalloc(1, sizeof *s);
	s->t = t;
	*out = s;
	return 0;
}

void
screen_free(struct screen *s)
{
	if (s == NULL)
		return;
	term_free(s->t);
	free(s);
}

void
screen_feed(struct screen *s, const uint8_t *buf, size_t len, bool hold)
{
	if (hold)
		term_feed_later(s->t, (const char *)buf, len);
	else
		term_feed(s->t, (const char *)buf, len);
	/* Nobody reads the damage here: drop it. Replies wait for the session. */
	term_dirty_clear(s->t);
	(void)term_events_take(s->t);
}

bool
screen_flush(struct screen *s)
{
	if (!term_flush(s->t))
		return false;
	term_dirty_clear(s->t);
	(void)term_events_take(s->t);
	return true;
}

const uint8_t *
screen_reply(const struct screen *s, size_t *len)
{
	const char *p = term_output(s->t, len);

	return *len > 0 ? (const uint8_t *)p : NULL;
}

void
screen_reply_consume(struct screen *s, size_t n)
{
	term_output_consume(s->t, n);
}

int
screen_resize(struct screen *s, uint16_t rows, uint16_t cols, lz_err_t *err)
{
	screen_clamp(&rows, &cols);
	return term_resize(s->t, rows, cols, err);	/* held bytes first */
}

int
screen_snapshot(struct screen *s, size_t max, uint8_t **buf, size_t *len, lz_err_t *err)
{
	size_t sb = SCREEN_SNAP_SB;
	struct term_snap *snap;

	*buf = NULL;
	*len = 0;
	for (;;) {	/* term_snap_take feeds held bytes first */
		snap = term_snap_take(s->t, sb);
		term_snap_encode(snap, buf, len);
		term_snap_free(snap);
		if (*len <= max)
			return 0;
		free(*buf);
		*buf = NULL;
		*len = 0;
		if (sb == 0)
			return lz_err_set(err, EMSGSIZE, "the screen does not fit in %zu bytes", max);
		sb /= 4;
	}
}

bool
screen_input_line(struct screen *s)
{
	term_flush(s->t);
	return term_input_line(s->t);
}
