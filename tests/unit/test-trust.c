/* test-trust.c - Trust Anchor and mTLS: real TLS 1.3 handshakes over a real
 * bound UNIX socket, the client in a thread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "testutil.h"
#include "trust.h"
#include "xmalloc.h"

#define TO_MS 10000

struct fx {
	char *dir;
	struct trust_ca *ca, *other_ca;
	char *ca_pem, *other_ca_pem;
	struct trust_cert good;		/* web/sb1 from ca */
	SSL_CTX *sctx;
};

/* One client run in a thread: TLS (ctx) or plain bytes (ctx NULL). */
struct job {
	int fd;
	SSL_CTX *ctx;
	const char *plain;	/* plain mode: bytes to write (NULL: write nothing) */
	char reply[16];
	char *err;		/* client-side error, if any */
};

/* What the last good exchange showed: could the client resume the session
 * (a ticket came), how many certificates each side got from the other. */
static int last_resumable = -1, last_chain_at_client = -1, last_chain_at_server = -1;

static int
setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof *f);
	lz_err_t err = LZ_ERR_INIT;

	f->dir = tu_mkdtemp("trust");
	if (trust_ca_new(3600, &f->ca, &err) < 0 || trust_ca_new(3600, &f->other_ca, &err) < 0 ||
	    trust_issue_client(f->ca, "web", "sb1", 600, &f->good, &err) < 0)
		fail_msg("%s", err.msg);
	f->ca_pem = trust_ca_cert_pem(f->ca);
	f->other_ca_pem = trust_ca_cert_pem(f->other_ca);
	f->sctx = trust_server_ctx_new(f->ca, &err);
	if (f->sctx == NULL)
		fail_msg("%s", err.msg);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	tu_rmrf(f->dir);
	free(f->dir);
	SSL_CTX_free(f->sctx);
	trust_cert_clear(&f->good);
	free(f->ca_pem);
	free(f->other_ca_pem);
	trust_ca_free(f->ca);
	trust_ca_free(f->other_ca);
	free(f);
	return 0;
}

/* A connected pair over a socket bound in the temp dir. */
static void
uds_pair(struct fx *f, int *srv, int *cli)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(a.sun_path, sizeof a.sun_path, "%s/esc.sock", f->dir);
	unlink(a.sun_path);
	assert_true(l >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(l, 4), 0);
	*cli = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(*cli, (struct sockaddr *)&a, sizeof a), 0);
	*srv = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	assert_true(*srv >= 0);
	close(l);
}

static void *
client_cb(void *arg)
{
	struct job *j = arg;
	lz_err_t err = LZ_ERR_INIT;
	SSL *ssl = NULL;
	ssize_t n;

	if (j->ctx == NULL) {
		struct pollfd pfd = { j->fd, POLLIN, 0 };
		char buf[256];

		if (j->plain != NULL && write(j->fd, j->plain, strlen(j->plain)) < 0)
			j->err = xasprintf("write: %s", strerror(errno));
		if (j->plain != NULL)
			shutdown(j->fd, SHUT_WR);	/* said all it has to say */
		/* wait for the server to close (or say anything) */
		while (poll(&pfd, 1, TO_MS) > 0 && read(j->fd, buf, sizeof buf) > 0)
			;
		goto out;
	}
	if (trust_client_connect(j->ctx, j->fd, TO_MS, &ssl, &err) < 0 ||
	    trust_write_all(ssl, "ping", 4, TO_MS, &err) < 0)
		goto out;
	n = trust_read(ssl, j->reply, 4, TO_MS, &err);
	if (n == 0)
		lz_err_set(&err, EPIPE, "closed without a reply");
	last_resumable = SSL_SESSION_is_resumable(SSL_get0_session(ssl));
	last_chain_at_client = sk_X509_num(SSL_get_peer_cert_chain(ssl));
	trust_shutdown(ssl, 1000);
out:
	if (err.msg != NULL)
		j->err = lz_steal_ptr(&err.msg);
	SSL_free(ssl);
	close(j->fd);
	return NULL;
}

/* Run client ctx (or plain bytes) against the server expecting web/sb1 (or
 * want_sandbox). Returns the server's error message (NULL: accepted and
 * "ping"/"pong" exchanged). *client_err gets the client's. */
