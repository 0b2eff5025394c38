/* image.c - build the default sandbox image from the host's binaries.
 *
 * Theory of operation: no registry is reachable here, so the image is a
 * rootfs assembled in a private temp dir: the host's /bin, /lib... symlinks
 * (usrmerge) first, so that every host path copied lands where the loader
 * and PATH expect it; then `cp -L --parents` of the binaries, the libraries
 * `ldd` lists for them (and for git's helpers) and a few terminfo entries,
 * `cp -a --parents` of git's directories (keeps its hardlinks: one copy of
 * git, not 150); busybox-static applets fill whatever is still missing.
 * `tar` packs it with root ownership and `podman import` makes the image.
 * Every step runs a program from argv (proc.h); nothing runs through a shell.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/driver.h"
#include "sandbox/image/image.h"
#include "host/proc.h"
#include "strv.h"
#include "xmalloc.h"

/* GNU coreutils programs (Debian's coreutils package), copied when present.
 * Not ls, dir, vdir, stat: they call statx(AT_NO_AUTOMOUNT), which runsc
 * 20221219 rejects with EINVAL ("ls: cannot access 'f': Invalid argument");
 * busybox's ls and stat use fstatat and work. */
static const char *const image_coreutils[] = {
	"[", "arch", "b2sum", "base32", "base64", "basename", "basenc", "cat", "chgrp",
	"chmod", "chown", "chroot", "cksum", "comm", "cp", "csplit", "cut", "date", "dd",
	"df", "dircolors", "dirname", "du", "echo", "env", "expand", "expr",
	"factor", "false", "fmt", "fold", "groups", "head", "hostid", "id", "install",
	"join", "link", "ln", "logname", "md5sum", "mkdir", "mkfifo", "mknod",
	"mktemp", "mv", "nice", "nl", "nohup", "nproc", "numfmt", "od", "paste",
	"pathchk", "pr", "printenv", "printf", "ptx", "pwd", "readlink", "realpath", "rm",
	"rmdir", "seq", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum",
	"shred", "shuf", "sleep", "sort", "split", "stdbuf", "stty", "sum", "sync",
	"tac", "tail", "tee", "test", "timeout", "touch", "tr", "true", "truncate", "tsort",
	"tty", "uname", "unexpand", "uniq", "unlink", "wc", "whoami", "yes",
};
/* GNU tools agents expect beyond coreutils; busybox covers them when absent. */
static const char *const image_extras[] = {
	"less", "grep", "sed", "find", "xargs", "diff", "cmp", "tar", "gzip",
};
static const char *const image_terms[] = {
	"x/xterm-256color", "x/xterm", "t/tmux-256color", "t/tmux", "s/screen-256color",
	"s/screen", "l/linux", "v/vt100", "d/dumb",
};
static const char *const image_terminfo_dirs[] = {
	"/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo",
};
static const char *const image_bin_dirs[] = { "/usr/bin", "/bin", "/usr/sbin", "/sbin" };
static const char *const image_root_entries[] = { "bin", "sbin", "lib", "lib32", "lib64", "libx32" };

static const char image_passwd[] =
    "root:x:0:0:root:/root:/bin/bash\n"
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
static const char image_group[] = "root:x:0:\nnogroup:x:65534:\n";
static const char image_nsswitch[] = "passwd: files\ngroup: files\nhosts: files dns\n";
static const char image_profile[] =
    "# /etc/profile - lazaret default image\n"
    "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
    "export LANG=\"${LANG:-C.UTF-8}\" EDITOR=\"${EDITOR:-vim}\" PAGER=\"${PAGER:-less}\"\n"
    "if [ -n \"$BASH_VERSION\" ] && [ -r /etc/bash.bashrc ]; then . /etc/bash.bashrc; "
    "else PS1='\\u@lazaret:\\w\\$ '; fi\n";
static const char image_bashrc[] =
    "# /etc/bash.bashrc - lazaret default image\n"
    "[ -z \"$PS1\" ] && return\n"
    "shopt -s checkwinsize histappend\n"
    "PS1='\\[\\e[1;32m\\]\\u@\\h\\[\\e[0m\\]:\\[\\e[1;34m\\]\\w\\[\\e[0m\\]\\$ '\n"
    "alias ls='ls --color=auto'\n";

