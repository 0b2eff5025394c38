/* testutil.h - helpers shared by the unit tests (the Makefile links
 * tests/unit/testutil.c into every test binary). */
#ifndef LZ_TESTUTIL_H
#define LZ_TESTUTIL_H

/* A fresh private directory /tmp/lz-TAG.XXXXXX, canonical (realpath);
 * fails the test when it cannot be made. The caller frees the string. */
char *tu_mkdtemp(const char *tag);

/* A fresh fake $HOME (tu_mkdtemp(tag)) with the XDG variables unset, so
 * every default path falls under it. The caller frees (and tu_rmrf's) it. */
char *tu_fake_home(const char *tag);

/* Write text to dir/name (created or truncated); fails the test when it
 * cannot be opened. */
void tu_write_file(const char *dir, const char *name, const char *text);

/* Remove dir and everything below it, symlinks not followed; fails the
 * test when anything cannot be removed. */
void tu_rmrf(const char *dir);

#endif
