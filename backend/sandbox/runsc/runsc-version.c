/* runsc-version.c - which runsc a sandbox runs (runsc-version.h): its
 * `--version`, asked once per binary and kept. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/proc.h"
#include "sandbox/runsc/runsc-version.h"
#include "xmalloc.h"

#define RUNSC_VERSION_MAX	512	/* bytes of the cache file */
#define RUNSC_VERSION_KEY	160	/* bytes of a binary's identity */

/* A binary's identity in the cache: device, inode, size, mtime. */
static void
runsc_version_key(const struct stat *st, char *key, size_t size)
{
	snprintf(key, size, "%ju %ju %jd %jd.%09ld ", (uintmax_t)st->st_dev,
	    (uintmax_t)st->st_ino, (intmax_t)st->st_size, (intmax_t)st->st_mtim.tv_sec,
	    st->st_mtim.tv_nsec);
}

/* The cache's line for binary st, or NULL. */
static char *
runsc_version_cached(const char *path, const struct stat *st)
{
	char buf[RUNSC_VERSION_MAX + 1], want[RUNSC_VERSION_KEY], *nl;
	struct stat cs;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return NULL;
	n = fstat(fd, &cs) == 0 && S_ISREG(cs.st_mode) && cs.st_uid == getuid() ?
	    read(fd, buf, RUNSC_VERSION_MAX) : -1;
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	runsc_version_key(st, want, sizeof want);
	if (strncmp(buf, want, strlen(want)) != 0 || (nl = strchr(buf, '\n')) == NULL)
		return NULL;
	*nl = '\0';
	return xstrdup(buf + strlen(want));
}

static void
runsc_version_save(const char *path, const struct stat *st, const char *line)
{
	_cleanup_free_ char *tmp = xasprintf("%s.%ld", path, (long)getpid()), *text = NULL;
	char key[RUNSC_VERSION_KEY];
	size_t len;
	bool ok;
	int fd;

	runsc_version_key(st, key, sizeof key);
	text = xasprintf("%s%s\n", key, line);
	len = strlen(text);

	if (len > RUNSC_VERSION_MAX)
		return;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return;
	/* a cache: a failed write leaves it to be asked again next time */
	ok = write(fd, text, len) == (ssize_t)len;
	if (close(fd) < 0 || !ok || rename(tmp, path) < 0)
		unlink(tmp);
}

int
runsc_version_of(int64_t pid, char **line, lz_err_t *err)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	_cleanup_free_ char *exe = xasprintf("/proc/%" PRId64 "/exe", pid);
	_cleanup_free_ char *dir = NULL, *path = NULL, *out = NULL;
	char *argv[] = { exe, (char *)"--version", NULL };
	struct stat st;

	*line = NULL;
	if (stat(exe, &st) < 0)
		return lz_err_sys(err, errno, "the sandbox's runsc (%s)", exe);
	if (rt != NULL && rt[0] == '/') {
		dir = xasprintf("%s/lazaret", rt);
		path = xasprintf("%s/runsc-version", dir);
		if ((*line = runsc_version_cached(path, &st)) != NULL)
			return 0;
	}
	if (proc_run_ok(argv, &out, err) < 0)
		return -1;
	out[strcspn(out, "\n")] = '\0';
	if (path != NULL && (mkdir(dir, 0700) == 0 || errno == EEXIST))
		runsc_version_save(path, &st, out);
	*line = out;
	out = NULL;
	return 0;
}
