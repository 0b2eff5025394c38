/* doctor.c - host checks for rootless Podman + gVisor (lazaret doctor).
 *
 * Every check below corresponds to a failure measured on these hosts
 * (notes/sandbox-probe.md) and to a step of scripts/setup-host, whose fix
 * line it prints. Programs run from argv through proc.h; files are read with
 * a size cap. --deep starts real containers through the Podman driver.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "net/net-image.h"
#include "doctor.h"
#include "sandbox/runsc/runsc-ctl.h"
#include "sandbox/limits.h"
#include "sandbox/driver.h"
#include "sandbox/podman/podman.h"
#include "sandbox/mounts/preload.h"
#include "host/proc.h"
#include "prefix.h"
#include "strv.h"
#include "xmalloc.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define DOCTOR_FILE_MAX (1u << 20)
/* The host's GNU stat, the deep check's statx(AT_NO_AUTOMOUNT) caller. */
#define DOCTOR_GNU_STAT "/usr/bin/stat"
#define DOCTOR_GNU_STAT_DST "/run/lazaret/gnu-stat"
#define DOCTOR_SUBID_MIN 65536ul
/* podman's own remedy for a pause namespace that is stale or predates a host change */
#define DOCTOR_MIGRATE_FIX "podman system migrate (stops your running containers)"

struct doctor_ctx {
	const struct doctor_opts *opts;
	FILE *out;
	int failed;
	int total;
	char *setup;		/* "sudo scripts/setup-host USER" */
};

