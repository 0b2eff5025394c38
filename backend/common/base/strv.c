/* strv.c - NULL-terminated string vectors. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "xmalloc.h"

size_t
lz_strv_len(char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

static void
strv_take(char ***v, char *s)
{
	size_t n = lz_strv_len(*v);

	*v = xreallocarray(*v, n + 2, sizeof **v);
	(*v)[n] = s;
	(*v)[n + 1] = NULL;
}

void
lz_strv_push(char ***v, const char *s)
{
	strv_take(v, xstrdup(s));
}

void
lz_strv_pushf(char ***v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strv_take(v, xvasprintf(fmt, ap));
	va_end(ap);
}

void
lz_strv_free(char **v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

char **
lz_strv_dup(char *const *v)
{
	char **out = NULL;
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		lz_strv_push(&out, v[i]);
	if (out == NULL)
		out = xcalloc(1, sizeof *out);
	return out;
}

bool
lz_strv_contains(char *const *v, const char *s)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}
