/* err.h - one error convention for all of Lazaret (crun style).
 *
 * A fallible function is `int f(..., lz_err_t *err)`: it returns < 0 and fills
 * *err with an errno-style code and an allocated message; each caller may add
 * context with lz_err_wrap(); the top level prints it once with lz_err_print().
 */
#ifndef LZ_ERR_H
#define LZ_ERR_H

#include <stdarg.h>

typedef struct lz_err {
	int   code;	/* errno value, or LZ_E* below */
	char *msg;	/* owned; NULL when no error */
} lz_err_t;

#define LZ_ERR_INIT { 0, NULL }

/* Codes beyond errno: usage errors and invalid input. */
#define LZ_EUSAGE	1000	/* command-line usage error: exit 129 like git */
#define LZ_EINVAL	1001	/* invalid input (config, frame, payload) */

/* Set err (if not NULL) and return -1. An existing message is replaced. */
int lz_err_set(lz_err_t *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Like lz_err_set, appending ": strerror(errno_val)". */
int lz_err_sys(lz_err_t *err, int errno_val, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefix the message with context ("context: old message"); return -1. */
int lz_err_wrap(lz_err_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Free the message and reset. */
void lz_err_clear(lz_err_t *err);
/* Print "lazaret: <msg>" to stderr. */
void lz_err_print(const lz_err_t *err);
/* Exit status for an error: 129 for usage, 1 otherwise. */
int lz_err_exit_code(const lz_err_t *err);

/* One log line on stderr: "<UTC time> WHO[pid]: message" (the coordinator's
 * and its guard's shared log, coordinator.log). */
void lz_logv(const char *who, const char *fmt, va_list ap);

#endif
