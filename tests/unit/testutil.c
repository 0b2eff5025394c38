/* testutil.c - helpers shared by the unit tests. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"
#include "xmalloc.h"

char *
tu_mkdtemp(const char *tag)
{
	_cleanup_free_ char *t = xasprintf("/tmp/lz-%s.XXXXXX", tag);
	char *dir;

	assert_non_null(mkdtemp(t));
	assert_non_null((dir = realpath(t, NULL)));
	return dir;
}

static int
tu_rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void
tu_rmrf(const char *dir)
{
	assert_int_equal(nftw(dir, tu_rm_cb, 16, FTW_DEPTH | FTW_PHYS), 0);
}

void
tu_write_file(const char *dir, const char *name, const char *text)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

char *
tu_fake_home(const char *tag)
{
	char *home = tu_mkdtemp(tag);

	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_DATA_HOME");
	unsetenv("XDG_RUNTIME_DIR");
	return home;
}
