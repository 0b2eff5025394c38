/* test-rexec.c - what a session's `runsc exec` is given (sandbox/podman/rexec.c,
 * rexec-spec.c): the process JSON built from a container's config.json as
 * podman exec would build it, and the reading of conmon's command line.
 * The real exec is exercised by tests/integ/test-rexec.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "surface-json.h"
#include "sandbox/podman/rexec-spec.h"
#include "sandbox/podman/rexec.h"
#include "strv.h"
#include "xmalloc.h"

/* A trimmed config.json as podman 4.3 writes it for a Lazaret sandbox. */
static const char cfg_root[] =
    "{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"user\":{\"uid\":0,\"gid\":0,\"umask\":18},"
    "\"args\":[\"/run/lazaret/init\",\"-P\"],"
    "\"env\":[\"PATH=/usr/bin:/bin\",\"TERM=xterm\",\"container=podman\",\"HOME=/root\"],"
    "\"cwd\":\"/workspace\",\"capabilities\":{\"bounding\":[\"CAP_CHOWN\",\"CAP_KILL\"],"
    "\"effective\":[\"CAP_CHOWN\",\"CAP_KILL\"],\"permitted\":[\"CAP_CHOWN\",\"CAP_KILL\"],"
    "\"inheritable\":[\"CAP_CHOWN\"]},"
    "\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":20000,\"soft\":20000}],"
    "\"noNewPrivileges\":true,\"apparmorProfile\":\"containers-default\"},"
    "\"root\":{\"path\":\"/x\"},\"hostname\":\"lazaret\"}";

/* The member `key` of the top level of JSON text js (canonical), or NULL. */
static char *
member(const char *js, const char *key)
{
	struct surface_json o;
	char *v = NULL;
	size_t i;

	assert_int_equal(surface_json_parse((const uint8_t *)js, strlen(js), &o, NULL), 0);
	for (i = 0; i < o.n; i++)
		if (o.kv[i].sub == NULL && strcmp(o.kv[i].top, key) == 0)
			v = xstrdup(o.kv[i].val);
	surface_json_clear(&o);
	return v;
}

static char *
build(const char *cfg, const struct rexec_proc *p)
{
	struct rexec_spec s;
	lz_err_t err = LZ_ERR_INIT;
	char *json = NULL;

	assert_int_equal(rexec_spec_parse((const uint8_t *)cfg, strlen(cfg), &s, &err), 0);
	assert_int_equal(rexec_spec_process(&s, p, &json, &err), 0);
	rexec_spec_clear(&s);
	return json;
}

static void
test_rexec_spec_keeps_the_containers_credentials_and_limits(void **state)
{
	const char *args[] = { "sh", "-c", "id", NULL };
	struct rexec_proc p = { .args = args, .cwd = "/workspace", .terminal = true };
	char *js = build(cfg_root, &p), *v;

	(void)state;
	v = member(js, "user");
	assert_string_equal(v, "{\"uid\":0,\"gid\":0,\"umask\":18}");
	free(v);
	v = member(js, "rlimits");
	assert_string_equal(v, "[{\"type\":\"RLIMIT_NOFILE\",\"hard\":20000,\"soft\":20000}]");
	free(v);
	v = member(js, "noNewPrivileges");
	assert_string_equal(v, "true");
	free(v);
	v = member(js, "apparmorProfile");
	assert_string_equal(v, "\"containers-default\"");
	free(v);
	v = member(js, "args");
	assert_string_equal(v, "[\"sh\",\"-c\",\"id\"]");
	free(v);
	v = member(js, "terminal");
	assert_string_equal(v, "true");
	free(v);
	/* nothing of the container's own init, root or hostname */
	assert_null(strstr(js, "/run/lazaret/init"));
	assert_null(strstr(js, "hostname"));
	free(js);
}

static void
test_rexec_spec_root_gets_bounding_set_and_no_inheritable(void **state)
{
	const char *args[] = { "true", NULL };
	struct rexec_proc p = { .args = args };
	char *js = build(cfg_root, &p), *caps;

	(void)state;
	caps = member(js, "capabilities");
	assert_string_equal(caps, "{\"bounding\":[\"CAP_CHOWN\",\"CAP_KILL\"],"
	    "\"effective\":[\"CAP_CHOWN\",\"CAP_KILL\"],\"permitted\":[\"CAP_CHOWN\",\"CAP_KILL\"],"
	    "\"inheritable\":[]}");
	free(caps);
	free(js);
}

