/* test-runsc-ctl.c - runsc's control calls as sandbox-exec sends and reads
 * them (sandbox/runsc/runsc-ctl.c). The expected texts are what runsc
 * 0.0~20221219.0 itself sent on the socket (read with strace -s). The real
 * calls are exercised by tests/integ/test-rexec.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "surface-json.h"
#include "sandbox/runsc/runsc-ctl.h"

#define CID "4d10ed1af32f1f5a3433dd34cda8148acb6d68028df760db9758350b65c4a633"

/* The process JSON of `runsc exec CID true` in a Lazaret sandbox. */
static const char proc_true[] =
    "{\"user\":{\"uid\":0,\"gid\":0,\"umask\":18},\"args\":[\"true\"],"
    "\"env\":[\"GIT_AUTHOR_EMAIL=t@example.invalid\",\"GIT_COMMITTER_EMAIL=t@example.invalid\","
    "\"GIT_COMMITTER_NAME=Lazaret agent (default)\","
    "\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\",\"container=podman\","
    "\"LANG=C.UTF-8\",\"GIT_AUTHOR_NAME=Lazaret agent (default)\",\"HOSTNAME=lazaret\","
    "\"HOME=/root\",\"TERM=xterm\"],\"cwd\":\"/workspace\",\"terminal\":false,"
    "\"capabilities\":{\"bounding\":[\"CAP_CHOWN\",\"CAP_DAC_OVERRIDE\",\"CAP_FOWNER\","
    "\"CAP_FSETID\",\"CAP_KILL\",\"CAP_SETGID\",\"CAP_SETUID\"],\"effective\":[\"CAP_CHOWN\","
    "\"CAP_DAC_OVERRIDE\",\"CAP_FOWNER\",\"CAP_FSETID\",\"CAP_KILL\",\"CAP_SETGID\","
    "\"CAP_SETUID\"],\"permitted\":[\"CAP_CHOWN\",\"CAP_DAC_OVERRIDE\",\"CAP_FOWNER\","
    "\"CAP_FSETID\",\"CAP_KILL\",\"CAP_SETGID\",\"CAP_SETUID\"],\"inheritable\":[]},"
    "\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":20000,\"soft\":20000}],"
    "\"noNewPrivileges\":true}";

/* What runsc exec sent for it. */
static const char runsc_sent[] =
    "{\"method\":\"containerManager.ExecuteAsync\",\"arg\":{\"filename\":\"\",\"argv\":[\"true\"],"
    "\"envv\":[\"GIT_AUTHOR_EMAIL=t@example.invalid\",\"GIT_COMMITTER_EMAIL=t@example.invalid\","
    "\"GIT_COMMITTER_NAME=Lazaret agent (default)\","
    "\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\",\"container=podman\","
    "\"LANG=C.UTF-8\",\"GIT_AUTHOR_NAME=Lazaret agent (default)\",\"HOSTNAME=lazaret\","
    "\"HOME=/root\",\"TERM=xterm\"],\"MountNamespace\":null,\"wd\":\"/workspace\",\"KUID\":0,"
    "\"KGID\":0,\"ExtraKGIDs\":[],\"Capabilities\":{\"PermittedCaps\":251,\"InheritableCaps\":0,"
    "\"EffectiveCaps\":251,\"BoundingCaps\":251,\"AmbientCaps\":0},\"StdioIsPty\":false,"
    "\"ContainerID\":\"" CID "\",\"PIDNamespace\":null,\"Limits\":null}}";

static char *
exec_msg(const char *proc, bool *tty, lz_err_t *err)
{
	char *msg = NULL;

	if (runsc_ctl_exec_msg((const uint8_t *)proc, strlen(proc), CID, NULL, &msg, tty, err) < 0)
		return NULL;
	return msg;
}

static void
test_runsc_ctl_exec_is_what_runsc_exec_sends(void **state)
{
	bool tty = true;
	char *msg = exec_msg(proc_true, &tty, NULL);

	(void)state;
	assert_non_null(msg);
	assert_string_equal(msg, runsc_sent);
	assert_false(tty);
	free(msg);
}

