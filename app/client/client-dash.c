/* client-dash.c - the dashboard's rows (see client-dash.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client.h"
#include "client-dash.h"
#include "host/ctl-server.h"
#include "review/review.h"
#include "strv.h"
#include "xmalloc.h"

#define CLIENT_DASH_CELLS	15	/* in a PROTO_STATUS_ROW */

const char *const client_dash_header[CLIENT_DASH_COLS + 1] = {
	"DOMAIN", "PROFILE", "STATE", "SESSIONS", "UPTIME", "MEM", "CPU", "FLOWS", "BLOCKED",
	"PENDING", "UNREVIEWED", "WORKSPACE", NULL,
};

static int
client_dash_num(const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return *s == '\0' || *end != '\0' || errno != 0 || *out < -1 ? -1 : 0;
}

int
client_dash_parse(const char *row, struct client_dash_row *r, lz_err_t *err)
{
	char *copy = xstrdup(row), *cell[CLIENT_DASH_CELLS], *p = copy, *tab;
	long long *nums[] = { &r->sessions, &r->uptime_s, &r->mem, &r->cpu_permille, &r->flows,
	    &r->blocked, &r->pending };
	size_t i;
	int ret = -1;

	memset(r, 0, sizeof *r);
	for (i = 0; i < CLIENT_DASH_CELLS; i++) {
		cell[i] = p;
		if ((tab = strchr(p, '\t')) == NULL)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	if (i != CLIENT_DASH_CELLS - 1) {
		lz_err_set(err, EPROTO, "a status row of %zu cells, not %d", i + 1, CLIENT_DASH_CELLS);
		goto out;
	}
	for (i = 0; i < 7; i++)
		if (client_dash_num(cell[3 + i], nums[i]) < 0) {
			lz_err_set(err, EPROTO, "status row cell %zu is not a number", 4 + i);
			goto out;
		}
	if (client_dash_num(cell[14], &r->clients) < 0) {
		lz_err_set(err, EPROTO, "status row cell 15 is not a number");
		goto out;
	}
	r->hash = xstrdup(cell[0]);
	r->profile = xstrdup(cell[1]);
	r->state = xstrdup(cell[2]);
	r->workspace = xstrdup(cell[10]);
	r->container = xstrdup(cell[11]);
	r->container_state = xstrdup(cell[12]);
	r->mode = xstrdup(cell[13]);
	r->unreviewed = -1;
	ret = 0;
out:
	free(copy);
	return ret;
}

void
client_dash_clear(struct client_dash_row *r)
{
	free(r->hash);
	free(r->profile);
	free(r->state);
	free(r->workspace);
	free(r->container);
	free(r->container_state);
	free(r->mode);
	memset(r, 0, sizeof *r);
}

void
client_dash_unreviewed(const struct cfg *cfg, struct client_dash_row *r)
{
	struct anchor *a = NULL;
	struct review *rv = NULL;
	lz_err_t err = LZ_ERR_INIT;

	r->unreviewed = -1;
	if (cli_domain_exact(cfg, r->profile, r->workspace, &a, NULL, &err) == 0 &&
	    review_open(a, NULL, false, &rv, &err) == 0)
		r->unreviewed = rv->commits;
	review_free(rv);
	anchor_free(a);
	lz_err_clear(&err);
}

/* 1536 MiB as "1.5G", 300 KiB as "300K". */
static void
client_dash_bytes(long long v, char *buf, size_t len)
{
	static const char units[] = "BKMGT";
	double d = (double)v;
	int u = 0;

	if (v < 0) {
		snprintf(buf, len, "-");
		return;
	}
	while (d >= 1024 && u < 4) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, d < 10 && u > 0 ? "%.1f%c" : "%.0f%c", d, units[u]);
}