static void
test_rexec_spec_other_user_gets_the_containers_effective_set(void **state)
{
	static const char cfg[] =
	    "{\"process\":{\"user\":{\"uid\":1000,\"gid\":1000,\"additionalGids\":[27]},"
	    "\"env\":[\"HOME=/home/a\"],\"cwd\":\"/\","
	    "\"capabilities\":{\"bounding\":[\"CAP_CHOWN\",\"CAP_KILL\"],\"effective\":[\"CAP_KILL\"]}}}";
	const char *args[] = { "true", NULL };
	struct rexec_proc p = { .args = args };
	char *js = build(cfg, &p), *caps, *user;

	(void)state;
	caps = member(js, "capabilities");
	assert_string_equal(caps, "{\"bounding\":[\"CAP_CHOWN\",\"CAP_KILL\"],"
	    "\"effective\":[\"CAP_KILL\"],\"permitted\":[\"CAP_KILL\"],"
	    "\"inheritable\":[\"CAP_KILL\"],\"ambient\":[\"CAP_KILL\"]}");
	user = member(js, "user");
	assert_string_equal(user, "{\"uid\":1000,\"gid\":1000,\"additionalGids\":[27]}");
	free(user);
	free(caps);
	free(js);
}

static void
test_rexec_spec_exec_env_replaces_same_name_and_appends_new(void **state)
{
	const char *args[] = { "env", NULL };
	const char *env[] = { "TERM=xterm-256color", "LAZARET_SESSION_ID=abc", NULL };
	struct rexec_proc p = { .args = args, .env = env,
	    .env_lines = "# comment\n\nLAZARET_CRED=s3cr=t\nHOME=/h\n" };
	char *js = build(cfg_root, &p), *v, **vals = NULL;

	(void)state;
	v = member(js, "env");
	assert_int_equal(surface_json_strings(v, &vals, NULL), 0);
	assert_int_equal(lz_strv_len(vals), 6);
	assert_string_equal(vals[0], "PATH=/usr/bin:/bin");
	assert_string_equal(vals[1], "TERM=xterm-256color");
	assert_string_equal(vals[2], "container=podman");
	assert_string_equal(vals[3], "HOME=/h");
	assert_string_equal(vals[4], "LAZARET_SESSION_ID=abc");
	assert_string_equal(vals[5], "LAZARET_CRED=s3cr=t");
	lz_strv_free(vals);
	free(v);
	free(js);
}

static void
test_rexec_spec_cwd_is_the_execs_or_the_containers(void **state)
{
	const char *args[] = { "pwd", NULL };
	struct rexec_proc p = { .args = args, .cwd = "/tmp" };
	char *js = build(cfg_root, &p), *v;

	(void)state;
	v = member(js, "cwd");
	assert_string_equal(v, "\"/tmp\"");
	free(v);
	free(js);
	p.cwd = NULL;
	js = build(cfg_root, &p);
	v = member(js, "cwd");
	assert_string_equal(v, "\"/workspace\"");
	assert_non_null(strstr(js, "\"terminal\":false"));
	free(v);
	free(js);
}

static void
test_rexec_spec_rejects_what_it_cannot_reproduce(void **state)
{
	static const char *const bad[] = {
		"[]",
		"{\"process\":1}",
		"{\"process\":{\"env\":[],\"capabilities\":{\"bounding\":[]}}}",	/* no user */
		"{\"process\":{\"user\":{\"uid\":-1},\"env\":[],\"capabilities\":{\"bounding\":[]}}}",
		"{\"process\":{\"user\":{\"uid\":4294967296},\"env\":[],\"capabilities\":{\"bounding\":[]}}}",
		"{\"process\":{\"user\":{\"uid\":0},\"env\":[\"NOEQUALS\"],\"capabilities\":{\"bounding\":[]}}}",
		"{\"process\":{\"user\":{\"uid\":0},\"env\":[1],\"capabilities\":{\"bounding\":[]}}}",
		"{\"process\":{\"user\":{\"uid\":0},\"env\":[]}}",	/* no capabilities */
		"{\"process\":{\"user\":{\"uid\":0},\"env\":[],\"capabilities\":{\"effective\":[]}}}",
		"{\"process\":{\"user\":{\"uid\":0},\"env\":[],\"capabilities\":{\"bounding\":\"all\"}}}",
	};
	struct rexec_spec s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		lz_err_t err = LZ_ERR_INIT;

		assert_int_equal(rexec_spec_parse((const uint8_t *)bad[i], strlen(bad[i]), &s, &err), -1);
		assert_non_null(err.msg);
		lz_err_clear(&err);
	}
}

