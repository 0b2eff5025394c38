/* test-esc-server.c - the escalation server on a real libuv loop, against
 * the real static lazaret-escalate ($LAZARET_BUILD/lazaret-escalate) over a
 * real UNIX socket with mTLS: auto-approval, human decisions (approve, deny,
 * edit, quit), the decision timeout, an unknown session, and the audit
 * records. Host commands really run (echo, false) in a temp workspace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>
#include <cmocka.h>
#include <valgrind/valgrind.h>

#include "escalation/esc-server.h"
#include "sign.h"
#include "strv.h"
#include "testutil.h"
#include "trust.h"
#include "xmalloc.h"

struct fx {
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
	void (*on_prompt)(struct fx *);	/* the agent acts while the human looks */
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

static void
later_cb(uv_timer_t *t)
{
	struct fx *f = t->data;
	lz_err_t err = LZ_ERR_INIT;

	if (esc_server_decide(f->srv, f->ticket, f->action, f->edited, "uid 1 pid 2", &err) < 0)
		fail_msg("%s", err.msg);
}

static void
prompt_cb(struct esc_server *s, const struct esc_server_req *r, void *arg)
{
	struct fx *f = arg;

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
	struct fx *f = arg;
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
	return !((struct fx *)arg)->audit_full;
}

static void
quit_cb(void *arg)
{
	((struct fx *)arg)->quits++;
}

static const struct esc_server_cbs cbs = {
	prompt_cb, withdraw_cb, audit_cb, quit_cb, audit_ok_cb,
};

static int
setup(void **state)
{
	char *entries[] = { (char *)"echo hi", (char *)"false", (char *)"pwd", (char *)"./noint.sh", (char *)"./badfmt",
	    (char *)"touch ran" };
	struct fx *f = xcalloc(1, sizeof *f);
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

static int
teardown(void **state)
{
	struct fx *f = *state;

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
	struct fx *f = h->data;

	f->open--;
}

static void
read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct fx *f = s->data;
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
	struct fx *f = p->data;

	f->status = sig != 0 ? 128 + sig : (int)status;
	f->exited = true;
	uv_close((uv_handle_t *)p, close_cb);
}

/* Run lazaret-escalate with args in the workspace; the loop serves it. */
static void
run(struct fx *f, const char *const *args)
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

static void
assert_has(const char *hay, const char *needle)
{
	if (hay == NULL || strstr(hay, needle) == NULL)
		fail_msg("'%s' lacks '%s'", hay != NULL ? hay : "(null)", needle);
}

#define NEED_BIN(f) do { if ((f) == NULL) skip(); } while (0)

/* The server again, with another decision timeout. */
static void
restart(struct fx *f, int timeout_ms)
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

struct bg {
	uv_process_t p;
	int status;
	bool exited;
};

static void
bg_exit_cb(uv_process_t *p, int64_t status, int sig)
{
	struct bg *b = (struct bg *)p;

	b->status = sig != 0 ? 128 + sig : (int)status;
	b->exited = true;
	uv_close((uv_handle_t *)p, NULL);
}

/* lazaret-escalate args in the background, output ignored. */
static void
bg_start(struct fx *f, struct bg *b, const char *const *args)
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

static void
test_esc_server_auto_approves_exact_entry_and_runs_it(void **state)
{
	struct fx *f = *state;

	NEED_BIN(f);
	run(f, (const char *[]){ "--", "echo", "hi", NULL });
	assert_int_equal(f->status, 0);
	assert_string_equal(f->got_out, "hi\n");
	assert_int_equal(f->prompts, 0);
	assert_has(f->audit, "esc.request");
	assert_has(f->audit, "\"verdict\":\"auto-approve\"");
	assert_has(f->audit, "esc.decision policy {\"action\":\"auto-approve\"}");
	assert_has(f->audit, "\"exit_status\":0");
	assert_has(f->audit, "\"output_bytes\":3");
}

