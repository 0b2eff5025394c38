/* sentry.c - the Git Sentry and branch isolation.
 *
 * Theory of operation.
 *
 * A read-only bind of the single file .git/config does not hold: `git config`
 * on the host replaces the file by rename, and from then on the sandbox can
 * write and delete the host's config (runsc, crun and runc alike, see
 * notes/sandbox-probe.md §3). So the Sentry works one level up: the host's
 * common git dir G is bind-mounted READ-ONLY AS A DIRECTORY, and only what
 * the agent must write to commit gets a read-write sub-mount:
 *
 *   <domain_root>/objects/          new objects: the agent's private store
 *                                   (GIT_OBJECT_DIRECTORY), G/objects is an
 *                                   alternate (GIT_ALTERNATE_OBJECT_DIRECTORIES)
 *   G/refs/heads/lazaret/           the agent branch (and others it makes
 *                                   under lazaret/), pre-created
 *   G/logs/refs/heads/lazaret/      their reflogs, pre-created
 *   G/worktrees/<id>/               the agent's private gitdir: HEAD, index,
 *                                   logs/HEAD, COMMIT_EDITMSG, ORIG_HEAD ...
 *
 * G/objects stays read-only, so the agent can add history but never delete
 * or rewrite the user's (an rm -rf of objects/ would otherwise take all of
 * it). One line in G/objects/info/alternates names the private store, so the
 * host reads the agent's commits at once; sentry_release moves the store's
 * objects and packs into G/objects and drops the line, so the repository
 * never depends on the Domain Root after a session. The store sits at its
 * host path in the container too, so that line resolves there as well. An
 * exec without the two variables finds G/objects read-only and fails closed.
 *
 * Inside that private gitdir, `commondir` and `gitdir` are bound read-only
 * onto themselves and a read-only empty file covers `config.worktree`: host
 * git obeys all three when the user runs git in the agent's checkout, so an
 * agent able to write them could point host git at a config of its own
 * (core.fsmonitor = code execution on the host). Everything else of G stays
 * read-only however often the host replaces it (config, packed-refs, info/,
 * refs/heads/main, the user's other worktrees, modules/<name>/config), and
 * the sandbox sees each new version at once because no file is pinned. An
 * empty tmpfs covers hooks/ and modules/.../hooks so the host's hooks neither
 * run in the sandbox nor can be replaced (they are read-only anyway).
 * A single-file read-only bind of config on top (for the spec's EBUSY on
 * unlink) is not made: it gives EBUSY only until the host's first `git
 * config`, EROFS after, and protects nothing the directory mount does not.
 *
 * Where the container sees G: at SENTRY_GIT_DST (/run/lazaret/git), and the
 * checkout's `.git` is covered by a read-only generated gitfile holding
 * "gitdir: /run/lazaret/git/worktrees/<id>". The private gitdir's commondir
 * is the relative "../..", which resolves inside the mount too; the host's
 * own paths never need to exist in the container, and the agent cannot
 * repoint its checkout's .git (the bind cannot be written, unlinked or
 * renamed over). Direct mode on a main checkout (.git is a directory) mounts
 * G at /workspace/.git instead, over the read-write checkout, so submodule
 * gitfiles ("../.git/modules/x") keep resolving, and sets GIT_DIR and
 * GIT_WORK_TREE for every exec so commits use the private HEAD and index; an
 * exec without them finds G's own HEAD and index, which are read-only, so it
 * fails closed rather than moving main.
 *
 * Branch isolation: isolated mode (the default) checks out a linked worktree
 * at anchor->worktree (under the Domain Root) on lazaret/agent-<profile>,
 * created from host HEAD with --no-track (no config write) and hooks off;
 * `git worktree add` writes only G/worktrees/<id>, the new ref and its
 * reflog, never the main worktree's HEAD, index or files. A session restart
 * reuses the worktree; a deleted checkout is unregistered (`git worktree
 * remove -f` on the missing path) and added again on the existing branch.
 * Direct mode uses the same private gitdir made with --no-checkout, its index
 * read from the agent branch once. A repo with no commit yet is refused
 * (git 2.39 has no `worktree add --orphan`). A workspace that is a submodule
 * checkout is refused; one that is itself a linked worktree works (G is the
 * common dir). Ownership: rootless podman maps the host user to the
 * container's root, so the files appear owned by the uid git runs as and
 * git's safe.directory check passes without configuration (--userns=keep-id
 * does not start under this runsc; an exec as another uid would meet git's
 * "dubious ownership" and could not write the files anyway).
 *
 * The working tree can hold what host git obeys too: a core.hooksPath inside
 * it (husky's .husky) runs on the user's next commit, and in direct mode a
 * config include.path into it is read as config. Those get a read-only bind
 * over their /workspace copy (a tmpfs or the empty file while they do not
 * exist, so the agent cannot create them): sentry_tree_guards.
 *
 * Nested repositories (a plain workspace holding checkouts, vendored repos
 * in direct mode) would be writable wholesale: each nested .git gets a
 * read-only bind over itself and the hooks tmpfs (sentry_guard_nested); the
 * agent edits their files but cannot commit there.
 *
 * Symlinks: the agent can plant them in what it may write, and host git
 * follows some (a COMMIT_EDITMSG symlink makes the user's next commit in the
 * agent's checkout overwrite the target; logs/HEAD gets reflog lines
 * appended). sentry_prepare and sentry_release remove every symlink and
 * special file there (sentry_scrub); while a session runs, look at the
 * agent's work from the main checkout (git diff main lazaret/agent-<p>).
 *
 * Accepted limits: refs outside refs/heads/lazaret/ (tags, stash, other
 * branches, packed refs) cannot be changed from the sandbox; agents of
 * different profiles on one repo share refs/heads/lazaret/; submodules are
 * read-only inside (their gitdirs are under the read-only G/modules). While
 * the alternates line is there (a crash leaves it until the next teardown),
 * a host `git gc` may drop loose objects of the user's that the agent
 * copied into a pack of its store, which the agent could then delete.
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

#include "coord/proc.h"
#include "sandbox/sentry.h"
#include "strv.h"
#include "xmalloc.h"

#define SENTRY_MODULES_DEPTH 8	/* nesting of .git/modules we follow */
#define SENTRY_FILE_MAX 4096	/* gitfile / gitdir / commondir size cap */

extern char **environ;

/* What sentry_prepare learns about the workspace before deciding. */
struct sentry_repo {
	char *top;		/* work tree top level (canonical) */
	char *gitdir;		/* the workspace's own gitdir */
	char *common;		/* common git dir G (canonical) */
	bool dotgit_is_dir;	/* workspace/.git is G itself */
};

static void
sentry_repo_clear(struct sentry_repo *r)
{
	free(r->top);
	free(r->gitdir);
	free(r->common);
	memset(r, 0, sizeof *r);
}