static char *
run(struct fx *f, SSL_CTX *cctx, const char *plain, const char *want_sandbox,
    int timeout_ms, char **client_err)
{
	struct job j = { .ctx = cctx, .plain = plain };
	lz_err_t err = LZ_ERR_INIT;
	pthread_t t;
	SSL *ssl = NULL;
	int srv;
	char buf[8];

	uds_pair(f, &srv, &j.fd);
	assert_int_equal(pthread_create(&t, NULL, client_cb, &j), 0);
	if (trust_server_accept(f->sctx, srv, "web", want_sandbox, timeout_ms, &ssl, &err) == 0) {
		ssize_t n = trust_read(ssl, buf, 4, TO_MS, &err);

		if (n != 4 || memcmp(buf, "ping", 4) != 0)
			fail_msg("server read %zd: %s", n, err.msg);
		last_chain_at_server = sk_X509_num(SSL_get_peer_cert_chain(ssl));
		assert_int_equal(trust_write_all(ssl, "pong", 4, TO_MS, &err), 0);
		trust_shutdown(ssl, 1000);
		SSL_free(ssl);
	}
	close(srv);
	pthread_join(t, NULL);
	if (err.msg == NULL)
		assert_string_equal(j.reply, "pong");
	if (client_err != NULL)
		*client_err = j.err;
	else
		free(j.err);
	return err.msg;
}

static void
expect_refused(struct fx *f, SSL_CTX *cctx, const char *plain, const char *want_sandbox,
    const char *msg_part)
{
	char *cerr = NULL, *serr = run(f, cctx, plain, want_sandbox, TO_MS, &cerr);

	if (serr == NULL)
		fail_msg("server accepted (expected '%s')", msg_part);
	if (strstr(serr, msg_part) == NULL)
		fail_msg("server error '%s' lacks '%s'", serr, msg_part);
	/* the client never got its "pong" */
	if (cctx != NULL && cerr == NULL)
		fail_msg("client saw no error");
	free(serr);
	free(cerr);
}

static SSL_CTX *
client_ctx(const char *ca_pem, const struct trust_cert *c)
{
	lz_err_t err = LZ_ERR_INIT;
	SSL_CTX *ctx = trust_client_ctx_new(ca_pem, c->cert_pem, c->key_pem, &err);

	if (ctx == NULL)
		fail_msg("%s", err.msg);
	return ctx;
}

static void
test_trust_accepts_good_client(void **state)
{
	struct fx *f = *state;
	SSL_CTX *c = client_ctx(f->ca_pem, &f->good);
	char *cerr = NULL, *serr = run(f, c, NULL, "sb1", TO_MS, &cerr);

	if (serr != NULL || cerr != NULL)
		fail_msg("server: %s; client: %s", serr, cerr);
	SSL_CTX_free(c);
	/* No resumption: every connection shows its certificate (no ticket). */
	assert_int_equal(last_resumable, 0);
	/* Each side sent its own certificate alone; the CA is each side's own
	 * (a server's list leaves out the client's certificate itself). */
	assert_int_equal(last_chain_at_client, 1);
	assert_int_equal(last_chain_at_server, 0);
}

/* The client's key: PKCS#8 as the coordinator writes it (the fast path),
 * another PEM form through the generic one; a key of another certificate
 * or a damaged one is named. */
static void
test_trust_client_key_forms(void **state)
{
	struct fx *f = *state;
	struct trust_cert other;
	struct trust_cert sec1 = { f->good.cert_pem, NULL };
	lz_err_t err = LZ_ERR_INIT;
	BIO *in = BIO_new_mem_buf(f->good.key_pem, -1), *out = BIO_new(BIO_s_mem());
	EVP_PKEY *k = PEM_read_bio_PrivateKey(in, NULL, NULL, NULL);
	char *data, *serr, *cerr = NULL;
	SSL_CTX *c;
	long n;

	assert_non_null(k);
	assert_int_equal(PEM_write_bio_PrivateKey_traditional(out, k, NULL, NULL, 0, NULL, NULL), 1);
	n = BIO_get_mem_data(out, &data);
	sec1.key_pem = xstrndup(data, (size_t)n);
	assert_non_null(strstr(sec1.key_pem, "BEGIN EC PRIVATE KEY"));
	c = client_ctx(f->ca_pem, &sec1);
	serr = run(f, c, NULL, "sb1", TO_MS, &cerr);
	if (serr != NULL || cerr != NULL)
		fail_msg("server: %s; client: %s", serr, cerr);
	SSL_CTX_free(c);

	assert_int_equal(trust_issue_client(f->ca, "web", "sb1", 600, &other, &err), 0);
	assert_null(trust_client_ctx_new(f->ca_pem, f->good.cert_pem, other.key_pem, &err));
	assert_non_null(strstr(err.msg, "client certificate and key do not match"));
	lz_err_clear(&err);
	assert_null(trust_client_ctx_new(f->ca_pem, f->good.cert_pem,
	    "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", &err));
	assert_non_null(strstr(err.msg, "bad client key"));
	lz_err_clear(&err);
	trust_cert_clear(&other);
	free(sec1.key_pem);
	EVP_PKEY_free(k);
	BIO_free(in);
	BIO_free(out);
}

