/* rexec.c - sessions through `runsc exec` without podman (rexec.h).
 *
 * Theory of operation. After `podman run -d` returns, the container's
 * conmon is running; its command line names everything podman gave the
 * runtime: -c ID, -b BUNDLE (holding config.json, the OCI spec podman
 * generated), -r RUNTIME (our runsc wrapper) and --runtime-arg ARG. rexec_open
 * finds that conmon among our own processes, checks each file it names
 * (ours, no symlink, bounded), checks that runsc keeps state for that id
 * under $XDG_RUNTIME_DIR/runsc (the root podman's runsc uses), and keeps
 * config.json's process parsed. rexec_exec then gives
 *   lazaret ns-exec [--ctty] --pid PAUSE -- RUNTIME ARGS --root=ROOT \
 *       exec --process /dev/fd/3 ID
 * and the process JSON to write into fd 3. runsc exec forwards the signals
 * it gets to the command (with a terminal: to its foreground process
 * group) and exits with the command's status (128+n when killed by n).
 * When runsc's state file names the sandbox and its process runs a runsc
 * whose control calls we know (runsc-ctl.h), the session is
 *   lazaret sandbox-exec [--ctty] --sandbox SID --container ID
 * instead, with the same process JSON on fd 3: runsc exec's three calls
 * without its Go start-up. LAZARET_RUNSC_EXEC=1 keeps runsc exec.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prefix.h"
#include "sandbox/rootless/pause.h"
#include "sandbox/podman/rexec-spec.h"
#include "sandbox/podman/rexec.h"
#include "sandbox/runsc/runsc-version.h"
#include "sandbox/runsc/runsc-ctl.h"
#include "strv.h"
#include "xmalloc.h"

#define REXEC_CMDLINE_MAX	(64u << 10)

struct drv_direct {
	char *id;
	char *runtime;
	char **runtime_args;	/* including --root=ROOT */
	struct rexec_spec spec;
	char *root;		/* runsc's state directory */
	char *sandbox;		/* the control socket's id: sessions through sandbox-exec */
	char *self;		/* lazaret-exec (or our own binary), for sandbox-exec */
};

/* Read a whole file below dfd: regular, ours, not a symlink, at most max bytes. */
static int
rexec_read_at(int dfd, const char *path, size_t max, char **buf, size_t *len, lz_err_t *err)
{
	struct stat st;
	size_t n = 0;
	ssize_t r;
	int fd;

	*buf = NULL;
	if ((fd = openat(dfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)) < 0)
		return lz_err_sys(err, errno, "%s", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() ||
	    (size_t)st.st_size > max) {
		close(fd);
		return lz_err_set(err, LZ_EINVAL, "%s: not a regular file of ours under %zu bytes",
		    path, max);
	}
	*buf = xmalloc((size_t)st.st_size + 1);
	while (n < (size_t)st.st_size && (r = read(fd, *buf + n, (size_t)st.st_size - n)) > 0)
		n += (size_t)r;
	close(fd);
	(*buf)[n] = '\0';
	*len = n;
	return 0;
}

