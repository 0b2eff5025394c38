/* lock.c - flock(2) on a file we own (hold-to-bind, coordinator liveness). */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "coord/lock.h"
#include "xmalloc.h"

/* Another user's file where our lock belongs: who, and how it goes away.
 * In sticky /tmp only its owner or root can remove it. */
static int
lock_foreign(const char *path, uid_t owner, lz_err_t *err)
{
	struct passwd pw, *res = NULL;
	char buf[1024], name[64];

	if (getpwuid_r(owner, &pw, buf, sizeof buf, &res) == 0 && res != NULL)
		snprintf(name, sizeof name, "%s", res->pw_name);
	else
		snprintf(name, sizeof name, "uid %u", (unsigned)owner);
	/* Root's own file: "ask root or root" said nothing. */
	return lz_err_set(err, EPERM, "lock file %s belongs to %s (uid %u), not to you (uid %u): "
	    "another user made it first and could block this domain, so Lazaret will not use "
	    "or wait on it; ask %s%s to remove it: sudo rm -f %s", path, name,
	    (unsigned)owner, (unsigned)geteuid(), owner == 0 ? "root" : name,
	    owner == 0 ? "" : " or root", path);
}

int
lock_open(const char *path, int *fdp, lz_err_t *err)
{
	struct stat st;
	int fd;

	*fdp = -1;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0600);
	if (fd < 0) {
		if (errno == ELOOP)
			return lz_err_set(err, ELOOP, "lock file %s is a symlink: refusing it "
			    "(remove it if you did not create it)", path);
		if ((errno == EACCES || errno == EPERM) && lstat(path, &st) == 0 &&
		    st.st_uid != geteuid())
			return lock_foreign(path, st.st_uid, err);
		return lz_err_sys(err, errno, "cannot open lock file %s", path);
	}
	if (fstat(fd, &st) < 0) {
		lz_err_sys(err, errno, "cannot stat lock file %s", path);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		lz_err_set(err, EPERM, "lock file %s is not a regular file: refusing it", path);
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		lock_foreign(path, st.st_uid, err);
		goto fail;
	}
	if ((st.st_mode & 077) != 0) {
		lz_err_set(err, EPERM, "lock file %s has mode %04o, expected 0600: refusing it",
		    path, (unsigned)(st.st_mode & 07777));
		goto fail;
	}
	*fdp = fd;
	return 0;
fail:
	close(fd);
	return -1;
}

int
lock_try(int fd, lz_err_t *err)
{
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			return 0;
		if (errno != EINTR)
			return lz_err_sys(err, errno, "flock");
	}
	return 1;
}

int
lock_wait(int fd, int timeout_ms, lz_err_t *err)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int r, waited = 0;

	/* Poll rather than block so that a wedged holder cannot hang us forever. */
	for (;;) {
		if ((r = lock_try(fd, err)) != 0)
			return r;
		if (waited >= timeout_ms)
			return 0;
		nanosleep(&ts, NULL);
		waited += 10;
	}
}

void
lock_release(int fd)
{
	if (fd >= 0)
		(void)flock(fd, LOCK_UN);
}

char *
lock_live_path(const struct anchor *a)
{
	size_t n = strlen(a->ctl_socket);

	LZ_ASSERT(n > 4 && strcmp(a->ctl_socket + n - 4, ".ctl") == 0);
	return xasprintf("%.*s.lock", (int)(n - 4), a->ctl_socket);
}
