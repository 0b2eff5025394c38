/* tabstate.c - who needs me (see tabstate.h). */
#include <stdio.h>
#include <string.h>

#include "tabstate.h"

void
tabstate_init(struct tabstate *ts)
{
	memset(ts, 0, sizeof *ts);
	ts->state = TABSTATE_STARTING;
	ts->final = TABSTATE_RUNNING;
}

void
tabstate_started(struct tabstate *ts, uint64_t now_ms)
{
	ts->started = true;
	ts->last_out_ms = now_ms;
}

void
tabstate_output(struct tabstate *ts, uint64_t now_ms)
{
	ts->last_out_ms = now_ms;
}

void
tabstate_bell(struct tabstate *ts)
{
	ts->bell = true;
}

void
tabstate_key(struct tabstate *ts)
{
	ts->bell = false;
}

void
tabstate_approvals(struct tabstate *ts, unsigned n)
{
	ts->approvals = n;
}

void
tabstate_exited(struct tabstate *ts, int status, bool limit)
{
	if (ts->final != TABSTATE_RUNNING && !limit)
		return;		/* the first end stands; a limit explains an exit */
	ts->final = limit ? TABSTATE_LIMIT : TABSTATE_EXITED;
	ts->status = status;
}

void
tabstate_failed(struct tabstate *ts)
{
	ts->final = TABSTATE_FAILED;
}

bool
tabstate_update(struct tabstate *ts, uint64_t now_ms, bool input_line)
{
	enum tabstate_kind was = ts->state, now;

	if (ts->final != TABSTATE_RUNNING)
		now = ts->final;
	else if (!ts->started)
		now = TABSTATE_STARTING;
	else if (ts->approvals > 0)
		now = TABSTATE_APPROVAL;
	else if (ts->bell || (input_line && now_ms >= ts->last_out_ms &&
	    now_ms - ts->last_out_ms >= TABSTATE_QUIET_MS))
		now = TABSTATE_INPUT;
	else
		now = TABSTATE_RUNNING;
	ts->state = now;
	return now != was;
}

bool
tabstate_needs_me(enum tabstate_kind k)
{
	return k == TABSTATE_INPUT || k == TABSTATE_APPROVAL;
}

const char *
tabstate_name(enum tabstate_kind k)
{
	switch (k) {
	case TABSTATE_STARTING: return "starting";
	case TABSTATE_RUNNING: return "running";
	case TABSTATE_INPUT: return "input";
	case TABSTATE_APPROVAL: return "approval";
	case TABSTATE_EXITED: return "exited";
	case TABSTATE_LIMIT: return "limit";
	case TABSTATE_FAILED: return "failed";
	}
	return "?";
}

const char *
tabstate_mark(enum tabstate_kind k)
{
	return k == TABSTATE_APPROVAL ? "!" : k == TABSTATE_INPUT ? "?" : "";
}

void
tabstate_text(const struct tabstate *ts, char *buf, size_t size)
{
	if (ts->state == TABSTATE_EXITED)
		snprintf(buf, size, "exited %d", ts->status);
	else
		snprintf(buf, size, "%s", tabstate_name(ts->state));
}

/* A blank, or a box-drawing character (U+2500..U+257F: E2 94 80..E2 95 BF):
 * the border of an input box right of its cursor. */
static size_t
tabstate_filler(const unsigned char *s)
{
	if (*s == ' ' || *s == '\t')
		return 1;
	if (s[0] == 0xe2 && (s[1] == 0x94 || s[1] == 0x95) && s[2] >= 0x80 && s[2] <= 0xbf)
		return 3;
	return 0;
}

bool
tabstate_input_line(const char *before, const char *after, bool cursor_visible)
{
	const unsigned char *p;
	size_t n;

	if (!cursor_visible || before == NULL || after == NULL)
		return false;
	if (before[strspn(before, " \t")] == '\0')
		return false;	/* nothing left of the cursor: a new line, not a prompt */
	for (p = (const unsigned char *)after; *p != '\0'; p += n)
		if ((n = tabstate_filler(p)) == 0)
			return false;
	return true;
}
