/* cmd-domain.c - lazaret domain: the Domain Anchor and every derived name. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "jsonw.h"

#define DOMAIN_USAGE "lazaret domain [--profile P] [--workspace DIR] [--json]"

static const char domain_help[] =
    "Print the Domain Anchor of (profile, workspace): the first 12 hex\n"
    "characters of SHA-256(\"<profile>:<canonical workspace>\"), and the\n"
    "container, socket, lock and storage names derived from it.\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory)\n"
    "  --json               print JSON\n";

static void
domain_print_json(const struct anchor *a)
{
	struct lz_jsonw w;
	char *s;

	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "domain_hash"); lz_jsonw_str(&w, a->hash);
	lz_jsonw_key(&w, "profile"); lz_jsonw_str(&w, a->profile);
	lz_jsonw_key(&w, "workspace"); lz_jsonw_str(&w, a->workspace);
	lz_jsonw_key(&w, "container"); lz_jsonw_str(&w, a->container);
	lz_jsonw_key(&w, "sidecar"); lz_jsonw_str(&w, a->sidecar);
	lz_jsonw_key(&w, "lockfile"); lz_jsonw_str(&w, a->lockfile);
	lz_jsonw_key(&w, "control_socket"); lz_jsonw_str(&w, a->ctl_socket);
	lz_jsonw_key(&w, "escalation_socket"); lz_jsonw_str(&w, a->esc_socket);
	lz_jsonw_key(&w, "domain_root"); lz_jsonw_str(&w, a->domain_root);
	lz_jsonw_key(&w, "state_db"); lz_jsonw_str(&w, a->state_db);
	lz_jsonw_key(&w, "worktree"); lz_jsonw_str(&w, a->worktree);
	lz_jsonw_key(&w, "branch"); lz_jsonw_str(&w, a->branch);
	lz_jsonw_obj_close(&w);
	s = lz_jsonw_steal(&w);
	printf("%s\n", s);
	free(s);
}

static void
domain_print_text(const struct anchor *a)
{
	printf("domain_hash:       %s\n", a->hash);
	printf("profile:           %s\n", a->profile);
	printf("workspace:         %s\n", a->workspace);
	printf("container:         %s\n", a->container);
	printf("sidecar:           %s\n", a->sidecar);
	printf("lockfile:          %s\n", a->lockfile);
	printf("control_socket:    %s\n", a->ctl_socket);
	printf("escalation_socket: %s\n", a->esc_socket);
	printf("domain_root:       %s\n", a->domain_root);
	printf("state_db:          %s\n", a->state_db);
	printf("worktree:          %s\n", a->worktree);
	printf("branch:            %s\n", a->branch);
}

int
cmd_domain(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL;
	bool json = false;
	/* No --config here: only the global one (lazaret --config FILE domain). */
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_FLAG("json", 0, &json), CLI_END,
	};
	const struct cli_cmd cmd = { "domain", DOMAIN_USAGE, domain_help, opts, false };
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT;
	int rc;

	if ((rc = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return rc;
	if (cli_load_config(&cfg, &err) < 0 ||
	    cli_domain(cfg, profile, workspace, &a, NULL, &err) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (json)
		domain_print_json(a);
	else
		domain_print_text(a);
	rc = 0;
out:
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
