/* sentry-fetch.c - the host's fetch of the agent's refs from the shadow
 * gitdir (step 4 of sentry-import.c), and what happens when git refuses it.
 *
 * One fetch takes every ref at once: the usual case costs one git. But git
 * refuses a whole fetch for one bad object (a tree with an entry named '..'
 * or '.git' fails transfer.fsckObjects), which would hold back every commit
 * of the agent's, at every import, for good. So when the fetch is refused,
 * the refs are sifted: halves of the list are fetched alone (no prune), a
 * refused half is split again, down to single refs, which are left out with
 * git's first error line as the reason. k bad refs among n cost about
 * 2k log2(n) fetches, at most SENTRY_FETCH_TRIES (refs not tried by then
 * are left out too, said so). A last fetch then takes the good refs with
 * --prune, each bad ref kept at the value the host had for it (or absent),
 * so that a bad branch neither reaches the host nor erases its earlier
 * import.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "host/proc.h"
#include "sandbox/sentry/sentry.h"
#include "sandbox/sentry/sentry-int.h"
#include "strv.h"
#include "xmalloc.h"

#define SENTRY_FETCH_TRIES 64	/* fetches one sift may run */
#define SENTRY_WHY_MAX 160	/* git's reason, as audited */
#define SENTRY_REPORT_REFS 5	/* bad refs named in the report */

struct sentry_fetch {
	const char *g;		/* the host's common git dir */
	const char *shadow;
	const char *profile;
	const char *branch;	/* lazaret/agent-<profile> */
	int sfd;		/* the shadow gitdir */
	struct sentry_refs *refs;	/* shadow names: refs/lazaret/main, refs/heads/X... */
	char **why;		/* per ref: NULL (taken) or why it was left out */
	size_t n_bad;
	unsigned tries;
	uint64_t cap;		/* limits.git_object: largest blob taken, 0 none */
	char **host_tips;	/* the host's ref values (rev-list's ^ lines), or NULL */
};

/* Does the subset lo..hi pass? 0 yes, 1 no (*why), -1 error. */
typedef int (*sentry_fetch_test_fn)(struct sentry_fetch *f, size_t lo, size_t hi, char **why,
    lz_err_t *err);

/* The host's name for shadow ref name. */
static char *
sentry_fetch_host_name(const struct sentry_fetch *f, const char *name)
{
	if (strcmp(name, "refs/lazaret/main") == 0)
		return xasprintf("refs/heads/%s", f->branch);
	if (strncmp(name, "refs/heads/", 11) == 0)
		return xasprintf("refs/heads/lazaret/%s/%s", f->profile, name + 11);
	return xasprintf("refs/tags/lazaret/%s/%s", f->profile, name + 10);
}

/* git --git-dir=g with our fixed options, then the subcommand. */
static char **
sentry_fetch_git(const char *g)
{
	char **argv = NULL;

	lz_strv_push(&argv, "git");
	lz_strv_pushf(&argv, "--git-dir=%s", g);
	lz_strv_push(&argv, "-c");
	lz_strv_push(&argv, "core.hooksPath=/dev/null");
	return argv;
}

static char **
sentry_fetch_env(void)
{
	char **env = sentry_git_env();

	lz_strv_push(&env, "GIT_CONFIG_NOSYSTEM=1");
	lz_strv_push(&env, "GIT_CONFIG_GLOBAL=/dev/null");
	return env;
}

/* The host's value of shadow ref name (for a bad ref kept as it was), or NULL. */
static char *
sentry_fetch_host_value(const struct sentry_fetch *f, const char *name)
{
	_cleanup_free_ char *host = sentry_fetch_host_name(f, name);
	char **argv = sentry_fetch_git(f->g), **env = sentry_fetch_env();
	struct proc_result res = { 0 };
	char *v = NULL;

	lz_strv_push(&argv, "rev-parse");
	lz_strv_push(&argv, "-q");
	lz_strv_push(&argv, "--verify");
	lz_strv_push(&argv, host);
	if (proc_run(argv, env, NULL, 0, &res, NULL) == 0 && res.status == 0 && res.out != NULL)
		v = xstrndup(res.out, strcspn(res.out, "\n"));
	proc_result_clear(&res);
	lz_strv_free(argv);
	lz_strv_free(env);
	return v;
}