int
sentry_path_check(const char *what, const char *path, bool colon_ok, lz_err_t *err)
{
	const unsigned char *p;

	if (path[0] != '/')
		return lz_err_set(err, LZ_EINVAL, "%s '%s': not an absolute path", what, path);
	for (p = (const unsigned char *)path; *p != '\0'; p++) {
		if (*p == ',')
			return lz_err_set(err, LZ_EINVAL, "%s '%s' contains a comma, which "
			    "podman --mount cannot carry: rename or move it", what, path);
		if (*p == '"')
			return lz_err_set(err, LZ_EINVAL, "%s '%s' contains a double quote, "
			    "which podman --mount cannot carry: rename or move it", what, path);
		if (*p == ':' && !colon_ok)
			return lz_err_set(err, LZ_EINVAL, "%s '%s' contains a colon, which "
			    "fuse-overlayfs options cannot carry: rename or move it", what, path);
		if (*p < 0x20 || *p == 0x7f)
			return lz_err_set(err, LZ_EINVAL, "%s '%s' contains a control "
			    "character: rename or move it", what, path);
	}
	return 0;
}

int
sentry_mode_parse(const char *s, enum sentry_mode *mode, lz_err_t *err)
{
	if (strcmp(s, "isolated") == 0)
		*mode = SENTRY_ISOLATED;
	else if (strcmp(s, "direct") == 0)
		*mode = SENTRY_DIRECT;
	else
		return lz_err_set(err, LZ_EINVAL, "workspace mode '%s': expected "
		    "'isolated' or 'direct'", s);
	return 0;
}

/* Our environment without GIT_* (a caller's GIT_DIR must not redirect us),
 * in the C locale (git's messages are matched below), no optional locks (so
 * no command of ours refreshes the user's index). */
static char **
sentry_git_env(void)
{
	char **env = NULL;
	char **e;

	for (e = environ; e != NULL && *e != NULL; e++)
		if (strncmp(*e, "GIT_", 4) != 0 && strncmp(*e, "LC_ALL=", 7) != 0)
			lz_strv_push(&env, *e);
	lz_strv_push(&env, "LC_ALL=C");
	lz_strv_push(&env, "GIT_OPTIONAL_LOCKS=0");
	lz_strv_push(&env, "GIT_TERMINAL_PROMPT=0");
	return env;
}

/* The useful part of a tool's stderr: its last "fatal:", "error:" or
 * "Error:" line, else every line but fuse-overlayfs' "unknown argument
 * ignored" chatter, joined with "; ". Returns a new string. */
static char *
sentry_errmsg(const char *errout)
{
	const char *line, *end, *best = NULL, *best_end = NULL;
	char *all = xstrdup(""), *t;

	for (line = errout; *line != '\0'; line = end + (*end == '\n')) {
		end = strchrnul(line, '\n');
		if (strncmp(line, "fatal: ", 7) == 0 || strncmp(line, "error: ", 7) == 0 ||
		    strncmp(line, "Error: ", 7) == 0) {
			best = line;
			best_end = end;
		}
		if (end == line || strncmp(line, "unknown argument ignored", 24) == 0)
			continue;
		t = xasprintf("%s%s%.*s", all, *all != '\0' ? "; " : "", (int)(end - line), line);
		free(all);
		all = t;
	}
	if (best == NULL)
		return all;
	free(all);
	return xstrndup(best, (size_t)(best_end - best));
}

int
sentry_run(char *const argv[], char *const env[], const char *what, char **out,
    int *status, lz_err_t *err)
{
	struct proc_result res;
	size_t n;

	if (proc_run(argv, env, NULL, 0, &res, err) < 0)
		return -1;
	if (status != NULL)
		*status = res.status;
	else if (res.status != 0) {
		_cleanup_free_ char *m = sentry_errmsg(res.errout);

		lz_err_set(err, LZ_EINVAL, "%s failed (exit %d)%s%s", what, res.status,
		    *m != '\0' ? ": " : "", m);
		proc_result_clear(&res);
		return -1;
	}
	if (out != NULL) {
		n = strlen(res.out);
		while (n > 0 && (res.out[n - 1] == '\n' || res.out[n - 1] == ' '))
			res.out[--n] = '\0';
		*out = lz_steal_ptr(&res.out);
	}
	proc_result_clear(&res);
	return 0;
}

/* Run `git -C dir -c core.hooksPath=/dev/null ARGS... NULL` (sentry_run's
 * status and out): no hook of the user's runs for our checkouts. `git
 * config` runs none and must see the real core.hooksPath, so it goes
 * without. */
static int
sentry_git(const char *dir, char **out, int *status, lz_err_t *err, ...)
{
	char **argv = NULL, **env = sentry_git_env();
	_cleanup_free_ char *what = NULL;
	const char *s, *sub = NULL;
	va_list ap;
	int ret;

	lz_strv_push(&argv, "git");
	lz_strv_push(&argv, "-C");
	lz_strv_push(&argv, dir);
	va_start(ap, err);
	s = va_arg(ap, const char *);
	if (s != NULL && strcmp(s, "config") != 0) {
		lz_strv_push(&argv, "-c");
		lz_strv_push(&argv, "core.hooksPath=/dev/null");
	}
	for (; s != NULL; s = va_arg(ap, const char *)) {
		if (sub == NULL && s[0] != '-')
			sub = s;
		lz_strv_push(&argv, s);
	}
	va_end(ap);
	what = xasprintf("git %s (in %s)", sub != NULL ? sub : "", dir);
	ret = sentry_run(argv, env, what, out, status, err);
	lz_strv_free(argv);
	lz_strv_free(env);
	return ret;
}

/* Read a small file whole (symlinks refused) into *out, NUL-terminated;
 * *len bytes. */
