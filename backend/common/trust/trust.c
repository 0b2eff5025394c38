/* trust.c - Trust Anchor CA and TLS 1.3 mutual authentication (OpenSSL 3).
 *
 * Theory of operation: the CA key is an EVP_PKEY held only in struct
 * trust_ca. Certificates are X.509 v3 with basicConstraints, keyUsage and an
 * extendedKeyUsage (clientAuth for sandboxes, serverAuth for the
 * coordinator) so that neither can stand in for the other; OpenSSL checks
 * the purpose during verification. Handshakes and I/O run on non-blocking
 * fds with poll() and one deadline per call.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "trust.h"
#include "xmalloc.h"

#define TRUST_NAME_MAX 128
#define TRUST_CLOCK_SKEW 60	/* seconds of notBefore slack for sandbox clocks */

struct trust_ca {
	EVP_PKEY *key;
	X509 *cert;
};

/* err <- "what: <first OpenSSL error>", and the OpenSSL queue emptied. */
static int
trust_ssl_err(lz_err_t *err, int code, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[256];

	if (e != 0) {
		ERR_error_string_n(e, buf, sizeof buf);
		ERR_clear_error();
		return lz_err_set(err, code, "%s: %s", what, buf);
	}
	return lz_err_set(err, code, "%s", what);
}

void
trust_init(void)
{
	OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_LOAD_SSL_STRINGS |
	    OPENSSL_INIT_LOAD_CRYPTO_STRINGS, NULL);
}

static bool
trust_name_ok(const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n == 0 || n > TRUST_NAME_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

char *
trust_san_uri(const char *profile, const char *sandbox_id)
{
	if (!trust_name_ok(profile) || !trust_name_ok(sandbox_id))
		return NULL;
	return xasprintf(TRUST_SAN_SCHEME "%s/%s", profile, sandbox_id);
}

static EVP_PKEY *
trust_keygen(void)
{
	return EVP_EC_gen("P-256");
}

static int
trust_add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	int ok;

	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (ext == NULL)
		return -1;
	ok = X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	return ok == 1 ? 0 : -1;
}

/* subjectAltName with one URI or DNS name, built directly (no config-string
 * parsing of outside text). */
static int
trust_add_san(X509 *x, int type, const char *value)
{
	GENERAL_NAMES *names = GENERAL_NAMES_new();
	GENERAL_NAME *gn = GENERAL_NAME_new();
	ASN1_IA5STRING *s = ASN1_IA5STRING_new();
	int rc = -1;

	if (names == NULL || gn == NULL || s == NULL ||
	    ASN1_STRING_set(s, value, (int)strlen(value)) != 1)
		goto cleanup;
	GENERAL_NAME_set0_value(gn, type, s);
	s = NULL;
	if (sk_GENERAL_NAME_push(names, gn) == 0)
		goto cleanup;
	gn = NULL;
	if (X509_add1_ext_i2d(x, NID_subject_alt_name, names, 1, X509V3_ADD_DEFAULT) == 1)
		rc = 0;
cleanup:
	ASN1_IA5STRING_free(s);
	GENERAL_NAME_free(gn);
	GENERAL_NAMES_free(names);
	return rc;
}

