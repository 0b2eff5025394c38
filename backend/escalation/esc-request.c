/* esc-request.c - a verified escalation request: where it runs, the
 * policy, the per-session limits, audit first and the command (see
 * esc-server.h and esc-server-int.h).
 */
#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "escalation/esc-cwd.h"
#include "escalation/esc-server-int.h"
#include "review/review-gate.h"
#include "shellwords.h"
#include "sign.h"
#include "strv.h"
#include "xmalloc.h"

static void
esc_conn_output_cb(struct esc_exec *x, uint8_t stream, const uint8_t *buf, size_t len,
    void *arg)
{
	struct esc_conn *c = arg;
	size_t off, n;

	if (c->st != ESC_C_RUNNING)
		return;
	for (off = 0; off < len; off += n) {
		n = len - off < ESC_OUTPUT_MAX ? len - off : ESC_OUTPUT_MAX;
		esc_payload_frame_output(&c->out, stream, buf + off, n);
	}
	if (esc_conn_flush(c) < 0)
		return;
	if (c->out.len >= ESC_OUT_HIGH)
		esc_exec_pause(x, true);
	esc_conn_update(c);
}

static void
esc_conn_done_cb(struct esc_exec *x, int status, int64_t duration_ms, uint64_t out_bytes,
    void *arg)
{
	struct esc_conn *c = arg;
	struct lz_jsonw w;

	(void)x;
	c->x = NULL;
	esc_trace_mark(&c->trace, ESC_T_EXITED);
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "outcome"); lz_jsonw_str(&w, "ran");
	lz_jsonw_key(&w, "exit_status"); lz_jsonw_int(&w, status);
	lz_jsonw_key(&w, "duration_ms"); lz_jsonw_int(&w, duration_ms);
	lz_jsonw_key(&w, "output_bytes"); lz_jsonw_int(&w, (int64_t)out_bytes);
	lz_jsonw_key(&w, "sandbox_gone"); lz_jsonw_bool(&w, c->st == ESC_C_CLOSED);
	esc_audit(c->srv, "esc.result", "coordinator", c, &w, NULL);
	if (c->st == ESC_C_RUNNING)
		esc_conn_result(c, ESC_OUTCOME_RAN, status, "");
	esc_conn_unref(c);
}

static void
esc_conn_failed(struct esc_conn *c, const char *why)
{
	struct lz_jsonw w;

	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "outcome"); lz_jsonw_str(&w, "failed");
	lz_jsonw_key(&w, "reason"); lz_jsonw_str(&w, why);
	esc_audit(c->srv, "esc.result", "coordinator", c, &w, NULL);
	esc_conn_result(c, ESC_OUTCOME_FAILED, 0, why);
}

/* Run c->argv (the request's, or the edited one) in c->dir_fd. */
static void
esc_conn_run(struct esc_conn *c)
{
	static const struct esc_exec_cbs cbs = { esc_conn_output_cb, esc_conn_done_cb };
	struct esc_server *s = c->srv;
	struct esc_exec_opts eo;
	lz_err_t err = LZ_ERR_INIT;
	struct stat st;
	char *why;

	if (c->file == NULL) {
		why = xasprintf("'%s' not found on the host (PATH %s)", c->argv[0], s->o.exec_path);
		esc_conn_failed(c, why);
		free(why);
		return;
	}
	if (stat(c->file, &st) < 0 || st.st_dev != c->file_dev || st.st_ino != c->file_ino) {
		why = xasprintf("%s changed after the policy looked at it: not run", c->file);
		esc_conn_failed(c, why);
		free(why);
		return;
	}
	memset(&eo, 0, sizeof eo);
	eo.file = c->file;
	eo.argv = c->argv;
	eo.cwd = c->host_cwd;
	eo.dir_fd = c->dir_fd;
	eo.path = s->o.exec_path;
	eo.home = s->o.exec_home;
	c->st = ESC_C_RUNNING;
	if (esc_exec_start(s->loop, &eo, &cbs, c, &c->x, &err) < 0) {
		esc_conn_failed(c, err.msg);
		lz_err_clear(&err);
		return;
	}
	esc_trace_mark(&c->trace, ESC_T_SPAWNED);
	c->refs++;	/* the command's */
}