/* The request's row and the policy's decision are one commit (one trip
 * to the store before the command runs); the result is a row of its own. */
static void
test_esc_server_request_and_decision_rows_commit_together(void **state)
{
	struct fx *f = *state;
	const char *tx, *nl;

	NEED_BIN(f);
	run(f, (const char *[]){ "--", "echo", "hi", NULL });
	assert_int_equal(f->status, 0);
	tx = strstr(f->audit, "tx 2\nesc.request ");
	assert_non_null(tx);
	nl = strchr(tx + 5, '\n');
	assert_non_null(nl);
	assert_true(strncmp(nl + 1, "esc.decision policy ", 20) == 0);
	assert_null(strstr(nl + 1, "tx "));	/* esc.result alone */
	assert_has(nl + 1, "esc.result coordinator");
}

static void
test_esc_server_returns_the_host_exit_status(void **state)
{
	struct fx *f = *state;

	NEED_BIN(f);
	run(f, (const char *[]){ "false", NULL });
	assert_int_equal(f->status, 1);
}

static void
test_esc_server_appended_argument_prompts_then_approve_runs(void **state)
{
	struct fx *f = *state;

	NEED_BIN(f);
	f->decide = true;
	f->action = ESC_CTL_APPROVE;
	run(f, (const char *[]){ "--justify", "say more", "--", "echo", "hi", "there", NULL });
	assert_int_equal(f->prompts, 1);
	assert_has(f->reason, "appended");
	assert_int_equal(f->status, 0);
	assert_string_equal(f->got_out, "hi there\n");
	assert_has(f->got_err, "waiting for approval");
	assert_has(f->audit, "esc.decision uid 1 pid 2 {\"action\":\"approve\"}");
}

static void
test_esc_server_deny_exits_126_and_runs_nothing(void **state)
{
	struct fx *f = *state;
	char *m;

	NEED_BIN(f);
	f->decide = true;
	f->action = ESC_CTL_DENY;
	run(f, (const char *[]){ "touch", "marker", NULL });
	assert_int_equal(f->status, 126);
	assert_has(f->got_err, "denied by the user");
	m = xasprintf("%s/marker", f->ws);
	assert_int_not_equal(access(m, F_OK), 0);
	free(m);
}

static void
test_esc_server_edit_runs_the_edited_argv_without_a_shell(void **state)
{
	struct fx *f = *state;

	NEED_BIN(f);
	f->decide = true;
	f->action = ESC_CTL_EDIT;
	f->edited = "echo 'two words' ';' $HOME";
	run(f, (const char *[]){ "echo", "wrong", NULL });
	assert_int_equal(f->status, 0);
	assert_string_equal(f->got_out, "two words ; $HOME\n");
	assert_has(f->audit, "\"edited\":\"echo 'two words' ';' $HOME\"");
	assert_has(f->audit, "\"edited_verdict\":\"needs-prompt\",\"edited_why\":\"contains ';'");
}

static void
test_esc_server_edit_that_does_not_split_is_denied(void **state)
{
	struct fx *f = *state;

	NEED_BIN(f);
	f->decide = true;
	f->action = ESC_CTL_EDIT;
	f->edited = "echo 'unterminated";
	run(f, (const char *[]){ "echo", "x", NULL });
	assert_int_equal(f->status, 126);
	assert_has(f->got_err, "does not parse");
}

static void
test_esc_server_quit_denies_and_asks_for_shutdown(void **state)
{
	struct fx *f = *state;

	NEED_BIN(f);
	f->decide = true;
	f->action = ESC_CTL_QUIT;
	run(f, (const char *[]){ "echo", "x", NULL });
	assert_int_equal(f->status, 126);
	assert_int_equal(f->quits, 1);
	assert_has(f->got_err, "quit");
}

static void
test_esc_server_no_decision_times_out_124(void **state)
{
	struct fx *f = *state;

	NEED_BIN(f);
	run(f, (const char *[]){ "echo", "nobody", "answers", NULL });
	assert_int_equal(f->prompts, 1);
	assert_int_equal(f->status, 124);
	assert_has(f->got_err, "no decision within 1 s");
	assert_has(f->audit, "\"action\":\"timeout\"");
}

