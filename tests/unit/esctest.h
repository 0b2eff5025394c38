/* esctest.h - the fixture the escalation server's unit tests share
 * (test-esc-server.c, test-esc-server-exec.c, test-esc-server-conn.c): a
 * server on a real libuv loop with mTLS and a registered session, the real
 * static lazaret-escalate ($LAZARET_BUILD/lazaret-escalate) run against it
 * in a temp workspace, the audit store faked as a string. esctest.c is
 * linked into every unit test, like testutil.c. */
#ifndef LZ_ESCTEST_H
#define LZ_ESCTEST_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "escalation/esc-server.h"
#include "sign.h"

/* The cmocka state of an escalation server test; NULL when
 * lazaret-escalate is not built (ES_NEED_BIN skips then). */
struct es_fx {
	char *dir;
	char *bin, *sock, *tlsdir, *ws;
	const char *cwd;		/* where the client runs; NULL: ws */
	uv_loop_t loop;
	struct trust_ca *ca;
	struct policy *policy;
	struct esc_server *srv;
	struct esc_server_opts o;
	struct lz_sign_key client;
	uint8_t session[ESC_ID_LEN];
	char **env;
	/* per run */
	bool decide;			/* answer prompts */
	enum esc_ctl_action action;
	const char *edited;
	int prompts, quits;
	bool audit_full;		/* every audit row fails */
	void (*on_prompt)(struct es_fx *);	/* the agent acts while the human looks */
	char *reason;
	char *audit;			/* kinds and details, one per line */
	uv_process_t proc;
	uv_pipe_t out, err;
	uv_timer_t later;
	uint32_t ticket;
	char *got_out, *got_err;
	int status, open;
	bool exited;
};

#define ES_NEED_BIN(f) do { if ((f) == NULL) skip(); } while (0)

/* cmocka setup and teardown of each test: the server, its loop, the
 * policy (echo hi, false, pwd, ./noint.sh, ./badfmt, touch ran). */
int es_setup(void **state);
int es_teardown(void **state);
/* Run lazaret-escalate with args in the workspace; the loop serves it. */
void es_run(struct es_fx *f, const char *const *args);
void es_assert_has(const char *hay, const char *needle);
/* The server again, with another decision timeout. */
void es_restart(struct es_fx *f, int timeout_ms);

/* A lazaret-escalate in the background. */
struct es_bg {
	uv_process_t p;
	int status;
	bool exited;
};

/* lazaret-escalate args in the background, output ignored. */
void es_bg_start(struct es_fx *f, struct es_bg *b, const char *const *args);

#endif
