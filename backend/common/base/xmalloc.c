/* xmalloc.c - abort-on-OOM allocators. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "xmalloc.h"

static void __attribute__((noreturn))
oom(size_t n)
{
	fprintf(stderr, "lazaret: out of memory allocating %zu bytes\n", n);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n == 0 ? 1 : n);

	if (p == NULL)
		oom(n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t n)
{
	void *p = calloc(nmemb == 0 ? 1 : nmemb, n == 0 ? 1 : n);

	if (p == NULL)
		oom(nmemb * n);
	return p;
}

void *
xrealloc(void *ptr, size_t n)
{
	void *p = realloc(ptr, n == 0 ? 1 : n);

	if (p == NULL)
		oom(n);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t n)
{
	if (n != 0 && nmemb > SIZE_MAX / n)
		oom(SIZE_MAX);
	return xrealloc(ptr, nmemb * n);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p;
	size_t len = strnlen(s, n);

	p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char *p;

	if (vasprintf(&p, fmt, ap) < 0)
		oom(0);
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void
lz_assert_fail(const char *expr, const char *func, const char *file, int line)
{
	fprintf(stderr, "lazaret: assertion failed: %s in %s (%s:%d)\n",
	    expr, func, file, line);
	abort();
}
