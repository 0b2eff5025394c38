/* test-overlay.c - the State Anchor's pure parts: directory names, persistent
 * dir checks, mountinfo lookups (the mounts themselves need podman:
 * tests/integ/test-overlay.sh). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sandbox/overlay.h"

static void
expect_name(const char *dir, const char *want)
{
	char *got = overlay_dir_name(dir);

	assert_string_equal(got, want);
	free(got);
}

static void
test_overlay_dir_name_is_readable_and_never_shared(void **state)
{
	(void)state;
	expect_name("/usr", "usr");
	expect_name("/usr/local", "usr-local");
	/* '-' and '_' are escaped, so these three stay apart. */
	expect_name("/usr-local", "usr_2dlocal");
	expect_name("/usr_local", "usr_5flocal");
	expect_name("/opt/my app", "opt-my_20app");
}

static void
expect_refused(const char *dir, const char *want)
{
	lz_err_t err = LZ_ERR_INIT;

	assert_int_equal(overlay_dir_check(dir, &err), -1);
	if (strstr(err.msg, want) == NULL)
		fail_msg("'%s' not in '%s'", want, err.msg);
	lz_err_clear(&err);
}

static void
test_overlay_dir_check_refuses_what_cannot_be_persistent(void **state)
{
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(overlay_dir_check("/usr", &err), 0);
	assert_int_equal(overlay_dir_check("/var/lib/apt", &err), 0);
	assert_int_equal(overlay_dir_check("/etc", &err), 0);
	expect_refused("/", "absolute path below /");
	expect_refused("usr", "absolute path below /");
	expect_refused("/usr/../etc", "not a normalised path");
	expect_refused("/usr/", "not a normalised path");
	expect_refused("/usr//lib", "not a normalised path");
	expect_refused("/workspace", "/workspace cannot be persistent");
	expect_refused("/run/lazaret/tls", "/run/lazaret cannot be persistent");
	expect_refused("/proc", "/proc cannot be persistent");
	expect_refused("/opt/a,b", "comma");
	expect_refused("/opt/a:b", "colon");
	/* A prefix that is not a path component is fine. */
	assert_int_equal(overlay_dir_check("/devtools", &err), 0);
}

static void
test_overlay_mountinfo_finds_escaped_mount_points(void **state)
{
	const char *mi =
	    "22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
	    "101 48 0:45 / /home/u/data/domains/abc/overlay/usr/merged rw,nodev - "
	    "fuse.fuse-overlayfs fuse-overlayfs rw,user_id=0\n"
	    "102 48 0:46 / /home/u/my\\040data/overlay/etc/merged rw - fuse.fuse-overlayfs x rw\n";

	(void)state;
	assert_true(overlay_mountinfo_has(mi, "/home/u/data/domains/abc/overlay/usr/merged"));
	assert_true(overlay_mountinfo_has(mi, "/home/u/my data/overlay/etc/merged"));
	assert_true(overlay_mountinfo_has(mi, "/"));
	assert_false(overlay_mountinfo_has(mi, "/home/u/data/domains/abc/overlay/usr"));
	assert_false(overlay_mountinfo_has(mi, "/home/u/my\\040data/overlay/etc/merged"));
	assert_false(overlay_mountinfo_has("", "/"));
	assert_false(overlay_mountinfo_has("garbage without fields\n", "/"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlay_dir_name_is_readable_and_never_shared),
		cmocka_unit_test(test_overlay_dir_check_refuses_what_cannot_be_persistent),
		cmocka_unit_test(test_overlay_mountinfo_finds_escaped_mount_points),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
