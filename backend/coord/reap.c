/* reap.c - clean up a domain whose coordinator is gone (see reap.h).
 *
 * Every step is idempotent and runs even when an earlier one failed, so a
 * second reap (the guard died half-way, `lazaret stop` after it) finishes
 * the job. The order follows the teardown's: containers first (the agent
 * stops before its mounts go), then overlays, the Git Sentry, sockets and
 * the TLS key, the record last (it is what makes a domain "dead").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coord/lock.h"
#include "coord/reap.h"
#include "escalation/esc-coord.h"
#include "jsonw.h"
#include "sandbox/limits.h"
#include "sandbox/mounts/overlay.h"
#include "sandbox/sentry/sentry.h"
#include "store/audit.h"
#include "strv.h"
#include "xmalloc.h"


static char *
reap_mark_path(const char *domain_root)
{
	return xasprintf("%s/" REAP_MARK_NAME, domain_root);
}

int
reap_mark(const struct anchor *a, lz_err_t *err)
{
	_cleanup_free_ char *path = reap_mark_path(a->domain_root);
	_cleanup_free_ char *tmp = xasprintf("%s.tmp", path);
	size_t lp = strlen(a->profile) + 1, lw = strlen(a->workspace) + 1;
	int fd, ok;

	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return lz_err_sys(err, errno, "cannot create %s", tmp);
	ok = write(fd, a->profile, lp) == (ssize_t)lp && write(fd, a->workspace, lw) == (ssize_t)lw;
	if (!ok || fsync(fd) < 0) {
		lz_err_sys(err, errno ? errno : EIO, "cannot write %s", tmp);
		close(fd);
		(void)unlink(tmp);
		return -1;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		lz_err_sys(err, errno, "cannot rename %s", tmp);
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

void
reap_unmark(const struct anchor *a)
{
	_cleanup_free_ char *path = reap_mark_path(a->domain_root);

	(void)unlink(path);
}

int
reap_mark_read(const char *domain_root, char **profile, char **workspace, lz_err_t *err)
{
	_cleanup_free_ char *path = reap_mark_path(domain_root);
	_cleanup_close_ int fd = -1;
	char buf[ANCHOR_RECORD_MAX + 1], hash[ANCHOR_HASH_LEN + 1];
	const char *base = strrchr(domain_root, '/');
	ssize_t n;

	*profile = *workspace = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) < 0)
		return lz_err_sys(err, errno, "%s", path);
	if ((n = read(fd, buf, sizeof buf)) < 0)
		return lz_err_sys(err, errno, "%s", path);
	if (anchor_record_parse(buf, (size_t)n, profile, workspace, err) < 0)
		return lz_err_wrap(err, "%s", path);
	anchor_hash(*profile, *workspace, hash);
	if (base == NULL || strcmp(base + 1, hash) != 0) {
		free(*profile);
		free(*workspace);
		*profile = *workspace = NULL;
		return lz_err_set(err, LZ_EINVAL, "%s: records a domain of another hash (%s)", path,
		    hash);
	}
	return 0;
}

static void
reap_step(lz_err_t *first, lz_err_t *e)
{
	if (first->msg == NULL) {
		*first = *e;
		*e = (lz_err_t)LZ_ERR_INIT;
	} else
		lz_err_clear(e);
}

/* One audit row in the dead coordinator's store (nobody else holds it now). */
static void
reap_audit(const struct anchor *a, const char *why, char *const *ctrs, const char *import,
    const char *failed)
{
	struct store *st = NULL;
	lz_err_t err = LZ_ERR_INIT;
	struct lz_jsonw w;
	struct audit_rec rec = { 0 };
	size_t i;

	if (access(a->state_db, F_OK) < 0)
		return;
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "why"); lz_jsonw_str(&w, why);
	lz_jsonw_key(&w, "containers");
	lz_jsonw_arr_open(&w);
	for (i = 0; ctrs != NULL && ctrs[i] != NULL; i++)
		lz_jsonw_str(&w, ctrs[i]);
	lz_jsonw_arr_close(&w);
	/* what the last import left out, as the coordinator's teardown audits it */
	if (import != NULL) {
		lz_jsonw_key(&w, "import"); lz_jsonw_str(&w, import);
	}
	lz_jsonw_key(&w, "complete"); lz_jsonw_bool(&w, failed == NULL);
	if (failed != NULL) {
		lz_jsonw_key(&w, "error"); lz_jsonw_str(&w, failed);
	}
	lz_jsonw_obj_close(&w);
	rec.kind = "domain.reap";
	rec.actor = "guard";
	rec.detail = w.buf;
	if (store_open(a->state_db, &st, &err) < 0 || audit_append(st, &rec, NULL, &err) < 0)
		fprintf(stderr, "lazaret: audit of the clean-up of domain %s: %s\n", a->hash,
		    err.msg);
	lz_err_clear(&err);
	store_close(st);
	lz_jsonw_free(&w);
}

