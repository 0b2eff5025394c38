/* sentry-lock.c - the import lock: an import of the agent's refs holds it
 * exclusively while it writes the host's Lazaret refs, a review (lazaret
 * diff, merge, the workbench's view) shared while it
 * reads them, so a review never sees a branch half-way through an import
 * (the agent tip of one import beside the checkout of the next).
 *
 * flock(2) on <domain_root>/sentry/import.lock: held by the open file
 * description, so it dies with its holder, SIGKILL included. Waits poll,
 * bounded, so that a wedged holder cannot hang a review for ever.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sentry/sentry.h"
#include "xmalloc.h"

int
sentry_import_lock(const char *domain_root, bool exclusive, int timeout_ms, int *fdp,
    lz_err_t *err)
{
	_cleanup_free_ char *dir = xasprintf("%s/sentry", domain_root);
	_cleanup_free_ char *path = xasprintf("%s/import.lock", dir);
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	struct stat st;
	int fd, waited = 0;

	*fdp = -1;
	/* No Sentry state: no import has run, none can be running. */
	if (lstat(dir, &st) < 0 && errno == ENOENT)
		return 0;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return lz_err_sys(err, errno, "import lock %s", path);
	while (flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			lz_err_sys(err, errno, "import lock %s", path);
			close(fd);
			return -1;
		}
		if (waited >= timeout_ms) {
			close(fd);
			if (exclusive)
				return lz_err_set(err, ETIMEDOUT, "a review of the agent's "
				    "branches has held %s for %d s", path, timeout_ms / 1000);
			return lz_err_set(err, ETIMEDOUT, "an import of the agent's commits "
			    "has been writing its branches for %d s (%s): try again when it "
			    "has finished", timeout_ms / 1000, path);
		}
		nanosleep(&ts, NULL);
		waited += 10;
	}
	*fdp = fd;
	return 0;
}