static void
test_esc_server_unregistered_session_is_rejected_and_audited(void **state)
{
	struct fx *f = *state;
	char sid[33];

	NEED_BIN(f);
	esc_payload_hex(f->session, ESC_ID_LEN, sid);
	esc_server_unregister(f->srv, sid);
	run(f, (const char *[]){ "echo", "hi", NULL });
	assert_int_equal(f->status, 125);
	assert_has(f->got_err, "unknown session");
	assert_has(f->audit, "esc.refused coordinator {\"reason\":\"unknown session");
}

static void
test_esc_server_cwd_outside_the_workspace_is_rejected(void **state)
{
	struct fx *f = *state;

	NEED_BIN(f);
	f->cwd = f->tlsdir;	/* the client runs outside the workspace */
	run(f, (const char *[]){ "echo", "hi", NULL });
	assert_int_equal(f->status, 125);
	assert_has(f->got_err, "cwd");
}

static void
test_esc_server_refuses_connections_beyond_the_limit(void **state)
{
	struct fx *f = *state;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fds[64], i;

	NEED_BIN(f);
	snprintf(a.sun_path, sizeof a.sun_path, "%s", f->sock);
	for (i = 0; i < 64; i++) {
		fds[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		assert_int_equal(connect(fds[i], (struct sockaddr *)&a, sizeof a), 0);
	}
	for (i = 0; i < 10; i++)
		uv_run(&f->loop, UV_RUN_NOWAIT);
	run(f, (const char *[]){ "echo", "hi", NULL });
	assert_int_equal(f->status, 125);
	assert_has(f->audit, "too many escalation connections");
	for (i = 0; i < 64; i++)
		close(fds[i]);
	for (i = 0; i < 10; i++)
		uv_run(&f->loop, UV_RUN_NOWAIT);
	run(f, (const char *[]){ "echo", "hi", NULL });
	assert_int_equal(f->status, 0);
}

/* The agent swaps a directory of its workspace with a symlink to outside
 * (renameat2 RENAME_EXCHANGE in a real process, as fast as it can) while an
 * auto-approved pwd runs there, 300 times: the command never runs outside. */
static void
test_esc_server_cwd_symlink_swap_never_runs_outside(void **state)
{
	struct fx *f = *state;
	char *a, *l, *out, *cwd, *o;
	int i, ran = 0, outside = 0;
	pid_t sw;

	NEED_BIN(f);
	a = xasprintf("%s/a", f->ws);
	l = xasprintf("%s/l", f->ws);
	out = xasprintf("%s/out", f->dir);
	cwd = xasprintf("%s/a/b", f->ws);
	o = xasprintf("%s/b", out);
	assert_int_equal(mkdir(a, 0700), 0);
	assert_int_equal(mkdir(cwd, 0700), 0);
	assert_int_equal(mkdir(out, 0700), 0);
	assert_int_equal(mkdir(o, 0700), 0);
	assert_int_equal(symlink(out, l), 0);
	if ((sw = fork()) == 0) {
		/* Bursts of 16 swaps, then a pause with a real directory in place:
		 * on a loaded machine a swapper that never pauses leaves no window
		 * where pwd may run, and ran > 0 (the check is not empty) fails. */
		for (unsigned n = 1;; n++) {
			(void)renameat2(AT_FDCWD, a, AT_FDCWD, l, RENAME_EXCHANGE);
			if (n % 16 == 0)
				usleep(200);
		}
	}
	assert_true(sw > 0);
	f->cwd = cwd;
	for (i = 0; i < 300; i++) {
		run(f, (const char *[]){ "pwd", NULL });
		if (f->status == 0)
			ran++;
		if (strstr(f->got_out, "/out/b") != NULL)
			outside++;
	}
	kill(sw, SIGKILL);
	waitpid(sw, NULL, 0);
	print_message("pwd ran %d of 300 times, %d outside the workspace\n", ran, outside);
	assert_int_equal(outside, 0);
	assert_true(ran > 0);
	free(a);
	free(l);
	free(out);
	free(cwd);
	free(o);
}

/* Approved commands that cannot start (127): a script whose interpreter is
 * missing, a file of no known format; 50 times each, and the server stays
 * healthy and still runs the next command. Under valgrind (tests/integ/
 * test-esc-valgrind.sh) only the second, and only its status: valgrind turns
 * posix_spawn's vfork into a fork, so the child's exec error never reaches
 * the parent (the child exits 127), and it cannot survive a child whose
 * execve fails after its own checks passed, as a missing interpreter's does. */
static void
test_esc_server_failed_start_50_times_then_still_serves(void **state)
{
	struct fx *f = *state;
	const char *cmd[] = { "./badfmt", "./noint.sh" };
	int i, k;

	NEED_BIN(f);
	tu_write_file(f->ws, "noint.sh", "#!/nonexistent/interpreter\necho never\n");
	tu_write_file(f->ws, "badfmt", "\x01\x02 no format\n");
	for (k = 0; k < 2; k++) {
		char *p = xasprintf("%s/%s", f->ws, cmd[k] + 2);

		assert_int_equal(chmod(p, 0755), 0);
		free(p);
	}
	for (k = 0; k < (RUNNING_ON_VALGRIND ? 1 : 2); k++)
		for (i = 0; i < 50; i++) {
			run(f, (const char *[]){ cmd[k], NULL });
			assert_int_equal(f->status, 127);
			if (!RUNNING_ON_VALGRIND) {
				assert_has(f->got_err, "cannot run");
				assert_has(f->audit, "\"outcome\":\"failed\"");
			}
		}
	run(f, (const char *[]){ "echo", "hi", NULL });
	assert_int_equal(f->status, 0);
	assert_string_equal(f->got_out, "hi\n");
}

static void
swap_to_echo(struct fx *f)
{
	char *p = xasprintf("%s/swap.sh", f->ws);

	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("/bin/echo", p), 0);
	free(p);
}

