/* test-doctor.c - the parsers and the runtime-dir rule behind lazaret doctor. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor/doctor.h"
#include "xmalloc.h"

static void
test_doctor_subid_finds_user_by_name_or_uid(void **state)
{
	const char *subuid = "alice:100000:65536\n1001:165536:65536\nbob:231072:1000\n";
	unsigned long start, count;

	(void)state;
	assert_true(doctor_subid_find(subuid, "alice", 1000, &start, &count));
	assert_int_equal(start, 100000);
	assert_int_equal(count, 65536);
	assert_true(doctor_subid_find(subuid, "carol", 1001, &start, &count));
	assert_int_equal(start, 165536);
	assert_true(doctor_subid_find(subuid, "bob", 1002, &start, &count));
	assert_int_equal(count, 1000);
	assert_false(doctor_subid_find(subuid, "dave", 1003, &start, &count));
}

static void
test_doctor_subid_ignores_malformed_lines(void **state)
{
	unsigned long start, count;

	(void)state;
	assert_false(doctor_subid_find("alice:100000\nalice\n", "alice", 1000, &start, &count));
	assert_false(doctor_subid_find("alice:x:65536\n", "alice", 1000, &start, &count));
	assert_false(doctor_subid_find("alice:1:2:3\n", "alice", 1000, &start, &count));
	assert_true(doctor_subid_find("alice:1:2:3\nalice:5:65536\n", "alice", 1000, &start, &count));
	assert_int_equal(start, 5);
}

/* Lines from /proc/self/mountinfo on this host before and after setup-host. */
static void
test_doctor_root_propagation_reads_the_top_mount(void **state)
{
	const char *priv =
	    "24 1 254:1 / / rw,relatime - ext4 /dev/vda1 rw\n"
	    "25 24 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw\n";
	const char *shared =
	    "24 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
	    "25 24 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw\n";
	const char *slave = "301 300 0:40 / / rw master:7 - overlay overlay rw\n";
	const char *stacked =
	    "24 1 254:1 / / rw shared:1 - ext4 /dev/vda1 rw\n"
	    "90 24 0:50 / / rw - tmpfs none rw\n";

	(void)state;
	assert_string_equal(doctor_root_propagation(priv), "private");
	assert_string_equal(doctor_root_propagation(shared), "shared");
	assert_string_equal(doctor_root_propagation(slave), "slave");
	assert_string_equal(doctor_root_propagation(stacked), "private");
	assert_null(doctor_root_propagation("25 24 0:5 / /dev rw shared:2 - devtmpfs udev rw\n"));
}

static void
test_doctor_runtime_dir_requires_own_0700_directory(void **state)
{
	char tmpl[] = "/tmp/lz-doctor-test.XXXXXX", *problem, *fix, *link;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(chmod(tmpl, 0700), 0);
	assert_true(doctor_runtime_dir_ok(tmpl, getuid(), &problem, &fix));
	assert_null(problem);

	assert_int_equal(chmod(tmpl, 0755), 0);
	assert_false(doctor_runtime_dir_ok(tmpl, getuid(), &problem, &fix));
	assert_non_null(strstr(problem, "has mode 0755, not 0700"));
	assert_non_null(strstr(fix, "chmod 0700"));
	free(problem);
	free(fix);

	assert_int_equal(chmod(tmpl, 0700), 0);
	assert_false(doctor_runtime_dir_ok(tmpl, getuid() + 1, &problem, &fix));
	assert_non_null(strstr(problem, "not to you"));
	free(problem);
	free(fix);

	link = xasprintf("%s.lnk", tmpl);
	assert_int_equal(symlink(tmpl, link), 0);
	assert_false(doctor_runtime_dir_ok(link, getuid(), &problem, &fix));
	assert_non_null(strstr(problem, "(a symlink)"));
	free(problem);
	free(fix);
	unlink(link);
	free(link);

	assert_false(doctor_runtime_dir_ok(NULL, 1001, &problem, &fix));
	assert_non_null(strstr(problem, "not set"));
	assert_non_null(strstr(fix, "export XDG_RUNTIME_DIR=/run/user/1001"));
	free(problem);
	free(fix);
	assert_false(doctor_runtime_dir_ok("run/user/1", 1, &problem, &fix));
	free(problem);
	free(fix);
	rmdir(tmpl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doctor_subid_finds_user_by_name_or_uid),
		cmocka_unit_test(test_doctor_subid_ignores_malformed_lines),
		cmocka_unit_test(test_doctor_root_propagation_reads_the_top_mount),
		cmocka_unit_test(test_doctor_runtime_dir_requires_own_0700_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
