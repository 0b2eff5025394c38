/* policy.c - auto-approve matching and the banned-executable table.
 *
 * Theory of operation: policy_decide_in() splits the request, refuses
 * auto-approval on any metacharacter of the raw text, then on any banned
 * executable, then looks for an entry equal to the vector. The ban check
 * collects every name argv[0] goes by (as written, each symlink hop, the
 * realpath target, and the names of banned programs in PATH sharing its
 * inode) and applies the first matching rule of ban_table to the arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "policy.h"
#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

#define POLICY_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
#define POLICY_MAX_HOPS 40

struct policy {
	char ***entries;	/* split auto_approve entries */
	size_t n;
	char *path;
};

/* One rule: a name (also matching name + [0-9._-]...: python3.11, git-lfs,
 * ld-linux-x86-64.so.2) and what makes it banned. always: any use. Else
 * shorts: option letters taking code, found in any "-xyz" cluster; words:
 * arguments equal to one (or "word=..."); assign: any VAR=value argument. */
struct policy_ban {
	const char *name;
	bool always;
	const char *shorts;
	const char *const *words;
	bool assign;
	const char *why;
};

#define W(...) (const char *const[]){ __VA_ARGS__, NULL }
#define ALWAYS(n, w) { n, true, NULL, NULL, false, w }
#define SHELL "is a shell"
#define WRAP "runs another program named in its arguments"
static const struct policy_ban ban_table[] = {
	ALWAYS("git", "runs hooks, aliases and programs named in repository config"),
	ALWAYS("sh", SHELL), ALWAYS("bash", SHELL), ALWAYS("dash", SHELL),
	ALWAYS("zsh", SHELL), ALWAYS("ksh", SHELL), ALWAYS("mksh", SHELL),
	ALWAYS("ash", SHELL), ALWAYS("yash", SHELL), ALWAYS("posh", SHELL),
	ALWAYS("rbash", SHELL), ALWAYS("fish", SHELL), ALWAYS("csh", SHELL),
	ALWAYS("tcsh", SHELL), ALWAYS("busybox", SHELL), ALWAYS("toybox", SHELL),
	ALWAYS("env", WRAP), ALWAYS("sudo", WRAP), ALWAYS("su", WRAP),
	ALWAYS("doas", WRAP), ALWAYS("pkexec", WRAP), ALWAYS("runuser", WRAP),
	ALWAYS("sg", WRAP), ALWAYS("newgrp", WRAP), ALWAYS("setpriv", WRAP),
	ALWAYS("capsh", WRAP), ALWAYS("xargs", WRAP), ALWAYS("nohup", WRAP),
	ALWAYS("timeout", WRAP), ALWAYS("nice", WRAP), ALWAYS("ionice", WRAP),
	ALWAYS("setsid", WRAP), ALWAYS("chroot", WRAP), ALWAYS("stdbuf", WRAP),
	ALWAYS("time", WRAP), ALWAYS("strace", WRAP), ALWAYS("ltrace", WRAP),
	ALWAYS("gdb", WRAP), ALWAYS("valgrind", WRAP), ALWAYS("watch", WRAP),
	ALWAYS("flock", WRAP), ALWAYS("unshare", WRAP), ALWAYS("nsenter", WRAP),
	ALWAYS("chrt", WRAP), ALWAYS("taskset", WRAP), ALWAYS("script", WRAP),
	ALWAYS("expect", WRAP), ALWAYS("parallel", WRAP), ALWAYS("entr", WRAP),
	ALWAYS("systemd-run", WRAP), ALWAYS("systemd-nspawn", WRAP),
	ALWAYS("bwrap", WRAP), ALWAYS("firejail", WRAP), ALWAYS("fakeroot", WRAP),
	ALWAYS("proot", WRAP), ALWAYS("ld-linux", WRAP), ALWAYS("ld.so", WRAP),
	ALWAYS("npx", WRAP), ALWAYS("pnpx", WRAP), ALWAYS("bunx", WRAP),
	ALWAYS("ssh", "runs commands on another host"), ALWAYS("scp", "runs ssh"),
	ALWAYS("sftp", "runs ssh"),
	ALWAYS("podman", "can run anything with host mounts"),
	ALWAYS("docker", "can run anything with host mounts"),
	ALWAYS("awk", "runs the program text in its arguments"),
	ALWAYS("gawk", "runs the program text in its arguments"),
	ALWAYS("mawk", "runs the program text in its arguments"),
	ALWAYS("nawk", "runs the program text in its arguments"),
	ALWAYS("sed", "GNU sed's e command runs shell commands"),
	ALWAYS("tclsh", "is an interpreter"), ALWAYS("wish", "is an interpreter"),
	ALWAYS("vi", "has shell escapes"), ALWAYS("vim", "has shell escapes"),
	ALWAYS("nvim", "has shell escapes"), ALWAYS("view", "has shell escapes"),
	ALWAYS("ex", "has shell escapes"), ALWAYS("emacs", "has shell escapes"),
	ALWAYS("less", "has shell escapes"), ALWAYS("more", "has shell escapes"),
	ALWAYS("man", "runs a pager and preprocessors named in its options"),
	{ "python", false, "c", NULL, false, "runs code given with -c" },
	{ "pypy", false, "c", NULL, false, "runs code given with -c" },
	{ "perl", false, "eEmM", NULL, false, "runs code given with -e/-E/-M" },
	{ "ruby", false, "e", NULL, false, "runs code given with -e" },
	{ "node", false, "epr", W("--eval", "--print", "--require", "--import",
	    "--loader", "--experimental-loader"), false, "runs code given with -e/-p/-r" },
	{ "nodejs", false, "epr", W("--eval", "--print", "--require", "--import",
	    "--loader", "--experimental-loader"), false, "runs code given with -e/-p/-r" },
	{ "deno", false, NULL, W("eval", "repl"), false, "runs code given with eval" },
	{ "bun", false, "ep", W("--eval", "--print"), false, "runs code given with -e" },
	{ "lua", false, "el", NULL, false, "runs code given with -e/-l" },
	{ "luajit", false, "el", NULL, false, "runs code given with -e/-l" },
	{ "php", false, "rBREF", NULL, false, "runs code given with -r/-B/-R/-E/-F" },
	{ "Rscript", false, "e", W("--expr"), false, "runs code given with -e" },
	{ "R", false, "e", NULL, false, "runs code given with -e" },
	{ "julia", false, "eE", W("--eval", "--print"), false, "runs code given with -e" },
	{ "make", false, "fEC", W("--file", "--makefile", "--eval", "--directory"), true,
	    "runs recipes and variables given on its command line" },
	{ "gmake", false, "fEC", W("--file", "--makefile", "--eval", "--directory"), true,
	    "runs recipes and variables given on its command line" },
	{ "find", false, NULL, W("-exec", "-execdir", "-ok", "-okdir", "-delete",
	    "-fprint", "-fprint0", "-fprintf", "-fls"), false, "-exec runs programs" },
	{ "tar", false, "IF", W("--use-compress-program", "--to-command",
	    "--checkpoint-action", "--info-script", "--new-volume-script",
	    "--rsh-command"), false, "runs programs named in its options" },
	{ "rsync", false, "e", W("--rsh", "--rsync-path"), false, "-e runs a program" },
	{ "zip", false, "T", W("--unzip-command"), false, "-TT runs a program" },
	{ "npm", false, "c", W("exec", "x", "explore", "--call"), false, "exec runs packages" },
	{ "yarn", false, NULL, W("exec", "dlx"), false, "exec runs packages" },
	{ "pnpm", false, NULL, W("exec", "dlx"), false, "exec runs packages" },
};

