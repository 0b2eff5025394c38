/* coord-esc.c - the coordinator's Host Escalation hooks (esc-coord.c does
 * the work): who sees a request waiting for a human, and who may answer it.
 *
 * Theory of operation: a request is shown to the clients attached to its
 * session (`lazaret run`'s prompt, the workbench tab of that session) and to
 * every client that follows the domain's requests (ESC_LIST with FOLLOW: each
 * workbench with a connection to this domain), so that a request of a
 * headless `lazaret run -T`, or of a session whose client has no terminal,
 * reaches a human who can answer it. Each client gets a request once: the
 * set is the union, never a client twice. Withdrawals go to the same set. A
 * client that attaches, or asks for the list, gets what waits replayed to
 * it alone (esc_to). `lazaret escalations` answers with ESC_DECIDE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coord/coord.h"
#include "coord/coord-int.h"
#include "xmalloc.h"

static bool
coord_esc_watching(const struct coord *c, const struct ctl_server_client *cl)
{
	size_t i;

	for (i = 0; i < c->n_esc_watch; i++)
		if (c->esc_watch[i] == cl)
			return true;
	return false;
}

static struct session *
coord_esc_session_of(const struct coord *c, const char *uuid)
{
	size_t i;

	for (i = 0; i < c->n_sessions; i++)
		if (strcmp(c->sessions[i]->uuid, uuid) == 0)
			return c->sessions[i];
	return NULL;
}

/* The clients that see session uuid's requests: attached to it, then the
 * domain's followers not attached (each once); at most max fit in out. */
static size_t
coord_esc_audience(struct coord *c, const char *uuid, struct ctl_server_client **out,
    size_t max)
{
	struct session *s = coord_esc_session_of(c, uuid);
	size_t i, k, n = 0;

	if (c->esc_to != NULL) {
		out[0] = c->esc_to;	/* a replay to one client (coord_esc_replay) */
		return 1;
	}
	for (k = 0; s != NULL && k < s->n_clients && n < max; k++)
		out[n++] = s->clients[k];
	for (i = 0; i < c->n_esc_watch && n < max; i++)
		if (s == NULL || !session_has_client(s, c->esc_watch[i]))
			out[n++] = c->esc_watch[i];
	return n;
}

static void
coord_esc_route_cb(const char *uuid, struct proto_buf *b, void *arg)
{
	struct coord *c = arg;
	struct ctl_server_client **to;
	struct proto_buf copy;
	size_t i, n, max = c->n_esc_watch + 1;

	for (i = 0; i < c->n_sessions; i++)
		max += c->sessions[i]->n_clients;
	to = xcalloc(max, sizeof *to);
	n = coord_esc_audience(c, uuid, to, max);
	for (i = 0; i < n; i++) {
		copy.data = xmalloc(b->len);
		memcpy(copy.data, b->data, b->len);
		copy.len = copy.cap = b->len;
		ctl_server_send(to[i], &copy);
	}
	free(to);
	proto_buf_clear(b);
}

/* An escalation prompt under the session's number (a workbench has many
 * sessions on one connection; a follower gets the number of a session it
 * may have no tab of, and shows the request under its domain). */
static void
coord_esc_prompt_cb(const char *uuid, const struct esc_ctl_prompt *q, void *arg)
{
	struct coord *c = arg;
	struct esc_ctl_prompt pq = *q;
	struct proto_buf b = { 0 };
	struct session *s = coord_esc_session_of(c, uuid);

	pq.session = s != NULL ? s->id : 0;
	esc_ctl_encode_prompt(&b, &pq);
	coord_esc_route_cb(uuid, &b, c);
}

static bool
coord_esc_attached_cb(const char *uuid, struct ctl_server_client *cl, void *arg)
{
	struct coord *c = arg;
	struct session *s = coord_esc_session_of(c, uuid);

	return coord_esc_watching(c, cl) || (s != NULL && session_has_client(s, cl));
}

static void
coord_esc_quit_cb(void *arg)
{
	struct coord *c = arg;

	c->shutdown(c, "the user chose [Q]uit at an escalation prompt");
}

static void
coord_esc_log_cb(const char *msg, void *arg)
{
	(void)arg;
	coord_log("%s", msg);
}

int
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
	eo.prompt_cb = coord_esc_prompt_cb;
	eo.attached_cb = coord_esc_attached_cb;
	eo.quit_cb = coord_esc_quit_cb;
	eo.log_cb = coord_esc_log_cb;
	eo.arg = c;
	return esc_coord_new(&eo, &c->esc, err);
}

size_t
coord_esc_replay(struct coord *c, struct ctl_server_client *cl, const char *uuid)
{
	size_t n;

	c->esc_to = cl;
	n = esc_coord_attach(c->esc, uuid);
	c->esc_to = NULL;
	return n;
}

void
coord_esc_list(struct coord *c, struct ctl_server_client *cl, const uint8_t *p, size_t len)
{
	struct proto_buf b = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	uint32_t flags;
	size_t n;

	if (esc_ctl_decode_list(p, len, &flags, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	n = coord_esc_replay(c, cl, NULL);
	if ((flags & ESC_CTL_LIST_FOLLOW) && !coord_esc_watching(c, cl)) {
		c->esc_watch = xreallocarray(c->esc_watch, c->n_esc_watch + 1, sizeof *c->esc_watch);
		c->esc_watch[c->n_esc_watch++] = cl;
		coord_log("client %u follows the domain's escalations", cl->id);
	}
	proto_encode_ok(&b, (uint32_t)n);
	ctl_server_send(cl, &b);
}

void
coord_esc_client_gone(struct coord *c, struct ctl_server_client *cl)
{
	size_t i;

	for (i = 0; i < c->n_esc_watch; i++)
		if (c->esc_watch[i] == cl) {
			c->esc_watch[i] = c->esc_watch[--c->n_esc_watch];
			return;
		}
}