/* Write the shadow's packed-refs: the refs lo..hi not left out, and with
 * keep, each left-out ref at the host's value. *main: refs/lazaret/main is in. */
static int
sentry_fetch_packed(struct sentry_fetch *f, size_t lo, size_t hi, bool keep, bool *main,
    lz_err_t *err)
{
	_cleanup_free_ char *packed = xstrdup("");
	size_t i;

	*main = false;
	for (i = lo; i < hi; i++) {
		const struct sentry_ref *r = &f->refs->v[i];
		_cleanup_free_ char *kept = NULL;
		const char *hex = r->hex;
		char *t;

		if (f->why[i] != NULL && (!keep || (hex = kept = sentry_fetch_host_value(f,
		    r->name)) == NULL))
			continue;
		*main |= strcmp(r->name, "refs/lazaret/main") == 0;
		t = xasprintf("%s%s %s\n", packed, hex, r->name);
		free(packed);
		packed = t;
	}
	return sentry_write_at(f->sfd, "packed-refs", packed, strlen(packed), 0600, err);
}

/* git's first "error:" line of out (else its last line), made printable. */
static char *
sentry_fetch_why(const char *out)
{
	const char *l = out != NULL ? strstr(out, "error: ") : NULL, *e;
	char *why;
	size_t n, i;

	if (l == NULL && out != NULL && *out != '\0') {
		e = out + strlen(out);
		while (e > out && e[-1] == '\n')
			e--;
		for (l = e; l > out && l[-1] != '\n'; l--)
			;
	}
	if (l == NULL)
		return xstrdup("git fetch failed");
	n = strcspn(l, "\n");
	why = xstrndup(l, n > SENTRY_WHY_MAX ? SENTRY_WHY_MAX : n);
	for (i = 0; why[i] != '\0'; i++)
		if ((unsigned char)why[i] < 0x20 || why[i] == 0x7f)
			why[i] = '?';
	return why;
}

/* One fetch of what packed-refs holds into the host's Lazaret namespace.
 * 0 done, 1 git refused it (*why says why), -1 git did not run. */
static int
sentry_fetch_run(struct sentry_fetch *f, bool main, bool prune, char **why, lz_err_t *err)
{
	char **argv = sentry_fetch_git(f->g), **env = sentry_fetch_env();
	struct proc_result res = { 0 };
	int ret = -1;

	lz_strv_push(&argv, "-c");
	lz_strv_push(&argv, "protocol.file.allow=always");
	lz_strv_push(&argv, "-c");
	lz_strv_push(&argv, "transfer.fsckObjects=true");
	lz_strv_push(&argv, "-c");
	lz_strv_push(&argv, "fetch.fsckObjects=true");
	lz_strv_push(&argv, "-c");
	lz_strv_push(&argv, "fetch.writeCommitGraph=false");
	lz_strv_push(&argv, "fetch");
	lz_strv_push(&argv, "--quiet");
	lz_strv_push(&argv, "--no-tags");
	lz_strv_push(&argv, "--no-write-fetch-head");
	lz_strv_push(&argv, "--no-recurse-submodules");
	lz_strv_push(&argv, "--no-auto-gc");
	if (prune)
		lz_strv_push(&argv, "--prune");
	lz_strv_push(&argv, f->shadow);
	if (main)
		lz_strv_pushf(&argv, "+refs/lazaret/main:refs/heads/%s", f->branch);
	lz_strv_pushf(&argv, "+refs/heads/*:refs/heads/lazaret/%s/*", f->profile);
	lz_strv_pushf(&argv, "+refs/tags/*:refs/tags/lazaret/%s/*", f->profile);
	if (proc_run(argv, env, NULL, 0, &res, err) == 0) {
		ret = res.status == 0 ? 0 : 1;
		if (ret == 1 && why != NULL)
			*why = sentry_fetch_why(res.errout);
	}
	proc_result_clear(&res);
	lz_strv_free(argv);
	lz_strv_free(env);
	return ret;
}

