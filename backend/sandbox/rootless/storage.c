/* storage.c - podman's storage files read directly (see storage.h). The
 * files are written by podman as new files renamed over the old ones, so a
 * read sees one whole version. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "surface-json.h"
#include "sandbox/rootless/mountinfo.h"
#include "sandbox/rootless/pause.h"
#include "sandbox/rootless/storage.h"
#include "xmalloc.h"

char *
storage_graphroot_of(const char *mp)
{
	static const char head[] = "/overlay/", tail[] = "/merged";
	size_t n = strlen(mp), t = sizeof head - 1 + OVERLAY_IMAGES_ID_LEN + sizeof tail - 1;
	const char *q;

	if (mp[0] != '/' || n <= t)
		return NULL;
	q = mp + n - t;
	if (memcmp(q, head, sizeof head - 1) != 0 ||
	    strspn(q + sizeof head - 1, "0123456789abcdef") != OVERLAY_IMAGES_ID_LEN ||
	    strcmp(q + sizeof head - 1 + OVERLAY_IMAGES_ID_LEN, tail) != 0)
		return NULL;
	return xstrndup(mp, n - t);
}

char *
storage_graphroot(const char *mountinfo)
{
	const char *line = mountinfo;
	char *mp, *g = NULL;

	while (g == NULL && (mp = mountinfo_next(&line)) != NULL) {
		g = storage_graphroot_of(mp);
		free(mp);
	}
	return g;
}

int
storage_lookup(const char *graphroot, const char *kind, const char *name,
    char id[OVERLAY_IMAGES_ID_LEN + 1], char layer[OVERLAY_IMAGES_ID_LEN + 1])
{
	_cleanup_free_ char *file = xasprintf("%s/overlay-%s/%s.json", graphroot, kind, kind);
	_cleanup_free_ uint8_t *buf = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t len = 0;
	ssize_t r;

	id[0] = layer[0] = '\0';
	/* podman's own file: a regular file of ours, of a size we read whole. */
	if ((fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_uid != getuid() || st.st_size > SURFACE_JSON_MAX)
		return 0;
	buf = xmalloc((size_t)st.st_size + 1);
	while (len < (size_t)st.st_size && (r = read(fd, buf + len, (size_t)st.st_size - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return 0;
		len += (size_t)r;
	}
	return overlay_images_find(buf, len, name, id, layer, NULL) == 1 ? 1 : 0;
}

int
storage_find(const char *kind, const char *name, char **graphroot,
    char id[OVERLAY_IMAGES_ID_LEN + 1], char layer[OVERLAY_IMAGES_ID_LEN + 1])
{
	_cleanup_free_ char *info = NULL, *g = NULL;

	*graphroot = NULL;
	id[0] = layer[0] = '\0';
	if ((info = pause_mountinfo()) == NULL || (g = storage_graphroot(info)) == NULL ||
	    storage_lookup(g, kind, name, id, layer) != 1)
		return 0;
	*graphroot = lz_steal_ptr(&g);
	return 1;
}
