/* overlay.c - State Anchor overlays with fuse-overlayfs.
 *
 * Theory of operation. Rootless podman keeps its mounts in the mount
 * namespace its pause process holds; `podman image mount` only works there
 * and a mount made on the host is not seen by a container unless / is
 * rshared and the namespace is fresh (notes/sandbox-probe.md §4). So every
 * step runs through `podman unshare`, which joins that namespace:
 *
 *   podman unshare podman image mount IMAGE        -> <img>
 *   podman unshare fuse-overlayfs -o lowerdir=<img><dir>,upperdir=U,workdir=W M
 *
 * (`lazaret ns-exec` joins the same namespaces, those of podman's pause
 * process, without podman's start-up, and falls back to podman unshare)
 *
 * with U, W, M = <domain_root>/overlay/<name>/{upper,work,merged}; the
 * container then gets a bind of M over <dir>. fuse-overlayfs daemonizes
 * (stdio to /dev/null) and outlives `podman unshare`; inside the namespace
 * it runs as root of podman's user namespace, so ownership inside the
 * container maps right (chown 1000 -> host subuid).
 *
 * State: <domain_root>/overlay/image holds the image ID and mount path we
 * hold. overlay_mount reuses a merged dir that is mounted, answers stat (a
 * dead daemon gives ENOTCONN) and sits on the same image; anything else is
 * unmounted and made again, which is also how a rebuilt image becomes the
 * new lower layer (spec 4.1 "Base Image Update Inheritance") while the
 * upper layer is kept. The image mount is refcounted by containers/storage,
 * so we take it once per domain and release it once (no --force: another
 * domain on the same image keeps its own).
 *
 * /etc: podman bind-mounts its own /etc/hosts, /etc/hostname and
 * /etc/resolv.conf on top of whatever is at /etc, so they come from podman,
 * not from the overlay; the copies the runtime leaves in the upper layer as
 * mount points are removed at mount time so a stale one never shows.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/overlay.h"
#include "coord/proc.h"
#include "sandbox/sentry.h"
#include "strv.h"
#include "xmalloc.h"

#define OVERLAY_STATE_MAX 8192

/* Files podman injects into /etc (spec 4.1 compatibility exclusion). */
static const char *const overlay_etc_injected[] = { "resolv.conf", "hosts", "hostname" };

char *
overlay_dir_name(const char *dir)
{
	const char *p = dir;
	char *out, *o;

	while (*p == '/')
		p++;
	out = o = xmalloc(strlen(p) * 3 + 1);
	for (; *p != '\0'; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '/')
			*o++ = '-';
		else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.')
			*o++ = (char)c;
		else
			o += sprintf(o, "_%02x", c);
	}
	*o = '\0';
	return out;
}

int
overlay_dir_check(const char *dir, lz_err_t *err)
{
	static const char *const banned[] = { "/proc", "/sys", "/dev", "/workspace",
	    "/run/lazaret" };
	const char *p, *q;
	size_t i, n;

	if (dir[0] != '/' || dir[1] == '\0')
		return lz_err_set(err, LZ_EINVAL, "persistent dir '%s': expected an absolute "
		    "path below /", dir);
	for (p = dir + 1; *p != '\0'; p = q + (*q == '/')) {
		q = strchrnul(p, '/');
		n = (size_t)(q - p);
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.') ||
		    (*q == '/' && q[1] == '\0'))
			return lz_err_set(err, LZ_EINVAL, "persistent dir '%s': not a normalised "
			    "path", dir);
	}
	for (i = 0; i < sizeof banned / sizeof banned[0]; i++) {
		n = strlen(banned[i]);
		if (strncmp(dir, banned[i], n) == 0 && (dir[n] == '\0' || dir[n] == '/'))
			return lz_err_set(err, LZ_EINVAL, "persistent dir '%s': %s cannot be "
			    "persistent", dir, banned[i]);
	}
	return sentry_path_check("persistent dir", dir, false, err);
}

/* Decode mountinfo's octal escapes (\040 space, \011, \012, \134). */
static char *
overlay_unescape(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			*o++ = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else
			*o++ = s[i];
	}
	*o = '\0';
	return out;
}

bool
overlay_mountinfo_has(const char *mountinfo, const char *path)
{
	const char *line, *end, *f;
	bool found = false;
	int field;

	for (line = mountinfo; *line != '\0' && !found; line = end + (*end == '\n')) {
		end = strchrnul(line, '\n');
		/* id parent maj:min root MOUNTPOINT ... */
		for (f = line, field = 0; field < 4 && f < end; field++) {
			f = memchr(f, ' ', (size_t)(end - f));
			if (f == NULL)
				break;
			f++;
		}
		if (f != NULL && field == 4 && f < end) {
			const char *sp = memchr(f, ' ', (size_t)(end - f));
			size_t n = (size_t)((sp != NULL ? sp : end) - f);
			char *mp = overlay_unescape(f, n);

			found = strcmp(mp, path) == 0;
			free(mp);
		}
	}
	return found;
}

