/* test-escalate.c - the real static lazaret-escalate binary against an
 * in-process escalation server (a thread) over a real UNIX socket with
 * mTLS: exit codes, relayed output, what the host receives. Skips when the
 * binary is not built ($LAZARET_BUILD/lazaret-escalate). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "esc-payload.h"
#include "host/proc.h"
#include "sign.h"
#include "strv.h"
#include "testutil.h"
#include "trust.h"
#include "xmalloc.h"

#define TO_MS 10000

enum scenario { SC_RUN, SC_DENY, SC_HOST_TIMEOUT, SC_SILENT };

struct fx {
	char *dir;
	char *bin, *sock, *tlsdir;
	struct trust_ca *ca;
	SSL_CTX *sctx;
	struct lz_sign_key client, delegated, registered;
	uint8_t session[ESC_ID_LEN];
	char **env;
	/* server thread */
	pthread_t t;
	int lfd;
	enum scenario sc;
	struct esc_payload got;
	char *srv_err;		/* why the server refused, if it did */
};

static void
issue_into(struct fx *f, const char *sandbox)
{
	struct trust_cert c;
	lz_err_t err = LZ_ERR_INIT;
	char *ca = trust_ca_cert_pem(f->ca);

	if (trust_issue_client(f->ca, "web", sandbox, 600, &c, &err) < 0)
		fail_msg("%s", err.msg);
	tu_write_file(f->tlsdir, "ca.pem", ca);
	tu_write_file(f->tlsdir, "cert.pem", c.cert_pem);
	tu_write_file(f->tlsdir, "key.pem", c.key_pem);
	trust_cert_clear(&c);
	free(ca);
}

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof *f);
	const char *b = getenv("LAZARET_BUILD");
	struct lz_sign_cred cred;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	lz_err_t err = LZ_ERR_INIT;
	char sid[2 * ESC_ID_LEN + 1], *cenv;

	f->bin = getenv("LAZARET_ESCALATE_BIN") != NULL ? xstrdup(getenv("LAZARET_ESCALATE_BIN")) :
	    xasprintf("%s/lazaret-escalate", b != NULL ? b : "build");
	f->dir = tu_mkdtemp("esc");
	f->sock = xasprintf("%s/esc.sock", f->dir);
	f->tlsdir = xasprintf("%s/tls", f->dir);
	assert_int_equal(mkdir(f->tlsdir, 0700), 0);
	if (trust_ca_new(3600, &f->ca, &err) < 0 || (f->sctx = trust_server_ctx_new(f->ca, &err)) == NULL)
		fail_msg("%s", err.msg);
	issue_into(f, "sb1");
	lz_sign_keypair(&f->client);
	f->registered = f->client;
	lz_sign_random_id(f->session);
	lz_sign_delegate(&f->client, f->session, time(NULL) + 600, &cred, &f->delegated);
	esc_payload_hex(f->session, ESC_ID_LEN, sid);
	cenv = lz_sign_cred_env(&cred, &f->delegated);
	lz_strv_pushf(&f->env, "LAZARET_SESSION_ID=%s", sid);
	lz_strv_pushf(&f->env, "LAZARET_CRED=%s", cenv);
	lz_strv_pushf(&f->env, "LAZARET_ESCALATE_SOCK=%s", f->sock);
	lz_strv_pushf(&f->env, "LAZARET_TLS_DIR=%s", f->tlsdir);
	free(cenv);
	f->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(a.sun_path, sizeof a.sun_path, "%s", f->sock);
	assert_int_equal(bind(f->lfd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(f->lfd, 4), 0);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	close(f->lfd);
	tu_rmrf(f->dir);
	free(f->dir);
	esc_payload_clear(&f->got);
	free(f->srv_err);
	lz_strv_free(f->env);
	SSL_CTX_free(f->sctx);
	trust_ca_free(f->ca);
	free(f->bin);
	free(f->sock);
	free(f->tlsdir);
	free(f);
	return 0;
}

static void
send_frames(SSL *ssl, struct proto_buf *b)
{
	lz_err_t err = LZ_ERR_INIT;

	if (trust_write_all(ssl, b->data, b->len, TO_MS, &err) < 0)
		lz_err_clear(&err);
	proto_buf_clear(b);
}

