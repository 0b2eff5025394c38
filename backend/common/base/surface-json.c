/* surface-json.c - bounded JSON reader (see surface-json.h). RFC 8259
 * syntax, recursive descent with a depth limit; every read checks what is
 * left first. Values are kept as canonical text, not as a tree: the surface
 * only asks "did this member change". */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "surface-json.h"
#include "strv.h"
#include "xmalloc.h"

struct sj {
	const uint8_t *p;
	size_t len, pos;
	struct surface_json *out;
	lz_err_t *err;
};

/* Canonical text of a value under construction. */
struct sj_text {
	char *s;
	size_t len, cap;
};

static void
sj_text_put(struct sj_text *t, const void *p, size_t n)
{
	if (t == NULL)
		return;
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->s = xrealloc(t->s, t->cap);
	}
	memcpy(t->s + t->len, p, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static int
sj_fail(struct sj *j, const char *what)
{
	return lz_err_set(j->err, LZ_EINVAL, "invalid JSON at byte %zu: %s", j->pos, what);
}

static void
sj_ws(struct sj *j)
{
	while (j->pos < j->len && (j->p[j->pos] == ' ' || j->p[j->pos] == '\t' ||
	    j->p[j->pos] == '\n' || j->p[j->pos] == '\r'))
		j->pos++;
}

static int
sj_hex4(struct sj *j, unsigned *v)
{
	unsigned i, c;

	if (j->len - j->pos < 4)
		return sj_fail(j, "short \\u escape");
	*v = 0;
	for (i = 0; i < 4; i++) {
		c = j->p[j->pos++];
		if (c >= '0' && c <= '9')
			c -= '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			c = (c | 0x20) - 'a' + 10;
		else
			return sj_fail(j, "bad \\u escape");
		*v = *v << 4 | c;
	}
	return 0;
}

static void
sj_utf8(struct sj_text *t, unsigned cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp; n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6); b[1] = (char)(0x80 | (cp & 0x3f)); n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12); b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f)); n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18); b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); b[3] = (char)(0x80 | (cp & 0x3f)); n = 4;
	}
	sj_text_put(t, b, n);
}

/* A string at j->pos (the opening quote). raw gets its bytes as written,
 * dec (may be NULL) its decoded value; a decoded NUL is refused (a key
 * with a NUL in it cannot be compared as a C string). */
static int
sj_string(struct sj *j, struct sj_text *raw, struct sj_text *dec)
{
	size_t start = j->pos;
	unsigned cp, lo;
	uint8_t c;

	j->pos++;
	for (;;) {
		if (j->pos >= j->len)
			return sj_fail(j, "unterminated string");
		c = j->p[j->pos++];
		if (c == '"')
			break;
		if (c < 0x20)
			return sj_fail(j, "control character in a string");
		if (c != '\\') {
			sj_text_put(dec, &c, 1);
			continue;
		}
		if (j->pos >= j->len)
			return sj_fail(j, "unterminated escape");
		c = j->p[j->pos++];
		switch (c) {
		case '"': case '\\': case '/':
			sj_text_put(dec, &c, 1); break;
		case 'b': sj_text_put(dec, "\b", 1); break;
		case 'f': sj_text_put(dec, "\f", 1); break;
		case 'n': sj_text_put(dec, "\n", 1); break;
		case 'r': sj_text_put(dec, "\r", 1); break;
		case 't': sj_text_put(dec, "\t", 1); break;
		case 'u':
			if (sj_hex4(j, &cp) < 0)
				return -1;
			if (cp >= 0xd800 && cp < 0xdc00 && j->len - j->pos >= 6 &&
			    j->p[j->pos] == '\\' && j->p[j->pos + 1] == 'u') {
				j->pos += 2;
				if (sj_hex4(j, &lo) < 0)
					return -1;
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					cp = 0xfffd;	/* a lone surrogate: U+FFFD, as decoders do */
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd;
			}
			if (cp == 0)
				return sj_fail(j, "\\u0000 in a string");
			sj_utf8(dec, cp);
			break;
		default:
			return sj_fail(j, "bad escape");
		}
	}
	sj_text_put(raw, j->p + start, j->pos - start);
	return 0;
}