/* A certificate for key signed by (issuer, issuer_key); issuer NULL: self-signed. */
static X509 *
trust_mkcert(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *issuer_key,
    time_t not_before, time_t not_after, bool ca, int san_type, const char *san)
{
	X509 *x = X509_new();
	X509_NAME *name;
	unsigned char serial[16];
	BIGNUM *bn = NULL;
	bool ok = false;

	if (x == NULL || RAND_bytes(serial, sizeof serial) != 1)
		goto cleanup;
	serial[0] &= 0x7f;	/* positive */
	bn = BN_bin2bn(serial, sizeof serial, NULL);
	if (bn == NULL || BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) == NULL)
		goto cleanup;
	if (X509_set_version(x, X509_VERSION_3) != 1 ||
	    ASN1_TIME_set(X509_getm_notBefore(x), not_before) == NULL ||
	    ASN1_TIME_set(X509_getm_notAfter(x), not_after) == NULL ||
	    X509_set_pubkey(x, key) != 1)
		goto cleanup;
	name = X509_get_subject_name(x);
	if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
	    (const unsigned char *)"Lazaret", -1, -1, 0) != 1 ||
	    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
	    (const unsigned char *)cn, -1, -1, 0) != 1)
		goto cleanup;
	if (X509_set_issuer_name(x, issuer != NULL ? X509_get_subject_name(issuer) : name) != 1)
		goto cleanup;
	if (trust_add_ext(x, issuer != NULL ? issuer : x, NID_basic_constraints,
	    ca ? "critical,CA:TRUE,pathlen:0" : "critical,CA:FALSE") < 0 ||
	    trust_add_ext(x, issuer != NULL ? issuer : x, NID_key_usage,
	    ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature") < 0 ||
	    trust_add_ext(x, issuer != NULL ? issuer : x, NID_subject_key_identifier, "hash") < 0)
		goto cleanup;
	if (issuer != NULL && trust_add_ext(x, issuer, NID_authority_key_identifier, "keyid:always") < 0)
		goto cleanup;
	if (san_type == GEN_URI && (trust_add_ext(x, issuer, NID_ext_key_usage, "clientAuth") < 0 ||
	    trust_add_san(x, GEN_URI, san) < 0))
		goto cleanup;
	if (san_type == GEN_DNS && (trust_add_ext(x, issuer, NID_ext_key_usage, "serverAuth") < 0 ||
	    trust_add_san(x, GEN_DNS, san) < 0))
		goto cleanup;
	if (X509_sign(x, issuer_key, EVP_sha256()) == 0)
		goto cleanup;
	ok = true;
cleanup:
	BN_free(bn);
	if (!ok) {
		X509_free(x);
		return NULL;
	}
	return x;
}

int
trust_ca_new(int64_t lifetime_s, struct trust_ca **out, lz_err_t *err)
{
	struct trust_ca *ca = xcalloc(1, sizeof *ca);
	time_t now = time(NULL);

	*out = NULL;
	trust_init();
	ca->key = trust_keygen();
	if (ca->key == NULL) {
		trust_ca_free(ca);
		return trust_ssl_err(err, LZ_EINVAL, "trust anchor: cannot generate the CA key");
	}
	ca->cert = trust_mkcert(ca->key, "Lazaret Trust Anchor", NULL, ca->key,
	    now - TRUST_CLOCK_SKEW, now + lifetime_s, true, 0, NULL);
	if (ca->cert == NULL) {
		trust_ca_free(ca);
		return trust_ssl_err(err, LZ_EINVAL, "trust anchor: cannot create the CA certificate");
	}
	*out = ca;
	return 0;
}

void
trust_ca_free(struct trust_ca *ca)
{
	if (ca == NULL)
		return;
	EVP_PKEY_free(ca->key);
	X509_free(ca->cert);
	free(ca);
}

static char *
trust_bio_text(BIO *b)
{
	char *data;
	long n = BIO_get_mem_data(b, &data);

	return xstrndup(data, (size_t)n);
}

static char *
trust_x509_pem(X509 *x)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *s;

	LZ_ASSERT(b != NULL && PEM_write_bio_X509(b, x) == 1);
	s = trust_bio_text(b);
	BIO_free(b);
	return s;
}

char *
trust_ca_cert_pem(const struct trust_ca *ca)
{
	return trust_x509_pem(ca->cert);
}

static int
trust_issue(struct trust_ca *ca, const char *cn, int san_type, const char *san,
    time_t not_before, time_t not_after, struct trust_cert *out, lz_err_t *err)
{
	EVP_PKEY *key = trust_keygen();
	X509 *x = NULL;
	BIO *b = NULL;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (key == NULL) {
		trust_ssl_err(err, LZ_EINVAL, "trust anchor: cannot generate a key");
		goto cleanup;
	}
	x = trust_mkcert(key, cn, ca->cert, ca->key, not_before, not_after, false, san_type, san);
	if (x == NULL) {
		trust_ssl_err(err, LZ_EINVAL, "trust anchor: cannot issue a certificate");
		goto cleanup;
	}
	b = BIO_new(BIO_s_secmem());
	if (b == NULL || PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL) != 1) {
		trust_ssl_err(err, LZ_EINVAL, "trust anchor: cannot encode a key");
		goto cleanup;
	}
	out->key_pem = trust_bio_text(b);
	out->cert_pem = trust_x509_pem(x);
	rc = 0;