void
esc_request_resolve(struct esc_conn *c)
{
	struct stat st;

	free(c->file);
	c->file = NULL;
	if (c->argv == NULL || c->argv[0] == NULL)
		return;
	c->file = policy_which(c->srv->o.policy, c->argv[0], c->host_cwd);
	if (c->file != NULL && stat(c->file, &st) == 0) {
		c->file_dev = st.st_dev;
		c->file_ino = st.st_ino;
	}
}

/* The decision row was committed, or failed. */
static void
esc_conn_audited_cb(void *arg, int status)
{
	struct esc_conn *c = arg;
	struct lz_jsonw w;

	(void)status;	/* esc_audit marked c->audit_failed, for this row or the request's */
	esc_trace_mark(&c->trace, ESC_T_AUDITED);
	if (c->st == ESC_C_CLOSED) {
		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "outcome"); lz_jsonw_str(&w, "not-run");
		lz_jsonw_key(&w, "reason");
		lz_jsonw_str(&w, "the sandbox side went away before the command started");
		esc_audit(c->srv, "esc.result", "coordinator", c, &w, NULL);
	} else if (c->st == ESC_C_AUDIT && c->audit_failed) {
		/* Refused, not failed: the agent sees 125, as for every refusal. */
		esc_conn_reject(c, "the audit trail cannot be written (is the disk under "
		    "data_root full?): nothing was run on the host");
	} else if (c->st == ESC_C_AUDIT)
		esc_conn_run(c);
}

void
esc_conn_approved(struct esc_conn *c, const char *actor, struct lz_jsonw *decision)
{
	if (c->st == ESC_C_PENDING)
		esc_conn_withdraw(c);
	c->st = ESC_C_AUDIT;
	uv_timer_stop(&c->timer);
	/* The store answers in order: the request's row has answered too by
	 * the time the decision's does. */
	esc_audit(c->srv, "esc.decision", actor, c, decision, esc_conn_audited_cb);
}

/* Why a request of this session that needs a human is refused now, or NULL:
 * prompt fatigue is the attack (64 prompts at once, or asking again at once
 * after each "no"). Caller frees. */
static char *
esc_request_limit(struct esc_server *s, struct esc_anchor *an, const char *hex)
{
	struct esc_conn *o;
	int64_t now = (int64_t)uv_now(s->loop);
	int n = 0;

	for (o = s->conns; o != NULL; o = o->next)
		if (o->st == ESC_C_PENDING && strcmp(o->req.session_id, hex) == 0)
			n++;
	if (n >= ESC_PENDING_MAX)
		return xasprintf("session %.8s has %d requests waiting for a decision already (at "
		    "most %d): wait for their answers first", hex, n, ESC_PENDING_MAX);
	if (an->backoff_until > now)
		return xasprintf("session %.8s: the last %d requests were denied; ask again in "
		    "%lld s", hex, an->denials, (long long)((an->backoff_until - now + 999) / 1000));
	return NULL;
}

void
esc_request_denied(struct esc_server *s, const char *hex)
{
	size_t i;
	int64_t ms;

	for (i = 0; i < s->n_anchors; i++) {
		struct esc_anchor *an = &s->anchors[i];

		if (strcmp(an->hex, hex) != 0)
			continue;
		if (++an->denials <= ESC_DENIALS_FREE)
			return;
		ms = ESC_BACKOFF_MS;
		for (int k = ESC_DENIALS_FREE + 1; k < an->denials && ms < ESC_BACKOFF_MAX_MS; k++)
			ms *= 2;
		an->backoff_until = (int64_t)uv_now(s->loop) + (ms < ESC_BACKOFF_MAX_MS ? ms : ESC_BACKOFF_MAX_MS);
		return;
	}
}

