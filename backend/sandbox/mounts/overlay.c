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
 * State: <domain_root>/overlay/image records the image (id, mount path, the
 * name it was found by, whether this domain holds a mount of it).
 * overlay_mount reuses a merged dir that is mounted, answers stat (a dead
 * daemon gives ENOTCONN) and sits on the same image; anything else is
 * unmounted and made again, which is also how a rebuilt image becomes the
 * new lower layer (spec 4.1 "Base Image Update Inheritance") while the
 * upper layer is kept. The image mount is refcounted by containers/storage,
 * so we take it once per domain and release it once (no --force: another
 * domain on the same image keeps its own).
 *
 * Warm start without podman: a sandbox's teardown keeps the image mounted
 * (only `lazaret debug unmount` and an image change release it; `podman
 * rmi` still works, it unmounts). The next start reads podman's mount table
 * from /proc/PAUSE/mountinfo and the name -> (id, top layer) map from
 * containers/storage's own images.json (rewritten, as a new file, by every
 * tag, build, pull and removal); when ref names an image there whose mount
 * <graphroot>/overlay/<layer>/merged is in the table, neither `podman image
 * inspect` nor `podman image mount` runs. A short name, another storage
 * driver, an image not mounted or an unreadable file: podman decides, as
 * before. Nothing of this is in the sandbox: <domain_root>/overlay/image is
 * beside the upper/work/merged dirs, never under them.
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

#include "sandbox/rootless/mountinfo.h"
#include "sandbox/mounts/overlay.h"
#include "sandbox/rootless/overlay-images.h"
#include "sandbox/rootless/pause.h"
#include "sandbox/rootless/storage.h"
#include "host/proc.h"
#include "sandbox/sentry/sentry.h"
#include "strv.h"
#include "trace.h"
#include "xmalloc.h"

#define OVERLAY_STATE_MAX 8192

/* Files podman injects into /etc (spec 4.1 compatibility exclusion), and
 * Lazaret's own ld.so.preload (sandbox/mounts/preload.h). */
static const char *const overlay_etc_injected[] = { "resolv.conf", "hosts", "hostname",
    "ld.so.preload" };

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

/* The image ref stands for and its mount, known without podman: ref named
 * in the storage's own images file (<G>/overlay-images/images.json, G from
 * the record's mount path hint or else from an overlay mount in podman's
 * namespace) and that image's mount (G/overlay/<layer>/merged) present in
 * mountinfo info. Returns 1 with *id and *path set, 0 when podman must be
 * asked (a short name, another storage driver, not mounted, any doubt). */
