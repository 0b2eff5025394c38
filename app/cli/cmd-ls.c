/* cmd-ls.c - lazaret ls: every domain of this user, one row each: live ones
 * from their coordinators, dead ones from what their coordinator left. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli-table.h"
#include "client.h"
#include "client-dash.h"
#include "commands.h"
#include "host/ctl-server.h"
#include "coord/reap.h"
#include "jsonw.h"
#include "strv.h"
#include "xmalloc.h"

#define LS_USAGE "lazaret ls [--json]"

static const char ls_help[] =
    "List every live domain of this user: each control socket in the\n"
    "socket directory is asked for its status. Columns, as the workbench's\n"
    "dashboard (prefix w) shows them: DOMAIN PROFILE STATE SESSIONS UPTIME\n"
    "MEM CPU FLOWS BLOCKED PENDING UNREVIEWED WORKSPACE. STATE says who needs\n"
    "you: approval (an escalation or network request waits: PENDING), input\n"
    "(a session quiet at a prompt), running, idle (no session), limit (stopped\n"
    "for a limit), stopped; MEM and CPU are the domain's cgroups' now; FLOWS\n"
    "allowed and BLOCKED flows and queries since it started; UNREVIEWED the\n"
    "agent commits your branch lacks. A domain whose\n"
    "coordinator died and left its sandbox (its guard was killed too) is\n"
    "listed as dead: 'lazaret stop --all' removes what it left. Other\n"
    "sockets left by a coordinator that died are reported as stale and\n"
    "removed.\n\n"
    "  --json  a JSON array: each domain's 'lazaret status --json' object\n";

#define LS_RIGHT	0x7f8u	/* the numbers: SESSIONS..UNREVIEWED */

struct ls {
	bool json;
	struct cfg *cfg;
	struct cli_table *table;
	char **objs;		/* --json: one object each */
	char **dead;		/* hashes of the dead domains listed */
};

/* A domain without a status: its hash, state and socket. */
static void
ls_no_status(struct ls *ls, const char *hash, const char *state, const char *path)
{
	struct lz_jsonw w;
	char *row;

	if (!ls->json) {
		row = xasprintf("%s\t-\t-\t%s", hash, state);
		cli_table_add_tsv(ls->table, row);
		free(row);
		return;
	}
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "running"); lz_jsonw_bool(&w, false);
	lz_jsonw_key(&w, "domain_hash"); lz_jsonw_str(&w, hash);
	lz_jsonw_key(&w, "state"); lz_jsonw_str(&w, state);
	lz_jsonw_key(&w, "control_socket"); lz_jsonw_str(&w, path);
	lz_jsonw_obj_close(&w);
	row = lz_jsonw_steal(&w);
	lz_strv_push(&ls->objs, row);
	free(row);
}

/* One domain: its status, or why there is none. */
static void
ls_one(struct ls *ls, const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *text = NULL, *hash;
	struct client *cl = NULL;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;

	hash = xstrndup(name, strlen(name) - 4);
	if (client_connect_path(path, &cl, &err) < 0) {
		if (client_socket_alive(path))
			ls_no_status(ls, hash, "starting-or-stopping", path);
		else {
			client_unlink_stale(path);
			if (lz_strv_contains(ls->dead, hash))
				goto out;	/* listed as dead already */
			ls_no_status(ls, hash, "stale", path);
			fprintf(stderr, "lazaret: removed %s: its coordinator is gone\n", path);
		}
		goto out;
	}
	proto_encode_status_req(&b, ls->json ? PROTO_STATUS_JSON : PROTO_STATUS_ROW);
	if (client_request(cl, &b, PROTO_STATUS, 30000, &h, &p, &err) < 0 ||
	    proto_decode_text(p, h.length, &text, &err) < 0) {
		ls_no_status(ls, hash, "not-answering", path);
		goto out;
	}
	if (ls->json) {
		lz_strv_push(&ls->objs, text);
	} else {
		struct client_dash_row r;
		char *row;

		if (client_dash_parse(text, &r, &err) < 0) {
			ls_no_status(ls, hash, "not-answering", path);
			goto out;
		}
		client_dash_unreviewed(ls->cfg, &r);
		row = client_dash_tsv(&r);
		cli_table_add_tsv(ls->table, row);
		free(row);
		client_dash_clear(&r);
	}
out:
	lz_err_clear(&err);
	free(text);
	free(hash);
	client_free(cl);
	free(path);
}