/* One connection, handled like the coordinator will: mTLS, one REQUEST,
 * verification, then the scenario's answer. */
static void *
server_cb(void *arg)
{
	struct fx *f = arg;
	struct pollfd pfd = { f->lfd, POLLIN, 0 };
	struct proto_buf in = { NULL, 0, 0 }, out = { NULL, 0, 0 };
	struct proto_header h;
	const uint8_t *pl;
	lz_err_t err = LZ_ERR_INIT;
	SSL *ssl = NULL;
	int fd = -1;

	if (poll(&pfd, 1, TO_MS) != 1 || (fd = accept4(f->lfd, NULL, NULL, SOCK_CLOEXEC)) < 0) {
		lz_err_set(&err, ETIMEDOUT, "no client came");
		goto out;
	}
	if (trust_server_accept(f->sctx, fd, "web", "sb1", TO_MS, &ssl, &err) < 0)
		goto out;
	if (trust_read_frame(ssl, &in, &h, &pl, TO_MS, &err) != 1)
		goto out;
	if (h.type != ESC_MSG_REQUEST) {
		lz_err_set(&err, EPROTO, "type %u", h.type);
		goto out;
	}
	esc_payload_clear(&f->got);
	if (esc_payload_parse(pl, h.length, &f->got, &err) < 0 ||
	    lz_sign_verify(&f->got, f->registered.pk, time(NULL), &err) < 0) {
		struct esc_payload_result r = { ESC_OUTCOME_REJECTED, 0, err.msg };

		esc_payload_frame_result(&out, &r);
		send_frames(ssl, &out);
		goto out;
	}
	switch (f->sc) {
	case SC_RUN: {
		char m[] = "";
		struct esc_payload_result r = { ESC_OUTCOME_RAN, 3, m };

		esc_payload_frame_pending(&out, "waiting for approval on the host");
		esc_payload_frame_output(&out, 1, "hello\n", 6);
		esc_payload_frame_output(&out, 2, "warn\n", 5);
		esc_payload_frame_result(&out, &r);
		break;
	}
	case SC_DENY: {
		char m[] = "not today";
		struct esc_payload_result r = { ESC_OUTCOME_DENIED, 0, m };

		esc_payload_frame_result(&out, &r);
		break;
	}
	case SC_HOST_TIMEOUT: {
		char m[] = "nobody attached";
		struct esc_payload_result r = { ESC_OUTCOME_TIMEOUT, 0, m };

		esc_payload_frame_result(&out, &r);
		break;
	}
	case SC_SILENT: {
		char b[1];

		/* say nothing; wait for the client to give up */
		(void)trust_read(ssl, b, 1, TO_MS, &err);
		lz_err_clear(&err);
		break;
	}
	}
	send_frames(ssl, &out);
	trust_shutdown(ssl, 1000);
out:
	free(f->srv_err);
	f->srv_err = lz_steal_ptr(&err.msg);
	proto_buf_clear(&in);
	SSL_free(ssl);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Run the binary with extra args; the server thread runs scenario sc. */
static void
run(struct fx *f, enum scenario sc, const char *const *args, struct proc_result *res)
{
	char **argv = NULL;
	lz_err_t err = LZ_ERR_INIT;

	f->sc = sc;
	assert_int_equal(pthread_create(&f->t, NULL, server_cb, f), 0);
	lz_strv_push(&argv, f->bin);
	for (size_t i = 0; args[i] != NULL; i++)
		lz_strv_push(&argv, args[i]);
	if (proc_run(argv, f->env, NULL, 0, res, &err) < 0)
		fail_msg("%s", err.msg);
	lz_strv_free(argv);
}

/* For runs where no client may come: make the server give up at once. */
static void
join(struct fx *f, bool client_came)
{
	if (!client_came) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_un a = { .sun_family = AF_UNIX };

		snprintf(a.sun_path, sizeof a.sun_path, "%s", f->sock);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
			shutdown(fd, SHUT_RDWR);
		close(fd);
	}
	pthread_join(f->t, NULL);
}