static void
test_trust_refuses_cert_of_another_ca(void **state)
{
	struct fx *f = *state;
	struct trust_cert other;
	lz_err_t err = LZ_ERR_INIT;
	SSL_CTX *c;

	assert_int_equal(trust_issue_client(f->other_ca, "web", "sb1", 600, &other, &err), 0);
	c = client_ctx(f->ca_pem, &other);	/* trusts our server, presents a foreign cert */
	expect_refused(f, c, NULL, "sb1", "(unable to get local issuer certificate)");
	SSL_CTX_free(c);
	trust_cert_clear(&other);
}

static void
test_trust_refuses_expired_cert(void **state)
{
	struct fx *f = *state;
	struct trust_cert old;
	lz_err_t err = LZ_ERR_INIT;
	time_t now = time(NULL);
	SSL_CTX *c;

	assert_int_equal(trust_issue_client_window(f->ca, "web", "sb1", now - 7200, now - 3600,
	    &old, &err), 0);
	c = client_ctx(f->ca_pem, &old);
	expect_refused(f, c, NULL, "sb1", "(certificate has expired)");
	SSL_CTX_free(c);
	trust_cert_clear(&old);
}

static void
test_trust_refuses_san_of_another_sandbox(void **state)
{
	struct fx *f = *state;
	struct trust_cert sb2, prof;
	lz_err_t err = LZ_ERR_INIT;
	SSL_CTX *c;

	assert_int_equal(trust_issue_client(f->ca, "web", "sb2", 600, &sb2, &err), 0);
	c = client_ctx(f->ca_pem, &sb2);
	expect_refused(f, c, NULL, "sb1",
	    "client certificate is for lazaret://web/sb2, not lazaret://web/sb1");
	SSL_CTX_free(c);
	assert_int_equal(trust_issue_client(f->ca, "api", "sb1", 600, &prof, &err), 0);
	c = client_ctx(f->ca_pem, &prof);
	expect_refused(f, c, NULL, "sb1", "is for lazaret://api/sb1");
	SSL_CTX_free(c);
	trust_cert_clear(&sb2);
	trust_cert_clear(&prof);
}

static void
test_trust_refuses_plain_json_client(void **state)
{
	struct fx *f = *state;

	expect_refused(f, NULL, "{\"command\":\"make test\",\"session_id\":\"00\"}\n", "sb1",
	    "TLS handshake");
	/* and a client that hangs up at once */
	expect_refused(f, NULL, "", "sb1", "TLS handshake");
}

static void
test_trust_refuses_client_without_cert(void **state)
{
	struct fx *f = *state;
	SSL_CTX *c = SSL_CTX_new(TLS_client_method());

	assert_non_null(c);
	SSL_CTX_set_min_proto_version(c, TLS1_3_VERSION);
	SSL_CTX_set_verify(c, SSL_VERIFY_NONE, NULL);
	expect_refused(f, c, NULL, "sb1", "peer did not return a certificate");
	SSL_CTX_free(c);
}

static void
test_trust_refuses_tls12_client(void **state)
{
	struct fx *f = *state;
	SSL_CTX *c = client_ctx(f->ca_pem, &f->good);

	SSL_CTX_set_min_proto_version(c, TLS1_2_VERSION);
	SSL_CTX_set_max_proto_version(c, TLS1_2_VERSION);
	expect_refused(f, c, NULL, "sb1", "unsupported protocol");
	SSL_CTX_free(c);
}