size_t
image_ldd_parse(const char *out, char ***paths)
{
	char **v = NULL;
	const char *line = out, *end, *p, *q;
	size_t n = 0, i;
	char *lib;

	*paths = NULL;
	for (; line != NULL && *line != '\0'; line = *end != '\0' ? end + 1 : end) {
		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		p = line;
		while (p < end && (*p == '\t' || *p == ' '))
			p++;
		/* "libz.so.1 => /lib/x/libz.so.1 (0x...)" or "/lib64/ld-linux.so.2 (0x...)";
		 * "/usr/bin/git:" headers and "not found" lines carry no " (0x" */
		q = strstr(p, "=> ");
		if (q != NULL && q < end)
			p = q + 3;
		if (p >= end || *p != '/')
			continue;
		q = p;
		while (q < end && *q != ' ')
			q++;
		if (q + 4 > end || strncmp(q, " (0x", 4) != 0)
			continue;
		lib = xstrndup(p, (size_t)(q - p));
		for (i = 0; i < n && strcmp(v[i], lib) != 0; i++)
			;
		if (i < n) {
			free(lib);
			continue;
		}
		lz_strv_push(&v, lib);
		free(lib);
		n++;
	}
	*paths = v;
	return n;
}

/* First of the bin dirs holding an executable `name`; caller frees. */
static char *
image_find_bin(const char *name)
{
	struct stat st;
	char *p;
	size_t i;

	for (i = 0; i < sizeof image_bin_dirs / sizeof image_bin_dirs[0]; i++) {
		p = xasprintf("%s/%s", image_bin_dirs[i], name);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

static bool
image_is_elf(const char *path)
{
	unsigned char m[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);	/* follows /usr/bin/vim -> alternatives */
	bool elf;

	if (fd < 0)
		return false;
	elf = read(fd, m, 4) == 4 && memcmp(m, "\177ELF", 4) == 0;
	close(fd);
	return elf;
}

/* ELF files in dir, one name per inode (git-core hardlinks git ~150 times). */
static void
image_elf_in_dir(const char *dir, char ***elves)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	ino_t seen[512];
	size_t n = 0, i;
	char *p;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		p = xasprintf("%s/%s", dir, e->d_name);
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && image_is_elf(p)) {
			for (i = 0; i < n && seen[i] != st.st_ino; i++)
				;
			if (i == n) {
				if (n < sizeof seen / sizeof seen[0])
					seen[n++] = st.st_ino;
				lz_strv_push(elves, p);
			}
		}
		free(p);
	}
	closedir(d);
}

static int
image_mkdir(const char *root, const char *rel, mode_t mode, lz_err_t *err)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", root, rel);

	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return lz_err_sys(err, errno, "cannot create %s", p);
	/* explicit chmod: the umask must not narrow /tmp's 1777 */
	if (chmod(p, mode) < 0)
		return lz_err_sys(err, errno, "cannot chmod %s", p);
	return 0;
}

static int
image_write(const char *root, const char *rel, const char *content, lz_err_t *err)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(p, "wex");

	if (f == NULL)
		return lz_err_sys(err, errno, "cannot create %s", p);
	if (fputs(content, f) == EOF || fclose(f) == EOF)
		return lz_err_sys(err, errno, "cannot write %s", p);
	return 0;
}

static int
image_symlink(const char *root, const char *rel, const char *target, lz_err_t *err)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", root, rel);

	if (symlink(target, p) < 0 && errno != EEXIST)
		return lz_err_sys(err, errno, "cannot create symlink %s", p);
	return 0;
}