/* Replace the first `from` in proc_true by `to`. */
static char *
variant(const char *from, const char *to)
{
	const char *at = strstr(proc_true, from);
	size_t n;
	char *s;

	assert_non_null(at);
	n = strlen(proc_true) - strlen(from) + strlen(to) + 1;
	s = malloc(n);
	assert_non_null(s);
	memcpy(s, proc_true, (size_t)(at - proc_true));
	strcpy(s + (at - proc_true), to);
	strcat(s, at + strlen(from));
	return s;
}

/* The credential leaves the environment: its value comes back to the
 * caller (to send on an fd), a pointer to that fd takes its place, and no
 * byte of it is in the call (issue 24 item 1). */
static void
test_runsc_ctl_exec_moves_the_credential_out_of_the_environment(void **state)
{
	struct runsc_ctl_take take = { "LAZARET_CRED", "LAZARET_HOLD_FD=3", NULL };
	char *proc = strdup(proc_true), *at, *msg = NULL;
	const char *with = "\"LAZARET_CRED=lzc1.00ff\",\"HOME=/root\",\"LAZARET_CRED=lzc1.abcd\",";
	size_t len;
	bool tty;

	(void)state;
	at = strstr(proc, "\"HOME=/root\",");
	assert_non_null(at);
	len = strlen(proc) + strlen(with) + 1;
	proc = realloc(proc, len);
	at = strstr(proc, "\"HOME=/root\",");
	memmove(at + strlen(with), at + strlen("\"HOME=/root\","), strlen(at + strlen("\"HOME=/root\",")) + 1);
	memcpy(at, with, strlen(with));
	assert_int_equal(runsc_ctl_exec_msg((const uint8_t *)proc, strlen(proc), CID, &take, &msg,
	    &tty, NULL), 0);
	assert_string_equal(take.value, "lzc1.abcd");
	assert_null(strstr(msg, "lzc1."));
	assert_null(strstr(msg, "LAZARET_CRED="));
	assert_non_null(strstr(msg, "\"HOME=/root\",\"TERM=xterm\",\"LAZARET_HOLD_FD=3\"]"));
	runsc_ctl_take_clear(&take);
	assert_null(take.value);
	free(msg);
	/* no credential: nothing taken, nothing put */
	assert_int_equal(runsc_ctl_exec_msg((const uint8_t *)proc_true, strlen(proc_true), CID, &take,
	    &msg, &tty, NULL), 0);
	assert_null(take.value);
	assert_string_equal(msg, runsc_sent);
	free(msg);
	free(proc);
}

static void
test_runsc_ctl_exec_terminal_user_groups_and_net_raw(void **state)
{
	char *p, *msg;
	bool tty = false;

	(void)state;
	p = variant("\"terminal\":false", "\"terminal\":true");
	msg = exec_msg(p, &tty, NULL);
	assert_non_null(msg);
	assert_true(tty);
	assert_non_null(strstr(msg, "\"StdioIsPty\":true"));
	free(msg);
	free(p);

	p = variant("{\"uid\":0,\"gid\":0,", "{\"uid\":1000,\"gid\":100,\"additionalGids\":[4,27],");
	msg = exec_msg(p, &tty, NULL);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "\"KUID\":1000,\"KGID\":100,\"ExtraKGIDs\":[4,27]"));
	free(msg);
	free(p);

	/* runsc without --net-raw drops CAP_NET_RAW (bit 13) from every set */
	p = variant("\"bounding\":[\"CAP_CHOWN\"", "\"bounding\":[\"CAP_NET_RAW\",\"CAP_SYS_ADMIN\",\"CAP_CHOWN\"");
	msg = exec_msg(p, &tty, NULL);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "\"BoundingCaps\":2097403"));	/* 251 | 1 << 21 */
	free(msg);
	free(p);

	/* no terminal member: no terminal */
	p = variant("\"terminal\":false,", "");
	msg = exec_msg(p, &tty, NULL);
	assert_non_null(msg);
	assert_false(tty);
	free(msg);
	free(p);
}

