/* sentry.c - the Git Sentry and branch isolation.
 *
 * Theory of operation.
 *
 * PRINCIPLE: what the agent writes is data, never configuration or index.
 * Host git never opens a file the agent can write as part of a repository
 * it trusts: no alternates line into the agent's store, no gitdir of the
 * agent's registered in the host repository, no .git of the agent's left in
 * a tree the user runs git in. What the host takes from the agent (commits,
 * branches, tags) enters through git's own verification.
 *
 * Why (measured, issue 8): the first Sentry mounted the host's .git
 * read-only with writable holes (refs/heads/lazaret/, the agent's worktree
 * gitdir, a private object store the host borrowed through
 * objects/info/alternates). Every hole was read by host git as trusted: a
 * hand-edited .idx in the store mapped the id of the user's Makefile blob
 * to the agent's bytes; a symbolic ref under lazaret/ moved main; a HEAD
 * the agent broke failed the user's `git gc`. And ordinary git (topic
 * branches, tags, stash, notes, worktrees, gc) could not work, since the
 * rest of the host's .git was read-only. Alternatives measured against
 * each other: (a) keep the holes and verify them at each host read: no
 * hook exists for "before host git reads"; (b) import at teardown only:
 * the user would not see the agent's commits during the session (spec
 * §4.2 State Propagation); (c) a private repository and a continuous
 * verified import: chosen.
 *
 * So the agent gets a repository of its own, P = <dr>/git (sentry-repo.c),
 * mounted read-write at /workspace/.git in both modes, over the checkout:
 *
 *   isolated  /workspace = <dr>/lazaret-<H>, filled from the agent branch;
 *             on the host its .git is an empty directory (no repository).
 *   direct    /workspace = the host checkout itself; the host's own .git is
 *             not visible in the sandbox at all (P covers it).
 *
 * P borrows the host's objects READ-ONLY: G/objects is bound at the
 * neutral path SENTRY_OBJECTS_DST and P's alternates line names that path
 * (no host path in the sandbox). Inside, every local git command works:
 * branches, tags, stash, notes, worktrees, rebase, bisect, gc, its own
 * local config; the host's branches are refs/remotes/host/<name>, a
 * read-only directory of Lazaret's that follows the host's refs live, and
 * P's config includes the host's identity, aliases and a few settings
 * the same way (sentry-hostview.c, kept current by sentry-follow.c).
 *
 * The host takes the agent's work by import (sentry-import.c): a `git
 * fetch` with object checking from a shadow gitdir Lazaret builds (refs
 * copied as validated data, objects staged with indexes rebuilt from
 * content), into refs/heads/lazaret/agent-<profile> (main line),
 * refs/heads/lazaret/<profile>/<branch> and refs/tags/lazaret/<profile>/<tag>,
 * nothing else. The coordinator runs it whenever the agent's refs change
 * (sentry-watch.c), at prepare (catch-up after a crash) and at release.
 * Lazaret never runs git in P with P's config; neither should the user.
 *
 * Submodules: G/modules is bound read-only at /workspace/.git/modules
 * (with empty tmpfs over each module's hooks), so the host checkout's
 * gitfiles resolve in direct mode. Nested repositories and submodule paths
 * are guarded, and .git the agent creates quarantined (sentry-guard.c).
 * A workspace that is not a repository is refused in isolated mode
 * (sentry-workspace.c names the fix, --mode direct).
 *
 * Ownership: rootless podman maps the host user to the container's root,
 * so the files appear owned by the uid git runs as and git's safe.directory
 * check passes without configuration.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "strv.h"
#include "xmalloc.h"

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

/* A workspace that is no repository: direct mode only. */
static int
sentry_prepare_plain(const struct anchor *a, enum sentry_mode mode, struct sentry_layout *out,
    lz_err_t *err)
{
	struct sentry_paths p;
	_cleanup_free_ char *modef = NULL;
	int ret = -1;

	if (mode == SENTRY_ISOLATED)
		return lz_err_set(err, LZ_EINVAL, "workspace '%s' is not a git repository: "
		    "isolated mode keeps the agent's work on a branch of one; run with "
		    "--mode direct to let the agent edit this directory itself", a->workspace);
	if (sentry_paths_init(a, true, &p, err) < 0)
		return -1;
	modef = xasprintf("%s/mode", p.sdir);
	out->notice = xstrdup("not a git repository: the agent edits it directly");
	sentry_bind(out, a->workspace, SENTRY_WORKSPACE_DST, false);
	if (sentry_mkdirs(p.dr, "sentry", 0700, err) < 0 ||
	    sentry_write_file(modef, "direct\n", 0600, err) < 0 ||
	    sentry_guard_gits(out, &p, a->workspace, NULL, NULL, err) < 0)
		goto out;
	ret = 0;
out:
	sentry_paths_clear(&p);
	return ret;
}

