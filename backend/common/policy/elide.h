/* elide.h - long names cut in the middle, never at their end (issue 24
 * item 5): the last labels of a host name say who receives a query or a
 * connection ("api.github.com.aaa…aaa.evil.test" goes to evil.test), so
 * wherever a line is too wide the name loses its middle, and the
 * registrable domain (the public suffix and one label, grant.h) stays.
 * Pure; host names are ASCII, so a byte is a column; the mark (U+2026) is
 * three bytes and one column. */
#ifndef LZ_ELIDE_H
#define LZ_ELIDE_H

#include <stddef.h>

/* Bytes at the end of name[0..len) that make its registrable domain
 * ("evil.test" of "a.b.evil.test", "x.co.uk" of "a.x.co.uk"); the whole
 * name when it is itself a public suffix. */
size_t lz_elide_tail(const char *name, size_t len);
/* name in at most cols columns: itself when it fits, else its start, the
 * mark and its end, the end never shorter than the registrable domain
 * (unless cols itself is), nor than half of what fits; caller frees. */
char *lz_elide_name_n(const char *name, size_t len, size_t cols);
char *lz_elide_name(const char *name, size_t cols);
/* s[0..len) about excess columns narrower, by cutting the middle of its
 * longest name-like words (host bytes with a dot, 12 or more), each down to
 * no less than its registrable domain and a mark; then, when the last
 * name ends the line (16 bytes or fewer after it), the words before it
 * lose their middle too (the first 8 stay); NULL when it has no name to
 * cut. What still does not fit is the caller's to cut at the right.
 * Caller frees. */
char *lz_elide_line(const char *s, size_t len, size_t excess);

#endif
