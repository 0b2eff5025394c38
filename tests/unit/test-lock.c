/* test-lock.c - hold-to-bind locks across two processes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coord/lock.h"
#include "testutil.h"
#include "xmalloc.h"

struct lock_fixture {
	char *dir;
	char *path;
};

static int
lock_setup(void **state)
{
	struct lock_fixture *f = xcalloc(1, sizeof *f);

	f->dir = tu_mkdtemp("test-lock");
	f->path = xasprintf("%s/x.lock", f->dir);
	*state = f;
	return 0;
}

static int
lock_teardown(void **state)
{
	struct lock_fixture *f = *state;
	tu_rmrf(f->dir);
	free(f->dir);
	free(f->path);
	free(f);
	return 0;
}

/* Child: take the lock, say so on the pipe, hold it until killed. */
static pid_t
lock_holder(const char *path)
{
	int p[2], fd;
	char c;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		if (lock_open(path, &fd, NULL) < 0 || lock_try(fd, NULL) != 1)
			_exit(1);
		(void)!write(p[1], "k", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static void
test_lock_second_process_cannot_take_held_lock(void **state)
{
	struct lock_fixture *f = *state;
	lz_err_t err = LZ_ERR_INIT;
	int fd, st;
	pid_t pid = lock_holder(f->path);

	assert_int_equal(lock_open(f->path, &fd, &err), 0);
	assert_int_equal(lock_try(fd, &err), 0);
	assert_int_equal(lock_wait(fd, 50, &err), 0);
	/* SIGKILL of the holder frees it: what makes a crashed coordinator visible. */
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	assert_int_equal(lock_wait(fd, 2000, &err), 1);
	lock_release(fd);
	close(fd);
}

static void
test_lock_release_lets_a_waiter_in(void **state)
{
	struct lock_fixture *f = *state;
	int fd, st;
	pid_t pid;

	assert_int_equal(lock_open(f->path, &fd, NULL), 0);
	assert_int_equal(lock_try(fd, NULL), 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int cfd;

		if (lock_open(f->path, &cfd, NULL) < 0)
			_exit(2);
		_exit(lock_wait(cfd, 5000, NULL) == 1 ? 0 : 1);
	}
	usleep(100 * 1000);
	lock_release(fd);
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(fd);
}

static void
test_lock_file_is_created_0600(void **state)
{
	struct lock_fixture *f = *state;
	struct stat st;
	mode_t old = umask(0);
	int fd;

	assert_int_equal(lock_open(f->path, &fd, NULL), 0);
	umask(old);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	close(fd);
}

static void
test_lock_refuses_symlink(void **state)
{
	struct lock_fixture *f = *state;
	char *target = xasprintf("%s/target", f->dir);
	lz_err_t err = LZ_ERR_INIT;
	int fd;

	assert_int_equal(symlink(target, f->path), 0);
	assert_int_equal(lock_open(f->path, &fd, &err), -1);
	assert_int_equal(fd, -1);
	assert_non_null(strstr(err.msg, "symlink"));
	/* and nothing was created through it */
	assert_int_equal(access(target, F_OK), -1);
	lz_err_clear(&err);
	free(target);
}

static void
test_lock_refuses_non_regular_file(void **state)
{
	struct lock_fixture *f = *state;
	lz_err_t err = LZ_ERR_INIT;
	int fd;

	assert_int_equal(mkfifo(f->path, 0600), 0);
	assert_int_equal(lock_open(f->path, &fd, &err), -1);
	assert_non_null(strstr(err.msg, "regular"));
	lz_err_clear(&err);
}

static void
test_lock_refuses_group_readable_file(void **state)
{
	struct lock_fixture *f = *state;
	lz_err_t err = LZ_ERR_INIT;
	int fd;

	fd = open(f->path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0644), 0);
	close(fd);
	assert_int_equal(lock_open(f->path, &fd, &err), -1);
	assert_non_null(strstr(err.msg, "0644"));
	lz_err_clear(&err);
}

/* Another user's file at our path: named with its owner and the fix, never
 * used or waited on (needs root to make such a file). */
static void
test_lock_refuses_another_users_file_naming_owner_and_fix(void **state)
{
	struct lock_fixture *f = *state;
	lz_err_t err = LZ_ERR_INIT;
	int fd;

	if (geteuid() != 0)
		skip();
	fd = open(f->path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fchown(fd, 65534, 65534), 0);
	close(fd);
	assert_int_equal(lock_open(f->path, &fd, &err), -1);
	assert_int_equal(err.code, EPERM);
	assert_non_null(strstr(err.msg, "(uid 65534)"));
	assert_non_null(strstr(err.msg, "will not use or wait on it"));
	assert_non_null(strstr(err.msg, "sudo rm -f "));
	assert_non_null(strstr(err.msg, f->path));
	lz_err_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lock_second_process_cannot_take_held_lock,
		    lock_setup, lock_teardown),
		cmocka_unit_test_setup_teardown(test_lock_release_lets_a_waiter_in,
		    lock_setup, lock_teardown),
		cmocka_unit_test_setup_teardown(test_lock_file_is_created_0600,
		    lock_setup, lock_teardown),
		cmocka_unit_test_setup_teardown(test_lock_refuses_symlink,
		    lock_setup, lock_teardown),
		cmocka_unit_test_setup_teardown(test_lock_refuses_non_regular_file,
		    lock_setup, lock_teardown),
		cmocka_unit_test_setup_teardown(
		    test_lock_refuses_another_users_file_naming_owner_and_fix, lock_setup,
		    lock_teardown),
		cmocka_unit_test_setup_teardown(test_lock_refuses_group_readable_file,
		    lock_setup, lock_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