/* While the human reads the prompt for ./swap.sh, the agent makes it a
 * symlink to another program: what was resolved and checked is not what
 * the path names any more, so nothing runs. */
static void
test_esc_server_program_swapped_after_the_check_does_not_run(void **state)
{
	struct fx *f = *state;
	char *p;

	NEED_BIN(f);
	tu_write_file(f->ws, "swap.sh", "#!/bin/sh\necho script\n");
	p = xasprintf("%s/swap.sh", f->ws);
	assert_int_equal(chmod(p, 0755), 0);
	free(p);
	f->decide = true;
	f->action = ESC_CTL_APPROVE;
	f->on_prompt = swap_to_echo;
	run(f, (const char *[]){ "./swap.sh", "swapped", NULL });
	assert_int_equal(f->prompts, 1);
	assert_int_equal(f->status, 127);
	assert_has(f->got_err, "changed after the policy looked at it: not run");
	assert_null(strstr(f->got_out, "swapped"));
}

/* Prompt fatigue: a fifth request of a session while four wait is refused
 * (125, audited); the four still get their answers. */
static void
test_esc_server_caps_pending_requests_per_session(void **state)
{
	struct fx *f = *state;
	struct bg b[ESC_PENDING_MAX];
	int i;

	NEED_BIN(f);
	restart(f, 60000);
	for (i = 0; i < ESC_PENDING_MAX; i++)
		bg_start(f, &b[i], (const char *[]){ "--", "echo", "waits", NULL });
	while (f->prompts < ESC_PENDING_MAX && !b[0].exited)
		uv_run(&f->loop, UV_RUN_ONCE);
	assert_int_equal(f->prompts, ESC_PENDING_MAX);
	run(f, (const char *[]){ "--", "echo", "fifth", NULL });
	assert_int_equal(f->status, 125);
	assert_has(f->got_err, "4 requests waiting for a decision already (at most 4)");
	assert_has(f->audit, "esc.refused coordinator {\"reason\":\"session ");
	assert_int_equal(f->prompts, ESC_PENDING_MAX);
	restart(f, 1000);	/* denies the four: the coordinator is shutting down */
	for (i = 0; i < ESC_PENDING_MAX; i++) {
		while (!b[i].exited)
			uv_run(&f->loop, UV_RUN_ONCE);
		assert_int_equal(b[i].status, 126);
	}
}

