/* image-kit.c - build an agent kit's image (config.h struct cfg_kit).
 *
 * Theory of operation. No container registry is needed: the Debian base is
 * made here by mmdebstrap --mode=unshare (an unprivileged user namespace,
 * the subuids podman uses) from the host's own apt sources and keyring, the
 * kit's Debian packages with --no-install-recommends in the same run. A
 * build script Lazaret writes then runs in that root (mmdebstrap's
 * customize hook, chroot): the host's extra CA certificates into the trust
 * store, the agent user (uid 1000, /home/agent, passwordless sudo), the
 * state dirs, npm itself from the npm registry (Debian's npm package pulls
 * ~670 packages) and the kit's npm packages, then its run lines. mmdebstrap
 * writes a tar; `podman import` makes the image only after every step
 * worked, so a failed build leaves no image under the kit's tag. A kit with
 * `base: IMAGE` runs the same script in `podman build FROM IMAGE`.
 * The tag carries the recipe's hash: an unchanged recipe is one `podman
 * image exists`. The steps that fetch run in a network of the build's own
 * (the caller's image_net_ops: a Network Sidecar) that reaches only what
 * the recipe needs: the apt mirror's hosts, the npm registry when it lists
 * npm packages, and the proxy the environment names.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/driver.h"
#include "sandbox/image/image.h"
#include "host/proc.h"
#include "config.h"
#include "paths.h"
#include "strv.h"
#include "xmalloc.h"

#define KIT_NPM_VERSION	"10.9.2"	/* npm 10 runs on Debian 12's node 18 */
#define KIT_HOST_CA_DIR	"/usr/local/share/ca-certificates"
#define KIT_STEP_TAG	"lazaret-step: "
#define KIT_TAIL_MAX	40	/* lines of the build's output kept for an error */

/* What a build prints and remembers while it runs. */
struct kit_run {
	const struct cfg_kit *k;
	FILE *progress;
	const struct image_net_ops *ops;
	struct image_net *net;	/* up while a step fetches */
	char *step;		/* the step running (from the script's markers) */
	char *tail[KIT_TAIL_MAX];
	size_t n_tail;
};

static void kit_say(struct kit_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
kit_say(struct kit_run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->progress == NULL)
		return;
	fprintf(r->progress, "[kit %s] ", r->k->name);
	va_start(ap, fmt);
	vfprintf(r->progress, fmt, ap);
	va_end(ap);
	fputc('\n', r->progress);
	fflush(r->progress);
}

/* One line of mmdebstrap's, podman build's or the script's output. */
static void
kit_line_cb(const char *line, void *arg)
{
	struct kit_run *r = arg;

	if (strncmp(line, KIT_STEP_TAG, strlen(KIT_STEP_TAG)) == 0) {
		free(r->step);
		r->step = xstrdup(line + strlen(KIT_STEP_TAG));
		kit_say(r, "step: %s", r->step);
		return;
	}
	if (r->n_tail == KIT_TAIL_MAX) {
		free(r->tail[0]);
		memmove(r->tail, r->tail + 1, (KIT_TAIL_MAX - 1) * sizeof r->tail[0]);
		r->n_tail--;
	}
	r->tail[r->n_tail++] = xstrdup(line);
	/* mmdebstrap's own steps, the bytes fetched, npm's summary, errors */
	if (strncmp(line, "I: ", 3) == 0 && strstr(line, "hook") == NULL &&
	    strstr(line, "tempdir") == NULL)
		kit_say(r, "  %s", line + 3);
	else if (strncmp(line, "lazaret-fetched: ", 17) == 0 || strncmp(line, "added ", 6) == 0 ||
	    strncmp(line, "E: ", 3) == 0 || strncmp(line, "npm error", 9) == 0 ||
	    strncmp(line, "STEP ", 5) == 0)
		kit_say(r, "  %s", line);
}

static void
kit_run_clear(struct kit_run *r)
{
	size_t i;

	free(r->step);
	for (i = 0; i < r->n_tail; i++)
		free(r->tail[i]);
}