void
esc_request_approved(struct esc_server *s, const char *hex)
{
	size_t i;

	for (i = 0; i < s->n_anchors; i++)
		if (strcmp(s->anchors[i].hex, hex) == 0) {
			s->anchors[i].denials = 0;
			s->anchors[i].backoff_until = 0;
		}
}

static void esc_request_decide(struct esc_conn *, enum policy_verdict, char *why,
    const char *gate);

/* The review gate answered (on the loop's thread): decide now. */
static void
esc_request_gate_cb(void *arg, char *msg, bool kept)
{
	struct esc_conn *c = arg;
	char *why = lz_steal_ptr(&c->reason);
	const char *gate = kept ? "unchanged since the last check" : "checked";

	if (c->srv->closing) {
		free(msg);
		free(why);
	} else if (msg != NULL) {
		free(why);
		esc_request_decide(c, POLICY_NEEDS_PROMPT, msg, gate);
	} else {
		esc_request_decide(c, POLICY_AUTO_APPROVE, why, gate);
	}
	esc_conn_unref(c);
}

void
esc_conn_request(struct esc_conn *c, const uint8_t *pl, size_t len)
{
	struct esc_server *s = c->srv;
	enum policy_verdict v;
	lz_err_t err = LZ_ERR_INIT;
	char *why = NULL, *msg = NULL;
	int64_t now = time(NULL);

	if (esc_payload_parse(pl, len, &c->p, &err) < 0) {
		msg = xasprintf("malformed request: %s", err.msg);
		esc_conn_reject(c, msg);
		goto out;
	}
	c->have_p = true;
	esc_payload_hex(c->p.session_id, ESC_ID_LEN, c->req.session_id);
	esc_payload_hex(c->p.request_id, ESC_ID_LEN, c->req.request_id);
	if (esc_server_anchor(s, c->p.session_id) == NULL) {
		msg = xasprintf("unknown session %s: no such session in this domain",
		    c->req.session_id);
		esc_conn_reject(c, msg);
		goto out;
	}
	if (lz_sign_verify(&c->p, esc_server_anchor(s, c->p.session_id)->pk, now, &err) < 0 ||
	    lz_sign_replay_check(s->replay, c->p.request_id, c->p.timestamp, now, &err) < 0) {
		msg = xstrdup(err.msg);
		esc_conn_reject(c, msg);
		goto out;
	}
	if (s->audit_down) {
		if (s->cbs.audit_ok_cb != NULL && !s->cbs.audit_ok_cb(s->arg)) {
			msg = xstrdup("the audit trail cannot be written (is the disk under "
			    "data_root full?): nothing runs on the host until it can");
			esc_conn_reject(c, msg);
			goto out;
		}
		s->audit_down = false;
	}
	/* The policy sees the canonical path; the command runs in the directory
	 * opened here, beneath the workspace, with no symlink on the way. */
	if (policy_map_cwd(c->p.cwd, s->o.sandbox_workspace, s->o.host_workspace, &c->host_cwd,
	    &err) < 0 || (c->dir_fd = esc_cwd_open(s->root_fd, c->p.cwd +
	    strlen(s->o.sandbox_workspace), c->host_cwd, &err)) < 0) {
		msg = xasprintf("cwd %s: %s", c->p.cwd, err.msg);
		esc_conn_reject(c, msg);
		goto out;
	}
	policy_decide_in(s->o.policy, c->p.command, c->host_cwd, &c->argv, &v, &why);
	esc_trace_mark(&c->trace, ESC_T_POLICY);
	/* An auto_approve entry runs a host tool on the agent's files: not by
	 * itself while the agent changed what such tools execute. The check
	 * runs git: on the threadpool, the decision waits for it. */
	if (v == POLICY_AUTO_APPROVE && s->gate != NULL) {
		c->reason = lz_steal_ptr(&why);
		c->st = ESC_C_GATE;
		c->refs++;
		review_gate_start(s->gate, s->loop, esc_request_gate_cb, c);
		goto out;
	}
	esc_request_decide(c, v, lz_steal_ptr(&why), NULL);
out:
	free(msg);
	free(why);
	lz_err_clear(&err);
}

