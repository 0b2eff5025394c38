/* test-podman.c - argv the Podman driver builds (no podman is run here; the
 * real thing is exercised by tests/integ/test-driver.sh). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/podman/podman.h"
#include "strv.h"
#include "xmalloc.h"

/* Index of the first element equal to s, or -1. */
static int
argv_find(char **v, const char *s)
{
	int i;

	for (i = 0; v[i] != NULL; i++)
		if (strcmp(v[i], s) == 0)
			return i;
	return -1;
}

static struct drv_spec *
spec_new(void)
{
	struct drv_spec *s = xcalloc(1, sizeof *s);

	s->name = xstrdup("lazaret-default-0123456789ab");
	s->image = xstrdup("localhost/lazaret-default:latest");
	s->network = xstrdup("none");
	s->workdir = xstrdup("/workspace");
	return s;
}

static void
test_podman_mount_quotes_commas_and_quotes_for_podman_csv(void **state)
{
	struct drv_mount m = { .type = DRV_MOUNT_BIND, .src = (char *)"/srv/a,b \"c\"",
	    .dst = (char *)"/workspace", .ro = true };
	lz_err_t err = LZ_ERR_INIT;
	char *s;

	(void)state;
	assert_int_equal(podman_mount_arg(&m, &s, &err), 0);
	assert_string_equal(s, "type=bind,\"src=/srv/a,b \"\"c\"\"\",dst=/workspace,ro=true");
	free(s);
}

static void
test_podman_mount_keeps_spaces_unquoted(void **state)
{
	struct drv_mount m = { .type = DRV_MOUNT_BIND, .src = (char *)"/home/u/my project",
	    .dst = (char *)"/workspace" };
	lz_err_t err = LZ_ERR_INIT;
	char *s;

	(void)state;
	assert_int_equal(podman_mount_arg(&m, &s, &err), 0);
	assert_string_equal(s, "type=bind,src=/home/u/my project,dst=/workspace");
	free(s);
}

static void
test_podman_tmpfs_mount_is_empty_not_a_copy(void **state)
{
	struct drv_mount m = { .type = DRV_MOUNT_TMPFS, .dst = (char *)"/workspace/.git/hooks",
	    .opts = (char *)"tmpfs-mode=0755" };
	lz_err_t err = LZ_ERR_INIT;
	char *s;

	(void)state;
	assert_int_equal(podman_mount_arg(&m, &s, &err), 0);
	assert_string_equal(s, "type=tmpfs,dst=/workspace/.git/hooks,notmpcopyup,tmpfs-mode=0755");
	free(s);
}

/* The size and mode stay numbers up to the driver: only podman.c writes
 * podman's tmpfs-size= and tmpfs-mode= (the limits' /tmp). */
static void
test_podman_tmpfs_size_and_mode_written_by_the_driver(void **state)
{
	struct drv_mount m = { .type = DRV_MOUNT_TMPFS, .dst = (char *)"/tmp",
	    .tmpfs_size = 1073741824, .tmpfs_mode = 01777 };
	struct drv_spec sp = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	char *s;

	(void)state;
	drv_spec_add_mount(&sp, &m);
	assert_int_equal(podman_mount_arg(&sp.mounts[0], &s, &err), 0);
	assert_string_equal(s, "type=tmpfs,dst=/tmp,notmpcopyup,tmpfs-size=1073741824,tmpfs-mode=1777");
	free(s);
	drv_mount_clear(&sp.mounts[0]);
	free(sp.mounts);
}

static void
test_podman_mount_rejects_relative_and_newline_paths(void **state)
{
	struct drv_mount rel = { .type = DRV_MOUNT_BIND, .src = (char *)"work", .dst = (char *)"/w" };
	struct drv_mount nl = { .type = DRV_MOUNT_BIND, .src = (char *)"/a\nb", .dst = (char *)"/w" };
	struct drv_mount q = { .type = DRV_MOUNT_TMPFS, .dst = (char *)"/w", .opts = (char *)"a\"b" };
	lz_err_t err = LZ_ERR_INIT;
	char *s;

	(void)state;
	assert_int_equal(podman_mount_arg(&rel, &s, &err), -1);
	assert_null(s);
	assert_non_null(strstr(err.msg, "'work' for /w is not an absolute path"));
	assert_int_equal(podman_mount_arg(&nl, &s, &err), -1);
	assert_non_null(strstr(err.msg, "control character"));
	assert_int_equal(podman_mount_arg(&q, &s, &err), -1);
	lz_err_clear(&err);
}