/* The failure, said from the build's last lines: the step, what was missing. */
static int
kit_fail(struct kit_run *r, const char *step, int status, lz_err_t *err)
{
	const char *why = NULL, *l;
	_cleanup_free_ char *last = NULL;
	size_t i;

	for (i = 0; i < r->n_tail; i++) {
		l = r->tail[i];
		if (strstr(l, "Unable to locate package") != NULL ||
		    strstr(l, "has no installation candidate") != NULL ||
		    strstr(l, "npm error 404") != NULL || strstr(l, "E404") != NULL)
			why = l;
		else if (why == NULL && (strstr(l, "Could not resolve") != NULL ||
		    strstr(l, "Failed to fetch") != NULL || strstr(l, "Temporary failure") != NULL ||
		    strstr(l, "ENOTFOUND") != NULL || strstr(l, "ECONNREFUSED") != NULL ||
		    strstr(l, "Unable to connect") != NULL || strstr(l, "Could not connect") != NULL))
			why = l;
		else if (why == NULL && (strncmp(l, "E: ", 3) == 0 || strncmp(l, "npm error", 9) == 0))
			why = l;
	}
	if (why == NULL && r->n_tail > 0)
		why = r->tail[r->n_tail - 1];
	last = why != NULL ? xstrdup(why) : xstrdup("no output");
	return lz_err_set(err, LZ_EINVAL, "kit %s (%s): step '%s' failed (exit %d): %s\n"
	    "  the build's last lines are above; the image %s was not made",
	    r->k->name, r->k->file, r->step != NULL ? r->step : step, status, last, r->k->image);
}

/* Print the build's last lines (the error's context). */
static void
kit_tail_print(const struct kit_run *r)
{
	size_t i;

	for (i = r->n_tail > 15 ? r->n_tail - 15 : 0; i < r->n_tail; i++)
		fprintf(stderr, "  | %s\n", r->tail[i]);
}

/* Run the step r->step names; its failure (code LZ_EINVAL) says why from its
 * last lines; a program that did not start keeps proc's error. */
static int
kit_step(struct kit_run *r, char **argv, const char *step, lz_err_t *err)
{
	struct proc_result pr;
	int ret = 0;

	kit_say(r, "step: %s", r->step);
	if (proc_run_lines(argv, kit_line_cb, r, &pr, err) < 0)
		return -1;
	if (pr.status != 0) {
		kit_tail_print(r);
		ret = kit_fail(r, step, pr.status, err);
	}
	proc_result_clear(&pr);
	return ret;
}