/* Start *argv as `lazaret ns-exec --pid PAUSE --`: the namespaces of rootless
 * podman's pause process (what `podman unshare` joins), entered in a few ms;
 * ns-exec itself falls back to podman unshare. -1: no pause process known. */
static int
overlay_ns_exec(char ***argv)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	char exe[PATH_MAX], pid[16];
	_cleanup_free_ char *path = NULL;
	ssize_t n;
	size_t len;
	FILE *f;

	if (rt == NULL || rt[0] != '/' || (n = readlink("/proc/self/exe", exe, sizeof exe - 1)) < 0)
		return -1;
	exe[n] = '\0';
	path = xasprintf("%s/libpod/tmp/pause.pid", rt);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	len = fread(pid, 1, sizeof pid - 1, f);
	fclose(f);
	pid[len] = '\0';
	pid[strcspn(pid, "\n")] = '\0';
	if (pid[0] == '\0' || pid[strspn(pid, "0123456789")] != '\0')
		return -1;
	lz_strv_push(argv, exe);
	lz_strv_push(argv, "ns-exec");
	lz_strv_push(argv, "--pid");
	lz_strv_push(argv, pid);
	lz_strv_push(argv, "--");
	return 0;
}

/* Run `podman [unshare] ARGS... NULL` (sentry_run's status and out). */
static int
overlay_podman(bool unshare, char **out, int *status, lz_err_t *err, ...)
{
	char **argv = NULL, **args = NULL;
	_cleanup_free_ char *what = NULL;
	const char *s;
	va_list ap;
	size_t i;
	int ret;

	va_start(ap, err);
	while ((s = va_arg(ap, const char *)) != NULL)
		lz_strv_push(&args, s);
	va_end(ap);
	/* "podman unshare fuse-overlayfs", "podman image mount": the words only. */
	what = xstrdup(unshare ? "podman unshare" : "podman");
	for (i = 0; i < 3 && args[i] != NULL && args[i][0] != '-' && args[i][0] != '/'; i++) {
		char *t = xasprintf("%s %s", what, args[i]);

		free(what);
		what = t;
	}
	if (!unshare || overlay_ns_exec(&argv) < 0) {
		lz_strv_push(&argv, "podman");
		if (unshare)
			lz_strv_push(&argv, "unshare");
	}
	for (i = 0; args[i] != NULL; i++)
		lz_strv_push(&argv, args[i]);
	ret = sentry_run(argv, NULL, what, out, status, err);
	lz_strv_free(args);
	lz_strv_free(argv);
	return ret;
}

static int
overlay_mkdir(const char *path, lz_err_t *err)
{
	struct stat st;

	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return lz_err_sys(err, errno, "cannot create '%s'", path);
	if (lstat(path, &st) < 0)
		return lz_err_sys(err, errno, "cannot stat '%s'", path);
	if (!S_ISDIR(st.st_mode))
		return lz_err_set(err, ENOTDIR, "'%s' is not a directory", path);
	return 0;
}

