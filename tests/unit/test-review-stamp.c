/* test-review-stamp.c - the review gate's cache key: equal while nothing
 * changed; different after a rewrite that keeps size and mtime (ctime and
 * the inode tell), a new file deep down, a nested repository's .git; the
 * checkout's own .git left out; unsure while a change is too recent or
 * the tree is behind a symlink; with the filesystem's own clock read first,
 * a change is too recent only if it is not older than that clock. */
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

/* The stamp of dir with dir's filesystem clock read first (margin 1 s). */
static bool
stamp_clocked(const char *dir, const char *clock, uint8_t out[32])
{
	struct review_stamp s;

	review_stamp_init(&s, 1000);
	review_stamp_clock(&s, clock);
	review_stamp_add(&s, dir, REVIEW_STAMP_TREE | REVIEW_STAMP_NO_GIT);
	return review_stamp_final(&s, out);
}

/* Until a new inode in dir gets a later ctime than path's (one tick). */
static void
wait_fs_clock_past(const char *dir, const char *path)
{
	struct stat f, t;
	int i, fd;

	assert_int_equal(stat(path, &f), 0);
	for (i = 0; i < 2000; i++) {
		assert_true((fd = open(dir, O_TMPFILE | O_RDWR, 0600)) >= 0);
		assert_int_equal(fstat(fd, &t), 0);
		close(fd);
		if (t.st_ctim.tv_sec > f.st_ctim.tv_sec || (t.st_ctim.tv_sec == f.st_ctim.tv_sec &&
		    t.st_ctim.tv_nsec > f.st_ctim.tv_nsec))
			return;
		usleep(1000);
	}
	fail_msg("the filesystem clock of %s did not move in 2 s", dir);
}

static void
test_review_stamp_clock_trusts_a_change_older_than_the_filesystem_clock(void **state)
{
	char *d = tu_mkdtemp("stampclk");
	_cleanup_free_ char *mk = xasprintf("%s/Makefile", d);
	uint8_t k0[32], k1[32];
	struct review_stamp s;
	struct stat st;
	struct timespec ts[2];

	(void)state;
	tu_write_file(d, "Makefile", "test:\n\techo user\n");
	wait_fs_clock_past(d, mk);
	/* Milliseconds old: too recent for the 1 s margin (only that: worth
	 * another stamp with the clock), not for the clock (which must not
	 * change the directory: two stamps agree). */
	review_stamp_init(&s, 1000);
	review_stamp_add(&s, d, REVIEW_STAMP_TREE | REVIEW_STAMP_NO_GIT);
	assert_false(review_stamp_final(&s, k0));
	assert_true(review_stamp_only_recent(&s));
	assert_true(stamp_clocked(d, d, k0));
	assert_true(stamp_clocked(d, d, k1));
	assert_memory_equal(k0, k1, 32);

	/* Written after the clock was read: unsure, however the ticks fall. */
	review_stamp_init(&s, 1000);
	review_stamp_clock(&s, d);
	tu_write_file(d, "Makefile", "test:\n\techo agnt\n");
	review_stamp_add(&s, d, REVIEW_STAMP_TREE | REVIEW_STAMP_NO_GIT);
	assert_false(review_stamp_final(&s, k1));

	/* A rewrite right after a sure stamp, same size, mtime put back: the
	 * next stamp differs (the ctime is past the clock the sure one read). */
	assert_int_equal(stat(mk, &st), 0);
	wait_fs_clock_past(d, mk);
	assert_true(stamp_clocked(d, d, k0));
	tu_write_file(d, "Makefile", "test:\n\techo user\n");
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, mk, ts, 0), 0);
	(void)stamp_clocked(d, d, k1);
	assert_memory_not_equal(k0, k1, 32);

	/* Unsure for another reason (a tree behind a symlink): not only recent. */
	{
		_cleanup_free_ char *ln = xasprintf("%s/link", d);

		assert_int_equal(symlink(d, ln), 0);
		review_stamp_init(&s, 1000);
		review_stamp_clock(&s, d);
		review_stamp_add(&s, ln, REVIEW_STAMP_TREE | REVIEW_STAMP_NO_GIT);
		assert_false(review_stamp_final(&s, k1));
		assert_false(review_stamp_only_recent(&s));
		assert_int_equal(unlink(ln), 0);
	}

	/* A clock that cannot be read (no O_TMPFILE in /proc), or that of
	 * another filesystem, vouches for nothing here: the margin holds. */
	assert_false(stamp_clocked(d, "/proc", k1));
	{
		struct stat shm, here;

		if (stat("/dev/shm", &shm) == 0 && stat(d, &here) == 0 &&
		    shm.st_dev != here.st_dev)
			assert_false(stamp_clocked(d, "/dev/shm", k1));
	}
	tu_rmrf(d);
	free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_review_stamp_sees_every_change_but_the_top_git),
		cmocka_unit_test(test_review_stamp_missing_path_is_sure_and_differs_from_a_file),
		cmocka_unit_test(test_review_stamp_clock_trusts_a_change_older_than_the_filesystem_clock),
	};

	return cmocka_run_group_tests_name("review-stamp", tests, NULL, NULL);
}