static void
test_trust_refuses_server_cert_as_client_cert(void **state)
{
	struct fx *f = *state;
	struct trust_cert srv;
	lz_err_t err = LZ_ERR_INIT;
	SSL_CTX *c;

	assert_int_equal(trust_issue_server(f->ca, 600, &srv, &err), 0);
	c = client_ctx(f->ca_pem, &srv);
	expect_refused(f, c, NULL, "sb1", "(unsuitable certificate purpose)");
	SSL_CTX_free(c);
	trust_cert_clear(&srv);
}

static void
test_trust_client_refuses_server_of_another_ca(void **state)
{
	struct fx *f = *state;
	struct trust_cert good2;
	lz_err_t err = LZ_ERR_INIT;
	SSL_CTX *c;
	char *cerr = NULL, *serr;

	/* the client trusts other_ca only: our server must not pass */
	assert_int_equal(trust_issue_client(f->other_ca, "web", "sb1", 600, &good2, &err), 0);
	c = client_ctx(f->other_ca_pem, &good2);
	serr = run(f, c, NULL, "sb1", TO_MS, &cerr);
	assert_non_null(serr);
	assert_non_null(cerr);
	if (strstr(cerr, "certificate verify failed") == NULL)
		fail_msg("client error '%s'", cerr);
	free(serr);
	free(cerr);
	SSL_CTX_free(c);
	trust_cert_clear(&good2);
}

static void
test_trust_handshake_times_out(void **state)
{
	struct fx *f = *state;
	char *serr = run(f, NULL, NULL, "sb1", 200, NULL);

	assert_non_null(serr);
	assert_string_equal(serr, "TLS handshake: timed out");
	free(serr);
}

static void
test_trust_step_api_handshakes_from_an_event_loop(void **state)
{
	struct fx *f = *state;
	SSL_CTX *c = client_ctx(f->ca_pem, &f->good);
	struct job j = { .ctx = c };
	lz_err_t err = LZ_ERR_INIT;
	pthread_t t;
	SSL *ssl;
	int srv, r, turns = 0;
	char buf[4];

	uds_pair(f, &srv, &j.fd);
	ssl = trust_ssl_new(f->sctx, srv, true, &err);
	assert_non_null(ssl);
	/* Before the client speaks the server must yield, not block: this is
	 * what lets a loop drive it (stepping first keeps the test deterministic). */
	assert_int_equal(trust_handshake_step(ssl, &err), TRUST_WANT_READ);
	assert_int_equal(pthread_create(&t, NULL, client_cb, &j), 0);
	/* what a uv_poll_t callback would do, one readiness event at a time */
	r = TRUST_WANT_READ;
	do {
		struct pollfd pfd = { srv, r == TRUST_WANT_READ ? POLLIN : POLLOUT, 0 };

		assert_int_equal(poll(&pfd, 1, TO_MS), 1);
		turns++;
	} while ((r = trust_handshake_step(ssl, &err)) > 0);
	if (r < 0)
		fail_msg("%s", err.msg);
	assert_true(turns > 0);
	assert_int_equal(trust_peer_check(ssl, "web", "sb1", &err), 0);
	assert_int_equal(trust_peer_check(ssl, "web", "sb9", &err), -1);
	lz_err_clear(&err);
	assert_int_equal(trust_read(ssl, buf, 4, TO_MS, &err), 4);
	assert_int_equal(trust_write_all(ssl, "pong", 4, TO_MS, &err), 0);
	trust_shutdown(ssl, 1000);
	SSL_free(ssl);
	close(srv);
	pthread_join(t, NULL);
	assert_null(j.err);
	assert_string_equal(j.reply, "pong");
	SSL_CTX_free(c);
}

/* A TLS client that sends raw bytes, then closes. */
struct raw_job {
	int fd;
	SSL_CTX *ctx;
	const uint8_t *bytes;
	size_t len;
};

static void *
raw_client_cb(void *arg)
{
	struct raw_job *j = arg;
	lz_err_t err = LZ_ERR_INIT;
	SSL *ssl = NULL;

	if (trust_client_connect(j->ctx, j->fd, TO_MS, &ssl, &err) == 0 &&
	    trust_write_all(ssl, j->bytes, j->len, TO_MS, &err) == 0)
		trust_shutdown(ssl, 1000);
	lz_err_clear(&err);
	SSL_free(ssl);
	close(j->fd);
	return NULL;
}

