/* term-url.c - text that a program wrapped across rows, read back whole:
 * a logical line and the URLs in the history (a login link must be copyable
 * in one piece). libvterm 0.1.4 keeps no wrap flag, so a row wraps when
 * its last column holds a character, as a terminal's own autowrap leaves it;
 * a URL also goes on when a program broke it itself (Ink, curses apps) and
 * the next row is one run of URL characters. */
#include <string.h>

#include "term.h"

/* Column of the last non-blank cell of a history line; -1 when blank. */
static int
last_col(const struct term *t, size_t line, int cols)
{
	VTermScreenCell c;

	for (int col = cols - 1; col >= 0; col--) {
		if (!term_line_cell(t, line, col, &c))
			return -1;
		if (c.chars[0] != 0 && c.chars[0] != ' ' && c.chars[0] != (uint32_t)-1)
			return col;
	}
	return -1;
}

static bool
row_wraps(const struct term *t, size_t line, int cols)
{
	return line + 1 < term_lines(t) && last_col(t, line, cols) == cols - 1;
}

size_t
term_wrapped_text(const struct term *t, size_t line, char *buf, size_t size, size_t *first,
		  size_t *last)
{
	int rows, cols;
	size_t n = 0, l;

	term_size(t, &rows, &cols);
	if (size == 0)
		return 0;
	buf[0] = '\0';
	if (line >= term_lines(t))
		return 0;
	/* Back to the row the line starts on, then forward through its wraps. */
	while (line > 0 && row_wraps(t, line - 1, cols))
		line--;
	*first = line;
	for (l = line;; l++) {
		n += term_line_text(t, l, buf + n, size - n);
		if (n + 1 >= size || !row_wraps(t, l, cols))
			break;
	}
	*last = l;
	return n;
}

static bool
url_char(unsigned char c)
{
	/* RFC 3986's characters less the quote, which ends a URL quoted in text. */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("-._~:/?#[]@!$&()*+,;=%", c) != NULL);
}

/* Where a URL starts in s (the last one when several), or NULL. */
static const char *
url_start(const char *s)
{
	const char *at = NULL, *p = s;

	while ((p = strstr(p, "http")) != NULL) {
		if ((strncmp(p, "https://", 8) == 0 || strncmp(p, "http://", 7) == 0) &&
		    (p == s || !url_char((unsigned char)p[-1]) || strchr("([", p[-1]) != NULL))
			at = p;
		p += 4;
	}
	return at;
}

/* A sentence's full stop, or a bracket the URL did not open, is not part of it. */
static size_t
url_trim(char *url, size_t len)
{
	while (len > 0) {
		char c = url[len - 1];
		int depth = 0;

		if (c == ')' || c == ']') {
			for (size_t i = 0; i < len; i++)
				depth += url[i] == c ? -1 : url[i] == (c == ')' ? '(' : '[');
			if (depth >= 0)
				break;
		} else if (strchr(".,;:!?", c) == NULL) {
			break;
		}
		url[--len] = '\0';
	}
	return len;
}

/* The next row carries the URL on: one run of URL characters, nothing else. */
static size_t
url_more(const struct term *t, size_t line, char *buf, size_t size)
{
	size_t n = term_line_text(t, line, buf, size), lead = 0;

	while (lead < n && buf[lead] == ' ')
		lead++;
	if (lead == n)
		return 0;
	for (size_t i = lead; i < n; i++)
		if (!url_char((unsigned char)buf[i]))
			return 0;
	memmove(buf, buf + lead, n - lead + 1);
	return n - lead;
}

long
term_find_url(const struct term *t, size_t from, char *url, size_t size)
{
	char row[TERM_URL_MAX + 1], more[TERM_URL_MAX + 1];
	size_t n, len, l;
	const char *s;
	int rows, cols;

	term_size(t, &rows, &cols);
	if (size < 2 || (n = term_lines(t)) == 0)
		return -1;
	if (from >= n)
		from = n - 1;
	for (size_t i = 0; i <= from; i++) {
		size_t line = from - i, first, last;

		term_wrapped_text(t, line, row, sizeof(row), &first, &last);
		if ((s = url_start(row)) == NULL) {
			i += line - first;
			continue;
		}
		for (len = 0; url_char((unsigned char)s[len]) && len + 1 < size; len++)
			url[len] = s[len];
		/* A program's own break: the URL ran to its row's end, near the edge. */
		for (l = last; s[len] == '\0' && l + 1 < n && last_col(t, l, cols) >= cols - 3; l++) {
			size_t m = url_more(t, l + 1, more, sizeof(more));

			if (m == 0 || len + m + 1 > size)
				break;
			memcpy(url + len, more, m);
			len += m;
			url[len] = '\0';
			s = url;	/* s[len] is that NUL: the URL may go on */
		}
		url[len] = '\0';
		len = url_trim(url, len);
		if (len > 8)
			return (long)first;
		i += line - first;
	}
	return -1;
}
