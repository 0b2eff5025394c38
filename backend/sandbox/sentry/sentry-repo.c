/* sentry-repo.c - the host repository as the Sentry finds it, and the
 * agent's private repository it makes.
 *
 * The private gitdir P (<dr>/git) is created by Lazaret: its config, HEAD
 * and objects/info/alternates (one line, the neutral in-sandbox path of the
 * host's read-only object dir) are ours when made and repaired at every
 * prepare; after that it is the agent's to write. Lazaret writes into it
 * only with openat(O_NOFOLLOW) on every component, and only data: the
 * agent's main-line ref (first session), the empty refs/remotes/host
 * (the mount point of the host's branches, sentry-hostview.c), the
 * include of the host's settings atop its config, HEAD when it no longer names a branch, and an index built by
 * host git with GIT_INDEX_FILE (never git run with P as its gitdir).
 *
 * The isolated checkout C (<dr>/lazaret-<H>) is filled by host git from
 * the host's copy of the agent branch (`read-tree --reset -u`, index into
 * P/index), when it is first made and whenever it was deleted. On the host,
 * C/.git is an empty directory (the mount point of P): host git run in C
 * finds no repository there instead of obeying the agent's config.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "strv.h"
#include "xmalloc.h"

void
sentry_repo_clear(struct sentry_repo *r)
{
	free(r->top);
	free(r->gitdir);
	free(r->common);
	memset(r, 0, sizeof *r);
}

void
sentry_paths_clear(struct sentry_paths *p)
{
	free(p->dr);
	free(p->priv);
	free(p->checkout);
	free(p->sdir);
	free(p->shadow);
	free(p->quarantine);
	free(p->view);
	memset(p, 0, sizeof *p);
}

int
sentry_paths_init(const struct anchor *a, bool create, struct sentry_paths *p, lz_err_t *err)
{
	memset(p, 0, sizeof *p);
	if (create && sentry_mkdirs("", a->domain_root + 1, 0700, err) < 0)
		return -1;
	if ((p->dr = realpath(a->domain_root, NULL)) == NULL)
		return lz_err_sys(err, errno, "domain root '%s'", a->domain_root);
	if (sentry_path_check("domain root", p->dr, true, err) < 0) {
		sentry_paths_clear(p);
		return -1;
	}
	p->priv = xasprintf("%s/git", p->dr);
	p->checkout = xasprintf("%s/lazaret-%s", p->dr, a->hash);
	p->sdir = xasprintf("%s/sentry", p->dr);
	p->shadow = xasprintf("%s/import", p->sdir);
	p->quarantine = xasprintf("%s/quarantine", p->dr);
	p->view = xasprintf("%s/host-view", p->dr);
	return 0;
}

/* The host repository the domain was prepared for (<sdir>/host-git, ours). */
int
sentry_host_common(const struct sentry_paths *p, struct sentry_repo *r, lz_err_t *err)
{
	_cleanup_free_ char *f = xasprintf("%s/host-git", p->sdir), *txt = NULL;
	char *nl;

	memset(r, 0, sizeof *r);
	if (sentry_read_small(f, &txt, err) < 0)
		return -1;
	if ((nl = strchr(txt, '\n')) == NULL || (strcmp(nl + 1, "40") != 0 &&
	    strcmp(nl + 1, "64") != 0))
		return lz_err_set(err, LZ_EINVAL, "'%s': not written by lazaret", f);
	*nl = '\0';
	r->common = xstrdup(txt);
	r->hexlen = (unsigned)atoi(nl + 1);
	return 0;
}

/* Could git find a repository above ws (a .git, or a git directory's HEAD,
 * in some parent)? Only then can ws be a submodule checkout. */
static bool
sentry_repo_above(const char *ws)
{
	_cleanup_free_ char *d = xstrdup(ws);
	char *slash;
	struct stat st;

	while ((slash = strrchr(d, '/')) != NULL) {
		_cleanup_free_ char *g = NULL, *h = NULL;

		*slash = '\0';
		g = xasprintf("%s/.git", d);
		h = xasprintf("%s/HEAD", d);
		if (lstat(g, &st) == 0 || lstat(h, &st) == 0)
			return true;
	}
	return false;
}