/* The conmon of container name among our processes (exactly one). */
static int
rexec_find_conmon(const char *name, struct rexec_conmon *out, lz_err_t *err)
{
	struct rexec_conmon c;
	struct dirent *de;
	struct stat st;
	char path[300], *buf, *bad = NULL;
	size_t len;
	int found = 0, r, pfd;
	DIR *d;

	if ((d = opendir("/proc")) == NULL)
		return lz_err_sys(err, errno, "/proc");
	while ((de = readdir(d)) != NULL) {
		lz_err_t e = LZ_ERR_INIT;

		if (de->d_name[strspn(de->d_name, "0123456789")] != '\0' ||
		    fstatat(dirfd(d), de->d_name, &st, 0) < 0 || st.st_uid != getuid())
			continue;
		snprintf(path, sizeof path, "/proc/%s", de->d_name);
		if ((pfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			continue;
		/* /proc files are size 0 in stat: read up to the cap */
		buf = xmalloc(REXEC_CMDLINE_MAX);
		len = 0;
		{
			int fd = openat(pfd, "cmdline", O_RDONLY | O_CLOEXEC);
			ssize_t n;

			while (fd >= 0 && len < REXEC_CMDLINE_MAX &&
			    (n = read(fd, buf + len, REXEC_CMDLINE_MAX - len)) > 0)
				len += (size_t)n;
			if (fd >= 0)
				close(fd);
		}
		close(pfd);
		r = len < REXEC_CMDLINE_MAX ? rexec_conmon_parse(buf, len, name, &c, &e) : 0;
		free(buf);
		if (r < 0) {
			/* a conmon we cannot read (a new option?): said if none is found */
			free(bad);
			bad = xstrdup(e.msg != NULL ? e.msg : "");
			lz_err_clear(&e);
			continue;
		}
		if (r == 1 && found++ == 0)
			*out = c;
		else if (r == 1)
			rexec_conmon_clear(&c);
	}
	closedir(d);
	if (found == 1) {
		free(bad);
		return 0;
	}
	if (found > 1)
		rexec_conmon_clear(out);
	if (found == 0 && bad != NULL)
		lz_err_set(err, ENOENT, "no conmon of ours runs container %s that can be read (%s)",
		    name, bad);
	else
		lz_err_set(err, ENOENT, found == 0 ? "no conmon of ours runs container %s" :
		    "several conmon processes name container %s", name);
	free(bad);
	return -1;
}

/* The runtime conmon runs: an absolute executable no one else may change. */
static int
rexec_check_runtime(const char *path, lz_err_t *err)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return lz_err_sys(err, errno, "runtime %s", path);
	if (!S_ISREG(st.st_mode) || (st.st_uid != 0 && st.st_uid != getuid()) ||
	    (st.st_mode & 022) != 0 || access(path, X_OK) < 0)
		return lz_err_set(err, LZ_EINVAL, "runtime %s is not an executable owned by root "
		    "or us and writable only by its owner", path);
	return 0;
}

/* runsc's root: --root from the runtime args (*given), else runsc's default
 * for a rootless caller, $XDG_RUNTIME_DIR/runsc. */
static char *
rexec_root(char **args, bool *given)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	size_t i;

	*given = true;
	for (i = 0; args[i] != NULL; i++) {
		if (strncmp(args[i], "--root=", 7) == 0)
			return xstrdup(args[i] + 7);
		if (strcmp(args[i], "--root") == 0 && args[i + 1] != NULL)
			return xstrdup(args[i + 1]);
	}
	*given = false;
	return rt != NULL && rt[0] == '/' ? xasprintf("%s/runsc", rt) : NULL;
}

/* runsc keeps a state file for the container under root: the runtime is
 * runsc (or a wrapper of it) and this is where runsc exec finds it. */
static int
rexec_check_state(const char *root, const char *id, lz_err_t *err)
{
	_cleanup_free_ char *path = xasprintf("%s/%s_sandbox:%s.state", root, id, id);
	struct stat st;

	if (lstat(path, &st) < 0)
		return lz_err_sys(err, errno, "no runsc state for the container (%s)", path);
	if (!S_ISREG(st.st_mode) || st.st_uid != getuid())
		return lz_err_set(err, LZ_EINVAL, "%s is not a file of ours", path);
	return 0;
}