/* Mirror the host's top-level /bin, /lib... (symlinks on a usrmerged host). */
static int
image_root_layout(const char *root, lz_err_t *err)
{
	static const char *const dirs[] = {
		"usr", "usr/bin", "usr/sbin", "usr/lib", "usr/local", "usr/local/bin", "usr/share",
		"etc", "home", "dev", "proc", "sys", "run", "var", "var/tmp", "tmp", "root", "workspace",
	};
	char target[PATH_MAX], *host, *dst;
	struct stat st;
	ssize_t n;
	size_t i;
	int r;

	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		if (image_mkdir(root, dirs[i], 0755, err) < 0)
			return -1;
	if (image_mkdir(root, "tmp", 01777, err) < 0 || image_mkdir(root, "var/tmp", 01777, err) < 0 ||
	    image_mkdir(root, "root", 0700, err) < 0)
		return -1;
	for (i = 0; i < sizeof image_root_entries / sizeof image_root_entries[0]; i++) {
		host = xasprintf("/%s", image_root_entries[i]);
		r = 0;
		if (lstat(host, &st) == 0 && S_ISLNK(st.st_mode)) {
			n = readlink(host, target, sizeof target - 1);
			if (n > 0 && target[0] != '/') {
				target[n] = '\0';
				dst = xasprintf("%s/%s", root, target);
				(void)mkdir(dst, 0755);
				free(dst);
				r = image_symlink(root, image_root_entries[i], target, err);
			}
		} else if (lstat(host, &st) == 0 && S_ISDIR(st.st_mode)) {
			r = image_mkdir(root, image_root_entries[i], 0755, err);
		}
		free(host);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* Run argv; a failure names the program and carries its stderr. */
static int
image_run(char **argv, char **out, lz_err_t *err)
{
	return proc_run_ok(argv, out, err);
}

/* Symlink every busybox applet that no real binary provides. */
static int
image_busybox_applets(const char *root, const char *busybox, lz_err_t *err)
{
	char *argv[] = { (char *)busybox, (char *)"--list", NULL };
	_cleanup_free_ char *list = NULL;
	char *save = NULL, *a, *p, *q;
	struct stat st;
	int r = 0;

	if (image_run(argv, &list, err) < 0)
		return -1;
	for (a = strtok_r(list, "\n", &save); a != NULL && r == 0; a = strtok_r(NULL, "\n", &save)) {
		/* busybox-static's wget segfaults (notes/sandbox-probe.md) */
		if (strchr(a, '/') != NULL || strcmp(a, "busybox") == 0 || strcmp(a, "wget") == 0)
			continue;
		p = xasprintf("%s/usr/bin/%s", root, a);
		q = xasprintf("%s/usr/sbin/%s", root, a);
		if (lstat(p, &st) < 0 && lstat(q, &st) < 0) {
			r = image_symlink(root, p + strlen(root) + 1, "busybox", err);
		}
		free(p);
		free(q);
	}
	return r;
}

static int
image_etc(const char *root, lz_err_t *err)
{
	if (image_mkdir(root, "etc/ssl", 0755, err) < 0 ||
	    image_write(root, "etc/passwd", image_passwd, err) < 0 ||
	    image_write(root, "etc/group", image_group, err) < 0 ||
	    image_write(root, "etc/nsswitch.conf", image_nsswitch, err) < 0 ||
	    image_write(root, "etc/profile", image_profile, err) < 0 ||
	    image_write(root, "etc/bash.bashrc", image_bashrc, err) < 0 ||
	    image_write(root, "etc/shells", "/bin/sh\n/bin/bash\n", err) < 0 ||
	    image_write(root, "root/.bashrc", "[ -r /etc/bash.bashrc ] && . /etc/bash.bashrc\n", err) < 0)
		return -1;
	return 0;
}

/* What goes into the image, by host path. */
struct image_plan {
	char **files;	/* cp -L --parents (content at that name) */
	char **dirs;	/* cp -a --parents (keeps hardlinks/symlinks) */
	char **elves;	/* ldd these */
	char *busybox;
	bool vim_tiny;	/* only vim.tiny found: vim -> vim.tiny */
	bool have_vim;
};

static void
image_plan_clear(struct image_plan *p)
{
	lz_strv_free(p->files);
	lz_strv_free(p->dirs);
	lz_strv_free(p->elves);
	free(p->busybox);
}

static void
image_plan_bin(struct image_plan *p, char *path)
{
	lz_strv_push(&p->files, path);
	if (image_is_elf(path))
		lz_strv_push(&p->elves, path);
	free(path);
}

static int
image_plan_make(struct image_plan *p, lz_err_t *err)
{
	char *b, real[PATH_MAX];
	struct stat st;
	size_t i, j;
	const char *base;

	memset(p, 0, sizeof *p);
	if ((p->busybox = image_find_bin("busybox")) == NULL)
		return lz_err_set(err, ENOENT, "busybox not found: sudo apt-get install busybox-static, "
		    "or run: sudo scripts/setup-host");
	lz_strv_push(&p->files, p->busybox);
	if ((b = image_find_bin("bash")) == NULL)
		return lz_err_set(err, ENOENT, "bash not found on the host");
	image_plan_bin(p, b);
	if ((b = image_find_bin("git")) == NULL)
		return lz_err_set(err, ENOENT, "git not found: sudo apt-get install git, "
		    "or run: sudo scripts/setup-host");
	image_plan_bin(p, b);
	for (i = 0; i < sizeof image_coreutils / sizeof image_coreutils[0]; i++)
		if ((b = image_find_bin(image_coreutils[i])) != NULL)
			image_plan_bin(p, b);
	for (i = 0; i < sizeof image_extras / sizeof image_extras[0]; i++)
		if ((b = image_find_bin(image_extras[i])) != NULL)
			image_plan_bin(p, b);
	/* vim (alternatives symlink) or vim.tiny; a full vim needs its runtime */
	if ((b = image_find_bin("vim")) != NULL && realpath(b, real) != NULL) {
		base = strrchr(real, '/') + 1;
		if (strcmp(base, "vim.tiny") != 0 && stat("/usr/share/vim", &st) == 0)
			lz_strv_push(&p->dirs, "/usr/share/vim");
		image_plan_bin(p, b);
		p->have_vim = true;
	} else {
		free(b);
		if ((b = image_find_bin("vim.tiny")) != NULL) {
			image_plan_bin(p, b);
			p->have_vim = p->vim_tiny = true;
		}
	}
	if (stat("/etc/vim", &st) == 0 && S_ISDIR(st.st_mode))
		lz_strv_push(&p->dirs, "/etc/vim");
	if (stat("/usr/lib/git-core", &st) == 0) {
		lz_strv_push(&p->dirs, "/usr/lib/git-core");
		image_elf_in_dir("/usr/lib/git-core", &p->elves);
	}
	if (stat("/usr/share/git-core", &st) == 0)
		lz_strv_push(&p->dirs, "/usr/share/git-core");
	if (stat("/etc/ssl/certs/ca-certificates.crt", &st) == 0)
		lz_strv_push(&p->files, "/etc/ssl/certs/ca-certificates.crt");
	for (i = 0; i < sizeof image_terms / sizeof image_terms[0]; i++)
		for (j = 0; j < sizeof image_terminfo_dirs / sizeof image_terminfo_dirs[0]; j++) {
			b = xasprintf("%s/%s", image_terminfo_dirs[j], image_terms[i]);
			if (stat(b, &st) == 0 && S_ISREG(st.st_mode)) {
				lz_strv_push(&p->files, b);
				free(b);
				break;
			}
			free(b);
		}
	return 0;
}

/* Copy the plan into root; returns the number of libraries copied. */
int
image_copy_closure(char *const *elves, char *const *files, char *const *dirs, const char *root,
    size_t *n_libs, lz_err_t *err)
{
	char **argv = NULL, **libs = NULL;
	struct proc_result r;
	int ret = -1;

	lz_strv_push(&argv, "ldd");
	for (char *const *e = elves; e != NULL && *e != NULL; e++)
		lz_strv_push(&argv, *e);
	/* ldd exits 1 when one file is static; its output still lists the rest */
	if (proc_run(argv, NULL, NULL, 0, &r, err) < 0)
		goto out;
	*n_libs = image_ldd_parse(r.out, &libs);
	proc_result_clear(&r);
	if (*n_libs == 0) {
		lz_err_set(err, LZ_EINVAL, "ldd listed no shared libraries for %s", elves[0]);
		goto out;
	}
	lz_strv_free(argv);
	argv = NULL;
	lz_strv_push(&argv, "cp");
	lz_strv_push(&argv, "-L");
	lz_strv_push(&argv, "--parents");
	lz_strv_push(&argv, "--");
	for (char *const *f = files; f != NULL && *f != NULL; f++)
		lz_strv_push(&argv, *f);
	for (char **l = libs; *l != NULL; l++)
		lz_strv_push(&argv, *l);
	lz_strv_push(&argv, root);
	if (image_run(argv, NULL, err) < 0)
		goto out;
	if (dirs != NULL) {
		lz_strv_free(argv);
		argv = NULL;
		lz_strv_push(&argv, "cp");
		lz_strv_push(&argv, "-a");
		lz_strv_push(&argv, "--parents");
		lz_strv_push(&argv, "--");
		for (char *const *d = dirs; *d != NULL; d++)
			lz_strv_push(&argv, *d);
		lz_strv_push(&argv, root);
		if (image_run(argv, NULL, err) < 0)
			goto out;
	}
	ret = 0;
out:
	lz_strv_free(argv);
	lz_strv_free(libs);
	return ret;
}

double
image_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
image_rmtree(const char *dir)
{
	char *argv[] = { (char *)"rm", (char *)"-rf", (char *)"--one-file-system", (char *)"--",
	    (char *)dir, NULL };
	lz_err_t err = LZ_ERR_INIT;

	if (image_run(argv, NULL, &err) < 0) {
		lz_err_print(&err);
		lz_err_clear(&err);
	}
}

char *
image_id(const char *name)
{
	char *argv[] = { (char *)"podman", (char *)"image", (char *)"inspect", (char *)"--format",
	    (char *)"{{.Id}}", (char *)name, NULL };
	lz_err_t err = LZ_ERR_INIT;
	char *id = NULL;

	if (proc_run_ok(argv, &id, &err) < 0)
		lz_err_clear(&err);
	return id;
}

void
image_remove_old(const char *old_id, FILE *progress)
{
	char *argv[] = { (char *)"podman", (char *)"image", (char *)"rm", (char *)old_id, NULL };
	lz_err_t err = LZ_ERR_INIT;

	if (proc_run_ok(argv, NULL, &err) < 0) {
		if (progress != NULL)
			fprintf(progress, "note: kept the previous image %.12s (in use by a container?)\n",
			    old_id);
		lz_err_clear(&err);
	}
}

int
image_import_dir(const char *root, const char *tar, const char *name, char *const *changes,
    char **id, lz_err_t *err)
{
	char **argv = NULL;
	int ret = -1;

	*id = NULL;
	lz_strv_push(&argv, "tar");
	lz_strv_push(&argv, "-C");
	lz_strv_push(&argv, root);
	lz_strv_push(&argv, "--numeric-owner");
	lz_strv_push(&argv, "--owner=0");
	lz_strv_push(&argv, "--group=0");
	lz_strv_push(&argv, "-cf");
	lz_strv_push(&argv, tar);
	lz_strv_push(&argv, ".");
	if (image_run(argv, NULL, err) < 0)
		goto out;
	lz_strv_free(argv);
	argv = NULL;
	lz_strv_push(&argv, "podman");
	lz_strv_push(&argv, "import");
	lz_strv_push(&argv, "--quiet");
	for (char *const *c = changes; c != NULL && *c != NULL; c++)
		lz_strv_pushf(&argv, "--change=%s", *c);
	lz_strv_push(&argv, tar);
	lz_strv_push(&argv, name);
	if (image_run(argv, id, err) < 0) {
		lz_err_wrap(err, "cannot import image %s", name);
		goto out;
	}
	ret = 0;
out:
	lz_strv_free(argv);
	return ret;
}

int
image_mkdtemp(char tmpl[PATH_MAX], lz_err_t *err)
{
	const char *tmpdir = getenv("TMPDIR");

	if (tmpdir == NULL || tmpdir[0] != '/')
		tmpdir = "/var/tmp";
	if ((size_t)snprintf(tmpl, PATH_MAX, "%s/lazaret-image.XXXXXX", tmpdir) >= PATH_MAX)
		return lz_err_set(err, ENAMETOOLONG, "TMPDIR is too long");
	if (mkdtemp(tmpl) == NULL)
		return lz_err_sys(err, errno, "cannot create a temporary directory in %s", tmpdir);
	return 0;
}

#define IMAGE_STEP(f, ...) do { if ((f) != NULL) { fprintf((f), __VA_ARGS__); fflush(f); } } while (0)

int
image_build_default(const char *name, bool force, FILE *progress, lz_err_t *err)
{
	struct image_plan plan;
	char tmpl[PATH_MAX], *root = NULL, *tar = NULL, *id = NULL, *label = NULL;
	_cleanup_free_ char *old_id = NULL;
	char **argv = NULL;
	size_t n_libs = 0;
	double t0 = image_now();
	bool exists;
	int ret = -1;

	if (name == NULL)
		name = IMAGE_DEFAULT;
	memset(&plan, 0, sizeof plan);
	if (podman_ops.image_exists(name, &exists, err) < 0)
		return -1;
	if (exists && !force) {
		IMAGE_STEP(progress, "image %s exists (use --force to rebuild it)\n", name);
		return 0;
	}
	if (exists)
		old_id = image_id(name);
	if (image_mkdtemp(tmpl, err) < 0)
		return -1;
	root = xasprintf("%s/rootfs", tmpl);
	tar = xasprintf("%s/rootfs.tar", tmpl);

	IMAGE_STEP(progress, "[1/4] assembling rootfs (busybox, bash, coreutils, git, less, vim)...\n");
	if (mkdir(root, 0755) < 0) {
		lz_err_sys(err, errno, "cannot create %s", root);
		goto out;
	}
	if (image_plan_make(&plan, err) < 0 || image_root_layout(root, err) < 0)
		goto out;
	if (!plan.have_vim)
		IMAGE_STEP(progress, "      note: no vim on the host (sudo apt-get install vim-tiny); busybox vi only\n");
	IMAGE_STEP(progress, "[2/4] copying %zu programs and the shared libraries ldd lists...\n",
	    lz_strv_len(plan.elves));
	if (image_copy_closure(plan.elves, plan.files, plan.dirs, root, &n_libs, err) < 0)
		goto out;
	if (image_symlink(root, "usr/bin/sh", "bash", err) < 0 ||
	    (plan.have_vim && image_symlink(root, "usr/bin/vi", "vim", err) < 0) ||
	    (plan.vim_tiny && image_symlink(root, "usr/bin/vim", "vim.tiny", err) < 0) ||
	    image_busybox_applets(root, plan.busybox, err) < 0 || image_etc(root, err) < 0)
		goto out;

	IMAGE_STEP(progress, "[3/4] packing rootfs (%zu libraries)...\n", n_libs);
	IMAGE_STEP(progress, "[4/4] importing %s (podman import)...\n", name);
	label = xasprintf("LABEL=%s=default", IMAGE_LABEL);
	lz_strv_push(&argv, "CMD=[\"/bin/bash\",\"-l\"]");
	lz_strv_push(&argv, "WORKDIR=/workspace");
	lz_strv_push(&argv, "ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	lz_strv_push(&argv, "ENV=LANG=C.UTF-8");
	lz_strv_push(&argv, label);
	if (image_import_dir(root, tar, name, argv, &id, err) < 0)
		goto out;
	IMAGE_STEP(progress, "built %s (%.12s) in %.1f s\n", name,
	    strncmp(id, "sha256:", 7) == 0 ? id + 7 : id, image_now() - t0);
	if (old_id != NULL)
		image_remove_old(old_id, progress);
	ret = 0;
out:
	image_rmtree(tmpl);
	image_plan_clear(&plan);
	lz_strv_free(argv);
	free(root);
	free(tar);
	free(id);
	free(label);
	return ret;
}
