/* err.c - lz_err_t helpers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "xmalloc.h"

static int
err_vset(lz_err_t *err, int code, const char *suffix, const char *fmt, va_list ap)
{
	char *m;

	if (err == NULL)
		return -1;
	m = xvasprintf(fmt, ap);
	free(err->msg);
	if (suffix != NULL) {
		err->msg = xasprintf("%s: %s", m, suffix);
		free(m);
	} else
		err->msg = m;
	err->code = code;
	return -1;
}

int
lz_err_set(lz_err_t *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(err, code, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int
lz_err_sys(lz_err_t *err, int errno_val, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(err, errno_val, strerror(errno_val), fmt, ap);
	va_end(ap);
	return -1;
}

int
lz_err_wrap(lz_err_t *err, const char *fmt, ...)
{
	va_list ap;
	char *ctx, *m;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	ctx = xvasprintf(fmt, ap);
	va_end(ap);
	m = xasprintf("%s: %s", ctx, err->msg != NULL ? err->msg : "unknown error");
	free(ctx);
	free(err->msg);
	err->msg = m;
	return -1;
}

void
lz_err_clear(lz_err_t *err)
{
	if (err == NULL)
		return;
	free(err->msg);
	err->msg = NULL;
	err->code = 0;
}

void
lz_err_print(const lz_err_t *err)
{
	fprintf(stderr, "lazaret: %s\n",
	    err != NULL && err->msg != NULL ? err->msg : "unknown error");
}

int
lz_err_exit_code(const lz_err_t *err)
{
	return err != NULL && err->code == LZ_EUSAGE ? 129 : 1;
}

void
lz_logv(const char *who, const char *fmt, va_list ap)
{
	char ts[32];
	struct tm tm;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", gmtime_r(&now.tv_sec, &tm));
	fprintf(stderr, "%s.%03ldZ %s[%ld]: ", ts, now.tv_nsec / 1000000, who, (long)getpid());
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
}
