/* shellwords.h - POSIX shell-words splitting of an escalation request, and the
 * metacharacter scan that keeps suspicious requests away from auto-approval
 * (spec 5.x). Pure: no I/O, fuzzable.
 *
 * Splitting resolves quoting only: '...' is literal; "..." honours backslash
 * before \ " $ ` and newline; a backslash outside quotes quotes the next
 * character; space, tab and newline separate words. Nothing is expanded
 * ($VAR, globs, ~ and operators stay literal text): the result is run by
 * execve, never by a shell.
 */
#ifndef LZ_SHELLWORDS_H
#define LZ_SHELLWORDS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define LZ_SHELLWORDS_MAX_LEN	(64 * 1024)	/* bytes of one command string */
#define LZ_SHELLWORDS_MAX_WORDS	1024

/* Flags reported by lz_shellwords_scan(). */
#define LZ_SW_SEMICOLON	0x0001u	/* ; */
#define LZ_SW_PIPE	0x0002u	/* | */
#define LZ_SW_AMP	0x0004u	/* & */
#define LZ_SW_SUBST	0x0008u	/* $( */
#define LZ_SW_BACKTICK	0x0010u	/* ` */
#define LZ_SW_GT	0x0020u	/* > */
#define LZ_SW_LT	0x0040u	/* < */
#define LZ_SW_NEWLINE	0x0080u	/* \n */
#define LZ_SW_CR	0x0100u	/* \r */
#define LZ_SW_BACKSLASH	0x0200u	/* \ */
#define LZ_SW_CONTROL	0x0400u	/* other C0 (incl. NUL and tab), DEL */
#define LZ_SW_C1	0x0800u	/* U+0080..U+009F (C1 controls) */
#define LZ_SW_BADUTF8	0x1000u	/* not valid UTF-8 (overlong, surrogate, truncated) */
#define LZ_SW_FORMAT	0x2000u	/* bidi controls, zero-width chars, BOM: text that hides text */

/* Split s[0..len) into a NULL-terminated vector (*argv_out, free with
 * lz_strv_free). Errors: unterminated quote or trailing backslash, NUL byte,
 * more than LZ_SHELLWORDS_MAX_LEN bytes or LZ_SHELLWORDS_MAX_WORDS words. An
 * empty or all-blank string gives an empty vector. */
int lz_shellwords_split(const char *s, size_t len, char ***argv_out, lz_err_t *err);

/* Which metacharacters the RAW string holds (0 = none); see LZ_SW_*. Tab is
 * a control character here: a request that needs one is not auto-approved. */
unsigned lz_shellwords_scan(const char *s, size_t len);

/* Length of the UTF-8 sequence at p (1..4), or 0 when it is invalid
 * (overlong, surrogate, above U+10FFFF, truncated); *cp gets the code point.
 * avail >= 1. */
size_t lz_shellwords_utf8(const unsigned char *p, size_t avail, uint32_t *cp);

/* Human text for the lowest flag set in flags ("';'", "a newline", ...). */
const char *lz_shellwords_meta_name(unsigned flags);

/* s[0..len) for a human to read in a prompt, every byte accounted for:
 * printable UTF-8 as is; backslash as \\; \n \r \t as such; other C0 and
 * DEL as \xNN; C1 and LZ_SW_FORMAT characters as \uNNNN; invalid UTF-8
 * bytes as \xNN. Caller frees. */
char *lz_shellwords_visible(const char *s, size_t len);

/* Quote argv into one string that lz_shellwords_split() turns back into the
 * same vector. Plain words stay bare; others go in single quotes, or double
 * quotes when they hold a ' but none of " $ ` \. Caller frees. */
char *lz_shellwords_join(char *const *argv);

#endif