static int
sentry_read_raw(const char *path, char **out, size_t *len, lz_err_t *err)
{
	char buf[SENTRY_FILE_MAX + 1];
	_cleanup_close_ int fd = -1;
	ssize_t n;
	size_t got = 0;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return lz_err_sys(err, errno, "cannot read '%s'", path);
	while (got < sizeof buf && (n = read(fd, buf + got, sizeof buf - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return lz_err_sys(err, errno, "cannot read '%s'", path);
		}
		got += (size_t)n;
	}
	if (got > SENTRY_FILE_MAX)
		return lz_err_set(err, EFBIG, "'%s': larger than %d bytes", path, SENTRY_FILE_MAX);
	if (memchr(buf, '\0', got) != NULL)
		return lz_err_set(err, LZ_EINVAL, "'%s': contains a NUL byte", path);
	*out = xstrndup(buf, got);
	*len = got;
	return 0;
}

/* sentry_read_raw with trailing newlines cut (gitfile, gitdir, commondir). */
static int
sentry_read_small(const char *path, char **out, lz_err_t *err)
{
	size_t len;

	if (sentry_read_raw(path, out, &len, err) < 0)
		return -1;
	while (len > 0 && (*out)[len - 1] == '\n')
		(*out)[--len] = '\0';
	return 0;
}

/* Write content to path unless it already holds exactly that (a running
 * container keeps its bind of the old inode otherwise), via a temp file and
 * rename. */
static int
sentry_write_file(const char *path, const char *content, mode_t mode, lz_err_t *err)
{
	_cleanup_free_ char *cur = NULL, *tmp = NULL;
	_cleanup_close_ int fd = -1;
	size_t len = strlen(content), off = 0, curlen;
	struct stat st;
	ssize_t n;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == mode &&
	    sentry_read_raw(path, &cur, &curlen, NULL) == 0 && curlen == len &&
	    memcmp(cur, content, len) == 0)
		return 0;
	tmp = xasprintf("%s.tmp", path);
	(void)unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return lz_err_sys(err, errno, "cannot create '%s'", tmp);
	while (off < len) {
		if ((n = write(fd, content + off, len - off)) < 0) {
			if (errno == EINTR)
				continue;
			lz_err_sys(err, errno, "cannot write '%s'", tmp);
			goto fail;
		}
		off += (size_t)n;
	}
	if (fchmod(fd, mode) < 0) {
		lz_err_sys(err, errno, "cannot chmod '%s'", tmp);
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		lz_err_sys(err, errno, "cannot rename '%s'", tmp);
		goto fail;
	}
	return 0;
fail:
	(void)unlink(tmp);
	return -1;
}

int
sentry_mkdirs(const char *base, const char *rel, mode_t mode, lz_err_t *err)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", base, rel);
	size_t blen = strlen(base);
	struct stat st;
	char *p;

	for (p = path + blen + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(path, mode) < 0 && errno != EEXIST)
			return lz_err_sys(err, errno, "cannot create '%s'", path);
		if (stat(path, &st) < 0)
			return lz_err_sys(err, errno, "cannot stat '%s'", path);
		if (!S_ISDIR(st.st_mode))
			return lz_err_set(err, ENOTDIR, "'%s' exists and is not a directory", path);
		*p = c;
		if (c == '\0')
			break;
	}
	return 0;
}

static bool
sentry_is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* An existing directory with nothing in it, or no directory at all. */
static bool
sentry_dir_missing_or_empty(const char *path)
{
	DIR *d;
	struct dirent *e;
	bool empty = true;

	if ((d = opendir(path)) == NULL)
		return errno == ENOENT;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			empty = false;
			break;
		}
	closedir(d);
	return empty;
}

/* A checkout made with --no-checkout: nothing in it but .git. */
static bool
sentry_dir_only_dotgit(const char *path)
{
	DIR *d;
	struct dirent *e;
	bool only = true;

	if ((d = opendir(path)) == NULL)
		return false;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    strcmp(e->d_name, ".git") != 0) {
			only = false;
			break;
		}
	closedir(d);
	return only;
}

static void
sentry_push_mount(struct sentry_layout *l, enum drv_mount_type type, const char *src,
    const char *dst, bool ro, const char *opts)
{
	struct drv_mount *m;

	l->mounts = xreallocarray(l->mounts, l->n_mounts + 1, sizeof *l->mounts);
	m = &l->mounts[l->n_mounts++];
	memset(m, 0, sizeof *m);
	m->type = type;
	m->src = src != NULL ? xstrdup(src) : NULL;
	m->dst = xstrdup(dst);
	m->ro = ro;
	m->opts = opts != NULL ? xstrdup(opts) : NULL;
}

/* Append note (taken) to the layout's notice, "; "-separated. */
static void
sentry_notice_add(struct sentry_layout *l, char *note)
{
	char *t;

	if (l->notice == NULL) {
		l->notice = note;
		return;
	}
	t = xasprintf("%s; %s", l->notice, note);
	free(note);
	free(l->notice);
	l->notice = t;
}

static void
sentry_bind(struct sentry_layout *l, const char *src, const char *dst, bool ro)
{
	sentry_push_mount(l, DRV_MOUNT_BIND, src, dst, ro, NULL);
}

/* Probe the workspace. Returns 1 when it is the top of a git checkout (r
 * filled), 0 when it is no git checkout (*notice says why), -1 on error. */
static int
sentry_probe(const char *ws, struct sentry_repo *r, char **notice, lz_err_t *err)
{
	_cleanup_free_ char *out = NULL, *gitpath = NULL;
	char *lines[4] = { NULL }, *p, *save = NULL;
	struct stat st;
	int status, n = 0, ret = -1;

	if (sentry_git(ws, &out, &status, err, "rev-parse", "--is-bare-repository",
	    "--is-inside-git-dir", NULL) < 0)
		return -1;
	if (status != 0) {
		free(out);
		out = NULL;
		/* Not a repository at all: ask again for git's message to tell
		 * that apart from, say, dubious ownership. */
		if (sentry_git(ws, NULL, NULL, err, "rev-parse", "--git-dir", NULL) < 0) {
			if (err == NULL || err->msg == NULL ||
			    strstr(err->msg, "not a git repository") == NULL)
				return -1;
			lz_err_clear(err);
		}
		*notice = xstrdup("not a git repository: no branch isolation");
		return 0;
	}
	if (strstr(out, "true") != NULL)
		return lz_err_set(err, LZ_EINVAL, "workspace '%s' is a git directory "
		    "(a bare repository or inside .git): run lazaret in a checkout", ws);
	free(out);
	out = NULL;
	if (sentry_git(ws, &out, NULL, err, "rev-parse", "--path-format=absolute",
	    "--show-toplevel", "--git-dir", "--git-common-dir",
	    "--show-superproject-working-tree", NULL) < 0)
		return -1;
	for (p = strtok_r(out, "\n", &save); p != NULL && n < 4; p = strtok_r(NULL, "\n", &save))
		lines[n++] = p;
	if (n < 3)
		return lz_err_set(err, LZ_EINVAL, "git rev-parse in '%s': unexpected output", ws);
	if (n == 4)
		return lz_err_set(err, LZ_EINVAL, "workspace '%s' is a submodule checkout "
		    "of '%s': run lazaret in the superproject", ws, lines[3]);
	if ((r->top = realpath(lines[0], NULL)) == NULL)
		return lz_err_sys(err, errno, "git top level '%s'", lines[0]);
	if (strcmp(r->top, ws) != 0) {
		*notice = xasprintf("inside git repository '%s' but not its top level: "
		    "no branch isolation", r->top);
		ret = 0;
		goto out;
	}
	if ((r->gitdir = realpath(lines[1], NULL)) == NULL)
		return lz_err_sys(err, errno, "git dir '%s'", lines[1]);
	if ((r->common = realpath(lines[2], NULL)) == NULL)
		return lz_err_sys(err, errno, "git common dir '%s'", lines[2]);
	gitpath = xasprintf("%s/.git", ws);
	if (lstat(gitpath, &st) < 0)
		return lz_err_sys(err, errno, "'%s'", gitpath);
	/* A mount point through a symlink would land wherever it points. */
	if (S_ISLNK(st.st_mode))
		return lz_err_set(err, LZ_EINVAL, "'%s' is a symbolic link: lazaret needs the "
		    "git directory itself or a gitdir file there", gitpath);
	r->dotgit_is_dir = S_ISDIR(st.st_mode);
	if (r->dotgit_is_dir && strcmp(r->common, gitpath) != 0)
		return lz_err_set(err, LZ_EINVAL, "'%s' is a directory but git uses '%s'", gitpath,
		    r->common);
	free(out);
	out = NULL;
	if (sentry_git(ws, NULL, &status, err, "rev-parse", "--verify", "-q",
	    "HEAD^{commit}", NULL) < 0)
		return -1;
	if (status != 0)
		return lz_err_set(err, LZ_EINVAL, "repository '%s' has no commit yet: commit "
		    "once on the host, then start lazaret again", ws);
	ret = 1;
out:
	if (ret == 0)
		sentry_repo_clear(r);
	return ret;
}