static int sj_value(struct sj *j, struct sj_text *t, int depth, const char *top);

static int
sj_literal(struct sj *j, struct sj_text *t)
{
	static const char *const lits[] = { "true", "false", "null" };
	size_t i, n;

	for (i = 0; i < 3; i++) {
		n = strlen(lits[i]);
		if (j->len - j->pos >= n && memcmp(j->p + j->pos, lits[i], n) == 0) {
			sj_text_put(t, lits[i], n);
			j->pos += n;
			return 0;
		}
	}
	return sj_fail(j, "unexpected character");
}

static int
sj_number(struct sj *j, struct sj_text *t)
{
	size_t start = j->pos;
	bool digits = false;

	if (j->p[j->pos] == '-')
		j->pos++;
	while (j->pos < j->len) {
		uint8_t c = j->p[j->pos];

		if (c >= '0' && c <= '9')
			digits = true;
		else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-')
			break;
		j->pos++;
	}
	if (!digits)
		return sj_fail(j, "bad number");
	sj_text_put(t, j->p + start, j->pos - start);
	return 0;
}

/* Drop the recorded members named (top, sub); sub NULL drops top and all
 * its children (a repeated key: JSON.parse keeps the last). */
static void
sj_drop(struct surface_json *o, const char *top, const char *sub)
{
	size_t i, k;

	for (i = k = 0; i < o->n; i++) {
		struct surface_jkv *e = &o->kv[i];
		bool same_top = strcmp(e->top, top) == 0;

		if (sub == NULL ? same_top :
		    same_top && e->sub != NULL && strcmp(e->sub, sub) == 0) {
			free(e->top); free(e->sub); free(e->val);
			continue;
		}
		o->kv[k++] = *e;
	}
	o->n = k;
}

/* Record member (top, sub) = val (taken). */
static int
sj_keep(struct sj *j, const char *top, const char *sub, char *val)
{
	struct surface_json *o = j->out;

	if (sub != NULL)
		sj_drop(o, top, sub);
	if (o->n >= SURFACE_JSON_ENTRIES) {
		free(val);
		return sj_fail(j, "too many members");
	}
	o->kv = xreallocarray(o->kv, o->n + 1, sizeof *o->kv);
	o->kv[o->n].top = xstrdup(top);
	o->kv[o->n].sub = sub != NULL ? xstrdup(sub) : NULL;
	o->kv[o->n].val = val;
	o->n++;
	return 0;
}

/* An object. top NULL: the document itself (members recorded as top-level);
 * top set: a top-level member's object value (members recorded under it). */