static void
test_rexec_spec_refuses_bad_exec_input(void **state)
{
	struct rexec_spec s;
	const char *args[] = { "true", NULL }, *none[] = { NULL }, *badenv[] = { "=x", NULL };
	struct rexec_proc p = { .args = args };
	lz_err_t err = LZ_ERR_INIT;
	char *js = NULL, *big;

	(void)state;
	assert_int_equal(rexec_spec_parse((const uint8_t *)cfg_root, sizeof cfg_root - 1, &s, &err), 0);
	p.args = none;
	assert_int_equal(rexec_spec_process(&s, &p, &js, &err), -1);
	lz_err_clear(&err);
	p.args = args;
	p.cwd = "relative";
	assert_int_equal(rexec_spec_process(&s, &p, &js, &err), -1);
	lz_err_clear(&err);
	p.cwd = NULL;
	p.env = badenv;
	assert_int_equal(rexec_spec_process(&s, &p, &js, &err), -1);
	lz_err_clear(&err);
	p.env = NULL;
	p.env_lines = "JUSTANAME\n";
	assert_int_equal(rexec_spec_process(&s, &p, &js, &err), -1);
	lz_err_clear(&err);
	/* over what the fd 3 pipe takes */
	big = xmalloc(REXEC_SPEC_MAX + 8);
	memcpy(big, "BIG=", 4);
	memset(big + 4, 'x', REXEC_SPEC_MAX);
	big[REXEC_SPEC_MAX + 4] = '\0';
	p.env_lines = big;
	assert_int_equal(rexec_spec_process(&s, &p, &js, &err), -1);
	assert_null(js);
	lz_err_clear(&err);
	free(big);
	rexec_spec_clear(&s);
}

/* argv joined with NULs, as /proc/PID/cmdline holds it. */
static char *
cmdline(size_t *len, ...)
{
	char *buf = NULL;
	const char *a;
	va_list ap;

	*len = 0;
	va_start(ap, len);
	while ((a = va_arg(ap, const char *)) != NULL) {
		buf = xrealloc(buf, *len + strlen(a) + 1);
		memcpy(buf + *len, a, strlen(a) + 1);
		*len += strlen(a) + 1;
	}
	va_end(ap);
	return buf;
}

#define ID "77e2b768a480748d862a48bc4d9f74618d9a3525bc6066141d16e18d7bc976e3"
#define EXECID "56648f090792ce40083e9da28109406f11547d8ba63cce2a1cf7d9084f505b8a"

static void
test_rexec_conmon_reads_the_containers_own_conmon(void **state)
{
	struct rexec_conmon c;
	lz_err_t err = LZ_ERR_INIT;
	size_t len;
	char *cl = cmdline(&len, "/usr/bin/conmon", "--api-version", "1", "-c", ID, "-u", ID,
	    "-r", "/usr/local/libexec/lazaret/runsc-lazaret", "-b", "/s/" ID "/userdata",
	    "-p", "/r/pidfile", "-n", "lazaret-default-f99dfdb27083", "--exit-dir", "/e",
	    "--full-attach", "--runtime-arg", "--host-uds=open", "-l", "k8s-file:/x/ctr.log",
	    "--log-level", "warning", "--runtime-arg", "--log-format=json", "--runtime-arg",
	    "--log", "--runtime-arg=/r/oci-log", "--conmon-pidfile", "/r/conmon.pid",
	    "--exit-command", "/usr/bin/podman", "--exit-command-arg", "--runtime",
	    "--exit-command-arg", "-n", "--exit-command-arg", "container", NULL);

	(void)state;
	assert_int_equal(rexec_conmon_parse(cl, len, "lazaret-default-f99dfdb27083", &c, &err), 1);
	assert_string_equal(c.id, ID);
	assert_string_equal(c.bundle, "/s/" ID "/userdata");
	/* the values of --exit-command-arg are not conmon's options */
	assert_string_equal(c.runtime, "/usr/local/libexec/lazaret/runsc-lazaret");
	assert_int_equal(lz_strv_len(c.runtime_args), 1);
	assert_string_equal(c.runtime_args[0], "--host-uds=open");
	rexec_conmon_clear(&c);
	/* another container's conmon */
	assert_int_equal(rexec_conmon_parse(cl, len, "lazaret-default-000000000000", &c, &err), 0);
	free(cl);
}

