/* sync-live.c - lazaret sync on a running domain (see sync-live.h).
 *
 * The default only refreshes the agent's read-only view of your branches
 * and tells its sessions: nothing of the agent's is rewritten, so it needs
 * no review first, and the agent decides when to rebase or merge (a
 * conflict is then its own, inside its repository). --reset moves the
 * agent's branch: its work is kept first, on the host (a ref outside the
 * import's namespace, which the agent cannot prune) and inside (a branch
 * holding its uncommitted files as a commit). The in-sandbox step is git
 * in the agent's own repository, run as the agent through an ordinary
 * session; what it prints is shown, never trusted: the host names what it
 * kept from its own refs.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "client-run.h"
#include "review/review-git.h"
#include "review/review-live.h"
#include "sync-live.h"
#include "xmalloc.h"

/* Saves HEAD plus the uncommitted work as branch $saved, then checks the
 * agent branch out afresh at host/<target>. $1 stamp, $2 target, $3 branch. */
static const char sync_live_script[] =
    "set -e\n"
    "g='git -c core.hooksPath=/dev/null'\n"
    "cd /workspace\n"
    "saved=lazaret-saved/$1\n"
    "gd=$($g rev-parse --absolute-git-dir)\n"
    "$g rebase --quit 2>/dev/null || true\n"
    "$g merge --quit 2>/dev/null || true\n"
    "$g cherry-pick --quit 2>/dev/null || true\n"
    "what=HEAD\n"
    "tip=$($g rev-parse HEAD)\n"
    "if [ -n \"$($g status --porcelain --untracked-files=all)\" ]; then\n"
    "  idx=$gd/lazaret-save-index\n"
    "  cp \"$gd/index\" \"$idx\" 2>/dev/null || rm -f \"$idx\"\n"
    "  GIT_INDEX_FILE=$idx $g add -A\n"
    "  tree=$(GIT_INDEX_FILE=$idx $g write-tree)\n"
    "  rm -f \"$idx\"\n"
    "  tip=$($g commit-tree -p HEAD -m 'lazaret sync --reset: the uncommitted work' \"$tree\")\n"
    "  what='HEAD and the uncommitted work'\n"
    "fi\n"
    "$g branch \"$saved\" \"$tip\"\n"
    "$g checkout -q -f -B \"$3\" \"host/$2\"\n"
    "$g clean -q -fd\n"
    "echo \"lazaret: in the agent's repository, $what saved on branch $saved ($tip)\"\n";

int
sync_live_offer(struct review_act *m, const char *notice, char **reply, lz_err_t *err)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	int ret;

	*reply = NULL;
	review_live_encode(&b, m->r->target, notice);
	ret = client_request(m->cl, &b, PROTO_STATUS, 30000, &h, &p, err);
	free(b.data);
	if (ret < 0)
		return lz_err_wrap(err, "domain %s", m->a->hash);
	*reply = xstrndup((const char *)p, h.length);
	(*reply)[strcspn(*reply, "\n")] = '\0';
	return 0;
}

