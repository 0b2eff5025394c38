/* esc-cwd.c - openat2 beneath the workspace root (see esc-cwd.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "escalation/esc-cwd.h"

int
esc_cwd_root(const char *host_root, lz_err_t *err)
{
	int fd = open(host_root, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return lz_err_sys(err, errno, "workspace %s", host_root);
	return fd;
}

/* Without openat2 (kernels before 5.6, valgrind 3.19): one component at a
 * time, none followed if it is a symlink; ".." never gets here (policy_map_cwd). */
static int
esc_cwd_walk(int root_fd, const char *rel)
{
	char *copy = strdup(rel), *save = NULL, *c;
	int fd, next;

	if (copy == NULL)
		return -1;
	fd = openat(root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (c = strtok_r(copy, "/", &save); c != NULL && fd >= 0; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			close(fd);
			fd = -1;
			errno = EXDEV;
			break;
		}
		next = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOTDIR)
			errno = ELOOP;	/* a symlink, as openat2 says it */
		close(fd);
		fd = next;
	}
	free(copy);
	return fd;
}

int
esc_cwd_open(int root_fd, const char *rel, const char *checked, lz_err_t *err)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat a, b;
	int fd;

	while (*rel == '/')
		rel++;
	fd = (int)syscall(SYS_openat2, root_fd, *rel != '\0' ? rel : ".", &how, sizeof how);
	if (fd < 0 && errno == ENOSYS)
		fd = esc_cwd_walk(root_fd, rel);
	if (fd < 0) {
		if (errno == ELOOP || errno == EXDEV)
			return lz_err_set(err, errno, "host directory %s: a symbolic link on the "
			    "way (not followed): not run", checked);
		return lz_err_sys(err, errno, "host directory %s", checked);
	}
	if (fstat(fd, &a) < 0 || stat(checked, &b) < 0 || !S_ISDIR(a.st_mode) ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(fd);
		return lz_err_set(err, EXDEV, "host directory %s changed while it was checked: "
		    "not run", checked);
	}
	return fd;
}
