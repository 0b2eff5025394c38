/* esc-coord.h - Host Escalation inside the Session Coordinator: the glue
 * between coord.c and esc-server.c, so the coordinator keeps only hooks.
 *
 * At start: the Trust Anchor CA (in memory), the sandbox's client
 * certificate written with the CA certificate into a 0700 memory-backed
 * directory (<socket_dir>/<H>.tls when socket_dir is tmpfs, else
 * /dev/shm/lazaret-<uid>/<H>.tls), the policy from escalation.auto_approve,
 * and the listener on <socket_dir>/<H>.esc. For the container: those files
 * read-only at /run/lazaret/tls, the socket alone at
 * /run/lazaret/escalate.sock (runsc host-uds=open), and lazaret-escalate
 * (found next to the running lazaret binary) read-only at
 * /usr/local/bin/lazaret-escalate. Per session: the Session Anchor's public
 * key registered and LAZARET_CRED handed to its holder (cred-fd.h) through
 * a pipe, never a command line. Prompts go to
 * the clients attached to the request's session (route_cb); decisions come
 * back from them only.
 */
#ifndef LZ_ESC_COORD_H
#define LZ_ESC_COORD_H

#include <stdbool.h>
#include <uv.h>

#include "anchor.h"
#include "config.h"
#include "host/ctl-server.h"
#include "sandbox/driver.h"
#include "err.h"
#include "esc-ctl.h"
#include "store/store.h"

#define ESC_COORD_TLS_DST	"/run/lazaret/tls"
#define ESC_COORD_SOCK_DST	"/run/lazaret/escalate.sock"
#define ESC_COORD_BIN_DST	"/usr/local/bin/lazaret-escalate"
#define ESC_COORD_TIMEOUT_ENV	"LAZARET_ESC_TIMEOUT"	/* seconds; overrides escalation.timeout */

struct esc_coord;

struct esc_ctl_prompt;

struct esc_coord_opts {
	uv_loop_t *loop;
	const struct anchor *a;
	const struct cfg *cfg;
	struct store *store;		/* audit trail; may be NULL */
	const char *host_workspace;	/* the directory mounted at /workspace */
	/* Send the frames in b to every client attached to session uuid (b emptied). */
	void (*route_cb)(const char *uuid, struct proto_buf *b, void *arg);
	/* Prompt every client attached to session uuid with q, each under that
	 * session's number on its connection (only the coordinator knows it). */
	void (*prompt_cb)(const char *uuid, const struct esc_ctl_prompt *q, void *arg);
	/* May cl decide for session uuid (attached to it, or following the
	 * domain's requests)? */
	bool (*attached_cb)(const char *uuid, struct ctl_server_client *cl, void *arg);
	/* [Q]uit: shut the domain down. */
	void (*quit_cb)(void *arg);
	void (*log_cb)(const char *msg, void *arg);
	void *arg;
};

int esc_coord_new(const struct esc_coord_opts *o, struct esc_coord **out, lz_err_t *err);
/* Add the mounts and the runtime flag to the sandbox's spec. */
int esc_coord_spec(struct esc_coord *, struct drv_spec *sp, lz_err_t *err);
/* A session with a Session Anchor: register its key; *secret (caller
 * frees) is the LAZARET_CRED line for the exec's fd 3 (session_opts
 * secret_env), never its argv; the exec runs under ESC_COORD_BIN_DST --hold. */
int esc_coord_session(struct esc_coord *, const struct esc_ctl_anchor *anc, char **secret,
    lz_err_t *err);
void esc_coord_session_end(struct esc_coord *, const char *uuid);
/* prompt_cb for what waits in session uuid (NULL: in every session); how many. */
size_t esc_coord_attach(struct esc_coord *, const char *uuid);
/* How many requests of session uuid (NULL: of any) wait for a human (0 for NULL ec). */
size_t esc_coord_waiting(struct esc_coord *, const char *uuid);
/* ESC_DECISION from cl (a client that may decide: attached_cb), or
 * ESC_DECIDE (answered: OK with the ticket, or ERROR when none waits). */
void esc_coord_decision(struct esc_coord *, struct ctl_server_client *cl, const uint8_t *p,
    size_t len, bool answer);
/* Record an audit row (from the loop thread). */
void esc_coord_audit(struct esc_coord *, const char *kind, const char *actor,
    const char *session_id, const char *request_id, const char *detail);
/* In the loop's shutdown: close the listener and its connections. */
void esc_coord_close(struct esc_coord *);
/* After the loop ran out: remove the TLS files, free. NULL is a no-op. */
void esc_coord_free(struct esc_coord *);
/* For a domain whose coordinator died: remove its escalation socket and TLS
 * files (key.pem) wherever esc_coord_new puts them. -1 when one is left. */
int esc_coord_reap(const struct anchor *a);

#endif
