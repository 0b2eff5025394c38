/* test-image.c - parsing what ldd prints (the image build copies those files). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sandbox/image/image.h"
#include "strv.h"

/* Real output of `ldd /usr/bin/git /usr/bin/busybox /usr/bin/bash` on Debian 12,
 * plus a library that is missing on the host. */
static const char ldd_out[] =
    "/usr/bin/git:\n"
    "\tlinux-vdso.so.1 (0x00007f8b94274000)\n"
    "\tlibpcre2-8.so.0 => /lib/x86_64-linux-gnu/libpcre2-8.so.0 (0x00007f8b941c7000)\n"
    "\tlibz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x00007f8b93de1000)\n"
    "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f8b93bff000)\n"
    "\t/lib64/ld-linux-x86-64.so.2 (0x00007f8b94276000)\n"
    "/usr/bin/busybox:\n"
    "\tnot a dynamic executable\n"
    "/usr/bin/bash:\n"
    "\tlinux-vdso.so.1 (0x00007fed43d4b000)\n"
    "\tlibtinfo.so.6 => /lib/x86_64-linux-gnu/libtinfo.so.6 (0x00007fed43bc5000)\n"
    "\tlibgone.so.1 => not found\n"
    "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007fed439e3000)\n"
    "\t/lib64/ld-linux-x86-64.so.2 (0x00007fed43d4d000)";

static void
test_image_ldd_parse_lists_each_library_once_in_order(void **state)
{
	char **libs;

	(void)state;
	assert_int_equal(image_ldd_parse(ldd_out, &libs), 5);
	assert_string_equal(libs[0], "/lib/x86_64-linux-gnu/libpcre2-8.so.0");
	assert_string_equal(libs[1], "/lib/x86_64-linux-gnu/libz.so.1");
	assert_string_equal(libs[2], "/lib/x86_64-linux-gnu/libc.so.6");
	assert_string_equal(libs[3], "/lib64/ld-linux-x86-64.so.2");
	assert_string_equal(libs[4], "/lib/x86_64-linux-gnu/libtinfo.so.6");
	assert_null(libs[5]);
	lz_strv_free(libs);
}

static void
test_image_ldd_parse_skips_headers_vdso_and_missing(void **state)
{
	char **libs;

	(void)state;
	assert_int_equal(image_ldd_parse("/usr/bin/x:\n\tlinux-vdso.so.1 (0x1)\n"
	    "\tlibq.so => not found\n\tnot a dynamic executable\n", &libs), 0);
	assert_null(libs);
	assert_int_equal(image_ldd_parse("", &libs), 0);
	assert_null(libs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_image_ldd_parse_lists_each_library_once_in_order),
		cmocka_unit_test(test_image_ldd_parse_skips_headers_vdso_and_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
