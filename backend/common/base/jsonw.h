/* jsonw.h - a minimal JSON writer into a growable string (for --json output
 * and wire payloads). Strings are escaped per RFC 8259; invalid UTF-8 bytes
 * are written as \u00XX so the output is always valid JSON text. */
#ifndef LZ_JSONW_H
#define LZ_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lz_jsonw {
	char *buf;
	size_t len, cap;
	int depth;
	bool need_comma[32];
};

void lz_jsonw_init(struct lz_jsonw *);
void lz_jsonw_free(struct lz_jsonw *);
/* Hand the NUL-terminated text over to the caller (free it). */
char *lz_jsonw_steal(struct lz_jsonw *);

void lz_jsonw_obj_open(struct lz_jsonw *);
void lz_jsonw_obj_close(struct lz_jsonw *);
void lz_jsonw_arr_open(struct lz_jsonw *);
void lz_jsonw_arr_close(struct lz_jsonw *);
/* Inside an object: the key of the next value. */
void lz_jsonw_key(struct lz_jsonw *, const char *key);
void lz_jsonw_str(struct lz_jsonw *, const char *s);	/* NULL writes null */
void lz_jsonw_strn(struct lz_jsonw *, const char *s, size_t n);
void lz_jsonw_int(struct lz_jsonw *, int64_t v);
void lz_jsonw_bool(struct lz_jsonw *, bool v);
void lz_jsonw_null(struct lz_jsonw *);
/* A value that is already JSON text (a JSON reader's canonical value), as it is. */
void lz_jsonw_raw(struct lz_jsonw *, const char *json);

#endif
