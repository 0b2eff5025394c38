/* test-prefix.c - helpers and data found relative to the program (prefix.c):
 * the installed GNU layout and the build-tree layout, on real files. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "prefix.h"
#include "xmalloc.h"

static char *
mkexe(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs("#!/bin/sh\n", f);
	fclose(f);
	assert_int_equal(chmod(p, 0755), 0);
	return p;
}

static void
test_prefix_of_strips_the_last_component(void **state)
{
	const char *cases[][2] = {
		{ "/usr/bin", "/usr" }, { "/usr/local/bin/", "/usr/local" },
		{ "/opt/lz//bin", "/opt/lz" }, { "/bin", "" }, { "/src/build", "/src" },
	};
	char *p;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		p = lz_prefix_of(cases[i][0]);
		assert_string_equal(p, cases[i][1]);
		free(p);
	}
}

static void
test_prefix_helper_prefers_libexec_then_build_tree(void **state)
{
	char tmpl[] = "/tmp/lz-prefix.XXXXXX", *root = mkdtemp(tmpl), *bin, *lib, *a, *b, *out;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_non_null(root);
	bin = xasprintf("%s/bin", root);
	lib = xasprintf("%s/libexec/lazaret", root);
	assert_int_equal(mkdir(bin, 0755), 0);
	/* nothing anywhere: the error names both places */
	assert_int_equal(lz_prefix_helper_in(bin, "lazaret-escalate", &out, &err), -1);
	assert_null(out);
	assert_non_null(strstr(err.msg, "lazaret-escalate is missing"));
	assert_non_null(strstr(err.msg, "libexec/lazaret (installed)"));
	assert_non_null(strstr(err.msg, bin));
	lz_err_clear(&err);
	/* build tree: next to the program */
	a = mkexe(bin, "lazaret-escalate");
	assert_int_equal(lz_prefix_helper_in(bin, "lazaret-escalate", &out, &err), 0);
	assert_string_equal(out, a);
	free(out);
	/* installed: PREFIX/libexec/lazaret wins */
	*strrchr(lib, '/') = '\0';
	assert_int_equal(mkdir(lib, 0755), 0);
	lib[strlen(lib)] = '/';
	assert_int_equal(mkdir(lib, 0755), 0);
	b = mkexe(lib, "lazaret-escalate");
	assert_int_equal(lz_prefix_helper_in(bin, "lazaret-escalate", &out, &err), 0);
	assert_string_equal(out, b);
	free(out);
	/* not executable there: not taken */
	assert_int_equal(chmod(b, 0644), 0);
	assert_int_equal(lz_prefix_helper_in(bin, "lazaret-escalate", &out, &err), 0);
	assert_string_equal(out, a);
	free(out);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
	rmdir(lib);
	*strrchr(lib, '/') = '\0';
	rmdir(lib);
	rmdir(bin);
	assert_int_equal(rmdir(root), 0);
	free(lib);
	free(bin);
}

static void
test_prefix_data_is_share_lazaret_of_this_program(void **state)
{
	char exe[PATH_MAX], *want, *got, *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	/* build/tests/test-prefix: PREFIX is build/ */
	slash = strrchr(exe, '/');
	*slash = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	want = xasprintf("%s/share/lazaret/themes", exe);
	got = lz_prefix_data("themes");
	assert_string_equal(got, want);
	free(got);
	free(want);
	want = xasprintf("%s/share/lazaret", exe);
	got = lz_prefix_data("");
	assert_string_equal(got, want);
	free(got);
	free(want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_of_strips_the_last_component),
		cmocka_unit_test(test_prefix_helper_prefers_libexec_then_build_tree),
		cmocka_unit_test(test_prefix_data_is_share_lazaret_of_this_program),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