/* After three denials in a row the session waits before it may prompt
 * again; auto-approved commands still run; an approval would reset it. */
static void
test_esc_server_backs_off_after_denials(void **state)
{
	struct fx *f = *state;
	int i;

	NEED_BIN(f);
	f->decide = true;
	f->action = ESC_CTL_DENY;
	for (i = 0; i <= ESC_DENIALS_FREE; i++) {
		run(f, (const char *[]){ "echo", "again", NULL });
		assert_int_equal(f->status, 126);
	}
	run(f, (const char *[]){ "echo", "again", NULL });
	assert_int_equal(f->status, 125);
	assert_has(f->got_err, "the last 3 requests were denied; ask again in 10 s");
	assert_has(f->audit, "esc.refused coordinator {\"reason\":\"session ");
	assert_int_equal(f->prompts, ESC_DENIALS_FREE + 1);
	run(f, (const char *[]){ "echo", "hi", NULL });
	assert_int_equal(f->status, 0);
}

/* Audit first, fail closed: when the rows cannot be written, an
 * auto-approved command does not run and the agent is told (125); once the
 * store can write again it runs. */
static void
test_esc_server_runs_nothing_unaudited(void **state)
{
	struct fx *f = *state;
	char *m;

	NEED_BIN(f);
	m = xasprintf("%s/ran", f->ws);
	f->audit_full = true;
	run(f, (const char *[]){ "touch", "ran", NULL });
	assert_int_equal(f->status, 125);
	assert_has(f->got_err, "the audit trail cannot be written");
	assert_int_not_equal(access(m, F_OK), 0);
	run(f, (const char *[]){ "touch", "ran", NULL });	/* still down: refused at once */
	assert_int_equal(f->status, 125);
	assert_has(f->got_err, "nothing runs on the host until it can");
	assert_int_not_equal(access(m, F_OK), 0);
	f->audit_full = false;
	run(f, (const char *[]){ "touch", "ran", NULL });
	assert_int_equal(f->status, 0);
	assert_int_equal(access(m, F_OK), 0);
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(n) cmocka_unit_test_setup_teardown(n, setup, teardown)
		T(test_esc_server_auto_approves_exact_entry_and_runs_it),
		T(test_esc_server_request_and_decision_rows_commit_together),
		T(test_esc_server_returns_the_host_exit_status),
		T(test_esc_server_appended_argument_prompts_then_approve_runs),
		T(test_esc_server_deny_exits_126_and_runs_nothing),
		T(test_esc_server_edit_runs_the_edited_argv_without_a_shell),
		T(test_esc_server_edit_that_does_not_split_is_denied),
		T(test_esc_server_quit_denies_and_asks_for_shutdown),
		T(test_esc_server_no_decision_times_out_124),
		T(test_esc_server_unregistered_session_is_rejected_and_audited),
		T(test_esc_server_cwd_outside_the_workspace_is_rejected),
		T(test_esc_server_refuses_connections_beyond_the_limit),
		T(test_esc_server_cwd_symlink_swap_never_runs_outside),
		T(test_esc_server_failed_start_50_times_then_still_serves),
		T(test_esc_server_program_swapped_after_the_check_does_not_run),
		T(test_esc_server_caps_pending_requests_per_session),
		T(test_esc_server_backs_off_after_denials),
		T(test_esc_server_runs_nothing_unaudited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