static int
rexec_load(const char *name, struct drv_direct *d, lz_err_t *err)
{
	struct rexec_conmon c;
	struct stat st;
	char *root = NULL, *buf = NULL;
	bool root_given;
	size_t len = 0;
	int dfd = -1, ret = -1;

	if (rexec_find_conmon(name, &c, err) < 0)
		return -1;
	if ((dfd = open(c.bundle, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		lz_err_sys(err, errno, "bundle %s", c.bundle);
		goto out;
	}
	if (fstat(dfd, &st) < 0 || st.st_uid != getuid()) {
		lz_err_set(err, LZ_EINVAL, "bundle %s is not ours", c.bundle);
		goto out;
	}
	if (rexec_read_at(dfd, "config.json", REXEC_CONFIG_MAX, &buf, &len, err) < 0 ||
	    rexec_spec_parse((const uint8_t *)buf, len, &d->spec, err) < 0) {
		lz_err_wrap(err, "bundle %s", c.bundle);
		goto out;
	}
	if (rexec_check_runtime(c.runtime, err) < 0)
		goto out;
	if ((root = rexec_root(c.runtime_args, &root_given)) == NULL) {
		lz_err_set(err, ENOENT, "XDG_RUNTIME_DIR is not set (where runsc keeps its state)");
		goto out;
	}
	if (rexec_check_state(root, c.id, err) < 0)
		goto out;
	d->id = c.id;
	d->runtime = c.runtime;
	d->runtime_args = c.runtime_args;
	c.id = c.runtime = NULL;
	c.runtime_args = NULL;
	if (!root_given)
		lz_strv_pushf(&d->runtime_args, "--root=%s", root);
	d->root = root;
	root = NULL;
	ret = 0;
out:
	if (dfd >= 0)
		close(dfd);
	free(buf);
	free(root);
	rexec_conmon_clear(&c);
	return ret;
}

/* Sessions through the control socket when runsc's state and version allow;
 * else *how says why runsc exec stays. */
static void
rexec_ctl_open(struct drv_direct *d, char **how)
{
	_cleanup_free_ char *state = xasprintf("%s_sandbox:%s.state", d->id, d->id);
	_cleanup_free_ char *buf = NULL, *version = NULL, *sid = NULL;
	const char *force = getenv("LAZARET_RUNSC_EXEC");
	lz_err_t err = LZ_ERR_INIT;
	char proc[64];
	struct stat st;
	int64_t pid;
	size_t len;
	int dfd = -1;

	if (force != NULL && force[0] != '\0' && strcmp(force, "0") != 0) {
		*how = xstrdup("with runsc exec: LAZARET_RUNSC_EXEC is set");
		return;
	}
	if ((dfd = open(d->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		lz_err_sys(&err, errno, "%s", d->root);
		goto out;
	}
	if (rexec_read_at(dfd, state, RUNSC_CTL_STATE_MAX, &buf, &len, &err) < 0 ||
	    runsc_ctl_state((const uint8_t *)buf, len, &sid, &pid, &err) < 0) {
		lz_err_wrap(&err, "runsc state %s/%s", d->root, state);
		goto out;
	}
	snprintf(proc, sizeof proc, "/proc/%lld", (long long)pid);
	if (stat(proc, &st) < 0 || st.st_uid != getuid()) {
		lz_err_set(&err, ESRCH, "the sandbox process %lld is not one of ours", (long long)pid);
		goto out;
	}
	if (runsc_version_of(pid, &version, &err) < 0)
		goto out;
	if (!runsc_ctl_known(version)) {
		lz_err_set(&err, ENOTSUP, "'%.100s' is not a runsc whose control calls lazaret knows",
		    version);
		goto out;
	}
	if ((d->self = lz_prefix_exec_helper()) == NULL) {
		lz_err_sys(&err, errno, "/proc/self/exe");
		goto out;
	}
	d->sandbox = sid;
	sid = NULL;
	*how = xasprintf("with lazaret sandbox-exec through runsc's control socket (%s; "
	    "no runsc exec)", version);
out:
	if (dfd >= 0)
		close(dfd);
	if (err.msg != NULL)
		*how = xasprintf("with runsc exec (no podman exec): %s", err.msg);
	lz_err_clear(&err);
}

struct drv_direct *
rexec_open(const char *name, char **why)
{
	struct drv_direct *d = xcalloc(1, sizeof *d);
	lz_err_t err = LZ_ERR_INIT;
	char **probe = NULL;

	*why = NULL;
	/* the pause process is read again at each exec; it must exist now */
	if (pause_exec_prefix(&probe) < 0) {
		*why = xstrdup("no rootless podman pause process found ($XDG_RUNTIME_DIR/libpod/tmp/pause.pid)");
		goto fail;
	}
	if (rexec_load(name, d, &err) < 0) {
		*why = xstrdup(err.msg != NULL ? err.msg : "unknown error");
		goto fail;
	}
	rexec_ctl_open(d, why);
	lz_strv_free(probe);
	lz_err_clear(&err);
	return d;
fail:
	lz_strv_free(probe);
	lz_err_clear(&err);
	rexec_free(d);
	return NULL;
}

int
rexec_exec(const struct drv_direct *d, const struct drv_exec *ex, const char *secret_env,
    char ***argv, char **spec, lz_err_t *err)
{
	struct rexec_proc p;
	char **cmd = drv_exec_command(ex), **v = NULL, **env = NULL;
	size_t i;
	int ret = -1;

	*argv = NULL;
	*spec = NULL;
	for (i = 0; i < ex->n_env; i++)
		lz_strv_push(&env, ex->env[i]);
	memset(&p, 0, sizeof p);
	p.args = (const char *const *)cmd;
	p.env = (const char *const *)env;
	p.env_lines = secret_env;
	p.cwd = ex->workdir;
	p.terminal = ex->tty;
	if (rexec_spec_process(&d->spec, &p, spec, err) < 0)
		goto out;
	if (d->sandbox != NULL) {
		lz_strv_push(&v, d->self);
		lz_strv_push(&v, "sandbox-exec");
		if (ex->tty)
			lz_strv_push(&v, "--ctty");
		lz_strv_push(&v, "--sandbox");
		lz_strv_push(&v, d->sandbox);
		lz_strv_push(&v, "--container");
		lz_strv_push(&v, d->id);
		*argv = v;
		v = NULL;
		ret = 0;
		goto out;
	}
	if (pause_exec_prefix(&v) < 0) {
		lz_err_set(err, ENOENT, "rootless podman's pause process is gone: "
		    "run `podman system migrate`");
		goto out;
	}
	if (ex->tty) {
		/* ns-exec's options end at the prefix's "--": --ctty goes before it */
		size_t n = lz_strv_len(v);

		free(v[n - 1]);
		v[n - 1] = xstrdup("--ctty");
		lz_strv_push(&v, "--");
	}
	lz_strv_push(&v, d->runtime);
	for (i = 0; d->runtime_args[i] != NULL; i++)
		lz_strv_push(&v, d->runtime_args[i]);
	lz_strv_push(&v, "exec");
	lz_strv_push(&v, "--process");
	lz_strv_push(&v, "/dev/fd/3");
	lz_strv_push(&v, d->id);
	*argv = v;
	v = NULL;
	ret = 0;
out:
	lz_strv_free(v);
	lz_strv_free(cmd);
	lz_strv_free(env);
	return ret;
}

void
rexec_free(struct drv_direct *d)
{
	if (d == NULL)
		return;
	free(d->id);
	free(d->root);
	free(d->sandbox);
	free(d->self);
	free(d->runtime);
	lz_strv_free(d->runtime_args);
	rexec_spec_clear(&d->spec);
	free(d);
}

const char *
rexec_id(const struct drv_direct *d)
{
	return d->id;
}

const char *
rexec_label(const struct drv_direct *d)
{
	return d->sandbox != NULL ? "sandbox-exec" : "runsc exec";
}

bool
rexec_secret_fd(const struct drv_direct *d)
{
	return d->sandbox != NULL;	/* sandbox-exec moves it to the command's fd 3 */
}
