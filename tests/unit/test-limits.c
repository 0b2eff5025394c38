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

#include "sandbox/disk-usage.h"
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
	assert_int_equal(limits_host_tasks(16), 1024);
	assert_int_equal(limits_host_tasks(64), 64 * 24 + 256);
	assert_true(limits_host_tasks(4096) >= 4096);
	assert_true(limits_host_tasks(1 << 22) <= (1 << 22) / 4);
}

static void
test_disk_usage_counts_written_bytes(void **state)
{
	char *dir = tu_mkdtemp("test-limits"), *f = xasprintf("%s/a", dir);
	char *paths[] = { dir, NULL };
	static char buf[1 << 20];
	lz_err_t err = LZ_ERR_INIT;
	struct disk_usage used, before;
	int fd;

	(void)state;
	assert_int_equal(disk_usage_walk(paths, &before, &err), 0);
	fd = open(f, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	memset(buf, 'x', sizeof buf);
	assert_int_equal(write(fd, buf, sizeof buf), (ssize_t)sizeof buf);
	assert_int_equal(fsync(fd), 0);
	close(fd);
	assert_int_equal(disk_usage_walk(paths, &used, &err), 0);
	assert_true(used.bytes >= before.bytes + sizeof buf);
	assert_int_equal(used.unreadable, 0);
	tu_rmrf(dir);
	free(dir);
	free(f);
}

/* The step's line, and what is not it (a child's stdout is outside input). */
static void
test_disk_usage_line_round_trips_and_refuses_the_rest(void **state)
{
	struct disk_usage du = { 18446744073709551615ull, 7 }, back;
	static const char *const bad[] = {
		"", "bytes=1 unreadable=2", "bytes=1 unreadable=2\n\n", "bytes= unreadable=2\n",
		"bytes=1  unreadable=2\n", "bytes=18446744073709551616 unreadable=0\n",
		"bytes=-1 unreadable=0\n", "bytes=1 unreadable=2 x\n", "unreadable=2 bytes=1\n",
		"bytes=1\n",
	};
	lz_err_t err = LZ_ERR_INIT;
	char *line = disk_usage_format(&du);
	size_t i;

	(void)state;
	assert_string_equal(line, "bytes=18446744073709551615 unreadable=7\n");
	assert_int_equal(disk_usage_parse(line, strlen(line), &back, &err), 0);
	assert_true(back.bytes == du.bytes && back.unreadable == 7);
	free(line);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(disk_usage_parse(bad[i], strlen(bad[i]), &back, &err), -1);
		assert_non_null(err.msg);
		lz_err_clear(&err);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limits_unenforced_names_each_limit_and_the_fix),
		cmocka_unit_test(test_limits_host_tasks_backstop_is_bounded),
		cmocka_unit_test(test_disk_usage_counts_written_bytes),
		cmocka_unit_test(test_disk_usage_line_round_trips_and_refuses_the_rest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