/* The private gitdir the checkout's .git names, when it is a registered
 * worktree of common (its gitdir file points back). Returns 1 and *id, 0 when
 * the checkout is not (or no longer) one, -1 on error. */
static int
sentry_worktree_id(const char *common, const char *wt, char **id, lz_err_t *err)
{
	_cleanup_free_ char *gitfile = xasprintf("%s/.git", wt);
	_cleanup_free_ char *content = NULL, *back = NULL, *backpath = NULL;
	_cleanup_free_ char *admin = NULL, *prefix = xasprintf("%s/worktrees/", common);
	const char *name;
	lz_err_t e2 = LZ_ERR_INIT;

	if (sentry_read_small(gitfile, &content, &e2) < 0) {
		bool missing = e2.code == ENOENT;

		lz_err_clear(&e2);
		if (missing)
			return 0;
		return lz_err_set(err, LZ_EINVAL, "'%s' is not a git worktree file", gitfile);
	}
	if (strncmp(content, "gitdir: ", 8) != 0)
		return 0;
	if ((admin = realpath(content + 8, NULL)) == NULL)
		return 0;
	if (strncmp(admin, prefix, strlen(prefix)) != 0)
		return 0;
	name = admin + strlen(prefix);
	if (*name == '\0' || strchr(name, '/') != NULL)
		return 0;
	backpath = xasprintf("%s/gitdir", admin);
	if (sentry_read_small(backpath, &back, NULL) < 0 || strcmp(back, gitfile) != 0)
		return 0;
	*id = xstrdup(name);
	return 1;
}

/* Is wt registered as a worktree of the repo at top (`git worktree list`)? */
static int
sentry_worktree_registered(const char *top, const char *wt, bool *reg, lz_err_t *err)
{
	_cleanup_free_ char *out = NULL;
	char *line, *save = NULL;

	*reg = false;
	if (sentry_git(top, &out, NULL, err, "worktree", "list", "--porcelain", NULL) < 0)
		return -1;
	for (line = strtok_r(out, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "worktree ", 9) == 0 && strcmp(line + 9, wt) == 0)
			*reg = true;
	return 0;
}

/* Make sure wt is a linked worktree of the repo on the agent branch; fills
 * *id with its private gitdir's name. prev_direct: the last session ran in
 * direct mode, so the checkout may be the bare --no-checkout one. */
static int
sentry_worktree_ensure(const struct anchor *a, const struct sentry_repo *r, const char *wt,
    enum sentry_mode mode, bool prev_direct, char **id, char **notice, lz_err_t *err)
{
	_cleanup_free_ char *ref = xasprintf("refs/heads/%s", a->branch);
	_cleanup_free_ char *admin = NULL, *index = NULL;
	bool reg, has_index;
	int st, found;

	if ((found = sentry_worktree_id(r->common, wt, id, err)) < 0)
		return -1;
	if (found == 0) {
		if (!sentry_dir_missing_or_empty(wt))
			return lz_err_set(err, LZ_EINVAL, "'%s' exists but is no longer a "
			    "worktree of '%s': move it away (it may hold the agent's "
			    "uncommitted work) and start again", wt, r->top);
		if (sentry_worktree_registered(r->top, wt, &reg, err) < 0)
			return -1;
		/* Its checkout was deleted: drop the stale registration only. */
		if (reg && sentry_git(r->top, NULL, NULL, err, "worktree", "remove", "-f",
		    wt, NULL) < 0)
			return -1;
		if (sentry_git(r->top, NULL, &st, err, "rev-parse", "--verify", "-q", ref,
		    NULL) < 0)
			return -1;
		if (st == 0) {
			if (sentry_git(r->top, NULL, NULL, err, "worktree", "add", "-q",
			    mode == SENTRY_DIRECT ? "--no-checkout" : "--checkout", wt,
			    a->branch, NULL) < 0) {
				/* Another domain of this repo (same profile), or the user. */
				if (err != NULL && err->msg != NULL &&
				    strstr(err->msg, "already checked out") != NULL)
					lz_err_wrap(err, "branch %s is in use by another checkout; "
					    "finish there, or free it with 'git worktree remove' on "
					    "that path", a->branch);
				return -1;
			}
		} else {
			if (sentry_git(r->top, NULL, NULL, err, "worktree", "add", "-q",
			    "--no-track", mode == SENTRY_DIRECT ? "--no-checkout" : "--checkout",
			    "-b", a->branch, wt, "HEAD", NULL) < 0)
				return -1;
			*notice = xasprintf("created branch %s from HEAD", a->branch);
		}
		if ((found = sentry_worktree_id(r->common, wt, id, err)) < 0)
			return -1;
		if (found == 0)
			return lz_err_set(err, LZ_EINVAL, "git worktree add did not register '%s'",
			    wt);
	}
	admin = xasprintf("%s/worktrees/%s", r->common, *id);
	index = xasprintf("%s/index", admin);
	has_index = access(index, F_OK) == 0;
	if (mode == SENTRY_DIRECT) {
		_cleanup_free_ char *gd = xasprintf("--git-dir=%s", admin);

		/* A --no-checkout worktree has no index: read the agent branch. */
		if (has_index)
			return 0;
		return sentry_git(r->top, NULL, NULL, err, gd, "read-tree", "HEAD", NULL);
	}
	if (!prev_direct || !sentry_dir_only_dotgit(wt))
		return 0;
	/* Isolated after direct: fill the empty checkout (touches only it) from
	 * the private index, which keeps what the agent staged. */
	if (has_index)
		return sentry_git(wt, NULL, NULL, err, "checkout-index", "-a", "-f", "-q", NULL);
	return sentry_git(wt, NULL, NULL, err, "reset", "-q", "--hard", NULL);
}

