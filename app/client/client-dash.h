/* client-dash.h - the dashboard of every domain of the user, one row each,
 * with the same columns in `lazaret ls` and the workbench's prefix w:
 *
 *   DOMAIN PROFILE STATE SESSIONS UPTIME MEM CPU FLOWS BLOCKED PENDING
 *   UNREVIEWED WORKSPACE
 *
 * STATE is the domain's most pressing tabstate word (approval, input,
 * running; idle with no session; limit; stopped, dead...). The numbers come
 * from each domain's coordinator (PROTO_STATUS_ROW, proto.h), UNREVIEWED
 * from the host repository (the agent commits the user's branch lacks).
 */
#ifndef LZ_CLIENT_DASH_H
#define LZ_CLIENT_DASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "err.h"

#define CLIENT_DASH_COLS	12

struct client_dash_row {
	char *hash, *profile, *state, *workspace, *container, *container_state, *mode;
	long long sessions, uptime_s, mem, cpu_permille, flows, blocked, pending, clients;
	long long unreviewed;	/* -1: not known (not a git checkout, no agent branch...) */
};

/* The column titles, NULL-terminated. */
extern const char *const client_dash_header[CLIENT_DASH_COLS + 1];

/* A coordinator's PROTO_STATUS_ROW into r (strings owned; clear it). Fails
 * on a row that is not one: too few cells, a number that is not one. */
int client_dash_parse(const char *row, struct client_dash_row *r, lz_err_t *err);
void client_dash_clear(struct client_dash_row *r);
/* r->unreviewed from the host repository of r's domain (git, seconds). */
void client_dash_unreviewed(const struct cfg *cfg, struct client_dash_row *r);
/* The row as the columns show it, tab-separated; caller frees. */
char *client_dash_tsv(const struct client_dash_row *r);
/* cb(control socket path, domain hash, arg) for each control socket in
 * cfg's socket directory (ours alone: checked), in name order; none when
 * the directory does not exist. */
int client_dash_each(const struct cfg *cfg, void (*cb)(const char *sock, const char *hash,
    void *arg), void *arg, lz_err_t *err);
/* Every live domain's row (control sockets in socket_dir): *rows (free each
 * with client_dash_clear, then the array), sorted by DOMAIN. */
int client_dash_collect(const struct cfg *cfg, bool unreviewed, struct client_dash_row **rows,
    size_t *n, lz_err_t *err);

#endif