/* Serve one raw client; return trust_read_frame's result and message. */
static int
read_one_frame(struct fx *f, const uint8_t *bytes, size_t len, char **msg)
{
	SSL_CTX *c = client_ctx(f->ca_pem, &f->good);
	struct raw_job j = { .ctx = c, .bytes = bytes, .len = len };
	struct proto_buf in = { NULL, 0, 0 };
	struct proto_header h;
	const uint8_t *pl;
	lz_err_t err = LZ_ERR_INIT;
	pthread_t t;
	SSL *ssl = NULL;
	int srv, r;

	uds_pair(f, &srv, &j.fd);
	assert_int_equal(pthread_create(&t, NULL, raw_client_cb, &j), 0);
	assert_int_equal(trust_server_accept(f->sctx, srv, "web", "sb1", TO_MS, &ssl, &err), 0);
	r = trust_read_frame(ssl, &in, &h, &pl, TO_MS, &err);
	*msg = lz_steal_ptr(&err.msg);
	/* never buffered more than one header beyond what the frame allows */
	assert_true(in.len <= PROTO_HEADER_LEN + (r == 1 ? h.length : 0) || r < 0);
	assert_true(in.cap <= PROTO_MAX_PAYLOAD + PROTO_HEADER_LEN);
	proto_buf_clear(&in);
	SSL_free(ssl);
	close(srv);
	pthread_join(t, NULL);
	SSL_CTX_free(c);
	return r;
}

static void
test_trust_read_frame_refuses_oversized_and_truncated_frames(void **state)
{
	struct fx *f = *state;
	struct proto_buf b = { NULL, 0, 0 };
	uint8_t hdr[PROTO_HEADER_LEN];
	char *msg = NULL;

	/* a header claiming 100 MB: refused from the header alone */
	proto_encode_raw(&b, PROTO_VERSION, 100, "x", 1);
	memcpy(hdr, b.data, sizeof hdr);
	hdr[8] = 0x06, hdr[9] = 0x40, hdr[10] = 0x00, hdr[11] = 0x00;	/* 100 MiB */
	assert_int_equal(read_one_frame(f, hdr, sizeof hdr, &msg), -1);
	assert_non_null(strstr(msg, "exceeds the 1048576 limit"));
	free(msg);
	/* half a frame, then close_notify */
	assert_int_equal(read_one_frame(f, b.data, b.len - 1, &msg), -1);
	assert_string_equal(msg, "connection closed inside a frame");
	free(msg);
	/* a whole frame */
	assert_int_equal(read_one_frame(f, b.data, b.len, &msg), 1);
	assert_null(msg);
	/* nothing at all: a clean close */
	assert_int_equal(read_one_frame(f, b.data, 0, &msg), 0);
	assert_null(msg);
	/* not a Lazaret frame */
	assert_int_equal(read_one_frame(f, (const uint8_t *)"{\"json\":1}", 10, &msg), -1);
	assert_non_null(strstr(msg, "bad frame magic"));
	free(msg);
	proto_buf_clear(&b);
}

static void
test_trust_san_uri_refuses_odd_names(void **state)
{
	struct fx *f = *state;
	struct trust_cert c;
	lz_err_t err = LZ_ERR_INIT;
	char *u = trust_san_uri("web", "sb-1.x_y");

	assert_string_equal(u, "lazaret://web/sb-1.x_y");
	free(u);
	assert_null(trust_san_uri("web", "a/b"));
	assert_null(trust_san_uri("web", "a,URI:x"));
	assert_null(trust_san_uri("", "x"));
	assert_int_equal(trust_issue_client(f->ca, "web", "a b", 60, &c, &err), -1);
	assert_non_null(strstr(err.msg, "[A-Za-z0-9._-]"));
	lz_err_clear(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_trust_accepts_good_client, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_client_key_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_refuses_cert_of_another_ca, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_refuses_expired_cert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_refuses_san_of_another_sandbox, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_refuses_plain_json_client, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_refuses_client_without_cert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_refuses_tls12_client, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_refuses_server_cert_as_client_cert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_client_refuses_server_of_another_ca, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_handshake_times_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_step_api_handshakes_from_an_event_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_read_frame_refuses_oversized_and_truncated_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trust_san_uri_refuses_odd_names, setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);	/* as every program using trust.h must */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
