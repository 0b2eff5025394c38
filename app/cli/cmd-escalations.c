/* cmd-escalations.c - lazaret escalations: the host commands waiting for a
 * human in the user's domains, answered from any terminal (parallel to
 * `lazaret egress --pending / approve ID / deny ID`).
 *
 * Approving takes the same deliberate step as the prompt: the request is
 * printed whole (every word, invisible characters made visible), a fresh
 * code is shown, and only that code typed at the terminal approves; what
 * was typed before the question is flushed. No terminal, no approval: a
 * script can deny, never approve. Each answer is audited like the
 * prompt's: an esc.decision-how row saying how, then the decision row with
 * the uid and pid of this command.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "cli-table.h"
#include "client.h"
#include "client-dash.h"
#include "client-tty.h"
#include "commands.h"
#include "esc-ctl.h"
#include "jsonw.h"
#include "proto.h"
#include "reqview.h"
#include "shellwords.h"
#include "strv.h"
#include "xmalloc.h"

#define ESCS_USAGE "lazaret escalations [-p P] [-w DIR] [--pending] [--json]\n" \
	"   or: lazaret escalations [-p P] [-w DIR] approve|deny ID"
#define ESCS_ID_MIN	4	/* hex digits of a request ID that name it */

static const char escs_help[] =
    "List the host commands that agents asked to run (lazaret-escalate) and\n"
    "that wait for a human, in every live domain of yours (or in the domain\n"
    "of -p/-w), whoever started the session: a headless `lazaret run -T`, a\n"
    "workbench tab, a terminal that cannot show the prompt. Columns: REQUEST\n"
    "(the ID the prompt shows), DOMAIN, PROFILE, SESSION, COMMAND (each word\n"
    "as it will run, invisible characters made visible); then why it asks and\n"
    "the agent's justification. Decided requests are in `lazaret audit`.\n\n"
    "`approve ID` prints the request whole and a code; typing the code and\n"
    "Enter at the terminal approves it (anything else cancels), as at the\n"
    "prompt. It needs a terminal: a script can deny, never approve. `deny ID`\n"
    "refuses it at once. ID is the request's ID or its first 4 or more hex\n"
    "digits. The decision and how it was made are in `lazaret audit`.\n\n"
    "  -p, --profile P      a domain's profile (default: every live domain)\n"
    "  -w, --workspace DIR  a domain's workspace\n"
    "  --pending            only the waiting requests, no notes (the default\n"
    "                       list has nothing else: decided ones are audited)\n"
    "  --json               one JSON object a line: id, domain, profile,\n"
    "                       session, ticket, command, cwd, justification, reason\n";

/* One waiting request and where it waits. */
struct escs_req {
	char *sock;		/* its coordinator's control socket */
	char *domain;		/* Domain Anchor hash */
	struct esc_ctl_prompt q;
};

struct escs {
	struct escs_req *v;
	size_t n;
};

static void
escs_clear(struct escs *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].sock);
		free(l->v[i].domain);
		esc_ctl_prompt_clear(&l->v[i].q);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* ESC_LIST on cl: its waiting requests appended to l. */
static int
escs_collect(struct client *cl, const char *sock, const char *domain, struct escs *l,
    lz_err_t *err)
{
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	int r;

	esc_ctl_encode_list(&b, 0);
	if (client_send(cl, &b, err) < 0)
		return -1;
	for (;;) {
		if ((r = client_recv(cl, 30000, &h, &p, err)) < 0)
			return -1;
		if (r == 0)
			return lz_err_set(err, EPIPE, "the coordinator closed the connection");
		if (h.type == PROTO_OK)
			return 0;
		if (h.type == PROTO_ERROR)
			return client_error_frame(p, h.length, err);
		if (h.type != ESC_CTL_PROMPT)
			continue;
		l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
		memset(&l->v[l->n], 0, sizeof l->v[l->n]);
		if (esc_ctl_decode_prompt(p, h.length, &l->v[l->n].q, err) < 0)
			return -1;
		l->v[l->n].sock = xstrdup(sock);
		l->v[l->n].domain = xstrdup(domain);
		l->n++;
	}
}