static void sentry_hooks(struct sentry_layout *l, const char *src, const char *dst, int depth);

/* Below modules/: a directory is either a submodule gitdir (it has HEAD) or
 * one level of a submodule name holding '/'. */
static void
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
static void
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

/* The agent's private object store P (<domain_root>/objects): G/objects is
 * read-only to the sandbox, so the agent can add history but never delete
 * or rewrite the user's. G/objects/info/alternates lists P, which makes the
 * agent's commits readable on the host at once; sentry_release moves them
 * into G and drops the line. */
static int
sentry_objects_prepare(const char *g, const char *pobj, lz_err_t *err)
{
	_cleanup_free_ char *info = xasprintf("%s/objects/info", g);
	_cleanup_free_ char *alt = xasprintf("%s/alternates", info);
	_cleanup_free_ char *cur = NULL, *next = NULL;
	char *line, *save = NULL, *copy;
	size_t len = 0;
	bool present = false;

	_cleanup_free_ char *pinfo = xasprintf("%s/info", pobj + 1);
	_cleanup_free_ char *ppack = xasprintf("%s/pack", pobj + 1);

	if (sentry_mkdirs("", pinfo, 0755, err) < 0 || sentry_mkdirs("", ppack, 0755, err) < 0 ||
	    sentry_mkdirs(g, "objects/info", 0755, err) < 0)
		return -1;
	if (access(alt, F_OK) == 0 && sentry_read_raw(alt, &cur, &len, err) < 0)
		return -1;
	copy = xstrdup(cur != NULL ? cur : "");
	for (line = strtok_r(copy, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		present |= strcmp(line, pobj) == 0;
	free(copy);
	if (present)
		return 0;
	next = xasprintf("%s%s%s\n", cur != NULL ? cur : "",
	    len > 0 && cur[len - 1] != '\n' ? "\n" : "", pobj);
	return sentry_write_file(alt, next, 0644, err);
}

/* Put src at dst unless dst exists (objects are immutable and named by
 * content): a hard link, else a copy, made under a temporary name and
 * renamed into place. */
static int
sentry_copy_in(const char *src, const char *dst, lz_err_t *err)
{
	_cleanup_free_ char *tmp = xasprintf("%s.lzmig", dst);
	_cleanup_close_ int in = -1, out = -1;
	char buf[65536];
	ssize_t n;

	if (access(dst, F_OK) == 0)
		return 0;
	(void)unlink(tmp);
	if (link(src, tmp) < 0) {
		if ((in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			return lz_err_sys(err, errno, "cannot read '%s'", src);
		if ((out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444)) < 0)
			return lz_err_sys(err, errno, "cannot create '%s'", tmp);
		while ((n = read(in, buf, sizeof buf)) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 || write(out, buf, (size_t)n) != n) {
				lz_err_sys(err, errno, "cannot copy '%s'", src);
				(void)unlink(tmp);
				return -1;
			}
		}
		if (fsync(out) < 0) {
			lz_err_sys(err, errno, "cannot copy '%s'", src);
			(void)unlink(tmp);
			return -1;
		}
	}
	if (rename(tmp, dst) < 0) {
		lz_err_sys(err, errno, "cannot move '%s' into place", dst);
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

/* Move the regular files of sub-directory sub of P into G/objects; idx
 * false skips *.idx, idx true takes only those (a pack is usable once its
 * .idx is there, so those go last). */
static int
sentry_objects_move(const char *pobj, const char *gobj, const char *sub, int idx, lz_err_t *err)
{
	_cleanup_free_ char *sdir = xasprintf("%s/%s", pobj, sub);
	_cleanup_free_ char *ddir = xasprintf("%s/%s", gobj, sub);
	struct dirent *e;
	struct stat st;
	int ret = 0;
	DIR *d;

	if ((d = opendir(sdir)) == NULL)
		return 0;
	while (ret == 0 && (e = readdir(d)) != NULL) {
		_cleanup_free_ char *src = xasprintf("%s/%s", sdir, e->d_name);
		_cleanup_free_ char *dst = xasprintf("%s/%s", ddir, e->d_name);
		size_t n = strlen(e->d_name);
		bool is_idx = n > 4 && strcmp(e->d_name + n - 4, ".idx") == 0;

		if (e->d_name[0] == '.' || lstat(src, &st) < 0 || !S_ISREG(st.st_mode) ||
		    (idx >= 0 && is_idx != (idx == 1)))
			continue;
		if ((ret = sentry_mkdirs(gobj, sub, 0755, err)) == 0 &&
		    (ret = sentry_copy_in(src, dst, err)) == 0)
			(void)unlink(src);
	}
	closedir(d);
	return ret;
}

/* Everything of P into G/objects, then G no longer borrows from P. */
static int
sentry_objects_migrate(const char *g, const char *pobj, lz_err_t *err)
{
	_cleanup_free_ char *gobj = xasprintf("%s/objects", g);
	_cleanup_free_ char *alt = xasprintf("%s/info/alternates", gobj);
	_cleanup_free_ char *cur = NULL, *next = xstrdup("");
	char *line, *save = NULL, *t, name[3];
	size_t len;
	int a, b;

	if (!sentry_is_dir(pobj))
		return 0;
	for (a = 0; a < 16; a++)
		for (b = 0; b < 16; b++) {
			snprintf(name, sizeof name, "%x%x", a, b);
			if (sentry_objects_move(pobj, gobj, name, -1, err) < 0)
				return -1;
		}
	if (sentry_objects_move(pobj, gobj, "pack", 0, err) < 0 ||
	    sentry_objects_move(pobj, gobj, "pack", 1, err) < 0)
		return -1;
	if (access(alt, F_OK) != 0 || sentry_read_raw(alt, &cur, &len, err) < 0)
		return access(alt, F_OK) != 0 ? 0 : -1;
	for (line = strtok_r(cur, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, pobj) == 0)
			continue;
		t = xasprintf("%s%s\n", next, line);
		free(next);
		next = t;
	}
	if (*next == '\0')
		return unlink(alt) < 0 && errno != ENOENT ?
		    lz_err_sys(err, errno, "cannot remove '%s'", alt) : 0;
	return sentry_write_file(alt, next, 0644, err);
}

/* The git dir's mounts: G read-only at dst, the agent's writable parts, the
 * protected files of its private gitdir, tmpfs over hooks. */
static void
sentry_git_mounts(struct sentry_layout *l, const char *g, const char *dst, const char *id,
    const char *empty, const char *pobj)
{
	static const char *const rw[] = { "refs/heads/lazaret", "logs/refs/heads/lazaret" };
	static const char *const self_ro[] = { "commondir", "gitdir" };
	_cleanup_free_ char *psrc = xasprintf("%s/worktrees/%s", g, id);
	_cleanup_free_ char *pdst = xasprintf("%s/worktrees/%s", dst, id);
	_cleanup_free_ char *cw = xasprintf("%s/config.worktree", pdst);
	size_t i;

	sentry_bind(l, g, dst, true);
	for (i = 0; i < sizeof rw / sizeof rw[0]; i++) {
		_cleanup_free_ char *s = xasprintf("%s/%s", g, rw[i]);
		_cleanup_free_ char *d = xasprintf("%s/%s", dst, rw[i]);

		sentry_bind(l, s, d, false);
	}
	sentry_bind(l, psrc, pdst, false);
	for (i = 0; i < sizeof self_ro / sizeof self_ro[0]; i++) {
		_cleanup_free_ char *s = xasprintf("%s/%s", psrc, self_ro[i]);
		_cleanup_free_ char *d = xasprintf("%s/%s", pdst, self_ro[i]);

		sentry_bind(l, s, d, true);
	}
	sentry_bind(l, empty, cw, true);
	sentry_hooks(l, g, dst, 0);
	/* New objects go to the private store, at its host path so that G's
	 * alternates line resolves in the sandbox too (sentry_objects_prepare). */
	sentry_bind(l, pobj, pobj, false);
	lz_strv_pushf(&l->env, "GIT_OBJECT_DIRECTORY=%s", pobj);
	lz_strv_pushf(&l->env, "GIT_ALTERNATE_OBJECT_DIRECTORIES=%s/objects", dst);
}

/* Host-side preparation of G: the writable mount points, the mount point of
 * config.worktree, and no symlink where a bind or host git would follow one. */
static int
sentry_git_prepare(const char *g, const char *id, lz_err_t *err)
{
	static const char *const files[] = { "commondir", "gitdir", "config.worktree" };
	_cleanup_free_ char *admin = xasprintf("%s/worktrees/%s", g, id);
	_cleanup_free_ char *objects = xasprintf("%s/objects", g);
	struct stat st;
	size_t i;

	if (!sentry_is_dir(objects) || !sentry_is_dir(admin))
		return lz_err_set(err, LZ_EINVAL, "'%s' is not a git directory with worktree "
		    "'%s'", g, id);
	if (sentry_mkdirs(g, "refs/heads/lazaret", 0777, err) < 0 ||
	    sentry_mkdirs(g, "logs/refs/heads/lazaret", 0777, err) < 0)
		return -1;
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		_cleanup_free_ char *f = xasprintf("%s/%s", admin, files[i]);
		_cleanup_close_ int fd = -1;

		if (lstat(f, &st) == 0) {
			if (!S_ISREG(st.st_mode))
				return lz_err_set(err, LZ_EINVAL, "'%s' is not a regular file: "
				    "remove it and start again", f);
			continue;
		}
		if ((fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0644)) < 0)
			return lz_err_sys(err, errno, "cannot create '%s'", f);
	}
	return 0;
}

/* Remove from directory dfd (shown as path) what host git must never
 * follow out of the agent's writable parts: symlinks (a COMMIT_EDITMSG
 * pointing at ~/.bashrc is truncated by the user's next commit in that
 * checkout, a logs/HEAD one gets reflog lines appended) and other
 * non-regular files (a FIFO hangs host git). Down depth levels; counts what
 * it removed, *first takes the first path. Takes dfd. */
static size_t
sentry_scrub_at(int dfd, const char *path, int depth, char **first)
{
	struct dirent *e;
	struct stat st;
	size_t n = 0;
	DIR *d;

	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return 0;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			_cleanup_free_ char *sub = NULL;
			int fd;

			if (depth == 0 || (fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
				continue;
			sub = xasprintf("%s/%s", path, e->d_name);
			n += sentry_scrub_at(fd, sub, depth - 1, first);
		} else if (!S_ISREG(st.st_mode) && unlinkat(dirfd(d), e->d_name, 0) == 0) {
			if (first != NULL && *first == NULL)
				*first = xasprintf("%s/%s", path, e->d_name);
			n++;
		}
	}
	closedir(d);
	return n;
}

/* sentry_scrub_at over everything of G the agent can write, and over its
 * private object store pobj (may be NULL). */
static size_t
sentry_scrub(const char *g, const char *id, const char *pobj, char **first)
{
	_cleanup_free_ char *admin = xasprintf("worktrees/%s", id);
	const struct { const char *rel; int depth; } parts[] = {
		{ admin, 16 }, { "refs/heads/lazaret", 16 }, { "logs/refs/heads/lazaret", 16 },
	};
	size_t i, n = 0;

	for (i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", g, parts[i].rel);
		int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd >= 0)
			n += sentry_scrub_at(fd, p, parts[i].depth, first);
	}
	if (pobj != NULL) {
		/* Host git would follow the store's own alternates too. */
		static const char *const alts[] = { "info/alternates", "info/http-alternates" };
		int fd = open(pobj, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd >= 0)
			n += sentry_scrub_at(fd, pobj, 2, first);
		for (i = 0; i < sizeof alts / sizeof alts[0]; i++) {
			_cleanup_free_ char *f = xasprintf("%s/%s", pobj, alts[i]);

			if (unlink(f) == 0) {
				if (first != NULL && *first == NULL)
					*first = xstrdup(f);
				n++;
			}
		}
	}
	return n;
}

