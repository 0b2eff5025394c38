/* uidmap.c - bindfs uid maps for the agent user (uidmap.h).
 *
 * Theory of operation: gVisor's gofer (root of podman's user namespace, the
 * host user) creates a file, then chowns it to the sandbox caller's uid;
 * under `bindfs --map=0/1000:@0/@1000` that chown to 1000 lands as 0 (the
 * host user) on the host, and the host user's files are shown as 1000, so
 * the agent owns and writes them. A chown to 0 (root through sudo) passes as
 * 0, the host user too. bindfs runs inside podman's namespace (`lazaret
 * ns-exec`, else `podman unshare`), like fuse-overlayfs; its mount points sit
 * under <domain_root>/overlay/ with a name no persistent dir can have
 * (overlay_dir_name escapes '-'), so overlay_unmount, at teardown and in the
 * guard, unmounts them too. Measured: 500 file writes 3.7 s vs 2.5 s.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/rootless/mountinfo.h"
#include "sandbox/rootless/pause.h"
#include "sandbox/sentry/sentry.h"
#include "sandbox/mounts/uidmap.h"
#include "strv.h"
#include "xmalloc.h"

#define UIDMAP_PASSWD_MAX	(1u << 20)

/* Run argv in podman's namespace; *status as sentry_run's. */
static int
uidmap_ns_run(char *const *args, const char *what, int *status, lz_err_t *err)
{
	char **argv = NULL;
	size_t i;
	int ret;

	if (pause_exec_prefix(&argv) < 0) {
		lz_strv_push(&argv, "podman");
		lz_strv_push(&argv, "unshare");
	}
	for (i = 0; args[i] != NULL; i++)
		lz_strv_push(&argv, args[i]);
	ret = sentry_run(argv, NULL, what, NULL, status, err);
	lz_strv_free(argv);
	return ret;
}

int
uidmap_mount(const struct anchor *a, const char *name, const char *src, unsigned uid,
    unsigned gid, char **mnt, lz_err_t *err)
{
	_cleanup_free_ char *rel = NULL, *m = NULL, *map = NULL, *info = NULL;
	int st;

	*mnt = NULL;
	if (sentry_path_check("directory", src, true, err) < 0)
		return -1;
	rel = xasprintf("%s/overlay/-uidmap-%s/merged", a->domain_root + 1, name);
	if (sentry_mkdirs("", rel, 0700, err) < 0)
		return -1;
	m = xasprintf("/%s", rel);
	info = pause_mountinfo();
	if (info == NULL || mountinfo_has(info, m)) {
		/* left by a run that died: its daemon may be gone (ENOTCONN) */
		char *const um[] = { (char *)"fusermount3", (char *)"-u", (char *)"-z", (char *)"--",
		    m, NULL };

		if (uidmap_ns_run(um, "fusermount3 -u", &st, err) < 0)
			return -1;
	}
	map = xasprintf("--map=0/%u:@0/@%u", uid, gid);
	{
		/* no "--": bindfs hands it to FUSE; both paths are absolute */
		char *const bv[] = { (char *)"bindfs", map, (char *)src, m, NULL };

		if (uidmap_ns_run(bv, "bindfs", NULL, err) < 0)
			return lz_err_wrap(err, "cannot map uid %u onto your files in %s (is bindfs "
			    "installed? sudo apt-get install bindfs)", uid, src);
	}
	*mnt = lz_steal_ptr(&m);
	return 0;
}

/* A regular file of at most UIDMAP_PASSWD_MAX bytes; a last component that
 * is a symlink (the agent's own /etc) is refused: it would resolve on the
 * host. NULL when missing or unreadable. */
static char *
uidmap_read(const char *path)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	char *buf;
	size_t len = 0;
	ssize_t r;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK)) < 0 ||
	    fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	buf = xmalloc(UIDMAP_PASSWD_MAX + 1);
	while (len < UIDMAP_PASSWD_MAX && (r = read(fd, buf + len, UIDMAP_PASSWD_MAX - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		len += (size_t)r;
	}
	buf[len] = '\0';
	return buf;
}

char *
uidmap_image_passwd(const struct anchor *a, const char *image_mount)
{
	_cleanup_free_ char *upper = xasprintf("%s/overlay/etc/upper/passwd", a->domain_root);
	_cleanup_free_ char *p = NULL;
	char pid[PAUSE_PID_MAX], *pw;
	struct stat st;

	/* The /etc State Anchor's own copy (the agent's useradd), a plain host
	 * file; the merged view is FUSE, closed to processes outside podman's
	 * namespace. A whiteout (deleted passwd) is no file. */
	if (lstat(upper, &st) == 0)
		return S_ISREG(st.st_mode) ? uidmap_read(upper) : NULL;
	/* else the image's: its mount (read-only overlay) through the pause root */
	if (image_mount == NULL || image_mount[0] != '/' || pause_pid(pid) < 0 ||
	    !pause_is_ours(pid))
		return NULL;
	p = xasprintf("/proc/%s/root%s/etc/passwd", pid, image_mount);
	pw = uidmap_read(p);
	return pw;
}
