/* coord-sync.c - `lazaret sync` on a running domain (issue 30): refresh
 * the agent's view of the host's branches now (sentry-follow.c), then tell
 * every running tty session in one line, so the agent (or the user in its
 * tab) knows host/<branch> moved and can rebase or merge with plain git.
 * The user's checkout, index and branches are not touched here at all.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coord/coord-int.h"
#include "jsonw.h"
#include "review/review-live.h"
#include "sandbox/sentry/sentry-follow.h"
#include "xmalloc.h"

struct coord_sync {
	struct coord *c;
	struct ctl_server_client *cl;
	char *target, *notice;
};

/* The id host/<target> has in the agent's view, or NULL. */
static char *
coord_sync_tip(struct coord *c, const char *target)
{
	_cleanup_free_ char *f = xasprintf("%s/host-view/refs/%s", c->a->domain_root, target);
	_cleanup_close_ int fd = open(f, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char buf[80];
	ssize_t n;

	if (fd < 0 || (n = read(fd, buf, sizeof buf - 1)) < 41)
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return xstrdup(buf);
}

static void
coord_sync_done_cb(void *arg, const char *summary, const char *error)
{
	struct coord_sync *j = arg;
	struct coord *c = j->c;
	_cleanup_free_ char *tip = NULL, *what = NULL, *line = NULL, *reply = NULL;
	struct proto_buf b = { 0 };
	struct lz_jsonw w;
	size_t i, told = 0;

	if (error != NULL) {
		ctl_server_send_error(j->cl, PROTO_E_STATE, "cannot refresh the agent's view of "
		    "the host's branches: %s", error);
		goto out;
	}
	if (*j->target != '\0' && (tip = coord_sync_tip(c, j->target)) == NULL) {
		ctl_server_send_error(j->cl, PROTO_E_STATE, "branch '%s' is not among the host's "
		    "branches the agent sees", j->target);
		goto out;
	}
	what = tip != NULL ? xasprintf("host/%s is at %.12s", j->target, tip) :
	    xstrdup(summary != NULL ? summary : "the host's branches are current");
	line = *j->notice != '\0' ? xasprintf("\r\n[lazaret] %s\r\n", j->notice) :
	    tip != NULL ? xasprintf("\r\n[lazaret] your latest work: %s (git rebase host/%s, or "
	    "git merge host/%s)\r\n", what, j->target, j->target) :
	    xasprintf("\r\n[lazaret] %s\r\n", what);
	for (i = 0; i < c->n_sessions; i++)
		if (c->sessions[i]->tty && !c->sessions[i]->exited) {
			session_notice(c->sessions[i], line);
			told++;
		}
	reply = xasprintf("%s; told %zu running session%s\n", what, told, told == 1 ? "" : "s");
	proto_encode_status(&b, reply);
	ctl_server_send(j->cl, &b);
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "target"); lz_jsonw_str(&w, j->target);
	lz_jsonw_key(&w, "tip"); lz_jsonw_str(&w, tip != NULL ? tip : "");
	lz_jsonw_key(&w, "sessions_told"); lz_jsonw_int(&w, (int64_t)told);
	coord_audit(c, "sentry.sync", "user", NULL, &w);
out:
	ctl_server_client_unref(j->cl);
	free(j->target);
	free(j->notice);
	free(j);
}

void
coord_sync_frame(struct coord *c, struct ctl_server_client *cl, const uint8_t *p, size_t len)
{
	struct coord_sync *j;
	char *target, *notice;
	lz_err_t err = LZ_ERR_INIT;

	if (review_live_decode(p, len, &target, &notice, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if (c->follow == NULL) {
		ctl_server_send_error(cl, PROTO_E_STATE, "domain %s has no git repository to sync",
		    c->a->hash);
		free(target);
		free(notice);
		return;
	}
	j = xcalloc(1, sizeof *j);
	j->c = c;
	j->cl = cl;
	j->target = target;
	j->notice = notice;
	ctl_server_client_ref(cl);
	sentry_follow_now(c->follow, coord_sync_done_cb, j);
}
