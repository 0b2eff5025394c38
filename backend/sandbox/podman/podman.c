/* podman.c - the Podman driver behind struct drv_ops (driver.h).
 *
 * Theory of operation: everything goes through the `podman` CLI with argv
 * (proc.h), never a shell, as the rootless user. A sandbox is `podman run -d`
 * under the runtime "runsc" that scripts/setup-host registers (a wrapper
 * adding --ignore-cgroups --network=host), with the host's static catatonit
 * bind-mounted read-only as PID 1 in pause mode, so that any image works and
 * orphans of `podman exec` are reaped inside gVisor. The default rootless
 * mapping (container root = host user) makes files the agent creates in
 * /workspace belong to the host user. Measured in notes/sandbox-probe.md and
 * again for this driver: no-new-privileges and --cap-drop work under runsc.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prefix.h"
#include "sandbox/podman/podman.h"
#include "sandbox/podman/rexec.h"
#include "sandbox/rootless/storage.h"
#include "host/proc.h"
#include "strv.h"
#include "xmalloc.h"

/* Capabilities kept in the sandbox: what root needs to own and change its
 * files and to drop privileges (package managers); no raw net, no chroot. */
static const char *const podman_caps_keep[] = {
	"CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
};

const char *
podman_init_path(void)
{
	static const char *const paths[] = {
		"/usr/bin/catatonit", "/usr/libexec/podman/catatonit",
	};
	size_t i;

	for (i = 0; i < sizeof paths / sizeof paths[0]; i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

static bool
podman_has_ctl(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* Append "key=value" as one CSV field, quoted ("" for ") when needed. */
static void
podman_csv_field(char **buf, const char *key, const char *value)
{
	char *old = *buf, *field, *q;
	const char *p;
	bool quote = strpbrk(value, ",\"") != NULL || strpbrk(key, ",\"") != NULL;

	if (!quote) {
		field = xasprintf("%s=%s", key, value);
	} else {
		field = q = xmalloc(2 * (strlen(key) + strlen(value)) + 4);
		*q++ = '"';
		for (p = key; *p != '\0'; p++)
			if ((*q++ = *p) == '"')
				*q++ = '"';
		*q++ = '=';
		for (p = value; *p != '\0'; p++)
			if ((*q++ = *p) == '"')
				*q++ = '"';
		*q++ = '"';
		*q = '\0';
	}
	*buf = old == NULL ? xstrdup(field) : xasprintf("%s,%s", old, field);
	free(old);
	free(field);
}

static void
podman_csv_raw(char **buf, const char *raw)
{
	char *old = *buf;

	*buf = xasprintf("%s,%s", old, raw);
	free(old);
}

int
podman_mount_arg(const struct drv_mount *m, char **out, lz_err_t *err)
{
	char *s = NULL, num[48];

	*out = NULL;
	if (m->dst == NULL || m->dst[0] != '/')
		return lz_err_set(err, LZ_EINVAL, "mount destination '%s' is not an absolute path",
		    m->dst != NULL ? m->dst : "");
	if (podman_has_ctl(m->dst))
		return lz_err_set(err, LZ_EINVAL, "mount destination '%s' holds a control character", m->dst);
	if (m->opts != NULL && (strchr(m->opts, '"') != NULL || podman_has_ctl(m->opts)))
		return lz_err_set(err, LZ_EINVAL, "mount options '%s' for %s hold a quote or control character",
		    m->opts, m->dst);
	switch (m->type) {
	case DRV_MOUNT_BIND:
		if (m->src == NULL || m->src[0] != '/')
			return lz_err_set(err, LZ_EINVAL, "bind mount source '%s' for %s is not an absolute path",
			    m->src != NULL ? m->src : "", m->dst);
		if (podman_has_ctl(m->src))
			return lz_err_set(err, LZ_EINVAL, "bind mount source for %s holds a control character", m->dst);
		s = xstrdup("type=bind");
		podman_csv_field(&s, "src", m->src);
		podman_csv_field(&s, "dst", m->dst);
		break;
	case DRV_MOUNT_TMPFS:
		s = xstrdup("type=tmpfs");
		podman_csv_field(&s, "dst", m->dst);
		/* crun would copy the image's content up (the host's hooks); runsc ignores it */
		podman_csv_raw(&s, "notmpcopyup");
		break;
	default:
		return lz_err_set(err, LZ_EINVAL, "unknown mount type %d for %s", (int)m->type, m->dst);
	}
	if (m->ro)
		podman_csv_raw(&s, "ro=true");
	if (m->opts != NULL && m->opts[0] != '\0')
		podman_csv_raw(&s, m->opts);
	if (m->type == DRV_MOUNT_TMPFS && m->tmpfs_size > 0) {
		snprintf(num, sizeof num, "tmpfs-size=%llu", (unsigned long long)m->tmpfs_size);
		podman_csv_raw(&s, num);
	}
	if (m->type == DRV_MOUNT_TMPFS && m->tmpfs_mode != 0) {
		snprintf(num, sizeof num, "tmpfs-mode=%o", m->tmpfs_mode);
		podman_csv_raw(&s, num);
	}
	*out = s;
	return 0;
}

/* podman's container name rule: [a-zA-Z0-9][a-zA-Z0-9_.-]* */
static bool
podman_name_valid(const char *n)
{
	const char *p;

	if (n == NULL || !((n[0] >= 'a' && n[0] <= 'z') || (n[0] >= 'A' && n[0] <= 'Z') ||
	    (n[0] >= '0' && n[0] <= '9')))
		return false;
	for (p = n; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-'))
			return false;
	return p - n <= 253;
}

/* "KEY=VALUE" with a non-empty key; a bare KEY would make podman copy the
 * host's value into the sandbox. */
static int
podman_check_env(const char *what, const char *e, lz_err_t *err)
{
	const char *eq = strchr(e, '=');

	if (eq == NULL || eq == e)
		return lz_err_set(err, LZ_EINVAL, "%s '%s' is not KEY=VALUE", what, e);
	return 0;
}

/* A value placed after a flag must not look like another flag. */
static int
podman_check_word(const char *what, const char *w, lz_err_t *err)
{
	if (w == NULL || w[0] == '\0' || w[0] == '-' || podman_has_ctl(w))
		return lz_err_set(err, LZ_EINVAL, "invalid %s '%s'", what, w != NULL ? w : "");
	return 0;
}

int
podman_run_argv(const struct drv_spec *spec, const char *init_host, char ***argv, lz_err_t *err)
{
	char **v = NULL, *m;
	size_t i;

	*argv = NULL;
	if (!podman_name_valid(spec->name))
		return lz_err_set(err, LZ_EINVAL, "invalid container name '%s'",
		    spec->name != NULL ? spec->name : "");
	if (podman_check_word("image", spec->image, err) < 0 ||
	    podman_check_word("network", spec->network != NULL ? spec->network : "none", err) < 0)
		goto fail;
	if (init_host == NULL || init_host[0] != '/') {
		lz_err_set(err, ENOENT, "catatonit not found (the sandbox's init): "
		    "sudo apt-get install catatonit, or run: sudo scripts/setup-host");
		goto fail;
	}
	lz_strv_push(&v, "podman");
	lz_strv_push(&v, "run");
	lz_strv_push(&v, "-d");
	lz_strv_pushf(&v, "--name=%s", spec->name);
	/* no registry is reachable: fail at once instead of retrying a pull */
	lz_strv_push(&v, "--pull=never");
	if (spec->runtime != NULL && podman_check_word("runtime", spec->runtime, err) < 0)
		goto fail;
	lz_strv_pushf(&v, "--runtime=%s", spec->runtime != NULL ? spec->runtime : PODMAN_RUNTIME);
	for (i = 0; i < spec->n_runtime_flags; i++) {
		if (podman_check_word("runtime flag", spec->runtime_flags[i], err) < 0)
			goto fail;
		lz_strv_pushf(&v, "--runtime-flag=%s", spec->runtime_flags[i]);
	}
	lz_strv_pushf(&v, "--network=%s", spec->network != NULL ? spec->network : "none");
	lz_strv_push(&v, "--hostname=lazaret");	/* also accepted with container:X */
	lz_strv_push(&v, "--security-opt=no-new-privileges");
	lz_strv_push(&v, "--cap-drop=all");
	for (i = 0; i < sizeof podman_caps_keep / sizeof podman_caps_keep[0]; i++)
		lz_strv_pushf(&v, "--cap-add=%s", podman_caps_keep[i]);
	for (i = 0; i < spec->n_cap_add; i++) {
		if (podman_check_word("capability", spec->cap_add[i], err) < 0)
			goto fail;
		lz_strv_pushf(&v, "--cap-add=%s", spec->cap_add[i]);
	}
	for (i = 0; i < spec->n_labels; i++) {
		if (podman_check_env("label", spec->labels[i], err) < 0)
			goto fail;
		lz_strv_pushf(&v, "--label=%s", spec->labels[i]);
	}
	for (i = 0; spec->ulimits != NULL && spec->ulimits[i] != NULL; i++) {
		if (podman_check_env("ulimit", spec->ulimits[i], err) < 0)
			goto fail;
		lz_strv_pushf(&v, "--ulimit=%s", spec->ulimits[i]);
	}
	if (spec->workdir != NULL) {
		if (spec->workdir[0] != '/') {
			lz_err_set(err, LZ_EINVAL, "working directory '%s' is not absolute", spec->workdir);
			goto fail;
		}
		lz_strv_pushf(&v, "--workdir=%s", spec->workdir);
	}
	for (i = 0; i < spec->n_env; i++) {
		if (podman_check_env("environment entry", spec->env[i], err) < 0)
			goto fail;
		lz_strv_push(&v, "-e");
		lz_strv_push(&v, spec->env[i]);
	}
	for (i = 0; i < spec->n_mounts; i++) {
		if (podman_mount_arg(&spec->mounts[i], &m, err) < 0)
			goto fail;
		lz_strv_push(&v, "--mount");
		lz_strv_push(&v, m);
		free(m);
	}
	{
		struct drv_mount init = {
			.type = DRV_MOUNT_BIND, .src = (char *)init_host,
			.dst = (char *)PODMAN_INIT_DST, .ro = true,
		};

		if (podman_mount_arg(&init, &m, err) < 0)
			goto fail;
		lz_strv_push(&v, "--mount");
		lz_strv_push(&v, m);
		free(m);
	}
	lz_strv_pushf(&v, "--entrypoint=[\"%s\"]", PODMAN_INIT_DST);
	lz_strv_push(&v, spec->image);
	if (spec->cmd == NULL || spec->cmd[0] == NULL) {
		lz_strv_push(&v, "-P");		/* catatonit pause mode: PID 1 that only reaps */
	} else {
		lz_strv_push(&v, "--");
		for (i = 0; spec->cmd[i] != NULL; i++)
			lz_strv_push(&v, spec->cmd[i]);
	}
	*argv = v;
	return 0;
fail:
	lz_strv_free(v);
	return -1;
}

int
podman_exec_argv(const struct drv_exec *ex, char ***argv, lz_err_t *err)
{
	char **v = NULL, **cmd;
	size_t i;

	*argv = NULL;
	if (!podman_name_valid(ex->name))
		return lz_err_set(err, LZ_EINVAL, "invalid container name '%s'",
		    ex->name != NULL ? ex->name : "");
	lz_strv_push(&v, "podman");
	lz_strv_push(&v, "exec");
	lz_strv_push(&v, "-i");
	if (ex->tty)
		lz_strv_push(&v, "-t");
	/* podman's default ctrl-p,ctrl-q would eat the agent's Ctrl-P */
	lz_strv_push(&v, "--detach-keys=");
	for (i = 0; i < ex->n_env; i++) {
		if (podman_check_env("environment entry", ex->env[i], err) < 0)
			goto fail;
		lz_strv_push(&v, "-e");
		lz_strv_push(&v, ex->env[i]);
	}
	/* A secret (the session credential) comes through a pipe, never argv:
	 * `ps` shows every argument to every user. */
	if (ex->env_fd3)
		lz_strv_push(&v, "--env-file=/dev/fd/3");
	if (ex->workdir != NULL) {
		if (ex->workdir[0] != '/') {
			lz_err_set(err, LZ_EINVAL, "working directory '%s' is not absolute", ex->workdir);
			goto fail;
		}
		lz_strv_pushf(&v, "--workdir=%s", ex->workdir);
	}
	lz_strv_push(&v, ex->name);
	cmd = drv_exec_command(ex);
	for (i = 0; cmd[i] != NULL; i++)
		lz_strv_push(&v, cmd[i]);
	lz_strv_free(cmd);
	*argv = v;
	return 0;
fail:
	lz_strv_free(v);
	return -1;
}

enum drv_state
podman_state_parse(const char *status)
{
	if (strcmp(status, "running") == 0)
		return DRV_STATE_RUNNING;
	return DRV_STATE_STOPPED;
}

/* podman's own message: its "Error: " lines without the prefix, else all
 * of stderr, trailing newlines cut. Caller frees. */
bool
podman_stale_ns(const char *errout)
{
	return strstr(errout, "try resetting the pause process") != NULL;
}

static char *
podman_errmsg(const char *errout)
{
	char *msg = NULL, *dup, *line, *save = NULL, *old;
	size_t n;

	if (podman_stale_ns(errout))
		return xstrdup(PODMAN_STALE_MSG);
	dup = xstrdup(errout);
	for (line = strtok_r(dup, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "Error: ", 7) != 0)
			continue;
		old = msg;
		msg = old == NULL ? xstrdup(line + 7) : xasprintf("%s; %s", old, line + 7);
		free(old);
	}
	free(dup);
	if (msg == NULL) {
		msg = xstrdup(errout);
		n = strlen(msg);
		while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			msg[--n] = '\0';
		if (n == 0) {
			free(msg);
			msg = xstrdup("podman failed without a message");
		}
	}
	return msg;
}

static int
podman_image_exists(const char *image, bool *exists, lz_err_t *err)
{
	const char *argv[] = { "podman", "image", "exists", image, NULL };
	struct proc_result r;
	_cleanup_free_ char *msg = NULL;

	*exists = false;
	if (podman_check_word("image", image, err) < 0)
		return -1;
	if (proc_run((char *const *)argv, NULL, NULL, 0, &r, err) < 0)
		return lz_err_wrap(err, "cannot check image %s", image);
	/* exit 1 is "no such image", unless podman could not even start */
	if (r.status == 0 || (r.status == 1 && !podman_stale_ns(r.errout))) {
		*exists = r.status == 0;
		proc_result_clear(&r);
		return 0;
	}
	msg = podman_errmsg(r.errout);
	proc_result_clear(&r);
	return lz_err_set(err, LZ_EINVAL, "cannot check image %s: %s", image, msg);
}

static int podman_remove(const char *name, lz_err_t *err);

/* Prefix argv with `lazaret-exec cgroup-exec --cgroup DIR... --`: podman, conmon
 * and the runtime start in the domain's cgroups (sandbox/limits.h). */
static int
podman_in_cgroups(char *const *cgroups, char ***argv, lz_err_t *err)
{
	char **v = NULL, *exe = lz_prefix_exec_helper();
	size_t i;

	if (exe == NULL)
		return lz_err_sys(err, errno, "cannot find my own executable");
	lz_strv_push(&v, exe);
	free(exe);
	lz_strv_push(&v, "cgroup-exec");
	for (i = 0; cgroups[i] != NULL; i++) {
		lz_strv_push(&v, "--cgroup");
		lz_strv_push(&v, cgroups[i]);
	}
	lz_strv_push(&v, "--");
	for (i = 0; (*argv)[i] != NULL; i++)
		lz_strv_push(&v, (*argv)[i]);
	lz_strv_free(*argv);
	*argv = v;
	return 0;
}

/* A container being created: podman run -d started, not yet waited for. */
struct drv_job {
	struct proc_job *p;
	char *name, *image;
};

static int
podman_create_start(const struct drv_spec *spec, struct drv_job **job, lz_err_t *err)
{
	char **argv = NULL;
	struct drv_job *j;
	int ret = -1;

	*job = NULL;
	if (podman_run_argv(spec, podman_init_path(), &argv, err) < 0)
		return lz_err_wrap(err, "cannot create container %s",
		    spec->name != NULL ? spec->name : "");
	if (spec->cgroups != NULL && podman_in_cgroups(spec->cgroups, &argv, err) < 0)
		goto out;
	/* No image check first: --pull=never makes podman itself refuse a missing
	 * image, which saves a podman call on every cold start. */
	j = xcalloc(1, sizeof *j);
	if (proc_start(argv, &j->p, err) < 0) {
		free(j);
		lz_err_wrap(err, "cannot create container %s", spec->name);
		goto out;
	}
	j->name = xstrdup(spec->name);
	j->image = xstrdup(spec->image);
	*job = j;
	ret = 0;
out:
	lz_strv_free(argv);
	return ret;
}

static int
podman_create_finish(struct drv_job *j, lz_err_t *err)
{
	struct proc_result r;
	_cleanup_free_ char *msg = NULL;
	int ret = -1;

	proc_finish(j->p, &r);
	if (r.status != 0) {
		msg = podman_errmsg(r.errout);
		/* a failed start leaves a "Created" container holding the name; one that
		 * was already in use is someone else's and stays */
		if (strstr(r.errout, "already in use") == NULL) {
			lz_err_t rm_err = LZ_ERR_INIT;

			(void)podman_remove(j->name, &rm_err);
			lz_err_clear(&rm_err);
		}
		if (strstr(r.errout, "already in use") != NULL)
			lz_err_set(err, EEXIST, "cannot create container %s: %s", j->name, msg);
		else if (strstr(r.errout, "image not known") != NULL)
			lz_err_set(err, ENOENT, "image %s not found locally: build it with "
			    "`lazaret image build-default`, or pull it", j->image);
		else
			lz_err_set(err, LZ_EINVAL, "cannot create container %s: %s", j->name, msg);
		goto out;
	}
	ret = 0;
out:
	proc_result_clear(&r);
	free(j->name);
	free(j->image);
	free(j);
	return ret;
}

static bool
podman_create_done(struct drv_job *j)
{
	return proc_job_done(j->p);
}

static int
podman_create(const struct drv_spec *spec, lz_err_t *err)
{
	struct drv_job *j;

	if (podman_create_start(spec, &j, err) < 0)
		return -1;
	return podman_create_finish(j, err);
}

static bool
podman_no_such(const char *errout)
{
	return strstr(errout, "no such container") != NULL;
}

static int
podman_remove(const char *name, lz_err_t *err)
{
	/* one name per call: podman 4.3.1 leaves the others running when one is missing */
	const char *argv[] = { "podman", "rm", "-f", "-t", "0", name, NULL };
	struct proc_result r;
	_cleanup_free_ char *msg = NULL;

	if (!podman_name_valid(name))
		return lz_err_set(err, LZ_EINVAL, "invalid container name '%s'", name != NULL ? name : "");
	if (proc_run((char *const *)argv, NULL, NULL, 0, &r, err) < 0)
		return lz_err_wrap(err, "cannot remove container %s", name);
	if (r.status == 0 || podman_no_such(r.errout)) {
		proc_result_clear(&r);
		return 0;
	}
	msg = podman_errmsg(r.errout);
	proc_result_clear(&r);
	return lz_err_set(err, LZ_EINVAL, "cannot remove container %s: %s", name, msg);
}

static int
podman_inspect(const char *name, enum drv_state *state, lz_err_t *err)
{
	const char *argv[] = { "podman", "container", "inspect", "--format", "{{.State.Status}}",
	    name, NULL };
	struct proc_result r;
	_cleanup_free_ char *msg = NULL;
	size_t n;

	*state = DRV_STATE_ABSENT;
	if (!podman_name_valid(name))
		return lz_err_set(err, LZ_EINVAL, "invalid container name '%s'", name != NULL ? name : "");
	if (proc_run((char *const *)argv, NULL, NULL, 0, &r, err) < 0)
		return lz_err_wrap(err, "cannot inspect container %s", name);
	if (r.status == 0) {
		n = strlen(r.out);
		while (n > 0 && r.out[n - 1] == '\n')
			r.out[--n] = '\0';
		*state = podman_state_parse(r.out);
		proc_result_clear(&r);
		return 0;
	}
	if (podman_no_such(r.errout)) {
		proc_result_clear(&r);
		return 0;
	}
	msg = podman_errmsg(r.errout);
	proc_result_clear(&r);
	return lz_err_set(err, LZ_EINVAL, "cannot inspect container %s: %s", name, msg);
}

/* Names of the containers (running or not) carrying label "key=value". */
static int
podman_list(const char *label, char ***names, lz_err_t *err)
{
	_cleanup_free_ char *filter = NULL, *msg = NULL;
	const char *argv[] = { "podman", "ps", "-a", "--format", "{{.Names}}", "--filter", NULL,
	    NULL };
	struct proc_result r;
	char *line, *save = NULL;

	*names = NULL;
	if (podman_check_env("label", label, err) < 0)
		return -1;
	filter = xasprintf("label=%s", label);
	argv[6] = filter;
	if (proc_run((char *const *)argv, NULL, NULL, 0, &r, err) < 0)
		return lz_err_wrap(err, "cannot list containers");
	if (r.status != 0) {
		msg = podman_errmsg(r.errout);
		proc_result_clear(&r);
		return lz_err_set(err, LZ_EINVAL, "cannot list containers: %s", msg);
	}
	for (line = strtok_r(r.out, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		if (podman_name_valid(line))
			lz_strv_push(names, line);
	proc_result_clear(&r);
	return 0;
}

static int
podman_writable_dir(const char *name, char **dir, lz_err_t *err)
{
	const char *argv[] = { "podman", "container", "inspect", "--format",
	    "{{.GraphDriver.Data.UpperDir}}", name, NULL };

	char id[OVERLAY_IMAGES_ID_LEN + 1], layer[OVERLAY_IMAGES_ID_LEN + 1];
	_cleanup_free_ char *g = NULL;
	struct stat st;

	*dir = NULL;
	if (!podman_name_valid(name))
		return lz_err_set(err, LZ_EINVAL, "invalid container name '%s'", name);
	/* The overlay driver's upper dir, from storage's own files: no podman
	 * start-up beside the first session (podman when in any doubt). */
	if (storage_find("containers", name, &g, id, layer) == 1) {
		*dir = xasprintf("%s/overlay/%s/diff", g, layer);
		if (lstat(*dir, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		free(*dir);
		*dir = NULL;
	}
	return proc_run_ok((char *const *)argv, dir, err);
}

static int
podman_image_id(const char *image, char **id, lz_err_t *err)
{
	const char *argv[] = { "podman", "image", "inspect", "--format", "{{.Id}}", image, NULL };

	char hid[OVERLAY_IMAGES_ID_LEN + 1], layer[OVERLAY_IMAGES_ID_LEN + 1];
	_cleanup_free_ char *g = NULL;

	*id = NULL;
	if (podman_check_word("image", image, err) < 0)
		return -1;
	/* A full name podman's images file lists: its id without a podman
	 * start-up (short names and ids are podman's to resolve). */
	if (overlay_images_ref_ok(image) && storage_find("images", image, &g, hid, layer) == 1) {
		*id = xstrdup(hid);
		return 0;
	}
	return proc_run_ok((char *const *)argv, id, err);
}

const struct drv_ops podman_ops = {
	.name = "podman",
	.create = podman_create,
	.create_start = podman_create_start,
	.create_finish = podman_create_finish,
	.create_done = podman_create_done,
	.exec_argv = podman_exec_argv,
	.remove = podman_remove,
	.inspect = podman_inspect,
	.image_exists = podman_image_exists,
	.list = podman_list,
	.writable_dir = podman_writable_dir,
	.image_id = podman_image_id,
	.direct_open = rexec_open,
	.direct_label = rexec_label,
	.direct_secret_fd = rexec_secret_fd,
	.direct_exec = rexec_exec,
	.direct_free = rexec_free,
};
