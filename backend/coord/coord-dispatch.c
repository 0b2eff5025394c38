/* coord-dispatch.c - the coordinator's answers to its clients: one function
 * per frame type of the control protocol (new session, attach, input, resize,
 * detach, kill, status, stop, escalation frames), the sessions' output and exit
 * callbacks, session records for the store, and the Host Escalation hooks.
 */
#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "coord/coord.h"
#include "coord/coord-int.h"
#include "coord/screen.h"
#include "cred-fd.h"
#include "sandbox/sentry/sentry-watch.h"
#include "store/audit.h"
#include "jsonw.h"
#include "strv.h"
#include "trace.h"
#include "xmalloc.h"

/* A session's end waits this long for the import of the agent's commits. */
#define COORD_IMPORT_WAIT_MS 30000

/* A session record for the store. */
struct coord_store_job {
	char uuid[33];
	char *profile, *workspace;
	int64_t pid, ts;
	int status;
	bool end;
};

static int coord_esc_session(struct coord *, struct ctl_server_client *,
    const struct esc_ctl_anchor *, char **secret);

/* Store records, in order, on the threadpool. */

static int
coord_store_work(struct store *st, void *arg, lz_err_t *err)
{
	struct coord_store_job *j = arg;

	if (j->end)
		return store_session_end(st, j->uuid, j->status, j->ts, err);
	return store_session_begin(st, j->uuid, j->profile, j->workspace, j->pid, j->ts, err);
}

static void
coord_store_done(void *arg, int status, lz_err_t *err)
{
	struct coord_store_job *j = arg;

	if (status < 0)
		coord_log("state store: session %s: %s", j->uuid,
		    err != NULL && err->msg != NULL ? err->msg : "failed");
	free(j->profile);
	free(j->workspace);
	free(j);
}

static void
coord_store_session(struct coord *c, const struct session *s, bool end)
{
	struct coord_store_job *j;

	if (c->store == NULL)
		return;
	j = xcalloc(1, sizeof *j);
	memcpy(j->uuid, s->uuid, sizeof j->uuid);
	j->profile = xstrdup(c->a->profile);
	j->workspace = xstrdup(c->a->workspace);
	j->pid = s->pid;
	j->end = end;
	j->status = s->status;
	j->ts = end ? coord_now_ms() : s->started_ms;
	store_submit(c->loop, c->store, coord_store_work, coord_store_done, j);
}

/* Sessions. */

struct session *
coord_session_find(struct coord *c, uint32_t id)
{
	size_t i;

	for (i = 0; i < c->n_sessions; i++)
		if (c->sessions[i]->id == id)
			return c->sessions[i];
	return NULL;
}

static void
coord_session_remove(struct coord *c, struct session *s)
{
	size_t i;

	for (i = 0; i < c->n_sessions; i++)
		if (c->sessions[i] == s) {
			memmove(&c->sessions[i], &c->sessions[i + 1],
			    (c->n_sessions - i - 1) * sizeof *c->sessions);
			c->n_sessions--;
			return;
		}
}

static void
coord_output_cb(struct session *s, uint8_t stream, const uint8_t *buf, size_t len, void *arg)
{
	struct proto_buf b = { 0 }, copy;
	size_t i;
	bool high = false;

	(void)arg;
	/* The session fed its screen, attached or not: ATTACH sends it. */
	if (s->n_clients == 0)
		return;
	proto_encode_data(&b, s->id, stream, buf, len);
	for (i = 0; i < s->n_clients; i++) {
		if (i + 1 == s->n_clients)
			ctl_server_send(s->clients[i], &b);
		else {
			copy.data = xmalloc(b.len);
			memcpy(copy.data, b.data, b.len);
			copy.len = copy.cap = b.len;
			ctl_server_send(s->clients[i], &copy);
		}
		if (s->clients[i]->queued >= CTL_SERVER_HIGH_WATER)
			high = true;
	}
	proto_buf_clear(&b);
	/* Back-pressure: a slow client stops the PTY until its queue drains. */
	if (high)
		session_pause(s, true);
}

static void
coord_input_cb(struct session *s, bool full, void *arg)
{
	size_t i;

	(void)arg;
	for (i = 0; i < s->n_clients; i++)
		ctl_server_client_pause(s->clients[i], full);
}

