/* net-secret.c - the credential broker's secrets, read on the host by the
 * coordinator at start (env:, file:, command:) and packed into the one
 * NETCTL_CRED_SET frame the router gets at each start (an upstream's name is
 * resolved by the router itself, through its own resolver). The frame lives in
 * memory locked from swap and is wiped at teardown; nothing here logs,
 * audits or writes a secret anywhere. A `command:` source is the one host
 * command this file runs: argv (no shell), stdin /dev/null, 64 KiB and 30 s
 * at most. */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "net/net-secret.h"
#include "netctl.h"
#include "paths.h"
#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

#define SECRET_MAX	65536
#define SECRET_CMD_MS	30000
#define SYSTEM_CA	"/etc/ssl/certs/ca-certificates.crt"

extern char **environ;

/* Run argv, its stdout into buf (at most max-1 bytes). */
static int
secret_command(const char *cmd, char *buf, size_t max, size_t *len, lz_err_t *err)
{
	char **argv = NULL;
	int pfd[2] = { -1, -1 }, status, ret = -1;
	posix_spawn_file_actions_t fa;
	pid_t pid = -1;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	*len = 0;
	if (lz_shellwords_split(cmd, strlen(cmd), &argv, err) < 0)
		return -1;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		lz_err_sys(err, errno, "pipe");
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	errno = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	pfd[1] = -1;
	if (errno != 0) {
		lz_err_sys(err, errno, "cannot run '%s'", argv[0]);
		pid = -1;
		goto out;
	}
	for (;;) {
		struct pollfd p = { pfd[0], POLLIN, 0 };
		struct timespec t;
		long left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = SECRET_CMD_MS - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&p, 1, (int)left) == 0) {
			kill(pid, SIGKILL);
			lz_err_set(err, ETIMEDOUT, "'%s' did not finish in 30 s", argv[0]);
			goto out;
		}
		n = read(pfd[0], buf + *len, max - 1 - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
		if (*len == max - 1) {
			kill(pid, SIGKILL);
			lz_err_set(err, EFBIG, "'%s' printed more than 64 KiB", argv[0]);
			goto out;
		}
	}
	ret = 0;
out:
	if (pid > 0) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (ret == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			lz_err_set(err, EIO, "'%s' failed (exit %d)", argv[0],
			    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
			ret = -1;
		}
	}
	if (pfd[0] >= 0)
		close(pfd[0]);
	lz_strv_free(argv);
	return ret;
}

/* The secret of one entry into buf (locked memory, NUL-terminated), one
 * trailing newline dropped; empty or with control bytes is an error. */