/* Does name (a basename) go by rule b? */
static bool
ban_name_matches(const struct policy_ban *b, const char *name)
{
	size_t n = strlen(b->name);

	if (strncmp(name, b->name, n) != 0)
		return false;
	return name[n] == '\0' || strchr("0123456789._-", name[n]) != NULL;
}

/* Does rule b ban argv? */
static bool
ban_args_match(const struct policy_ban *b, char *const *argv)
{
	if (b->always)
		return true;
	for (size_t i = 1; argv[i] != NULL; i++) {
		const char *a = argv[i];

		if (b->shorts != NULL && a[0] == '-' && a[1] != '-' && a[1] != '\0' &&
		    strpbrk(a + 1, b->shorts) != NULL)
			return true;
		for (size_t k = 0; b->words != NULL && b->words[k] != NULL; k++) {
			size_t n = strlen(b->words[k]);

			if (strncmp(a, b->words[k], n) == 0 && (a[n] == '\0' || a[n] == '='))
				return true;
		}
		if (b->assign && a[0] != '-' && strchr(a, '=') != NULL)
			return true;
	}
	return false;
}

static const char *
base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s != NULL ? s + 1 : p;
}

/* First executable regular file called name in path (allocated), or NULL. */
static char *
path_lookup(const char *name, const char *path)
{
	const char *p = path;

	while (p != NULL && *p != '\0') {
		const char *e = strchr(p, ':');
		size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
		char *cand;
		struct stat st;

		cand = n == 0 ? xasprintf("./%s", name) : xasprintf("%.*s/%s", (int)n, p, name);
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		p = e != NULL ? e + 1 : NULL;
	}
	return NULL;
}