/* One git for what four rev-parse calls would tell, a line each: bare?,
 * inside .git?, object format, top level, git dir, common dir, the
 * superproject (a submodule's only), HEAD's commit (exit 1 when none).
 * The superproject costs git a second process (ls-files in ..): asked only
 * when a repository above could be one (else the NULL ends the list). */
struct sentry_job *
sentry_probe_start(const char *ws)
{
	return sentry_git_start(ws, "rev-parse", "--is-bare-repository",
	    "--is-inside-git-dir", "--path-format=absolute", "--show-object-format",
	    "--show-toplevel", "--git-dir", "--git-common-dir", "--verify", "-q",
	    "HEAD^{commit}", sentry_repo_above(ws) ? "--show-superproject-working-tree" : NULL,
	    NULL);
}

/* Probe the workspace (job: sentry_probe_start's, taken; NULL: started
 * now). Returns 1 when it is the top of a git checkout (r filled), 0 when
 * it is no git checkout, -1 on error. */
int
sentry_probe(const char *ws, struct sentry_job *job, struct sentry_repo *r, char **notice,
    lz_err_t *err)
{
	_cleanup_free_ char *out = NULL, *gitpath = NULL;
	char *lines[9] = { NULL }, *p, *save = NULL;
	struct stat st;
	int status, n = 0, head;

	(void)notice;
	if (sentry_git_finish(job != NULL ? job : sentry_probe_start(ws), &out, NULL, &status,
	    err) < 0)
		return -1;
	for (p = strtok_r(out, "\n", &save); p != NULL && n < 9; p = strtok_r(NULL, "\n", &save))
		lines[n++] = p;
	if (n >= 2 && (strcmp(lines[0], "true") == 0 || strcmp(lines[1], "true") == 0))
		return lz_err_set(err, LZ_EINVAL, "workspace '%s' is a git directory "
		    "(a bare repository or inside .git): run lazaret in a checkout", ws);
	if (status != 0 && status != 1) {
		/* Not a repository at all: ask again for git's message to tell
		 * that apart from, say, dubious ownership. */
		if (sentry_git(ws, NULL, NULL, err, "rev-parse", "--git-dir", NULL) < 0) {
			if (err == NULL || err->msg == NULL ||
			    strstr(err->msg, "not a git repository") == NULL)
				return -1;
			lz_err_clear(err);
			return 0;
		}
		/* A repository git fails on: its own message, from a second run. */
		if (sentry_git_finish(sentry_probe_start(ws), NULL, NULL, NULL, err) == 0)
			lz_err_set(err, LZ_EINVAL, "git rev-parse in '%s' failed (exit %d)", ws,
			    status);
		return -1;
	}
	/* The lines after the first six: [superproject] [HEAD's commit]. */
	head = status == 0;
	if (n < 6 + head || n > 7 + head)
		return lz_err_set(err, LZ_EINVAL, "git rev-parse in '%s': unexpected output", ws);
	if (n == 7 + head)
		return lz_err_set(err, LZ_EINVAL, "workspace '%s' is a submodule checkout "
		    "of '%s': run lazaret in the superproject", ws, lines[6]);
	r->hexlen = strcmp(lines[2], "sha256") == 0 ? 64 : 40;
	if ((r->top = realpath(lines[3], NULL)) == NULL)
		return lz_err_sys(err, errno, "git top level '%s'", lines[3]);
	if (strcmp(r->top, ws) != 0) {
		lz_err_set(err, LZ_EINVAL, "workspace '%s' is inside git repository '%s': "
		    "run lazaret at its top level", ws, r->top);
		goto fail;
	}
	if ((r->gitdir = realpath(lines[4], NULL)) == NULL ||
	    (r->common = realpath(lines[5], NULL)) == NULL) {
		lz_err_sys(err, errno, "git dir of '%s'", ws);
		goto fail;
	}
	gitpath = xasprintf("%s/.git", ws);
	if (lstat(gitpath, &st) < 0) {
		lz_err_sys(err, errno, "'%s'", gitpath);
		goto fail;
	}
	/* A mount point through a symlink would land wherever it points. */
	if (S_ISLNK(st.st_mode)) {
		lz_err_set(err, LZ_EINVAL, "'%s' is a symbolic link: lazaret needs the "
		    "git directory itself or a gitdir file there", gitpath);
		goto fail;
	}
	r->dotgit_is_dir = S_ISDIR(st.st_mode);
	if (r->dotgit_is_dir && strcmp(r->common, gitpath) != 0) {
		lz_err_set(err, LZ_EINVAL, "'%s' is a directory but git uses '%s'", gitpath,
		    r->common);
		goto fail;
	}
	if (!head) {
		lz_err_set(err, LZ_EINVAL, "repository '%s' has no commit yet: commit "
		    "once on the host, then start lazaret again", ws);
		goto fail;
	}
	return 1;
fail:
	sentry_repo_clear(r);
	return -1;
}