cleanup:
	BIO_free(b);
	X509_free(x);
	EVP_PKEY_free(key);
	return rc;
}

int
trust_issue_client_window(struct trust_ca *ca, const char *profile, const char *sandbox_id,
    time_t not_before, time_t not_after, struct trust_cert *out, lz_err_t *err)
{
	char *uri = trust_san_uri(profile, sandbox_id);
	int rc;

	memset(out, 0, sizeof *out);
	if (uri == NULL)
		return lz_err_set(err, LZ_EINVAL,
		    "trust anchor: profile and sandbox id must be 1-%d chars of [A-Za-z0-9._-]",
		    TRUST_NAME_MAX);
	rc = trust_issue(ca, uri, GEN_URI, uri, not_before, not_after, out, err);
	free(uri);
	return rc;
}

int
trust_issue_client(struct trust_ca *ca, const char *profile, const char *sandbox_id,
    int64_t lifetime_s, struct trust_cert *out, lz_err_t *err)
{
	time_t now = time(NULL);

	return trust_issue_client_window(ca, profile, sandbox_id, now - TRUST_CLOCK_SKEW,
	    now + lifetime_s, out, err);
}

int
trust_issue_server(struct trust_ca *ca, int64_t lifetime_s, struct trust_cert *out,
    lz_err_t *err)
{
	time_t now = time(NULL);

	return trust_issue(ca, TRUST_SERVER_NAME, GEN_DNS, TRUST_SERVER_NAME,
	    now - TRUST_CLOCK_SKEW, now + lifetime_s, out, err);
}

void
trust_cert_clear(struct trust_cert *c)
{
	if (c == NULL)
		return;
	if (c->key_pem != NULL)
		OPENSSL_cleanse(c->key_pem, strlen(c->key_pem));
	free(c->key_pem);
	free(c->cert_pem);
	c->key_pem = c->cert_pem = NULL;
}

/* TLS 1.3 only, no resumption (every connection shows its certificate). */
static SSL_CTX *
trust_ctx_base(const SSL_METHOD *m, lz_err_t *err)
{
	SSL_CTX *ctx;

	trust_init();
	ctx = SSL_CTX_new(m);
	if (ctx == NULL) {
		trust_ssl_err(err, LZ_EINVAL, "TLS: cannot create a context");
		return NULL;
	}
	if (SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) != 1 ||
	    SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) != 1) {
		SSL_CTX_free(ctx);
		trust_ssl_err(err, LZ_EINVAL, "TLS: cannot restrict to TLS 1.3");
		return NULL;
	}
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
	/* TLS 1.3 sends session tickets after the handshake even so (stateful
	 * ones, for a cache that is off): none. */
	SSL_CTX_set_num_tickets(ctx, 0);
	/* Each side sends its own certificate alone: the peer verifies it
	 * against its own copy of the CA, never one from the wire. Without this
	 * OpenSSL builds the chain on every handshake and sends the CA along,
	 * which the peer parses for nothing. */
	SSL_CTX_set_mode(ctx, SSL_MODE_NO_AUTO_CHAIN);
	return ctx;
}