static int
sj_object(struct sj *j, struct sj_text *t, int depth, const char *top, bool doc)
{
	bool first = true;

	j->pos++;
	sj_text_put(t, "{", 1);
	for (;;) {
		struct sj_text raw = { 0 }, key = { 0 }, val = { 0 };
		int r;

		sj_ws(j);
		if (j->pos >= j->len)
			return sj_fail(j, "unterminated object");
		if (j->p[j->pos] == '}' && first) {
			j->pos++;
			break;
		}
		if (j->p[j->pos] != '"')
			return sj_fail(j, "expected a key");
		if (sj_string(j, &raw, &key) < 0) {
			free(raw.s); free(key.s);
			return -1;
		}
		sj_text_put(&key, "", 0);
		if (key.s == NULL)
			key.s = xstrdup("");
		sj_ws(j);
		if (j->pos >= j->len || j->p[j->pos] != ':') {
			free(raw.s); free(key.s);
			return sj_fail(j, "expected ':'");
		}
		j->pos++;
		sj_text_put(t, raw.s, raw.len);
		sj_text_put(t, ":", 1);
		free(raw.s);
		if (doc)
			sj_drop(j->out, key.s, NULL);
		r = sj_value(j, &val, depth + 1, doc ? key.s : NULL);
		if (r == 0 && val.s == NULL)
			val.s = xstrdup("");
		if (r == 0) {
			sj_text_put(t, val.s, val.len);
			if (doc || top != NULL) {
				r = sj_keep(j, doc ? key.s : top, doc ? NULL : key.s, val.s);
				val.s = NULL;
			}
		}
		free(val.s);
		free(key.s);
		if (r < 0)
			return -1;
		first = false;
		sj_ws(j);
		if (j->pos >= j->len)
			return sj_fail(j, "unterminated object");
		if (j->p[j->pos] == '}') {
			j->pos++;
			break;
		}
		if (j->p[j->pos] != ',')
			return sj_fail(j, "expected ',' or '}'");
		j->pos++;
		sj_text_put(t, ",", 1);
	}
	sj_text_put(t, "}", 1);
	return 0;
}

static int
sj_array(struct sj *j, struct sj_text *t, int depth)
{
	bool first = true;

	j->pos++;
	sj_text_put(t, "[", 1);
	for (;;) {
		sj_ws(j);
		if (j->pos >= j->len)
			return sj_fail(j, "unterminated array");
		if (j->p[j->pos] == ']' && first) {
			j->pos++;
			break;
		}
		if (sj_value(j, t, depth + 1, NULL) < 0)
			return -1;
		first = false;
		sj_ws(j);
		if (j->pos >= j->len)
			return sj_fail(j, "unterminated array");
		if (j->p[j->pos] == ']') {
			j->pos++;
			break;
		}
		if (j->p[j->pos] != ',')
			return sj_fail(j, "expected ',' or ']'");
		j->pos++;
		sj_text_put(t, ",", 1);
	}
	sj_text_put(t, "]", 1);
	return 0;
}

/* A value into t; top set: a top-level member's value, whose object members
 * are recorded one level down. */
static int
sj_value(struct sj *j, struct sj_text *t, int depth, const char *top)
{
	if (depth > SURFACE_JSON_DEPTH)
		return sj_fail(j, "nested too deeply");
	sj_ws(j);
	if (j->pos >= j->len)
		return sj_fail(j, "missing value");
	switch (j->p[j->pos]) {
	case '{':
		return sj_object(j, t, depth, top, false);
	case '[':
		return sj_array(j, t, depth);
	case '"':
		return sj_string(j, t, NULL);
	case 't': case 'f': case 'n':
		return sj_literal(j, t);
	default:
		if (j->p[j->pos] == '-' || (j->p[j->pos] >= '0' && j->p[j->pos] <= '9'))
			return sj_number(j, t);
		return sj_fail(j, "unexpected character");
	}
}

int
surface_json_parse(const uint8_t *buf, size_t len, struct surface_json *out, lz_err_t *err)
{
	struct sj j = { buf, len, 0, out, err };
	struct sj_text t = { 0 };
	int r;

	out->kv = NULL;
	out->n = 0;
	if (len > SURFACE_JSON_MAX)
		return lz_err_set(err, LZ_EINVAL, "JSON file of %zu bytes is over the limit of %u",
		    len, SURFACE_JSON_MAX);
	/* A UTF-8 byte order mark, which npm tolerates. */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		j.pos = 3;
	sj_ws(&j);
	if (j.pos >= len || buf[j.pos] != '{') {
		r = sj_fail(&j, "the document is not an object");
		goto out;
	}
	if ((r = sj_object(&j, &t, 1, NULL, true)) < 0)
		goto out;
	sj_ws(&j);
	if (j.pos != len)
		r = sj_fail(&j, "trailing bytes after the object");
out:
	free(t.s);
	if (r < 0)
		surface_json_clear(out);
	return r;
}

