/* sentry-guard.c - what in the checkout host git would obey, kept
 * read-only in the sandbox, and every .git the agent makes taken away.
 *
 * Host git obeys files inside a working tree: a core.hooksPath pointing
 * into it (husky's .husky) runs on the user's next commit, a config
 * include.path into it is read as config, and any `.git` below the top
 * level is a repository whose config host git honours when the user runs
 * `git status` there or in the superproject (core.fsmonitor = a command).
 * So, in both modes:
 *
 *  - hooksPath and include targets in the tree get a read-only bind (a
 *    tmpfs or the empty file while they do not exist);
 *  - every `.git` found below the top level, at any depth, gets a
 *    read-only bind over itself (and a tmpfs over its hooks). The walk has
 *    no depth limit; it is bounded by SENTRY_WALK_ENTRIES entries and
 *    SENTRY_WALK_MS, and when either is hit lazaret refuses to start
 *    (fail closed) instead of leaving a repository writable;
 *  - every submodule path (gitlink) without a .git gets a read-only
 *    placeholder: an empty read-only directory over the (empty) submodule
 *    directory, or an empty read-only file at <path>/.git, so `git init`
 *    there fails;
 *  - at release (and, in isolated mode, at the next prepare after a crash)
 *    any `.git` that was not there at prepare is moved to
 *    <dr>/quarantine/<time>/<path> and reported, never left in the user's
 *    tree or the agent's checkout.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "strv.h"
#include "xmalloc.h"


struct sentry_job *
sentry_guard_config_start(const struct sentry_repo *r)
{
	return sentry_git_start(r->top, "config", "-z", "--show-origin", "--get-regexp",
	    SENTRY_CONFIG_RE, NULL);
}

/* One git (job, sentry_guard_config_start's) for what three config reads
 * told: core.hooksPath as git in the checkout reads it (every scope, the
 * last wins), the include paths G's own config names (its entries told by
 * --show-origin, as `git config --file G/config` listed them), and
 * user.email for the agent's identity (*email: "" when none). */
static int
sentry_guard_config(const struct sentry_repo *r, struct sentry_job *job, const char *view,
    char **hooks, char ***incs, char **email, lz_err_t *err)
{
	_cleanup_free_ char *out = NULL, *cfg = xasprintf("%s/config", r->common);
	_cleanup_free_ char *real = realpath(cfg, NULL);
	struct sentry_cfgz c;
	const char *pos, *val;
	size_t len = 0;
	int st;

	*hooks = NULL;
	*incs = NULL;
	*email = xstrdup("");
	if (sentry_git_finish(job, &out, &len, &st, err) < 0)
		return -1;
	/* 1 is "none set"; anything else fails with git's message. */
	if (st != 0 && st != 1) {
		if (sentry_git(r->top, NULL, NULL, err, "config", "-z", "--show-origin",
		    "--get-regexp", SENTRY_CONFIG_RE, NULL) == 0)
			lz_err_set(err, LZ_EINVAL, "git config in '%s' failed (exit %d)", r->top, st);
		return -1;
	}
	/* The same records give the agent its view of the host's settings. */
	if (view != NULL && sentry_hostview_config(view, st == 0 ? out : NULL, len, err) < 0)
		return -1;
	for (pos = out; st == 0 && sentry_cfgz_next(&pos, out + len, &c);) {
		val = c.value != NULL ? c.value : "";
		if (c.klen == 14 && strncmp(c.key, "core.hookspath", 14) == 0) {
			free(*hooks);
			*hooks = xstrdup(val);
		} else if (c.klen == 10 && strncmp(c.key, "user.email", 10) == 0) {
			free(*email);
			*email = xstrdup(val);
		} else if (real != NULL && strncmp(c.origin, "file:", 5) == 0 &&
		    c.klen > 7 && strncmp(c.key, "include", 7) == 0) {
			_cleanup_free_ char *f = c.origin[5] == '/' ? xstrdup(c.origin + 5) :
			    xasprintf("%s/%s", r->top, c.origin + 5);
			_cleanup_free_ char *fr = realpath(f, NULL);

			if (fr != NULL && strcmp(fr, real) == 0 && *val != '\0')
				lz_strv_push(incs, val);
		}
	}
	return 0;
}