/* One domain by its socket; a coordinator going away is no error. */
static void
escs_collect_path(const char *sock, const char *domain, struct escs *l)
{
	struct client *cl = NULL;
	lz_err_t err = LZ_ERR_INIT;

	if (client_connect_path(sock, &cl, &err) == 0 &&
	    escs_collect(cl, sock, domain, l, &err) < 0)
		fprintf(stderr, "lazaret escalations: domain %s: %s\n", domain, err.msg);
	lz_err_clear(&err);
	client_free(cl);
}

static void
escs_collect_cb(const char *sock, const char *hash, void *arg)
{
	escs_collect_path(sock, hash, arg);
}

/* The command as the prompt shows it: each word, invisible characters visible. */
static char *
escs_command(const char *command)
{
	lz_err_t err = LZ_ERR_INIT;
	char **argv = NULL, *joined, *out;

	if (lz_shellwords_split(command, strlen(command), &argv, &err) < 0) {
		lz_err_clear(&err);
		joined = reqview_word(command);
		out = xasprintf("(does not split) %s", joined);
		free(joined);
		return out;
	}
	out = reqview_command(argv);
	lz_strv_free(argv);
	return out;
}

static void
escs_print(const struct escs *l, bool json, bool pending)
{
	static const char *const header[] = {
		"REQUEST", "DOMAIN", "PROFILE", "SESSION", "COMMAND", NULL,
	};
	struct cli_table *t;
	size_t i;

	if (json) {
		for (i = 0; i < l->n; i++) {
			const struct esc_ctl_prompt *q = &l->v[i].q;
			struct lz_jsonw w;
			char *s;

			lz_jsonw_init(&w);
			lz_jsonw_obj_open(&w);
			lz_jsonw_key(&w, "id"); lz_jsonw_str(&w, q->request_id);
			lz_jsonw_key(&w, "domain"); lz_jsonw_str(&w, l->v[i].domain);
			lz_jsonw_key(&w, "profile"); lz_jsonw_str(&w, q->profile);
			lz_jsonw_key(&w, "session"); lz_jsonw_int(&w, q->session);
			lz_jsonw_key(&w, "ticket"); lz_jsonw_int(&w, q->ticket);
			lz_jsonw_key(&w, "command"); lz_jsonw_str(&w, q->command);
			lz_jsonw_key(&w, "cwd"); lz_jsonw_str(&w, q->cwd);
			lz_jsonw_key(&w, "justification"); lz_jsonw_str(&w, q->justification);
			lz_jsonw_key(&w, "reason"); lz_jsonw_str(&w, q->reason);
			lz_jsonw_obj_close(&w);
			s = lz_jsonw_steal(&w);
			puts(s);
			free(s);
		}
		return;
	}
	if (l->n == 0) {
		if (!pending)
			printf("# no request waits for a human (decided ones: lazaret audit)\n");
		return;
	}
	t = cli_table_new(header);
	for (i = 0; i < l->n; i++) {
		const struct esc_ctl_prompt *q = &l->v[i].q;
		char *cmd = escs_command(q->command), *prof = reqview_word(q->profile), *row;

		row = xasprintf("%s\t%s\t%s\t%u\t%s", q->request_id, l->v[i].domain, prof,
		    q->session, cmd);
		cli_table_add_tsv(t, row);
		free(row);
		free(prof);
		free(cmd);
	}
	cli_table_print(t, stdout, 1u << 3);
	cli_table_free(t);
	if (pending)
		return;
	for (i = 0; i < l->n; i++) {
		const struct esc_ctl_prompt *q = &l->v[i].q;
		char *why = reqview_word(q->reason), *just = reqview_word(q->justification);

		printf("# %.8s: asks because %s; the agent says: %s\n", q->request_id, why, just);
		free(why);
		free(just);
	}
}

