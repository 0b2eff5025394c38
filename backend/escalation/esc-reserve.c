/* esc-reserve.c - the audit's reserve file (see esc-reserve.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escalation/esc-reserve.h"

int
esc_reserve_make(const char *path, lz_err_t *err)
{
	struct stat st;
	int fd, r;

	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return lz_err_sys(err, errno, "audit reserve %s", path);
	if (fstat(fd, &st) == 0 && st.st_blocks * 512 >= ESC_RESERVE_BYTES) {
		close(fd);
		return 0;
	}
	r = posix_fallocate(fd, 0, ESC_RESERVE_BYTES);
	close(fd);
	if (r != 0) {
		(void)unlink(path);
		return lz_err_set(err, r, "audit reserve %s: cannot keep %d MiB free there: %s",
		    path, ESC_RESERVE_BYTES >> 20, strerror(r));
	}
	return 0;
}

void
esc_reserve_release(const char *path)
{
	(void)unlink(path);
}