int
surface_json_each(const uint8_t *buf, size_t len, surface_json_each_cb cb, void *arg,
    lz_err_t *err)
{
	struct surface_json el = { 0 };
	struct sj j = { buf, len, 0, &el, err };
	bool first = true;
	int r = -1;

	if (len > SURFACE_JSON_MAX)
		return lz_err_set(err, LZ_EINVAL, "JSON file of %zu bytes is over the limit of %u",
		    len, SURFACE_JSON_MAX);
	sj_ws(&j);
	if (j.pos >= len || buf[j.pos] != '[')
		return sj_fail(&j, "the document is not an array");
	j.pos++;
	for (;;) {
		struct sj_text t = { 0 };

		sj_ws(&j);
		if (j.pos >= len) {
			sj_fail(&j, "unterminated array");
			goto out;
		}
		if (buf[j.pos] == ']' && first) {
			j.pos++;
			break;
		}
		if (buf[j.pos] != '{') {
			sj_fail(&j, "an element is not an object");
			goto out;
		}
		r = sj_object(&j, &t, 2, NULL, true);
		free(t.s);
		if (r < 0)
			goto out;
		r = -1;
		if (cb(&el, arg) != 0) {
			r = 0;
			goto out;
		}
		surface_json_clear(&el);
		first = false;
		sj_ws(&j);
		if (j.pos < len && buf[j.pos] == ']') {
			j.pos++;
			break;
		}
		if (j.pos >= len || buf[j.pos] != ',') {
			sj_fail(&j, "expected ',' or ']'");
			goto out;
		}
		j.pos++;
	}
	sj_ws(&j);
	if (j.pos != len)
		sj_fail(&j, "trailing bytes after the array");
	else
		r = 0;
out:
	surface_json_clear(&el);
	return r;
}

void
surface_json_clear(struct surface_json *o)
{
	size_t i;

	for (i = 0; i < o->n; i++) {
		free(o->kv[i].top);
		free(o->kv[i].sub);
		free(o->kv[i].val);
	}
	free(o->kv);
	o->kv = NULL;
	o->n = 0;
}

int
surface_json_strings(const char *val, char ***out, lz_err_t *err)
{
	struct sj j = { (const uint8_t *)val, strlen(val), 0, NULL, err };
	char **v = xcalloc(1, sizeof *v);
	bool first = true;

	*out = NULL;
	sj_ws(&j);
	if (j.pos >= j.len || j.p[j.pos] != '[') {
		lz_strv_free(v);
		return sj_fail(&j, "expected an array of strings");
	}
	j.pos++;
	for (;;) {
		struct sj_text dec = { 0 };

		sj_ws(&j);
		if (j.pos < j.len && j.p[j.pos] == ']' && first) {
			j.pos++;
			break;
		}
		if (j.pos >= j.len || j.p[j.pos] != '"') {
			sj_fail(&j, "expected a string");
			goto fail;
		}
		if (sj_string(&j, NULL, &dec) < 0) {
			free(dec.s);
			goto fail;
		}
		lz_strv_push(&v, dec.s != NULL ? dec.s : "");
		free(dec.s);
		first = false;
		sj_ws(&j);
		if (j.pos < j.len && j.p[j.pos] == ']') {
			j.pos++;
			break;
		}
		if (j.pos >= j.len || j.p[j.pos] != ',') {
			sj_fail(&j, "expected ',' or ']'");
			goto fail;
		}
		j.pos++;
	}
	sj_ws(&j);
	if (j.pos != j.len) {
		sj_fail(&j, "trailing bytes after the array");
		goto fail;
	}
	*out = v;
	return 0;
fail:
	lz_strv_free(v);
	return -1;
}