static void
test_runsc_ctl_exec_refuses_what_runsc_refuses(void **state)
{
	static const struct {
		const char *from, *to, *why;
	} bad[] = {
		{ "\"cwd\":\"/workspace\"", "\"cwd\":\"workspace\"", "not absolute" },
		{ "\"cwd\":\"/workspace\",", "", "process.cwd is not a string" },
		{ "\"args\":[\"true\"]", "\"args\":[]", "process.args is empty" },
		{ "\"args\":[\"true\"],", "", "args is missing" },
		{ "\"CAP_KILL\",\"CAP_SETGID\",\"CAP_SETUID\"],\"permitted\"",
		  "\"CAP_KILL\",\"CAP_EVERYTHING\"],\"permitted\"", "unknown capability 'CAP_EVERYTHING'" },
		{ "\"uid\":0", "\"uid\":-1", "out of range" },
		{ "\"uid\":0", "\"uid\":4294967296", "out of range" },
		{ "\"gid\":0,", "", "not a whole number" },
		{ "\"terminal\":false", "\"terminal\":1", "not true or false" },
		{ "{\"uid\":0,", "{\"additionalGids\":[1,\"x\"],\"uid\":0,", "additionalGids" },
		{ "\"env\":[", "\"env\":[1,", "env" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		lz_err_t err = LZ_ERR_INIT;
		char *p = variant(bad[i].from, bad[i].to);
		bool tty;

		assert_null(exec_msg(p, &tty, &err));
		assert_non_null(err.msg);
		if (strstr(err.msg, bad[i].why) == NULL)
			fail_msg("case %zu: '%s' does not say '%s'", i, err.msg, bad[i].why);
		lz_err_clear(&err);
		free(p);
	}
}

static void
test_runsc_ctl_wait_and_signal_messages(void **state)
{
	char *m;

	(void)state;
	m = runsc_ctl_wait_msg(CID, 11);
	assert_string_equal(m, "{\"method\":\"containerManager.WaitPID\",\"arg\":{\"PID\":11,\"CID\":\""
	    CID "\"}}");
	free(m);
	m = runsc_ctl_signal_msg(CID, 11, SIGINT, true);
	assert_string_equal(m, "{\"method\":\"containerManager.Signal\",\"arg\":{\"CID\":\"" CID
	    "\",\"Signo\":2,\"PID\":11,\"Mode\":2}}");
	free(m);
	m = runsc_ctl_signal_msg(CID, 11, SIGTERM, false);
	assert_non_null(strstr(m, "\"Signo\":15,\"PID\":11,\"Mode\":0}"));
	free(m);
}

static void
test_runsc_ctl_reply_end_finds_the_whole_object(void **state)
{
	static const char r[] = "{\"success\":true,\"err\":\"}{\\\"\",\"result\":{\"a\":[1,{}]}}";

	(void)state;
	assert_int_equal(runsc_ctl_reply_end(r, strlen(r)), strlen(r));
	assert_int_equal(runsc_ctl_reply_end(r, strlen(r) - 1), 0);
	assert_int_equal(runsc_ctl_reply_end(r, 20), 0);
	assert_int_equal(runsc_ctl_reply_end("{\"a\":1}{\"b\":2}", 14), 7);
	assert_int_equal(runsc_ctl_reply_end(" \n{}", 4), 4);
	assert_int_equal(runsc_ctl_reply_end("", 0), 0);
	assert_int_equal(runsc_ctl_reply_end("[1]", 3), 0);	/* only an object is a reply */
	assert_int_equal(runsc_ctl_reply_end("{\"a\":\"\\\\\"}", 10), 10);
}

static void
test_runsc_ctl_reply_reads_result_or_error(void **state)
{
	lz_err_t err = LZ_ERR_INIT;
	char *res = NULL;
	int64_t n;

	(void)state;
	assert_int_equal(runsc_ctl_reply("{\"success\":true,\"err\":\"\",\"result\":11}", 37, &res,
	    NULL), 0);
	assert_string_equal(res, "11");
	assert_int_equal(surface_json_int(res, 1, INT32_MAX, &n, NULL), 0);
	assert_int_equal(n, 11);
	free(res);

	{
		static const char no[] = "{\"success\":false,\"err\":\"no such file or directory\","
		    "\"result\":null}";

		assert_int_equal(runsc_ctl_reply(no, strlen(no), &res, &err), -1);
	}
	assert_null(res);
	assert_string_equal(err.msg, "no such file or directory");
	assert_int_equal(runsc_ctl_refused_code(err.msg), 127);
	assert_int_equal(runsc_ctl_refused_code("permission denied"), 126);
	lz_err_clear(&err);

	assert_int_equal(runsc_ctl_reply("{\"success\":false,\"result\":null}", 31, &res, &err), -1);
	assert_non_null(strstr(err.msg, "without saying why"));
	lz_err_clear(&err);
	assert_int_equal(runsc_ctl_reply("{\"err\":\"\",\"result\":1}", 21, &res, &err), -1);
	assert_non_null(strstr(err.msg, "without \"success\""));
	lz_err_clear(&err);
	assert_int_equal(runsc_ctl_reply("{\"success\":true}", 16, &res, &err), -1);
	assert_non_null(strstr(err.msg, "without \"result\""));
	lz_err_clear(&err);
	assert_int_equal(runsc_ctl_reply("{\"success\":tru", 14, &res, &err), -1);
	assert_non_null(strstr(err.msg, "malformed reply"));
	lz_err_clear(&err);

	assert_int_equal(surface_json_int("01", 0, 9, &n, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(surface_json_int("1.5", 0, 9, &n, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(surface_json_int("99999999999999999999", 0, INT64_MAX, &n, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(surface_json_int("0", 1, 9, &n, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(surface_json_int(NULL, 1, 9, &n, &err), -1);
	lz_err_clear(&err);
}

static void
test_runsc_ctl_state_and_version(void **state)
{
	static const char st[] = "{\"id\":\"" CID "\",\"status\":\"running\",\"goferPid\":19332,"
	    "\"sandbox\":{\"id\":\"" CID "\",\"pid\":19336,\"uid\":0},\"saver\":{}}";
	lz_err_t err = LZ_ERR_INIT;
	char *sid = NULL, *bad;
	int64_t pid = 0;

	(void)state;
	assert_int_equal(runsc_ctl_state((const uint8_t *)st, strlen(st), &sid, &pid, NULL), 0);
	assert_string_equal(sid, CID);
	assert_int_equal(pid, 19336);
	free(sid);
	/* the id names an abstract socket: nothing but an id's characters */
	bad = strdup(st);
	memcpy(strstr(bad, "\"sandbox\":{\"id\":\"") + 17, "../x/", 5);
	assert_int_equal(runsc_ctl_state((const uint8_t *)bad, strlen(bad), &sid, &pid, &err), -1);
	assert_non_null(strstr(err.msg, "is not a container id"));
	assert_null(sid);
	lz_err_clear(&err);
	free(bad);
	assert_int_equal(runsc_ctl_state((const uint8_t *)"{\"sandbox\":{\"id\":\"a\"}}", 22, &sid,
	    &pid, &err), -1);
	lz_err_clear(&err);

	assert_true(runsc_ctl_known("runsc version 0.0~20221219.0"));
	assert_false(runsc_ctl_known("runsc version release-20250101.0"));
	assert_false(runsc_ctl_known("runsc version 0.0~20221219.0-1"));
	assert_false(runsc_ctl_known("0.0~20221219.0"));
	assert_false(runsc_ctl_known(NULL));

	assert_int_equal(runsc_ctl_exit_code(3 << 8), 3);
	assert_int_equal(runsc_ctl_exit_code(0), 0);
	assert_int_equal(runsc_ctl_exit_code(SIGKILL), 128 + SIGKILL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runsc_ctl_exec_is_what_runsc_exec_sends),
		cmocka_unit_test(test_runsc_ctl_exec_moves_the_credential_out_of_the_environment),
		cmocka_unit_test(test_runsc_ctl_exec_terminal_user_groups_and_net_raw),
		cmocka_unit_test(test_runsc_ctl_exec_refuses_what_runsc_refuses),
		cmocka_unit_test(test_runsc_ctl_wait_and_signal_messages),
		cmocka_unit_test(test_runsc_ctl_reply_end_finds_the_whole_object),
		cmocka_unit_test(test_runsc_ctl_reply_reads_result_or_error),
		cmocka_unit_test(test_runsc_ctl_state_and_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