/* Append s single-quoted for sh. */
static void
kit_sq(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* The build script run as root in the new root (chroot or RUN). */
static int
kit_script(const struct cfg_kit *k, bool apt, const char *path, lz_err_t *err)
{
	FILE *f = fopen(path, "wex");
	size_t i;

	if (f == NULL)
		return lz_err_sys(err, errno, "cannot create %s", path);
	fputs("set -eu\nexport DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 HOME=/root\n"
	    "export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt\n", f);
	if (apt) {
		fputs("echo '" KIT_STEP_TAG "debian packages (apt-get)' >&2\n"
		    "apt-get update -q\napt-get install -y -q --no-install-recommends "
		    "ca-certificates sudo", f);
		for (i = 0; k->debian != NULL && k->debian[i] != NULL; i++) {
			fputc(' ', f);
			kit_sq(f, k->debian[i]);
		}
		if (k->npm != NULL)
			fputs(" nodejs curl", f);
		fputs("\n", f);
	}
	fputs("echo '" KIT_STEP_TAG "host CA certificates' >&2\n"
	    "update-ca-certificates >/dev/null 2>&1 || true\n"
	    "echo '" KIT_STEP_TAG "agent user (uid 1000, sudo)' >&2\n"
	    "if ! id -u agent >/dev/null 2>&1; then\n"
	    "  if old=$(getent passwd 1000 | cut -d: -f1) && [ -n \"$old\" ]; then\n"
	    "    usermod -l agent -d " CFG_KIT_HOME " -m \"$old\"\n"
	    "    groupmod -n agent \"$(id -gn agent)\" 2>/dev/null || true\n"
	    "  else\n"
	    "    useradd -m -d " CFG_KIT_HOME " -u 1000 -U -s /bin/bash agent\n"
	    "  fi\nfi\n"
	    "mkdir -p /etc/sudoers.d /workspace\n"
	    "echo 'agent ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/agent\n"
	    "chmod 0440 /etc/sudoers.d/agent\n", f);
	for (i = 0; k->state != NULL && k->state[i] != NULL; i++) {
		fputs("mkdir -p ", f);
		kit_sq(f, k->state[i]);
		fputs("\n", f);
	}
	fputs("chown -R 1000:1000 " CFG_KIT_HOME "\n", f);
	if (k->npm != NULL) {
		fputs("echo '" KIT_STEP_TAG "npm " KIT_NPM_VERSION " (npm registry)' >&2\n"
		    "if ! command -v npm >/dev/null 2>&1; then\n"
		    "  mkdir -p /usr/lib/node_modules/npm\n"
		    "  curl -fsSL https://registry.npmjs.org/npm/-/npm-" KIT_NPM_VERSION ".tgz | "
		    "tar -xz -C /usr/lib/node_modules/npm --strip-components=1 --no-same-owner\n"
		    "  ln -sf ../lib/node_modules/npm/bin/npm-cli.js /usr/bin/npm\n"
		    "  ln -sf ../lib/node_modules/npm/bin/npx-cli.js /usr/bin/npx\n"
		    "fi\n"
		    "echo '" KIT_STEP_TAG "npm packages (npm registry)' >&2\n"
		    "npm install -g --no-audit --no-fund --no-update-notifier --loglevel=error", f);
		for (i = 0; k->npm[i] != NULL; i++) {
			fputc(' ', f);
			kit_sq(f, k->npm[i]);
		}
		fputs("\necho \"lazaret-fetched: npm $(du -sh /root/.npm 2>/dev/null | cut -f1)\" >&2\n"
		    "rm -rf /root/.npm\n", f);
	}
	for (i = 0; k->run != NULL && k->run[i] != NULL; i++) {
		fprintf(f, "echo '" KIT_STEP_TAG "run[%zu]' >&2\nsh -c ", i);
		kit_sq(f, k->run[i]);
		fputs("\n", f);
	}
	if (apt)
		fputs("apt-get clean\nrm -rf /var/lib/apt/lists/*\n", f);
	fputs("echo '" KIT_STEP_TAG "finishing the root file system' >&2\n", f);
	if (fclose(f) == EOF)
		return lz_err_sys(err, errno, "cannot write %s", path);
	return 0;
}

/* The host's apt sources (mmdebstrap reads each file as a mirror). */
static int
kit_sources(const struct cfg_kit *k, char ***out, lz_err_t *err)
{
	static const char *const pats[] = { "/etc/apt/sources.list",
	    "/etc/apt/sources.list.d/*.list", "/etc/apt/sources.list.d/*.sources" };
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	glob_t g;
	size_t i, j, len;

	for (i = 0; i < sizeof pats / sizeof pats[0]; i++) {
		if (glob(pats[i], 0, NULL, &g) != 0)
			continue;
		for (j = 0; j < g.gl_pathc; j++) {
			free(buf);
			buf = NULL;
			/* an empty sources.list (deb822 hosts) is no mirror */
			if (stat(g.gl_pathv[j], &st) == 0 && S_ISREG(st.st_mode) &&
			    lz_path_read(g.gl_pathv[j], 1 << 20, &buf, &len, NULL, NULL) == 0 &&
			    (strstr(buf, "\ndeb ") != NULL || strncmp(buf, "deb ", 4) == 0 ||
			    strstr(buf, "URIs:") != NULL))
				lz_strv_push(out, g.gl_pathv[j]);
		}
		globfree(&g);
	}
	if (*out == NULL)
		return lz_err_set(err, ENOENT, "kit %s (%s): step 'debian base': no apt sources on "
		    "this host (/etc/apt/sources.list, /etc/apt/sources.list.d/): configure a Debian "
		    "mirror so that apt-get update works, or give the kit an image base:", k->name,
		    k->file);
	return 0;
}

/* The host's Debian suite (VERSION_CODENAME in /etc/os-release). */
static char *
kit_host_suite(void)
{
	_cleanup_free_ char *buf = NULL;
	char *p, *e;
	size_t len;

	if (lz_path_read("/etc/os-release", 1 << 16, &buf, &len, NULL, NULL) < 0 ||
	    (p = strstr(buf, "VERSION_CODENAME=")) == NULL)
		return xstrdup("stable");
	p += strlen("VERSION_CODENAME=");
	e = p + strcspn(p, "\n\"");
	return e > p ? xstrndup(p, (size_t)(e - p)) : xstrdup("stable");
}

static bool
kit_host_cas(void)
{
	DIR *d = opendir(KIT_HOST_CA_DIR);
	struct dirent *e;
	bool any = false;

	if (d == NULL)
		return false;
	while (!any && (e = readdir(d)) != NULL)
		any = e->d_name[0] != '.';
	closedir(d);
	return any;
}

/* An http(s) URI's host[:port] as an allow_egress entry, once. */
static void
kit_net_uri(char ***policy, const char *uri, size_t len)
{
	unsigned port = 0;
	const char *h, *at;
	char *e;
	size_t n;

	if (len > 7 && strncmp(uri, "http://", 7) == 0)
		h = uri + 7, port = 80;
	else if (len > 8 && strncmp(uri, "https://", 8) == 0)
		h = uri + 8, port = 443;
	else
		return;	/* file:, cdrom:: no network */
	n = len - (size_t)(h - uri);
	n = strcspn(h, "/") < n ? strcspn(h, "/") : n;
	if ((at = memchr(h, '@', n)) != NULL) {	/* user:password@ */
		n -= (size_t)(at + 1 - h);
		h = at + 1;
	}
	if (n == 0)
		return;
	e = memchr(h, ':', n) != NULL ? xstrndup(h, n) : xasprintf("%.*s:%u", (int)n, h, port);
	if (!lz_strv_contains(*policy, e))
		lz_strv_push(policy, e);
	free(e);
}

/* Every http(s) URI of an apt sources file (one-line or deb822 form). */
static void
kit_net_sources(char ***policy, const char *buf)
{
	const char *p = buf;
	size_t n;

	while (*p != '\0') {
		p += strspn(p, " \t\n");
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		n = strcspn(p, " \t\n");
		kit_net_uri(policy, p, n);
		p += n;
	}
}

/* What a build may reach: its mirror's hosts, the npm registry (the @npm
 * preset) when it installs npm packages, the proxy our environment names. */
static char **
kit_net_policy(const struct cfg_kit *k, char *const *src)
{
	static const char *const proxies[] = { "http_proxy", "https_proxy", "HTTP_PROXY",
	    "HTTPS_PROXY" };
	char **policy = NULL, *buf;
	const char *v;
	size_t len;

	if (k->mirror != NULL)
		kit_net_uri(&policy, k->mirror, strlen(k->mirror));
	for (size_t i = 0; src != NULL && src[i] != NULL; i++) {
		if (lz_path_read(src[i], 1 << 20, &buf, &len, NULL, NULL) < 0)
			continue;
		kit_net_sources(&policy, buf);
		free(buf);
	}
	if (k->npm != NULL && !lz_strv_contains(policy, "registry.npmjs.org:443"))
		lz_strv_push(&policy, "registry.npmjs.org:443");
	for (size_t i = 0; i < sizeof proxies / sizeof proxies[0]; i++)
		if ((v = getenv(proxies[i])) != NULL)
			kit_net_uri(&policy, v, strlen(v));
	return policy;
}

/* The build's network up for what it needs (nothing when no ops: the host's). */
static int
kit_net_up(struct kit_run *r, const char *dir, char *const *src, lz_err_t *err)
{
	char **policy;
	int ret;

	if (r->ops == NULL)
		return 0;
	policy = kit_net_policy(r->k, src);
	kit_say(r, "step: the build's network (a sidecar reaching only %zu entries)",
	    lz_strv_len(policy));
	for (size_t i = 0; policy != NULL && policy[i] != NULL; i++)
		kit_say(r, "  allow %s", policy[i]);
	ret = r->ops->up(dir, policy, lz_strv_len(policy), r->ops->arg, &r->net, err);
	if (ret < 0)
		lz_err_wrap(err, "kit %s: step 'network'", r->k->name);
	else
		kit_say(r, "  network sidecar %s up", r->ops->name(r->net));
	lz_strv_free(policy);
	return ret;
}

static void
kit_net_down(struct kit_run *r)
{
	if (r->net != NULL)
		r->ops->down(r->net);
	r->net = NULL;
}

/* mmdebstrap the base with the kit's packages and script into tar. */
static int
kit_debian(struct kit_run *r, const char *dir, const char *tar, lz_err_t *err)
{
	const struct cfg_kit *k = r->k;
	_cleanup_free_ char *script = xasprintf("%s/build.sh", dir), *suite = NULL;
	_cleanup_free_ char *include = xstrdup("ca-certificates,sudo"), *t = NULL;
	char **argv = NULL, **src = NULL;
	size_t i;
	int ret = -1;

	if (k->mirror != NULL)
		lz_strv_push(&src, k->mirror);
	else if (kit_sources(k, &src, err) < 0)
		goto out;
	if (kit_script(k, false, script, err) < 0)
		goto out;
	if (kit_net_up(r, dir, k->mirror != NULL ? NULL : src, err) < 0)
		goto out;
	for (i = 0; r->net != NULL && r->ops->wrap(r->net)[i] != NULL; i++)
		lz_strv_push(&argv, r->ops->wrap(r->net)[i]);
	suite = k->suite != NULL ? xstrdup(k->suite) : kit_host_suite();
	for (i = 0; k->debian != NULL && k->debian[i] != NULL; i++) {
		t = xasprintf("%s,%s", include, k->debian[i]);
		free(include);
		include = lz_steal_ptr(&t);
	}
	if (k->npm != NULL) {
		t = xasprintf("%s,nodejs,curl", include);
		free(include);
		include = lz_steal_ptr(&t);
	}
	lz_strv_push(&argv, "mmdebstrap");
	lz_strv_push(&argv, "--mode=unshare");
	lz_strv_push(&argv, "--variant=apt");
	lz_strv_push(&argv, "--format=tar");
	lz_strv_push(&argv, "--aptopt=APT::Install-Recommends \"false\"");
	lz_strv_pushf(&argv, "--include=%s", include);
	lz_strv_push(&argv, "--customize-hook=printf 'lazaret-fetched: debian packages %s\\n' "
	    "\"$(du -sh \"$1/var/cache/apt/archives\" | cut -f1)\" >&2");
	if (kit_host_cas()) {
		lz_strv_push(&argv, "--customize-hook=mkdir -p \"$1" KIT_HOST_CA_DIR "\"");
		lz_strv_push(&argv, "--customize-hook=sync-in " KIT_HOST_CA_DIR " " KIT_HOST_CA_DIR);
	}
	lz_strv_pushf(&argv, "--customize-hook=upload %s /lazaret-build.sh", script);
	lz_strv_push(&argv, "--customize-hook=chroot \"$1\" /bin/sh /lazaret-build.sh");
	lz_strv_push(&argv, "--customize-hook=rm -f \"$1/lazaret-build.sh\"");
	lz_strv_push(&argv, suite);
	lz_strv_push(&argv, tar);
	for (i = 0; src[i] != NULL; i++)
		lz_strv_push(&argv, src[i]);
	r->step = xasprintf("debian base and packages (mmdebstrap %s from %s)", suite,
	    k->mirror != NULL ? k->mirror : "the host's apt sources");
	if (kit_step(r, argv, "debian base", err) < 0) {
		if (err->code != LZ_EINVAL)
			lz_err_wrap(err, "kit %s: step 'debian base' (sudo apt-get install mmdebstrap, "
			    "or run: sudo scripts/setup-host)", k->name);
		goto out;
	}
	ret = 0;
out:
	kit_net_down(r);
	lz_strv_free(argv);
	lz_strv_free(src);
	return ret;
}

/* podman import the tar under the kit's tag, labelled. */
static int
kit_import(struct kit_run *r, const char *tar, lz_err_t *err)
{
	const struct cfg_kit *k = r->k;
	char **argv = NULL;
	_cleanup_free_ char *id = NULL;
	struct stat st;
	int ret;

	if (stat(tar, &st) == 0) {
		kit_say(r, "step: podman import (%.0f MB)", (double)st.st_size / 1e6);
	}
	lz_strv_push(&argv, "podman");
	lz_strv_push(&argv, "import");
	lz_strv_push(&argv, "--quiet");
	lz_strv_push(&argv, "--change=CMD [\"/bin/bash\", \"-l\"]");
	lz_strv_push(&argv, "--change=WORKDIR /workspace");
	lz_strv_push(&argv, "--change=ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	lz_strv_push(&argv, "--change=ENV LANG=C.UTF-8");
	lz_strv_pushf(&argv, "--change=LABEL " IMAGE_LABEL "=kit");
	lz_strv_pushf(&argv, "--change=LABEL " IMAGE_LABEL_KIT "=%s", k->name);
	lz_strv_pushf(&argv, "--change=LABEL " IMAGE_LABEL_RECIPE "=%s", k->hash);
	lz_strv_push(&argv, tar);
	lz_strv_push(&argv, k->image);
	ret = proc_run_ok(argv, &id, err);
	if (ret < 0)
		lz_err_wrap(err, "kit %s: step 'podman import'", k->name);
	lz_strv_free(argv);
	return ret;
}

/* podman build FROM the kit's base, the same script in one RUN. */
static int
kit_oci(struct kit_run *r, const char *dir, bool pull, lz_err_t *err)
{
	const struct cfg_kit *k = r->k;
	_cleanup_free_ char *script = xasprintf("%s/build.sh", dir);
	_cleanup_free_ char *cf = xasprintf("%s/Containerfile", dir);
	_cleanup_free_ char *ca = xasprintf("%s/ca", dir);
	char **argv = NULL, **src = NULL;
	lz_err_t ignored = LZ_ERR_INIT;
	FILE *f;
	int ret = -1;

	if (kit_script(k, true, script, err) < 0)
		goto out;
	/* The base's own apt sources are not known: the host's mirror, as for a Debian base. */
	if (k->mirror == NULL && kit_sources(k, &src, &ignored) < 0)
		lz_err_clear(&ignored);
	if (mkdir(ca, 0755) < 0) {
		lz_err_sys(err, errno, "cannot create %s", ca);
		goto out;
	}
	if (kit_host_cas()) {
		char *cp[] = { (char *)"cp", (char *)"-rL", (char *)"--", (char *)KIT_HOST_CA_DIR "/.",
		    ca, NULL };

		if (proc_run_ok(cp, NULL, err) < 0)
			goto out;
	}
	if ((f = fopen(cf, "wex")) == NULL) {
		lz_err_sys(err, errno, "cannot create %s", cf);
		goto out;
	}
	fprintf(f, "FROM %s\nUSER root\nCOPY ca/ " KIT_HOST_CA_DIR "/\nCOPY build.sh /lazaret-build.sh\n"
	    "RUN /bin/sh /lazaret-build.sh && rm -f /lazaret-build.sh\nWORKDIR /workspace\n"
	    "LABEL " IMAGE_LABEL "=kit " IMAGE_LABEL_KIT "=%s " IMAGE_LABEL_RECIPE "=%s\n",
	    k->base, k->name, k->hash);
	if (fclose(f) == EOF) {
		lz_err_sys(err, errno, "cannot write %s", cf);
		goto out;
	}
	lz_strv_push(&argv, "podman");
	lz_strv_push(&argv, "build");
	/* a local base (localhost/...) has no registry to pull it again from */
	lz_strv_push(&argv, pull && strncmp(k->base, "localhost/", 10) != 0 ? "--pull=always" :
	    "--pull=missing");
	/* podman pulls the base itself; the RUN step is in the build's network */
	if (kit_net_up(r, dir, src, err) < 0)
		goto out;
	if (r->net == NULL) {
		lz_strv_push(&argv, "--network=host");
	} else {
		lz_strv_pushf(&argv, "--network=ns:%s", r->ops->netns(r->net));
		lz_strv_push(&argv, "--dns=" IMAGE_NET_RESOLVER);
	}
	if (pull)
		lz_strv_push(&argv, "--no-cache");	/* --pull: every step again */
	lz_strv_push(&argv, "-f");
	lz_strv_push(&argv, cf);
	lz_strv_push(&argv, "-t");
	lz_strv_push(&argv, k->image);
	lz_strv_push(&argv, dir);
	r->step = xasprintf("podman build FROM %s", k->base);
	if (kit_step(r, argv, "podman build", err) < 0)
		goto out;
	ret = 0;
out:
	kit_net_down(r);
	lz_strv_free(src);
	lz_strv_free(argv);
	return ret;
}

int
image_kit_build(const struct cfg_kit *k, bool force, FILE *progress, const struct image_net_ops *net,
		lz_err_t *err)
{
	struct kit_run r = { .k = k, .progress = progress, .ops = net };
	_cleanup_free_ char *tar = NULL, *old_id = NULL, *new_id = NULL;
	char dir[PATH_MAX];
	double t0 = image_now();
	bool exists;
	int ret = -1;

	if (podman_ops.image_exists(k->image, &exists, err) < 0)
		return -1;
	if (exists && !force)
		return 0;
	if (exists)
		old_id = image_id(k->image);
	if (image_mkdtemp(dir, err) < 0)
		return -1;
	kit_say(&r, "building %s (recipe %s)", k->image, k->file);
	tar = xasprintf("%s/rootfs.tar", dir);
	if (k->base != NULL ? kit_oci(&r, dir, force, err) < 0 :
	    (kit_debian(&r, dir, tar, err) < 0 || kit_import(&r, tar, err) < 0))
		goto out;
	if (progress != NULL) {
		fprintf(progress, "[kit %s] built %s in %.0f s\n", k->name, k->image, image_now() - t0);
		fflush(progress);
	}
	/* --pull: the image it replaced under the tag, unless a sandbox runs it */
	if (old_id != NULL && (new_id = image_id(k->image)) != NULL && strcmp(old_id, new_id) != 0)
		image_remove_old(old_id, progress);
	ret = 0;
out:
	image_rmtree(dir);
	kit_run_clear(&r);
	return ret;
}
