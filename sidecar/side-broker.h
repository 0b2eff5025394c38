/* side-broker.h - the credential broker's pieces shared by side-broker.c
 * (requests, TLS), side-broker-git.c (pushes) and side-broker-io.c (what
 * both write: answers, events): internal to the router. */
#ifndef LZ_SIDE_BROKER_H
#define LZ_SIDE_BROKER_H

#include <stdbool.h>
#include <stdint.h>

#include <openssl/ssl.h>

#include "httpreq.h"
#include "proto.h"
#include "side.h"

struct side_broker_cred {
	char *name, *host, *addr, *header, *prefix;
	uint16_t port, listen_port;
	char **allow;
	size_t nallow;
	char *git_path;		/* kind git: the repository's path; "" otherwise */
	char **refs;		/* kind git: ref patterns a push may update */
	size_t nrefs;
	SSL_CTX *ctx;
	char *secret;		/* sodium_malloc: locked, wiped on free */
	size_t secret_len;
	int listen_fd;
	struct side *s;
};

/* ---- side-broker-io.c ---- */

/* The events' pipe to the poll loop (side_broker_fd and side_broker_read in
 * side.h), made by side_broker_set; -1 with errno. */
int side_broker_events_open(lz_err_t *err);
/* An answer of the broker's own: status and one line (text/plain). */
void side_broker_answer(int fd, int status, const char *reason);
/* One NETCTL_EV_BROKER event to the poll loop (never a value or a body). */
void side_broker_report(const struct side_broker_cred *c, bool allowed, int status,
    const char *method, const char *path, size_t path_len, uint64_t up, uint64_t down,
    uint64_t ms, const char *why);
int side_broker_write_all(int fd, const void *p, size_t n);

/* ---- side-broker-git.c ----
 * A push (POST .../git-receive-pack, read whole in keep):
 * every ref it updates must match the entry's patterns, and none is
 * deleted. 1: forward it; 0: refused, the git-readable answer sent and each
 * ref reported. */
int side_broker_git_push(struct side_broker_cred *c, int fd, const struct httpreq *r,
    struct proto_buf *keep, uint64_t t0);

#endif