/* What the checkout itself holds that host git obeys: a core.hooksPath in
 * the working tree (husky's .husky, .githooks) runs on the user's next
 * commit, a config include.path into it (direct mode) is read as config.
 * Each gets a read-only bind over its /workspace copy (a tmpfs or the empty
 * file when it does not exist yet, so the agent cannot create it). */
int
sentry_tree_guards(struct sentry_layout *l, const struct sentry_repo *r, const char *checkout,
    const char *empty, const char *view, struct sentry_job *config, lz_err_t *err)
{
	_cleanup_free_ char *hooks = NULL;
	char **incs = NULL;
	int ret = -1;

	if (sentry_guard_config(r, config, view, &hooks, &incs, &l->user_email, err) < 0)
		goto out;
	if (hooks != NULL && *hooks != '\0') {
		_cleanup_free_ char *h = sentry_resolve(checkout, hooks);
		const char *rel = h != NULL ? sentry_below(checkout, h) : NULL;
		struct stat sb;

		if (rel != NULL && strcmp(rel, ".git") != 0 && strncmp(rel, ".git/", 5) != 0) {
			_cleanup_free_ char *dst = xasprintf(SENTRY_WORKSPACE_DST "/%s", rel);

			if (sentry_path_check("core.hooksPath", h, true, err) < 0)
				goto out;
			if (stat(h, &sb) < 0)
				sentry_push_mount(l, DRV_MOUNT_TMPFS, NULL, dst, false, NULL);
			else if (S_ISDIR(sb.st_mode))
				sentry_bind(l, h, dst, true);
		}
	}
	for (size_t i = 0; incs != NULL && incs[i] != NULL; i++) {
		_cleanup_free_ char *f = NULL, *dst = NULL;
		const char *rel;
		struct stat sb;

		if ((f = sentry_resolve(r->common, incs[i])) == NULL ||
		    (rel = sentry_below(checkout, f)) == NULL ||
		    strcmp(rel, ".git") == 0 || strncmp(rel, ".git/", 5) == 0)
			continue;
		if (sentry_path_check("include.path", f, true, err) < 0)
			goto out;
		dst = xasprintf(SENTRY_WORKSPACE_DST "/%s", rel);
		if (stat(f, &sb) < 0)
			sentry_bind(l, empty, dst, true);
		else if (S_ISREG(sb.st_mode))
			sentry_bind(l, f, dst, true);
	}
	ret = 0;
out:
	lz_strv_free(incs);
	return ret;
}

/* Below modules/: a directory is either a submodule gitdir (it has HEAD) or
 * one level of a submodule name holding '/'. */
