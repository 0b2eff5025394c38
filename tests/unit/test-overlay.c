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

#include "sandbox/rootless/mountinfo.h"
#include "sandbox/mounts/overlay.h"
#include "sandbox/rootless/overlay-images.h"

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
	assert_true(mountinfo_has(mi, "/home/u/data/domains/abc/overlay/usr/merged"));
	assert_true(mountinfo_has(mi, "/home/u/my data/overlay/etc/merged"));
	assert_true(mountinfo_has(mi, "/"));
	assert_false(mountinfo_has(mi, "/home/u/data/domains/abc/overlay/usr"));
	assert_false(mountinfo_has(mi, "/home/u/my\\040data/overlay/etc/merged"));
	assert_false(mountinfo_has("", "/"));
	assert_false(mountinfo_has("garbage without fields\n", "/"));
}

#define H64(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
    c c c c c c c c c c c c c c c c c c c c c c c c

static int
images_find(const char *json, const char *ref, char *id, char *layer)
{
	lz_err_t err = LZ_ERR_INIT;
	int r = overlay_images_find((const uint8_t *)json, strlen(json), ref, id, layer, &err);

	lz_err_clear(&err);
	return r;
}

static void
test_overlay_images_find_names_the_image_exactly(void **state)
{
	/* containers/storage's images.json, as podman 4.3 writes it. */
	const char *json = "[{\"id\":\"" H64("a") "\",\"digest\":\"sha256:x\","
	    "\"names\":[\"localhost/old:1\",\"x\\\",\\\"localhost/lazaret-default:latest\"],"
	    "\"layer\":\"" H64("1") "\",\"metadata\":\"{}\"},"
	    " {\"id\":\"" H64("b") "\",\"names\":[\"localhost/lazaret-default:latest\"],"
	    "\"names-history\":[\"localhost/lazaret-default:latest\"],\"layer\":\"" H64("2") "\","
	    "\"big-data-names\":[\"manifest\"],\"created\":\"2026-12-03T07:06:00Z\"}]\n";
	char id[OVERLAY_IMAGES_ID_LEN + 1], layer[OVERLAY_IMAGES_ID_LEN + 1];

	(void)state;
	assert_int_equal(images_find(json, "localhost/lazaret-default:latest", id, layer), 1);
	assert_string_equal(id, H64("b"));
	assert_string_equal(layer, H64("2"));
	assert_int_equal(images_find(json, "localhost/old:1", id, layer), 1);
	assert_string_equal(id, H64("a"));
	/* Not there, or a part of a name, or a name only in the history. */
	assert_int_equal(images_find(json, "localhost/new:1", id, layer), 0);
	assert_int_equal(images_find(json, "localhost/old:", id, layer), 0);
	assert_int_equal(images_find("[]", "localhost/old:1", id, layer), 0);
	/* Short names, ids and digests are podman's to resolve. */
	assert_int_equal(images_find(json, "lazaret-default", id, layer), 0);
	assert_int_equal(images_find(json, "localhost/old@sha256:x", id, layer), 0);
	assert_false(overlay_images_ref_ok("localhost/a\"b:1"));
	assert_true(overlay_images_ref_ok("localhost:5000/team/img:v1.2"));
	/* Not an images file; a named image without a usable id. */
	assert_int_equal(images_find("{\"id\":1}", "localhost/old:1", id, layer), -1);
	assert_int_equal(images_find("[{\"names\":[\"localhost/old:1\"]", "localhost/old:1", id,
	    layer), -1);
	assert_int_equal(images_find("[{\"id\":\"zz\",\"names\":[\"localhost/old:1\"],"
	    "\"layer\":\"" H64("1") "\"}]", "localhost/old:1", id, layer), -1);
	assert_string_equal(id, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlay_dir_name_is_readable_and_never_shared),
		cmocka_unit_test(test_overlay_dir_check_refuses_what_cannot_be_persistent),
		cmocka_unit_test(test_overlay_mountinfo_finds_escaped_mount_points),
		cmocka_unit_test(test_overlay_images_find_names_the_image_exactly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
