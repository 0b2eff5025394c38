/* esctest.c - the fixture of the escalation server's unit tests (esctest.h):
 * a server on a real libuv loop with mTLS and a registered session, the
 * real lazaret-escalate run against it, the audit store faked as a string. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>
#include <cmocka.h>

#include "escalation/esc-server.h"
#include "esctest.h"
#include "sign.h"
#include "strv.h"
#include "testutil.h"
#include "trust.h"
#include "xmalloc.h"

static void
later_cb(uv_timer_t *t)
{
	struct es_fx *f = t->data;
	lz_err_t err = LZ_ERR_INIT;

	if (esc_server_decide(f->srv, f->ticket, f->action, f->edited, "uid 1 pid 2", &err) < 0)
		fail_msg("%s", err.msg);
}

static void
prompt_cb(struct esc_server *s, const struct esc_server_req *r, void *arg)
{
	struct es_fx *f = arg;

	(void)s;
	f->prompts++;
	free(f->reason);
	f->reason = xstrdup(r->reason);
	f->ticket = r->ticket;
	if (f->on_prompt != NULL)
		f->on_prompt(f);
	if (f->decide)
		uv_timer_start(&f->later, later_cb, 10, 0);
}

static void
withdraw_cb(struct esc_server *s, const struct esc_server_req *r, void *arg)
{
	(void)s;
	(void)r;
	(void)arg;
}

/* The store is faked here (a string, or a failure when f->audit_full);
 * tests/integ/test-audit.sh fills a real filesystem. */
static void
audit_cb(const struct esc_server_row *rows, size_t n, void *arg)
{
	struct es_fx *f = arg;
	size_t i;
	char *t;

	if (n > 1 && !f->audit_full) {	/* one transaction of n rows */
		t = xasprintf("%stx %zu\n", f->audit != NULL ? f->audit : "", n);
		free(f->audit);
		f->audit = t;
	}
	for (i = 0; i < n; i++) {
		if (f->audit_full) {
			rows[i].done(rows[i].done_arg, -1);
			continue;
		}
		t = xasprintf("%s%s %s %s\n", f->audit != NULL ? f->audit : "", rows[i].kind,
		    rows[i].actor, rows[i].detail);
		free(f->audit);
		f->audit = t;
		rows[i].done(rows[i].done_arg, 0);
	}
}

static bool
audit_ok_cb(void *arg)
{
	return !((struct es_fx *)arg)->audit_full;
}

static void
quit_cb(void *arg)
{
	((struct es_fx *)arg)->quits++;
}

static const struct esc_server_cbs cbs = {
	prompt_cb, withdraw_cb, audit_cb, quit_cb, audit_ok_cb,
};

int
es_setup(void **state)
{
	char *entries[] = { (char *)"echo hi", (char *)"false", (char *)"pwd", (char *)"./noint.sh", (char *)"./badfmt",
	    (char *)"touch ran" };
	struct es_fx *f = xcalloc(1, sizeof *f);
	const char *b = getenv("LAZARET_BUILD");
	struct esc_server_opts *o;
	struct lz_sign_cred cred;
	struct lz_sign_key del;
	struct trust_cert c;
	lz_err_t err = LZ_ERR_INIT;
	char sid[33], *cenv, *ca;

	signal(SIGPIPE, SIG_IGN);
	cenv = xasprintf("%s/lazaret-escalate", b != NULL ? b : "build");
	f->bin = realpath(cenv, NULL);	/* it runs with the workspace as cwd */
	free(cenv);
	if (f->bin == NULL || access(f->bin, X_OK) < 0) {
		free(f->bin);
		free(f);
		*state = NULL;
		return 0;
	}
	f->dir = tu_mkdtemp("escsrv");
	f->sock = xasprintf("%s/s/esc.sock", f->dir);
	f->tlsdir = xasprintf("%s/tls", f->dir);
	f->ws = xasprintf("%s/ws", f->dir);
	assert_int_equal(mkdir(f->tlsdir, 0700), 0);
	assert_int_equal(mkdir(f->ws, 0700), 0);
	assert_int_equal(lz_sign_init(&err), 0);
	trust_init();
	if (trust_ca_new(3600, &f->ca, &err) < 0 ||
	    trust_issue_client(f->ca, "web", "sb1", 600, &c, &err) < 0)
		fail_msg("%s", err.msg);
	ca = trust_ca_cert_pem(f->ca);
	tu_write_file(f->tlsdir, "ca.pem", ca);
	tu_write_file(f->tlsdir, "cert.pem", c.cert_pem);
	tu_write_file(f->tlsdir, "key.pem", c.key_pem);
	trust_cert_clear(&c);
	free(ca);
	lz_sign_keypair(&f->client);
	lz_sign_random_id(f->session);
	lz_sign_delegate(&f->client, f->session, time(NULL) + 600, &cred, &del);
	esc_payload_hex(f->session, ESC_ID_LEN, sid);
	cenv = lz_sign_cred_env(&cred, &del);
	lz_strv_pushf(&f->env, "LAZARET_SESSION_ID=%s", sid);
	lz_strv_pushf(&f->env, "LAZARET_CRED=%s", cenv);
	lz_strv_pushf(&f->env, "LAZARET_ESCALATE_SOCK=%s", f->sock);
	lz_strv_pushf(&f->env, "LAZARET_TLS_DIR=%s", f->tlsdir);
	free(cenv);
	if (policy_new(entries, 6, NULL, &f->policy, &err) < 0)
		fail_msg("%s", err.msg);
	uv_loop_init(&f->loop);
	uv_timer_init(&f->loop, &f->later);
	f->later.data = f;
	o = &f->o;
	o->path = f->sock;
	o->profile = "web";
	o->sandbox_id = "sb1";
	o->ca = f->ca;
	o->policy = f->policy;
	o->host_workspace = f->ws;
	o->sandbox_workspace = f->ws;
	o->exec_path = "/usr/bin:/bin";
	o->exec_home = f->dir;
	o->timeout_ms = 1000;
	if (esc_server_new(&f->loop, o, &cbs, f, &f->srv, &err) < 0)
		fail_msg("%s", err.msg);
	if (esc_server_register(f->srv, f->session, f->client.pk, &err) < 0)
		fail_msg("%s", err.msg);
	*state = f;
	return 0;
}