static void
assert_has(const char *hay, const char *needle)
{
	if (strstr(hay, needle) == NULL)
		fail_msg("'%s' lacks '%s'", hay, needle);
}

static void
test_escalate_relays_output_and_exit_status(void **state)
{
	struct fx *f = *state;
	struct proc_result r;
	char cwd[PATH_MAX];

	run(f, SC_RUN, (const char *[]){ "--justify", "run the tests", "--", "make", "test",
	    "a b", NULL }, &r);
	join(f, true);
	if (f->srv_err != NULL)
		fail_msg("server: %s", f->srv_err);
	assert_int_equal(r.status, 3);
	assert_string_equal(r.out, "hello\n");
	assert_has(r.errout, "warn\n");
	assert_has(r.errout, "lazaret-escalate: waiting for approval on the host");
	assert_string_equal(f->got.command, "make test 'a b'");
	assert_string_equal(f->got.justification, "run the tests");
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_string_equal(f->got.cwd, cwd);
	assert_memory_equal(f->got.session_id, f->session, ESC_ID_LEN);
	assert_true(llabs((long long)(f->got.timestamp - time(NULL))) < 60);
	proc_result_clear(&r);
}

static void
test_escalate_denied_exits_126(void **state)
{
	struct fx *f = *state;
	struct proc_result r;

	run(f, SC_DENY, (const char *[]){ "--", "make", "install", NULL }, &r);
	join(f, true);
	assert_int_equal(r.status, 126);
	assert_has(r.errout, "lazaret-escalate: denied: not today");
	assert_string_equal(r.out, "");
	proc_result_clear(&r);
}

static void
test_escalate_host_timeout_exits_124(void **state)
{
	struct fx *f = *state;
	struct proc_result r;

	run(f, SC_HOST_TIMEOUT, (const char *[]){ "make", NULL }, &r);
	join(f, true);
	assert_int_equal(r.status, 124);
	assert_has(r.errout, "no decision in time: nobody attached");
	proc_result_clear(&r);
}