/* The domain's workspace mode, as the Sentry recorded it. */
static bool
sync_live_direct(const struct review_act *m)
{
	_cleanup_free_ char *f = xasprintf("%s/sentry/mode", m->a->domain_root);
	char buf[16] = "";
	_cleanup_close_ int fd = open(f, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	return fd >= 0 && read(fd, buf, sizeof buf - 1) > 0 && strncmp(buf, "direct", 6) == 0;
}

/* The host's copy of ref once the import has it (up to ~10 s), or NULL. */
static char *
sync_live_imported(struct review_act *m, const char *ref)
{
	const char *args[] = { "rev-parse", "-q", "--verify", ref, NULL };
	lz_err_t e = LZ_ERR_INIT;
	char *out = NULL;

	for (int i = 0; i < 100; i++) {
		if (review_git_ok(m->r->g, true, NULL, args, &out, &e) == 0)
			return out;
		lz_err_clear(&e);
		usleep(100 * 1000);
	}
	return NULL;
}

int
sync_live_reset(struct review_act *m, char **kept, char **wip, char **reply, lz_err_t *err)
{
	char stamp[32];
	_cleanup_free_ char *ref = NULL, *saved = NULL, *hostcopy = NULL, *wipref = NULL;
	_cleanup_free_ char *hex = NULL, *note = NULL, *first = NULL;
	char sh[] = "sh", dash_c[] = "-c";
	char *argv[] = { sh, dash_c, (char *)sync_live_script, sh, stamp, NULL, NULL, NULL };
	struct client_run_opts ro = { .argv = argv, .direct = false, .tty = false };
	int status = 0, null;

	*kept = *wip = *reply = NULL;
	if (sync_live_direct(m))
		return lz_err_set(err, LZ_EINVAL, "domain %s runs in direct mode: the agent edits "
		    "your checkout itself, which --reset would rewrite; commit or stash there "
		    "yourself (lazaret sync without --reset offers your branch)", m->a->hash);
	review_utc_stamp(stamp);
	argv[5] = (char *)m->r->target;
	argv[6] = m->a->branch;
	/* 1. The agent tip, kept on the host before anything moves. */
	ref = review_saved_ref(m->r, stamp);
	if (review_keep_ref(m->r, ref, m->r->tip, err) < 0)
		return -1;
	*kept = xstrdup(ref);
	/* 2. host/<target> current inside, no notice yet. */
	if (sync_live_offer(m, "lazaret sync --reset: saving the agent's work, then its branch "
	    "starts afresh from yours", &first, err) < 0)
		return -1;
	/* 3. Inside: save, then check out afresh (the session's output is shown). */
	fflush(stdout);
	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0) {
		(void)dup2(null, STDIN_FILENO);
		close(null);
	}
	if (client_run(m->cl, &ro, &status, err) < 0)
		return lz_err_wrap(err, "the agent's work is kept as %s, but the reset inside "
		    "did not run", ref);
	if (status != 0)
		return lz_err_set(err, LZ_EINVAL, "the reset inside the sandbox failed (exit %d, "
		    "above); nothing was reset, and the agent tip is kept as %s", status, ref);
	/* 4. Its saved branch on the host too, out of the agent's reach. */
	saved = xasprintf("lazaret-saved/%s", stamp);
	hostcopy = xasprintf("refs/heads/lazaret/%s/%s", m->a->profile, saved);
	if ((hex = sync_live_imported(m, hostcopy)) != NULL) {
		wipref = xasprintf("%s-wip", ref);
		if (strcmp(hex, m->r->tip) != 0 && review_keep_ref(m->r, wipref, hex, err) < 0)
			return -1;
		*wip = xstrdup(strcmp(hex, m->r->tip) != 0 ? wipref : ref);
	}
	/* 5. The sessions told. */
	note = xasprintf("lazaret sync --reset: %s starts afresh at host/%s; the old work is on "
	    "branch %s (and on the host as %s)", m->a->branch, m->r->target, saved,
	    *wip != NULL ? *wip : ref);
	return sync_live_offer(m, note, reply, err);
}

int
sync_live(struct review_act *m, bool reset, char **msg, lz_err_t *err)
{
	_cleanup_free_ char *reply = NULL, *kept = NULL, *wip = NULL, *why = NULL;
	int rc;

	*msg = NULL;
	rc = reset ? sync_live_reset(m, &kept, &wip, &reply, err) :
	    sync_live_offer(m, NULL, &reply, err);
	if (rc < 0) {
		/* What was kept before the failure is named in the message. */
		(void)review_act_audit(m, "refused", reset ? "live-reset" : "live", false, NULL,
		    err->msg, NULL);
		return -1;
	}
	why = reset ? xasprintf("old agent tip kept as %s; the agent's HEAD and uncommitted "
	    "work as %s", kept, wip != NULL ? wip : "(not imported yet: lazaret-saved/ in its "
	    "repository)") : xstrdup(reply);
	if (review_act_audit(m, reset ? "reset" : "offered", reset ? "live-reset" : "live", false,
	    m->r->target_tip, why, err) < 0) {
		lz_err_wrap(err, "sync done, but the audit row failed");
		return -2;
	}
	*msg = reset ? xasprintf("reset %s to %s at %.12s while it runs: old tip kept as %s%s%s",
	    m->a->branch, m->r->target, m->r->target_tip, kept,
	    wip != NULL ? ", its uncommitted work as " : "", wip != NULL ? wip : "") :
	    xasprintf("offered %s to the agent: %s", m->r->target, reply);
	return 0;
}
