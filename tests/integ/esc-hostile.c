/* esc-hostile.c - test-only static client for tests/integ/test-escalate.sh:
 * run inside the sandbox, it sends what lazaret-escalate never would, and
 * prints what the host answered as one line:
 *	outcome=N status=S msg=TEXT	(a RESULT came)
 *	closed				(the host closed without a RESULT)
 *	tls-failed: WHY			(the handshake failed)
 * Modes: plain (no TLS at all), big (a 100 MB REQUEST header), truncated
 * (half a frame, then close), malformed (a JSON REQUEST that is no request),
 * truncjson (a whole frame holding cut JSON), forged (request signed by a key
 * the credential does not name), replay (the same signed request twice; the
 * first line is the first answer), send (a proper request, whatever
 * LAZARET_SESSION_ID says), cred (print this session's credential, asked
 * from its holder as lazaret-escalate does). Built by the test with gcc -static
 * against the same backend/common sources as lazaret-escalate (the probe
 * binary's rule links no OpenSSL). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cred-fd.h"
#include "esc-payload.h"
#include "sign.h"
#include "trust.h"
#include "xmalloc.h"

#define SOCK "/run/lazaret/escalate.sock"
#define TLS "/run/lazaret/tls"
#define TO 15000

static char *
slurp(const char *name)
{
	char *p = xasprintf("%s/%s", getenv("LAZARET_TLS_DIR") != NULL ?
	    getenv("LAZARET_TLS_DIR") : TLS, name), *buf = xmalloc(65536);
	FILE *f = fopen(p, "r");
	size_t n;

	if (f == NULL) {
		fprintf(stderr, "cannot open %s\n", p);
		exit(2);
	}
	n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	fclose(f);
	free(p);
	return buf;
}

static int
dial(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof a.sun_path, "%s", SOCK);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		printf("connect: %s\n", strerror(errno));
		exit(2);
	}
	return fd;
}

static SSL *
tls(int fd)
{
	char *ca = slurp("ca.pem"), *cert = slurp("cert.pem"), *key = slurp("key.pem");
	lz_err_t err = LZ_ERR_INIT;
	SSL_CTX *ctx = trust_client_ctx_new(ca, cert, key, &err);
	SSL *ssl = NULL;

	if (ctx == NULL || trust_client_connect(ctx, fd, TO, &ssl, &err) < 0) {
		printf("tls-failed: %s\n", err.msg);
		exit(0);
	}
	return ssl;
}

/* Print the host's answer. */
static void
answer(SSL *ssl)
{
	struct proto_buf in = { NULL, 0, 0 };
	struct proto_header h;
	const uint8_t *pl;
	struct esc_payload_result r;
	lz_err_t err = LZ_ERR_INIT;

	for (;;) {
		if (trust_read_frame(ssl, &in, &h, &pl, TO, &err) != 1) {
			printf("closed\n");
			return;
		}
		if (h.type == ESC_MSG_RESULT && esc_payload_decode_result(pl, h.length, &r, &err) == 0) {
			printf("outcome=%d status=%d msg=%s\n", r.outcome, r.status, r.message);
			esc_payload_result_clear(&r);
			return;
		}
		proto_buf_consume(&in, PROTO_HEADER_LEN + h.length);
	}
}

/* This session's credential: LAZARET_CRED, else from its holder. */
static char *
own_cred(void)
{
	const char *v = getenv("LAZARET_CRED"), *fd = getenv(LZ_CRED_FD_ENV);
	lz_err_t err = LZ_ERR_INIT;
	char *c = NULL;

	if (v != NULL && *v != '\0')
		return xstrdup(v);
	if (fd == NULL || lz_cred_fd_fetch(atoi(fd), &c, &err) < 0) {
		printf("no credential: %s\n", err.msg != NULL ? err.msg : "no LAZARET_ESC_FD");
		exit(2);
	}
	return c;
}

