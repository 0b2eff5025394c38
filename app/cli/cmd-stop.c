/* cmd-stop.c - lazaret stop: tear the domain's sandbox down, or clean up
 * after a coordinator that died; --all: every domain of this user. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "client.h"
#include "commands.h"
#include "host/ctl-server.h"
#include "coord/reap.h"
#include "xmalloc.h"

#define STOP_USAGE "lazaret stop [--profile P] [--workspace DIR] | --all"
#define STOP_WAIT_MS	60000	/* a teardown: sessions end, podman rm, unmounts */
#define STOP_REAP_WAIT_MS 30000	/* a guard that is cleaning up already */

static const char stop_help[] =
    "Ask the domain's Session Coordinator to tear down: every session\n"
    "ends (its clients see it exit), the container is removed, the\n"
    "mounts released and the sockets removed. Waits until it is done.\n"
    "When the coordinator died and left its sandbox (see 'lazaret ls'),\n"
    "removes what it left. Exit status 1 when nothing runs.\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory)\n"
    "  -a, --all            every domain of yours, running or dead\n";

/* STOP to the coordinator on ctl_path (through cl, which is freed, or a new
 * connection when NULL), then wait for it to be gone. */
static int
stop_path(const char *ctl_path, struct client *cl, lz_err_t *err)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	int r;

	if (cl == NULL && client_connect_path(ctl_path, &cl, err) < 0)
		return -1;
	proto_encode_stop(&b);
	r = client_request(cl, &b, PROTO_OK, 30000, &h, &p, err);
	client_free(cl);
	if (r < 0)
		return -1;
	/* Done when the coordinator has removed everything and exited. */
	return client_wait_exit_path(ctl_path, STOP_WAIT_MS, err);
}

static int
stop_dead_cb(const struct anchor *a, void *arg)
{
	lz_err_t err = LZ_ERR_INIT;
	int *rc = arg, r;

	if ((r = reap_if_dead(a, &podman_ops, STOP_REAP_WAIT_MS, &err)) < 0) {
		*rc = cli_fail(&err);
		return 0;
	}
	if (r > 0)
		printf("cleaned up domain %s (%s): its coordinator had died\n", a->hash,
		    a->container);
	return 0;
}

static int
stop_all(const struct cfg *cfg)
{
	struct dirent **ents = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int i, k, rc = 0;
	size_t len;

	if (ctl_server_dir_check(cfg->esc_socket_dir, false, &err) < 0) {
		if (err.code != ENOENT)
			return cli_fail(&err);
		lz_err_clear(&err);
	} else if ((k = scandir(cfg->esc_socket_dir, &ents, NULL, alphasort)) >= 0) {
		for (i = 0; i < k; i++) {
			_cleanup_free_ char *path = xasprintf("%s/%s", cfg->esc_socket_dir,
			    ents[i]->d_name);

			len = strlen(ents[i]->d_name);
			if (len > 4 && strcmp(ents[i]->d_name + len - 4, ".ctl") == 0 &&
			    client_socket_alive(path)) {
				if (stop_path(path, NULL, &err) < 0)
					rc = cli_fail(&err);
				else
					printf("stopped domain %.*s\n", (int)(len - 4), ents[i]->d_name);
			}
			free(ents[i]);
		}
		free(ents);
	}
	/* Then what dead coordinators left (those just stopped are gone). */
	if (reap_each_dead(cfg->data_root, cfg->esc_socket_dir, stop_dead_cb, &rc, &err) < 0)
		rc = cli_fail(&err);
	return rc;
}

int
cmd_stop(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL;
	bool all = false;
	const struct cli_opt opts[] = { CLI_DOMAIN(&profile, &workspace),
	    CLI_FLAG("all", 'a', &all), CLI_CONFIG, CLI_END };
	const struct cli_cmd cmd = { "stop", STOP_USAGE, stop_help, opts, false };
	struct client *cl = NULL;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT, gone = LZ_ERR_INIT;
	int r, rc = 1;

	if ((r = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return r;
	if (all) {
		if (profile != NULL || workspace != NULL)
			return cli_usage_error("stop", STOP_USAGE, "--all takes no --profile or "
			    "--workspace");
		if (cli_refuse_root(&err) < 0 || cli_load_config(&cfg, &err) < 0)
			rc = cli_fail(&err);
		else
			rc = stop_all(cfg);
		goto out;
	}
	if ((r = cli_connect(profile, workspace, &cfg, &a, &cl, &err)) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (r == 1) {
		/* Nobody listens: a dead coordinator may have left its sandbox. */
		gone = err;
		err = (lz_err_t)LZ_ERR_INIT;
		if ((r = reap_if_dead(a, &podman_ops, STOP_REAP_WAIT_MS, &err)) < 0) {
			rc = cli_fail(&err);
			goto out;
		}
		if (r == 0) {
			rc = cli_fail(&gone);
			goto out;
		}
		printf("cleaned up domain %s (%s): its coordinator had died\n", a->hash,
		    a->container);
		rc = 0;
		goto out;
	}
	r = stop_path(a->ctl_socket, cl, &err);
	cl = NULL;
	if (r < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	printf("stopped domain %s (%s)\n", a->hash, a->container);
	rc = 0;
out:
	lz_err_clear(&gone);
	client_free(cl);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