/* The request whose ID is id or starts with it (ESCS_ID_MIN digits at least). */
static const struct escs_req *
escs_find(const struct escs *l, const char *id, lz_err_t *err)
{
	const struct escs_req *hit = NULL;
	size_t i, n = strlen(id);

	if (n < ESCS_ID_MIN || strspn(id, "0123456789abcdefABCDEF") != n) {
		lz_err_set(err, LZ_EUSAGE, "'%s' is not a request ID (%d or more hex digits; "
		    "see lazaret escalations)", id, ESCS_ID_MIN);
		return NULL;
	}
	for (i = 0; i < l->n; i++) {
		if (strncasecmp(l->v[i].q.request_id, id, n) != 0)
			continue;
		if (hit != NULL) {
			lz_err_set(err, LZ_EUSAGE, "'%s' names more than one waiting request: give "
			    "more of its ID", id);
			return NULL;
		}
		hit = &l->v[i];
	}
	if (hit == NULL)
		lz_err_set(err, ENOENT, "no request %s waits for a decision (decided, timed out, "
		    "or of a domain that is not running; see lazaret escalations)", id);
	return hit;
}

static void
escs_field(FILE *f, const char *label, const char *text, const char *after)
{
	char *w = reqview_word(text);

	fprintf(f, "  %s %s%s\n", label, w, after);
	free(w);
}

/* The request whole, as the prompt shows it, on the terminal fd. */
static void
escs_show(FILE *f, const struct escs_req *r)
{
	const struct esc_ctl_prompt *q = &r->q;
	lz_err_t err = LZ_ERR_INIT;
	char **argv = NULL, *w;
	size_t i;

	fprintf(f, "request %s of domain %s, session %u\n", q->request_id, r->domain, q->session);
	escs_field(f, "profile:      ", q->profile, "");
	escs_field(f, "in:           ", q->cwd, " (in the sandbox; the same directory on the host)");
	escs_field(f, "agent says:   ", q->justification, "");
	escs_field(f, "asks because: ", q->reason, "");
	if (lz_shellwords_split(q->command, strlen(q->command), &argv, &err) < 0) {
		w = reqview_word(q->command);
		fprintf(f, "  command (does not split: it cannot run as is): %s\n", w);
		free(w);
		lz_err_clear(&err);
		return;
	}
	fprintf(f, "  command, %zu word%s, run without a shell:\n", lz_strv_len(argv),
	    lz_strv_len(argv) == 1 ? "" : "s");
	for (i = 0; argv[i] != NULL; i++) {
		w = reqview_word(argv[i]);
		fprintf(f, "    [%zu] %s\n", i, w);
		free(w);
	}
	lz_strv_free(argv);
}

/* Ask for a fresh code at the terminal: true when it was typed. *how says
 * what happened, for the audit. */
static bool
escs_confirm(const struct escs_req *r, char **how, lz_err_t *err)
{
	char code[REQVIEW_CODE_LEN + 1], line[64], *tty_name;
	FILE *f = NULL;
	int fd;
	bool ok = false;
	size_t n;

	if ((fd = client_tty_open()) < 0) {
		lz_err_set(err, LZ_EUSAGE, "approving needs a human at a terminal (a code is asked "
		    "there); none is open here. deny works without one");
		return false;
	}
	/* Which terminal, for the audit: /dev/tty names none. */
	tty_name = isatty(STDIN_FILENO) ? ttyname(STDIN_FILENO) : isatty(STDERR_FILENO) ?
	    ttyname(STDERR_FILENO) : ttyname(fd);
	*how = xasprintf("lazaret escalations approve: the code shown was typed at %s",
	    tty_name != NULL ? tty_name : "a terminal");
	if ((f = fdopen(fd, "r+")) == NULL) {
		close(fd);
		lz_err_sys(err, errno, "cannot use the terminal");
		return false;
	}
	escs_show(f, r);
	reqview_code_new(code);
	for (n = 0; n < REQVIEW_CODE_LEN; n++)
		line[n] = (char)(code[n] >= 'a' && code[n] <= 'z' ? code[n] - 'a' + 'A' : code[n]);
	line[n] = '\0';
	/* Keys typed before the question never count. */
	(void)tcflush(fileno(f), TCIFLUSH);
	fprintf(f, "Type %s and Enter to approve and run it on the host (anything else "
	    "cancels): ", line);
	fflush(f);
	if (fgets(line, sizeof line, f) == NULL) {
		lz_err_set(err, ECANCELED, "not approved: no answer at the terminal");
		goto out;
	}
	line[strcspn(line, "\r\n")] = '\0';
	if (strlen(line) != REQVIEW_CODE_LEN || strncasecmp(line, code, REQVIEW_CODE_LEN) != 0) {
		lz_err_set(err, ECANCELED, "not approved: that was not the code");
		goto out;
	}
	ok = true;
out:
	fclose(f);
	return ok;
}