/* A request for cmd signed as lazaret-escalate would, or by a stranger's key. */
static char *
request(const char *cmd, bool forge)
{
	struct esc_payload p;
	struct lz_sign_cred cred;
	struct lz_sign_key del, other;
	lz_err_t err = LZ_ERR_INIT;
	char *json;

	memset(&p, 0, sizeof p);
	if (esc_payload_unhex(getenv("LAZARET_SESSION_ID"), 32, p.session_id, ESC_ID_LEN) < 0 ||
	    lz_sign_cred_from_env(own_cred(), &cred, &del, &err) < 0) {
		printf("no session env\n");
		exit(2);
	}
	p.command = xstrdup(cmd);
	p.justification = xstrdup("hostile test");
	p.cwd = xstrdup("/workspace");
	p.timestamp = time(NULL);
	lz_sign_random_id(p.request_id);
	if (forge) {
		lz_sign_keypair(&other);
		lz_sign_payload(&p, &cred, &other);
	} else
		lz_sign_payload(&p, &cred, &del);
	json = esc_payload_encode(&p);
	esc_payload_clear(&p);
	return json;
}

static void
send_raw(SSL *ssl, const void *buf, size_t len)
{
	lz_err_t err = LZ_ERR_INIT;

	if (trust_write_all(ssl, buf, len, TO, &err) < 0)
		lz_err_clear(&err);
}

static void
send_request(const char *json)
{
	struct proto_buf b = { NULL, 0, 0 };
	SSL *ssl = tls(dial());

	esc_payload_frame_request(&b, json);
	send_raw(ssl, b.data, b.len);
	answer(ssl);
	proto_buf_clear(&b);
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	struct proto_buf b = { NULL, 0, 0 };
	char *json;
	SSL *ssl;

	signal(SIGPIPE, SIG_IGN);
	trust_init();
	if (lz_sign_init(NULL) < 0)
		return 2;
	if (strcmp(mode, "plain") == 0) {
		static const char get[] = "GET / HTTP/1.0\r\n\r\n";
		char buf[256];
		int fd = dial();
		ssize_t n;

		if (write(fd, get, sizeof get - 1) < 0)
			return 2;
		n = read(fd, buf, sizeof buf);
		printf(n <= 0 ? "closed\n" : "got %zd bytes\n", n);
	} else if (strcmp(mode, "big") == 0) {
		static const uint8_t hdr[12] = { 'L', 'Z', 'C', 'T', 1, 0, 0, 100,
			0x06, 0x40, 0x00, 0x00 };	/* 100 MiB + 4 MiB */
		ssl = tls(dial());
		send_raw(ssl, hdr, sizeof hdr);
		answer(ssl);
	} else if (strcmp(mode, "truncated") == 0) {
		json = request("true", false);
		esc_payload_frame_request(&b, json);
		ssl = tls(dial());
		send_raw(ssl, b.data, b.len / 2);
		trust_shutdown(ssl, 1000);
		answer(ssl);
	} else if (strcmp(mode, "malformed") == 0) {
		send_request("{\"request_id\": 1, \"command\": [\"true\"]}");
	} else if (strcmp(mode, "truncjson") == 0) {
		json = request("true", false);
		json[strlen(json) / 2] = '\0';
		send_request(json);
	} else if (strcmp(mode, "forged") == 0) {
		send_request(request(argc > 2 ? argv[2] : "true", true));
	} else if (strcmp(mode, "send") == 0) {
		/* As lazaret-escalate, minus its check that the env is consistent. */
		send_request(request(argc > 2 ? argv[2] : "true", false));
	} else if (strcmp(mode, "cred") == 0) {
		printf("%s\n", own_cred());	/* to tamper with it */
	} else if (strcmp(mode, "replay") == 0) {
		json = request(argc > 2 ? argv[2] : "true", false);
		send_request(json);
		send_request(json);
	} else {
		fprintf(stderr, "usage: esc-hostile plain|big|truncated|malformed|truncjson|forged|send|replay|cred [CMD]\n");
		return 2;
	}
	return 0;
}
