/* test-reap.c - the domain record that marks a domain served (and, with its
 * coordinator's lock free, dead): written atomically 0600, read back only
 * when it matches its directory's hash, and dead domains found by scanning. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anchor.h"
#include "coord/lock.h"
#include "coord/reap.h"
#include "testutil.h"
#include "xmalloc.h"

struct reap_fixture {
	char *dir;		/* data_root and socket dir, and the workspace below */
	struct anchor *a;
};

static int
reap_setup(void **state)
{
	struct reap_fixture *f = xcalloc(1, sizeof *f);
	_cleanup_free_ char *ws = NULL, *dom = NULL;
	lz_err_t err = LZ_ERR_INIT;

	f->dir = tu_mkdtemp("test-reap");
	ws = xasprintf("%s/ws", f->dir);
	assert_int_equal(mkdir(ws, 0700), 0);
	assert_int_equal(anchor_new("default", ws, f->dir, f->dir, &f->a, &err), 0);
	dom = xasprintf("%s/domains", f->dir);
	assert_int_equal(mkdir(dom, 0700), 0);
	assert_int_equal(mkdir(f->a->domain_root, 0700), 0);
	*state = f;
	return 0;
}

static int
reap_teardown(void **state)
{
	struct reap_fixture *f = *state;

	tu_rmrf(f->dir);
	free(f->dir);
	anchor_free(f->a);
	free(f);
	return 0;
}

static void
test_reap_mark_round_trips_0600(void **state)
{
	struct reap_fixture *f = *state;
	_cleanup_free_ char *path = xasprintf("%s/" REAP_MARK_NAME, f->a->domain_root);
	char *p = NULL, *w = NULL;
	lz_err_t err = LZ_ERR_INIT;
	struct stat st;

	assert_int_equal(reap_mark(f->a, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(reap_mark_read(f->a->domain_root, &p, &w, &err), 0);
	assert_string_equal(p, "default");
	assert_string_equal(w, f->a->workspace);
	free(p);
	free(w);
	reap_unmark(f->a);
	assert_int_equal(reap_mark_read(f->a->domain_root, &p, &w, &err), -1);
	assert_int_equal(err.code, ENOENT);
	lz_err_clear(&err);
}

static void
test_reap_mark_of_another_hash_is_refused(void **state)
{
	struct reap_fixture *f = *state;
	static const char rec[] = "web\0/somewhere/else";	/* + the final NUL */
	_cleanup_free_ char *path = xasprintf("%s/" REAP_MARK_NAME, f->a->domain_root);
	char *p = NULL, *w = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, rec, sizeof rec), (ssize_t)sizeof rec);
	close(fd);
	assert_int_equal(reap_mark_read(f->a->domain_root, &p, &w, &err), -1);
	assert_non_null(strstr(err.msg, "another hash"));
	assert_null(p);
	assert_null(w);
	lz_err_clear(&err);
}

static void
test_anchor_record_parse_rejects_malformed(void **state)
{
	static const struct { const char *b; size_t n; const char *why; } bad[] = {
		{ "", 0, "no profile" },
		{ "default", 7, "no profile" },
		{ "default\0/x", 10, "no workspace" },
		{ "default\0/x\0y", 12, "trailing" },
		{ "Default\0/x\0", 11, "invalid profile" },
		{ "default\0x\0", 10, "not an absolute" },
	};
	char *p, *w;
	lz_err_t err = LZ_ERR_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(anchor_record_parse(bad[i].b, bad[i].n, &p, &w, &err), -1);
		assert_non_null(strstr(err.msg, bad[i].why));
		lz_err_clear(&err);
	}
	assert_int_equal(anchor_record_parse("ab\0/\0", 5, &p, &w, &err), 0);
	assert_string_equal(p, "ab");
	assert_string_equal(w, "/");
	free(p);
	free(w);
}

static int
count_cb(const struct anchor *a, void *arg)
{
	(void)a;
	(*(int *)arg)++;
	return 0;
}

static void
test_reap_each_dead_skips_a_held_lock(void **state)
{
	struct reap_fixture *f = *state;
	_cleanup_free_ char *live = lock_live_path(f->a);
	lz_err_t err = LZ_ERR_INIT;
	int n = 0, fd;

	assert_int_equal(reap_each_dead(f->dir, f->dir, count_cb, &n, &err), 0);
	assert_int_equal(n, 0);		/* no record: not a domain that ran */
	assert_int_equal(reap_mark(f->a, &err), 0);
	assert_int_equal(lock_open(live, &fd, &err), 0);
	assert_int_equal(lock_try(fd, &err), 1);
	assert_int_equal(reap_each_dead(f->dir, f->dir, count_cb, &n, &err), 0);
	assert_int_equal(n, 0);		/* its coordinator (lock holder) lives */
	close(fd);
	assert_int_equal(reap_each_dead(f->dir, f->dir, count_cb, &n, &err), 0);
	assert_int_equal(n, 1);		/* record, no holder: dead */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reap_mark_round_trips_0600, reap_setup,
		    reap_teardown),
		cmocka_unit_test_setup_teardown(test_reap_mark_of_another_hash_is_refused,
		    reap_setup, reap_teardown),
		cmocka_unit_test(test_anchor_record_parse_rejects_malformed),
		cmocka_unit_test_setup_teardown(test_reap_each_dead_skips_a_held_lock, reap_setup,
		    reap_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