/* Lexically normalise absolute path p ("." and ".." components, repeated
 * slashes) in place. */
static void
sentry_normalise(char *p)
{
	char *out = p, *seg = p, *end;
	size_t n;

	while (*seg != '\0') {
		while (*seg == '/')
			seg++;
		if (*seg == '\0')
			break;
		end = strchrnul(seg, '/');
		n = (size_t)(end - seg);
		if (n == 1 && seg[0] == '.') {
			/* skip */
		} else if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, seg, n);
			out += n;
		}
		seg = end;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* Where host git takes config path value v (relative to dir, "~/" = $HOME):
 * absolute, symlinks resolved in the part that exists. NULL when v cannot
 * be placed. */
static char *
sentry_resolve(const char *dir, const char *v)
{
	_cleanup_free_ char *abs = NULL, *real = NULL;
	const char *home = getenv("HOME");
	char *cut;

	if (strncmp(v, "~/", 2) == 0)
		abs = home != NULL ? xasprintf("%s/%s", home, v + 2) : NULL;
	else if (v[0] == '~')
		return NULL;
	else
		abs = v[0] == '/' ? xstrdup(v) : xasprintf("%s/%s", dir, v);
	if (abs == NULL)
		return NULL;
	sentry_normalise(abs);
	/* The longest prefix that exists, canonical, then the rest. */
	for (cut = abs + strlen(abs);;) {
		char c = *cut;

		*cut = '\0';
		real = realpath(*abs != '\0' ? abs : "/", NULL);
		*cut = c;
		if (real != NULL)
			return xasprintf("%s%s", strcmp(real, "/") == 0 ? "" : real, cut);
		while (cut > abs && *--cut != '/')
			;
		if (cut == abs)
			return NULL;
	}
}