/* The file argv0 would run: PATH lookup without a '/', else relative to
 * cwd (NULL: ours). Allocated; NULL when not found in PATH. */
static char *
argv0_candidate(const char *argv0, const char *path, const char *cwd)
{
	if (strchr(argv0, '/') == NULL)
		return path_lookup(argv0, path);
	if (argv0[0] != '/' && cwd != NULL)
		return xasprintf("%s/%s", cwd, argv0);
	return xstrdup(argv0);
}

/* Every name argv0 goes by: as written, each symlink hop, the realpath target. */
static void
collect_names(const char *argv0, const char *path, const char *cwd, char ***names,
    char **target)
{
	char *p = NULL, *real;

	*target = NULL;
	lz_strv_push(names, base_name(argv0));
	p = argv0_candidate(argv0, path, cwd);
	if (p == NULL)
		return;
	for (int hop = 0; hop < POLICY_MAX_HOPS; hop++) {
		char buf[PATH_MAX];
		ssize_t n = readlink(p, buf, sizeof buf - 1);
		char *next;

		if (n < 0)
			break;
		buf[n] = '\0';
		lz_strv_push(names, base_name(buf));
		if (buf[0] == '/' || strchr(p, '/') == NULL)
			next = xstrdup(buf);
		else
			next = xasprintf("%.*s/%s", (int)(base_name(p) - p - 1), p, buf);
		free(p);
		p = next;
	}
	real = realpath(p, NULL);
	if (real != NULL) {
		lz_strv_push(names, base_name(real));
		*target = real;
	}
	free(p);
}

#define POLICY_PATH_DIRS 64	/* PATH entries looked at for the inode check */
#define POLICY_N_BANS (sizeof ban_table / sizeof ban_table[0])

/* Names of banned programs in path that are the same file as target. As
 * path_lookup would find each (the first executable regular file in PATH
 * order), but each directory is opened once and looked in by name, and a
 * directory met before under another name (/bin and /usr/bin) is skipped:
 * its answers would be the same. ~80 names x PATH: the per-request cost. */
static void
collect_inode_names(const char *target, const char *path, char ***names)
{
	struct stat t, st, d, ds[POLICY_PATH_DIRS];
	bool found[POLICY_N_BANS] = { false }, same[POLICY_N_BANS] = { false };
	const char *p = path;
	size_t nd = 0, i, k;

	if (target == NULL || stat(target, &t) < 0)
		return;
	while (p != NULL && *p != '\0') {
		const char *e = strchr(p, ':');
		size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
		_cleanup_free_ char *dir = n == 0 ? xstrdup(".") : xstrndup(p, n);
		_cleanup_close_ int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

		p = e != NULL ? e + 1 : NULL;
		if (dfd < 0 || fstat(dfd, &d) < 0)
			continue;
		for (k = 0; k < nd; k++)
			if (ds[k].st_dev == d.st_dev && ds[k].st_ino == d.st_ino)
				break;
		if (k < nd)
			continue;	/* seen under another name: same answers */
		if (nd < POLICY_PATH_DIRS)
			ds[nd++] = d;
		for (i = 0; i < POLICY_N_BANS; i++) {
			if (found[i] || fstatat(dfd, ban_table[i].name, &st, 0) < 0 ||
			    !S_ISREG(st.st_mode) || faccessat(dfd, ban_table[i].name, X_OK, 0) < 0)
				continue;
			found[i] = true;
			same[i] = st.st_dev == t.st_dev && st.st_ino == t.st_ino;
		}
	}
	for (i = 0; i < POLICY_N_BANS; i++)
		if (same[i])
			lz_strv_push(names, ban_table[i].name);
}

