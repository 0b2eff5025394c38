/* trust.h - the Trust Anchor (spec 5.1.1): an in-memory CA (EC P-256; its key
 * never leaves the process), short-lived certificates for each sandbox whose
 * URI SAN is lazaret://<profile>/<sandbox_id>, a server certificate for the
 * coordinator (DNS SAN lazaret-coordinator), and TLS 1.3-only mutual TLS over
 * an existing socket (a UNIX socket: gVisor relays it, so peer credentials
 * prove nothing and identity rests on these certificates).
 *
 * trust_server_accept() returns only after the handshake verified the client
 * certificate against this CA (validity window included) and its SAN names
 * exactly the expected sandbox: nothing of the payload is read before.
 * Sockets are switched to non-blocking and every step takes a deadline.
 * OpenSSL writes with write(2): a program using this must ignore SIGPIPE.
 */
#ifndef LZ_TRUST_H
#define LZ_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <openssl/ssl.h>

#include "err.h"
#include "proto.h"

#define TRUST_SERVER_NAME	"lazaret-coordinator"
#define TRUST_SAN_SCHEME	"lazaret://"

struct trust_ca;

/* PEM texts of an issued certificate and its private key (owned). */
struct trust_cert {
	char *cert_pem;
	char *key_pem;
};

/* Initialise OpenSSL without reading any openssl.cnf (the static client runs
 * in images that may carry a hostile one). Idempotent. */
void trust_init(void);

/* A fresh self-signed CA valid for lifetime_s seconds from now. */
int trust_ca_new(int64_t lifetime_s, struct trust_ca **out, lz_err_t *err);
void trust_ca_free(struct trust_ca *);
/* The CA certificate as PEM (caller frees): what the sandbox trusts. */
char *trust_ca_cert_pem(const struct trust_ca *);

/* "lazaret://<profile>/<sandbox_id>" (caller frees); NULL when either part
 * holds anything but [A-Za-z0-9._-] or is empty or longer than 128. */
char *trust_san_uri(const char *profile, const char *sandbox_id);

/* A client certificate for one sandbox, valid from now for lifetime_s. */
int trust_issue_client(struct trust_ca *, const char *profile, const char *sandbox_id,
    int64_t lifetime_s, struct trust_cert *out, lz_err_t *err);
/* The same with an explicit validity window (tests: expired certificates). */
int trust_issue_client_window(struct trust_ca *, const char *profile, const char *sandbox_id,
    time_t not_before, time_t not_after, struct trust_cert *out, lz_err_t *err);
/* The coordinator's server certificate. */
int trust_issue_server(struct trust_ca *, int64_t lifetime_s, struct trust_cert *out,
    lz_err_t *err);
/* Free both texts, wiping the key first. */
void trust_cert_clear(struct trust_cert *);

/* Server context: TLS 1.3 only, a fresh server certificate from ca, client
 * certificates required and verified against ca alone, no session resumption. */
SSL_CTX *trust_server_ctx_new(struct trust_ca *ca, lz_err_t *err);
/* Client context from PEM texts: TLS 1.3 only, the server must present a
 * certificate of this CA for TRUST_SERVER_NAME. */
SSL_CTX *trust_client_ctx_new(const char *ca_pem, const char *cert_pem, const char *key_pem,
    lz_err_t *err);

/* Handshake as server on fd (made non-blocking), then check the client's SAN
 * is exactly trust_san_uri(profile, sandbox_id). timeout_ms < 0: no deadline.
 * On success *out owns fd's TLS state (SSL_free it; fd stays the caller's). */
int trust_server_accept(SSL_CTX *, int fd, const char *profile, const char *sandbox_id,
    int timeout_ms, SSL **out, lz_err_t *err);
/* Handshake as client on fd (made non-blocking). */
int trust_client_connect(SSL_CTX *, int fd, int timeout_ms, SSL **out, lz_err_t *err);
/* The verified peer certificate's single URI SAN is the expected one. */
int trust_peer_check(SSL *, const char *profile, const char *sandbox_id, lz_err_t *err);

/* The same pieces for an event loop (uv_poll_t on fd): trust_ssl_new()
 * attaches (non-blocking, role set); call trust_handshake_step() whenever fd
 * is ready as asked until it returns 0, then trust_peer_check() before
 * reading anything. trust_want() classifies the return of any SSL_* call. */
#define TRUST_WANT_READ		1
#define TRUST_WANT_WRITE	2
SSL *trust_ssl_new(SSL_CTX *, int fd, bool server, lz_err_t *err);
/* 0 when the handshake is complete, TRUST_WANT_READ/WRITE, or -1. */
int trust_handshake_step(SSL *, lz_err_t *err);
/* TRUST_WANT_READ/WRITE, or -1 with err ("what: ..."). */
int trust_want(SSL *, int ret, const char *what, lz_err_t *err);

/* Write all of buf before the deadline. */
int trust_write_all(SSL *, const void *buf, size_t len, int timeout_ms, lz_err_t *err);
/* Read up to cap bytes: > 0 bytes read, 0 at a clean close (close_notify),
 * -1 on error or timeout (err->code ETIMEDOUT). */
ssize_t trust_read(SSL *, void *buf, size_t cap, int timeout_ms, lz_err_t *err);
/* Read until in holds one whole proto frame (the header is checked before
 * its payload is read, so an oversized length is refused at once). Returns
 * 1 with *hdr and *payload pointing into in (consume PROTO_HEADER_LEN +
 * hdr->length when done), 0 at a clean close before any byte of a frame, -1
 * on error. */
int trust_read_frame(SSL *, struct proto_buf *in, struct proto_header *hdr,
    const uint8_t **payload, int timeout_ms, lz_err_t *err);
/* Send close_notify (best effort, bounded by timeout_ms). */
void trust_shutdown(SSL *, int timeout_ms);

#endif