int
es_teardown(void **state)
{
	struct es_fx *f = *state;

	if (f == NULL)
		return 0;
	esc_server_close(f->srv);
	uv_close((uv_handle_t *)&f->later, NULL);
	uv_run(&f->loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&f->loop), 0);
	policy_free(f->policy);
	trust_ca_free(f->ca);
	tu_rmrf(f->dir);
	free(f->dir);
	lz_strv_free(f->env);
	free(f->reason);
	free(f->audit);
	free(f->got_out);
	free(f->got_err);
	free(f->bin);
	free(f->sock);
	free(f->tlsdir);
	free(f->ws);
	free(f);
	return 0;
}

static void
alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	(void)h;
	(void)hint;
	buf->base = xmalloc(4096);
	buf->len = 4096;
}

static void
close_cb(uv_handle_t *h)
{
	struct es_fx *f = h->data;

	f->open--;
}

static void
read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct es_fx *f = s->data;
	char **into = s == (uv_stream_t *)&f->out ? &f->got_out : &f->got_err, *t;

	if (n > 0) {
		t = xasprintf("%s%.*s", *into != NULL ? *into : "", (int)n, buf->base);
		free(*into);
		*into = t;
	} else if (n < 0)
		uv_close((uv_handle_t *)s, close_cb);
	free(buf->base);
}

static void
exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct es_fx *f = p->data;

	f->status = sig != 0 ? 128 + sig : (int)status;
	f->exited = true;
	uv_close((uv_handle_t *)p, close_cb);
}

/* Run lazaret-escalate with args in the workspace; the loop serves it. */
void
es_run(struct es_fx *f, const char *const *args)
{
	uv_process_options_t po;
	uv_stdio_container_t io[3];
	char **argv = NULL;

	lz_strv_push(&argv, f->bin);
	for (size_t i = 0; args[i] != NULL; i++)
		lz_strv_push(&argv, args[i]);
	free(f->got_out);
	free(f->got_err);
	f->got_out = xstrdup("");
	f->got_err = xstrdup("");
	f->exited = false;
	uv_pipe_init(&f->loop, &f->out, 0);
	uv_pipe_init(&f->loop, &f->err, 0);
	f->out.data = f->err.data = f->proc.data = f;
	memset(&po, 0, sizeof po);
	io[0].flags = UV_IGNORE;
	io[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	io[1].data.stream = (uv_stream_t *)&f->out;
	io[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	io[2].data.stream = (uv_stream_t *)&f->err;
	po.file = argv[0];
	po.args = argv;
	po.env = f->env;
	po.cwd = f->cwd != NULL ? f->cwd : f->ws;
	po.stdio = io;
	po.stdio_count = 3;
	po.exit_cb = exit_cb;
	assert_int_equal(uv_spawn(&f->loop, &f->proc, &po), 0);
	f->open = 3;
	uv_read_start((uv_stream_t *)&f->out, alloc_cb, read_cb);
	uv_read_start((uv_stream_t *)&f->err, alloc_cb, read_cb);
	while (f->open > 0)
		uv_run(&f->loop, UV_RUN_ONCE);
	lz_strv_free(argv);
}

void
es_assert_has(const char *hay, const char *needle)
{
	if (hay == NULL || strstr(hay, needle) == NULL)
		fail_msg("'%s' lacks '%s'", hay != NULL ? hay : "(null)", needle);
}

/* The server again, with another decision timeout. */
void
es_restart(struct es_fx *f, int timeout_ms)
{
	lz_err_t err = LZ_ERR_INIT;

	esc_server_close(f->srv);
	for (int i = 0; i < 20; i++)
		uv_run(&f->loop, UV_RUN_NOWAIT);
	f->o.timeout_ms = timeout_ms;
	if (esc_server_new(&f->loop, &f->o, &cbs, f, &f->srv, &err) < 0 ||
	    esc_server_register(f->srv, f->session, f->client.pk, &err) < 0)
		fail_msg("%s", err.msg);
}

static void
bg_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct es_bg *b = (struct es_bg *)p;

	b->status = sig != 0 ? 128 + sig : (int)status;
	b->exited = true;
	uv_close((uv_handle_t *)p, NULL);
}

/* lazaret-escalate args in the background, output ignored. */
void
es_bg_start(struct es_fx *f, struct es_bg *b, const char *const *args)
{
	uv_process_options_t po;
	uv_stdio_container_t io[3] = { { .flags = UV_IGNORE }, { .flags = UV_IGNORE },
	    { .flags = UV_IGNORE } };
	char **argv = NULL;

	lz_strv_push(&argv, f->bin);
	for (size_t i = 0; args[i] != NULL; i++)
		lz_strv_push(&argv, args[i]);
	memset(&po, 0, sizeof po);
	po.file = argv[0];
	po.args = argv;
	po.env = f->env;
	po.cwd = f->ws;
	po.stdio = io;
	po.stdio_count = 3;
	po.exit_cb = bg_exit_cb;
	memset(b, 0, sizeof *b);
	assert_int_equal(uv_spawn(&f->loop, &b->p, &po), 0);
	lz_strv_free(argv);
}