/* The git mounts: P at gdst, the host's objects read-only at the neutral
 * path, the host's submodule gitdirs read-only with their hooks masked. */
static int
sentry_git_mounts(struct sentry_layout *l, const struct sentry_repo *r,
    const struct sentry_paths *p, const char *gdst, const char *empty, lz_err_t *err)
{
	_cleanup_free_ char *gobj = xasprintf("%s/objects", r->common);
	_cleanup_free_ char *gmod = xasprintf("%s/modules", r->common);
	_cleanup_free_ char *mdst = xasprintf("%s/modules", gdst);
	char **alts = NULL;

	_cleanup_free_ char *vrefs = xasprintf("%s/refs", p->view);
	_cleanup_free_ char *vgit = xasprintf("%s/git", p->view);
	_cleanup_free_ char *hdst = xasprintf("%s/refs/remotes/host", gdst);

	sentry_bind(l, p->priv, gdst, false);
	sentry_bind(l, gobj, SENTRY_OBJECTS_DST, true);
	/* The host's branches and settings, live and read-only (sentry-hostview.c). */
	sentry_bind(l, vrefs, hdst, true);
	sentry_bind(l, vgit, SENTRY_HOSTCFG_DST, true);
	if (sentry_host_alternates(r, &alts, err) < 0)
		return -1;
	if (alts != NULL) {
		/* Its lines name host paths: the sandbox gets ours instead. */
		sentry_bind(l, empty, SENTRY_OBJECTS_DST "/info/alternates", true);
		for (size_t i = 0; alts[i] != NULL; i++) {
			_cleanup_free_ char *dst = xasprintf(SENTRY_ALTERNATES_DST "/%zu", i);

			sentry_bind(l, alts[i], dst, true);
		}
		lz_strv_free(alts);
	}
	if (sentry_is_dir(gmod)) {
		sentry_bind(l, gmod, mdst, true);
		sentry_modules_walk(l, gmod, mdst, 0);
	}
	return 0;
}

struct sentry_job *
sentry_probe_begin(const struct anchor *a)
{
	return sentry_probe_start(a->workspace);
}

void
sentry_job_free(struct sentry_job *j)
{
	(void)sentry_git_finish(j, NULL, NULL, NULL, NULL);
}

int
sentry_prepare(const struct anchor *a, enum sentry_mode mode, struct sentry_layout *out,
    lz_err_t *err)
{
	return sentry_prepare_probed(a, mode, NULL, out, err);
}

int
sentry_prepare_probed(const struct anchor *a, enum sentry_mode mode, struct sentry_job *probe,
    struct sentry_layout *out, lz_err_t *err)
{
	struct sentry_repo r = { 0 };
	struct sentry_paths p = { 0 };
	struct sentry_job *cfg = NULL;
	_cleanup_free_ char *empty = NULL, *modef = NULL, *qrep = NULL;
	const char *tree, *gdst = SENTRY_WORKSPACE_DST "/.git";
	int ret = -1, kind, converted;

	memset(out, 0, sizeof *out);
	if (sentry_path_check("workspace", a->workspace, true, err) < 0) {
		sentry_job_free(probe);
		return -1;
	}
	if ((kind = sentry_probe(a->workspace, probe, &r, &out->notice, err)) < 0)
		goto fail;
	if (kind == 0) {
		if (sentry_prepare_plain(a, mode, out, err) < 0)
			goto fail;
		return 0;
	}
	/* git reads the config (sentry_tree_guards) while we make P. */
	cfg = sentry_guard_config_start(&r);
	if (sentry_path_check("git directory", r.common, true, err) < 0 ||
	    sentry_paths_init(a, true, &p, err) < 0 ||
	    (converted = sentry_private_ensure(a, &r, &p, mode == SENTRY_DIRECT, &out->notice,
	    &out->report, err)) < 0)
		goto fail;
	/* The old store's history, verified, before the host needs it. */
	if (converted)
		sentry_import_note(a, &p, &r, &out->report);
	empty = xasprintf("%s/empty", p.sdir);
	modef = xasprintf("%s/mode", p.sdir);
	if (sentry_write_file(empty, "", 0444, err) < 0 ||
	    sentry_write_file(modef, mode == SENTRY_DIRECT ? "direct\n" : "isolated\n", 0600,
	    err) < 0)
		goto fail;

