/* coord.c - the Session Coordinator daemon.
 *
 * Theory of operation. Start-up runs synchronously before the loop: Domain
 * Root, log, lifetime lock, state store, image check, workspace mounts
 * (sentry), container, control socket; any failure undoes what was done and
 * reports the message through the ready pipe. Then one libuv loop serves the
 * clients (ctl-server.c) and the sessions (session.c). Every session has an
 * owner (the client that created it) and attached clients; the owner leaving
 * ends the session unless it detached first. When no session and no client
 * is left (after a short linger, so that a follower that is just connecting
 * is not turned away), or on SIGINT/SIGTERM/STOP, the coordinator stops
 * listening, ends every session, flushes and closes every client, closes all
 * handles (uv_walk) and runs the loop out; only then does it remove the
 * container, release the mounts and close the store, off the loop.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "store/audit-text.h"
#include "coord/coord.h"
#include "coord/ctl-server.h"
#include "sandbox/driver.h"
#include "escalation/esc-coord.h"
#include "jsonw.h"
#include "coord/lock.h"
#include "coord/note.h"
#include "sandbox/overlay.h"
#include "proto.h"
#include "coord/screen.h"
#include "coord/session.h"
#include "store/store.h"
#include "strv.h"
#include "xmalloc.h"

#define COORD_LINGER_MS		500	/* idle -> teardown */
#define COORD_FIRST_CLIENT_MS	30000	/* nobody came: the leader died */
#define COORD_STOP_MS		5000	/* sessions that ignore SIGTERM+SIGKILL */
#define COORD_DEFAULT_IMAGE	"localhost/lazaret-default:latest"

struct coord {
	uv_loop_t *loop;
	const struct coord_opts *o;
	const struct anchor *a;
	const struct drv_ops *drv;
	struct store *store;
	struct sentry_layout layout;
	bool layout_ok;
	struct drv_mount *ovl;	/* State Anchor binds (overlay.c) */
	size_t n_ovl;
	bool ovl_ok;
	bool container_ours;	/* created (or adopted) by us: remove at teardown */
	struct ctl_server *srv;
	struct esc_coord *esc;	/* Host Escalation (esc-coord.c); NULL when disabled */
	uv_signal_t sig_int, sig_term, sig_hup;
	uv_timer_t idle;
	uv_timer_t stop_timer;
	struct session **sessions;
	size_t n_sessions;
	uint32_t next_session;
	bool had_client;
	bool stopping;
	bool finished;
	int live_fd;
	int64_t started_ms;
};

/* A STATUS request waiting on the threadpool (podman inspect). */
struct coord_status_job {
	uv_work_t req;
	struct coord *c;
	struct ctl_server_client *client;
	enum proto_status_fmt fmt;
	enum drv_state state;
	bool state_ok;
};

/* A session record for the store. */
struct coord_store_job {
	char uuid[33];
	char *profile, *workspace;
	int64_t pid, ts;
	int status;
	bool end;
};

static void coord_check_idle(struct coord *);
static void coord_shutdown(struct coord *, const char *why);
static int coord_esc_session(struct coord *, struct ctl_server_client *,
    const struct esc_ctl_anchor *, char ***env);

