/* side-broker-git.c - the credential broker's git kind: a push is let out
 * only when every ref it updates matches the entry's refs: patterns (default
 * refs/heads/lazaret/STAR), none is deleted, and each update is a
 * fast-forward unless its pattern carries the force mark ("+", the entry's
 * force: true); otherwise git gets a receive-pack report it prints
 * ("! [remote rejected] main -> main (why)"), and every ref of every push is
 * an audit row (name, ids, verdict). Fetch and clone go through as ordinary
 * brokered requests.
 *
 * A fast-forward is shown by the push itself: the pack's commits are hashed
 * here and walked from the new id (gitpack.c); the old id is the one the
 * upstream will compare the ref against before it moves it. A walk that
 * leaves the pack without meeting the old id refuses the update (fail
 * closed): the broker asks neither the agent nor the upstream what it has. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitpack.h"
#include "pktline.h"
#include "side-broker.h"
#include "xmalloc.h"

/* The body without its chunked framing (the whole of it: the pack too). */
static uint8_t *
git_body(const struct httpreq *r, const struct proto_buf *keep, size_t *len)
{
	uint8_t *b = xmalloc(keep->len + 1);

	*len = 0;
	if (r->chunked) {
		struct httpreq_chunk ch = { 0 };

		(void)httpreq_chunk_data(&ch, keep->data, keep->len, b, keep->len, len);
	} else {
		memcpy(b, keep->data, keep->len);
		*len = keep->len;
	}
	return b;
}

/* Why each command is refused (NULL: not refused); 1 when any is. */
static int
git_verdicts(const struct side_broker_cred *c, const struct pktline_cmd *cmds, size_t n,
    const uint8_t *pack, size_t plen, char (*why)[200], const char **refusal)
{
	struct gitpack *gp = NULL;
	const char *perr = NULL;
	bool any = false, need = false;
	bool check[PKTLINE_MAX_CMDS] = { false };

	for (size_t i = 0; i < n; i++) {
		int m = pktline_ref_match(cmds[i].ref, c->refs, c->nrefs);

		refusal[i] = NULL;
		if (cmds[i].is_delete || m < 0) {
			snprintf(why[i], sizeof why[i], "%s", cmds[i].is_delete ? "delete refused" :
			    "ref outside refs:");
			refusal[i] = why[i];
			any = true;
		} else
			need = need || (check[i] = !cmds[i].is_create && c->refs[m][0] != '+' &&
			    strcmp(cmds[i].old_id, cmds[i].new_id) != 0);
	}
	if (any || !need)
		return any;
	/* updates of refs that may not be forced: the pack shows new descends from old */
	if (gitpack_read(pack, plen, strlen(cmds[0].old_id) / 2, &gp, &perr) < 0) {
		for (size_t i = 0; i < n; i++)
			if (check[i]) {
				snprintf(why[i], sizeof why[i], "force check: %s", perr);
				refusal[i] = why[i];
			}
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		enum gitpack_verdict v;

		if (!check[i] || (v = gitpack_descends(gp, cmds[i].new_id, cmds[i].old_id)) ==
		    GITPACK_DESCENDS)
			continue;
		/* short: the audit row's name has the ids already (the git message adds them) */
		snprintf(why[i], sizeof why[i], "%s", v == GITPACK_NOT_FF ?
		    "force push: not a fast-forward" : "force push: not shown to descend from old");
		refusal[i] = why[i];
		any = true;
	}
	gitpack_free(gp);
	return any;
}

int
side_broker_git_push(struct side_broker_cred *c, int fd, const struct httpreq *r,
    struct proto_buf *keep, uint64_t t0)
{
	uint8_t *body, *out = NULL;
	size_t bl = 0, n = 0, used, olen = 0;
	struct pktline_cmd *cmds = xcalloc(PKTLINE_MAX_CMDS, sizeof *cmds);
	char (*why)[200] = xcalloc(PKTLINE_MAX_CMDS, sizeof *why);
	const char *refusal[PKTLINE_MAX_CMDS], *perr = NULL, *msg[PKTLINE_MAX_CMDS];
	bool sideband = false, any;
	char text[256], reason[300], force_reason[PKTLINE_MAX_CMDS][300];
	int rc, ret = 0;

	body = git_body(r, keep, &bl);
	/* git's probe before a push larger than http.postBuffer (remote-curl's
	 * probe_rpc): a flush alone, no command, nothing updated */
	if (bl == 4 && memcmp(body, "0000", 4) == 0) {
		ret = 1;
		goto out;
	}
	rc = pktline_commands(body, bl < PKTLINE_HEAD_MAX ? bl : PKTLINE_HEAD_MAX, cmds, &n,
	    &used, &sideband, &perr);
	if (rc != 1) {
		snprintf(reason, sizeof reason, "push refused: %s", rc == 0 ? "commands cut short" : perr);
		side_broker_answer(fd, 400, reason);
		side_broker_report(c, false, 400, "PUSH", "", 0, keep->len, 0, side_now_ms() - t0, reason);
		goto out;
	}
	any = git_verdicts(c, cmds, n, body + used, bl - used, why, refusal);
	/* one audit row a ref: name, old and new ids, verdict */
	for (size_t i = 0; i < n; i++) {
		snprintf(text, sizeof text, "%s %.12s..%.12s", cmds[i].ref, cmds[i].old_id,
		    cmds[i].new_id);
		side_broker_report(c, !any, any ? 403 : 0, "PUSH", text, strlen(text), 0, 0,
		    side_now_ms() - t0, refusal[i] != NULL ? refusal[i] : any ?
		    "another ref refused" : NULL);
	}
	if (!any) {
		ret = 1;
		goto out;
	}
	{
		char pats[200] = "";

		for (size_t i = 0; i < c->nrefs && strlen(pats) < 150; i++)
			snprintf(pats + strlen(pats), sizeof pats - strlen(pats), "%s%s", i ? " " : "",
			    c->refs[i] + (c->refs[i][0] == '+'));
		snprintf(reason, sizeof reason, "lazaret: credential %s pushes only %s, never deletes",
		    c->name, pats);
	}
	/* what git prints for each ref: the rule it broke */
	for (size_t i = 0; i < n; i++) {
		msg[i] = NULL;
		if (refusal[i] == NULL)
			continue;
		if (strncmp(refusal[i], "force push: not", 15) == 0) {
			snprintf(force_reason[i], sizeof force_reason[i], "lazaret: credential %s: force "
			    "push: %s %.12s (force: false)", c->name, strstr(refusal[i], "fast") != NULL ?
			    "not a fast-forward of" : "the pushed commits do not descend from",
			    cmds[i].old_id);
			msg[i] = force_reason[i];
		} else if (strncmp(refusal[i], "force ", 6) == 0) {
			snprintf(force_reason[i], sizeof force_reason[i], "lazaret: credential %s: %s",
			    c->name, refusal[i]);
			msg[i] = force_reason[i];
		} else
			msg[i] = reason;
	}
	out = xmalloc(65536);
	olen = pktline_refusal(cmds, n, msg, sideband, out, 65536);
	{
		char h[200];
		int hl = snprintf(h, sizeof h, "HTTP/1.1 200 OK\r\nContent-Type: "
		    "application/x-git-receive-pack-result\r\nCache-Control: no-cache\r\n"
		    "Connection: close\r\nContent-Length: %zu\r\n\r\n", olen);

		if (olen > 0 && hl > 0 && side_broker_write_all(fd, h, (size_t)hl) == 0)
			(void)side_broker_write_all(fd, out, olen);
	}
out:
	free(out);
	free(why);
	free(cmds);
	free(body);
	return ret;
}