	out->is_git = true;
	out->branch = xstrdup(a->branch);
	tree = mode == SENTRY_ISOLATED ? p.checkout : a->workspace;
	sentry_bind(out, tree, SENTRY_WORKSPACE_DST, false);
	if (mode == SENTRY_DIRECT && !r.dotgit_is_dir) {
		/* The workspace is a linked worktree: its .git is a file (naming
		 * a host path), which a directory cannot cover. Ours covers it,
		 * read-only, naming P at its neutral path. */
		_cleanup_free_ char *gf = xasprintf("%s/gitfile", p.sdir);

		if (sentry_write_file(gf, "gitdir: " SENTRY_GITDIR_DST "\n", 0444, err) < 0)
			goto fail;
		sentry_bind(out, gf, SENTRY_WORKSPACE_DST "/.git", true);
		gdst = SENTRY_GITDIR_DST;
	}
	if (sentry_git_mounts(out, &r, &p, gdst, empty, err) < 0)
		goto fail;
	if (sentry_tree_guards(out, &r, tree, empty, p.view, lz_steal_ptr(&cfg), err) < 0)
		goto fail;
	if (mode == SENTRY_ISOLATED) {
		if (sentry_quarantine(&p, tree, &qrep, err) < 0)
			goto fail;
		if (qrep != NULL)
			sentry_notice_add(&out->report, lz_steal_ptr(&qrep));
	}
	if (sentry_guard_gits(out, &p, tree, &r, mode == SENTRY_ISOLATED ? a->branch : NULL,
	    err) < 0)
		goto fail;
	ret = 0;
	goto out;
fail:
	sentry_layout_clear(out);
out:
	(void)sentry_git_finish(cfg, NULL, NULL, NULL, NULL);
	sentry_repo_clear(&r);
	sentry_paths_clear(&p);
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
	free(l->report);
	free(l->branch);
	free(l->user_email);
	lz_strv_free(l->env);
	memset(l, 0, sizeof *l);
}

/* <sdir>/git-object-cap: the cap in bytes, so that every import of the
 * domain (the coordinator's, a guard's or lazaret stop's clean-up) uses the
 * profile's, though only the coordinator reads the configuration. */
int
sentry_object_cap_set(const struct anchor *a, uint64_t cap, lz_err_t *err)
{
	struct sentry_paths p;
	_cleanup_free_ char *f = NULL, *v = xasprintf("%llu\n", (unsigned long long)cap);
	int ret;

	if (sentry_paths_init(a, false, &p, err) < 0)
		return -1;
	f = xasprintf("%s/git-object-cap", p.sdir);
	ret = sentry_write_file(f, v, 0600, err);
	sentry_paths_clear(&p);
	return ret;
}

int
sentry_import(const struct anchor *a, char **notice, lz_err_t *err)
{
	struct sentry_paths p;
	struct sentry_repo r;
	int ret;

	if (sentry_paths_init(a, false, &p, err) < 0)
		return -1;
	if (sentry_host_common(&p, &r, err) < 0) {
		sentry_paths_clear(&p);
		return -1;
	}
	ret = sentry_import_run(a, &p, &r, notice, err);
	sentry_repo_clear(&r);
	sentry_paths_clear(&p);
	return ret;
}

int
sentry_release(const struct anchor *a, char **notice, lz_err_t *err)
{
	struct sentry_paths p;
	struct sentry_repo r;
	_cleanup_free_ char *modef = NULL, *mode = NULL, *rep = NULL, *first = NULL;
	_cleanup_free_ char *refs = NULL, *logs = NULL;
	lz_err_t ierr = LZ_ERR_INIT;
	bool git;
	int ret = 0;

	/* Never prepared: nothing to do. */
	if (sentry_paths_init(a, false, &p, NULL) < 0)
		return 0;
	modef = xasprintf("%s/mode", p.sdir);
	if (sentry_read_small(modef, &mode, NULL) < 0) {
		sentry_paths_clear(&p);
		return 0;
	}
	git = sentry_host_common(&p, &r, NULL) == 0 && sentry_is_dir(p.priv);
	/* The last import, then the agent's .git elsewhere taken away. An
	 * import git refuses is reported, not a failed teardown: no retry of
	 * the teardown would change its verdict, and a domain left dead for it
	 * could never be cleared. The commits stay in the agent's repository. */
	if (git && sentry_import_run(a, &p, &r, &rep, &ierr) < 0) {
		sentry_notice_add(&rep, xasprintf("%s (they stay in the agent's repository %s; "
		    "the next session imports them)", ierr.msg, p.priv));
		lz_err_clear(&ierr);
	}
	if (rep != NULL && notice != NULL)
		sentry_notice_add(notice, lz_steal_ptr(&rep));
	free(lz_steal_ptr(&rep));
	if (sentry_quarantine(&p, strcmp(mode, "direct") == 0 ? a->workspace : p.checkout,
	    &rep, err) < 0)
		ret = -1;
	if (rep != NULL && notice != NULL)
		sentry_notice_add(notice, lz_steal_ptr(&rep));
	if (git) {
		refs = xasprintf("%s/refs", p.priv);
		logs = xasprintf("%s/logs", p.priv);
		(void)sentry_scrub_tree(refs, &first);
		(void)sentry_scrub_tree(logs, &first);
		sentry_repo_clear(&r);
	}
	sentry_paths_clear(&p);
	return ret;
}
