/* test-review-stamp.c - the review gate's cache key: equal while nothing
 * changed; different after a rewrite that keeps size and mtime (ctime and
 * the inode tell), a new file deep down, a nested repository's .git; the
 * checkout's own .git left out; unsure while a change is too recent or
 * the tree is behind a symlink. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "review/review-stamp.h"
#include "testutil.h"
#include "xmalloc.h"

/* The stamp of dir; margin -1 s: nothing counts as too recent. */
static bool
stamp(const char *dir, int64_t margin_ms, uint8_t out[32])
{
	struct review_stamp s;

	review_stamp_init(&s, margin_ms);
	review_stamp_add(&s, dir, REVIEW_STAMP_TREE | REVIEW_STAMP_NO_GIT);
	return review_stamp_final(&s, out);
}

static void
test_review_stamp_sees_every_change_but_the_top_git(void **state)
{
	char *d = tu_mkdtemp("stamp");
	_cleanup_free_ char *mk = xasprintf("%s/Makefile", d), *sub = xasprintf("%s/a", d);
	_cleanup_free_ char *sub2 = xasprintf("%s/a/b", d), *git = xasprintf("%s/.git", d);
	_cleanup_free_ char *ngit = xasprintf("%s/a/.git", d);
	uint8_t k0[32], k1[32];
	struct stat st;
	struct timespec ts[2];

	(void)state;
	tu_write_file(d, "Makefile", "test:\n\techo user\n");
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkdir(sub2, 0755), 0);
	assert_int_equal(mkdir(git, 0755), 0);
	assert_int_equal(mkdir(ngit, 0755), 0);
	assert_true(stamp(d, -1000, k0));
	assert_true(stamp(d, -1000, k1));
	assert_memory_equal(k0, k1, 32);

	/* Same size, mtime put back: still a different stamp. */
	assert_int_equal(stat(mk, &st), 0);
	tu_write_file(d, "Makefile", "test:\n\techo agnt\n");
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, mk, ts, 0), 0);
	assert_true(stamp(d, -1000, k1));
	assert_memory_not_equal(k0, k1, 32);

	memcpy(k0, k1, 32);
	tu_write_file(sub2, "x.sh", "#!/bin/sh\n");
	assert_true(stamp(d, -1000, k1));
	assert_memory_not_equal(k0, k1, 32);

	memcpy(k0, k1, 32);
	tu_write_file(git, "index", "x");	/* the checkout's own .git: left out */
	assert_true(stamp(d, -1000, k1));
	assert_memory_equal(k0, k1, 32);
	tu_write_file(ngit, "HEAD", "ref: refs/heads/x\n");	/* a nested repository's: seen */
	assert_true(stamp(d, -1000, k1));
	assert_memory_not_equal(k0, k1, 32);

	/* Written just now: too recent to be trusted with a 1 s margin. */
	assert_false(stamp(d, 1000, k1));
	/* A checkout reached through a symlink is never trusted: git follows
	 * it, the stamp would see the link only. */
	{
		_cleanup_free_ char *ln = xasprintf("%s/link", sub);

		assert_int_equal(symlink(d, ln), 0);
		assert_false(stamp(ln, -1000, k1));
		assert_int_equal(unlink(ln), 0);
	}
	tu_rmrf(d);
	free(d);
}

static void
test_review_stamp_missing_path_is_sure_and_differs_from_a_file(void **state)
{
	char *d = tu_mkdtemp("stamp2");
	_cleanup_free_ char *p = xasprintf("%s/packed-refs", d);
	struct review_stamp s;
	uint8_t k0[32], k1[32];

	(void)state;
	review_stamp_init(&s, -1000);
	review_stamp_add(&s, p, 0);
	assert_true(review_stamp_final(&s, k0));
	tu_write_file(d, "packed-refs", "");
	review_stamp_init(&s, -1000);
	review_stamp_add(&s, p, 0);
	assert_true(review_stamp_final(&s, k1));
	assert_memory_not_equal(k0, k1, 32);
	tu_rmrf(d);
	free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_review_stamp_sees_every_change_but_the_top_git),
		cmocka_unit_test(test_review_stamp_missing_path_is_sure_and_differs_from_a_file),
	};

	return cmocka_run_group_tests_name("review-stamp", tests, NULL, NULL);
}
