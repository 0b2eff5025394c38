/* cmd-ls.c - lazaret ls: every domain of this user (one line each): live
 * ones from their coordinators, dead ones from what their coordinator left. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client.h"
#include "coord/ctl-server.h"
#include "coord/reap.h"
#include "strv.h"
#include "xmalloc.h"

#define LS_USAGE "lazaret ls"

static const char ls_help[] =
    "List every live domain of this user: each control socket in the\n"
    "socket directory is asked for its status. Columns: DOMAIN PROFILE\n"
    "CONTAINER STATE MODE SESSIONS CLIENTS UPTIME(s) WORKSPACE. A domain\n"
    "whose coordinator died and left its sandbox (the guard that cleans\n"
    "up was killed too) is listed as dead: 'lazaret stop --all' removes\n"
    "what it left. Other sockets of dead coordinators are reported as\n"
    "stale and removed.\n";

/* One domain: its STATUS row, or why there is none (dead: listed already). */
static void
ls_one(const char *dir, const char *name, char *const *dead, int *n)
{
	char *path = xasprintf("%s/%s", dir, name), *text = NULL;
	struct client *cl = NULL;
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	lz_err_t err = LZ_ERR_INIT;
	size_t len = strlen(name) - 4;

	if (client_connect_path(path, &cl, &err) < 0) {
		if (client_socket_alive(path))
			printf("%.*s\t-\t-\tstarting-or-stopping\n", (int)len, name);
		else {
			_cleanup_free_ char *hash = xstrndup(name, len);

			client_unlink_stale(path);
			if (lz_strv_contains(dead, hash))
				goto out;
			printf("%.*s\t-\t-\tstale (removed %s)\n", (int)len, name, path);
		}
		(*n)++;
		goto out;
	}
	proto_encode_status_req(&b, PROTO_STATUS_ROW);
	if (client_request(cl, &b, PROTO_STATUS, 30000, &h, &p, &err) < 0 ||
	    proto_decode_text(p, h.length, &text, &err) < 0) {
		printf("%.*s\t-\t-\tnot answering\n", (int)len, name);
		(*n)++;
		goto out;
	}
	printf("%s\n", text);
	(*n)++;
out:
	lz_err_clear(&err);
	free(text);
	client_free(cl);
	free(path);
}

static int
ls_dead_cb(const struct anchor *a, void *arg)
{
	char ***dead = arg;

	printf("%s\t%s\t%s\tdead\t-\t-\t-\t-\t%s\n", a->hash, a->profile, a->container,
	    a->workspace);
	lz_strv_push(dead, a->hash);
	return 0;
}

int
cmd_ls(int argc, char **argv)
{
	static const struct cli_opt opts[] = { CLI_CONFIG, CLI_END };
	static const struct cli_cmd cmd = { "ls", LS_USAGE, ls_help, opts, false };
	struct cfg *cfg = NULL;
	struct dirent **ents = NULL;
	char **dead = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int i, k, n = 0, rc = 1;
	size_t len;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	rc = 1;
	if (cli_refuse_root(&err) < 0 || cli_load_config(&cfg, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	printf("DOMAIN\tPROFILE\tCONTAINER\tSTATE\tMODE\tSESSIONS\tCLIENTS\tUPTIME\tWORKSPACE\n");
	if (reap_each_dead(cfg->data_root, cfg->esc_socket_dir, ls_dead_cb, &dead, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (dead != NULL)
		fprintf(stderr, "lazaret: %zu domain(s) dead: the coordinator died and left its "
		    "sandbox; 'lazaret stop --all' cleans up\n", lz_strv_len(dead));
	/* Talk only to sockets in a directory that is ours alone. */
	if (ctl_server_dir_check(cfg->esc_socket_dir, false, &err) < 0) {
		rc = err.code == ENOENT ? 0 : cli_fail(&err);
		lz_err_clear(&err);
		goto out;
	}
	k = scandir(cfg->esc_socket_dir, &ents, NULL, alphasort);
	if (k < 0) {
		rc = errno == ENOENT ? 0 : 1;
		if (rc != 0)
			fprintf(stderr, "lazaret: cannot read %s: %s\n", cfg->esc_socket_dir,
			    strerror(errno));
		goto out;
	}
	for (i = 0; i < k; i++) {
		len = strlen(ents[i]->d_name);
		if (len > 4 && strcmp(ents[i]->d_name + len - 4, ".ctl") == 0)
			ls_one(cfg->esc_socket_dir, ents[i]->d_name, dead, &n);
		free(ents[i]);
	}
	free(ents);
	rc = 0;
out:
	lz_strv_free(dead);
	cfg_free(cfg);
	return rc;
}
