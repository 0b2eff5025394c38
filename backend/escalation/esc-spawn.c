/* esc-spawn.c - posix_spawn with fchdir (see esc-spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "escalation/esc-spawn.h"

int
esc_spawn(const struct esc_spawn_opts *o, pid_t *pid, lz_err_t *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int r;

	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, o->out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, o->err_fd, 2);
	posix_spawn_file_actions_addfchdir_np(&fa, o->dir_fd);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	/* Own session (so own process group): a kill reaches what it forked too. */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	r = posix_spawn(pid, o->file, &fa, &at, o->argv, o->env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (r != 0)
		return lz_err_set(err, r, "cannot run %s: %s", o->file, strerror(r));
	return 0;
}

int
esc_spawn_reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, WNOHANG) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