/* <domain_root>/overlay, created (with the Domain Root) when make is set. */
static int
overlay_root(const struct anchor *a, bool make, char **out, lz_err_t *err)
{
	*out = xasprintf("%s/overlay", a->domain_root);
	if (make && sentry_mkdirs("", *out + 1, 0700, err) < 0) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* The image we hold: "ID\nPATH\n" in <root>/image. */
static void
overlay_state_read(const char *root, char **id, char **path)
{
	_cleanup_free_ char *f = xasprintf("%s/image", root);
	char buf[OVERLAY_STATE_MAX + 1], *nl;
	_cleanup_close_ int fd = -1;
	ssize_t n;

	*id = *path = NULL;
	if ((fd = open(f, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	if ((n = read(fd, buf, OVERLAY_STATE_MAX)) <= 0)
		return;
	buf[n] = '\0';
	if ((nl = strchr(buf, '\n')) == NULL)
		return;
	*nl = '\0';
	*id = xstrdup(buf);
	*path = xstrdup(nl + 1);
	if ((nl = strchr(*path, '\n')) != NULL)
		*nl = '\0';
}

static int
overlay_state_write(const char *root, const char *id, const char *path, lz_err_t *err)
{
	_cleanup_free_ char *f = xasprintf("%s/image", root);
	_cleanup_free_ char *tmp = xasprintf("%s/image.tmp", root);
	_cleanup_free_ char *txt = xasprintf("%s\n%s\n", id, path);
	_cleanup_close_ int fd = -1;
	size_t len = strlen(txt);

	(void)unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return lz_err_sys(err, errno, "cannot create '%s'", tmp);
	if (write(fd, txt, len) != (ssize_t)len || rename(tmp, f) < 0) {
		lz_err_sys(err, errno, "cannot write '%s'", f);
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

/* Unmount merged if podman's namespace has it mounted. A dead daemon's
 * mount needs the lazy form (lazy_ok); one still in use by a container is
 * never detached from under it: returns 1 then, without lazy_ok. */
static int
overlay_umount_one(const char *mountinfo, const char *merged, bool lazy_ok, lz_err_t *err)
{
	int st;

	if (!overlay_mountinfo_has(mountinfo, merged))
		return 0;
	if (overlay_podman(true, NULL, &st, err, "fusermount3", "-u", "--", merged, NULL) < 0)
		return -1;
	if (st == 0)
		return 0;
	if (!lazy_ok)
		return 1;
	if (overlay_podman(true, NULL, &st, err, "fusermount3", "-u", "-z", "--", merged,
	    NULL) < 0)
		return -1;
	if (st != 0)
		return lz_err_set(err, EBUSY, "cannot unmount overlay '%s'", merged);
	return 0;
}

/* Every <root>/<name>/merged. */
static char **
overlay_list_merged(const char *root)
{
	char **v = NULL;
	struct dirent *e;
	DIR *d;

	if ((d = opendir(root)) == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *m = NULL;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		m = xasprintf("%s/%s/merged", root, e->d_name);
		if (lstat(m, &st) == 0 && S_ISDIR(st.st_mode))
			lz_strv_push(&v, m);
	}
	closedir(d);
	return v;
}

static int
overlay_dst_cmp(const void *x, const void *y)
{
	const struct drv_mount *a = x, *b = y;

	return strcmp(a->dst, b->dst);
}

/* After a mount of /etc: the runtime made mount points for the files podman
 * injects in the upper layer; drop them so no stale copy ever shows. */
static void
overlay_etc_scrub(const char *upper)
{
	size_t i;

	for (i = 0; i < sizeof overlay_etc_injected / sizeof overlay_etc_injected[0]; i++) {
		_cleanup_free_ char *f = xasprintf("%s/%s", upper, overlay_etc_injected[i]);
		struct stat st;

		if (lstat(f, &st) == 0 && !S_ISDIR(st.st_mode))
			(void)unlink(f);
	}
}

int
overlay_mount(const struct anchor *a, const char *image, char *const *dirs, size_t n,
    struct drv_mount **mounts, size_t *n_mounts, lz_err_t *err)
{
	_cleanup_free_ char *root = NULL, *id = NULL, *info = NULL;
	_cleanup_free_ char *old_id = NULL, *img = NULL;
	struct drv_mount *ms = NULL;
	size_t i, j, nm = 0;
	bool same_image;
	int st;

	*mounts = NULL;
	*n_mounts = 0;
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (overlay_dir_check(dirs[i], err) < 0)
			return -1;
		for (j = 0; j < i; j++)
			if (strcmp(dirs[i], dirs[j]) == 0)
				return lz_err_set(err, LZ_EINVAL, "persistent dir '%s' listed twice",
				    dirs[i]);
	}
	if (overlay_root(a, true, &root, err) < 0)
		return -1;
	if (sentry_path_check("overlay directory", root, false, err) < 0)
		return -1;
	if (overlay_podman(false, &id, NULL, err, "image", "inspect", "--format", "{{.Id}}",
	    image, NULL) < 0)
		return lz_err_wrap(err, "image '%s'", image);
	if (overlay_podman(true, &info, NULL, err, "cat", "/proc/self/mountinfo", NULL) < 0)
		return -1;
	overlay_state_read(root, &old_id, &img);
	same_image = old_id != NULL && strcmp(old_id, id) == 0 && img != NULL &&
	    overlay_mountinfo_has(info, img);
	if (!same_image) {
		char **merged = overlay_list_merged(root);
		int r = 0;

		/* Overlays over another (or a vanished) image mount go first;
		 * one a running container still uses stays, with its image
		 * (the new image applies from the next fresh start). */
		for (i = 0; r == 0 && merged != NULL && merged[i] != NULL; i++)
			r = overlay_umount_one(info, merged[i], false, err);
		lz_strv_free(merged);
		if (r < 0)
			return -1;
		if (r == 1 && img == NULL)
			return lz_err_set(err, EBUSY, "the overlays of domain %s are in use but "
			    "their image record is gone: stop the sandbox ('lazaret stop'), then "
			    "start again", a->hash);
		same_image = r == 1;
	}
	if (!same_image) {
		if (old_id != NULL)
			(void)overlay_podman(true, NULL, &st, NULL, "podman", "image", "unmount",
			    old_id, NULL);
		free(img);
		img = NULL;
		if (overlay_podman(true, &img, NULL, err, "podman", "image", "mount", image,
		    NULL) < 0)
			return -1;
		if (img[0] != '/' || strchr(img, '\n') != NULL)
			return lz_err_set(err, LZ_EINVAL, "podman image mount %s: unexpected "
			    "output '%s'", image, img);
		if (sentry_path_check("image mount", img, false, err) < 0 ||
		    overlay_state_write(root, id, img, err) < 0)
			return -1;
	}
	ms = xcalloc(n, sizeof *ms);
	for (i = 0; i < n; i++) {
		_cleanup_free_ char *name = overlay_dir_name(dirs[i]);
		_cleanup_free_ char *base = xasprintf("%s/%s", root, name);
		_cleanup_free_ char *upper = xasprintf("%s/upper", base);
		_cleanup_free_ char *work = xasprintf("%s/work", base);
		_cleanup_free_ char *merged = xasprintf("%s/merged", base);
		_cleanup_free_ char *opts = NULL;

		st = 1;
		if (overlay_mkdir(base, err) < 0 || overlay_mkdir(upper, err) < 0 ||
		    overlay_mkdir(work, err) < 0 || overlay_mkdir(merged, err) < 0)
			goto fail;
		if (same_image && overlay_mountinfo_has(info, merged)) {
			/* Reuse when the daemon still answers: statfs always asks it, stat may
			 * be answered from the kernel's attribute cache. */
			if (overlay_podman(true, NULL, &st, err, "stat", "-f", "-c", "%t", "--", merged,
			    NULL) < 0)
				goto fail;
			if (st != 0 && overlay_umount_one(info, merged, true, err) < 0)
				goto fail;
		}
		if (st != 0) {
			if (strcmp(dirs[i], "/etc") == 0)
				overlay_etc_scrub(upper);
			opts = xasprintf("lowerdir=%s%s,upperdir=%s,workdir=%s", img, dirs[i],
			    upper, work);
			if (overlay_podman(true, NULL, NULL, err, "fuse-overlayfs", "-o", opts,
			    merged, NULL) < 0) {
				lz_err_wrap(err, "persistent dir %s (is it a directory in %s?)",
				    dirs[i], image);
				goto fail;
			}
		}
		ms[nm].type = DRV_MOUNT_BIND;
		ms[nm].src = xstrdup(merged);
		ms[nm].dst = xstrdup(dirs[i]);
		ms[nm].ro = false;
		nm++;
	}
	/* Parents before children (/usr before /usr/local). */
	qsort(ms, nm, sizeof *ms, overlay_dst_cmp);
	*mounts = lz_steal_ptr(&ms);
	*n_mounts = nm;
	return 0;
fail:
	for (i = 0; i < nm; i++)
		drv_mount_clear(&ms[i]);
	free(ms);
	return -1;
}

int
overlay_unmount(const struct anchor *a, lz_err_t *err)
{
	_cleanup_free_ char *root = NULL, *info = NULL, *id = NULL, *img = NULL;
	_cleanup_free_ char *state = NULL;
	char **merged = NULL;
	int ret = -1, st;
	size_t i;

	if (overlay_root(a, false, &root, err) < 0)
		return -1;
	merged = overlay_list_merged(root);
	overlay_state_read(root, &id, &img);
	if (merged == NULL && id == NULL)
		return 0;
	if (overlay_podman(true, &info, NULL, err, "cat", "/proc/self/mountinfo", NULL) < 0)
		goto out;
	for (i = 0; merged != NULL && merged[i] != NULL; i++)
		if (overlay_umount_one(info, merged[i], true, err) < 0)
			goto out;
	if (id != NULL) {
		/* Ours only: another domain on this image holds its own count. */
		if (img != NULL && overlay_mountinfo_has(info, img))
			(void)overlay_podman(true, NULL, &st, NULL, "podman", "image", "unmount",
			    id, NULL);
		state = xasprintf("%s/image", root);
		if (unlink(state) < 0 && errno != ENOENT) {
			lz_err_sys(err, errno, "cannot remove '%s'", state);
			goto out;
		}
	}
	ret = 0;
out:
	lz_strv_free(merged);
	return ret;
}