static void
test_podman_run_argv_is_a_hardened_runsc_sandbox(void **state)
{
	struct drv_spec *s = spec_new();
	lz_err_t err = LZ_ERR_INIT;
	char **v;
	int img;

	(void)state;
	lz_strv_push(&s->env, "LAZARET_SESSION_ID=abc");
	s->n_env = 1;
	lz_strv_push(&s->labels, "lazaret.domain=0123456789ab");
	s->n_labels = 1;
	lz_strv_push(&s->runtime_flags, "host-uds=open");
	s->n_runtime_flags = 1;
	s->mounts = xcalloc(1, sizeof *s->mounts);
	s->mounts[0] = (struct drv_mount){ .type = DRV_MOUNT_BIND,
	    .src = xstrdup("/home/u/p"), .dst = xstrdup("/workspace") };
	s->n_mounts = 1;
	assert_int_equal(podman_run_argv(s, "/usr/bin/catatonit", &v, &err), 0);
	assert_string_equal(v[0], "podman");
	assert_string_equal(v[1], "run");
	assert_string_equal(v[2], "-d");
	assert_true(argv_find(v, "--name=lazaret-default-0123456789ab") > 0);
	assert_true(argv_find(v, "--pull=never") > 0);
	assert_true(argv_find(v, "--runtime=runsc") > 0);
	assert_true(argv_find(v, "--runtime-flag=host-uds=open") > 0);
	assert_true(argv_find(v, "--network=none") > 0);
	assert_true(argv_find(v, "--hostname=lazaret") > 0);
	assert_true(argv_find(v, "--security-opt=no-new-privileges") > 0);
	assert_true(argv_find(v, "--cap-drop=all") > 0);
	assert_int_equal(argv_find(v, "--cap-add=NET_RAW"), -1);
	assert_true(argv_find(v, "--label=lazaret.domain=0123456789ab") > 0);
	assert_true(argv_find(v, "--workdir=/workspace") > 0);
	assert_string_equal(v[argv_find(v, "LAZARET_SESSION_ID=abc") - 1], "-e");
	assert_string_equal(v[argv_find(v, "type=bind,src=/home/u/p,dst=/workspace") - 1], "--mount");
	assert_true(argv_find(v, "type=bind,src=/usr/bin/catatonit,dst=/run/lazaret/init,ro=true") > 0);
	assert_true(argv_find(v, "--entrypoint=[\"/run/lazaret/init\"]") > 0);
	/* the image, then catatonit's pause flag, last */
	img = argv_find(v, "localhost/lazaret-default:latest");
	assert_true(img > 0);
	assert_string_equal(v[img + 1], "-P");
	assert_null(v[img + 2]);
	lz_strv_free(v);
	drv_spec_free(s);
}

static void
test_podman_run_argv_sidecar_gets_crun_caps_and_command(void **state)
{
	struct drv_spec *s = spec_new();
	lz_err_t err = LZ_ERR_INIT;
	char **v;
	int img;

	(void)state;
	free(s->network);
	s->network = xstrdup("slirp4netns:allow_host_loopback=true");
	s->runtime = xstrdup("crun");
	lz_strv_push(&s->cap_add, "NET_ADMIN");
	s->n_cap_add = 1;
	lz_strv_push(&s->cmd, "/lazaret-sidecar");
	lz_strv_push(&s->cmd, "--rules=/r");
	assert_int_equal(podman_run_argv(s, "/usr/bin/catatonit", &v, &err), 0);
	assert_true(argv_find(v, "--runtime=crun") > 0);
	assert_int_equal(argv_find(v, "--runtime=runsc"), -1);
	assert_true(argv_find(v, "--cap-add=NET_ADMIN") > 0);
	img = argv_find(v, "localhost/lazaret-default:latest");
	assert_string_equal(v[img + 1], "--");
	assert_string_equal(v[img + 2], "/lazaret-sidecar");
	assert_string_equal(v[img + 3], "--rules=/r");
	assert_null(v[img + 4]);
	lz_strv_free(v);
	drv_spec_free(s);
}

