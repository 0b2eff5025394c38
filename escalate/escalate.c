/* escalate.c - lazaret-escalate: ask the host to run one command (Host
 * Escalation, docs/escalation.md). Static; runs inside the sandbox.
 *
 * Gets the session credential from the session's holder (hold.c, through
 * LAZARET_ESC_FD; asked first, taken after the TLS set-up) or from
 * LAZARET_CRED, signs one request,
 * sends it over TLS 1.3 mTLS on the escalation socket, then relays what the
 * host sends back: PENDING notes to stderr, OUTPUT to stdout/stderr, and
 * the RESULT as the exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cred-fd.h"
#include "hold.h"
#include "trust.h"
#include "esc-payload.h"
#include "shellwords.h"
#include "sign.h"
#include "sudo.h"
#include "trace.h"
#include "xmalloc.h"

/* Exit statuses of our own (the command's status passes through). */
#define EXIT_TIMEOUT	124
#define EXIT_FAILED	125	/* could not ask, or the host refused the request */
#define EXIT_DENIED	126
#define EXIT_NOSTART	127	/* approved but could not be started on the host */
#define EXIT_USAGE	129

#define DEFAULT_SOCK	"/run/lazaret/escalate.sock"
#define DEFAULT_TLS	"/run/lazaret/tls"
#define PEM_MAX		(64 * 1024)
#define CONNECT_MS	10000

static const char usage_text[] =
"usage: lazaret-escalate [--justify TEXT] [--timeout SECONDS] [--] COMMAND [ARG...]\n"
"\n"
"Ask the human at the host to run COMMAND on the host, in the host directory\n"
"that matches the current one. The request is signed with this session's\n"
"credential and sent over mutual TLS; the command runs without a shell, its\n"
"output comes back here and its exit status becomes ours.\n"
"\n"
"  -j, --justify TEXT     why the command is needed (shown to the human)\n"
"  -t, --timeout SECONDS  give up after this long (default: wait for the host)\n"
"  -h, --help             this text\n"
"  -V, --version          print the version\n"
"\n"
"Exit status: the command's own when it ran; 124 timed out; 125 could not ask\n"
"or the host refused the request; 126 denied; 127 approved but could not\n"
"start on the host; 129 usage error.\n"
"\n"
"Environment: LAZARET_SESSION_ID, LAZARET_ESC_FD (set by Lazaret; or\n"
"LAZARET_CRED, the credential itself);\n"
"LAZARET_ESCALATE_SOCK (" DEFAULT_SOCK "), LAZARET_TLS_DIR (" DEFAULT_TLS ").\n";

struct esc_opts {
	const char *justify;
	int timeout_ms;		/* -1: none */
	char **argv;
};

