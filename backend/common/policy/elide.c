/* elide.c - long names cut in the middle (see elide.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "elide.h"
#include "grant.h"
#include "xmalloc.h"

#define ELIDE_MARK	"\xe2\x80\xa6"	/* U+2026, one column */
#define ELIDE_MARK_LEN	3
#define ELIDE_MIN_TOKEN	12		/* shorter tokens are left alone */
#define ELIDE_MAX_TOKENS 16
#define ELIDE_HEAD	8		/* columns of a line's start that always stay */
#define ELIDE_TAIL	16		/* at most this after the name, for the words before to go */

/* A byte of a host name, a wildcard or an address as lines show them. */
static bool
elide_host_byte(unsigned char c)
{
	return isalnum(c) || c == '.' || c == '-' || c == '_' || c == '*';
}

size_t
lz_elide_tail(const char *name, size_t len)
{
	char low[256];
	size_t end = len, start;

	while (end > 0 && name[end - 1] == '.')
		end--;	/* a final dot is no label */
	start = end;
	/* One label more from the end, until the suffix is no public suffix. */
	while (start > 0) {
		if (start < end)
			start--;	/* the dot before the suffix so far */
		while (start > 0 && name[start - 1] != '.')
			start--;
		if (end - start >= sizeof low)
			break;	/* no public suffix is that long */
		for (size_t i = start; i < end; i++)
			low[i - start] = (char)tolower((unsigned char)name[i]);
		low[end - start] = '\0';
		if (!grant_public_suffix(low))
			break;
	}
	return len - start;
}

char *
lz_elide_name_n(const char *name, size_t len, size_t cols)
{
	size_t tail, head, avail;
	char *out;

	if (len <= cols)
		return xstrndup(name, len);
	if (cols == 0)
		return xstrdup("");
	avail = cols - 1;	/* the mark takes one column */
	tail = lz_elide_tail(name, len);
	if (tail < avail / 2)
		tail = avail / 2;	/* the labels before it read better than the first ones */
	if (tail > avail)
		tail = avail;	/* the very end stays, whatever the budget */
	head = avail - tail;
	out = xmalloc(head + ELIDE_MARK_LEN + tail + 1);
	memcpy(out, name, head);
	memcpy(out + head, ELIDE_MARK, ELIDE_MARK_LEN);
	memcpy(out + head + ELIDE_MARK_LEN, name + len - tail, tail);
	out[head + ELIDE_MARK_LEN + tail] = '\0';
	return out;
}

char *
lz_elide_name(const char *name, size_t cols)
{
	return lz_elide_name_n(name, strlen(name), cols);
}

struct elide_tok {
	size_t off, len, keep;	/* keep: columns it is cut to */
	size_t floor;		/* and no fewer */
};

static int
elide_tok_longer(const void *a, const void *b)
{
	const struct elide_tok *x = a, *y = b;

	return x->len < y->len ? 1 : x->len > y->len ? -1 : (x->off > y->off) - (x->off < y->off);
}

static int
elide_tok_first(const void *a, const void *b)
{
	const struct elide_tok *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

/* s[a..b) appended to out, less s[gf..gt), which leaves a mark. */
static void
elide_copy(char *out, size_t *outlen, const char *s, size_t a, size_t b, size_t gf, size_t gt)
{
	for (size_t k = a; k < b; k++) {
		if (k == gf && gt > gf)
			memcpy(out + *outlen, ELIDE_MARK, ELIDE_MARK_LEN), *outlen += ELIDE_MARK_LEN;
		if (k < gf || k >= gt)
			out[(*outlen)++] = s[k];
	}
}

char *
lz_elide_line(const char *s, size_t len, size_t excess)
{
	struct elide_tok t[ELIDE_MAX_TOKENS];
	size_t n = 0, i = 0, outlen = 0, from = 0, last, gap_from = 0, gap_to = 0;
	bool cut_any = false;
	char *out;

	if (excess == 0)
		return NULL;
	/* The name-like words: runs of host bytes with a dot, long enough to cut. */
	while (i < len) {
		size_t a = i;
		bool dot = false;

		while (i < len && elide_host_byte((unsigned char)s[i]))
			dot |= s[i++] == '.';
		if (i > a && dot && i - a >= ELIDE_MIN_TOKEN) {
			if (n == ELIDE_MAX_TOKENS) {
				qsort(t, n, sizeof *t, elide_tok_longer);
				if (t[n - 1].len < i - a)
					t[n - 1] = (struct elide_tok){ a, i - a, i - a };
			} else
				t[n++] = (struct elide_tok){ a, i - a, i - a };
		}
		if (i == a)
			i++;
	}
	if (n == 0)
		return NULL;
	/* Column by column from the longest left, so that names share the cut,
	 * none below its registrable domain and a mark. */
	for (i = 0; i < n; i++)
		t[i].floor = lz_elide_tail(s + t[i].off, t[i].len) + 2;
	while (excess > 0) {
		struct elide_tok *big = NULL;

		for (i = 0; i < n; i++)
			if (t[i].keep > t[i].floor && (big == NULL || t[i].keep > big->keep))
				big = &t[i];
		if (big == NULL)
			break;
		big->keep--;
		excess--;
		cut_any = true;
	}
	if (!cut_any)
		return NULL;
	qsort(t, n, sizeof *t, elide_tok_first);
	/* Still too wide, the last name near the line's end (its object, as in
	 * "... waits: dns A NAME x1 29s"): the words before it lose their
	 * middle too, so that its end is on the line (the line's head stays). */
	last = t[n - 1].off;
	if (excess > 0 && last > ELIDE_HEAD + excess + 1 && len - (last + t[n - 1].len) <= ELIDE_TAIL) {
		gap_to = last - (last - ELIDE_HEAD - excess - 1) / 2;
		gap_from = gap_to - excess - 1;
		while (gap_from > 0 && ((unsigned char)s[gap_from] & 0xc0) == 0x80)
			gap_from--;	/* not inside a character */
		while (gap_to < last && ((unsigned char)s[gap_to] & 0xc0) == 0x80)
			gap_to++;
	}
	out = xmalloc(len + (n + 1) * ELIDE_MARK_LEN + 1);
	for (i = 0; i < n; i++) {
		size_t end = t[i].off + t[i].len;

		elide_copy(out, &outlen, s, from, t[i].off, gap_from, gap_to);
		if (end > gap_from && t[i].off < gap_to) {
			elide_copy(out, &outlen, s, t[i].off, end, gap_from, gap_to);
		} else {
			char *e = lz_elide_name_n(s + t[i].off, t[i].len, t[i].keep);
			size_t el = strlen(e);

			memcpy(out + outlen, e, el);
			outlen += el;
			free(e);
		}
		from = end;
	}
	elide_copy(out, &outlen, s, from, len, gap_from, gap_to);
	out[outlen] = '\0';
	return out;
}