static void
test_rexec_conmon_skips_exec_conmons_and_other_programs(void **state)
{
	struct rexec_conmon c;
	lz_err_t err = LZ_ERR_INIT;
	size_t len;
	char *cl = cmdline(&len, "/usr/bin/conmon", "--api-version", "1", "-c", ID, "-u", EXECID,
	    "-r", "/usr/bin/runsc", "-b", "/s/x", "-n", "ctr", "-i", "-e", "--exec-attach",
	    "--exec-process-spec", "/s/x/exec-process-1", NULL);

	(void)state;
	assert_int_equal(rexec_conmon_parse(cl, len, "ctr", &c, &err), 0);
	free(cl);
	cl = cmdline(&len, "/usr/bin/sleep", "-n", "ctr", NULL);
	assert_int_equal(rexec_conmon_parse(cl, len, "ctr", &c, &err), 0);
	free(cl);
	assert_int_equal(rexec_conmon_parse("", 0, "ctr", &c, &err), 0);
}

static void
test_rexec_conmon_refuses_what_it_does_not_know(void **state)
{
	struct rexec_conmon c;
	lz_err_t err = LZ_ERR_INIT;
	size_t len;
	char *cl;

	(void)state;
	cl = cmdline(&len, "conmon", "-c", ID, "-u", ID, "--new-option", "x", "-n", "ctr", NULL);
	assert_int_equal(rexec_conmon_parse(cl, len, "ctr", &c, &err), -1);
	assert_non_null(strstr(err.msg, "--new-option"));
	lz_err_clear(&err);
	free(cl);
	/* relative bundle */
	cl = cmdline(&len, "conmon", "-c", ID, "-u", ID, "-n", "ctr", "-b", "b", "-r", "/r", NULL);
	assert_int_equal(rexec_conmon_parse(cl, len, "ctr", &c, &err), -1);
	lz_err_clear(&err);
	free(cl);
	/* an id that is not 64 lowercase hex digits */
	cl = cmdline(&len, "conmon", "-c", "abc", "-u", "abc", "-n", "ctr", "-b", "/b", "-r", "/r",
	    NULL);
	assert_int_equal(rexec_conmon_parse(cl, len, "ctr", &c, &err), -1);
	lz_err_clear(&err);
	free(cl);
	/* a runtime argument that is not an option */
	cl = cmdline(&len, "conmon", "-c", ID, "-u", ID, "-n", "ctr", "-b", "/b", "-r", "/r",
	    "--runtime-arg", "stray", NULL);
	assert_int_equal(rexec_conmon_parse(cl, len, "ctr", &c, &err), -1);
	lz_err_clear(&err);
	free(cl);
}

static void
test_surface_json_strings_decodes_escapes_and_refuses_non_strings(void **state)
{
	char **v = NULL;
	lz_err_t err = LZ_ERR_INIT;

	(void)state;
	assert_int_equal(surface_json_strings("[\"a\\u0041\",\"\",\"x\\\"y\"]", &v, &err), 0);
	assert_int_equal(lz_strv_len(v), 3);
	assert_string_equal(v[0], "aA");
	assert_string_equal(v[1], "");
	assert_string_equal(v[2], "x\"y");
	lz_strv_free(v);
	assert_int_equal(surface_json_strings(" [ ] ", &v, &err), 0);
	assert_int_equal(lz_strv_len(v), 0);
	lz_strv_free(v);
	assert_int_equal(surface_json_strings("[1]", &v, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(surface_json_strings("[\"a\\u0000\"]", &v, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(surface_json_strings("[\"a\"] x", &v, &err), -1);
	lz_err_clear(&err);
	assert_int_equal(surface_json_strings("[\"a\",]", &v, &err), -1);
	lz_err_clear(&err);
	assert_null(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rexec_spec_keeps_the_containers_credentials_and_limits),
		cmocka_unit_test(test_rexec_spec_root_gets_bounding_set_and_no_inheritable),
		cmocka_unit_test(test_rexec_spec_other_user_gets_the_containers_effective_set),
		cmocka_unit_test(test_rexec_spec_exec_env_replaces_same_name_and_appends_new),
		cmocka_unit_test(test_rexec_spec_cwd_is_the_execs_or_the_containers),
		cmocka_unit_test(test_rexec_spec_rejects_what_it_cannot_reproduce),
		cmocka_unit_test(test_rexec_spec_refuses_bad_exec_input),
		cmocka_unit_test(test_rexec_conmon_reads_the_containers_own_conmon),
		cmocka_unit_test(test_rexec_conmon_skips_exec_conmons_and_other_programs),
		cmocka_unit_test(test_rexec_conmon_refuses_what_it_does_not_know),
		cmocka_unit_test(test_surface_json_strings_decodes_escapes_and_refuses_non_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
