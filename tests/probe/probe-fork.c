/* probe-fork.c - lazaret-probe fork-as SECONDS UID...: the attack of issue
 * 24 item 9 from inside the sandbox. For each UID a child takes that uid
 * (RLIMIT_NPROC is counted per uid) and forks sleepers until a fork fails;
 * the parent prints "uid U: N" per uid and "total: N" (processes that were
 * alive at once), then everything ends after SECONDS. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe-fork.h"

#define PROBE_FORK_MAX	2000

/* In the child for uid: fork sleepers until EAGAIN; report the count on fd. */
static void
probe_fork_uid(uid_t uid, unsigned secs, int fd)
{
	int n = 0;
	pid_t p;

	if (setgid(uid) < 0 || setuid(uid) < 0) {
		dprintf(fd, "uid %u: setuid: %s\n", (unsigned)uid, strerror(errno));
		_exit(1);
	}
	while (n < PROBE_FORK_MAX) {
		if ((p = fork()) < 0)
			break;
		if (p == 0) {
			sleep(secs);
			_exit(0);
		}
		n++;
	}
	dprintf(fd, "uid %u: %d\n", (unsigned)uid, n);
	_exit(0);
}

int
probe_fork_as(int argc, char **argv)
{
	unsigned secs;
	int i, pfd[2];
	char buf[4096];
	ssize_t r;
	long total = 0;

	if (argc < 4 || (secs = (unsigned)atoi(argv[2])) == 0 || pipe(pfd) < 0) {
		fprintf(stderr, "usage: lazaret-probe fork-as SECONDS UID...\n");
		return 2;
	}
	for (i = 3; i < argc; i++) {
		pid_t p = fork();

		if (p == 0) {
			close(pfd[0]);
			probe_fork_uid((uid_t)atol(argv[i]), secs, pfd[1]);
		}
		if (p > 0)
			waitpid(p, NULL, 0);	/* one uid after another: the counts add up */
	}
	close(pfd[1]);
	while ((r = read(pfd[0], buf, sizeof buf - 1)) > 0) {
		char *line, *save = NULL;

		buf[r] = '\0';
		for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
			const char *c = strrchr(line, ':');

			printf("%s\n", line);
			if (c != NULL)
				total += atol(c + 1);
		}
	}
	printf("total: %ld\n", total);
	fflush(stdout);
	return 0;
}