/* path below base: the relative rest, else NULL. */
static const char *
sentry_below(const char *base, const char *path)
{
	size_t n = strlen(base);

	if (strncmp(path, base, n) != 0 || path[n] != '/' || path[n + 1] == '\0')
		return NULL;
	return path + n + 1;
}

/* What the checkout itself holds that host git obeys: a core.hooksPath in
 * the working tree (husky's .husky, .githooks) runs on the user's next
 * commit, a config include.path into it (direct mode) is read as config.
 * Each gets a read-only bind over its /workspace copy (a tmpfs or the empty
 * file when it does not exist yet, so the agent cannot create it). */
static int
sentry_tree_guards(struct sentry_layout *l, const struct sentry_repo *r, const char *checkout,
    const char *empty, lz_err_t *err)
{
	_cleanup_free_ char *hooks = NULL, *incs = NULL, *cfg = xasprintf("%s/config", r->common);
	char *line, *save = NULL, *v;
	int st, st_inc;

	/* Exit 1 is "none set" for both. */
	if (sentry_git(r->top, &hooks, &st, err, "config", "--get", "core.hooksPath", NULL) < 0 ||
	    sentry_git(r->top, &incs, &st_inc, err, "config", "--file", cfg, "--get-regexp",
	    "^include(if\\..*)?\\.path$", NULL) < 0)
		return -1;
	if (st_inc != 0)
		*incs = '\0';
	if (st == 0 && *hooks != '\0') {
		_cleanup_free_ char *h = sentry_resolve(checkout, hooks);
		const char *rel = h != NULL ? sentry_below(checkout, h) : NULL;
		struct stat sb;

		if (rel != NULL && strcmp(rel, ".git") != 0 && strncmp(rel, ".git/", 5) != 0) {
			_cleanup_free_ char *dst = xasprintf(SENTRY_WORKSPACE_DST "/%s", rel);

			if (sentry_path_check("core.hooksPath", h, true, err) < 0)
				return -1;
			if (stat(h, &sb) < 0)
				sentry_push_mount(l, DRV_MOUNT_TMPFS, NULL, dst, false, NULL);
			else if (S_ISDIR(sb.st_mode))
				sentry_bind(l, h, dst, true);
		}
	}
	for (line = strtok_r(incs, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		_cleanup_free_ char *f = NULL, *dst = NULL;
		const char *rel;
		struct stat sb;

		if ((v = strchr(line, ' ')) == NULL || *++v == '\0' ||
		    (f = sentry_resolve(r->common, v)) == NULL ||
		    (rel = sentry_below(checkout, f)) == NULL ||
		    strcmp(rel, ".git") == 0 || strncmp(rel, ".git/", 5) == 0)
			continue;
		if (sentry_path_check("include.path", f, true, err) < 0)
			return -1;
		dst = xasprintf(SENTRY_WORKSPACE_DST "/%s", rel);
		if (stat(f, &sb) < 0)
			sentry_bind(l, empty, dst, true);
		else if (S_ISREG(sb.st_mode))
			sentry_bind(l, f, dst, true);
	}
	return 0;
}

/* Nested repositories in a workspace the agent writes directly (a plain
 * directory of checkouts, vendored repos): their .git would otherwise be
 * writable, and the user's next git command there would obey the agent's
 * config and hooks. Each .git directory gets a read-only bind over itself
 * (plus the hooks tmpfs), each .git file too (so it cannot be repointed).
 * The walk stops SENTRY_NESTED_DEPTH levels down and after
 * SENTRY_NESTED_BUDGET entries; node_modules is not entered. */
#define SENTRY_NESTED_DEPTH 6
#define SENTRY_NESTED_BUDGET 100000

struct sentry_nested {
	struct sentry_layout *l;
	size_t budget;
	size_t found;
	bool skip_top_git;	/* the workspace's own .git is the Sentry's */
};

static int
sentry_nested_walk(struct sentry_nested *n, const char *src, const char *dst, int depth,
    lz_err_t *err)
{
	struct dirent *e;
	struct stat st;
	int fd, ret = 0;
	DIR *d;

	if ((fd = open(src, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return 0;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while (ret == 0 && n->budget > 0 && (e = readdir(d)) != NULL) {
		_cleanup_free_ char *s = NULL, *t = NULL;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n->budget--;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		s = xasprintf("%s/%s", src, e->d_name);
		t = xasprintf("%s/%s", dst, e->d_name);
		if (strcmp(e->d_name, ".git") == 0) {
			if (n->skip_top_git && depth == SENTRY_NESTED_DEPTH)
				continue;
			if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
				continue;
			if (sentry_path_check("nested git repository", s, true, err) < 0) {
				ret = -1;
				break;
			}
			sentry_bind(n->l, s, t, true);
			if (S_ISDIR(st.st_mode))
				sentry_hooks(n->l, s, t, 0);
			n->found++;
		} else if (S_ISDIR(st.st_mode) && depth > 0 &&
		    strcmp(e->d_name, "node_modules") != 0)
			ret = sentry_nested_walk(n, s, t, depth - 1, err);
	}
	closedir(d);
	return ret;
}

/* Guard the nested repositories below checkout (shown at /workspace);
 * *notice gains a line when any were found or the walk was cut short. */
static int
sentry_guard_nested(struct sentry_layout *l, const char *checkout, bool skip_top_git,
    lz_err_t *err)
{
	struct sentry_nested n = { l, SENTRY_NESTED_BUDGET, 0, skip_top_git };

	if (sentry_nested_walk(&n, checkout, SENTRY_WORKSPACE_DST, SENTRY_NESTED_DEPTH, err) < 0)
		return -1;
	if (n.found > 0)
		sentry_notice_add(l, xasprintf("%zu nested git repositor%s read-only in the "
		    "sandbox", n.found, n.found == 1 ? "y" : "ies"));
	if (n.budget == 0)
		sentry_notice_add(l, xasprintf("stopped looking for nested git repositories "
		    "after %d entries", SENTRY_NESTED_BUDGET));
	return 0;
}

int
sentry_prepare(const struct anchor *a, enum sentry_mode mode, struct sentry_layout *out,
    lz_err_t *err)
{
	struct sentry_repo r = { 0 };
	_cleanup_free_ char *dr = NULL, *wt = NULL, *sdir = NULL, *empty = NULL;
	_cleanup_free_ char *gitfile = NULL, *gitfile_txt = NULL, *id = NULL;
	_cleanup_free_ char *wt_note = NULL, *modefile = NULL, *prev_mode = NULL;
	_cleanup_free_ char *first = NULL, *pobj = NULL;
	size_t scrubbed;
	const char *gdst;
	int ret = -1, kind;

	memset(out, 0, sizeof *out);
	if (sentry_path_check("workspace", a->workspace, true, err) < 0)
		return -1;
	if ((kind = sentry_probe(a->workspace, &r, &out->notice, err)) < 0)
		goto fail;
	if (kind == 0) {
		sentry_bind(out, a->workspace, SENTRY_WORKSPACE_DST, false);
		if (sentry_guard_nested(out, a->workspace, false, err) < 0)
			goto fail;
		return 0;
	}
	if (sentry_path_check("git directory", r.common, true, err) < 0)
		goto fail;
	if (sentry_mkdirs("", a->domain_root + 1, 0700, err) < 0)
		goto fail;
	if ((dr = realpath(a->domain_root, NULL)) == NULL) {
		lz_err_sys(err, errno, "domain root '%s'", a->domain_root);
		goto fail;
	}
	if (sentry_path_check("domain root", dr, true, err) < 0)
		goto fail;
	/* git records the canonical path; compare against the same. */
	wt = xasprintf("%s/lazaret-%s", dr, a->hash);
	sdir = xasprintf("%s/sentry", dr);
	empty = xasprintf("%s/empty", sdir);
	gitfile = xasprintf("%s/gitfile", sdir);
	modefile = xasprintf("%s/mode", sdir);
	if (sentry_read_small(modefile, &prev_mode, NULL) < 0)
		prev_mode = NULL;
	pobj = xasprintf("%s/objects", dr);
	if (sentry_worktree_ensure(a, &r, wt, mode, prev_mode != NULL &&
	    strcmp(prev_mode, "direct") == 0, &id, &wt_note, err) < 0 ||
	    sentry_git_prepare(r.common, id, err) < 0 ||
	    sentry_objects_prepare(r.common, pobj, err) < 0)
		goto fail;
	gitfile_txt = xasprintf("gitdir: %s/worktrees/%s\n", SENTRY_GIT_DST, id);
	if (sentry_mkdirs(dr, "sentry", 0700, err) < 0 ||
	    sentry_write_file(empty, "", 0444, err) < 0 ||
	    sentry_write_file(gitfile, gitfile_txt, 0444, err) < 0 ||
	    sentry_write_file(modefile, mode == SENTRY_DIRECT ? "direct\n" : "isolated\n",
	    0600, err) < 0)
		goto fail;

	out->is_git = true;
	out->branch = xstrdup(a->branch);
	if (mode == SENTRY_ISOLATED) {
		sentry_bind(out, wt, SENTRY_WORKSPACE_DST, false);
		sentry_bind(out, gitfile, SENTRY_WORKSPACE_DST "/.git", true);
		gdst = SENTRY_GIT_DST;
	} else if (r.dotgit_is_dir) {
		sentry_bind(out, a->workspace, SENTRY_WORKSPACE_DST, false);
		gdst = SENTRY_WORKSPACE_DST "/.git";
		lz_strv_pushf(&out->env, "GIT_DIR=%s/worktrees/%s", gdst, id);
		lz_strv_push(&out->env, "GIT_WORK_TREE=" SENTRY_WORKSPACE_DST);
	} else {
		/* The workspace is a linked worktree itself: cover its .git file. */
		sentry_bind(out, a->workspace, SENTRY_WORKSPACE_DST, false);
		sentry_bind(out, gitfile, SENTRY_WORKSPACE_DST "/.git", true);
		gdst = SENTRY_GIT_DST;
	}
	sentry_git_mounts(out, r.common, gdst, id, empty, pobj);
	if (sentry_tree_guards(out, &r, mode == SENTRY_ISOLATED ? wt : a->workspace, empty,
	    err) < 0)
		goto fail;
	if (wt_note != NULL)
		sentry_notice_add(out, xasprintf("%s (checkout %s)", wt_note,
		    mode == SENTRY_ISOLATED ? wt : a->workspace));
	/* The isolated checkout is git's own work: only direct mode can hold
	 * the user's nested repositories. */
	if (mode == SENTRY_DIRECT && sentry_guard_nested(out, a->workspace, true, err) < 0)
		goto fail;
	if ((scrubbed = sentry_scrub(r.common, id, pobj, &first)) > 0)
		sentry_notice_add(out, xasprintf("removed %zu symlink(s) or special file(s) "
		    "the agent left in .git (first: %s)", scrubbed, first));
	ret = 0;
	goto out;
fail:
	sentry_layout_clear(out);
out:
	sentry_repo_clear(&r);
	return ret;
}

void
sentry_layout_clear(struct sentry_layout *l)
{
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->n_mounts; i++)
		drv_mount_clear(&l->mounts[i]);
	free(l->mounts);
	free(l->notice);
	free(l->branch);
	lz_strv_free(l->env);
	memset(l, 0, sizeof *l);
}

int
sentry_release(const struct anchor *a, lz_err_t *err)
{
	_cleanup_free_ char *dr = NULL, *wt = NULL, *gitfile = NULL, *content = NULL;
	_cleanup_free_ char *admin = NULL, *common = NULL, *id = NULL, *pobj = NULL;
	char *slash;

	/* No worktree, nothing to do: a plain workspace, or never prepared. */
	if ((dr = realpath(a->domain_root, NULL)) == NULL)
		return 0;
	wt = xasprintf("%s/lazaret-%s", dr, a->hash);
	gitfile = xasprintf("%s/.git", wt);
	if (sentry_read_small(gitfile, &content, NULL) < 0 ||
	    strncmp(content, "gitdir: ", 8) != 0 ||
	    (admin = realpath(content + 8, NULL)) == NULL)
		return 0;
	/* <G>/worktrees/<id>: take G, then check the pair really belongs together. */
	common = xstrdup(admin);
	for (int up = 0; up < 2; up++)
		if ((slash = strrchr(common, '/')) != NULL && slash != common)
			*slash = '\0';
	if (sentry_worktree_id(common, wt, &id, NULL) != 1)
		return 0;
	/* Nothing to unmount; the worktree and branch are the user's data, and
	 * the agent's objects become the repository's own. */
	pobj = xasprintf("%s/objects", dr);
	(void)sentry_scrub(common, id, pobj, NULL);
	return sentry_objects_migrate(common, pobj, err);
}