static void __attribute__((format(printf, 1, 2)))
coord_log(const char *fmt, ...)
{
	char ts[32];
	struct tm tm;
	struct timespec now;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &now);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", gmtime_r(&now.tv_sec, &tm));
	fprintf(stderr, "%s.%03ldZ coordinator[%ld]: ", ts, now.tv_nsec / 1000000, (long)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

static int64_t
coord_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *
coord_live_lock_path(const struct anchor *a)
{
	size_t n = strlen(a->ctl_socket);

	LZ_ASSERT(n > 4 && strcmp(a->ctl_socket + n - 4, ".ctl") == 0);
	return xasprintf("%.*s.lock", (int)(n - 4), a->ctl_socket);
}

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

static struct session *
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
	/* The session's screen is fed attached or not: ATTACH sends it. */
	if (s->screen != NULL)
		screen_feed(s->screen, buf, len);
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

static void
coord_exit_cb(struct session *s, void *arg)
{
	struct coord *c = arg;
	struct proto_exit e = { s->id, s->status };
	struct proto_buf b = { 0 };
	size_t i;

	coord_log("session %u (%s) exited with status %d", s->id, s->command, s->status);
	for (i = 0; i < s->n_clients; i++) {
		ctl_server_client_pause(s->clients[i], false);
		proto_encode_exit(&b, &e);
		ctl_server_send(s->clients[i], &b);
	}
	coord_store_session(c, s, true);
	esc_coord_session_end(c->esc, s->uuid);
	coord_session_remove(c, s);
	screen_free(s->screen);
	s->screen = NULL;
	session_close(s);
	session_unref(s);
	if (c->stopping && c->n_sessions == 0)
		coord_shutdown(c, NULL);
	else
		coord_check_idle(c);
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
static void
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
	char **env = NULL, **argv = NULL, *cmd = NULL;
	char uuid[33];
	unsigned char rnd[16];
	bool direct;
	size_t i;

	if (proto_decode_new_session(p, len, &ns, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return;
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
	if (anc != NULL && coord_esc_session(c, cl, anc, &env) < 0)
		goto out;
	if ((ns.flags & PROTO_SESSION_TTY) && ns.term != NULL && ns.term[0] != '\0')
		lz_strv_pushf(&env, "TERM=%s", ns.term);
	lz_strv_pushf(&env, "LAZARET_SESSION_ID=%s", uuid);
	for (i = 0; c->layout.env != NULL && c->layout.env[i] != NULL; i++)
		lz_strv_push(&env, c->layout.env[i]);
	memset(&ex, 0, sizeof ex);
	ex.name = c->a->container;
	ex.argv = ns.argv != NULL && ns.argv[0] != NULL ? ns.argv : NULL;
	ex.env = env;
	ex.n_env = lz_strv_len(env);
	ex.workdir = SENTRY_WORKSPACE_DST;
	ex.tty = (ns.flags & PROTO_SESSION_TTY) != 0;
	if (c->drv->exec_argv(&ex, &argv, &err) < 0) {
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
	if (session_start(c->loop, &so, &cbs, c, &s, &err) < 0) {
		coord_log("session %u: %s", so.id, err.msg);
		ctl_server_send_error(cl, PROTO_E_START, "%s", err.msg);
		if (anc != NULL)
			esc_coord_session_end(c->esc, uuid);
		goto out;
	}
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
out:
	lz_err_clear(&err);
	lz_strv_free(env);
	lz_strv_free(argv);
	free(cmd);
	proto_new_session_clear(&ns);
}

/* Host Escalation hooks (esc-coord.c does the work). */

static void
coord_esc_route_cb(const char *uuid, struct proto_buf *b, void *arg)
{
	struct coord *c = arg;
	struct proto_buf copy;
	size_t i, k;

	for (i = 0; i < c->n_sessions; i++) {
		struct session *s = c->sessions[i];

		if (strcmp(s->uuid, uuid) != 0)
			continue;
		for (k = 0; k < s->n_clients; k++) {
			copy.data = xmalloc(b->len);
			memcpy(copy.data, b->data, b->len);
			copy.len = copy.cap = b->len;
			/* Only we know the session's number: a workbench has many on
			 * one connection. ESC_PROMPT's payload starts with it. */
			if (copy.len >= PROTO_HEADER_LEN + 4 && copy.data[6] == ESC_CTL_PROMPT >> 8 &&
			    copy.data[7] == (ESC_CTL_PROMPT & 0xff)) {
				uint32_t id = htonl(s->id);

				memcpy(copy.data + PROTO_HEADER_LEN, &id, 4);
			}
			ctl_server_send(s->clients[k], &copy);
		}
	}
	proto_buf_clear(b);
}

static bool
coord_esc_attached_cb(const char *uuid, struct ctl_server_client *cl, void *arg)
{
	struct coord *c = arg;
	size_t i;

	for (i = 0; i < c->n_sessions; i++)
		if (strcmp(c->sessions[i]->uuid, uuid) == 0 && session_has_client(c->sessions[i], cl))
			return true;
	return false;
}

static void
coord_esc_quit_cb(void *arg)
{
	coord_shutdown(arg, "the user chose [Q]uit at an escalation prompt");
}

static void
coord_esc_log_cb(const char *msg, void *arg)
{
	(void)arg;
	coord_log("%s", msg);
}

static int
coord_esc_start(struct coord *c, lz_err_t *err)
{
	struct esc_coord_opts eo;
	size_t i;

	memset(&eo, 0, sizeof eo);
	eo.loop = c->loop;
	eo.a = c->a;
	eo.cfg = c->o->cfg;
	eo.store = c->store;
	for (i = 0; i < c->layout.n_mounts; i++)
		if (strcmp(c->layout.mounts[i].dst, SENTRY_WORKSPACE_DST) == 0)
			eo.host_workspace = c->layout.mounts[i].src;
	if (eo.host_workspace == NULL)
		return lz_err_set(err, ENOENT, "no workspace mount for escalation");
	eo.route_cb = coord_esc_route_cb;
	eo.attached_cb = coord_esc_attached_cb;
	eo.quit_cb = coord_esc_quit_cb;
	eo.log_cb = coord_esc_log_cb;
	eo.arg = c;
	return esc_coord_new(&eo, &c->esc, err);
}

static int
coord_esc_session(struct coord *c, struct ctl_server_client *cl,
    const struct esc_ctl_anchor *anc, char ***env)
{
	lz_err_t err = LZ_ERR_INIT;

	if (c->esc == NULL)
		return 0;	/* escalation disabled: the session simply has no credential */
	if (esc_coord_session(c->esc, anc, env, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_START, "%s", err.msg);
		lz_err_clear(&err);
		return -1;
	}
	return 0;
}

static void
coord_esc_frame(struct coord *c, struct ctl_server_client *cl, const struct proto_header *h,
    const uint8_t *p)
{
	struct esc_ctl_anchor anc;
	lz_err_t err = LZ_ERR_INIT;
	const uint8_t *ns;
	size_t ns_len;

	switch (h->type) {
	case ESC_CTL_NEW_SESSION:
		if (c->stopping) {
			ctl_server_send_error(cl, PROTO_E_SHUTDOWN, "the coordinator of domain %s "
			    "is shutting down", c->a->hash);
			break;
		}
		if (esc_ctl_decode_new_session(p, h->length, &anc, &ns, &ns_len, &err) < 0) {
			ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
			break;
		}
		coord_new_session(c, cl, ns, ns_len, &anc);
		esc_ctl_anchor_clear(&anc);
		break;
	case ESC_CTL_DECISION:
		if (c->esc != NULL)
			esc_coord_decision(c->esc, cl, p, h->length);
		break;
	case ESC_CTL_AUDIT_REQ:
		audit_text_serve(c->loop, c->store, cl, p, h->length);
		break;
	default:
		ctl_server_send_error(cl, PROTO_E_STATE, "%s is not a request",
		    proto_type_name(h->type));
		break;
	}
	lz_err_clear(&err);
}

/* Status. */

static const char *
coord_state_name(const struct coord_status_job *j)
{
	if (!j->state_ok)
		return "unknown";
	switch (j->state) {
	case DRV_STATE_ABSENT: return "absent";
	case DRV_STATE_RUNNING: return "running";
	case DRV_STATE_STOPPED: return "stopped";
	}
	return "unknown";
}

/* Clients other than the one asking. */
static size_t
coord_other_clients(const struct coord *c)
{
	size_t n = ctl_server_clients(c->srv);

	return n > 0 ? n - 1 : 0;
}

static char *
coord_status_text(struct coord *c, const struct coord_status_job *j)
{
	int64_t up = (coord_now_ms() - c->started_ms) / 1000;
	struct lz_jsonw w;
	char *s, *t;
	size_t i;

	switch (j->fmt) {
	case PROTO_STATUS_JSON:
		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "running"); lz_jsonw_bool(&w, true);
		lz_jsonw_key(&w, "domain_hash"); lz_jsonw_str(&w, c->a->hash);
		lz_jsonw_key(&w, "profile"); lz_jsonw_str(&w, c->a->profile);
		lz_jsonw_key(&w, "workspace"); lz_jsonw_str(&w, c->a->workspace);
		lz_jsonw_key(&w, "mode");
		lz_jsonw_str(&w, c->o->mode == SENTRY_DIRECT ? "direct" : "isolated");
		lz_jsonw_key(&w, "coordinator_pid"); lz_jsonw_int(&w, getpid());
		lz_jsonw_key(&w, "uptime_s"); lz_jsonw_int(&w, up);
		lz_jsonw_key(&w, "control_socket"); lz_jsonw_str(&w, c->a->ctl_socket);
		lz_jsonw_key(&w, "container");
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "name"); lz_jsonw_str(&w, c->a->container);
		lz_jsonw_key(&w, "state"); lz_jsonw_str(&w, coord_state_name(j));
		lz_jsonw_obj_close(&w);
		lz_jsonw_key(&w, "clients"); lz_jsonw_int(&w, (int64_t)coord_other_clients(c));
		lz_jsonw_key(&w, "sessions");
		lz_jsonw_arr_open(&w);
		for (i = 0; i < c->n_sessions; i++) {
			const struct session *ss = c->sessions[i];

			lz_jsonw_obj_open(&w);
			lz_jsonw_key(&w, "id"); lz_jsonw_int(&w, ss->id);
			lz_jsonw_key(&w, "session_id"); lz_jsonw_str(&w, ss->uuid);
			lz_jsonw_key(&w, "pid"); lz_jsonw_int(&w, ss->pid);
			lz_jsonw_key(&w, "command"); lz_jsonw_str(&w, ss->command);
			lz_jsonw_key(&w, "tty"); lz_jsonw_bool(&w, ss->tty);
			lz_jsonw_key(&w, "clients"); lz_jsonw_int(&w, (int64_t)ss->n_clients);
			lz_jsonw_key(&w, "started_ms"); lz_jsonw_int(&w, ss->started_ms);
			lz_jsonw_obj_close(&w);
		}
		lz_jsonw_arr_close(&w);
		lz_jsonw_obj_close(&w);
		return lz_jsonw_steal(&w);
	case PROTO_STATUS_ROW:
		return xasprintf("%s\t%s\t%s\t%s\t%s\t%zu\t%zu\t%lld\t%s", c->a->hash, c->a->profile,
		    c->a->container, coord_state_name(j),
		    c->o->mode == SENTRY_DIRECT ? "direct" : "isolated", c->n_sessions,
		    coord_other_clients(c), (long long)up, c->a->workspace);
	case PROTO_STATUS_TEXT:
		break;
	}
	s = xasprintf("domain:      %s\nprofile:     %s\nworkspace:   %s\nmode:        %s\n"
	    "container:   %s (%s)\ncoordinator: pid %ld, up %llds\nclients:     %zu\n"
	    "sessions:    %zu\n", c->a->hash, c->a->profile, c->a->workspace,
	    c->o->mode == SENTRY_DIRECT ? "direct" : "isolated", c->a->container,
	    coord_state_name(j), (long)getpid(), (long long)up, coord_other_clients(c),
	    c->n_sessions);
	if (c->n_sessions > 0) {
		t = xasprintf("%s  %-4s %-8s %-7s %-4s %s\n", s, "ID", "PID", "CLIENTS", "TTY",
		    "COMMAND");
		free(s);
		s = t;
	}
	for (i = 0; i < c->n_sessions; i++) {
		const struct session *ss = c->sessions[i];

		t = xasprintf("%s  %-4u %-8ld %-7zu %-4s %s\n", s, ss->id, (long)ss->pid,
		    ss->n_clients, ss->tty ? "yes" : "no", ss->command);
		free(s);
		s = t;
	}
	return s;
}

static void
coord_status_work_cb(uv_work_t *req)
{
	struct coord_status_job *j = req->data;
	lz_err_t err = LZ_ERR_INIT;

	j->state_ok = j->c->drv->inspect(j->c->a->container, &j->state, &err) == 0;
	lz_err_clear(&err);
}

static void
coord_status_after_cb(uv_work_t *req, int status)
{
	struct coord_status_job *j = req->data;
	struct proto_buf b = { 0 };
	char *text;

	(void)status;
	if (!j->client->closing) {
		text = coord_status_text(j->c, j);
		proto_encode_status(&b, text);
		free(text);
		ctl_server_send(j->client, &b);
	}
	ctl_server_client_unref(j->client);
	free(j);
}

static void
coord_status(struct coord *c, struct ctl_server_client *cl, enum proto_status_fmt fmt)
{
	struct coord_status_job *j = xcalloc(1, sizeof *j);

	j->c = c;
	j->client = cl;
	j->fmt = fmt;
	j->req.data = j;
	ctl_server_client_ref(cl);
	if (uv_queue_work(c->loop, &j->req, coord_status_work_cb, coord_status_after_cb) != 0) {
		coord_status_after_cb(&j->req, -1);
	}
}

/* Client events. */

static void
coord_connect_cb(struct ctl_server_client *cl, void *arg)
{
	struct coord *c = arg;

	c->had_client = true;
	uv_timer_stop(&c->idle);
	coord_log("client %u connected (pid %ld)", cl->id, (long)cl->pid);
}

static void
coord_disconnect_cb(struct ctl_server_client *cl, void *arg)
{
	struct coord *c = arg;
	size_t i;

	coord_log("client %u disconnected", cl->id);
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
	coord_check_idle(c);
}

static void
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

/* The session's current screen for an attaching client, appended to b. */
static void
coord_snapshot(struct session *s, struct proto_buf *b)
{
	lz_err_t err = LZ_ERR_INIT;
	uint8_t *snap;
	size_t len;

	if (s->screen == NULL)
		return;
	if (screen_snapshot(s->screen, PROTO_MAX_PAYLOAD - 4, &snap, &len, &err) < 0) {
		coord_log("session %u: snapshot: %s", s->id, err.msg);
		lz_err_clear(&err);
		return;
	}
	proto_encode_snapshot(b, s->id, snap, len);
	free(snap);
}

static struct session *
coord_client_session(struct coord *c, struct ctl_server_client *cl, uint32_t id)
{
	struct session *s = coord_session_find(c, id);

	if (s == NULL || !session_has_client(s, cl)) {
		ctl_server_send_error(cl, PROTO_E_NO_SESSION, "no session %u attached", id);
		return NULL;
	}
	return s;
}

static struct session *
coord_note_session(void *arg, struct ctl_server_client *cl, uint32_t id)
{
	return coord_client_session(arg, cl, id);
}

static void
coord_frame_cb(struct ctl_server_client *cl, const struct proto_header *h, const uint8_t *p,
    void *arg)
{
	struct coord *c = arg;
	struct proto_buf b = { 0 };
	struct proto_session reply;
	struct proto_data d;
	struct proto_resize rz;
	enum proto_status_fmt fmt;
	struct session *s;
	lz_err_t err = LZ_ERR_INIT;
	uint32_t id;

	if (h->type == PROTO_NOTE) {
		note_serve(c->loop, c->store, cl, p, h->length, coord_note_session, c);
		return;
	}
	if (h->type >= ESC_CTL_NEW_SESSION && h->type <= ESC_CTL_AUDIT) {
		coord_esc_frame(c, cl, h, p);
		return;
	}
	switch ((enum proto_type)h->type) {
	case PROTO_NEW_SESSION:
		if (c->stopping) {
			ctl_server_send_error(cl, PROTO_E_SHUTDOWN, "the coordinator of domain %s "
			    "is shutting down", c->a->hash);
			break;
		}
		coord_new_session(c, cl, p, h->length, NULL);
		break;
	case PROTO_ATTACH:
		if (proto_decode_u32(p, h->length, &id, &err) < 0)
			goto bad;
		if ((s = coord_session_find(c, id)) == NULL) {
			ctl_server_send_error(cl, PROTO_E_NO_SESSION, "no session %u", id);
			break;
		}
		session_attach(s, cl);
		reply.id = s->id;
		reply.pid = (uint32_t)s->pid;
		proto_encode_session(&b, &reply);
		coord_snapshot(s, &b);
		ctl_server_send(cl, &b);
		esc_coord_attach(c->esc, s->uuid);
		break;
	case PROTO_KILL:
		if (proto_decode_u32(p, h->length, &id, &err) < 0)
			goto bad;
		if ((s = coord_client_session(c, cl, id)) != NULL) {
			coord_log("client %u ends session %u", cl->id, id);
			session_kill(s);
		}
		break;
	case PROTO_DATA:
		if (proto_decode_data(p, h->length, &d, &err) < 0)
			goto bad;
		if ((s = coord_client_session(c, cl, d.id)) != NULL)
			session_write(s, d.data, d.len);
		break;
	case PROTO_EOF:
		if (proto_decode_eof(p, h->length, &id, &err) < 0)
			goto bad;
		if ((s = coord_client_session(c, cl, id)) != NULL)
			session_eof(s);
		break;
	case PROTO_RESIZE:
		if (proto_decode_resize(p, h->length, &rz, &err) < 0)
			goto bad;
		if ((s = coord_client_session(c, cl, rz.id)) == NULL)
			break;
		if (session_resize(s, rz.rows, rz.cols, &err) < 0)
			coord_log("session %u: resize: %s", s->id, err.msg);
		else if (s->screen != NULL && screen_resize(s->screen, rz.rows, rz.cols, &err) < 0)
			coord_log("session %u: screen resize: %s", s->id, err.msg);
		break;
	case PROTO_DETACH:
		if (proto_decode_u32(p, h->length, &id, &err) < 0)
			goto bad;
		if ((s = coord_client_session(c, cl, id)) != NULL) {
			session_detach(s, cl);
			proto_encode_ok(&b, id);
			ctl_server_send(cl, &b);
		}
		break;
	case PROTO_STATUS_REQ:
		if (proto_decode_status_req(p, h->length, &fmt, &err) < 0)
			goto bad;
		coord_status(c, cl, fmt);
		break;
	case PROTO_LIST:
		coord_status(c, cl, PROTO_STATUS_JSON);
		break;
	case PROTO_STOP:
		coord_log("client %u asked to stop", cl->id);
		proto_encode_ok(&b, 0);
		ctl_server_send(cl, &b);
		coord_shutdown(c, "stop requested");
		break;
	case PROTO_ERROR:
		break;
	case PROTO_HELLO:
	case PROTO_OK:
	case PROTO_SESSION:
	case PROTO_SESSION_EXIT:
	case PROTO_STATUS:
	case PROTO_SNAPSHOT:
	default:
		ctl_server_send_error(cl, PROTO_E_STATE, "%s is not a request",
		    proto_type_name(h->type));
		break;
	}
	lz_err_clear(&err);
	return;
bad:
	ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
	lz_err_clear(&err);
}

/* Lifetime. */

static void
coord_idle_cb(uv_timer_t *t)
{
	struct coord *c = t->data;

	if (c->n_sessions == 0 && ctl_server_clients(c->srv) == 0)
		coord_shutdown(c, c->had_client ? "no session and no client left" :
		    "no client came");
}

static void
coord_check_idle(struct coord *c)
{
	if (c->stopping || c->n_sessions > 0 || ctl_server_clients(c->srv) > 0)
		return;
	uv_timer_start(&c->idle, coord_idle_cb,
	    c->had_client ? COORD_LINGER_MS : COORD_FIRST_CLIENT_MS, 0);
}

static void
coord_walk_close_cb(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* Close every session, client and handle; the loop then runs out. */
static void
coord_finish(struct coord *c)
{
	size_t i;

	if (c->finished)
		return;
	c->finished = true;
	for (i = 0; i < c->n_sessions; i++) {
		screen_free(c->sessions[i]->screen);
		c->sessions[i]->screen = NULL;
		session_close(c->sessions[i]);
		session_unref(c->sessions[i]);
	}
	c->n_sessions = 0;
	esc_coord_close(c->esc);
	ctl_server_shutdown(c->srv);
	uv_close((uv_handle_t *)&c->sig_int, NULL);
	uv_close((uv_handle_t *)&c->sig_term, NULL);
	uv_close((uv_handle_t *)&c->sig_hup, NULL);
	uv_close((uv_handle_t *)&c->idle, NULL);
	uv_close((uv_handle_t *)&c->stop_timer, NULL);
}

static void
coord_stop_timer_cb(uv_timer_t *t)
{
	struct coord *c = t->data;

	coord_log("%zu session(s) did not end in time", c->n_sessions);
	coord_finish(c);
}

/* First call: stop listening and end every session; the last session's exit
 * (or the stop timer) then finishes. why NULL: called again from an exit. */
static void
coord_shutdown(struct coord *c, const char *why)
{
	size_t i;

	if (c->stopping) {
		if (c->n_sessions == 0)
			coord_finish(c);
		return;
	}
	c->stopping = true;
	coord_log("tearing down: %s", why != NULL ? why : "");
	ctl_server_stop(c->srv);
	uv_timer_stop(&c->idle);
	for (i = 0; i < c->n_sessions; i++)
		session_kill(c->sessions[i]);
	if (c->n_sessions > 0)
		uv_timer_start(&c->stop_timer, coord_stop_timer_cb, COORD_STOP_MS, 0);
	else
		coord_finish(c);
}

static void
coord_signal_cb(uv_signal_t *h, int signum)
{
	struct coord *c = h->data;

	if (signum == SIGHUP)
		return;
	coord_shutdown(c, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

/* Start-up pieces. */

static int
coord_mkdir_p(const char *path, lz_err_t *err)
{
	char *p = xstrdup(path), *s;
	int ret = 0;

	for (s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char was = *s;

		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			ret = lz_err_sys(err, errno, "cannot create %s", p);
			break;
		}
		if (was == '\0')
			break;
		*s = was;
	}
	free(p);
	return ret;
}

static int
coord_open_log(const struct anchor *a, lz_err_t *err)
{
	char *path = xasprintf("%s/coordinator.log", a->domain_root);
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		lz_err_sys(err, errno, "cannot open %s", path);
		free(path);
		return -1;
	}
	free(path);
	/* dup2 clears close-on-exec: sessions get the PTY, not the log, anyway. */
	if (dup2(fd, STDERR_FILENO) < 0) {
		close(fd);
		return lz_err_sys(err, errno, "dup2");
	}
	close(fd);
	return 0;
}

static int
coord_check_image(struct coord *c, const char *image, lz_err_t *err)
{
	bool exists;

	if (c->drv->image_exists(image, &exists, err) < 0)
		return -1;
	if (exists)
		return 0;
	if (strcmp(image, COORD_DEFAULT_IMAGE) == 0)
		return lz_err_set(err, ENOENT, "image %s not found: build it with "
		    "'lazaret image build-default'", image);
	return lz_err_set(err, ENOENT, "image %s not found locally (no registry is used): "
	    "build or load it with podman, or use the default image ('lazaret image "
	    "build-default')", image);
}

static void
coord_spec_add_mount(struct drv_spec *sp, const struct drv_mount *m)
{
	struct drv_mount *d;

	sp->mounts = xreallocarray(sp->mounts, sp->n_mounts + 1, sizeof *sp->mounts);
	d = &sp->mounts[sp->n_mounts++];
	d->type = m->type;
	d->src = m->src != NULL ? xstrdup(m->src) : NULL;
	d->dst = xstrdup(m->dst);
	d->ro = m->ro;
	d->opts = m->opts != NULL ? xstrdup(m->opts) : NULL;
}

static int
coord_create_container(struct coord *c, lz_err_t *err)
{
	const struct cfg_resolved *r = c->o->resolved;
	struct drv_spec *sp;
	size_t i;
	int ret = -1;

	sp = xcalloc(1, sizeof *sp);
	sp->name = xstrdup(c->a->container);
	sp->image = xstrdup(r->profile->image);
	sp->network = xstrdup("none");	/* until the sidecar exists */
	sp->workdir = xstrdup(SENTRY_WORKSPACE_DST);
	for (i = 0; i < r->n_env; i++) {
		sp->env = xreallocarray(sp->env, sp->n_env + 1, sizeof *sp->env);
		sp->env[sp->n_env++] = xstrdup(r->env[i]);
	}
	for (i = 0; i < c->layout.n_mounts; i++)
		coord_spec_add_mount(sp, &c->layout.mounts[i]);
	for (i = 0; i < c->n_ovl; i++)
		coord_spec_add_mount(sp, &c->ovl[i]);
	if (c->esc != NULL && esc_coord_spec(c->esc, sp, err) < 0)
		goto out;
	for (i = 0; i < r->n_volumes; i++) {
		struct drv_mount m = {
			.type = DRV_MOUNT_BIND, .src = r->volumes[i].host,
			.dst = r->volumes[i].container,
			.ro = r->volumes[i].mode != NULL && strstr(r->volumes[i].mode, "ro") != NULL,
		};

		coord_spec_add_mount(sp, &m);
	}
	sp->labels = xcalloc(2, sizeof *sp->labels);
	sp->labels[sp->n_labels++] = xasprintf("lazaret.domain=%s", c->a->hash);
	sp->labels[sp->n_labels++] = xasprintf("lazaret.profile=%s", c->a->profile);
	coord_log("creating container %s from %s", sp->name, sp->image);
	/* Mark it ours first: a create that half-worked is removed too. */
	c->container_ours = true;
	/* Create first, look only on a name conflict: one podman call fewer cold. */
	if (c->drv->create(sp, err) < 0) {
		if (err->code != EEXIST)
			goto out;
		/* A container left behind by a coordinator that died (we hold the
		 * domain's lifetime lock, so its owner is gone) has lost every session
		 * with its PTYs, and its escalation socket and TLS mounts point at the
		 * dead coordinator's files: replace it rather than adopt it. */
		lz_err_clear(err);
		coord_log("removing container %s left by a previous coordinator", sp->name);
		if (c->drv->remove(sp->name, err) < 0 || c->drv->create(sp, err) < 0)
			goto out;
	}
	ret = 0;
out:
	drv_spec_free(sp);
	return ret;
}

/* Undo start-up, in reverse; used after the loop and on a failed start. */
static void
coord_teardown(struct coord *c)
{
	lz_err_t err = LZ_ERR_INIT;

	if (c->container_ours) {
		coord_log("removing container %s", c->a->container);
		if (c->drv->remove(c->a->container, &err) < 0) {
			coord_log("%s", err.msg);
			lz_err_clear(&err);
		}
		c->container_ours = false;
	}
	if (c->ovl_ok) {
		if (overlay_unmount(c->a, &err) < 0) {
			coord_log("%s", err.msg);
			lz_err_clear(&err);
		}
		c->ovl_ok = false;
	}
	while (c->n_ovl > 0)
		drv_mount_clear(&c->ovl[--c->n_ovl]);
	free(c->ovl);
	c->ovl = NULL;
	if (c->layout_ok) {
		if (sentry_release(c->a, &err) < 0) {
			coord_log("%s", err.msg);
			lz_err_clear(&err);
		}
		sentry_layout_clear(&c->layout);
		c->layout_ok = false;
	}
	esc_coord_free(c->esc);
	c->esc = NULL;
	if (c->store != NULL) {
		store_close(c->store);
		c->store = NULL;
	}
}

static void
coord_ready(int fd, const lz_err_t *err)
{
	ssize_t n;

	if (fd < 0)
		return;
	if (err != NULL && err->msg != NULL)
		n = write(fd, err->msg, strlen(err->msg));
	else
		n = 0;
	(void)n;
	close(fd);
}

static int
coord_start(struct coord *c, lz_err_t *err)
{
	const struct anchor *a = c->a;
	const char *socket_dir_end = strrchr(a->ctl_socket, '/');
	char *socket_dir = xstrndup(a->ctl_socket, (size_t)(socket_dir_end - a->ctl_socket));
	char *live = NULL;
	static const struct ctl_server_cbs cbs = {
		coord_connect_cb, coord_frame_cb, coord_disconnect_cb, coord_drain_cb,
	};
	int r, ret = -1;

	if (coord_mkdir_p(a->domain_root, err) < 0)
		goto out;
	if (coord_open_log(a, err) < 0)
		goto out;
	coord_log("starting for domain %s (profile %s, workspace %s)", a->hash, a->profile,
	    a->workspace);
	if (ctl_server_dir_check(socket_dir, true, err) < 0)
		goto out;
	live = coord_live_lock_path(a);
	if (lock_open(live, &c->live_fd, err) < 0)
		goto out;
	/* Wait a little: a `lazaret ls` may be probing the lock this instant. */
	if ((r = lock_wait(c->live_fd, 2000, err)) <= 0) {
		if (r == 0)
			lz_err_set(err, EBUSY, "another coordinator is running for domain %s",
			    a->hash);
		goto out;
	}
	if (store_open(a->state_db, &c->store, err) < 0)
		goto out;
	if (coord_check_image(c, c->o->resolved->profile->image, err) < 0)
		goto out;
	if (sentry_prepare(a, c->o->mode, &c->layout, err) < 0)
		goto out;
	c->layout_ok = true;
	if (c->layout.notice != NULL)
		coord_log("%s", c->layout.notice);
	/* Marked before the call: a half-made mount set is unmounted too. */
	c->ovl_ok = true;
	if (overlay_mount(a, c->o->resolved->profile->image, c->o->resolved->profile->persistent_dirs,
	    c->o->resolved->profile->n_persistent_dirs, &c->ovl, &c->n_ovl, err) < 0)
		goto out;
	/* Before the container: the socket and TLS files must exist to be mounted. */
	if (c->o->cfg->esc_enabled && coord_esc_start(c, err) < 0)
		goto out;
	if (coord_create_container(c, err) < 0)
		goto out;
	if (ctl_server_listen(c->loop, a->ctl_socket, &cbs, c, &c->srv, err) < 0)
		goto out;
	ret = 0;
out:
	free(live);
	free(socket_dir);
	return ret;
}

int
coord_main(const struct coord_opts *o, lz_err_t *err)
{
	struct coord c;
	uv_loop_t loop;
	int ret = -1;

	memset(&c, 0, sizeof c);
	c.o = o;
	c.a = o->anchor;
	c.drv = &podman_ops;
	c.live_fd = -1;
	c.started_ms = coord_now_ms();
	if (sodium_init() < 0)
		return lz_err_set(err, EINVAL, "libsodium failed to initialise");
	signal(SIGPIPE, SIG_IGN);
	uv_loop_init(&loop);
	c.loop = &loop;
	uv_timer_init(&loop, &c.idle);
	c.idle.data = &c;
	uv_timer_init(&loop, &c.stop_timer);
	c.stop_timer.data = &c;
	uv_signal_init(&loop, &c.sig_int);
	uv_signal_init(&loop, &c.sig_term);
	uv_signal_init(&loop, &c.sig_hup);
	c.sig_int.data = c.sig_term.data = c.sig_hup.data = &c;
	/* Signals first: a SIGTERM during start-up still tears down cleanly. */
	uv_signal_start(&c.sig_int, coord_signal_cb, SIGINT);
	uv_signal_start(&c.sig_term, coord_signal_cb, SIGTERM);
	uv_signal_start(&c.sig_hup, coord_signal_cb, SIGHUP);
	if (coord_start(&c, err) < 0) {
		coord_log("start-up failed: %s", err->msg);
		coord_ready(o->ready_fd, err);
		esc_coord_close(c.esc);
		uv_walk(&loop, coord_walk_close_cb, NULL);
		uv_run(&loop, UV_RUN_DEFAULT);
		coord_teardown(&c);
		goto out;
	}
	coord_log("listening on %s", c.a->ctl_socket);
	coord_ready(o->ready_fd, NULL);
	coord_check_idle(&c);
	uv_run(&loop, UV_RUN_DEFAULT);
	/* Anything still open (work requests finish first) is closed here. */
	uv_walk(&loop, coord_walk_close_cb, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	coord_teardown(&c);
	coord_log("stopped");
	ret = 0;
out:
	ctl_server_free(c.srv);
	free(c.sessions);
	if (uv_loop_close(&loop) != 0)
		coord_log("loop not empty at exit");
	if (c.live_fd >= 0)
		close(c.live_fd);
	return ret;
}