int
reap_domain(const struct anchor *a, const struct drv_ops *drv, const char *why,
    lz_err_t *err)
{
	lz_err_t first = LZ_ERR_INIT, e = LZ_ERR_INIT;
	_cleanup_free_ char *label = xasprintf("lazaret.domain=%s", a->hash);
	char **ctrs = NULL;
	struct limits_host lh;
	char *note = NULL;
	struct stat st;
	size_t i;

	/* The control socket first: a client then sees "not running", not a hang. */
	if (lstat(a->ctl_socket, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == geteuid())
		(void)unlink(a->ctl_socket);
	/* Every container of the domain, whatever its name; and the two we know. */
	if (drv->list(label, &ctrs, &e) < 0)
		reap_step(&first, &e);
	if (!lz_strv_contains(ctrs, a->container))
		lz_strv_push(&ctrs, a->container);
	if (!lz_strv_contains(ctrs, a->sidecar))
		lz_strv_push(&ctrs, a->sidecar);
	for (i = 0; ctrs[i] != NULL; i++)
		if (drv->remove(ctrs[i], &e) < 0)
			reap_step(&first, &e);
	limits_host_probe(&lh);
	limits_domain_remove(&lh, a->hash);
	limits_host_clear(&lh);
	if (overlay_unmount(a, false, &e) < 0)
		reap_step(&first, &e);
	/* The agent's last commits imported, its refs scrubbed: what the
	 * coordinator's teardown would have done. */
	if (sentry_release(a, &note, &e) < 0)
		reap_step(&first, &e);
	if (note != NULL)
		fprintf(stderr, "lazaret: domain %s: %s\n", a->hash, note);
	if (esc_coord_reap(a) < 0) {
		lz_err_set(&e, EBUSY, "cannot remove the escalation socket or TLS files of "
		    "domain %s", a->hash);
		reap_step(&first, &e);
	}
	reap_audit(a, why, ctrs, note, first.msg);
	free(note);
	lz_strv_free(ctrs);
	if (first.msg != NULL) {
		*err = first;
		return lz_err_wrap(err, "cleaning up domain %s", a->hash);
	}
	reap_unmark(a);
	return 0;
}

/* Is anything of a's domain left that a reap would remove? */
static int
reap_left(const struct anchor *a, const struct drv_ops *drv, bool *left, lz_err_t *err)
{
	_cleanup_free_ char *mark = reap_mark_path(a->domain_root);
	_cleanup_free_ char *label = xasprintf("lazaret.domain=%s", a->hash);
	char **ctrs = NULL;

	*left = access(mark, F_OK) == 0;
	if (*left)
		return 0;
	if (drv->list(label, &ctrs, err) < 0)
		return -1;
	*left = ctrs != NULL && ctrs[0] != NULL;
	lz_strv_free(ctrs);
	return 0;
}

int
reap_if_dead(const struct anchor *a, const struct drv_ops *drv, int wait_ms, lz_err_t *err)
{
	_cleanup_free_ char *live = lock_live_path(a);
	_cleanup_close_ int fd = -1;
	bool left;
	int r;

	if (reap_left(a, drv, &left, err) < 0)
		return -1;
	if (!left)
		return 0;
	if (lock_open(live, &fd, err) < 0)
		return -1;
	/* A guard reaping holds it for a few seconds; a live coordinator for good. */
	if ((r = lock_wait(fd, wait_ms, err)) < 0)
		return -1;
	if (r == 0)
		return lz_err_set(err, EBUSY, "the coordinator of domain %s is running (it holds %s)",
		    a->hash, live);
	/* The guard may have finished while we waited. */
	if (reap_left(a, drv, &left, err) < 0)
		return -1;
	if (!left)
		return 0;
	if (reap_domain(a, drv, "lazaret stop: the coordinator had died", err) < 0)
		return -1;
	return 1;
}

/* Is the lifetime lock of a free (no coordinator, no guard reaping)? */
static bool
reap_lock_free(const struct anchor *a)
{
	_cleanup_free_ char *live = lock_live_path(a);
	_cleanup_close_ int fd = open(live, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 || lock_try(fd, NULL) == 1;
}

int
reap_each_dead(const char *data_root, const char *socket_dir, reap_dead_cb cb, void *arg,
    lz_err_t *err)
{
	_cleanup_free_ char *dir = xasprintf("%s/domains", data_root);
	struct dirent **ents = NULL;
	int i, k, ret = 0;

	if ((k = scandir(dir, &ents, NULL, alphasort)) < 0) {
		if (errno == ENOENT)
			return 0;
		return lz_err_sys(err, errno, "cannot read %s", dir);
	}
	for (i = 0; i < k; i++) {
		_cleanup_free_ char *root = xasprintf("%s/%s", dir, ents[i]->d_name);
		char *profile = NULL, *workspace = NULL;
		struct anchor *a = NULL;
		lz_err_t e = LZ_ERR_INIT;

		if (ret == 0 && ents[i]->d_name[0] != '.' &&
		    reap_mark_read(root, &profile, &workspace, &e) == 0 &&
		    anchor_recorded(profile, workspace, data_root, socket_dir, &a, &e) == 0 &&
		    reap_lock_free(a))
			ret = cb(a, arg);
		lz_err_clear(&e);
		anchor_free(a);
		free(profile);
		free(workspace);
		free(ents[i]);
	}
	free(ents);
	return ret;
}
