/* jsonw.c - minimal JSON writer. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "jsonw.h"
#include "shellwords.h"
#include "xmalloc.h"

void
lz_jsonw_init(struct lz_jsonw *w)
{
	memset(w, 0, sizeof *w);
}

void
lz_jsonw_free(struct lz_jsonw *w)
{
	free(w->buf);
	memset(w, 0, sizeof *w);
}

char *
lz_jsonw_steal(struct lz_jsonw *w)
{
	char *s = w->buf != NULL ? w->buf : xstrdup("");

	w->buf = NULL;
	lz_jsonw_free(w);
	return s;
}

static void
jsonw_put(struct lz_jsonw *w, const char *s, size_t n)
{
	if (w->len + n + 1 > w->cap) {
		w->cap = (w->len + n + 1) * 2;
		w->buf = xrealloc(w->buf, w->cap);
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

/* Separator before a value: a comma unless it is the first in its container
 * or follows a key. */
static void
jsonw_sep(struct lz_jsonw *w)
{
	if (w->depth > 0 && w->need_comma[w->depth])
		jsonw_put(w, ",", 1);
	if (w->depth > 0)
		w->need_comma[w->depth] = true;
}

static void
jsonw_open(struct lz_jsonw *w, const char *c)
{
	jsonw_sep(w);
	jsonw_put(w, c, 1);
	LZ_ASSERT(w->depth + 1 < (int)(sizeof w->need_comma / sizeof w->need_comma[0]));
	w->depth++;
	w->need_comma[w->depth] = false;
}

static void
jsonw_close(struct lz_jsonw *w, const char *c)
{
	LZ_ASSERT(w->depth > 0);
	w->depth--;
	jsonw_put(w, c, 1);
}

void lz_jsonw_obj_open(struct lz_jsonw *w) { jsonw_open(w, "{"); }
void lz_jsonw_obj_close(struct lz_jsonw *w) { jsonw_close(w, "}"); }
void lz_jsonw_arr_open(struct lz_jsonw *w) { jsonw_open(w, "["); }
void lz_jsonw_arr_close(struct lz_jsonw *w) { jsonw_close(w, "]"); }

static void
jsonw_quoted(struct lz_jsonw *w, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[8];
	size_t i = 0, l;
	uint32_t cp;

	jsonw_put(w, "\"", 1);
	while (i < n) {
		switch (p[i]) {
		case '"': jsonw_put(w, "\\\"", 2); i++; continue;
		case '\\': jsonw_put(w, "\\\\", 2); i++; continue;
		case '\n': jsonw_put(w, "\\n", 2); i++; continue;
		case '\r': jsonw_put(w, "\\r", 2); i++; continue;
		case '\t': jsonw_put(w, "\\t", 2); i++; continue;
		default: break;
		}
		if (p[i] < 0x20 || p[i] == 0x7f ||
		    (l = lz_shellwords_utf8(p + i, n - i, &cp)) == 0) {
			snprintf(esc, sizeof esc, "\\u%04x", p[i]);
			jsonw_put(w, esc, 6);
			i++;
			continue;
		}
		jsonw_put(w, s + i, l);
		i += l;
	}
	jsonw_put(w, "\"", 1);
}

void
lz_jsonw_key(struct lz_jsonw *w, const char *key)
{
	jsonw_sep(w);
	jsonw_quoted(w, key, strlen(key));
	jsonw_put(w, ":", 1);
	w->need_comma[w->depth] = false;	/* the value follows without a comma */
}

/* After a value inside an object or array, the next one needs a comma. */
static void
jsonw_value_done(struct lz_jsonw *w)
{
	if (w->depth > 0)
		w->need_comma[w->depth] = true;
}

void
lz_jsonw_strn(struct lz_jsonw *w, const char *s, size_t n)
{
	jsonw_sep(w);
	jsonw_quoted(w, s, n);
	jsonw_value_done(w);
}

void
lz_jsonw_str(struct lz_jsonw *w, const char *s)
{
	if (s == NULL)
		lz_jsonw_null(w);
	else
		lz_jsonw_strn(w, s, strlen(s));
}

void
lz_jsonw_int(struct lz_jsonw *w, int64_t v)
{
	char b[32];

	jsonw_sep(w);
	jsonw_put(w, b, (size_t)snprintf(b, sizeof b, "%" PRId64, v));
	jsonw_value_done(w);
}

void
lz_jsonw_bool(struct lz_jsonw *w, bool v)
{
	jsonw_sep(w);
	jsonw_put(w, v ? "true" : "false", v ? 4 : 5);
	jsonw_value_done(w);
}

void
lz_jsonw_null(struct lz_jsonw *w)
{
	jsonw_sep(w);
	jsonw_put(w, "null", 4);
	jsonw_value_done(w);
}

void
lz_jsonw_raw(struct lz_jsonw *w, const char *json)
{
	jsonw_sep(w);
	jsonw_put(w, json, strlen(json));
	jsonw_value_done(w);
}