char *
policy_ban_reason(char *const *argv, const char *path, const char *cwd)
{
	char **names = NULL, *target = NULL, *why = NULL;

	if (argv == NULL || argv[0] == NULL)
		return NULL;
	if (path == NULL)
		path = getenv("PATH") != NULL ? getenv("PATH") : POLICY_DEFAULT_PATH;
	collect_names(argv[0], path, cwd, &names, &target);
	collect_inode_names(target, path, &names);
	for (size_t k = 0; names[k] != NULL && why == NULL; k++) {
		for (size_t i = 0; i < sizeof ban_table / sizeof ban_table[0]; i++) {
			const struct policy_ban *b = &ban_table[i];

			if (!ban_name_matches(b, names[k]) || !ban_args_match(b, argv))
				continue;
			if (strcmp(names[k], base_name(argv[0])) == 0)
				why = xasprintf("'%s' %s", names[k], b->why);
			else
				why = xasprintf("'%s' is '%s', which %s", argv[0], names[k], b->why);
			break;
		}
	}
	free(target);
	lz_strv_free(names);
	return why;
}

int
policy_entry_validate(const char *entry, lz_err_t *err)
{
	char **v = NULL, *why = NULL;
	unsigned meta;
	int rc = -1;

	meta = lz_shellwords_scan(entry, strlen(entry));
	if (meta != 0) {
		lz_err_set(err, LZ_EINVAL, "'%s' contains %s, which is never auto-approved",
		    entry, lz_shellwords_meta_name(meta));
		goto cleanup;
	}
	if (lz_shellwords_split(entry, strlen(entry), &v, err) < 0) {
		lz_err_wrap(err, "'%s'", entry);
		goto cleanup;
	}
	if (v[0] == NULL) {
		lz_err_set(err, LZ_EINVAL, "empty command");
		goto cleanup;
	}
	why = policy_ban_reason(v, NULL, NULL);
	if (why != NULL) {
		lz_err_set(err, LZ_EINVAL, "'%s' can never be auto-approved: %s; remove it",
		    entry, why);
		goto cleanup;
	}
	rc = 0;
cleanup:
	free(why);
	lz_strv_free(v);
	return rc;
}

int
policy_new(char *const *entries, size_t n, const char *path, struct policy **out,
    lz_err_t *err)
{
	struct policy *p = xcalloc(1, sizeof *p);
	lz_err_t e = LZ_ERR_INIT;

	*out = NULL;
	if (path == NULL)
		path = getenv("PATH") != NULL ? getenv("PATH") : POLICY_DEFAULT_PATH;
	p->path = xstrdup(path);
	p->entries = xcalloc(n + 1, sizeof *p->entries);
	for (size_t i = 0; i < n; i++) {
		if (policy_entry_validate(entries[i], &e) < 0 ||
		    lz_shellwords_split(entries[i], strlen(entries[i]), &p->entries[i], &e) < 0) {
			lz_err_set(err, LZ_EINVAL, "escalation.auto_approve[%zu]: %s", i, e.msg);
			lz_err_clear(&e);
			policy_free(p);
			return -1;
		}
		p->n++;
	}
	*out = p;
	return 0;
}

void
policy_free(struct policy *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->n; i++)
		lz_strv_free(p->entries[i]);
	free(p->entries);
	free(p->path);
	free(p);
}

/* Is e a prefix of v (word by word)? */
static bool
argv_has_prefix(char *const *v, char *const *e)
{
	size_t i;

	for (i = 0; e[i] != NULL; i++)
		if (v[i] == NULL || strcmp(v[i], e[i]) != 0)
			return false;
	return true;
}