static void
esc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
esc_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("lazaret-escalate: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int
esc_parse_args(int argc, char **argv, struct esc_opts *o)
{
	static const struct option longopts[] = {
		{ "justify", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->justify = "";
	o->timeout_ms = -1;
	while ((c = getopt_long(argc, argv, "+j:t:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->justify = optarg;
			break;
		case 't': {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || v <= 0 || v > 86400) {
				esc_warn("--timeout: expected seconds between 1 and 86400, got '%s'", optarg);
				return -EXIT_USAGE;
			}
			o->timeout_ms = (int)v * 1000;
			break;
		}
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case 'V':
			printf("lazaret-escalate %s\n", LZ_VERSION);
			return 1;
		default:
			fputs(usage_text, stderr);
			return -EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		esc_warn("no command given");
		fputs(usage_text, stderr);
		return -EXIT_USAGE;
	}
	o->argv = argv + optind;
	return 0;
}

static int64_t
esc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left before deadline (-1: none); 0 when it has passed. */
static int
esc_left(int64_t deadline)
{
	int64_t l;

	if (deadline < 0)
		return -1;
	l = deadline - esc_now_ms();
	return l > 0 ? (int)l : 0;
}

static int
esc_read_file(const char *dir, const char *name, char **out, lz_err_t *err)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	char *buf;
	ssize_t n;

	if (fd < 0)
		return lz_err_sys(err, errno, "cannot open %s", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > PEM_MAX)
		return lz_err_set(err, LZ_EINVAL, "%s: not a certificate file", path);
	buf = xmalloc((size_t)st.st_size + 1);
	n = read(fd, buf, (size_t)st.st_size);
	if (n != st.st_size) {
		free(buf);
		return lz_err_sys(err, n < 0 ? errno : EIO, "cannot read %s", path);
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

/* The credential: LAZARET_CRED if set (*out), else asked of the holder,
 * whose answer then waits on *reply for esc_cred_take: the TLS set-up runs
 * meanwhile instead of waiting for the holder process to be scheduled. */
static int
esc_cred_ask(char **out, int *reply, lz_err_t *err)
{
	const char *v = getenv(LZ_SIGN_ENV_CRED), *fds = getenv(LZ_CRED_FD_ENV);
	char *end;
	long fd;

	*out = NULL;
	*reply = -1;
	if (v != NULL && *v != '\0') {
		*out = xstrdup(v);
		return 0;
	}
	if ((fds == NULL || *fds == '\0') && getenv(LZ_CRED_OFF_ENV) != NULL)
		return lz_err_set(err, LZ_EINVAL, "this session has no credential: it started "
		    "with %.32s, which cannot keep one out of its environment; escalation needs "
		    "sessions started with lazaret sandbox-exec (see `lazaret doctor`)",
		    getenv(LZ_CRED_OFF_ENV));
	if (fds == NULL || *fds == '\0')
		return lz_err_set(err, LZ_EINVAL, "neither %s nor %s is set: run this from a "
		    "Lazaret session", LZ_CRED_FD_ENV, LZ_SIGN_ENV_CRED);
	errno = 0;
	fd = strtol(fds, &end, 10);
	if (errno != 0 || *end != '\0' || fd < 3 || fd > 65535)
		return lz_err_set(err, LZ_EINVAL, "%s=%s: expected a file descriptor number",
		    LZ_CRED_FD_ENV, fds);
	return lz_cred_fd_ask((int)fd, reply, err);
}

/* The request without its signature: session, command, justification,
 * cwd, each checked (LZ_EUSAGE for the user's own mistakes). */
static int
esc_request_new(const struct esc_opts *o, struct esc_payload *p, lz_err_t *err)
{
	const char *sid = getenv(LZ_SIGN_ENV_SESSION);
	char cwd[PATH_MAX];
	unsigned meta;

	memset(p, 0, sizeof *p);
	if (sid == NULL || esc_payload_unhex(sid, strlen(sid), p->session_id, ESC_ID_LEN) < 0)
		return lz_err_set(err, LZ_EINVAL,
		    "%s is missing or not 32 hex digits: run this from a Lazaret session",
		    LZ_SIGN_ENV_SESSION);
	p->command = lz_shellwords_join(o->argv);
	meta = lz_shellwords_scan(p->command, strlen(p->command));
	if (meta & LZ_SW_BADUTF8)
		return lz_err_set(err, LZ_EUSAGE, "the command is not valid UTF-8");
	if (strlen(p->command) > ESC_COMMAND_MAX)
		return lz_err_set(err, LZ_EUSAGE, "the command is longer than %u bytes",
		    ESC_COMMAND_MAX);
	if (strlen(o->justify) > ESC_JUSTIFY_MAX ||
	    (lz_shellwords_scan(o->justify, strlen(o->justify)) & LZ_SW_BADUTF8))
		return lz_err_set(err, LZ_EUSAGE, "--justify: at most %u bytes of UTF-8",
		    ESC_JUSTIFY_MAX);
	if (getcwd(cwd, sizeof cwd) == NULL)
		return lz_err_sys(err, errno, "cannot get the current directory");
	p->justification = xstrdup(o->justify);
	p->cwd = xstrdup(cwd);
	return 0;
}

/* Sign p with the credential (cv, or the holder's answer on reply, which
 * this consumes): the request as JSON (caller frees). */
static int
esc_request_sign(struct esc_payload *p, char *cv, int reply, char **json, lz_err_t *err)
{
	struct lz_sign_cred cred;
	struct lz_sign_key del;
	int rc = -1;

	if (cv == NULL && lz_cred_fd_answer(reply, &cv, err) < 0)
		return lz_err_wrap(err, "no usable session credential");
	if (lz_sign_cred_from_env(cv, &cred, &del, err) < 0) {
		explicit_bzero(cv, strlen(cv));
		free(cv);
		return lz_err_wrap(err, "no usable session credential");
	}
	explicit_bzero(cv, strlen(cv));
	free(cv);
	if (memcmp(cred.session_id, p->session_id, ESC_ID_LEN) != 0) {
		lz_err_set(err, LZ_EINVAL, "%s belongs to another session than %s",
		    LZ_SIGN_ENV_CRED, LZ_SIGN_ENV_SESSION);
		goto cleanup;
	}
	p->timestamp = (int64_t)time(NULL);
	lz_sign_random_id(p->request_id);
	lz_sign_payload(p, &cred, &del);
	*json = esc_payload_encode(p);
	rc = 0;
cleanup:
	lz_sign_key_wipe(&del);
	return rc;
}

static int
esc_connect(const char *path, lz_err_t *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof a.sun_path)
		return lz_err_set(err, ENAMETOOLONG, "socket path too long: %s", path);
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return lz_err_sys(err, errno, "socket");
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		int e = errno;

		close(fd);
		return lz_err_sys(err, e, "cannot connect to %s (is escalation enabled?)", path);
	}
	return fd;
}

static int
esc_write_fd(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Relay frames until RESULT; return our exit status. */
static int
esc_relay(SSL *ssl, int64_t deadline, lz_err_t *err)
{
	struct proto_buf in = { NULL, 0, 0 };
	int status = EXIT_FAILED;

	for (;;) {
		struct proto_header h;
		const uint8_t *pl;
		int r;

		if (deadline >= 0 && esc_left(deadline) == 0) {
			lz_err_set(err, ETIMEDOUT, "timed out waiting for the host");
			status = EXIT_TIMEOUT;
			break;
		}
		r = trust_read_frame(ssl, &in, &h, &pl, esc_left(deadline), err);
		if (r < 0) {
			status = err->code == ETIMEDOUT ? EXIT_TIMEOUT : EXIT_FAILED;
			if (err->code == ETIMEDOUT)
				lz_err_set(err, ETIMEDOUT, "timed out waiting for the host");
			break;
		}
		if (r == 0) {
			lz_err_set(err, EPROTO, "the host closed the connection without an answer");
			break;
		}
		if (h.type == ESC_MSG_OUTPUT) {
			uint8_t stream;
			const uint8_t *data;
			size_t n;

			if (esc_payload_decode_output(pl, h.length, &stream, &data, &n, err) < 0)
				break;
			(void)esc_write_fd(stream == 1 ? STDOUT_FILENO : STDERR_FILENO, data, n);
		} else if (h.type == ESC_MSG_PENDING) {
			char *t;

			if (esc_payload_decode_text(pl, h.length, &t, err) < 0)
				break;
			esc_warn("%s", t);
			free(t);
		} else if (h.type == ESC_MSG_RESULT) {
			struct esc_payload_result res;

			if (esc_payload_decode_result(pl, h.length, &res, err) < 0)
				break;
			switch (res.outcome) {
			case ESC_OUTCOME_RAN:
				status = res.status < 0 || res.status > 255 ? EXIT_FAILED : res.status;
				break;
			case ESC_OUTCOME_DENIED:
				status = EXIT_DENIED;
				esc_warn("denied%s%s", *res.message ? ": " : "", res.message);
				break;
			case ESC_OUTCOME_TIMEOUT:
				status = EXIT_TIMEOUT;
				esc_warn("no decision in time%s%s", *res.message ? ": " : "", res.message);
				break;
			case ESC_OUTCOME_REJECTED:
				status = EXIT_FAILED;
				esc_warn("refused by the host%s%s", *res.message ? ": " : "", res.message);
				break;
			case ESC_OUTCOME_FAILED:
				status = EXIT_NOSTART;
				esc_warn("could not start on the host%s%s", *res.message ? ": " : "",
				    res.message);
				break;
			}
			esc_payload_result_clear(&res);
			lz_err_clear(err);
			break;
		} else {
			lz_err_set(err, EPROTO, "unexpected message %u from the host", h.type);
			break;
		}
		proto_buf_consume(&in, PROTO_HEADER_LEN + h.length);
	}
	proto_buf_clear(&in);
	return status;
}

int
main(int argc, char **argv)
{
	struct esc_opts o;
	lz_err_t err = LZ_ERR_INIT;
	const char *sock = getenv("LAZARET_ESCALATE_SOCK");
	const char *tls = getenv("LAZARET_TLS_DIR");
	char *json = NULL, *ca = NULL, *cert = NULL, *key = NULL, *cv = NULL;
	struct esc_payload req;
	struct proto_buf out = { NULL, 0, 0 };
	SSL_CTX *ctx = NULL;
	SSL *ssl = NULL;
	int64_t deadline;
	int fd = -1, reply = -1, status = EXIT_FAILED, r;

	memset(&req, 0, sizeof req);
	{
		const char *base = strrchr(argv[0], '/');

		if (strcmp(base != NULL ? base + 1 : argv[0], "sudo") == 0)
			return esc_sudo_main(argc, argv);
	}
	if (argc > 1 && strcmp(argv[1], "--hold") == 0)
		return esc_hold_main(argc - 2, argv + 2);
	signal(SIGPIPE, SIG_IGN);
	/* Before any other OpenSSL call: a process that exits right after its one
	 * request need not free OpenSSL's tables (1.3M instructions), nor fill
	 * the legacy cipher-name table (2.3M): TLS 1.3 fetches its ciphers from
	 * the provider. (The digest table stays: certificate checks look names
	 * up in it.) */
	OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT | OPENSSL_INIT_NO_ADD_ALL_CIPHERS, NULL);
	lz_trace_start("escalate");
	r = esc_parse_args(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : -r;
	deadline = o.timeout_ms < 0 ? -1 : esc_now_ms() + o.timeout_ms;
	if (sock == NULL || *sock == '\0')
		sock = DEFAULT_SOCK;
	if (tls == NULL || *tls == '\0')
		tls = DEFAULT_TLS;
	trust_init();
	if (lz_sign_init(&err) < 0 || esc_request_new(&o, &req, &err) < 0) {
		status = err.code == LZ_EUSAGE ? EXIT_USAGE : EXIT_FAILED;
		goto fail;
	}
	if (esc_cred_ask(&cv, &reply, &err) < 0) {
		lz_err_wrap(&err, "no usable session credential");
		goto fail;
	}
	lz_trace("request, credential asked");
	if (esc_read_file(tls, "ca.pem", &ca, &err) < 0 ||
	    esc_read_file(tls, "cert.pem", &cert, &err) < 0 ||
	    esc_read_file(tls, "key.pem", &key, &err) < 0)
		goto fail;
	ctx = trust_client_ctx_new(ca, cert, key, &err);
	if (ctx == NULL)
		goto fail;
	lz_trace("TLS context");
	r = esc_request_sign(&req, lz_steal_ptr(&cv), reply, &json, &err);
	reply = -1;
	if (r < 0)
		goto fail;
	lz_trace("credential, signed request");
	fd = esc_connect(sock, &err);
	if (fd < 0)
		goto fail;
	lz_trace("connected");
	if (trust_client_connect(ctx, fd, deadline < 0 ? CONNECT_MS : esc_left(deadline),
	    &ssl, &err) < 0) {
		lz_err_wrap(&err, "cannot verify the host");
		goto fail;
	}
	lz_trace("TLS handshake");
	esc_payload_frame_request(&out, json);
	if (trust_write_all(ssl, out.data, out.len, CONNECT_MS, &err) < 0)
		goto fail;
	status = esc_relay(ssl, deadline, &err);
	if (err.msg != NULL)
		goto fail;
	lz_trace("request to result");
	trust_shutdown(ssl, 1000);
	goto cleanup;
fail:
	esc_warn("%s", err.msg != NULL ? err.msg : "failed");
	if (err.code == ETIMEDOUT)
		status = EXIT_TIMEOUT;
cleanup:
	lz_err_clear(&err);
	esc_payload_clear(&req);
	if (reply >= 0)
		close(reply);
	if (cv != NULL) {
		explicit_bzero(cv, strlen(cv));
		free(cv);
	}
	proto_buf_clear(&out);
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	if (fd >= 0)
		close(fd);
	if (key != NULL)
		OPENSSL_cleanse(key, strlen(key));
	free(json);
	free(ca);
	free(cert);
	free(key);
	return status;
}
