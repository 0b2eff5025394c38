/* anchor.h - the Domain Anchor (spec 4.3.1) and the names derived from it
 * (DESIGN "Resource names"). Pure: no file is created here. */
#ifndef LZ_ANCHOR_H
#define LZ_ANCHOR_H

#include <stddef.h>

#include "err.h"

#define ANCHOR_HASH_LEN 12

struct anchor {
	char hash[ANCHOR_HASH_LEN + 1];
	char *profile;
	char *workspace;	/* canonical */
	char *container;	/* lazaret-<profile>-<H> */
	char *sidecar;		/* lazaret-net-<H> */
	char *lockfile;		/* /tmp/lazaret_coord_<H>.lock */
	char *ctl_socket;	/* <socket_dir>/<H>.ctl */
	char *esc_socket;	/* <socket_dir>/<H>.esc */
	char *domain_root;	/* <data_root>/domains/<H> */
	char *state_db;		/* <domain_root>/state.db */
	char *worktree;		/* <domain_root>/lazaret-<H> (isolated checkout) */
	char *branch;		/* lazaret/agent-<profile> */
};

/* First 12 hex chars of SHA-256("<profile>:<canonical workspace>") into
 * out[13]. The workspace must already be canonical. */
void anchor_hash(const char *profile, const char *workspace_canon, char out[ANCHOR_HASH_LEN + 1]);

/* Canonicalize workspace (must be an existing directory) and derive every name. */
int anchor_new(const char *profile, const char *workspace, const char *data_root,
    const char *socket_dir, struct anchor **out, lz_err_t *err);
/* The anchor of a domain recorded earlier (its workspace may be gone since):
 * workspace_canon is taken as canonical, nothing is resolved. */
int anchor_recorded(const char *profile, const char *workspace_canon, const char *data_root,
    const char *socket_dir, struct anchor **out, lz_err_t *err);
void anchor_free(struct anchor *);

/* A domain's record (<domain_root>/coordinator.up, reap.h): the bytes
 * "PROFILE\0WORKSPACE\0", at most ANCHOR_RECORD_MAX. Parse and check them;
 * *profile and *workspace are the caller's. */
#define ANCHOR_RECORD_MAX 8192
int anchor_record_parse(const char *buf, size_t len, char **profile, char **workspace,
    lz_err_t *err);

#endif
