/* cmd-audit.c - lazaret audit: the domain's hash-chained audit trail. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store/audit-text.h"
#include "cli.h"
#include "client.h"
#include "commands.h"
#include "esc-ctl.h"
#include "store/store.h"

#define AUDIT_USAGE "lazaret audit [--profile P] [--workspace DIR] [--json | --words] [--verify]"

static const char audit_help[] =
    "Print the domain's audit trail, one line per event: SEQ, TIME (UTC),\n"
    "WHO, EVENT (an escalation's request, refused, decision, result; the\n"
    "domain's domain.start and domain.stop; session.start, session.end),\n"
    "VERDICT (the policy's, the decision, or the exit status), REQUEST (the\n"
    "ID the prompt showed) and WHAT (the command and the host directory, an\n"
    "edit as ORIGINAL -> EDITED, the reason, or the duration and output\n"
    "size). Read through the running coordinator, or from state.db when none\n"
    "runs.\n\n"
    "  -p, --profile P      agent profile (default: \"default\")\n"
    "  -w, --workspace DIR  workspace (default: the current directory)\n"
    "  --json               JSON Lines: one object per row, with everything\n"
    "                       recorded and the row's prev_hash and hash (hex)\n"
    "  --words              one line per row in words, as the workbench's Audit\n"
    "                       list: SEQ TIME KIND WHO and what happened ('denied\n"
    "                       curl evil.example', 'merged 3 commits into main')\n"
    "  --verify             check the hash chain and each row against its hash\n"
    "                       in the append-only anchor file (/var/lib/lazaret/\n"
    "                       anchor/UID): 'audit trail intact (N rows)' and how\n"
    "                       many are anchored, or 'audit trail broken at row N:\n"
    "                       why' and exit 1\n";

/* Through the running coordinator (it holds the store exclusively). */
static int
audit_via_coordinator(struct client *cl, uint8_t flags, char **text, int *code, lz_err_t *err)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	uint32_t c;

	esc_ctl_encode_audit_req(&b, flags);
	if (client_request(cl, &b, ESC_CTL_AUDIT, 60000, &h, &p, err) < 0)
		return -1;
	if (esc_ctl_decode_audit(p, h.length, &c, text, err) < 0)
		return -1;
	*code = (int)c;
	return 0;
}

/* No coordinator runs: open state.db ourselves. */
static int
audit_direct(const struct anchor *a, uint8_t flags, char **text, int *code, lz_err_t *err)
{
	struct store *st = NULL;
	int ret, tries;

	if (access(a->state_db, F_OK) < 0)
		return lz_err_sys(err, errno, "no audit trail for domain %s (%s)", a->hash,
		    a->state_db);
	/* No socket answered, yet the store is held: a coordinator is starting or
	 * tearing down (it closes the store last). Wait for it, up to 5 s. */
	for (tries = 0; store_open(a->state_db, &st, err) < 0; tries++) {
		if (err->code != EBUSY || tries == 50)
			return -1;
		lz_err_clear(err);
		usleep(100 * 1000);
	}
	ret = audit_text_render(st, flags, text, code, err);
	store_close(st);
	return ret;
}

int
cmd_audit(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL;
	bool json = false, verify = false, words = false;
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_FLAG("json", 0, &json),
		CLI_FLAG("verify", 0, &verify), CLI_FLAG("words", 0, &words), CLI_END,
	};
	const struct cli_cmd cmd = { "audit", AUDIT_USAGE, audit_help, opts, false };
	struct client *cl = NULL;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT;
	char *text = NULL;
	uint8_t flags;
	int r, rc = 1, code = 0;

	if ((r = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return r;
	flags = (json ? ESC_CTL_AUDIT_JSON : words ? ESC_CTL_AUDIT_WORDS | ESC_CTL_AUDIT_LINES :
	    ESC_CTL_AUDIT_LINES) | (verify ? ESC_CTL_AUDIT_VERIFY : 0);
	if ((r = cli_connect(profile, workspace, &cfg, &a, &cl, &err)) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	if (r > 0)
		lz_err_clear(&err);
	if ((r == 0 ? audit_via_coordinator(cl, flags, &text, &code, &err) :
	    audit_direct(a, flags, &text, &code, &err)) < 0) {
		rc = cli_fail(&err);
		goto out;
	}
	fputs(text, stdout);
	rc = code;
out:
	free(text);
	client_free(cl);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