/* A trial fetch of refs lo..hi alone (no prune). */
static int
sentry_fetch_try(struct sentry_fetch *f, size_t lo, size_t hi, char **why, lz_err_t *err)
{
	bool main;

	if (sentry_fetch_packed(f, lo, hi, false, &main, err) < 0)
		return -1;
	return sentry_fetch_run(f, main, false, why, err);
}

/* The host's ref values, once: where the walk of the agent's objects stops. */
static int
sentry_fetch_tips(struct sentry_fetch *f, lz_err_t *err)
{
	char **argv = sentry_fetch_git(f->g), **env = sentry_fetch_env();
	struct proc_result res = { 0 };
	char *l, *nl;
	int ret = -1;

	if (f->host_tips != NULL)
		return 0;
	lz_strv_push(&f->host_tips, "");
	lz_strv_push(&argv, "for-each-ref");
	lz_strv_push(&argv, "--format=^%(objectname)");
	if (proc_run(argv, env, NULL, 0, &res, err) == 0) {
		if (res.status != 0)
			lz_err_set(err, EIO, "git for-each-ref (in %s) failed", f->g);
		else
			ret = 0;
		for (l = res.out; ret == 0 && l != NULL && *l != '\0'; l = nl + 1) {
			if ((nl = strchr(l, '\n')) == NULL)
				break;
			*nl = '\0';
			lz_strv_push(&f->host_tips, l);
		}
	}
	proc_result_clear(&res);
	lz_strv_free(argv);
	lz_strv_free(env);
	return ret;
}

/* Do refs lo..hi reach a blob of the agent's over the cap? rev-list's
 * blob:limit filter reads each blob's size from its header, never its
 * bytes, and the walk stops at what the host has. */
static int
sentry_fetch_sizes(struct sentry_fetch *f, size_t lo, size_t hi, char **why, lz_err_t *err)
{
	char **argv = NULL, **env = sentry_fetch_env();
	_cleanup_free_ char *in = NULL, *cap = cfg_size_text(f->cap);
	struct proc_result res = { 0 };
	const char *om;
	size_t i, n = 0;
	int ret = -1;

	if (sentry_fetch_tips(f, err) < 0)
		goto out;
	for (i = 0; f->host_tips[i] != NULL; i++)
		n += strlen(f->host_tips[i]) + 1;
	for (i = lo; i < hi; i++)
		n += strlen(f->refs->v[i].hex) + 1;
	in = xmalloc(n + 1);
	n = 0;
	for (i = lo; i < hi; i++)
		if (f->why[i] == NULL)
			n += (size_t)sprintf(in + n, "%s\n", f->refs->v[i].hex);
	for (i = 1; f->host_tips[i] != NULL; i++)
		n += (size_t)sprintf(in + n, "%s\n", f->host_tips[i]);
	in[n] = '\0';
	lz_strv_push(&argv, "git");
	lz_strv_pushf(&argv, "--git-dir=%s", f->shadow);
	lz_strv_push(&argv, "rev-list");
	lz_strv_push(&argv, "--objects");
	lz_strv_push(&argv, "--no-object-names");
	lz_strv_pushf(&argv, "--filter=blob:limit=%llu", (unsigned long long)f->cap);
	lz_strv_push(&argv, "--filter-print-omitted");
	lz_strv_push(&argv, "--stdin");
	if (proc_run(argv, env, in, 0, &res, err) < 0)
		goto out;
	/* A walk git cannot make (a missing object): the fetch will say. */
	ret = 0;
	om = res.status != 0 || res.out == NULL ? NULL : res.out[0] == '~' ? res.out :
	    strstr(res.out, "\n~");
	if (om != NULL) {
		om += om[0] == '\n' ? 2 : 1;
		ret = 1;
		*why = xasprintf("blob %.*s is over limits.git_object (%s)",
		    (int)strcspn(om, "\n"), om, cap);
	}
out:
	proc_result_clear(&res);
	lz_strv_free(argv);
	lz_strv_free(env);
	return ret;
}