int
surface_json_string(const char *val, const char *what, char **out, lz_err_t *err)
{
	_cleanup_free_ char *arr = NULL;
	char **v = NULL;

	*out = NULL;
	if (val == NULL || val[0] != '"')
		return lz_err_set(err, LZ_EINVAL, "%s is not a string", what);
	arr = xasprintf("[%s]", val);
	if (surface_json_strings(arr, &v, err) < 0)
		return lz_err_wrap(err, "%s", what);
	if (lz_strv_len(v) != 1) {
		lz_strv_free(v);
		return lz_err_set(err, LZ_EINVAL, "%s is not a string", what);
	}
	*out = v[0];
	free(v);
	return 0;
}

int
surface_json_int(const char *val, int64_t min, int64_t max, int64_t *out, lz_err_t *err)
{
	const char *p = val;
	bool neg = false;
	int64_t n = 0;

	if (p != NULL && *p == '-') {
		neg = true;
		p++;
	}
	if (p == NULL || *p < '0' || *p > '9' || (p[0] == '0' && p[1] != '\0'))
		return lz_err_set(err, LZ_EINVAL, "'%.40s' is not a whole number", val != NULL ? val : "");
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (INT64_MAX - (*p - '0')) / 10)
			return lz_err_set(err, LZ_EINVAL, "'%.40s' is out of range", val);
		n = n * 10 + (*p - '0');
	}
	if (*p != '\0')
		return lz_err_set(err, LZ_EINVAL, "'%.40s' is not a whole number", val);
	if (neg)
		n = -n;
	if (n < min || n > max)
		return lz_err_set(err, LZ_EINVAL, "%lld is out of range [%lld, %lld]", (long long)n,
		    (long long)min, (long long)max);
	*out = n;
	return 0;
}

static const struct surface_jkv *
sj_find(const struct surface_json *o, const char *top, const char *sub)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (strcmp(o->kv[i].top, top) == 0 && (sub == NULL ? o->kv[i].sub == NULL :
		    o->kv[i].sub != NULL && strcmp(o->kv[i].sub, sub) == 0))
			return &o->kv[i];
	return NULL;
}

const char *
surface_json_get(const struct surface_json *o, const char *top, const char *sub)
{
	const struct surface_jkv *e = sj_find(o, top, sub);

	return e != NULL ? e->val : NULL;
}

/* Members of a under top missing or different in b; seen (b's side) skips
 * what a's walk already reported. */
static size_t
sj_diff_side(const struct surface_json *a, const struct surface_json *b, const char *top,
    bool second, surface_json_diff_cb cb, void *arg)
{
	size_t i, n = 0;

	for (i = 0; i < a->n; i++) {
		const struct surface_jkv *e = &a->kv[i], *o;
		char *name;

		if (strcmp(e->top, top) != 0 || e->sub == NULL)
			continue;
		o = sj_find(b, top, e->sub);
		if (o != NULL && (second || strcmp(o->val, e->val) == 0))
			continue;
		name = xasprintf("%s.%s", top, e->sub);
		cb(name, arg);
		free(name);
		n++;
	}
	return n;
}

size_t
surface_json_diff(const struct surface_json *a, const struct surface_json *b, const char *top,
    surface_json_diff_cb cb, void *arg)
{
	const struct surface_jkv *ea = sj_find(a, top, NULL), *eb = sj_find(b, top, NULL);
	bool obj_a = ea != NULL && ea->val[0] == '{', obj_b = eb != NULL && eb->val[0] == '{';

	if (ea == NULL && eb == NULL)
		return 0;
	/* Objects (an absent one is empty): member by member; otherwise the
	 * member as a whole. */
	if ((ea == NULL || obj_a) && (eb == NULL || obj_b))
		return sj_diff_side(a, b, top, false, cb, arg) + sj_diff_side(b, a, top, true, cb, arg);
	if (ea != NULL && eb != NULL && strcmp(ea->val, eb->val) == 0)
		return 0;
	cb(top, arg);
	return 1;
}