/* A duration as cli_table_duration prints it (app/cli is above us). */
static void
client_dash_duration(long long s, char *buf, size_t len)
{
	if (s < 60)
		snprintf(buf, len, "%llds", s);
	else if (s < 3600)
		snprintf(buf, len, "%lldm%02llds", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%lldh%02lldm", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, len, "%lldd%02lldh", s / 86400, s % 86400 / 3600);
}

char *
client_dash_tsv(const struct client_dash_row *r)
{
	char up[32], mem[16], cpu[32], unrev[24];

	client_dash_duration(r->uptime_s, up, sizeof up);
	client_dash_bytes(r->mem, mem, sizeof mem);
	if (r->cpu_permille < 0)
		snprintf(cpu, sizeof cpu, "-");
	else
		snprintf(cpu, sizeof cpu, "%lld.%lld%%", r->cpu_permille / 10, r->cpu_permille % 10);
	if (r->unreviewed < 0)
		snprintf(unrev, sizeof unrev, "-");
	else
		snprintf(unrev, sizeof unrev, "%lld", r->unreviewed);
	return xasprintf("%s\t%s\t%s\t%lld\t%s\t%s\t%s\t%lld\t%lld\t%lld\t%s\t%s", r->hash,
	    r->profile, r->state, r->sessions, up, mem, cpu, r->flows, r->blocked, r->pending,
	    unrev, r->workspace);
}

static int
client_dash_cmp(const void *a, const void *b)
{
	return strcmp(((const struct client_dash_row *)a)->hash,
	    ((const struct client_dash_row *)b)->hash);
}

int
client_dash_each(const struct cfg *cfg, void (*cb)(const char *sock, const char *hash, void *arg),
    void *arg, lz_err_t *err)
{
	struct dirent **ents = NULL;
	int i, k;

	if (ctl_server_dir_check(cfg->esc_socket_dir, false, err) < 0) {
		if (err->code != ENOENT)
			return -1;
		lz_err_clear(err);
		return 0;	/* no domain ever ran */
	}
	if ((k = scandir(cfg->esc_socket_dir, &ents, NULL, alphasort)) < 0)
		return errno == ENOENT ? 0 : lz_err_sys(err, errno, "cannot read %s",
		    cfg->esc_socket_dir);
	for (i = 0; i < k; i++) {
		size_t len = strlen(ents[i]->d_name);

		if (len > 4 && strcmp(ents[i]->d_name + len - 4, ".ctl") == 0) {
			char *sock = xasprintf("%s/%s", cfg->esc_socket_dir, ents[i]->d_name);
			char *hash = xstrndup(ents[i]->d_name, len - 4);

			cb(sock, hash, arg);
			free(sock);
			free(hash);
		}
		free(ents[i]);
	}
	free(ents);
	return 0;
}

struct client_dash_acc {
	const struct cfg *cfg;
	bool unreviewed;
	struct client_dash_row *rows;
	size_t n;
};

static void
client_dash_one(const char *sock, const char *hash, void *arg)
{
	struct client_dash_acc *acc = arg;
	struct client *cl = NULL;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	char *text = NULL;
	lz_err_t e = LZ_ERR_INIT;

	(void)hash;
	proto_encode_status_req(&b, PROTO_STATUS_ROW);
	if (client_connect_path(sock, &cl, &e) == 0 &&
	    client_request(cl, &b, PROTO_STATUS, 30000, &h, &p, &e) == 0 &&
	    proto_decode_text(p, h.length, &text, &e) == 0) {
		acc->rows = xreallocarray(acc->rows, acc->n + 1, sizeof *acc->rows);
		if (client_dash_parse(text, &acc->rows[acc->n], &e) == 0) {
			if (acc->unreviewed)
				client_dash_unreviewed(acc->cfg, &acc->rows[acc->n]);
			acc->n++;
		}
	}
	proto_buf_clear(&b);
	lz_err_clear(&e);
	free(text);
	client_free(cl);
}

int
client_dash_collect(const struct cfg *cfg, bool unreviewed, struct client_dash_row **rows,
    size_t *n, lz_err_t *err)
{
	struct client_dash_acc acc = { cfg, unreviewed, NULL, 0 };
	int r = client_dash_each(cfg, client_dash_one, &acc, err);

	*rows = acc.rows;
	*n = acc.n;
	if (*n > 1)
		qsort(*rows, *n, sizeof **rows, client_dash_cmp);
	return r;
}
