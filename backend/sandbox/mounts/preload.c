/* preload.c - lazaret-statx.so in every sandbox (preload.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "prefix.h"
#include "sandbox/mounts/preload.h"
#include "xmalloc.h"

/* Written again each start: a file renamed over, never edited in place. */
int
preload_file_write(const char *path, lz_err_t *err)
{
	static const char line[] = PRELOAD_SO_DST "\n";
	char *tmp = xasprintf("%s.tmp", path);
	ssize_t n;
	int fd, ret = -1;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		lz_err_sys(err, errno, "cannot write '%s'", tmp);
		goto out;
	}
	n = write(fd, line, sizeof line - 1);
	if (close(fd) < 0 || n != (ssize_t)(sizeof line - 1)) {
		lz_err_sys(err, errno != 0 ? errno : EIO, "cannot write '%s'", tmp);
		(void)unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		lz_err_sys(err, errno, "cannot rename '%s'", tmp);
		(void)unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	return ret;
}

int
preload_so_path(char **so, lz_err_t *err)
{
	if (lz_prefix_helper(PRELOAD_SO_NAME, so, err) < 0)
		return lz_err_wrap(err, "the statx shim GNU ls needs under runsc (make, or "
		    "reinstall Lazaret)");
	return 0;
}

int
preload_spec(const struct anchor *a, struct drv_spec *sp, lz_err_t *err)
{
	char *so = NULL, *file = NULL;
	int ret = -1;

	if (preload_so_path(&so, err) < 0)
		goto out;
	file = xasprintf("%s/ld.so.preload", a->domain_root);
	if (preload_file_write(file, err) < 0)
		goto out;
	drv_spec_add_bind(sp, so, PRELOAD_SO_DST, true);
	drv_spec_add_bind(sp, file, PRELOAD_FILE_DST, true);
	ret = 0;
out:
	free(so);
	free(file);
	return ret;
}