/* The verdict is known (why: owned; gate: what the review gate did, or
 * NULL): audit it, then refuse, prompt or run. A connection closed
 * meanwhile (its peer left during the gate) gets its rows, nothing else. */
static void
esc_request_decide(struct esc_conn *c, enum policy_verdict v, char *why, const char *gate)
{
	struct esc_server *s = c->srv;
	struct esc_anchor *an;
	struct lz_jsonw w;
	char *msg = NULL;

	esc_trace_mark(&c->trace, ESC_T_DECIDE);
	esc_audit_hold(s);	/* the request's row and its decision: one commit */
	/* Resolved once, when the policy looks: what runs is this file, by this
	 * path, whatever PATH or a symlink says by the time a human approves. */
	esc_request_resolve(c);
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "command"); lz_jsonw_str(&w, c->p.command);
	lz_jsonw_key(&w, "justification"); lz_jsonw_str(&w, c->p.justification);
	lz_jsonw_key(&w, "cwd"); lz_jsonw_str(&w, c->p.cwd);
	lz_jsonw_key(&w, "host_cwd"); lz_jsonw_str(&w, c->host_cwd);
	lz_jsonw_key(&w, "timestamp"); lz_jsonw_int(&w, c->p.timestamp);
	lz_jsonw_key(&w, "verdict"); lz_jsonw_str(&w, policy_verdict_name(v));
	lz_jsonw_key(&w, "why"); lz_jsonw_str(&w, why);
	if (gate != NULL) {
		lz_jsonw_key(&w, "surface_check"); lz_jsonw_str(&w, gate);
	}
	esc_audit(s, "esc.request", c->req.session_id, c, &w, NULL);
	if (c->st == ESC_C_CLOSED) {
		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "action"); lz_jsonw_str(&w, "abandoned");
		lz_jsonw_key(&w, "reason");
		lz_jsonw_str(&w, "the sandbox side went away before a decision");
		esc_audit(s, "esc.decision", "coordinator", c, &w, NULL);
		goto out;
	}
	c->st = ESC_C_REQUEST;
	if (v == POLICY_NEEDS_PROMPT) {
		if ((an = esc_server_anchor(s, c->p.session_id)) == NULL)
			msg = xasprintf("unknown session %s: the session ended",
			    c->req.session_id);
		else
			msg = esc_request_limit(s, an, c->req.session_id);
		if (msg != NULL) {
			esc_conn_reject(c, msg);
			goto out;
		}
	}
	switch (v) {
	case POLICY_INVALID:
		msg = xasprintf("command does not parse: %s", why != NULL ? why : "invalid");
		esc_conn_reject(c, msg);
		break;
	case POLICY_AUTO_APPROVE:
		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "action"); lz_jsonw_str(&w, "auto-approve");
		esc_conn_approved(c, "policy", &w);
		break;
	case POLICY_NEEDS_PROMPT:
		c->reason = lz_steal_ptr(&why);
		c->req.ticket = ++s->next_ticket;
		c->req.command = c->p.command;
		c->req.justification = c->p.justification;
		c->req.cwd = c->p.cwd;
		c->req.reason = c->reason;
		c->st = ESC_C_PENDING;
		msg = xasprintf("waiting for approval on the host (request %.8s: %s)",
		    c->req.request_id, c->reason);
		esc_payload_frame_pending(&c->out, msg);
		uv_timer_start(&c->timer, esc_conn_timeout_cb, (uint64_t)s->o.timeout_ms, 0);
		if (esc_conn_flush(c) == 0 && s->cbs.prompt_cb != NULL)
			s->cbs.prompt_cb(s, &c->req, s->arg);
		break;
	}
