/* pathcomp.c - `~` expansion and directory completion for a path field. */
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "paths.h"
#include "pathcomp.h"
#include "xmalloc.h"

char *
pathcomp_expand(const char *text)
{
	lz_err_t err = LZ_ERR_INIT;
	char *out = NULL;

	/* `~user` and a missing home: the text stays as typed. */
	if (lz_path_expand_tilde(text, &out, &err) < 0) {
		lz_err_clear(&err);
		return xstrdup(text);
	}
	return out;
}

/* Whether dir/name is a directory (following symlinks, as cd does). */
static bool
is_dir(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

char *
pathcomp_complete(const char *text)
{
	char *path = pathcomp_expand(text), *slash, *out = NULL, *best = NULL;
	_cleanup_free_ char *dir = NULL;
	const char *base;
	size_t blen, best_len = 0, matches = 0;
	struct dirent *de;
	DIR *d;

	slash = strrchr(path, '/');
	if (slash != NULL) {
		dir = xstrndup(path, (size_t)(slash - path) + 1);
		base = slash + 1;
	} else {
		dir = xstrdup("./");
		base = path;
	}
	blen = strlen(base);
	d = opendir(dir);
	if (d == NULL)
		return path;
	while ((de = readdir(d)) != NULL) {
		size_t n = 0;

		if (strncmp(de->d_name, base, blen) != 0 || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 || (de->d_name[0] == '.' && base[0] != '.') ||
		    !is_dir(dirfd(d), de->d_name))
			continue;
		if (matches++ == 0) {
			best = xstrdup(de->d_name);
			best_len = strlen(best);
			continue;
		}
		while (n < best_len && best[n] == de->d_name[n])
			n++;
		best_len = n;
	}
	closedir(d);
	if (matches == 0)
		return path;
	best[best_len] = '\0';
	/* Only the part before the last '/' came from path; keep it as typed. */
	out = xasprintf("%.*s%s%s", slash != NULL ? (int)(slash - path) + 1 : 0, path, best,
		     matches == 1 ? "/" : "");
	free(best);
	free(path);
	return out;
}