static void
test_podman_run_argv_joined_netns_keeps_hostname(void **state)
{
	struct drv_spec *s = spec_new();
	lz_err_t err = LZ_ERR_INIT;
	char **v;

	(void)state;
	free(s->network);
	s->network = xstrdup("container:lazaret-net-0123456789ab");
	assert_int_equal(podman_run_argv(s, "/usr/bin/catatonit", &v, &err), 0);
	assert_true(argv_find(v, "--network=container:lazaret-net-0123456789ab") > 0);
	assert_true(argv_find(v, "--hostname=lazaret") > 0);
	lz_strv_free(v);
	drv_spec_free(s);
}

static void
test_podman_run_argv_rejects_bare_env_that_would_copy_host_value(void **state)
{
	struct drv_spec *s = spec_new();
	lz_err_t err = LZ_ERR_INIT;
	char **v;

	(void)state;
	lz_strv_push(&s->env, "SSH_AUTH_SOCK");
	s->n_env = 1;
	assert_int_equal(podman_run_argv(s, "/usr/bin/catatonit", &v, &err), -1);
	assert_null(v);
	assert_string_equal(err.msg, "environment entry 'SSH_AUTH_SOCK' is not KEY=VALUE");
	lz_err_clear(&err);
	drv_spec_free(s);
}

static void
test_podman_run_argv_rejects_flag_like_values_and_bad_names(void **state)
{
	struct drv_spec *s = spec_new();
	lz_err_t err = LZ_ERR_INIT;
	char **v;

	(void)state;
	free(s->image);
	s->image = xstrdup("--privileged");
	assert_int_equal(podman_run_argv(s, "/usr/bin/catatonit", &v, &err), -1);
	assert_string_equal(err.msg, "invalid image '--privileged'");
	free(s->image);
	s->image = xstrdup("img");
	free(s->name);
	s->name = xstrdup("-x");
	assert_int_equal(podman_run_argv(s, "/usr/bin/catatonit", &v, &err), -1);
	assert_string_equal(err.msg, "invalid container name '-x'");
	free(s->name);
	s->name = xstrdup("ok");
	assert_int_equal(podman_run_argv(s, NULL, &v, &err), -1);
	assert_non_null(strstr(err.msg, "catatonit not found"));
	lz_err_clear(&err);
	drv_spec_free(s);
}

static void
test_podman_exec_argv_disables_detach_keys_and_keeps_order(void **state)
{
	char *cmd[] = { (char *)"git", (char *)"status", NULL };
	char *env[] = { (char *)"TERM=xterm-256color" };
	struct drv_exec ex = { .name = "lazaret-default-0123456789ab", .argv = cmd,
	    .env = env, .n_env = 1, .workdir = "/workspace", .tty = true };
	lz_err_t err = LZ_ERR_INIT;
	char **v;
	const char *want[] = { "podman", "exec", "-i", "-t", "--detach-keys=", "-e",
	    "TERM=xterm-256color", "--workdir=/workspace", "lazaret-default-0123456789ab",
	    "git", "status", NULL };
	size_t i;

	(void)state;
	assert_int_equal(podman_exec_argv(&ex, &v, &err), 0);
	for (i = 0; want[i] != NULL; i++)
		assert_string_equal(v[i], want[i]);
	assert_null(v[i]);
	lz_strv_free(v);
}

