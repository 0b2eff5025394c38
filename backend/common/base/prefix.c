/* prefix.c - helpers and data relative to the running program (see prefix.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prefix.h"
#include "xmalloc.h"

int
lz_prefix_exe_dir(char **out, lz_err_t *err)
{
	char exe[PATH_MAX], *slash;
	ssize_t n;

	*out = NULL;
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) < 0)
		return lz_err_sys(err, errno, "cannot find my own program (readlink /proc/self/exe)");
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) == NULL)
		return lz_err_set(err, LZ_EINVAL, "my own program has a relative path: %s", exe);
	*slash = '\0';
	*out = xstrdup(exe);
	return 0;
}

char *
lz_prefix_of(const char *exe_dir)
{
	size_t n = strlen(exe_dir);

	while (n > 1 && exe_dir[n - 1] == '/')
		n--;
	while (n > 0 && exe_dir[n - 1] != '/')
		n--;
	while (n > 0 && exe_dir[n - 1] == '/')	/* "/usr//bin" */
		n--;
	return xstrndup(exe_dir, n);
}

int
lz_prefix_helper_in(const char *exe_dir, const char *name, char **out, lz_err_t *err)
{
	_cleanup_free_ char *prefix = lz_prefix_of(exe_dir);
	char *inst = xasprintf("%s/" LZ_PREFIX_LIBEXEC "/%s", prefix, name);
	char *next = xasprintf("%s/%s", exe_dir, name);

	*out = NULL;
	if (access(inst, X_OK) == 0) {
		*out = inst;
		free(next);
		return 0;
	}
	if (access(next, X_OK) == 0) {
		*out = next;
		free(inst);
		return 0;
	}
	lz_err_sys(err, errno, "%s is missing: not in %s/" LZ_PREFIX_LIBEXEC " (installed) nor "
	    "in %s (build tree)", name, prefix, exe_dir);
	free(inst);
	free(next);
	return -1;
}

int
lz_prefix_helper(const char *name, char **out, lz_err_t *err)
{
	_cleanup_free_ char *dir = NULL;

	*out = NULL;
	if (lz_prefix_exe_dir(&dir, err) < 0)
		return -1;
	return lz_prefix_helper_in(dir, name, out, err);
}

char *
lz_prefix_exec_helper(void)
{
	char exe[PATH_MAX], *out = NULL;
	lz_err_t err = LZ_ERR_INIT;
	ssize_t n;

	if (lz_prefix_helper("lazaret-exec", &out, &err) == 0)
		return out;
	lz_err_clear(&err);
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) < 0)
		return NULL;
	exe[n] = '\0';
	return xstrdup(exe);
}

char *
lz_prefix_data(const char *rel)
{
	_cleanup_free_ char *dir = NULL, *prefix = NULL;
	lz_err_t err = LZ_ERR_INIT;

	if (lz_prefix_exe_dir(&dir, &err) < 0) {
		lz_err_clear(&err);
		return NULL;
	}
	prefix = lz_prefix_of(dir);
	return xasprintf("%s/" LZ_PREFIX_DATA "%s%s", prefix, rel[0] != '\0' ? "/" : "", rel);
}

char *
lz_prefix_setup_host(void)
{
	lz_err_t err = LZ_ERR_INIT;
	char *p = NULL;

	if (lz_prefix_helper("setup-host", &p, &err) < 0) {
		lz_err_clear(&err);
		return xstrdup("scripts/setup-host");
	}
	return p;
}