static void
test_escalate_client_timeout_exits_124(void **state)
{
	struct fx *f = *state;
	struct proc_result r;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	run(f, SC_SILENT, (const char *[]){ "--timeout", "1", "--", "make", NULL }, &r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	join(f, true);
	assert_int_equal(r.status, 124);
	assert_has(r.errout, "timed out waiting for the host");
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	proc_result_clear(&r);
}

static void
test_escalate_refused_signature_exits_125(void **state)
{
	struct fx *f = *state;
	struct proc_result r;

	lz_sign_keypair(&f->registered);	/* the host knows another session key */
	run(f, SC_RUN, (const char *[]){ "make", NULL }, &r);
	join(f, true);
	assert_int_equal(r.status, 125);
	assert_has(r.errout, "refused by the host: credential not signed by the session's key");
	proc_result_clear(&r);
}

static void
test_escalate_cert_of_another_sandbox_exits_125(void **state)
{
	struct fx *f = *state;
	struct proc_result r;

	issue_into(f, "sb2");
	run(f, SC_RUN, (const char *[]){ "make", NULL }, &r);
	join(f, true);
	assert_non_null(f->srv_err);
	assert_has(f->srv_err, "is for lazaret://web/sb2, not lazaret://web/sb1");
	assert_int_equal(r.status, 125);
	assert_has(r.errout, "lazaret-escalate: ");
	proc_result_clear(&r);
}

static void
test_escalate_no_socket_exits_125(void **state)
{
	struct fx *f = *state;
	struct proc_result r;

	free(f->env[2]);
	f->env[2] = xasprintf("LAZARET_ESCALATE_SOCK=%s/nope.sock", f->dir);
	run(f, SC_RUN, (const char *[]){ "make", NULL }, &r);
	join(f, false);
	assert_int_equal(r.status, 125);
	assert_has(r.errout, "cannot connect to");
	assert_has(r.errout, "No such file or directory");
	proc_result_clear(&r);
}

static void
test_escalate_without_credential_exits_125(void **state)
{
	struct fx *f = *state;
	struct proc_result r;

	free(f->env[1]);
	f->env[1] = xstrdup("LAZARET_CRED=lzc1.00");
	run(f, SC_RUN, (const char *[]){ "make", NULL }, &r);
	join(f, false);
	assert_int_equal(r.status, 125);
	assert_has(r.errout, "lazaret-escalate: no usable session credential: "
	    "LAZARET_CRED is not a session credential");
	proc_result_clear(&r);
}

/* Under --hold the command's environment has no credential, the holder's
 * environ shows none either, and lazaret-escalate run below it gets it from
 * the holder (LAZARET_ESC_FD) and signs a request the host accepts. */
static void
test_escalate_hold_hands_the_credential_only_on_request(void **state)
{
	struct fx *f = *state;
	struct proc_result r;
	const char *script = "[ -z \"$LAZARET_CRED\" ] || exit 90; [ -n \"$LAZARET_ESC_FD\" ] || exit 91; "
	    "tr '\\0' '\\n' </proc/$PPID/environ 2>/dev/null | grep -q lzc1 && exit 92; "
	    "exec \"$0\" -- make test";

	run(f, SC_RUN, (const char *[]){ "--hold", "--", "/bin/sh", "-c", script, f->bin, NULL }, &r);
	join(f, r.status >= 90 && r.status <= 92 ? false : true);
	if (f->srv_err != NULL)
		fail_msg("server: %s", f->srv_err);
	assert_int_equal(r.status, 3);
	assert_string_equal(r.out, "hello\n");
	assert_memory_equal(f->got.session_id, f->session, ESC_ID_LEN);
	proc_result_clear(&r);
}

/* The way Lazaret starts a session (issue 24 item 1): no credential in any
 * environment, the holder reads it from the pipe LAZARET_HOLD_FD names and
 * closes it, so the command has neither the variable nor the fd, and
 * lazaret-escalate below it still signs a request the host accepts. */
static void
test_escalate_hold_reads_the_credential_from_its_fd(void **state)
{
	struct fx *f = *state;
	struct proc_result r;
	lz_err_t err = LZ_ERR_INIT;
	char **argv = NULL, *file = xasprintf("%s/cred", f->dir), *line;
	size_t i;
	const char *script = "[ -z \"$LAZARET_CRED$LAZARET_HOLD_FD\" ] || exit 90; "
	    "[ -n \"$LAZARET_ESC_FD\" ] || exit 91; (: <&3) 2>/dev/null && exit 92; "
	    "tr '\\0' '\\n' </proc/$PPID/environ 2>/dev/null | grep -q 'lzc1\\|LAZARET_CRED' && exit 93; "
	    "exec \"$0\" -- make test";

	for (i = 0; f->env[i] != NULL; i++)
		if (strncmp(f->env[i], "LAZARET_CRED=", 13) == 0)
			break;
	assert_non_null(f->env[i]);
	line = f->env[i];
	tu_write_file(f->dir, "cred", line + 13);
	memmove(&f->env[i], &f->env[i + 1], (lz_strv_len(&f->env[i + 1]) + 1) * sizeof *f->env);
	free(line);
	f->sc = SC_RUN;
	assert_int_equal(pthread_create(&f->t, NULL, server_cb, f), 0);
	lz_strv_push(&argv, "/bin/sh");
	lz_strv_push(&argv, "-c");
	lz_strv_pushf(&argv, "exec 3<'%s'; rm -f '%s'; LAZARET_HOLD_FD=3 exec \"$0\" --hold -- "
	    "/bin/sh -c \"$1\" \"$0\"", file, file);
	lz_strv_push(&argv, f->bin);
	lz_strv_push(&argv, script);
	if (proc_run(argv, f->env, NULL, 0, &r, &err) < 0)
		fail_msg("%s", err.msg);
	join(f, r.status >= 90 && r.status <= 93 ? false : true);
	if (f->srv_err != NULL)
		fail_msg("server: %s", f->srv_err);
	assert_int_equal(r.status, 3);
	assert_string_equal(r.out, "hello\n");
	assert_memory_equal(f->got.session_id, f->session, ESC_ID_LEN);
	proc_result_clear(&r);
	lz_strv_free(argv);
	free(file);
}

/* A holder whose pipe is missing says so and runs nothing. */
static void
test_escalate_hold_without_its_fd_runs_nothing(void **state)
{
	struct fx *f = *state;
	struct proc_result r;
	lz_err_t err = LZ_ERR_INIT;
	char **argv = NULL;

	lz_strv_push(&argv, "/bin/sh");
	lz_strv_push(&argv, "-c");
	lz_strv_push(&argv, "exec 3<&-; LAZARET_HOLD_FD=3 exec \"$0\" --hold -- echo ran");
	lz_strv_push(&argv, f->bin);
	if (proc_run(argv, f->env, NULL, 0, &r, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(r.status, 127);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.errout, "LAZARET_HOLD_FD=3: no such file descriptor"));
	proc_result_clear(&r);
	lz_strv_free(argv);
}

/* The sandbox image's openssl.cnf (OPENSSL_CONF names it here) is never
 * read (trust_init: OPENSSL_INIT_NO_LOAD_CONFIG): one that loads a provider
 * nobody has, with diagnostics on, would make SSL_CTX_new fail, and reading
 * it costs the client time in gVisor; every setting is made in code. */
static void
test_escalate_ignores_the_images_openssl_cnf(void **state)
{
	struct fx *f = *state;
	struct proc_result r;

	tu_write_file(f->dir, "openssl.cnf", "openssl_conf = openssl_init\n"
	    "config_diagnostics = 1\n[openssl_init]\nproviders = provider_sect\n"
	    "[provider_sect]\nlazaret_none = none_sect\n[none_sect]\nactivate = 1\n");
	lz_strv_pushf(&f->env, "OPENSSL_CONF=%s/openssl.cnf", f->dir);
	run(f, SC_RUN, (const char *[]){ "--", "make", "test", NULL }, &r);
	join(f, true);
	if (f->srv_err != NULL)
		fail_msg("server: %s", f->srv_err);
	assert_int_equal(r.status, 3);
	assert_string_equal(r.out, "hello\n");
	proc_result_clear(&r);
}

static void
test_escalate_usage_errors_exit_129(void **state)
{
	struct fx *f = *state;
	struct proc_result r;

	run(f, SC_RUN, (const char *[]){ NULL }, &r);
	join(f, false);
	assert_int_equal(r.status, 129);
	assert_has(r.errout, "lazaret-escalate: no command given");
	assert_has(r.errout, "usage: lazaret-escalate");
	proc_result_clear(&r);
	run(f, SC_RUN, (const char *[]){ "--timeout", "soon", "make", NULL }, &r);
	join(f, false);
	assert_int_equal(r.status, 129);
	assert_has(r.errout, "--timeout: expected seconds");
	proc_result_clear(&r);
	run(f, SC_RUN, (const char *[]){ "--help", NULL }, &r);
	join(f, false);
	assert_int_equal(r.status, 0);
	assert_has(r.out, "126 denied");
	proc_result_clear(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_escalate_relays_output_and_exit_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escalate_denied_exits_126, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escalate_host_timeout_exits_124, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escalate_client_timeout_exits_124, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escalate_refused_signature_exits_125, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escalate_cert_of_another_sandbox_exits_125, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escalate_no_socket_exits_125, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escalate_without_credential_exits_125, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escalate_usage_errors_exit_129, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escalate_ignores_the_images_openssl_cnf, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_escalate_hold_reads_the_credential_from_its_fd,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_escalate_hold_without_its_fd_runs_nothing,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_escalate_hold_hands_the_credential_only_on_request,
		    setup, teardown),
	};

	const char *b = getenv("LAZARET_BUILD");
	char *bin = getenv("LAZARET_ESCALATE_BIN") != NULL ? xstrdup(getenv("LAZARET_ESCALATE_BIN")) :
	    xasprintf("%s/lazaret-escalate", b != NULL ? b : "build");

	if (access(bin, X_OK) != 0) {
		printf("SKIP: %s is not built\n", bin);
		free(bin);
		return 77;
	}
	free(bin);
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
