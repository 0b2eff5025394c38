/* test-limits.c - what the host enforces is said in one sentence with the
 * fix, the host task backstop stays under a quarter of the PIDs, and the disk
 * watchdog's measure counts what is written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/limits.h"
#include "testutil.h"
#include "xmalloc.h"

static void
test_limits_unenforced_names_each_limit_and_the_fix(void **state)
{
	struct limits_host h = { { NULL, NULL, NULL } };
	struct cfg_limits l = { 1ULL << 30, 64, 1ULL << 30, 1000, 0 };
	char *m;

	(void)state;
	m = limits_unenforced(&h, &l);
	assert_non_null(m);
	assert_non_null(strstr(m, "memory"));
	assert_non_null(strstr(m, "cpus"));
	assert_non_null(strstr(m, "pids"));
	assert_non_null(strstr(m, "sudo scripts/setup-host"));
	free(m);
	l.cpus_milli = 0;	/* no limit asked: nothing to say about it */
	m = limits_unenforced(&h, &l);
	assert_null(strstr(m, "cpus"));
	free(m);
	h.dir[LIMITS_MEMORY] = (char *)"/x";
	h.dir[LIMITS_PIDS] = (char *)"/y";
	assert_null(limits_unenforced(&h, &l));
}

static void
test_limits_host_tasks_backstop_is_bounded(void **state)
{
	(void)state;
	assert_int_equal(limits_host_tasks(64), 1024);
	assert_true(limits_host_tasks(4096) >= 4096);
	assert_true(limits_host_tasks(1 << 22) <= (1 << 22) / 4);
}

static void
test_limits_disk_usage_counts_written_bytes(void **state)
{
	char *dir = tu_mkdtemp("test-limits"), *f = xasprintf("%s/a", dir);
	char *paths[] = { dir, NULL };
	static char buf[1 << 20];
	lz_err_t err = LZ_ERR_INIT;
	uint64_t used = 0, before = 0;
	int fd;

	(void)state;
	assert_int_equal(limits_disk_usage(paths, &before, &err), 0);
	fd = open(f, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	memset(buf, 'x', sizeof buf);
	assert_int_equal(write(fd, buf, sizeof buf), (ssize_t)sizeof buf);
	assert_int_equal(fsync(fd), 0);
	close(fd);
	assert_int_equal(limits_disk_usage(paths, &used, &err), 0);
	assert_true(used >= before + sizeof buf);
	tu_rmrf(dir);
	free(dir);
	free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limits_unenforced_names_each_limit_and_the_fix),
		cmocka_unit_test(test_limits_host_tasks_backstop_is_bounded),
		cmocka_unit_test(test_limits_disk_usage_counts_written_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