out:
	esc_audit_release(s);
	free(msg);
	free(why);
}

struct esc_anchor *
esc_server_anchor(struct esc_server *s, const uint8_t sid[ESC_ID_LEN])
{
	size_t i;

	for (i = 0; i < s->n_anchors; i++)
		if (memcmp(s->anchors[i].sid, sid, ESC_ID_LEN) == 0)
			return &s->anchors[i];
	return NULL;
}

struct esc_conn *
esc_server_ticket(struct esc_server *s, uint32_t ticket)
{
	struct esc_conn *c;

	for (c = s->conns; c != NULL; c = c->next)
		if (c->st == ESC_C_PENDING && c->req.ticket == ticket)
			return c;
	return NULL;
}

int
esc_server_decide(struct esc_server *s, uint32_t ticket, enum esc_ctl_action action,
    const char *edited, const char *actor, lz_err_t *err)
{
	struct esc_conn *c = esc_server_ticket(s, ticket);
	struct lz_jsonw w;
	lz_err_t perr = LZ_ERR_INIT;
	char **argv = NULL, *why;

	if (c == NULL)
		return lz_err_set(err, ENOENT, "no request waits under ticket %u", ticket);
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "action"); lz_jsonw_str(&w, esc_ctl_action_name(action));
	if (action == ESC_CTL_EDIT) {
		enum policy_verdict v;
		char **ev = NULL, *evwhy = NULL;

		lz_jsonw_key(&w, "original"); lz_jsonw_str(&w, c->p.command);
		lz_jsonw_key(&w, "edited"); lz_jsonw_str(&w, edited != NULL ? edited : "");
		/* What the policy says of the edit is recorded; the human's word stands
		 * (as for [A]pprove of a prompted request, banned programs included). */
		policy_decide_in(s->o.policy, edited != NULL ? edited : "", c->host_cwd, &ev, &v,
		    &evwhy);
		lz_jsonw_key(&w, "edited_verdict"); lz_jsonw_str(&w, policy_verdict_name(v));
		lz_jsonw_key(&w, "edited_why"); lz_jsonw_str(&w, evwhy);
		lz_strv_free(ev);
		free(evwhy);
	}
	switch (action) {
	case ESC_CTL_APPROVE:
		esc_request_approved(s, c->req.session_id);
		esc_conn_approved(c, actor, &w);
		break;
	case ESC_CTL_EDIT:
		/* Human-approved as typed, but still split by shell-words rules and
		 * run without a shell: quotes group words, nothing is expanded. */
		if (edited == NULL || lz_shellwords_split(edited, strlen(edited), &argv, &perr) < 0 ||
		    argv == NULL || argv[0] == NULL) {
			why = xasprintf("the edited command does not parse: %s",
			    perr.msg != NULL ? perr.msg : "empty");
			esc_audit(s, "esc.decision", actor, c, &w, NULL);
			esc_conn_result(c, ESC_OUTCOME_DENIED, 0, why);
			free(why);
			lz_strv_free(argv);
			lz_err_clear(&perr);
			break;
		}
		lz_strv_free(c->argv);
		c->argv = argv;
		esc_request_resolve(c);
		esc_request_approved(s, c->req.session_id);
		esc_conn_approved(c, actor, &w);
		break;
	case ESC_CTL_DENY:
		esc_audit(s, "esc.decision", actor, c, &w, NULL);
		esc_request_denied(s, c->req.session_id);
		esc_conn_result(c, ESC_OUTCOME_DENIED, 0, "denied by the user");
		break;
	case ESC_CTL_QUIT:
		esc_audit(s, "esc.decision", actor, c, &w, NULL);
		esc_conn_result(c, ESC_OUTCOME_DENIED, 0, "the user quit the session");
		if (s->cbs.quit_cb != NULL)
			s->cbs.quit_cb(s->arg);
		break;
	}
	return 0;
}