/* Send how (audited as esc.decision-how) and the decision; wait for its answer. */
static int
escs_decide(const struct escs_req *r, enum esc_ctl_action act, const char *how, lz_err_t *err)
{
	struct esc_ctl_decision d = { r->q.ticket, act, (char *)"" };
	struct proto_note note = { r->q.session, (char *)"esc.decision-how", r->q.request_id,
	    (char *)how };
	struct proto_buf b = { 0 };
	struct proto_header h;
	const uint8_t *p;
	struct client *cl = NULL;
	int ret;

	if (client_connect_path(r->sock, &cl, err) < 0)
		return -1;
	proto_encode_note(&b, &note);
	esc_ctl_encode_decide(&b, &d);
	ret = client_request(cl, &b, PROTO_OK, 30000, &h, &p, err);
	client_free(cl);
	return ret;
}

int
cmd_escalations(int argc, char **argv)
{
	const char *profile = NULL, *workspace = NULL, *verb = NULL, *id = NULL;
	bool json = false, pending = false;
	const struct cli_opt opts[] = {
		CLI_DOMAIN(&profile, &workspace), CLI_CONFIG, CLI_FLAG("json", 0, &json),
		CLI_FLAG("pending", 0, &pending), CLI_END,
	};
	const struct cli_cmd cmd = { "escalations", ESCS_USAGE, escs_help, opts, true, false };
	struct escs l = { NULL, 0 };
	struct client *cl = NULL;
	struct cfg *cfg = NULL;
	struct anchor *a = NULL;
	lz_err_t err = LZ_ERR_INIT;
	const struct escs_req *r;
	enum esc_ctl_action act = ESC_CTL_DENY;
	char *how = NULL;
	int rc = 1, c;

	if ((c = cli_parse(&cmd, argc, argv)) != CLI_GO_ON)
		return c;
	if (optind < argc) {
		verb = argv[optind];
		if (strcmp(verb, "approve") == 0)
			act = ESC_CTL_APPROVE;
		else if (strcmp(verb, "deny") != 0)
			return cli_usage_error("escalations", ESCS_USAGE, "unknown action '%s'", verb);
		if (optind + 2 != argc)
			return cli_usage_error("escalations", ESCS_USAGE, "%s takes one request ID",
			    verb);
		if (json || pending)
			return cli_usage_error("escalations", ESCS_USAGE, "--json and --pending "
			    "list the requests; they do not go with %s", verb);
		id = argv[optind + 1];
	}
	if (profile != NULL || workspace != NULL) {
		if ((c = cli_connect(profile, workspace, &cfg, &a, &cl, &err)) < 0)
			goto fail;
		if (c > 0)
			lz_err_clear(&err);	/* not running: nothing waits */
		else if (escs_collect(cl, a->ctl_socket, a->hash, &l, &err) < 0)
			goto fail;
	} else {
		if (cli_refuse_root(&err) < 0 || cli_load_config(&cfg, &err) < 0 ||
		    client_dash_each(cfg, escs_collect_cb, &l, &err) < 0)
			goto fail;
	}
	if (verb == NULL) {
		escs_print(&l, json, pending);
		rc = 0;
		goto out;
	}
	if ((r = escs_find(&l, id, &err)) == NULL)
		goto fail;
	if (act == ESC_CTL_APPROVE) {
		if (!escs_confirm(r, &how, &err))
			goto fail;
	} else
		how = xasprintf("lazaret escalations deny (uid %ld)", (long)getuid());
	if (escs_decide(r, act, how, &err) < 0)
		goto fail;
	fprintf(stderr, "request %.8s %s\n", r->q.request_id, act == ESC_CTL_APPROVE ?
	    "approved: it runs on the host now (lazaret audit has its result)" : "denied");
	rc = 0;
	goto out;
fail:
	rc = cli_fail(&err);
out:
	free(how);
	escs_clear(&l);
	client_free(cl);
	anchor_free(a);
	cfg_free(cfg);
	return rc;
}