/* Test refs lo..hi together; split what fails down to the bad refs. */
static int
sentry_fetch_sift(struct sentry_fetch *f, sentry_fetch_test_fn test, size_t lo, size_t hi,
    lz_err_t *err)
{
	_cleanup_free_ char *why = NULL;
	size_t i, mid;
	int r;

	if (f->tries >= SENTRY_FETCH_TRIES) {
		for (i = lo; i < hi; i++)
			if (f->why[i] == NULL) {
				f->why[i] = xasprintf("not tried: more than %d checks",
				    SENTRY_FETCH_TRIES);
				f->n_bad++;
			}
		return 0;
	}
	f->tries++;
	if ((r = test(f, lo, hi, &why, err)) <= 0)
		return r;
	if (hi - lo == 1) {
		f->why[lo] = lz_steal_ptr(&why);
		f->n_bad++;
		return 0;
	}
	mid = lo + (hi - lo) / 2;
	if (sentry_fetch_sift(f, test, lo, mid, err) < 0)
		return -1;
	return sentry_fetch_sift(f, test, mid, hi, err);
}

/* What was left out, for the audit trail. */
static char *
sentry_fetch_report(const struct sentry_fetch *f)
{
	char *s = xasprintf("import left out %zu ref(s):", f->n_bad), *t;
	size_t i, k = 0;

	for (i = 0; i < f->refs->n; i++) {
		if (f->why[i] == NULL)
			continue;
		if (k++ == SENTRY_REPORT_REFS) {
			t = xasprintf("%s ...", s);
			free(s);
			return t;
		}
		/* The agent's own name for its main line. */
		if (strcmp(f->refs->v[i].name, "refs/lazaret/main") == 0)
			t = xasprintf("%s%s refs/heads/%s (%s)", s, k > 1 ? ";" : "", f->branch,
			    f->why[i]);
		else
			t = xasprintf("%s%s %s (%s)", s, k > 1 ? ";" : "", f->refs->v[i].name,
			    f->why[i]);
		free(s);
		s = t;
	}
	return s;
}

int
sentry_fetch_refs(const char *g, const char *shadow, int sfd, const struct anchor *a,
    uint64_t cap, struct sentry_refs *refs, char **report, lz_err_t *err)
{
	struct sentry_fetch f = { g, shadow, a->profile, a->branch, sfd, refs, NULL, 0, 0, cap,
	    NULL };
	_cleanup_free_ char *why = NULL;
	bool main;
	size_t i;
	int r, ret = -1;

	f.why = xcalloc(refs->n + 1, sizeof *f.why);
	/* Refs that reach a blob over the cap are never fetched: the host
	 * would inflate it (index-pack, fsck), and every review after it. */
	if (cap > 0 && refs->n > 0 && sentry_fetch_sift(&f, sentry_fetch_sizes, 0, refs->n,
	    err) < 0)
		goto out;
	f.tries = 0;
	if (sentry_fetch_packed(&f, 0, refs->n, true, &main, err) < 0 ||
	    (r = sentry_fetch_run(&f, main, true, &why, err)) < 0)
		goto out;
	if (r == 1 && refs->n == 0) {
		lz_err_set(err, EIO, "git fetch (import of the agent's refs) failed: %s", why);
		goto out;
	}
	if (r == 1) {
		/* The whole fetch refused: find the refs git refuses. */
		if (sentry_fetch_sift(&f, sentry_fetch_try, 0, refs->n, err) < 0)
			goto out;
		free(lz_steal_ptr(&why));
		if (sentry_fetch_packed(&f, 0, refs->n, true, &main, err) < 0 ||
		    (r = sentry_fetch_run(&f, main, true, &why, err)) < 0)
			goto out;
		if (r == 1) {
			lz_err_set(err, EIO, "git fetch (import of the agent's refs) failed "
			    "without the %zu ref(s) it refused: %s", f.n_bad, why);
			goto out;
		}
	}
	if (report != NULL && f.n_bad > 0)
		*report = sentry_fetch_report(&f);
	ret = 0;
out:
	for (i = 0; i < refs->n; i++)
		free(f.why[i]);
	free(f.why);
	lz_strv_free(f.host_tips);
	return ret;
}