/* How a session started, for the trace. */
static const char *
coord_exec_label(const struct coord *c, bool direct)
{
	if (!direct || c->direct == NULL)
		return "podman exec";
	return c->drv->direct_label != NULL ? c->drv->direct_label(c->direct) : "runsc exec";
}

/* Whether sessions start a way that hands the credential over on an fd. */
bool
coord_secret_safe(const struct coord *c)
{
	return c->direct != NULL && c->drv->direct_secret_fd != NULL &&
	    c->drv->direct_secret_fd(c->direct);
}

/* The rest of a session's end, once the agent's last commits are imported
 * (finished) or the wait for them ran out. */
static void
coord_exit_finish(struct coord *c, struct session *s, bool finished)
{
	struct proto_exit e = { s->id, s->status, c->limit_hit != NULL ? PROTO_EXIT_LIMIT : 0 };
	struct proto_buf b = { 0 };
	size_t i;

	if (!finished) {
		char *m = xasprintf("lazaret: the import of the agent's commits into %s has "
		    "not finished after %d s; it goes on, and lazaret diff and merge wait for it\r\n",
		    c->a->branch, COORD_IMPORT_WAIT_MS / 1000);

		for (i = 0; i < s->n_clients; i++) {
			proto_encode_data(&b, s->id, PROTO_STREAM_ERR, (const uint8_t *)m, strlen(m));
			ctl_server_send(s->clients[i], &b);
		}
		free(m);
	}
	for (i = 0; i < s->n_clients; i++) {
		ctl_server_client_pause(s->clients[i], false);
		proto_encode_exit(&b, &e);
		ctl_server_send(s->clients[i], &b);
	}
	coord_store_session(c, s, true);
	{
		struct lz_jsonw w;

		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "id"); lz_jsonw_int(&w, s->id);
		lz_jsonw_key(&w, "exit_status"); lz_jsonw_int(&w, s->status);
		coord_audit(c, "session.end", "coordinator", s->uuid, &w);
	}
	esc_coord_session_end(c->esc, s->uuid);
	coord_session_remove(c, s);
	screen_free(s->screen);
	s->screen = NULL;
	session_close(s);
	session_unref(s);
	if (c->stopping && c->n_sessions == 0)
		c->shutdown(c, NULL);
	else
		c->check_idle(c);
}

struct coord_exit_wait {
	struct coord *c;
	struct session *s;
};

static void
coord_exit_imported_cb(void *arg, bool finished)
{
	struct coord_exit_wait *x = arg;

	/* The loop is closing: coord_finish has closed the session already. */
	if (!x->c->finished)
		coord_exit_finish(x->c, x->s, finished);
	session_unref(x->s);
	free(x);
}

static void
coord_exit_cb(struct session *s, void *arg)
{
	struct coord *c = arg;
	struct proto_buf b = { 0 };
	size_t i;

	coord_log("session %u (%s) exited with status %d", s->id, s->command, s->status);
	if (s->id == 1)
		lz_trace("session 1 ran (%s)", coord_exec_label(c, s->direct));
	/* A session that dies with its sandbox: say why, in the user's terminal too. */
	coord_limits_check(c);
	if (c->limit_hit != NULL) {
		char *m = xasprintf("lazaret: %s\r\n", c->limit_hit);

		for (i = 0; i < s->n_clients; i++) {
			proto_encode_data(&b, s->id, PROTO_STREAM_ERR, (const uint8_t *)m, strlen(m));
			ctl_server_send(s->clients[i], &b);
		}
		free(m);
	}
	/* What the agent committed is on the host before its client hears of the
	 * exit: `lazaret run ... && git log lazaret/agent-P` sees it. */
	if (c->watch != NULL) {
		struct coord_exit_wait *x = xcalloc(1, sizeof *x);

		x->c = c;
		x->s = s;
		session_ref(s);
		sentry_watch_flush(c->watch, COORD_IMPORT_WAIT_MS, coord_exit_imported_cb, x);
		return;
	}
	coord_exit_finish(c, s, true);
}

static char *
coord_command_text(char **argv)
{
	char *s = NULL, *t;
	size_t i;

	if (argv == NULL || argv[0] == NULL)
		return xstrdup("(shell)");
	for (i = 0; argv[i] != NULL; i++) {
		t = s == NULL ? xstrdup(argv[i]) : xasprintf("%s %s", s, argv[i]);
		free(s);
		s = t;
	}
	return s;
}