void
sentry_modules_walk(struct sentry_layout *l, const char *src, const char *dst, int depth)
{
	struct dirent *e;
	DIR *d;

	if (depth > SENTRY_MODULES_DEPTH || (d = opendir(src)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *s = NULL, *t = NULL, *head = NULL;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		s = xasprintf("%s/%s", src, e->d_name);
		if (!sentry_is_dir(s))
			continue;
		t = xasprintf("%s/%s", dst, e->d_name);
		head = xasprintf("%s/HEAD", s);
		if (access(head, F_OK) == 0)
			sentry_hooks(l, s, t, depth + 1);
		else
			sentry_modules_walk(l, s, t, depth + 1);
	}
	closedir(d);
}

/* Empty tmpfs over gitdir src's hooks/ (shown at dst) and over those of the
 * submodule gitdirs below its modules/. A hooks/ that does not exist needs
 * none: the read-only mount keeps the agent from creating it. */
void
sentry_hooks(struct sentry_layout *l, const char *src, const char *dst, int depth)
{
	_cleanup_free_ char *hooks = xasprintf("%s/hooks", src);
	_cleanup_free_ char *mods = xasprintf("%s/modules", src);
	_cleanup_free_ char *hdst = xasprintf("%s/hooks", dst);
	_cleanup_free_ char *mdst = xasprintf("%s/modules", dst);

	if (sentry_is_dir(hooks) && sentry_path_check("hooks", hdst, true, NULL) == 0)
		sentry_push_mount(l, DRV_MOUNT_TMPFS, NULL, hdst, false, NULL);
	sentry_modules_walk(l, mods, mdst, depth);
}


/* Visit every entry named ".git" below tree (not tree/.git itself), at any
 * depth, without following symlinks; cb gets its path relative to tree and
 * its lstat. -1 with err when the walk hits its bounds. */
typedef int (*sentry_git_cb)(const char *rel, const struct stat *st, void *arg, lz_err_t *err);

struct sentry_gits {
	sentry_git_cb cb;
	void *arg;
};

static int
sentry_gits_cb(int dirfd, const char *name, const char *rel, const struct stat *st, void *arg,
    lz_err_t *err)
{
	struct sentry_gits *g = arg;

	(void)dirfd;
	if (strcmp(name, ".git") == 0)
		return strcmp(rel, ".git") == 0 ? 0 : g->cb(rel, st, g->arg, err);
	return SENTRY_WALK_INTO;
}

static int
sentry_walk_gits(const char *tree, sentry_git_cb cb, void *arg, lz_err_t *err)
{
	struct sentry_gits g = { cb, arg };
	bool cut;

	if (sentry_walk(tree, SENTRY_WALK_ENTRIES, sentry_now_ms() + SENTRY_WALK_MS,
	    sentry_gits_cb, &g, &cut, err) < 0)
		return -1;
	if (cut)
		return lz_err_set(err, E2BIG, "'%s' is too large to search for nested git "
		    "repositories (stopped after %d entries or %d s): lazaret cannot keep them "
		    "read-only, so it does not start; choose a smaller workspace", tree,
		    SENTRY_WALK_ENTRIES, SENTRY_WALK_MS / 1000);
	return 0;
}

struct sentry_guard {
	struct sentry_layout *l;
	const char *tree;
	char *list;		/* the .git paths found, one a line */
	size_t found;
};

static int
sentry_guard_cb(const char *rel, const struct stat *st, void *arg, lz_err_t *err)
{
	struct sentry_guard *g = arg;
	_cleanup_free_ char *s = xasprintf("%s/%s", g->tree, rel);
	_cleanup_free_ char *t = xasprintf(SENTRY_WORKSPACE_DST "/%s", rel);
	char *n;

	n = xasprintf("%s%s\n", g->list, rel);
	free(g->list);
	g->list = n;
	if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
		return 0;	/* a symlink .git is quarantined at release */
	if (sentry_path_check("nested git repository", s, true, err) < 0)
		return -1;
	sentry_bind(g->l, s, t, true);
	if (S_ISDIR(st->st_mode))
		sentry_hooks(g->l, s, t, 0);
	g->found++;
	return 0;
}

/* Submodule paths of the tree shown at /workspace: gitlinks of the agent
 * branch (isolated, branch set) or of the host's index (direct), started
 * (sentry_git_finish gives the list). */
static struct sentry_job *
sentry_gitlinks_start(const struct sentry_repo *r, const char *tree, const char *branch)
{
	if (branch != NULL) {
		_cleanup_free_ char *t = xasprintf("refs/heads/%s^{tree}", branch);

		return sentry_git_start(r->common, "ls-tree", "-r", "-z", "--full-tree", t, NULL);
	}
	return sentry_git_start(tree, "ls-files", "-s", "-z", NULL);
}

/* Guard every nested .git and submodule path of tree (at /workspace); the
 * list of what was found goes to <sdir>/gits for the quarantine. */
int
sentry_guard_gits(struct sentry_layout *l, const struct sentry_paths *p, const char *tree,
    const struct sentry_repo *r, const char *branch, lz_err_t *err)
{
	struct sentry_guard g = { l, tree, xstrdup(""), 0 };
	/* git lists the gitlinks while we walk the tree. */
	struct sentry_job *lj = r != NULL ? sentry_gitlinks_start(r, tree, branch) : NULL;
	_cleanup_free_ char *links = NULL, *listf = xasprintf("%s/gits", p->sdir);
	_cleanup_free_ char *emptydir = xasprintf("%s/emptydir", p->sdir);
	_cleanup_free_ char *empty = xasprintf("%s/empty", p->sdir);
	size_t placeholders = 0, nlinks = 0;
	int ret = -1;

	if (sentry_walk_gits(tree, sentry_guard_cb, &g, err) < 0)
		goto out;
	if (sentry_git_finish(lz_steal_ptr(&lj), &links, &nlinks, NULL, err) < 0)
		goto out;
	if (mkdir(emptydir, 0555) < 0 && errno != EEXIST) {
		lz_err_sys(err, errno, "cannot create '%s'", emptydir);
		goto out;
	}
	for (const char *e = links; e != NULL && e < links + nlinks; e += strlen(e) + 1) {
		/* "<mode> <type|sha> ...\t<path>": mode 160000 is a gitlink. */
		const char *tab = strchr(e, '\t');
		_cleanup_free_ char *dir = NULL, *dotgit = NULL, *dst = NULL;
		struct stat st;

		if (tab == NULL || strncmp(e, "160000 ", 7) != 0)
			continue;
		dir = xasprintf("%s/%s", tree, tab + 1);
		dotgit = xasprintf("%s/.git", dir);
		if (lstat(dotgit, &st) == 0 || sentry_path_check("submodule path", dir, true,
		    err) < 0) {
			if (err != NULL && err->msg != NULL)
				goto out;
			continue;
		}
		if (sentry_dir_missing_or_empty(dir)) {
			dst = xasprintf(SENTRY_WORKSPACE_DST "/%s", tab + 1);
			sentry_bind(l, emptydir, dst, true);
		} else {
			dst = xasprintf(SENTRY_WORKSPACE_DST "/%s/.git", tab + 1);
			sentry_bind(l, empty, dst, true);
		}
		placeholders++;
	}
	if (sentry_write_file(listf, g.list, 0600, err) < 0)
		goto out;
	if (g.found > 0)
		sentry_notice_add(&l->notice, xasprintf("%zu nested git repositor%s read-only in "
		    "the sandbox", g.found, g.found == 1 ? "y" : "ies"));
	if (placeholders > 0)
		sentry_notice_add(&l->notice, xasprintf("%zu submodule path(s) without a "
		    "checkout held read-only", placeholders));
	ret = 0;
out:
	(void)sentry_git_finish(lj, NULL, NULL, NULL, NULL);
	free(g.list);
	return ret;
}

struct sentry_q {
	const struct sentry_paths *p;
	const char *tree;
	char *known;		/* "\n"-wrapped list from prepare */
	char *dest;		/* quarantine/<time> */
	char *first;
	size_t moved;
};

static int
sentry_quarantine_cb(const char *rel, const struct stat *st, void *arg, lz_err_t *err)
{
	struct sentry_q *q = arg;
	_cleanup_free_ char *key = xasprintf("\n%s\n", rel);
	_cleanup_free_ char *src = xasprintf("%s/%s", q->tree, rel);
	_cleanup_free_ char *dst = NULL, *parent = NULL;

	if (strstr(q->known, key) != NULL)
		return 0;
	/* An empty placeholder file runsc made as a mount point: ours. */
	if (S_ISREG(st->st_mode) && st->st_size == 0) {
		(void)unlink(src);
		return 0;
	}
	dst = xasprintf("%s/%s", q->dest, rel);
	parent = xstrdup(rel);
	*strrchr(parent, '/') = '\0';
	if (sentry_mkdirs("", q->dest + 1, 0700, err) < 0 ||
	    sentry_mkdirs(q->dest, parent, 0700, err) < 0)
		return -1;
	if (rename(src, dst) < 0)
		return lz_err_sys(err, errno, "cannot quarantine '%s'", src);
	if (q->first == NULL)
		q->first = xstrdup(rel);
	q->moved++;
	return 0;
}

/* Move every .git below tree that prepare did not see to the quarantine. */
int
sentry_quarantine(const struct sentry_paths *p, const char *tree, char **report, lz_err_t *err)
{
	_cleanup_free_ char *listf = xasprintf("%s/gits", p->sdir), *list = NULL;
	struct sentry_q q = { p, tree, NULL, NULL, NULL, 0 };
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];
	int ret;

	if (sentry_read_raw(listf, &list, &(size_t){ 0 }, NULL) < 0)
		list = xstrdup("");
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	q.known = xasprintf("\n%s", list);
	q.dest = xasprintf("%s/%s", p->quarantine, stamp);
	ret = sentry_walk_gits(tree, sentry_quarantine_cb, &q, err);
	if (q.moved > 0 && report != NULL)
		*report = xasprintf("quarantined %zu .git the agent created (first: %s) in '%s'",
		    q.moved, q.first, q.dest);
	free(q.known);
	free(q.dest);
	free(q.first);
	return ret;
}
