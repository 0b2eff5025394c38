/* sentry-workspace.c - which directory lazaret uses as the workspace, and
 * which it refuses.
 *
 * A directory inside a git repository resolves to the repository's top
 * level: the domain, the agent's checkout and /workspace are the whole
 * repository (sessions open at /workspace, its top), whichever
 * subdirectory lazaret was started from. A directory that holds what the
 * agent must never write or read — $HOME itself, /, the Storage Root
 * (every domain's state.db), the configuration directory, socket_dir,
 * ~/.ssh, Podman's container storage — is refused in every mode unless the
 * user says --allow-unsafe-workspace: in direct mode the agent would get it
 * read-write (~/.bashrc, containers.conf), and even read-only it would
 * read every domain's secrets.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "xmalloc.h"

/* Is path (canonical) dir itself or below it? */
static bool
sentry_ws_within(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The git top level holding dir, or NULL when dir is in no work tree. */
static char *
sentry_ws_toplevel(const char *dir)
{
	_cleanup_free_ char *out = NULL;
	char *top;
	int st;

	if (sentry_git(dir, &out, &st, NULL, "rev-parse", "--show-toplevel", NULL) < 0 ||
	    st != 0 || *out == '\0')
		return NULL;
	top = realpath(out, NULL);
	return top;
}

/* Refuse ws when it is one of the protected places or holds one. */
static int
sentry_ws_unsafe(const char *ws, const char *data_root, const char *socket_dir,
    lz_err_t *err)
{
	const char *home = getenv("HOME"), *xdg_cfg = getenv("XDG_CONFIG_HOME");
	const char *xdg_data = getenv("XDG_DATA_HOME"), *cfgfile = getenv("LAZARET_CONFIG");
	struct { const char *what; char *path; } prot[8];
	size_t n = 0, i;
	int ret = 0;

	if (strcmp(ws, "/") == 0)
		return lz_err_set(err, EPERM, "workspace '/' would give the agent the whole "
		    "machine: choose a project directory (or --allow-unsafe-workspace)");
	if (home != NULL && *home == '/') {
		_cleanup_free_ char *h = realpath(home, NULL);

		if (h != NULL && strcmp(h, ws) == 0)
			return lz_err_set(err, EPERM, "workspace '%s' is your home directory "
			    "(~/.bashrc, ~/.ssh, every domain's state): choose a project "
			    "directory (or --allow-unsafe-workspace)", ws);
	}
	prot[n].what = "the Storage Root (data_root)";
	prot[n++].path = xstrdup(data_root);
	if (home != NULL && *home == '/') {
		prot[n].what = "~/.ssh";
		prot[n++].path = xasprintf("%s/.ssh", home);
	}
	if (socket_dir != NULL) {
		prot[n].what = "socket_dir";
		prot[n++].path = xstrdup(socket_dir);
	}
	prot[n].what = "the configuration directory";
	if (cfgfile != NULL && *cfgfile == '/') {
		prot[n].path = xstrdup(cfgfile);
		*strrchr(prot[n].path, '/') = '\0';
	} else if (xdg_cfg != NULL && *xdg_cfg == '/')
		prot[n].path = xasprintf("%s/lazaret", xdg_cfg);
	else
		prot[n].path = home != NULL ? xasprintf("%s/.config/lazaret", home) : NULL;
	n += prot[n].path != NULL;
	prot[n].what = "container storage";
	if (xdg_data != NULL && *xdg_data == '/')
		prot[n].path = xasprintf("%s/containers", xdg_data);
	else
		prot[n].path = home != NULL ? xasprintf("%s/.local/share/containers", home) : NULL;
	n += prot[n].path != NULL;
	prot[n].what = "container storage";
	prot[n++].path = xstrdup("/var/lib/containers");
	for (i = 0; i < n; i++) {
		_cleanup_free_ char *real = realpath(prot[i].path, NULL);
		const char *p = real != NULL ? real : prot[i].path;

		if (ret == 0 && sentry_ws_within(ws, p))
			ret = lz_err_set(err, EPERM, "workspace '%s' holds %s ('%s'), which the "
			    "agent must not reach: choose a project directory (or "
			    "--allow-unsafe-workspace)", ws, prot[i].what, p);
		free(prot[i].path);
	}
	return ret;
}

int
sentry_workspace_check(const char *ws, const char *data_root, const char *socket_dir,
    bool allow_unsafe, lz_err_t *err)
{
	return allow_unsafe ? 0 : sentry_ws_unsafe(ws, data_root, socket_dir, err);
}

/* path canonical, a directory, with git the top level of the work tree
 * holding it; then checked. */
static int
sentry_ws_named(const char *path, bool git, const char *data_root, const char *socket_dir,
    bool allow_unsafe, char **out, lz_err_t *err)
{
	_cleanup_free_ char *canon = realpath(path, NULL), *top = NULL;
	struct stat st;

	*out = NULL;
	if (canon == NULL)
		return lz_err_sys(err, errno, "workspace '%s'", path);
	if (stat(canon, &st) < 0 || !S_ISDIR(st.st_mode))
		return lz_err_set(err, ENOTDIR, "workspace '%s' is not a directory", path);
	/* Inside .git (or a bare repository) stays as named: the Sentry refuses it. */
	if (git && (top = sentry_ws_toplevel(canon)) != NULL && sentry_ws_within(top, canon)) {
		free(canon);
		canon = lz_steal_ptr(&top);
	}
	if (sentry_workspace_check(canon, data_root, socket_dir, allow_unsafe, err) < 0)
		return -1;
	*out = lz_steal_ptr(&canon);
	return 0;
}

int
sentry_workspace_resolve(const char *path, const char *data_root, const char *socket_dir,
    bool allow_unsafe, char **out, lz_err_t *err)
{
	return sentry_ws_named(path, true, data_root, socket_dir, allow_unsafe, out, err);
}

int
sentry_workspace_exact(const char *path, const char *data_root, const char *socket_dir,
    bool allow_unsafe, char **out, lz_err_t *err)
{
	return sentry_ws_named(path, false, data_root, socket_dir, allow_unsafe, out, err);
}