/* anc: the Session Anchor of an ESC_NEW_SESSION (NULL: a plain NEW_SESSION). */
void
coord_new_session(struct coord *c, struct ctl_server_client *cl, const uint8_t *p, size_t len,
    const struct esc_ctl_anchor *anc)
{
	struct proto_new_session ns;
	struct session_opts so;
	struct session_cbs cbs = { coord_output_cb, coord_exit_cb, coord_input_cb };
	struct drv_exec ex;
	struct proto_session reply;
	struct proto_buf b = { 0 };
	struct session *s;
	lz_err_t err = LZ_ERR_INIT;
	char **env = NULL, **argv = NULL, *cmd = NULL, *secret = NULL, *spec = NULL;
	char uuid[33];
	unsigned char rnd[16];
	bool direct;
	size_t i;

	if (proto_decode_new_session(p, len, &ns, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	coord_limits_check(c);
	if (c->limit_hit != NULL) {
		ctl_server_send_error(cl, PROTO_E_START, "the sandbox of domain %s was stopped: %s",
		    c->a->hash, c->limit_hit);
		goto out;
	}
	direct = (ns.flags & PROTO_SESSION_DIRECT) != 0;
	if (direct != (c->o->mode == SENTRY_DIRECT)) {
		ctl_server_send_error(cl, PROTO_E_MODE, "domain %s is running in %s mode: stop it "
		    "first with 'lazaret stop' to use --mode %s", c->a->hash,
		    c->o->mode == SENTRY_DIRECT ? "direct" : "isolated",
		    direct ? "direct" : "isolated");
		goto out;
	}
	if (anc != NULL)
		memcpy(rnd, anc->session_id, sizeof rnd);
	else
		randombytes_buf(rnd, sizeof rnd);
	sodium_bin2hex(uuid, sizeof uuid, rnd, sizeof rnd);
	if (anc != NULL && coord_esc_session(c, cl, anc, &secret) < 0)
		goto out;
	if ((ns.flags & PROTO_SESSION_TTY) && ns.term != NULL && ns.term[0] != '\0')
		lz_strv_pushf(&env, "TERM=%s", ns.term);
	lz_strv_pushf(&env, "LAZARET_SESSION_ID=%s", uuid);
	if (anc != NULL && c->esc != NULL && !coord_secret_safe(c))
		lz_strv_pushf(&env, "%s=%s", LZ_CRED_OFF_ENV, coord_exec_label(c, c->direct != NULL));
	for (i = 0; c->layout.env != NULL && c->layout.env[i] != NULL; i++)
		lz_strv_push(&env, c->layout.env[i]);
	memset(&ex, 0, sizeof ex);
	ex.name = c->a->container;
	ex.argv = ns.argv != NULL && ns.argv[0] != NULL ? ns.argv : NULL;
	ex.env = env;
	ex.n_env = lz_strv_len(env);
	ex.workdir = SENTRY_WORKSPACE_DST;
	ex.tty = (ns.flags & PROTO_SESSION_TTY) != 0;
	ex.env_fd3 = secret != NULL;
	/* the holder also drops to the agent user and answers its sudo */
	ex.hold = secret != NULL || c->uid != 0 ? ESC_COORD_BIN_DST : NULL;
	ex.uid = c->uid;
	ex.gid = c->gid;
	/* sandbox-exec or runsc exec straight into the sandbox when the driver
	 * found the way (rexec.c); podman exec otherwise. */
	if (c->direct != NULL ? c->drv->direct_exec(c->direct, &ex, secret, &argv, &spec, &err) < 0 :
	    c->drv->exec_argv(&ex, &argv, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_START, "%s", err.msg);
		goto out;
	}
	cmd = coord_command_text(ns.argv);
	memset(&so, 0, sizeof so);
	so.id = ++c->next_session;
	so.uuid = uuid;
	so.exec_argv = argv;
	so.command = cmd;
	so.tty = ex.tty;
	so.rows = ns.rows;
	so.cols = ns.cols;
	so.fd3 = c->direct != NULL ? spec : secret;
	so.direct = c->direct != NULL;
	if (session_start(c->loop, &so, &cbs, c, &s, &err) < 0) {
		coord_log("session %u: %s", so.id, err.msg);
		ctl_server_send_error(cl, PROTO_E_START, "%s", err.msg);
		if (anc != NULL)
			esc_coord_session_end(c->esc, uuid);
		goto out;
	}
	if (so.id == 1)
		lz_trace("session 1 spawned (%s)", coord_exec_label(c, so.direct));
	/* A workbench session outlives its creator's connection (detach). */
	s->owner = (ns.flags & PROTO_SESSION_KEEP) ? NULL : cl;
	session_attach(s, cl);
	if (s->tty && screen_new(ns.rows, ns.cols, &s->screen, &err) < 0) {
		coord_log("session %u: no screen: %s", s->id, err.msg);
		lz_err_clear(&err);
	}
	c->sessions = xreallocarray(c->sessions, c->n_sessions + 1, sizeof *c->sessions);
	c->sessions[c->n_sessions++] = s;
	coord_log("session %u (%s) started for client %u: pid %ld, %s", s->id, cmd, cl->id,
	    (long)s->pid, s->tty ? "tty" : "pipes");
	reply.id = s->id;
	reply.pid = (uint32_t)s->pid;
	proto_encode_session(&b, &reply);
	ctl_server_send(cl, &b);
	coord_store_session(c, s, false);
	{
		_cleanup_free_ char *who = xasprintf("uid %ld pid %ld", (long)cl->uid, (long)cl->pid);
		struct lz_jsonw w;

		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "id"); lz_jsonw_int(&w, s->id);
		lz_jsonw_key(&w, "command"); lz_jsonw_str(&w, cmd);
		lz_jsonw_key(&w, "pid"); lz_jsonw_int(&w, s->pid);
		lz_jsonw_key(&w, "tty"); lz_jsonw_bool(&w, s->tty);
		coord_audit(c, "session.start", who, s->uuid, &w);
	}
out:
	lz_err_clear(&err);
	if (secret != NULL)
		explicit_bzero(secret, strlen(secret));
	free(secret);
	if (spec != NULL)
		explicit_bzero(spec, strlen(spec));
	free(spec);
	lz_strv_free(env);
	lz_strv_free(argv);
	free(cmd);
	proto_new_session_clear(&ns);
}

static int
coord_esc_session(struct coord *c, struct ctl_server_client *cl,
    const struct esc_ctl_anchor *anc, char **secret)
{
	lz_err_t err = LZ_ERR_INIT;

	if (c->esc == NULL)
		return 0;	/* escalation disabled: the session simply has no credential */
	if (!coord_secret_safe(c))
		return 0;	/* it would sit in the session's environment: none (logged at start) */
	if (esc_coord_session(c->esc, anc, secret, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_START, "%s", err.msg);
		lz_err_clear(&err);
		return -1;
	}
	return 0;
}


/* Client events. */

void
coord_connect_cb(struct ctl_server_client *cl, void *arg)
{
	struct coord *c = arg;

	c->had_client = true;
	uv_timer_stop(&c->idle);
	coord_log("client %u connected (pid %ld)", cl->id, (long)cl->pid);
}

void
coord_disconnect_cb(struct ctl_server_client *cl, void *arg)
{
	struct coord *c = arg;
	size_t i;

	coord_log("client %u disconnected", cl->id);
	coord_net_client_gone(c, cl);
	coord_netreq_client_gone(c, cl);
	coord_esc_client_gone(c, cl);
	for (i = 0; i < c->n_sessions; i++) {
		struct session *s = c->sessions[i];
		bool owner = s->owner == cl;

		session_detach(s, cl);
		/* `lazaret run` ends its session when it exits, unless it detached. */
		if (owner)
			session_kill(s);
		else if (s->paused)
			session_pause(s, false);
	}
	c->check_idle(c);
}

void
coord_drain_cb(struct ctl_server_client *cl, void *arg)
{
	struct coord *c = arg;
	size_t i, k;
	bool high;

	for (i = 0; i < c->n_sessions; i++) {
		struct session *s = c->sessions[i];

		if (!s->paused || !session_has_client(s, cl))
			continue;
		high = false;
		for (k = 0; k < s->n_clients; k++)
			if (s->clients[k]->queued >= CTL_SERVER_LOW_WATER)
				high = true;
		if (!high)
			session_pause(s, false);
	}
}
