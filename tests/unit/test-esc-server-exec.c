/* test-esc-server-exec.c - where and what an approved command runs
 * (esc-cwd.c, esc-exec.c, esc-spawn.c): a cwd outside the workspace or
 * swapped for a symlink, programs that cannot start, a program swapped after
 * the check; against the real lazaret-escalate. The fixture is esctest.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>
#include <uv.h>
#include <cmocka.h>
#include <valgrind/valgrind.h>

#include "escalation/esc-server.h"
#include "esctest.h"
#include "testutil.h"
#include "xmalloc.h"

static void
test_esc_server_cwd_outside_the_workspace_is_rejected(void **state)
{
	struct es_fx *f = *state;

	ES_NEED_BIN(f);
	f->cwd = f->tlsdir;	/* the client runs outside the workspace */
	es_run(f, (const char *[]){ "echo", "hi", NULL });
	assert_int_equal(f->status, 125);
	es_assert_has(f->got_err, "cwd");
}

/* The agent swaps a directory of its workspace with a symlink to outside
 * (renameat2 RENAME_EXCHANGE in a real process, as fast as it can) while an
 * auto-approved pwd runs there, 300 times: the command never runs outside. */
static void
test_esc_server_cwd_symlink_swap_never_runs_outside(void **state)
{
	struct es_fx *f = *state;
	char *a, *l, *out, *cwd, *o;
	int i, ran = 0, outside = 0;
	pid_t sw;

	ES_NEED_BIN(f);
	a = xasprintf("%s/a", f->ws);
	l = xasprintf("%s/l", f->ws);
	out = xasprintf("%s/out", f->dir);
	cwd = xasprintf("%s/a/b", f->ws);
	o = xasprintf("%s/b", out);
	assert_int_equal(mkdir(a, 0700), 0);
	assert_int_equal(mkdir(cwd, 0700), 0);
	assert_int_equal(mkdir(out, 0700), 0);
	assert_int_equal(mkdir(o, 0700), 0);
	assert_int_equal(symlink(out, l), 0);
	if ((sw = fork()) == 0) {
		/* Bursts of 16 swaps, then a pause with a real directory in place:
		 * on a loaded machine a swapper that never pauses leaves no window
		 * where pwd may run, and ran > 0 (the check is not empty) fails. */
		for (unsigned n = 1;; n++) {
			(void)renameat2(AT_FDCWD, a, AT_FDCWD, l, RENAME_EXCHANGE);
			if (n % 16 == 0)
				usleep(200);
		}
	}
	assert_true(sw > 0);
	f->cwd = cwd;
	for (i = 0; i < 300; i++) {
		es_run(f, (const char *[]){ "pwd", NULL });
		if (f->status == 0)
			ran++;
		if (strstr(f->got_out, "/out/b") != NULL)
			outside++;
	}
	kill(sw, SIGKILL);
	waitpid(sw, NULL, 0);
	print_message("pwd ran %d of 300 times, %d outside the workspace\n", ran, outside);
	assert_int_equal(outside, 0);
	assert_true(ran > 0);
	free(a);
	free(l);
	free(out);
	free(cwd);
	free(o);
}

/* Approved commands that cannot start (127): a script whose interpreter is
 * missing, a file of no known format; 50 times each, and the server stays
 * healthy and still runs the next command. Under valgrind (tests/integ/
 * test-esc-valgrind.sh) only the second, and only its status: valgrind turns
 * posix_spawn's vfork into a fork, so the child's exec error never reaches
 * the parent (the child exits 127), and it cannot survive a child whose
 * execve fails after its own checks passed, as a missing interpreter's does. */
static void
test_esc_server_failed_start_50_times_then_still_serves(void **state)
{
	struct es_fx *f = *state;
	const char *cmd[] = { "./badfmt", "./noint.sh" };
	int i, k;

	ES_NEED_BIN(f);
	tu_write_file(f->ws, "noint.sh", "#!/nonexistent/interpreter\necho never\n");
	tu_write_file(f->ws, "badfmt", "\x01\x02 no format\n");
	for (k = 0; k < 2; k++) {
		char *p = xasprintf("%s/%s", f->ws, cmd[k] + 2);

		assert_int_equal(chmod(p, 0755), 0);
		free(p);
	}
	for (k = 0; k < (RUNNING_ON_VALGRIND ? 1 : 2); k++)
		for (i = 0; i < 50; i++) {
			es_run(f, (const char *[]){ cmd[k], NULL });
			assert_int_equal(f->status, 127);
			if (!RUNNING_ON_VALGRIND) {
				es_assert_has(f->got_err, "cannot run");
				es_assert_has(f->audit, "\"outcome\":\"failed\"");
			}
		}
	es_run(f, (const char *[]){ "echo", "hi", NULL });
	assert_int_equal(f->status, 0);
	assert_string_equal(f->got_out, "hi\n");
}

static void
swap_to_echo(struct es_fx *f)
{
	char *p = xasprintf("%s/swap.sh", f->ws);

	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("/bin/echo", p), 0);
	free(p);
}

/* While the human reads the prompt for ./swap.sh, the agent makes it a
 * symlink to another program: what was resolved and checked is not what
 * the path names any more, so nothing runs. */
static void
test_esc_server_program_swapped_after_the_check_does_not_run(void **state)
{
	struct es_fx *f = *state;
	char *p;

	ES_NEED_BIN(f);
	tu_write_file(f->ws, "swap.sh", "#!/bin/sh\necho script\n");
	p = xasprintf("%s/swap.sh", f->ws);
	assert_int_equal(chmod(p, 0755), 0);
	free(p);
	f->decide = true;
	f->action = ESC_CTL_APPROVE;
	f->on_prompt = swap_to_echo;
	es_run(f, (const char *[]){ "./swap.sh", "swapped", NULL });
	assert_int_equal(f->prompts, 1);
	assert_int_equal(f->status, 127);
	es_assert_has(f->got_err, "changed after the policy looked at it: not run");
	assert_null(strstr(f->got_out, "swapped"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(n) cmocka_unit_test_setup_teardown(n, es_setup, es_teardown)
		T(test_esc_server_cwd_outside_the_workspace_is_rejected),
		T(test_esc_server_cwd_symlink_swap_never_runs_outside),
		T(test_esc_server_failed_start_50_times_then_still_serves),
		T(test_esc_server_program_swapped_after_the_check_does_not_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