void
policy_decide_in(const struct policy *p, const char *raw, const char *cwd,
    char ***argv_out, enum policy_verdict *verdict, char **why)
{
	lz_err_t err = LZ_ERR_INIT;
	size_t len = strlen(raw);
	char **v = NULL, *ban;
	unsigned meta;

	*argv_out = NULL;
	*why = NULL;
	if (lz_shellwords_split(raw, len, &v, &err) < 0) {
		*verdict = POLICY_INVALID;
		*why = lz_steal_ptr(&err.msg);
		return;
	}
	if (v[0] == NULL) {
		lz_strv_free(v);
		*verdict = POLICY_INVALID;
		*why = xstrdup("empty command");
		return;
	}
	*argv_out = v;
	*verdict = POLICY_NEEDS_PROMPT;
	meta = lz_shellwords_scan(raw, len);
	if (meta != 0) {
		*why = xasprintf("contains %s", lz_shellwords_meta_name(meta));
		return;
	}
	ban = policy_ban_reason(v, p->path, cwd);
	if (ban != NULL) {
		*why = xasprintf("banned: %s", ban);
		free(ban);
		return;
	}
	for (size_t i = 0; i < p->n; i++) {
		if (!argv_has_prefix(v, p->entries[i]))
			continue;
		if (v[lz_strv_len(p->entries[i])] == NULL) {
			*verdict = POLICY_AUTO_APPROVE;
			return;
		}
	}
	for (size_t i = 0; i < p->n; i++) {
		if (argv_has_prefix(v, p->entries[i])) {
			char *e = lz_shellwords_join(p->entries[i]);

			*why = xasprintf("arguments appended to auto-approved '%s'", e);
			free(e);
			return;
		}
	}
	*why = xstrdup("not in escalation.auto_approve");
}

void
policy_decide(const struct policy *p, const char *raw, char ***argv_out,
    enum policy_verdict *verdict, char **why)
{
	policy_decide_in(p, raw, NULL, argv_out, verdict, why);
}

char *
policy_which(const struct policy *p, const char *argv0, const char *cwd)
{
	_cleanup_free_ char *cand = NULL;
	struct stat st;
	char *real;

	cand = argv0_candidate(argv0, p->path, cwd);
	if (cand == NULL)
		return NULL;
	real = realpath(cand, NULL);
	if (real != NULL && (stat(real, &st) < 0 || !S_ISREG(st.st_mode) || access(real, X_OK) < 0)) {
		free(real);
		return NULL;
	}
	return real;
}

/* Is p root itself or below it (both canonical)? */
static bool
path_within(const char *p, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return p[0] == '/';
	return strncmp(p, root, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

int
policy_map_cwd(const char *sandbox_cwd, const char *sandbox_root, const char *host_root,
    char **out, lz_err_t *err)
{
	_cleanup_free_ char *root = NULL, *host = NULL;
	size_t n = strlen(sandbox_root);
	struct stat st;
	char *real;

	*out = NULL;
	if (sandbox_cwd[0] != '/' || lz_path_has_dotdot(sandbox_cwd) ||
	    strncmp(sandbox_cwd, sandbox_root, n) != 0 ||
	    (sandbox_cwd[n] != '\0' && sandbox_cwd[n] != '/'))
		return lz_err_set(err, LZ_EINVAL, "cwd %s is not inside %s", sandbox_cwd,
		    sandbox_root);
	root = realpath(host_root, NULL);
	if (root == NULL)
		return lz_err_sys(err, errno, "workspace %s", host_root);
	host = xasprintf("%s%s", root, sandbox_cwd + n);
	real = realpath(host, NULL);
	if (real == NULL)
		return lz_err_sys(err, errno, "cwd %s (host %s)", sandbox_cwd, host);
	if (!path_within(real, root) || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		lz_err_set(err, EACCES, "cwd %s leads to %s, outside the workspace %s",
		    sandbox_cwd, real, root);
		free(real);
		return -1;
	}
	*out = real;
	return 0;
}

const char *
policy_verdict_name(enum policy_verdict v)
{
	switch (v) {
	case POLICY_AUTO_APPROVE: return "auto-approve";
	case POLICY_NEEDS_PROMPT: return "needs-prompt";
	case POLICY_INVALID: return "invalid";
	}
	return "?";
}
