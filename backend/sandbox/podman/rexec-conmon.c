/* rexec-conmon.c - conmon's command line, read back (rexec.h): which
 * container it runs and what podman gave the runtime. Pure: the options
 * are conmon 2.x's (src/cli.c), each value skipped by the option's own
 * rule, so an --exit-command-arg value never reads as an option. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/podman/rexec.h"
#include "strv.h"
#include "xmalloc.h"

/* conmon 2.x options that take a value (cli.c), long and short names. */
static const char *const rexec_conmon_valued[] = {
	"bundle", "cid", "conmon-pidfile", "container-pidfile", "cuuid", "exec-process-spec",
	"exit-command", "exit-command-arg", "exit-delay", "exit-dir", "log-level", "log-path",
	"log-size-max", "log-global-size-max", "log-tag", "name", "persist-dir", "pidfile",
	"restore", "restore-arg", "runtime", "runtime-arg", "runtime-opt", "sdnotify-socket",
	"socket-dir-path", "timeout", "seccomp-notify-socket", "seccomp-notify-plugins",
};
static const char rexec_conmon_short[] = "bcPpulnr0T";	/* valued short options */
static const char *const rexec_conmon_short_long[] = {
	"bundle", "cid", "conmon-pidfile", "container-pidfile", "cuuid", "log-path", "name",
	"runtime", "persist-dir", "timeout",
};
static const char *const rexec_conmon_flags[] = {
	"api-version", "exec", "exec-attach", "leave-stdin-open", "no-new-keyring", "no-pivot",
	"no-sync-log", "replace-listen-pid", "stdin", "sync", "syslog", "systemd-cgroup",
	"terminal", "version", "full-attach",
};

static bool
rexec_in(const char *const *v, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(v[i]) == len && memcmp(v[i], s, len) == 0)
			return true;
	return false;
}

#define REXEC_IN(tab, s, len) rexec_in(tab, sizeof tab / sizeof tab[0], s, len)

void
rexec_conmon_clear(struct rexec_conmon *c)
{
	free(c->id);
	free(c->bundle);
	free(c->runtime);
	lz_strv_free(c->runtime_args);
	memset(c, 0, sizeof *c);
}

static bool
rexec_hex64(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return i == 64;
}

/* conmon's log options are the container's (its oci-log), not an exec's. */
static int
rexec_runtime_args(char **in, char ***out, lz_err_t *err)
{
	size_t i;

	*out = xcalloc(1, sizeof **out);
	for (i = 0; in != NULL && in[i] != NULL; i++) {
		const char *a = in[i];

		if (strcmp(a, "--log") == 0 || strcmp(a, "--debug-log") == 0) {
			if (in[i + 1] != NULL)
				i++;
			continue;
		}
		if (strncmp(a, "--log=", 6) == 0 || strncmp(a, "--log-format", 12) == 0 ||
		    strncmp(a, "--debug-log=", 12) == 0)
			continue;
		if (strncmp(a, "--", 2) != 0 || a[2] == '\0' || strchr(a, '\n') != NULL) {
			lz_err_set(err, LZ_EINVAL, "unexpected runtime argument '%s'", a);
			lz_strv_free(*out);
			*out = NULL;
			return -1;
		}
		lz_strv_push(out, a);
	}
	return 0;
}

int
rexec_conmon_parse(const char *cmdline, size_t len, const char *name, struct rexec_conmon *out,
    lz_err_t *err)
{
	char **argv = NULL, **rargs = NULL, *nm = NULL, *cuuid = NULL;
	const char *p = cmdline, *end = cmdline + len, *base;
	bool exec = false;
	size_t i;
	int ret = 0;

	memset(out, 0, sizeof *out);
	if (len == 0 || cmdline[len - 1] != '\0')
		return 0;
	for (; p < end; p += strlen(p) + 1)
		lz_strv_push(&argv, p);
	base = strrchr(argv[0], '/');
	if (strcmp(base != NULL ? base + 1 : argv[0], "conmon") != 0)
		goto out;
	for (i = 1; argv[i] != NULL; i++) {
		const char *a = argv[i], *opt, *val = NULL, *eq;
		char **slot = NULL;
		size_t olen;

		if (strcmp(a, "--") == 0)
			break;
		if (a[0] != '-' || a[1] == '\0')
			continue;	/* a stray word (podman passes --api-version 1) */
		if (a[1] == '-') {
			opt = a + 2;
			eq = strchr(opt, '=');
			olen = eq != NULL ? (size_t)(eq - opt) : strlen(opt);
			if (eq != NULL)
				val = eq + 1;
		} else {
			const char *s = strchr(rexec_conmon_short, a[1]);

			if (a[2] != '\0' || (s == NULL && strchr("eist", a[1]) == NULL))
				goto bad;
			if (s == NULL) {
				if (a[1] == 'e')
					exec = true;
				continue;
			}
			opt = rexec_conmon_short_long[s - rexec_conmon_short];
			olen = strlen(opt);
		}
		if (REXEC_IN(rexec_conmon_flags, opt, olen)) {
			if (olen == 4 && memcmp(opt, "exec", 4) == 0)
				exec = true;
			continue;
		}
		if (!REXEC_IN(rexec_conmon_valued, opt, olen))
			goto bad;
		if (val == NULL) {
			if (argv[i + 1] == NULL)
				goto bad;
			val = argv[++i];
		}
		if (olen == 3 && memcmp(opt, "cid", 3) == 0)
			slot = &out->id;
		else if (olen == 5 && memcmp(opt, "cuuid", 5) == 0)
			slot = &cuuid;
		else if (olen == 4 && memcmp(opt, "name", 4) == 0)
			slot = &nm;
		else if (olen == 6 && memcmp(opt, "bundle", 6) == 0)
			slot = &out->bundle;
		else if (olen == 7 && memcmp(opt, "runtime", 7) == 0)
			slot = &out->runtime;
		else if (olen == 11 && memcmp(opt, "runtime-arg", 11) == 0)
			lz_strv_push(&rargs, val);
		if (slot != NULL) {
			free(*slot);
			*slot = xstrdup(val);
		}
	}
	/* An exec's conmon names the container too: only the container's own counts. */
	if (exec || nm == NULL || strcmp(nm, name) != 0)
		goto out;
	if (out->id == NULL || !rexec_hex64(out->id) || cuuid == NULL || strcmp(cuuid, out->id) != 0) {
		lz_err_set(err, LZ_EINVAL, "conmon of %s: no container id (-c/-u)", name);
		ret = -1;
		goto out;
	}
	if (out->bundle == NULL || out->bundle[0] != '/' || out->runtime == NULL ||
	    out->runtime[0] != '/') {
		lz_err_set(err, LZ_EINVAL, "conmon of %s: no absolute bundle (-b) or runtime (-r)", name);
		ret = -1;
		goto out;
	}
	if (rexec_runtime_args(rargs, &out->runtime_args, err) < 0) {
		lz_err_wrap(err, "conmon of %s", name);
		ret = -1;
		goto out;
	}
	ret = 1;
	goto out;
bad:
	lz_err_set(err, LZ_EINVAL, "conmon command line: unknown option '%s'", argv[i]);
	ret = -1;
out:
	if (ret != 1)
		rexec_conmon_clear(out);
	lz_strv_free(argv);
	lz_strv_free(rargs);
	free(nm);
	free(cuuid);
	return ret;
}