static void
test_podman_exec_argv_without_command_starts_a_login_shell(void **state)
{
	struct drv_exec ex = { .name = "c1" };
	lz_err_t err = LZ_ERR_INIT;
	char **v;
	int i;

	(void)state;
	assert_int_equal(podman_exec_argv(&ex, &v, &err), 0);
	assert_int_equal(argv_find(v, "-t"), -1);
	i = argv_find(v, "c1");
	assert_string_equal(v[i + 1], "/bin/sh");
	assert_string_equal(v[i + 2], "-c");
	assert_non_null(strstr(v[i + 3], "exec /bin/bash -l"));
	lz_strv_free(v);
}

/* The session credential comes on fd 3 and the command runs under the
 * holder: argv names neither the credential nor its variable. */
static void
test_podman_exec_argv_credential_on_fd3_under_the_holder(void **state)
{
	char *cmd[] = { (char *)"make", NULL };
	struct drv_exec ex = { .name = "c1", .argv = cmd, .env_fd3 = true,
	    .hold = "/usr/local/bin/lazaret-escalate" };
	lz_err_t err = LZ_ERR_INIT;
	char **v;
	int i;

	(void)state;
	assert_int_equal(podman_exec_argv(&ex, &v, &err), 0);
	assert_true(argv_find(v, "--env-file=/dev/fd/3") > 0);
	i = argv_find(v, "c1");
	assert_string_equal(v[i + 1], "/usr/local/bin/lazaret-escalate");
	assert_string_equal(v[i + 2], "--hold");
	assert_string_equal(v[i + 3], "--");
	assert_string_equal(v[i + 4], "make");
	for (i = 0; v[i] != NULL; i++)
		assert_null(strstr(v[i], "LAZARET_CRED"));
	lz_strv_free(v);
}

static void
test_podman_state_parse_maps_statuses(void **state)
{
	(void)state;
	assert_int_equal(podman_state_parse("running"), DRV_STATE_RUNNING);
	assert_int_equal(podman_state_parse("exited"), DRV_STATE_STOPPED);
	assert_int_equal(podman_state_parse("created"), DRV_STATE_STOPPED);
	assert_int_equal(podman_state_parse("paused"), DRV_STATE_STOPPED);
}

/* the stderr podman 4.3 printed here after every process of the user was killed */
static void
test_podman_stale_ns_recognises_podmans_pause_message(void **state)
{
	(void)state;
	assert_true(podman_stale_ns("time=\"2026-12-02T18:40:35Z\" level=error msg=\"invalid "
	    "internal status, try resetting the pause process with \\\"podman system migrate"
	    "\\\": could not find any running process: no such process\"\n"));
	assert_false(podman_stale_ns("Error: localhost/x: image not known\n"));
	assert_false(podman_stale_ns(""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_podman_mount_quotes_commas_and_quotes_for_podman_csv),
		cmocka_unit_test(test_podman_mount_keeps_spaces_unquoted),
		cmocka_unit_test(test_podman_tmpfs_mount_is_empty_not_a_copy),
		cmocka_unit_test(test_podman_tmpfs_size_and_mode_written_by_the_driver),
		cmocka_unit_test(test_podman_mount_rejects_relative_and_newline_paths),
		cmocka_unit_test(test_podman_run_argv_is_a_hardened_runsc_sandbox),
		cmocka_unit_test(test_podman_run_argv_sidecar_gets_crun_caps_and_command),
		cmocka_unit_test(test_podman_run_argv_joined_netns_keeps_hostname),
		cmocka_unit_test(test_podman_run_argv_rejects_bare_env_that_would_copy_host_value),
		cmocka_unit_test(test_podman_run_argv_rejects_flag_like_values_and_bad_names),
		cmocka_unit_test(test_podman_exec_argv_disables_detach_keys_and_keeps_order),
		cmocka_unit_test(test_podman_exec_argv_credential_on_fd3_under_the_holder),
		cmocka_unit_test(test_podman_exec_argv_without_command_starts_a_login_shell),
		cmocka_unit_test(test_podman_state_parse_maps_statuses),
		cmocka_unit_test(test_podman_stale_ns_recognises_podmans_pause_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