static int
secret_read(const struct cfg_cred *c, char *buf, size_t max, lz_err_t *err)
{
	size_t len = 0;

	if (strncmp(c->from, "env:", 4) == 0) {
		const char *v = getenv(c->from + 4);

		if (v == NULL)
			return lz_err_set(err, ENOENT, "host variable %s is unset", c->from + 4);
		if ((len = strlen(v)) >= max)
			return lz_err_set(err, EFBIG, "host variable %s is over 64 KiB", c->from + 4);
		memcpy(buf, v, len);
	} else if (strncmp(c->from, "file:", 5) == 0) {
		int fd = open(c->from + 5, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		ssize_t n;

		if (fd < 0)
			return lz_err_sys(err, errno, "cannot read %s", c->from + 5);
		while ((n = read(fd, buf + len, max - 1 - len)) > 0 && len + (size_t)n < max - 1)
			len += (size_t)n;
		close(fd);
		if (n < 0)
			return lz_err_sys(err, errno, "cannot read %s", c->from + 5);
		if (n > 0)
			return lz_err_set(err, EFBIG, "%s is over 64 KiB", c->from + 5);
	} else if (secret_command(c->from + 8, buf, max, &len, err) < 0)
		return -1;
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (len > 0 && buf[len - 1] == '\r')
		buf[--len] = '\0';
	if (len == 0)
		return lz_err_set(err, ENODATA, "the secret from %s is empty", c->from);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			return lz_err_set(err, EINVAL, "the secret from %s holds a control byte "
			    "(it goes into an HTTP header)", c->from);
	return 0;
}

/* The upstream's address when it is one; "" for a name, which the router
 * resolves through its own upstream resolver when a request comes. */
static char *
secret_addr(const struct cfg_cred *c)
{
	uint8_t a[16];

	if (inet_pton(AF_INET, c->host, a) == 1 || inet_pton(AF_INET6, c->host, a) == 1)
		return xstrdup(c->host);
	return xstrdup("");
}

static char *
secret_join(char *const *v)
{
	size_t l = 1;
	char *s;

	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		l += strlen(v[i]) + 1;
	s = xcalloc(1, l);
	for (size_t i = 0; v != NULL && v[i] != NULL; i++) {
		if (i > 0)
			strcat(s, "\n");
		strcat(s, v[i]);
	}
	return s;
}

int
net_secret_frame(const struct cfg_profile *p, struct proto_buf **out, size_t *n,
    lz_err_t *err)
{
	char **v = NULL, *secret = NULL;
	struct proto_buf *b;
	size_t nv = 0, active = 0;
	int ret = -1;

	*out = NULL;
	*n = 0;
	if (p->n_creds == 0)
		return 0;
	if (sodium_init() < 0)
		return lz_err_set(err, EIO, "libsodium did not start");
	secret = sodium_malloc(SECRET_MAX);
	if (secret == NULL)
		return lz_err_set(err, ENOMEM, "cannot lock memory for a secret");
	for (size_t i = 0; i < p->n_creds; i++) {
		const struct cfg_cred *c = &p->creds[i];
		char *pem = NULL, *addr = NULL, *allow;
		size_t pl;
		const char *ca = c->ca_file ? c->ca_file : SYSTEM_CA;

		if (!cfg_cred_active(c))
			continue;
		if (secret_read(c, secret, SECRET_MAX, err) < 0) {
			lz_err_wrap(err, "credential %s (profiles.%s.credentials, from: %s)", c->name,
			    p->name, c->from);
			goto out;
		}
		if (c->git) {
			/* Basic authorization: base64("USER:TOKEN"), built in locked memory */
			char *pair = sodium_malloc(SECRET_MAX);
			size_t ul = strlen(c->user), sl = strlen(secret);

			if (pair == NULL || ul + 1 + sl >= SECRET_MAX / 2) {
				sodium_free(pair);
				lz_err_set(err, EFBIG, "credential %s: the token is too long", c->name);
				goto out;
			}
			memcpy(pair, c->user, ul);
			pair[ul] = ':';
			memcpy(pair + ul + 1, secret, sl);
			sodium_bin2base64(secret, SECRET_MAX, (const unsigned char *)pair, ul + 1 + sl,
			    sodium_base64_VARIANT_ORIGINAL);
			sodium_free(pair);
		}
		if (lz_path_read(ca, 1 << 19, &pem, &pl, NULL, err) < 0) {
			lz_err_wrap(err, "credential %s: ca_file", c->name);
			goto out;
		}
		addr = secret_addr(c);
		allow = secret_join(c->allow);
		lz_strv_push(&v, c->name);
		lz_strv_push(&v, c->host);
		lz_strv_pushf(&v, "%d", c->port);
		lz_strv_push(&v, addr);
		lz_strv_push(&v, c->header);
		lz_strv_push(&v, c->prefix);
		lz_strv_push(&v, allow);
		lz_strv_push(&v, pem);
		lz_strv_push(&v, secret);
		lz_strv_pushf(&v, "%zu", (size_t)NETCTL_BROKER_PORT + i);
		lz_strv_push(&v, c->git ? c->path : "");
		free(allow);
		{
			/* force: true travels as git's refspec mark, "+" before each pattern */
			char **refs = NULL;

			for (size_t r = 0; r < c->n_refs; r++)
				lz_strv_pushf(&refs, "%s%s", c->force ? "+" : "", c->refs[r]);
			allow = secret_join(refs);
			lz_strv_free(refs);
		}
		lz_strv_push(&v, allow);
		nv += NETCTL_CRED_FIELDS;
		sodium_memzero(secret, SECRET_MAX);
		free(allow);
		free(addr);
		free(pem);
		active++;
	}
	if (active > 0) {
		b = sodium_malloc(sizeof *b);
		if (b == NULL) {
			lz_err_set(err, ENOMEM, "cannot lock memory for the credentials");
			goto out;
		}
		memset(b, 0, sizeof *b);
		/* room for it all first: no realloc leaves a copy behind */
		{
			size_t total = PROTO_HEADER_LEN + 4;

			for (size_t i = 0; i < nv; i++)
				total += 4 + strlen(v[i]);
			(void)proto_buf_space(b, total + 64, NULL);
		}
		netctl_encode_list(b, NETCTL_CRED_SET, v, nv);
		/* the frame itself: locked from swap for the coordinator's life */
		if (sodium_mlock(b->data, b->cap) < 0) {
			lz_err_sys(err, errno, "cannot lock the credentials in memory (ulimit -l)");
			net_secret_free(b);
			goto out;
		}
		*out = b;
		*n = active;
	}
	ret = 0;
out:
	for (size_t i = 8; i < nv; i += NETCTL_CRED_FIELDS)
		sodium_memzero(v[i], strlen(v[i]));
	lz_strv_free(v);
	sodium_free(secret);
	return ret;
}

void
net_secret_free(struct proto_buf *b)
{
	if (b == NULL)
		return;
	if (b->data != NULL) {
		sodium_munlock(b->data, b->cap);	/* zeroes it too */
		free(b->data);
	}
	sodium_free(b);
}
