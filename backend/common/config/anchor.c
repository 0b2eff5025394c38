/* anchor.c - Domain Anchor hash and derived resource names. */
#include <errno.h>
#include <limits.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "anchor.h"
#include "config.h"
#include "xmalloc.h"

void
anchor_hash(const char *profile, const char *workspace_canon, char out[ANCHOR_HASH_LEN + 1])
{
	unsigned char d[crypto_hash_sha256_BYTES];
	char hex[crypto_hash_sha256_BYTES * 2 + 1];
	crypto_hash_sha256_state st;

	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, (const unsigned char *)profile, strlen(profile));
	crypto_hash_sha256_update(&st, (const unsigned char *)":", 1);
	crypto_hash_sha256_update(&st, (const unsigned char *)workspace_canon,
	    strlen(workspace_canon));
	crypto_hash_sha256_final(&st, d);
	sodium_bin2hex(hex, sizeof hex, d, sizeof d);
	memcpy(out, hex, ANCHOR_HASH_LEN);
	out[ANCHOR_HASH_LEN] = '\0';
}

/* Every name derived from (profile, canonical workspace); takes canon. */
static struct anchor *
anchor_names(const char *profile, char *canon, const char *data_root, const char *socket_dir)
{
	struct anchor *a = xcalloc(1, sizeof *a);

	anchor_hash(profile, canon, a->hash);
	a->profile = xstrdup(profile);
	a->workspace = canon;
	a->container = xasprintf("lazaret-%s-%s", profile, a->hash);
	a->sidecar = xasprintf("lazaret-net-%s", a->hash);
	a->lockfile = xasprintf("/tmp/lazaret_coord_%s.lock", a->hash);
	a->ctl_socket = xasprintf("%s/%s.ctl", socket_dir, a->hash);
	a->esc_socket = xasprintf("%s/%s.esc", socket_dir, a->hash);
	a->domain_root = xasprintf("%s/domains/%s", data_root, a->hash);
	a->state_db = xasprintf("%s/state.db", a->domain_root);
	a->worktree = xasprintf("%s/lazaret-%s", a->domain_root, a->hash);
	a->branch = xasprintf("lazaret/agent-%s", profile);
	return a;
}

int
anchor_new(const char *profile, const char *workspace, const char *data_root,
    const char *socket_dir, struct anchor **out, lz_err_t *err)
{
	char *canon;
	struct stat st;

	*out = NULL;
	if (!cfg_profile_name_valid(profile))
		return lz_err_set(err, LZ_EINVAL, "invalid profile name '%s': "
		    "must match ^[a-z0-9_-]{2,32}$", profile);
	if ((canon = realpath(workspace, NULL)) == NULL)
		return lz_err_sys(err, errno, "workspace '%s'", workspace);
	if (stat(canon, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(canon);
		return lz_err_set(err, ENOTDIR, "workspace '%s': not a directory", workspace);
	}
	*out = anchor_names(profile, canon, data_root, socket_dir);
	return 0;
}

int
anchor_recorded(const char *profile, const char *workspace_canon, const char *data_root,
    const char *socket_dir, struct anchor **out, lz_err_t *err)
{
	*out = NULL;
	if (!cfg_profile_name_valid(profile))
		return lz_err_set(err, LZ_EINVAL, "invalid profile name '%s': "
		    "must match ^[a-z0-9_-]{2,32}$", profile);
	if (workspace_canon[0] != '/')
		return lz_err_set(err, LZ_EINVAL, "workspace '%s' is not absolute",
		    workspace_canon);
	*out = anchor_names(profile, xstrdup(workspace_canon), data_root, socket_dir);
	return 0;
}

int
anchor_record_parse(const char *buf, size_t len, char **profile, char **workspace, lz_err_t *err)
{
	const char *p = buf, *w, *end;

	*profile = *workspace = NULL;
	if (len > ANCHOR_RECORD_MAX)
		return lz_err_set(err, LZ_EINVAL, "longer than %d bytes", ANCHOR_RECORD_MAX);
	if ((end = memchr(p, '\0', len)) == NULL)
		return lz_err_set(err, LZ_EINVAL, "no profile field");
	w = end + 1;
	if ((end = memchr(w, '\0', len - (size_t)(w - buf))) == NULL)
		return lz_err_set(err, LZ_EINVAL, "no workspace field");
	if ((size_t)(end + 1 - buf) != len)
		return lz_err_set(err, LZ_EINVAL, "trailing bytes");
	if (!cfg_profile_name_valid(p))
		return lz_err_set(err, LZ_EINVAL, "invalid profile name");
	if (w[0] != '/')
		return lz_err_set(err, LZ_EINVAL, "workspace is not an absolute path");
	*profile = xstrdup(p);
	*workspace = xstrdup(w);
	return 0;
}

void
anchor_free(struct anchor *a)
{
	if (a == NULL)
		return;
	free(a->profile);
	free(a->workspace);
	free(a->container);
	free(a->sidecar);
	free(a->lockfile);
	free(a->ctl_socket);
	free(a->esc_socket);
	free(a->domain_root);
	free(a->state_db);
	free(a->worktree);
	free(a->branch);
	free(a);
}
