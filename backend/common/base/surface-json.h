/* surface-json.h - a small, bounded JSON reader for the executable surface:
 * the top-level members of a JSON object (package.json, composer.json) and,
 * one level down, the members of object values, each with its value in a
 * canonical form (whitespace outside strings removed), so two versions of a
 * file can be compared key by key. Agent-controlled bytes: pure, fuzzed
 * (tests/fuzz/fuzz-surface-json.c).
 */
#ifndef LZ_SURFACE_JSON_H
#define LZ_SURFACE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define SURFACE_JSON_MAX	(4u * 1024 * 1024)	/* bytes of one file */
#define SURFACE_JSON_DEPTH	64			/* nesting */
#define SURFACE_JSON_ENTRIES	65536			/* members kept */

/* One member: top (decoded key of the top-level member), sub (decoded key
 * one level down, or NULL for the member itself) and its canonical value. */
struct surface_jkv {
	char *top;
	char *sub;
	char *val;
};

struct surface_json {
	struct surface_jkv *kv;
	size_t n;
};

/* Parse buf as a JSON object. Keys are decoded (escapes included, so
 * "scr\u0069pts" is "scripts", as JSON.parse reads it); a repeated key
 * replaces the earlier one (JSON.parse: the last wins). Returns 0, or -1
 * with err naming what is wrong and at which byte. Free with
 * surface_json_clear. */
int surface_json_parse(const uint8_t *buf, size_t len, struct surface_json *out, lz_err_t *err);
void surface_json_clear(struct surface_json *);

/* The canonical value of member top (sub NULL) or top.sub, or NULL. */
const char *surface_json_get(const struct surface_json *, const char *top, const char *sub);

/* Parse buf as a JSON array of objects (containers/storage's images.json)
 * and call cb with each element, its members read as surface_json_parse
 * reads a document's; cb returns non-zero to stop there (0 returned). An
 * element is freed after its call. Returns 0, or -1 with err. */
typedef int (*surface_json_each_cb)(const struct surface_json *el, void *arg);
int surface_json_each(const uint8_t *buf, size_t len, surface_json_each_cb cb, void *arg,
    lz_err_t *err);

/* Call cb with the name ("scripts.postinstall", or "bin" for a non-object
 * value) of each member under top-level key top that differs between a and
 * b (added, removed or changed). Returns how many differ. */
/* Decode val (a canonical value from surface_json_parse, or any JSON text)
 * as an array of strings into *out (NULL-terminated, lz_strv_free; an
 * empty array gives an empty vector). -1 with err when val is anything
 * else or a string holds a NUL. */
int surface_json_strings(const char *val, char ***out, lz_err_t *err);

/* Decode val, a JSON string (canonical or not), into *out (no NUL inside;
 * caller frees). -1 with err naming `what` otherwise. */
int surface_json_string(const char *val, const char *what, char **out, lz_err_t *err);
/* val as a whole number in [min, max] (JSON's: no leading zero, no
 * fraction or exponent). -1 with err saying what is wrong with it. */
int surface_json_int(const char *val, int64_t min, int64_t max, int64_t *out, lz_err_t *err);

typedef void (*surface_json_diff_cb)(const char *name, void *arg);
size_t surface_json_diff(const struct surface_json *a, const struct surface_json *b,
    const char *top, surface_json_diff_cb cb, void *arg);

#endif