static int
ls_dead_cb(const struct anchor *a, void *arg)
{
	struct ls *ls = arg;
	struct lz_jsonw w;
	char *row;

	lz_strv_push(&ls->dead, a->hash);
	if (!ls->json) {
		row = xasprintf("%s\t%s\tdead\t-\t-\t-\t-\t-\t-\t-\t-\t%s", a->hash, a->profile,
		    a->workspace);
		cli_table_add_tsv(ls->table, row);
		free(row);
		return 0;
	}
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "running"); lz_jsonw_bool(&w, false);
	lz_jsonw_key(&w, "domain_hash"); lz_jsonw_str(&w, a->hash);
	lz_jsonw_key(&w, "state"); lz_jsonw_str(&w, "dead");
	lz_jsonw_key(&w, "profile"); lz_jsonw_str(&w, a->profile);
	lz_jsonw_key(&w, "workspace"); lz_jsonw_str(&w, a->workspace);
	lz_jsonw_key(&w, "container");
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "name"); lz_jsonw_str(&w, a->container);
	lz_jsonw_obj_close(&w);
	lz_jsonw_obj_close(&w);
	row = lz_jsonw_steal(&w);
	lz_strv_push(&ls->objs, row);
	free(row);
	return 0;
}

static void
ls_print(const struct ls *ls)
{
	size_t i;

	if (!ls->json) {
		cli_table_print(ls->table, stdout, LS_RIGHT);
		return;
	}
	fputs("[", stdout);
	for (i = 0; ls->objs != NULL && ls->objs[i] != NULL; i++)
		printf("%s\n  %s", i > 0 ? "," : "", ls->objs[i]);
	fputs(i > 0 ? "\n]\n" : "]\n", stdout);
}

int
cmd_ls(int argc, char **argv)
{
	struct ls ls = { false, NULL, NULL, NULL, NULL };
	const struct cli_opt opts[] = { CLI_CONFIG, CLI_FLAG("json", 0, &ls.json), CLI_END };
	const struct cli_cmd cmd = { "ls", LS_USAGE, ls_help, opts, false };
	struct cfg *cfg = NULL;
	struct dirent **ents = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int i, k, rc;
	size_t len;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	rc = 1;
	ls.table = cli_table_new(client_dash_header);
	if (cli_refuse_root(&err) < 0 || cli_load_config(&cfg, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	ls.cfg = cfg;
	/* Dead domains first: their stale sockets are not listed twice. */
	if (reap_each_dead(cfg->data_root, cfg->esc_socket_dir, ls_dead_cb, &ls, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (ls.dead != NULL)
		fprintf(stderr, "lazaret: %zu domain(s) dead: the coordinator died and left its "
		    "sandbox; 'lazaret stop --all' cleans up\n", lz_strv_len(ls.dead));
	/* Talk only to sockets in a directory that is ours alone. */
	if (ctl_server_dir_check(cfg->esc_socket_dir, false, &err) < 0) {
		if (err.code == ENOENT) {	/* no domain ever ran: an empty list */
			ls_print(&ls);
			rc = 0;
		} else
			rc = cli_fail(&err);
		lz_err_clear(&err);
		goto out;
	}
	k = scandir(cfg->esc_socket_dir, &ents, NULL, alphasort);
	if (k < 0) {
		rc = errno == ENOENT ? 0 : 1;
		if (rc != 0)
			fprintf(stderr, "lazaret: cannot read %s: %s\n", cfg->esc_socket_dir,
			    strerror(errno));
		else
			ls_print(&ls);
		goto out;
	}
	for (i = 0; i < k; i++) {
		len = strlen(ents[i]->d_name);
		if (len > 4 && strcmp(ents[i]->d_name + len - 4, ".ctl") == 0)
			ls_one(&ls, cfg->esc_socket_dir, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	ls_print(&ls);
	rc = 0;
out:
	cli_table_free(ls.table);
	lz_strv_free(ls.objs);
	lz_strv_free(ls.dead);
	cfg_free(cfg);
	return rc;
}
