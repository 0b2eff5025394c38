/* test-sudo-req.c - the in-sandbox sudo's request (sudo-req.c) and the
 * passwd lookup that picks the agent user (sandbox/mounts/passwd.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sandbox/mounts/passwd.h"
#include "sudo-req.h"
#include "xmalloc.h"

static void
test_sudo_req_round_trips_cwd_argv_env(void **state)
{
	char *argv[] = { (char *)"apt-get", (char *)"install", (char *)"", (char *)"-y", NULL };
	char *env[] = { (char *)"PATH=/usr/bin", (char *)"A=b=c", NULL };
	struct sudo_req r;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t *buf;
	size_t len;

	(void)state;
	assert_int_equal(sudo_req_encode("/workspace", argv, env, &buf, &len, &err), 0);
	assert_int_equal(buf[0] | buf[1] << 8 | buf[2] << 16 | buf[3] << 24, (int)len - 4);
	assert_int_equal(sudo_req_parse(buf + 4, len - 4, &r, &err), 0);
	assert_string_equal(r.cwd, "/workspace");
	assert_string_equal(r.argv[0], "apt-get");
	assert_string_equal(r.argv[2], "");
	assert_null(r.argv[4]);
	assert_string_equal(r.env[1], "A=b=c");
	assert_null(r.env[2]);
	sudo_req_clear(&r);
	/* every shorter body is refused, never read past */
	for (size_t n = 0; n < len - 4; n++) {
		uint8_t *cut = xmalloc(n + 1);

		memcpy(cut, buf + 4, n);
		assert_int_equal(sudo_req_parse(cut, n, &r, &err), -1);
		assert_non_null(err.msg);
		lz_err_clear(&err);
		free(cut);
	}
	free(buf);
}

static void
test_sudo_req_refuses_counts_trailing_bytes_relative_cwd(void **state)
{
	/* argc 0 */
	static const uint8_t none[] = { 0, 0, 0, 0, 0, 0, 0, 0, '/', 0 };
	/* argc 1, envc 0, "/", "ls", then a stray byte */
	static const uint8_t extra[] = { 1, 0, 0, 0, 0, 0, 0, 0, '/', 0, 'l', 's', 0, 'x' };
	/* a relative working directory */
	static const uint8_t rel[] = { 1, 0, 0, 0, 0, 0, 0, 0, 'w', 0, 'l', 's', 0 };
	/* counts that overflow */
	static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, '/', 0 };
	struct sudo_req r;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(sudo_req_parse(none, sizeof none, &r, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(sudo_req_parse(extra, sizeof extra, &r, &err), -1);
	assert_non_null(strstr(err.msg, "bytes after"));
	lz_err_clear(&err);
	assert_int_equal(sudo_req_parse(rel, sizeof rel, &r, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(sudo_req_parse(huge, sizeof huge, &r, &err), -1);
	lz_err_clear(&err);
}

static void
test_passwd_finds_uid_and_gid(void **state)
{
	static const char pw[] =
	    "root:x:0:0:root:/root:/bin/bash\n"
	    "# comment:x:1000:7\n"
	    "bad:x:10a0:1\n"
	    "svc:x:10000:5:x:/:/bin/false\n"
	    "agent:x:1000:1001:Agent:/home/agent:/bin/bash";
	unsigned gid = 0;

	(void)state;
	assert_true(passwd_find(pw, strlen(pw), 1000, &gid));
	assert_int_equal(gid, 1001);
	assert_true(passwd_find(pw, strlen(pw), 0, &gid));
	assert_int_equal(gid, 0);
	assert_false(passwd_find(pw, strlen(pw), 100, &gid));
	assert_false(passwd_find("a:x:1000", 8, 1000, &gid));
	assert_false(passwd_find("", 0, 1000, &gid));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sudo_req_round_trips_cwd_argv_env),
		cmocka_unit_test(test_sudo_req_refuses_counts_trailing_bytes_relative_cwd),
		cmocka_unit_test(test_passwd_finds_uid_and_gid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
