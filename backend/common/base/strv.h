/* strv.h - NULL-terminated string vectors (argv, env lists). */
#ifndef LZ_STRV_H
#define LZ_STRV_H

#include <stdbool.h>
#include <stddef.h>

/* Number of strings before the terminating NULL (0 for NULL). */
size_t lz_strv_len(char *const *v);
/* Append a copy of s; *v may be NULL. */
void lz_strv_push(char ***v, const char *s);
/* Append a formatted string. */
void lz_strv_pushf(char ***v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Free every string and the vector; NULL is a no-op. */
void lz_strv_free(char **v);
/* Is s one of v's strings (v may be NULL)? */
bool lz_strv_contains(char *const *v, const char *s);
/* Deep copy. */
char **lz_strv_dup(char *const *v);

#endif