SSL_CTX *
trust_server_ctx_new(struct trust_ca *ca, lz_err_t *err)
{
	struct trust_cert sc = { NULL, NULL };
	SSL_CTX *ctx = NULL;
	BIO *b = NULL;
	X509 *x = NULL;
	EVP_PKEY *k = NULL;
	bool ok = false;

	if (trust_issue_server(ca, 30 * 24 * 3600, &sc, err) < 0)
		return NULL;
	ctx = trust_ctx_base(TLS_server_method(), err);
	if (ctx == NULL)
		goto cleanup;
	b = BIO_new_mem_buf(sc.cert_pem, -1);
	x = b != NULL ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
	BIO_free(b);
	b = BIO_new_mem_buf(sc.key_pem, -1);
	k = b != NULL ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
	if (x == NULL || k == NULL || SSL_CTX_use_certificate(ctx, x) != 1 ||
	    SSL_CTX_use_PrivateKey(ctx, k) != 1 || SSL_CTX_check_private_key(ctx) != 1 ||
	    X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), ca->cert) != 1 ||
	    SSL_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT) != 1) {
		trust_ssl_err(err, LZ_EINVAL, "TLS: cannot set up the server context");
		goto cleanup;
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
	ok = true;
cleanup:
	BIO_free(b);
	X509_free(x);
	EVP_PKEY_free(k);
	trust_cert_clear(&sc);
	if (!ok) {
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

/* The client's key: ours is always EC (trust_keygen), and naming the type
 * spares OpenSSL 3.0 trying every decoder on it (4.6M of the client's ~29M
 * instructions, 1.3M this way); anything else takes the generic path. */
static EVP_PKEY *
trust_key_from_pem(const char *pem)
{
	BIO *b = BIO_new_mem_buf(pem, -1);
	char *name = NULL, *hdr = NULL;
	unsigned char *der = NULL;
	const unsigned char *p;
	long len = 0;
	EVP_PKEY *k = NULL;

	if (b == NULL)
		return NULL;
	if (PEM_read_bio(b, &name, &hdr, &der, &len) == 1 && strcmp(name, "PRIVATE KEY") == 0 &&
	    *hdr == '\0') {
		p = der;
		k = d2i_PrivateKey(EVP_PKEY_EC, NULL, &p, len);
	}
	if (der != NULL)
		OPENSSL_clear_free(der, (size_t)len);
	OPENSSL_free(name);
	OPENSSL_free(hdr);
	BIO_free(b);
	ERR_clear_error();
	if (k == NULL && (b = BIO_new_mem_buf(pem, -1)) != NULL) {
		k = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
		BIO_free(b);
	}
	return k;
}

SSL_CTX *
trust_client_ctx_new(const char *ca_pem, const char *cert_pem, const char *key_pem,
    lz_err_t *err)
{
	SSL_CTX *ctx = trust_ctx_base(TLS_client_method(), err);
	X509 *ca = NULL, *x = NULL;
	EVP_PKEY *k = NULL;
	BIO *b;
	bool ok = false;

	if (ctx == NULL)
		return NULL;
	b = BIO_new_mem_buf(ca_pem, -1);
	ca = b != NULL ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
	BIO_free(b);
	b = BIO_new_mem_buf(cert_pem, -1);
	x = b != NULL ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
	BIO_free(b);
	k = trust_key_from_pem(key_pem);
	if (ca == NULL || x == NULL || k == NULL) {
		trust_ssl_err(err, LZ_EINVAL, ca == NULL ? "TLS: bad CA certificate" :
		    x == NULL ? "TLS: bad client certificate" : "TLS: bad client key");
		goto cleanup;
	}
	if (SSL_CTX_use_certificate(ctx, x) != 1 || SSL_CTX_use_PrivateKey(ctx, k) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1) {
		trust_ssl_err(err, LZ_EINVAL, "TLS: client certificate and key do not match");
		goto cleanup;
	}
	if (X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), ca) != 1 ||
	    SSL_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER) != 1) {
		trust_ssl_err(err, LZ_EINVAL, "TLS: cannot set up the client context");
		goto cleanup;
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	ok = true;
cleanup:
	X509_free(ca);
	X509_free(x);
	EVP_PKEY_free(k);
	if (!ok) {
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

static int64_t
trust_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
trust_want(SSL *ssl, int ret, const char *what, lz_err_t *err)
{
	int e = SSL_get_error(ssl, ret);

	if (e == SSL_ERROR_WANT_READ)
		return TRUST_WANT_READ;
	if (e == SSL_ERROR_WANT_WRITE)
		return TRUST_WANT_WRITE;
	if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)
		return lz_err_set(err, errno != 0 ? errno : ECONNRESET, "%s: connection closed", what);
	return trust_ssl_err(err, EPROTO, what);
}

/* Wait for what SSL asked for (ret from an SSL call); -1 on error/timeout. */
static int
trust_wait(SSL *ssl, int ret, int64_t deadline, const char *what, lz_err_t *err)
{
	struct pollfd pfd = { SSL_get_fd(ssl), 0, 0 };
	int w = trust_want(ssl, ret, what, err), left, n;

	if (w < 0)
		return -1;
	pfd.events = w == TRUST_WANT_READ ? POLLIN : POLLOUT;
	for (;;) {
		left = deadline < 0 ? -1 : (int)(deadline - trust_now_ms());
		if (deadline >= 0 && left <= 0)
			return lz_err_set(err, ETIMEDOUT, "%s: timed out", what);
		n = poll(&pfd, 1, left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return lz_err_sys(err, errno, "%s: poll", what);
	}
}

static int64_t
trust_deadline(int timeout_ms)
{
	return timeout_ms < 0 ? -1 : trust_now_ms() + timeout_ms;
}

SSL *
trust_ssl_new(SSL_CTX *ctx, int fd, bool server, lz_err_t *err)
{
	int fl = fcntl(fd, F_GETFL);
	SSL *ssl;

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		lz_err_sys(err, errno, "TLS: cannot make the socket non-blocking");
		return NULL;
	}
	ssl = SSL_new(ctx);
	if (ssl == NULL || SSL_set_fd(ssl, fd) != 1) {
		SSL_free(ssl);
		trust_ssl_err(err, LZ_EINVAL, "TLS: cannot attach to the socket");
		return NULL;
	}
	if (server)
		SSL_set_accept_state(ssl);
	else if (SSL_set1_host(ssl, TRUST_SERVER_NAME) != 1) {
		SSL_free(ssl);
		trust_ssl_err(err, LZ_EINVAL, "TLS: cannot set the server name");
		return NULL;
	} else
		SSL_set_connect_state(ssl);
	return ssl;
}

/* Say why the peer's certificate failed verification, when it did. */
static void
trust_verify_note(SSL *ssl, lz_err_t *err)
{
	long v = SSL_get_verify_result(ssl);

	if (v != X509_V_OK && err != NULL && err->msg != NULL) {
		char *m = xasprintf("%s (%s)", err->msg, X509_verify_cert_error_string(v));

		free(err->msg);
		err->msg = m;
		err->code = EACCES;
	}
}

int
trust_peer_check(SSL *ssl, const char *profile, const char *sandbox_id, lz_err_t *err)
{
	X509 *peer = SSL_get0_peer_certificate(ssl);
	GENERAL_NAMES *names = NULL;
	char *want = trust_san_uri(profile, sandbox_id);
	const char *got = NULL;
	int uris = 0, rc = -1;

	if (want == NULL) {
		lz_err_set(err, LZ_EINVAL, "TLS: bad expected sandbox identity");
		goto cleanup;
	}
	if (peer == NULL || SSL_get_verify_result(ssl) != X509_V_OK) {
		lz_err_set(err, EACCES, "TLS: client certificate not verified");
		goto cleanup;
	}
	names = X509_get_ext_d2i(peer, NID_subject_alt_name, NULL, NULL);
	for (int i = 0; names != NULL && i < sk_GENERAL_NAME_num(names); i++) {
		GENERAL_NAME *gn = sk_GENERAL_NAME_value(names, i);

		if (gn->type != GEN_URI)
			continue;
		uris++;
		got = (const char *)ASN1_STRING_get0_data(gn->d.uniformResourceIdentifier);
		if ((size_t)ASN1_STRING_length(gn->d.uniformResourceIdentifier) != strlen(got))
			got = "(with a NUL)";
	}
	if (uris != 1 || strcmp(got, want) != 0) {
		lz_err_set(err, EACCES, "TLS: client certificate is for %s, not %s",
		    uris == 1 ? got : uris == 0 ? "no sandbox" : "several sandboxes", want);
		goto cleanup;
	}
	rc = 0;
cleanup:
	GENERAL_NAMES_free(names);
	free(want);
	return rc;
}

int
trust_handshake_step(SSL *ssl, lz_err_t *err)
{
	int r;

	ERR_clear_error();
	r = SSL_do_handshake(ssl);
	if (r == 1)
		return 0;
	r = trust_want(ssl, r, "TLS handshake", err);
	if (r < 0)
		trust_verify_note(ssl, err);
	return r;
}

/* Set up TLS on fd and run the handshake in either role, bounded by timeout_ms. */
static SSL *
trust_handshake(SSL_CTX *ctx, int fd, bool server, int timeout_ms, lz_err_t *err)
{
	int64_t deadline = trust_deadline(timeout_ms);
	SSL *ssl;
	int r;

	ERR_clear_error();
	ssl = trust_ssl_new(ctx, fd, server, err);
	if (ssl == NULL)
		return NULL;
	while ((r = SSL_do_handshake(ssl)) != 1) {
		if (trust_wait(ssl, r, deadline, "TLS handshake", err) < 0) {
			trust_verify_note(ssl, err);
			SSL_free(ssl);
			return NULL;
		}
	}
	return ssl;
}

int
trust_server_accept(SSL_CTX *ctx, int fd, const char *profile, const char *sandbox_id,
    int timeout_ms, SSL **out, lz_err_t *err)
{
	SSL *ssl = trust_handshake(ctx, fd, true, timeout_ms, err);

	*out = NULL;
	if (ssl == NULL)
		return -1;
	if (trust_peer_check(ssl, profile, sandbox_id, err) < 0) {
		SSL_free(ssl);
		return -1;
	}
	*out = ssl;
	return 0;
}

int
trust_client_connect(SSL_CTX *ctx, int fd, int timeout_ms, SSL **out, lz_err_t *err)
{
	*out = trust_handshake(ctx, fd, false, timeout_ms, err);
	return *out != NULL ? 0 : -1;
}

int
trust_write_all(SSL *ssl, const void *buf, size_t len, int timeout_ms, lz_err_t *err)
{
	int64_t deadline = trust_deadline(timeout_ms);
	const uint8_t *p = buf;

	while (len > 0) {
		size_t n = 0;
		int r = SSL_write_ex(ssl, p, len, &n);

		if (r == 1) {
			p += n;
			len -= n;
		} else if (trust_wait(ssl, r, deadline, "TLS write", err) < 0)
			return -1;
	}
	return 0;
}

ssize_t
trust_read(SSL *ssl, void *buf, size_t cap, int timeout_ms, lz_err_t *err)
{
	int64_t deadline = trust_deadline(timeout_ms);

	for (;;) {
		size_t n = 0;
		int r = SSL_read_ex(ssl, buf, cap, &n);

		if (r == 1)
			return (ssize_t)n;
		if (SSL_get_error(ssl, r) == SSL_ERROR_ZERO_RETURN)
			return 0;
		if (trust_wait(ssl, r, deadline, "TLS read", err) < 0)
			return -1;
	}
}

int
trust_read_frame(SSL *ssl, struct proto_buf *in, struct proto_header *hdr,
    const uint8_t **payload, int timeout_ms, lz_err_t *err)
{
	int64_t deadline = trust_deadline(timeout_ms);

	for (;;) {
		int r = proto_frame_parse(in->data, in->len, hdr, payload, err);
		size_t want;
		ssize_t n;
		int left;

		if (r == PROTO_FRAME)
			return 1;
		if (r < 0)
			return -1;
		/* read no further than this frame: the header says how far */
		want = in->len < PROTO_HEADER_LEN ? PROTO_HEADER_LEN - in->len :
		    PROTO_HEADER_LEN + hdr->length - in->len;
		proto_buf_space(in, want, NULL);
		left = deadline < 0 ? -1 : (int)(deadline - trust_now_ms());
		if (deadline >= 0 && left <= 0)
			return lz_err_set(err, ETIMEDOUT, "TLS read: timed out");
		n = trust_read(ssl, in->data + in->len, want, left, err);
		if (n < 0)
			return -1;
		if (n == 0) {
			if (in->len == 0)
				return 0;
			return lz_err_set(err, EPROTO, "connection closed inside a frame");
		}
		in->len += (size_t)n;
	}
}

void
trust_shutdown(SSL *ssl, int timeout_ms)
{
	int64_t deadline = trust_deadline(timeout_ms);
	int r;

	if (ssl == NULL)
		return;
	while ((r = SSL_shutdown(ssl)) < 0) {
		if (trust_wait(ssl, r, deadline, "TLS shutdown", NULL) < 0)
			break;
	}
	ERR_clear_error();
}