static int
overlay_image_local(const char *info, const char *ref, const char *hint, char **id, char **path)
{
	char hid[OVERLAY_IMAGES_ID_LEN + 1], layer[OVERLAY_IMAGES_ID_LEN + 1];
	_cleanup_free_ char *g = NULL, *mp = NULL;

	if (!overlay_images_ref_ok(ref))
		return 0;
	if (hint != NULL)
		g = storage_graphroot_of(hint);
	if (g == NULL)
		g = storage_graphroot(info);
	if (g == NULL || storage_lookup(g, "images", ref, hid, layer) != 1)
		return 0;
	mp = xasprintf("%s/overlay/%s/merged", g, layer);
	if (!mountinfo_has(info, mp))
		return 0;
	*id = xstrdup(hid);
	*path = lz_steal_ptr(&mp);
	return 1;
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
	if (!unshare || pause_exec_prefix(&argv) < 0) {
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

/* The merged dir takes its root's owner and mode from the upper dir, which
 * we made (root in the sandbox): while nothing is kept in it, give it the
 * image dir's (an agent user's ~/.claude stays the agent's), once (a mark
 * beside it, so a warm start runs nothing). */
static int
overlay_upper_owner(const char *img, const char *dir, const char *base, const char *upper,
    lz_err_t *err)
{
	_cleanup_free_ char *ref = xasprintf("--reference=%s%s", img, dir);
	_cleanup_free_ char *mark = xasprintf("%s/owner-set", base);
	struct dirent *de;
	bool empty = true;
	DIR *d;
	int fd;

	if (access(mark, F_OK) == 0)
		return 0;
	if ((d = opendir(upper)) == NULL)
		return lz_err_sys(err, errno, "cannot read '%s'", upper);
	while (empty && (de = readdir(d)) != NULL)
		empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
	closedir(d);
	if (!empty)
		return 0;
	if (overlay_podman(true, NULL, NULL, err, "chown", ref, "--", upper, NULL) < 0 ||
	    overlay_podman(true, NULL, NULL, err, "chmod", ref, "--", upper, NULL) < 0)
		return lz_err_wrap(err, "persistent dir %s (is it a directory in the image?)", dir);
	if ((fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) >= 0)
		close(fd);
	return 0;
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

/* The image record, <root>/image: "ID\nPATH\nREF\nHELD\n": the image's id,
 * its mount in podman's namespace, the name it was found by, and "held"
 * when this domain took a mount of it (`podman image mount`, released with
 * `podman image unmount`) or "borrowed" when it used one already there. An
 * older Lazaret wrote the first two lines only (it always held). */
struct overlay_rec {
	char *id, *path, *ref;
	bool held;
};

static void
overlay_rec_clear(struct overlay_rec *r)
{
	free(r->id);
	free(r->path);
	free(r->ref);
	memset(r, 0, sizeof *r);
}

static void
overlay_rec_read(const char *root, struct overlay_rec *r)
{
	_cleanup_free_ char *f = xasprintf("%s/image", root);
	char buf[OVERLAY_STATE_MAX + 1], *line[4] = { NULL }, *p, *nl;
	_cleanup_close_ int fd = -1;
	ssize_t n;
	int i;

	memset(r, 0, sizeof *r);
	if ((fd = open(f, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	if ((n = read(fd, buf, OVERLAY_STATE_MAX)) <= 0)
		return;
	buf[n] = '\0';
	for (i = 0, p = buf; i < 4 && (nl = strchr(p, '\n')) != NULL; i++, p = nl + 1) {
		*nl = '\0';
		line[i] = p;
	}
	if (i < 2)
		return;
	r->id = xstrdup(line[0]);
	r->path = xstrdup(line[1]);
	r->ref = line[2] != NULL ? xstrdup(line[2]) : NULL;
	r->held = line[3] == NULL || strcmp(line[3], "borrowed") != 0;
}

static int
overlay_rec_write(const char *root, const struct overlay_rec *r, lz_err_t *err)
{
	_cleanup_free_ char *f = xasprintf("%s/image", root);
	_cleanup_free_ char *tmp = xasprintf("%s/image.tmp", root);
	_cleanup_free_ char *txt = xasprintf("%s\n%s\n%s\n%s\n", r->id, r->path,
	    r->ref != NULL ? r->ref : "", r->held ? "held" : "borrowed");
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

	if (!mountinfo_has(mountinfo, merged))
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
	_cleanup_free_ char *img = NULL, *local_img = NULL;
	struct overlay_rec rec = { 0 };
	struct drv_mount *ms = NULL;
	size_t i, j, nm = 0;
	bool same_image, local;
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
	overlay_rec_read(root, &rec);
	/* Read directly when the pause process is known: no process at all. */
	if ((info = pause_mountinfo()) == NULL &&
	    overlay_podman(true, &info, NULL, err, "cat", "/proc/self/mountinfo", NULL) < 0)
		goto fail;
	/* Warm: podman's images file names the image and it is mounted already
	 * (kept mounted after the last sandbox on it); else podman decides. */
	local = overlay_image_local(info, image, rec.path, &id, &local_img) == 1;
	if (!local && overlay_podman(false, &id, NULL, err, "image", "inspect", "--format",
	    "{{.Id}}", image, NULL) < 0) {
		lz_err_wrap(err, "image '%s'", image);
		goto fail;
	}
	lz_trace("overlays: image id, %s", local ? "images.json" : "podman");
	img = rec.path != NULL ? xstrdup(rec.path) : NULL;
	same_image = rec.id != NULL && strcmp(rec.id, id) == 0 && img != NULL &&
	    mountinfo_has(info, img);
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
			goto fail;
		if (r == 1 && img == NULL) {
			lz_err_set(err, EBUSY, "the overlays of domain %s are in use but their "
			    "image record is gone: stop the sandbox ('lazaret stop'), then start "
			    "again", a->hash);
			goto fail;
		}
		same_image = r == 1;
	}
	if (!same_image) {
		struct overlay_rec nrec = { id, NULL, (char *)image, !local };

		if (rec.id != NULL && rec.held)
			(void)overlay_podman(true, NULL, &st, NULL, "podman", "image", "unmount",
			    rec.id, NULL);
		free(img);
		img = NULL;
		if (local)
			img = lz_steal_ptr(&local_img);
		else if (overlay_podman(true, &img, NULL, err, "podman", "image", "mount", image,
		    NULL) < 0)
			goto fail;
		if (img[0] != '/' || strchr(img, '\n') != NULL) {
			lz_err_set(err, LZ_EINVAL, "podman image mount %s: unexpected output '%s'",
			    image, img);
			goto fail;
		}
		nrec.path = img;
		if (sentry_path_check("image mount", img, false, err) < 0 ||
		    overlay_rec_write(root, &nrec, err) < 0)
			goto fail;
		lz_trace("overlays: image %s", local ? "mounted already" : "mount, podman");
	} else if (rec.ref == NULL || strcmp(rec.ref, image) != 0) {
		/* A record of an older Lazaret: add the name the image is found by. */
		free(rec.ref);
		rec.ref = xstrdup(image);
		if (overlay_rec_write(root, &rec, err) < 0)
			goto fail;
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
		if (overlay_upper_owner(img, dirs[i], base, upper, err) < 0)
			goto fail;
		if (same_image && mountinfo_has(info, merged)) {
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
	overlay_rec_clear(&rec);
	return 0;
fail:
	for (i = 0; i < nm; i++)
		drv_mount_clear(&ms[i]);
	free(ms);
	overlay_rec_clear(&rec);
	return -1;
}

char *
overlay_image_mount(const struct anchor *a)
{
	_cleanup_free_ char *root = NULL;
	struct overlay_rec rec = { 0 };
	char *path;

	if (overlay_root(a, false, &root, NULL) < 0)
		return NULL;
	overlay_rec_read(root, &rec);
	path = lz_steal_ptr(&rec.path);
	overlay_rec_clear(&rec);
	return path;
}

int
overlay_unmount(const struct anchor *a, bool release_image, lz_err_t *err)
{
	_cleanup_free_ char *root = NULL, *info = NULL, *state = NULL;
	struct overlay_rec rec = { 0 };
	char **merged = NULL;
	int ret = -1, st;
	size_t i;

	if (overlay_root(a, false, &root, err) < 0)
		return -1;
	merged = overlay_list_merged(root);
	overlay_rec_read(root, &rec);
	if (merged == NULL && (rec.id == NULL || !release_image)) {
		ret = 0;
		goto out;
	}
	if ((info = pause_mountinfo()) == NULL &&
	    overlay_podman(true, &info, NULL, err, "cat", "/proc/self/mountinfo", NULL) < 0)
		goto out;
	for (i = 0; merged != NULL && merged[i] != NULL; i++)
		if (overlay_umount_one(info, merged[i], true, err) < 0)
			goto out;
	if (rec.id != NULL && release_image) {
		/* Ours only: another domain on this image holds its own count. */
		if (rec.held && mountinfo_has(info, rec.path))
			(void)overlay_podman(true, NULL, &st, NULL, "podman", "image", "unmount",
			    rec.id, NULL);
		state = xasprintf("%s/image", root);
		if (unlink(state) < 0 && errno != ENOENT) {
			lz_err_sys(err, errno, "cannot remove '%s'", state);
			goto out;
		}
	}
	ret = 0;
out:
	lz_strv_free(merged);
	overlay_rec_clear(&rec);
	return ret;
}