static void
doctor_ok(struct doctor_ctx *c, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void
doctor_ok(struct doctor_ctx *c, const char *what, const char *fmt, ...)
{
	va_list ap;

	c->total++;
	fprintf(c->out, "ok   %s: ", what);
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	fputc('\n', c->out);
	fflush(c->out);
}

/* "FAIL what: problem. Fix: fix" */
static void
doctor_fail(struct doctor_ctx *c, const char *what, const char *problem, const char *fix)
{
	c->total++;
	c->failed++;
	fprintf(c->out, "FAIL %s: %s.", what, problem);
	if (fix != NULL)
		fprintf(c->out, " Fix: %s", fix);
	fputc('\n', c->out);
	fflush(c->out);
}

/* Read a small file; NULL on error (errno set). Caller frees. */
static char *
doctor_read(const char *path)
{
	char *buf;
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf = xmalloc(DOCTOR_FILE_MAX + 1);
	while (len < DOCTOR_FILE_MAX && (n = read(fd, buf + len, DOCTOR_FILE_MAX - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Run argv; on exit 0 return its first line of stdout, else NULL with *msg
 * (first line of stderr, or the start error). Caller frees both. */
static char *
doctor_cmd(char *const argv[], char **msg)
{
	struct proc_result r;
	lz_err_t err = LZ_ERR_INIT;
	char *line = NULL, *nl;
	const char *start, *hit;

	*msg = NULL;
	if (proc_run(argv, NULL, NULL, 0, &r, &err) < 0) {
		*msg = lz_steal_ptr(&err.msg);
		lz_err_clear(&err);
		return NULL;
	}
	if (r.status == 0) {
		/* the line naming the program (fuse-overlayfs prints fusermount3's first) */
		start = hit = strstr(r.out, argv[0]);
		if (hit == NULL)
			start = r.out;
		while (start > r.out && start[-1] != '\n')
			start--;
		line = xstrdup(start);
	} else {
		*msg = lz_steal_ptr(&r.errout);
		if (**msg == '\0') {
			free(*msg);
			*msg = xasprintf("exit status %d", r.status);
		}
		if (strncmp(*msg, "Error: ", 7) == 0)
			memmove(*msg, *msg + 7, strlen(*msg + 7) + 1);
		if ((nl = strchr(*msg, '\n')) != NULL)
			*nl = '\0';
	}
	proc_result_clear(&r);
	if (line != NULL && (nl = strchr(line, '\n')) != NULL)
		*nl = '\0';
	return line;
}

/* A program that must be installed: report its --version line, and return
 * it (NULL when it does not run; caller frees). */
static char *
doctor_program(struct doctor_ctx *c, const char *prog, const char *pkg)
{
	char *argv[] = { (char *)prog, (char *)"--version", NULL };
	_cleanup_free_ char *msg = NULL, *problem = NULL, *fix = NULL;
	char *line;

	line = doctor_cmd(argv, &msg);
	if (line != NULL) {
		doctor_ok(c, prog, "%s", line);
		return line;
	}
	problem = xasprintf("%s", msg);
	fix = xasprintf("sudo apt-get install %s, or run: %s", pkg, c->setup);
	doctor_fail(c, prog, problem, fix);
	return NULL;
}

static bool
doctor_podman_rootless(struct doctor_ctx *c)
{
	char *argv[] = { (char *)"podman", (char *)"info", (char *)"--format",
	    (char *)"{{.Store.GraphDriverName}} {{.Store.RunRoot}}", NULL };
	_cleanup_free_ char *line = NULL, *msg = NULL, *problem = NULL;

	line = doctor_cmd(argv, &msg);
	if (line == NULL) {
		if (podman_stale_ns(msg)) {
			doctor_fail(c, "rootless podman", "its pause process is gone (processes "
			    "killed under a runtime directory that survived)",
			    DOCTOR_MIGRATE_FIX);
			return false;
		}
		problem = xasprintf("`podman info` failed: %s", msg);
		doctor_fail(c, "rootless podman", problem, c->setup);
		return false;
	}
	doctor_ok(c, "rootless podman", "storage %s", line);
	return true;
}

/* The runtime named runsc must be a wrapper adding --ignore-cgroups:
 * bare runsc fails rootless with "cannot set up cgroup for root". */
static void
doctor_runsc_registered(struct doctor_ctx *c)
{
	char *argv[] = { (char *)"podman", (char *)"--runtime", (char *)PODMAN_RUNTIME,
	    (char *)"info", (char *)"--format", (char *)"{{.Host.OCIRuntime.Path}}", NULL };
	_cleanup_free_ char *path = NULL, *msg = NULL, *problem = NULL, *body = NULL;

	path = doctor_cmd(argv, &msg);
	if (path == NULL) {
		problem = xasprintf("podman knows no runtime \"runsc\": %s", msg);
		doctor_fail(c, "runtime runsc", problem, c->setup);
		return;
	}
	body = doctor_read(path);
	if (body == NULL || memcmp(body, "\177ELF", 4) == 0 || strstr(body, "--ignore-cgroups") == NULL) {
		problem = xasprintf("podman's runtime \"runsc\" is %s, which does not add "
		    "--ignore-cgroups --network=host (rootless runsc fails with "
		    "\"cannot set up cgroup for root\")", path);
		doctor_fail(c, "runtime runsc", problem, c->setup);
		return;
	}
	if (strstr(body, "--tty") == NULL) {
		problem = xasprintf("podman's runtime \"runsc\" is %s, which passes conmon's --tty "
		    "to runsc exec (podman exec -t fails: \"flag provided but not defined: -tty\")",
		    path);
		doctor_fail(c, "runtime runsc", problem, c->setup);
		return;
	}
	doctor_ok(c, "runtime runsc", "registered with podman as %s", path);
}

/* Which way sessions go in, from runsc's --version line (NULL: it does not
 * run): said, never a failure (runsc exec works, slower). */
static void
doctor_sessions(struct doctor_ctx *c, const char *line)
{
	if (line != NULL && runsc_ctl_known(line))
		doctor_ok(c, "sessions", "lazaret sandbox-exec (the control calls of %s are "
		    "known)", line);
	else
		doctor_ok(c, "sessions", "runsc exec, ~30 ms slower a session (the control calls "
		    "of '%s' are not known to this lazaret)", line != NULL ? line : "runsc");
}

static void
doctor_init(struct doctor_ctx *c)
{
	_cleanup_free_ char *fix = NULL;
	const char *p = podman_init_path();

	if (p != NULL) {
		doctor_ok(c, "catatonit", "%s (the sandbox's PID 1)", p);
		return;
	}
	fix = xasprintf("sudo apt-get install catatonit, or run: %s", c->setup);
	doctor_fail(c, "catatonit", "not installed (the sandbox's PID 1)", fix);
}

bool
doctor_subid_find(const char *content, const char *user, uid_t uid,
    unsigned long *start, unsigned long *count)
{
	char uidbuf[24], *dup, *line, *save = NULL, *name, *s, *n, *end1, *end2;
	bool found = false;

	snprintf(uidbuf, sizeof uidbuf, "%lu", (unsigned long)uid);
	dup = xstrdup(content);
	for (line = strtok_r(dup, "\n", &save); line != NULL && !found;
	    line = strtok_r(NULL, "\n", &save)) {
		name = line;
		if ((s = strchr(name, ':')) == NULL)
			continue;
		*s++ = '\0';
		if ((n = strchr(s, ':')) == NULL)
			continue;
		*n++ = '\0';
		if (strcmp(name, user) != 0 && strcmp(name, uidbuf) != 0)
			continue;
		errno = 0;
		*start = strtoul(s, &end1, 10);
		*count = strtoul(n, &end2, 10);
		found = errno == 0 && end1 != s && *end1 == '\0' && end2 != n && *end2 == '\0';
	}
	free(dup);
	return found;
}

static void
doctor_subids(struct doctor_ctx *c, const char *file, const char *user, uid_t uid)
{
	_cleanup_free_ char *body = doctor_read(file), *problem = NULL, *fix = NULL, *what = NULL;
	unsigned long start, count;

	what = xasprintf("%s", file + strlen("/etc/"));
	if (body != NULL && doctor_subid_find(body, user, uid, &start, &count) &&
	    count >= DOCTOR_SUBID_MIN) {
		doctor_ok(c, what, "%s:%lu:%lu", user, start, count);
		return;
	}
	if (body != NULL && doctor_subid_find(body, user, uid, &start, &count))
		problem = xasprintf("%s has only %lu ids in %s (podman needs %lu)", user, count,
		    file, DOCTOR_SUBID_MIN);
	else
		problem = xasprintf("no range for %s in %s", user, file);
	fix = xasprintf("sudo usermod --add-sub%cids 100000-165535 %s (a free range), "
	    "then podman system migrate; or run: %s", strcmp(what, "subuid") == 0 ? 'u' : 'g',
	    user, c->setup);
	doctor_fail(c, what, problem, fix);
}

static void
doctor_device(struct doctor_ctx *c, const char *dev, const char *why)
{
	_cleanup_free_ char *problem = NULL, *fix = NULL;
	struct stat st;

	if (stat(dev, &st) < 0) {
		problem = xasprintf("missing (%s)", why);
		fix = xasprintf("run: %s", c->setup);
		doctor_fail(c, dev, problem, fix);
		return;
	}
	if (access(dev, R_OK | W_OK) == 0) {
		doctor_ok(c, dev, "usable by you (mode %04o)", (unsigned)(st.st_mode & 07777));
		return;
	}
	problem = xasprintf("not writable by you (mode %04o; %s)", (unsigned)(st.st_mode & 07777), why);
	fix = xasprintf("sudo chmod 0666 %s, or run: %s", dev, c->setup);
	doctor_fail(c, dev, problem, fix);
}

bool
doctor_runtime_dir_ok(const char *dir, uid_t uid, char **problem, char **fix)
{
	struct stat st;

	*problem = *fix = NULL;
	if (dir == NULL || dir[0] == '\0') {
		*problem = xstrdup("not set (podman and Lazaret's sockets need a private runtime directory)");
		*fix = xasprintf("export XDG_RUNTIME_DIR=/run/user/%lu (sudo scripts/setup-host creates it)",
		    (unsigned long)uid);
		return false;
	}
	if (dir[0] != '/') {
		*problem = xasprintf("'%s' is not an absolute path", dir);
		*fix = xasprintf("export XDG_RUNTIME_DIR=/run/user/%lu", (unsigned long)uid);
		return false;
	}
	if (lstat(dir, &st) < 0) {
		*problem = xasprintf("%s: %s", dir, strerror(errno));
		*fix = xasprintf("run: sudo scripts/setup-host (creates /run/user/%lu)", (unsigned long)uid);
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		*problem = xasprintf("%s is not a directory%s", dir, S_ISLNK(st.st_mode) ? " (a symlink)" : "");
		*fix = xasprintf("export XDG_RUNTIME_DIR=/run/user/%lu", (unsigned long)uid);
		return false;
	}
	if (st.st_uid != uid) {
		*problem = xasprintf("%s belongs to uid %lu, not to you (uid %lu)", dir,
		    (unsigned long)st.st_uid, (unsigned long)uid);
		*fix = xasprintf("export XDG_RUNTIME_DIR=/run/user/%lu", (unsigned long)uid);
		return false;
	}
	if ((st.st_mode & 07777) != 0700) {
		*problem = xasprintf("%s has mode %04o, not 0700 (others could reach your sockets)",
		    dir, (unsigned)(st.st_mode & 07777));
		*fix = xasprintf("chmod 0700 %s", dir);
		return false;
	}
	return true;
}

static void
doctor_runtime_dir(struct doctor_ctx *c)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	_cleanup_free_ char *problem = NULL, *fix = NULL;

	if (doctor_runtime_dir_ok(dir, getuid(), &problem, &fix))
		doctor_ok(c, "XDG_RUNTIME_DIR", "%s (yours, 0700)", dir);
	else
		doctor_fail(c, "XDG_RUNTIME_DIR", problem, fix);
}

const char *
doctor_root_propagation(const char *mountinfo)
{
	const char *line, *end, *p, *f, *result = NULL;
	int field;

	/* id parent maj:min root mountpoint opts [optional...] - fstype ... */
	for (line = mountinfo; *line != '\0'; line = *end != '\0' ? end + 1 : end) {
		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		for (p = line, field = 0; p < end && field < 4; p++)
			if (*p == ' ')
				field++;
		if (field < 4 || p + 1 >= end || p[0] != '/' || p[1] != ' ')
			continue;
		/* skip "mountpoint opts", then look at the optional fields up to " - " */
		p += 2;
		if ((p = memchr(p, ' ', (size_t)(end - p))) == NULL)
			continue;
		result = "private";
		for (f = p + 1; f < end && !(f[0] == '-' && (f + 1 == end || f[1] == ' '));) {
			if (strncmp(f, "shared:", 7) == 0) {
				result = "shared";
				break;
			}
			if (strncmp(f, "master:", 7) == 0)
				result = "slave";
			if ((f = memchr(f, ' ', (size_t)(end - f))) == NULL)
				break;
			f++;
		}
	}
	return result;
}

static void
doctor_propagation(struct doctor_ctx *c)
{
	_cleanup_free_ char *mi = doctor_read("/proc/self/mountinfo"), *problem = NULL, *fix = NULL;
	const char *prop = mi != NULL ? doctor_root_propagation(mi) : NULL;

	if (prop != NULL && strcmp(prop, "shared") == 0) {
		doctor_ok(c, "/ propagation", "shared");
		return;
	}
	problem = xasprintf("/ is %s, not shared: mounts made after podman's rootless "
	    "namespace exists stay invisible to it", prop != NULL ? prop : "unknown");
	fix = xasprintf("sudo mount --make-rshared /, then podman system migrate; or run: %s", c->setup);
	doctor_fail(c, "/ propagation", problem, fix);
}

/* / made shared after podman's pause process started does not reach the
 * namespace it holds: that one must be a slave (or shared) copy. */
static void
doctor_podman_propagation(struct doctor_ctx *c)
{
	char *argv[] = { (char *)"podman", (char *)"unshare", (char *)"cat",
	    (char *)"/proc/self/mountinfo", NULL };
	_cleanup_free_ char *problem = NULL;
	struct proc_result r;
	lz_err_t err = LZ_ERR_INIT;
	const char *prop = NULL;

	if (proc_run(argv, NULL, NULL, 0, &r, &err) < 0) {
		doctor_fail(c, "podman's mount namespace", err.msg, c->setup);
		lz_err_clear(&err);
		return;
	}
	if (r.status == 0)
		prop = doctor_root_propagation(r.out);
	proc_result_clear(&r);
	if (prop != NULL && strcmp(prop, "private") != 0) {
		doctor_ok(c, "podman's mount namespace", "receives host mounts (%s)", prop);
		return;
	}
	problem = xasprintf("/ is %s in the namespace podman's pause process holds "
	    "(it predates / being made shared)", prop != NULL ? prop : "unknown");
	doctor_fail(c, "podman's mount namespace", problem,
	    DOCTOR_MIGRATE_FIX);
}

/* crun 1.8 refuses a hybrid v1+v2 layout whose v2 hierarchy holds controllers. */
static void
doctor_cgroups(struct doctor_ctx *c)
{
	_cleanup_free_ char *ctl = NULL, *problem = NULL, *fix = NULL;
	struct statfs sf;
	size_t n;

	if (statfs("/sys/fs/cgroup", &sf) < 0) {
		doctor_fail(c, "cgroups", "/sys/fs/cgroup is not mounted", c->setup);
		return;
	}
	if ((unsigned long)sf.f_type == CGROUP2_SUPER_MAGIC) {
		doctor_ok(c, "cgroups", "unified (v2)");
		return;
	}
	ctl = doctor_read("/sys/fs/cgroup/unified/cgroup.controllers");
	n = ctl != NULL ? strlen(ctl) : 0;
	while (n > 0 && (ctl[n - 1] == '\n' || ctl[n - 1] == ' '))
		ctl[--n] = '\0';
	if (n == 0) {
		doctor_ok(c, "cgroups", "%s, no controller on v2 (crun accepts it)",
		    (unsigned long)sf.f_type == TMPFS_MAGIC ? "v1/hybrid" : "v1");
		return;
	}
	problem = xasprintf("hybrid layout with controllers on cgroup v2 (%s): crun refuses it "
	    "(\"cgroups in hybrid mode not supported\")", ctl);
	fix = xasprintf("for each controller C listed: sudo mkdir -p /sys/fs/cgroup/C && "
	    "sudo mount -t cgroup -o C cgroup /sys/fs/cgroup/C; or run: %s", c->setup);
	doctor_fail(c, "cgroups", problem, fix);
}

/* Which of the default profile's limits this host enforces (limits.h). */
static void
doctor_limits(struct doctor_ctx *c)
{
	struct cfg_limits dflt = cfg_limits_default();
	const struct cfg_limits *l = c->opts->limits != NULL ? c->opts->limits : &dflt;
	_cleanup_free_ char *why = NULL, *mem = cfg_size_text(l->memory);
	_cleanup_free_ char *disk = cfg_size_text(l->disk), *cpus = cfg_cpus_text(l->cpus_milli);
	struct limits_host h;

	limits_host_probe(&h);
	why = limits_unenforced(&h, l);
	limits_host_clear(&h);
	if (why == NULL) {
		doctor_ok(c, "limits", "memory %s, pids %ld, disk %s, cpus %s enforced (cgroups "
		    "delegated to uid %u, gVisor RLIMIT_NPROC, disk watchdog)", mem, l->pids, disk,
		    cpus, (unsigned)getuid());
		return;
	}
	doctor_fail(c, "limits", why, c->setup);
}

static bool
doctor_image(struct doctor_ctx *c)
{
	lz_err_t err = LZ_ERR_INIT;
	_cleanup_free_ char *problem = NULL, *what = NULL;
	bool exists = false;

	what = xasprintf("image %s", c->opts->image);
	if (podman_ops.image_exists(c->opts->image, &exists, &err) < 0) {
		doctor_fail(c, what, err.msg, c->setup);
		lz_err_clear(&err);
		return false;
	}
	if (!exists) {
		doctor_fail(c, what, "not found locally",
		    "lazaret image build-default (or podman pull it where a registry is reachable)");
		return false;
	}
	doctor_ok(c, what, "present");
	return true;
}

static void
doctor_mnt_ro(struct drv_mount *m, const char *src, const char *dst)
{
	m->type = DRV_MOUNT_BIND;
	m->src = (char *)src;
	m->dst = (char *)dst;
	m->ro = true;
}

/* --deep: GNU stat's statx(AT_NO_AUTOMOUNT), which this runsc refuses with
 * EINVAL, answered through the preloaded shim (sandbox/mounts/preload.h). */
static void
doctor_statx(struct doctor_ctx *c, bool tried, const char *out)
{
	const char *what = "statx shim (GNU ls, stat)";
	_cleanup_free_ char *problem = NULL;
	const char *p = strstr(out, "statx-");

	if (!tried) {
		doctor_fail(c, what, "lazaret-statx.so or the host's " DOCTOR_GNU_STAT " is missing",
		    "make (or reinstall Lazaret); sudo apt-get install coreutils");
		return;
	}
	if (p != NULL && strncmp(p, "statx-directory", 15) == 0) {
		doctor_ok(c, what, "GNU stat works in the sandbox through %s", PRELOAD_SO_DST);
		return;
	}
	problem = xasprintf("GNU stat in the sandbox: %.200s", p != NULL ? p : out);
	doctor_fail(c, what, problem, "make (or reinstall Lazaret), then lazaret doctor --deep again");
}

/* --deep: a sandbox through the real driver: runsc, a workspace bind mount
 * whose path has a space, an exec, the owner of a file it wrote, removal. */
static void
doctor_deep_sandbox(struct doctor_ctx *c)
{
	const char *what = "sandbox (runsc)";
	char tmpl[] = "/var/tmp/lazaret doctor.XXXXXX", *cmd[4], **argv = NULL, name[64];
	_cleanup_free_ char *probe = NULL, *problem = NULL;
	_cleanup_free_ char *so = NULL, *preload = NULL;
	struct drv_spec spec;
	struct drv_mount mnt[4];
	struct drv_exec ex;
	struct proc_result r;
	lz_err_t err = LZ_ERR_INIT;
	enum drv_state st;
	struct stat sb;
	bool created = false;

	memset(&r, 0, sizeof r);
	snprintf(name, sizeof name, "lazaret-doctor-%ld", (long)getpid());
	if (mkdtemp(tmpl) == NULL) {
		problem = xasprintf("cannot create %s: %s", tmpl, strerror(errno));
		doctor_fail(c, what, problem, NULL);
		return;
	}
	probe = xasprintf("%s/probe", tmpl);
	preload = xasprintf("%s/ld.so.preload", tmpl);
	memset(&spec, 0, sizeof spec);
	memset(mnt, 0, sizeof mnt);
	mnt[0].type = DRV_MOUNT_BIND;
	mnt[0].src = tmpl;
	mnt[0].dst = (char *)"/workspace";
	spec.name = name;
	spec.image = (char *)c->opts->image;
	spec.network = (char *)"none";
	spec.workdir = (char *)"/workspace";
	spec.mounts = mnt;
	spec.n_mounts = 1;
	/* The statx shim as sessions get it, tried by the host's GNU stat. */
	if (preload_so_path(&so, &err) == 0 && preload_file_write(preload, &err) == 0 &&
	    access(DOCTOR_GNU_STAT, X_OK) == 0) {
		doctor_mnt_ro(&mnt[1], so, PRELOAD_SO_DST);
		doctor_mnt_ro(&mnt[2], preload, PRELOAD_FILE_DST);
		doctor_mnt_ro(&mnt[3], DOCTOR_GNU_STAT, DOCTOR_GNU_STAT_DST);
		spec.n_mounts = 4;
	}
	lz_err_clear(&err);
	created = true;		/* a failed start can leave the container behind */
	if (podman_ops.create(&spec, &err) < 0)
		goto fail;
	if (podman_ops.inspect(name, &st, &err) < 0)
		goto fail;
	if (st != DRV_STATE_RUNNING) {
		lz_err_set(&err, EIO, "container %s is not running after create", name);
		goto fail;
	}
	cmd[0] = (char *)"/bin/sh";
	cmd[1] = (char *)"-c";
	cmd[2] = (char *)"echo ok > /workspace/probe && cat /proc/version && "
	    "{ " DOCTOR_GNU_STAT_DST " -c statx-%F / 2>&1 || true; }";
	cmd[3] = NULL;
	memset(&ex, 0, sizeof ex);
	ex.name = name;
	ex.argv = cmd;
	if (podman_ops.exec_argv(&ex, &argv, &err) < 0 ||
	    proc_run(argv, NULL, NULL, 0, &r, &err) < 0)
		goto fail;
	if (r.status != 0) {
		lz_err_set(&err, EIO, "podman exec in %s failed (exit %d): %s", name, r.status, r.errout);
		goto fail;
	}
	/* gVisor reports its own kernel version, not the host's */
	if (strstr(r.out, "Linux version 4.4.0") == NULL) {
		lz_err_set(&err, EIO, "not gVisor inside %s: %s", name, r.out);
		goto fail;
	}
	if (stat(probe, &sb) < 0 || sb.st_uid != getuid()) {
		lz_err_set(&err, EIO, "a file the sandbox wrote in /workspace is %s",
		    access(probe, F_OK) < 0 ? "missing on the host" : "not owned by you on the host");
		goto fail;
	}
	created = false;
	if (podman_ops.remove(name, &err) < 0 || podman_ops.inspect(name, &st, &err) < 0)
		goto fail;
	if (st != DRV_STATE_ABSENT) {
		lz_err_set(&err, EIO, "container %s still exists after remove", name);
		goto fail;
	}
	doctor_ok(c, what, "started, exec'd and removed %s under gVisor; /workspace files are yours",
	    c->opts->image);
	doctor_statx(c, spec.n_mounts == 4, r.out);
	goto out;
fail:
	doctor_fail(c, what, err.msg, c->setup);
out:
	if (created) {
		lz_err_clear(&err);
		(void)podman_ops.remove(name, &err);
	}
	lz_err_clear(&err);
	proc_result_clear(&r);
	lz_strv_free(argv);
	(void)unlink(probe);
	(void)unlink(preload);
	(void)rmdir(tmpl);
}

/* --deep: the sidecar's runtime with the sidecar's network (crun + slirp4netns). */
static void
doctor_deep_crun(struct doctor_ctx *c)
{
	char *argv[] = { (char *)"podman", (char *)"run", (char *)"--rm", (char *)"--pull=never",
	    (char *)"--runtime=crun", (char *)"--network=slirp4netns", (char *)c->opts->image,
	    (char *)"true", NULL };
	_cleanup_free_ char *line = NULL, *msg = NULL, *problem = NULL;

	line = doctor_cmd(argv, &msg);
	if (msg == NULL) {
		doctor_ok(c, "sidecar runtime (crun, slirp4netns)", "a container started and exited");
		return;
	}
	problem = xasprintf("`podman run --runtime crun --network slirp4netns` failed: %s", msg);
	doctor_fail(c, "sidecar runtime (crun, slirp4netns)", problem, c->setup);
}

/* lazaret-sidecar next to lazaret, and its image (built on first use). */
static void
doctor_sidecar(struct doctor_ctx *c)
{
	_cleanup_free_ char *bin = NULL, *name = NULL;
	lz_err_t err = LZ_ERR_INIT;
	bool exists = false;

	if (net_image_bin(&bin, &err) < 0) {
		doctor_fail(c, "network sidecar", err.msg, "build it with make (it sits next to lazaret)");
		lz_err_clear(&err);
		return;
	}
	if (net_image_name(bin, &name, &err) < 0 ||
	    podman_ops.image_exists(name, &exists, &err) < 0) {
		doctor_fail(c, "network sidecar", err.msg, c->setup);
		lz_err_clear(&err);
		return;
	}
	doctor_ok(c, "network sidecar", "%s; image %s %s", bin, name,
	    exists ? "present" : "not built yet (built on first use, or by doctor --deep)");
}

/* --deep: the router's table and nflog group in a real sidecar container. */
static void
doctor_deep_nft(struct doctor_ctx *c)
{
	const char *what = "sidecar nftables (user namespace)";
	_cleanup_free_ char *bin = NULL, *name = NULL, *line = NULL, *msg = NULL, *problem = NULL;
	lz_err_t err = LZ_ERR_INIT;

	if (net_image_bin(&bin, &err) < 0 || net_image_ensure(bin, &name, NULL, &err) < 0) {
		doctor_fail(c, what, err.msg, "make; then lazaret doctor --deep again");
		lz_err_clear(&err);
		return;
	}
	{
		char *argv[] = { (char *)"podman", (char *)"run", (char *)"--rm", (char *)"--pull=never",
		    (char *)"--runtime=crun", (char *)"--cap-drop=all", (char *)"--cap-add=NET_ADMIN",
		    (char *)"--network=slirp4netns", name, (char *)"--check", NULL };

		line = doctor_cmd(argv, &msg);
	}
	if (msg == NULL && line != NULL && strstr(line, "check ok") != NULL) {
		/* Holding new flows (network requests) needs NFQUEUE; without it they are
		 * refused unasked, which is safe but worth saying. */
		doctor_ok(c, what, "default-deny table and nflog group installed in a crun sidecar; %s",
		    strstr(line, "no NFQUEUE") != NULL ? "no NFQUEUE here: network requests are not "
		    "asked (new destinations are blocked at once)" : "new flows can be held for a "
		    "decision (nfqueue)");
		return;
	}
	problem = xasprintf("the sidecar could not install its rules: %s", msg ? msg : line ? line : "?");
	doctor_fail(c, what, problem, c->setup);
}

int
doctor_run(const struct doctor_opts *opts, FILE *out)
{
	struct doctor_ctx c;
	struct passwd *pw = getpwuid(getuid());
	const char *user = opts->user != NULL ? opts->user : pw != NULL ? pw->pw_name : "USER";
	_cleanup_free_ char *runsc = NULL;
	bool have_podman, have_image;

	memset(&c, 0, sizeof c);
	c.opts = opts;
	c.out = out;
	{
		_cleanup_free_ char *sh = lz_prefix_setup_host();

		c.setup = xasprintf("sudo %s %s", sh, user);
	}

	free(doctor_program(&c, "podman", "podman"));
	/* podman checks after a failed `podman info` would only repeat its error */
	have_podman = c.failed == 0 && doctor_podman_rootless(&c);
	runsc = doctor_program(&c, "runsc", "runsc");
	if (have_podman)
		doctor_runsc_registered(&c);
	doctor_sessions(&c, runsc);
	free(doctor_program(&c, "crun", "crun"));
	free(doctor_program(&c, "fuse-overlayfs", "fuse-overlayfs"));
	free(doctor_program(&c, "bindfs", "bindfs"));	/* the agent user's workspace (uidmap.c) */
	free(doctor_program(&c, "slirp4netns", "slirp4netns"));
	doctor_init(&c);
	doctor_subids(&c, "/etc/subuid", user, getuid());
	doctor_subids(&c, "/etc/subgid", user, getuid());
	doctor_device(&c, "/dev/fuse", "fuse-overlayfs opens it");
	doctor_device(&c, "/dev/net/tun", "slirp4netns opens it");
	doctor_runtime_dir(&c);
	doctor_propagation(&c);
	if (have_podman)
		doctor_podman_propagation(&c);
	doctor_cgroups(&c);
	doctor_limits(&c);
	have_image = have_podman && doctor_image(&c);
	if (have_podman)
		doctor_sidecar(&c);
	if (opts->deep && have_image && c.failed == 0) {
		doctor_deep_sandbox(&c);
		doctor_deep_crun(&c);
		doctor_deep_nft(&c);
	} else if (opts->deep) {
		fprintf(out, "skip deep checks (containers): fix the failures above first\n");
	}
	if (c.failed == 0)
		fprintf(out, "all %d checks passed\n", c.total);
	else
		fprintf(out, "%d of %d checks failed\n", c.failed, c.total);
	free(c.setup);
	return c.failed;
}