static int
sentry_rmrf_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	(void)remove(path);
	return 0;
}

/* rm -rf path (symlinks removed, never followed). */
static void
sentry_rmrf(const char *path)
{
	(void)nftw(path, sentry_rmrf_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* GIT_INDEX_FILE=<P>/index git --git-dir=G [--work-tree=wt] read-tree
 * [--reset -u] tip: the agent's index (and checkout) from the host's copy
 * of its branch, by host git with the host's config. */
static int
sentry_read_tree(const struct sentry_repo *r, const struct sentry_paths *p, const char *wt,
    const char *tip, lz_err_t *err)
{
	char **argv = NULL, **env = sentry_git_env();
	int ret;

	lz_strv_pushf(&env, "GIT_INDEX_FILE=%s/index", p->priv);
	lz_strv_push(&argv, "git");
	lz_strv_pushf(&argv, "--git-dir=%s", r->common);
	if (wt != NULL)
		lz_strv_pushf(&argv, "--work-tree=%s", wt);
	lz_strv_push(&argv, "-c");
	lz_strv_push(&argv, "core.hooksPath=/dev/null");
	lz_strv_push(&argv, "read-tree");
	if (wt != NULL) {
		lz_strv_push(&argv, "--reset");
		lz_strv_push(&argv, "-u");
	}
	lz_strv_push(&argv, tip);
	ret = sentry_run(argv, env, "git read-tree (the agent's checkout)", NULL, NULL, err);
	lz_strv_free(argv);
	lz_strv_free(env);
	return ret;
}

/* Write ref file rel (below P) = hex, through O_NOFOLLOW directories. */
static int
sentry_priv_ref(int pfd, const char *rel, const char *hex, lz_err_t *err)
{
	_cleanup_free_ char *dir = xstrdup(rel), *line = xasprintf("%s\n", hex);
	_cleanup_close_ int dfd = -1;
	char *slash = strrchr(dir, '/');

	*slash = '\0';
	if ((dfd = sentry_open_dir_at(pfd, dir, true, err)) < 0)
		return -1;
	return sentry_write_at(dfd, slash + 1, line, strlen(line), 0644, err);
}

/* The host's branches, "<id> refs/heads/<name>" a line: one git tells the
 * agent branch's tip and the branches P shows. */
static int
sentry_host_heads(const struct sentry_repo *r, char **out, lz_err_t *err)
{
	return sentry_git(r->common, out, NULL, err, "for-each-ref",
	    "--format=%(objectname) %(refname)", "refs/heads/", NULL);
}

/* The id ref has in heads (sentry_host_heads'), or NULL. */
static char *
sentry_heads_find(const char *heads, const char *ref)
{
	size_t n = strlen(ref);
	const char *line, *end, *sp;

	for (line = heads; *line != '\0'; line = end + (*end == '\n')) {
		end = strchrnul(line, '\n');
		if ((sp = memchr(line, ' ', (size_t)(end - line))) != NULL &&
		    (size_t)(end - sp - 1) == n && memcmp(sp + 1, ref, n) == 0)
			return xstrndup(line, (size_t)(sp - line));
	}
	return NULL;
}

/* refs/remotes/host in P: an empty directory, the mount point of the
 * host's branches (sentry-hostview.c); what an earlier layout or the agent
 * left there goes (a symlink removed, never followed). */
static int
sentry_priv_host_refs(int pfd, const struct sentry_paths *p, const char *heads, unsigned hexlen,
    lz_err_t *err)
{
	_cleanup_free_ char *old = xasprintf("%s/refs/remotes/host", p->priv);
	_cleanup_close_ int fd = -1;

	sentry_rmrf(old);
	if ((fd = sentry_open_dir_at(pfd, "refs/remotes/host", true, err)) < 0)
		return -1;
	return sentry_hostview_refs(p->view, heads, hexlen, NULL, err);
}

/* A layout of an earlier Lazaret (the agent's gitdir registered as the
 * host's worktree G/worktrees/lazaret-<H>, its objects borrowed through a
 * line in G's alternates): unregister it, give the old store to P (the
 * import then takes what the agent's refs reach, verified) and drop the
 * line. *old_index takes the old private index when there was one. */
static int
sentry_migrate(const struct anchor *a, const struct sentry_repo *r,
    const struct sentry_paths *p, char **old_index, bool *moved, char **notice, lz_err_t *err)
{
	_cleanup_free_ char *wtdir = xasprintf("%s/worktrees/lazaret-%s", r->common, a->hash);
	_cleanup_free_ char *store = xasprintf("%s/objects", p->dr);
	_cleanup_free_ char *alt = xasprintf("%s/objects/info/alternates", r->common);
	_cleanup_free_ char *gitfile = xasprintf("%s/.git", p->checkout);
	_cleanup_free_ char *cur = NULL, *next = xstrdup("");
	char *line, *save = NULL, *t;
	struct stat st;
	size_t len;
	bool found = false;

	if (sentry_is_dir(wtdir)) {
		_cleanup_free_ char *idx = xasprintf("%s/index", wtdir);

		if (lstat(idx, &st) == 0 && S_ISREG(st.st_mode)) {
			*old_index = xasprintf("%s/sentry/old-index", p->dr);
			if (rename(idx, *old_index) < 0)
				free(lz_steal_ptr(old_index));
		}
		sentry_rmrf(wtdir);
		if (lstat(gitfile, &st) == 0 && S_ISREG(st.st_mode))
			(void)unlink(gitfile);
		*moved = true;
		sentry_notice_add(notice, xasprintf("moved the agent's repository of an earlier "
		    "lazaret out of '%s'", r->common));
	}
	if (sentry_is_dir(store) && !sentry_is_dir(p->priv)) {
		_cleanup_free_ char *pobj = xasprintf("%s/objects", p->priv);

		if (sentry_mkdirs("", p->priv + 1, 0755, err) < 0)
			return -1;
		if (rename(store, pobj) < 0)
			return lz_err_sys(err, errno, "cannot move '%s' to '%s'", store, pobj);
		*moved = true;
	}
	if (access(alt, F_OK) != 0)
		return 0;
	if (sentry_read_raw(alt, &cur, &len, err) < 0)
		return -1;
	for (line = strtok_r(cur, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, store) == 0) {
			found = true;
			continue;
		}
		t = xasprintf("%s%s\n", next, line);
		free(next);
		next = t;
	}
	if (!found)
		return 0;
	if (*next == '\0')
		return unlink(alt) < 0 ? lz_err_sys(err, errno, "cannot remove '%s'", alt) : 0;
	return sentry_write_file(alt, next, 0644, err);
}

/* HEAD of P, when it does not name a branch under refs/heads/: the main
 * line again (a detached or broken HEAD the agent left is its own, but
 * "ref: ../../x" or a FIFO are not). */
static int
sentry_priv_head(int pfd, const char *branch, lz_err_t *err)
{
	_cleanup_free_ char *want = xasprintf("ref: refs/heads/%s\n", branch);
	_cleanup_close_ int fd = openat(pfd, "HEAD", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	char buf[300];
	struct stat st;
	ssize_t n = -1;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		n = read(fd, buf, sizeof buf - 1);
	if (n > 16 && buf[n - 1] == '\n' && strncmp(buf, "ref: refs/heads/", 16) == 0 &&
	    sentry_refname_ok(buf + 5, (size_t)n - 6))
		return 0;
	if (n > 0 && buf[n - 1] == '\n' && (sentry_hex_ok(buf, (size_t)n - 1, 40) ||
	    sentry_hex_ok(buf, (size_t)n - 1, 64)))
		return 0;
	return sentry_write_at(pfd, "HEAD", want, strlen(want), 0644, err);
}

/* The object dirs the host repository borrows (G/objects/info/alternates,
 * relative lines taken from G/objects), canonical, at most 16: the sandbox
 * gets each read-only at SENTRY_ALTERNATES_DST/<i>. */
int
sentry_host_alternates(const struct sentry_repo *r, char ***out, lz_err_t *err)
{
	_cleanup_free_ char *f = xasprintf("%s/objects/info/alternates", r->common);
	_cleanup_free_ char *txt = NULL;
	char *line, *save = NULL;
	size_t len, n = 0;

	*out = NULL;
	if (access(f, F_OK) != 0)
		return 0;
	if (sentry_read_raw(f, &txt, &len, err) < 0)
		return -1;
	for (line = strtok_r(txt, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		_cleanup_free_ char *abs = NULL, *real = NULL;

		if (*line == '#' || *line == '\0')
			continue;
		abs = *line == '/' ? xstrdup(line) : xasprintf("%s/objects/%s", r->common, line);
		if ((real = realpath(abs, NULL)) == NULL || !sentry_is_dir(real))
			continue;	/* git itself skips it */
		if (n == 16 || sentry_path_check("borrowed object directory", real, true, err) < 0) {
			lz_strv_free(*out);
			*out = NULL;
			return n == 16 ? lz_err_set(err, E2BIG, "'%s': more than 16 object "
			    "directories", f) : -1;
		}
		lz_strv_push(out, real);
		n++;
	}
	return 0;
}

/* Import; a refusal or what it left out goes to *report (the session still
 * starts). */
void
sentry_import_note(const struct anchor *a, const struct sentry_paths *p,
    const struct sentry_repo *r, char **notice)
{
	_cleanup_free_ char *rep = NULL;
	lz_err_t e2 = LZ_ERR_INIT;

	if (sentry_import_run(a, p, r, &rep, &e2) < 0) {
		sentry_notice_add(notice, xstrdup(e2.msg));
		lz_err_clear(&e2);
	} else if (rep != NULL)
		sentry_notice_add(notice, lz_steal_ptr(&rep));
}

int
sentry_private_ensure(const struct anchor *a, const struct sentry_repo *r,
    const struct sentry_paths *p, bool direct, char **notice, char **report, lz_err_t *err)
{
	_cleanup_free_ char *ref = xasprintf("refs/heads/%s", a->branch), *tip = NULL;
	_cleanup_free_ char *old_index = NULL, *hostgit = NULL, *cdotgit = NULL, *heads = NULL;
	_cleanup_free_ char *idx = xasprintf("%s/index", p->priv);
	_cleanup_free_ char *cfgpath = xasprintf("%s/config", p->priv);
	_cleanup_close_ int pfd = -1, ofd = -1;
	const char *cfg = r->hexlen == 64 ?
	    "[core]\n\trepositoryformatversion = 1\n\tfilemode = true\n\tbare = false\n"
	    "\tlogallrefupdates = true\n[extensions]\n\tobjectFormat = sha256\n" :
	    "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
	    "\tlogallrefupdates = true\n";
	bool fresh, refill, moved = false;
	struct stat st;

	if (sentry_mkdirs(p->dr, "sentry", 0700, err) < 0)
		return -1;
	hostgit = xasprintf("%s\n%u", r->common, r->hexlen);
	{
		_cleanup_free_ char *f = xasprintf("%s/host-git", p->sdir);

		if (sentry_write_file(f, hostgit, 0600, err) < 0)
			return -1;
	}
	if (sentry_migrate(a, r, p, &old_index, &moved, notice, err) < 0)
		return -1;
	fresh = access(cfgpath, F_OK) != 0;
	/* Catch up with what a session that ended without its last import
	 * left (a crash) before deciding anything from the host's copy. */
	if (!fresh)
		sentry_import_note(a, p, r, report);
	/* The host's copy of the agent branch: made from HEAD the first time. */
	if (sentry_host_heads(r, &heads, err) < 0)
		return -1;
	if ((tip = sentry_heads_find(heads, ref)) == NULL) {
		if (sentry_git(r->top, NULL, NULL, err, "update-ref", "-m", "lazaret: agent branch",
		    ref, "HEAD", "", NULL) < 0 ||
		    sentry_git(r->common, &tip, NULL, err, "rev-parse", "--verify", ref, NULL) < 0)
			return -1;
		sentry_notice_add(notice, xasprintf("created branch %s from HEAD", a->branch));
	}

	if (sentry_mkdirs("", p->priv + 1, 0755, err) < 0 ||
	    (pfd = open(p->priv, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return pfd < 0 ? lz_err_sys(err, errno, "'%s'", p->priv) : -1;
	if (fresh && sentry_write_at(pfd, "config", cfg, strlen(cfg), 0644, err) < 0)
		return -1;
	close(sentry_open_dir_at(pfd, "refs/tags", true, NULL));
	close(sentry_open_dir_at(pfd, "objects/pack", true, NULL));
	close(sentry_open_dir_at(pfd, "modules", true, NULL));
	{
		char **alts = NULL, *lines = xstrdup(SENTRY_OBJECTS_DST "\n"), *t;
		int ret = 0;

		/* The host's object dir, then the ones it borrows from itself. */
		if (sentry_host_alternates(r, &alts, err) < 0) {
			free(lines);
			return -1;
		}
		for (size_t i = 0; alts != NULL && alts[i] != NULL; i++) {
			t = xasprintf("%s" SENTRY_ALTERNATES_DST "/%zu\n", lines, i);
			free(lines);
			lines = t;
		}
		lz_strv_free(alts);
		if ((ofd = sentry_open_dir_at(pfd, "objects/info", true, err)) < 0 ||
		    sentry_write_at(ofd, "alternates", lines, strlen(lines), 0644, err) < 0)
			ret = -1;
		free(lines);
		if (ret < 0)
			return -1;
	}
	/* What the agent left that git would follow out: gone. */
	{
		_cleanup_free_ char *refs = xasprintf("%s/refs", p->priv);
		_cleanup_free_ char *logs = xasprintf("%s/logs", p->priv);
		_cleanup_free_ char *first = NULL;
		size_t n = sentry_scrub_tree(refs, &first) + sentry_scrub_tree(logs, &first);

		if (n > 0)
			sentry_notice_add(report, xasprintf("removed %zu symlink(s) or special "
			    "file(s) the agent left in its refs or logs (first: %s)", n, first));
	}
	if (fresh) {
		_cleanup_free_ char *rel = xasprintf("refs/heads/%s", a->branch);

		if (sentry_priv_ref(pfd, rel, tip, err) < 0)
			return -1;
	}
	if (sentry_priv_head(pfd, a->branch, err) < 0 ||
	    sentry_priv_host_refs(pfd, p, heads, r->hexlen, err) < 0 ||
	    sentry_hostview_include(pfd, err) < 0)
		return -1;

	/* The index: the earlier layout's, or built from the agent branch. */
	if (old_index != NULL && access(idx, F_OK) != 0 && rename(old_index, idx) < 0)
		return lz_err_sys(err, errno, "cannot move '%s' to '%s'", old_index, idx);
	if (direct) {
		if (access(idx, F_OK) != 0 && sentry_read_tree(r, p, NULL, tip, err) < 0)
			return -1;
		return moved;
	}
	/* Isolated: the checkout, and its .git the mount point of P. */
	cdotgit = xasprintf("%s/.git", p->checkout);
	if (lstat(cdotgit, &st) == 0 && !S_ISDIR(st.st_mode) && unlink(cdotgit) < 0)
		return lz_err_sys(err, errno, "cannot remove '%s'", cdotgit);
	if (lstat(cdotgit, &st) == 0 && !sentry_dir_missing_or_empty(cdotgit))
		return lz_err_set(err, LZ_EINVAL, "'%s' is not the empty directory lazaret made: "
		    "move it away and start again", cdotgit);
	refill = sentry_dir_missing_or_empty(p->checkout);
	if (!refill && lstat(cdotgit, &st) != 0) {
		/* Only .git missing: the rest is the agent's work. */
		if (mkdir(cdotgit, 0755) < 0)
			return lz_err_sys(err, errno, "cannot create '%s'", cdotgit);
	}
	if (!refill)
		return moved;
	if (sentry_mkdirs("", p->checkout + 1, 0755, err) < 0 ||
	    (mkdir(cdotgit, 0755) < 0 && errno != EEXIST))
		return lz_err_sys(err, errno, "cannot create '%s'", cdotgit);
	/* A deleted checkout comes back on the main line. */
	{
		_cleanup_free_ char *rel = xasprintf("refs/heads/%s", a->branch);
		_cleanup_free_ char *head = xasprintf("ref: %s\n", rel);

		if (sentry_priv_ref(pfd, rel, tip, err) < 0 ||
		    sentry_write_at(pfd, "HEAD", head, strlen(head), 0644, err) < 0)
			return -1;
	}
	(void)unlinkat(pfd, "index", 0);
	return sentry_read_tree(r, p, p->checkout, tip, err) < 0 ? -1 : moved;
}
