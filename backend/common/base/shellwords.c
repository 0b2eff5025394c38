/* shellwords.c - POSIX shell-words splitting and metacharacter scan. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

/* A growing word buffer; the input cap bounds its size. */
struct sw_buf {
	char *p;
	size_t len, cap;
};

static void
sw_put(struct sw_buf *b, char c)
{
	if (b->len + 1 >= b->cap) {
		b->cap = b->cap != 0 ? b->cap * 2 : 32;
		b->p = xrealloc(b->p, b->cap);
	}
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

/* An empty string, allocated (results are never NULL). */
static void
sw_start(struct sw_buf *b)
{
	b->cap = 32;
	b->p = xmalloc(b->cap);
	b->p[0] = '\0';
	b->len = 0;
}

static bool
sw_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Push the finished word (possibly empty) and reset the buffer. */
static int
sw_word_end(char ***v, size_t *n, struct sw_buf *w, lz_err_t *err)
{
	if (*n >= LZ_SHELLWORDS_MAX_WORDS)
		return lz_err_set(err, LZ_EINVAL, "command has more than %d words",
		    LZ_SHELLWORDS_MAX_WORDS);
	lz_strv_push(v, w->p != NULL ? w->p : "");
	(*n)++;
	w->len = 0;
	if (w->p != NULL)
		w->p[0] = '\0';
	return 0;
}

int
lz_shellwords_split(const char *s, size_t len, char ***argv_out, lz_err_t *err)
{
	struct sw_buf w = { NULL, 0, 0 };
	char **v = NULL;
	size_t n = 0, i = 0;
	bool in_word = false;
	int rc = -1;

	*argv_out = NULL;
	if (len > LZ_SHELLWORDS_MAX_LEN) {
		lz_err_set(err, LZ_EINVAL, "command is %zu bytes long (at most %d)",
		    len, LZ_SHELLWORDS_MAX_LEN);
		goto cleanup;
	}
	if (memchr(s, '\0', len) != NULL) {
		lz_err_set(err, LZ_EINVAL, "command contains a NUL byte");
		goto cleanup;
	}
	v = xcalloc(1, sizeof *v);
	while (i < len) {
		char c = s[i];

		if (sw_blank(c)) {
			if (in_word && sw_word_end(&v, &n, &w, err) < 0)
				goto cleanup;
			in_word = false;
			i++;
			continue;
		}
		if (c == '\'') {
			const char *end = memchr(s + i + 1, '\'', len - i - 1);

			if (end == NULL) {
				lz_err_set(err, LZ_EINVAL, "unterminated single quote at byte %zu", i);
				goto cleanup;
			}
			in_word = true;
			for (i++; s + i < end; i++)
				sw_put(&w, s[i]);
			i++;
		} else if (c == '"') {
			size_t start = i;

			in_word = true;
			for (i++; i < len && s[i] != '"'; i++) {
				if (s[i] == '\\' && i + 1 < len && strchr("\\\"$`\n", s[i + 1]) != NULL) {
					i++;
					if (s[i] != '\n')	/* backslash-newline is a continuation */
						sw_put(&w, s[i]);
				} else
					sw_put(&w, s[i]);
			}
			if (i >= len) {
				lz_err_set(err, LZ_EINVAL, "unterminated double quote at byte %zu", start);
				goto cleanup;
			}
			i++;
		} else if (c == '\\') {
			if (i + 1 >= len) {
				lz_err_set(err, LZ_EINVAL, "trailing backslash");
				goto cleanup;
			}
			if (s[i + 1] != '\n') {	/* backslash-newline joins lines */
				sw_put(&w, s[i + 1]);
				in_word = true;
			}
			i += 2;
		} else {
			in_word = true;
			sw_put(&w, c);
			i++;
		}
	}
	if (in_word && sw_word_end(&v, &n, &w, err) < 0)
		goto cleanup;
	*argv_out = lz_steal_ptr(&v);
	rc = 0;
cleanup:
	free(w.p);
	lz_strv_free(v);
	return rc;
}

size_t
lz_shellwords_utf8(const unsigned char *p, size_t avail, uint32_t *cp)
{
	size_t n, k;
	uint32_t c, min;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	} else if ((p[0] & 0xe0) == 0xc0) {
		n = 2, c = p[0] & 0x1f, min = 0x80;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 3, c = p[0] & 0x0f, min = 0x800;
	} else if ((p[0] & 0xf8) == 0xf0) {
		n = 4, c = p[0] & 0x07, min = 0x10000;
	} else
		return 0;
	if (avail < n)
		return 0;
	for (k = 1; k < n; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (p[k] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Invisible or reordering format characters (Trojan Source, CVE-2021-42574). */
static bool
sw_format_char(uint32_t cp)
{
	return (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069) || cp == 0x061c || cp == 0xfeff || cp == 0x00ad ||
	    cp == 0x2060;
}

unsigned
lz_shellwords_scan(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned f = 0;
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		size_t n = lz_shellwords_utf8(p + i, len - i, &cp);

		if (n == 0) {
			f |= LZ_SW_BADUTF8;
			i++;
			continue;
		}
		switch (cp) {
		case ';': f |= LZ_SW_SEMICOLON; break;
		case '|': f |= LZ_SW_PIPE; break;
		case '&': f |= LZ_SW_AMP; break;
		case '`': f |= LZ_SW_BACKTICK; break;
		case '>': f |= LZ_SW_GT; break;
		case '<': f |= LZ_SW_LT; break;
		case '\n': f |= LZ_SW_NEWLINE; break;
		case '\r': f |= LZ_SW_CR; break;
		case '\\': f |= LZ_SW_BACKSLASH; break;
		case '$':
			if (i + 1 < len && p[i + 1] == '(')
				f |= LZ_SW_SUBST;
			break;
		default:
			if (cp < 0x20 || cp == 0x7f)
				f |= LZ_SW_CONTROL;
			else if (cp >= 0x80 && cp <= 0x9f)
				f |= LZ_SW_C1;
			else if (sw_format_char(cp))
				f |= LZ_SW_FORMAT;
			break;
		}
		i += n;
	}
	return f;
}

const char *
lz_shellwords_meta_name(unsigned flags)
{
	static const struct { unsigned flag; const char *name; } names[] = {
		{ LZ_SW_SEMICOLON, "';'" },
		{ LZ_SW_PIPE, "'|'" },
		{ LZ_SW_AMP, "'&'" },
		{ LZ_SW_SUBST, "'$('" },
		{ LZ_SW_BACKTICK, "'`'" },
		{ LZ_SW_GT, "'>'" },
		{ LZ_SW_LT, "'<'" },
		{ LZ_SW_NEWLINE, "a newline" },
		{ LZ_SW_CR, "a carriage return" },
		{ LZ_SW_BACKSLASH, "a backslash" },
		{ LZ_SW_CONTROL, "a control character" },
		{ LZ_SW_C1, "a C1 control character" },
		{ LZ_SW_BADUTF8, "invalid UTF-8" },
		{ LZ_SW_FORMAT, "an invisible or bidi format character" },
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (flags & names[i].flag)
			return names[i].name;
	return "nothing";
}

static void
sw_puts(struct sw_buf *b, const char *s)
{
	for (; *s != '\0'; s++)
		sw_put(b, *s);
}

char *
lz_shellwords_visible(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	struct sw_buf b = { NULL, 0, 0 };
	char tmp[16];
	size_t i = 0;

	sw_start(&b);
	while (i < len) {
		uint32_t cp;
		size_t n = lz_shellwords_utf8(p + i, len - i, &cp);

		if (n == 0) {
			snprintf(tmp, sizeof tmp, "\\x%02x", p[i]);
			sw_puts(&b, tmp);
			i++;
			continue;
		}
		if (cp == '\\')
			sw_puts(&b, "\\\\");
		else if (cp == '\n')
			sw_puts(&b, "\\n");
		else if (cp == '\r')
			sw_puts(&b, "\\r");
		else if (cp == '\t')
			sw_puts(&b, "\\t");
		else if (cp < 0x20 || cp == 0x7f) {
			snprintf(tmp, sizeof tmp, "\\x%02x", (unsigned)cp);
			sw_puts(&b, tmp);
		} else if ((cp >= 0x80 && cp <= 0x9f) || sw_format_char(cp)) {
			snprintf(tmp, sizeof tmp, "\\u%04x", (unsigned)cp);
			sw_puts(&b, tmp);
		} else {
			for (size_t k = 0; k < n; k++)
				sw_put(&b, (char)p[i + k]);
		}
		i += n;
	}
	return b.p;
}

static bool
sw_plain(const char *w)
{
	if (*w == '\0')
		return false;
	for (; *w != '\0'; w++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_@%+=:,./-", *w) == NULL)
			return false;
	return true;
}

char *
lz_shellwords_join(char *const *argv)
{
	struct sw_buf b = { NULL, 0, 0 };

	sw_start(&b);
	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++) {
		const char *w = argv[i];

		if (i > 0)
			sw_put(&b, ' ');
		if (sw_plain(w)) {
			for (; *w != '\0'; w++)
				sw_put(&b, *w);
		} else if (strchr(w, '\'') == NULL) {
			sw_put(&b, '\'');
			for (; *w != '\0'; w++)
				sw_put(&b, *w);
			sw_put(&b, '\'');
		} else if (strpbrk(w, "\"$`\\") == NULL) {
			sw_put(&b, '"');
			for (; *w != '\0'; w++)
				sw_put(&b, *w);
			sw_put(&b, '"');
		} else {
			sw_put(&b, '\'');
			for (; *w != '\0'; w++) {
				if (*w == '\'') {
					sw_put(&b, '\''), sw_put(&b, '\\');
					sw_put(&b, '\''), sw_put(&b, '\'');
				} else
					sw_put(&b, *w);
			}
			sw_put(&b, '\'');
		}
	}
	return b.p;
}
