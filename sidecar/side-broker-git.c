/* side-broker-git.c - the credential broker's git kind: a push is let out
 * only when every ref it updates matches the entry's refs: patterns (default
 * refs/heads/lazaret/STAR) and none is deleted; otherwise git gets a
 * receive-pack report it prints ("! [remote rejected] main -> main (why)"),
 * and every ref of every push is an audit row (name, ids, verdict). Fetch
 * and clone go through as ordinary brokered requests. Force pushes are not
 * told apart from fast-forwards: that needs the objects, which the broker
 * does not read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktline.h"
#include "side-broker.h"
#include "xmalloc.h"

int
side_broker_git_push(struct side_broker_cred *c, int fd, const struct httpreq *r,
    struct proto_buf *keep, uint64_t t0)
{
	uint8_t *data = xmalloc(PKTLINE_HEAD_MAX), *out = NULL;
	size_t dl = 0, n = 0, used, olen = 0;
	struct pktline_cmd *cmds = xcalloc(PKTLINE_MAX_CMDS, sizeof *cmds);
	bool refused[PKTLINE_MAX_CMDS] = { false }, sideband = false, any = false;
	const char *why = NULL;
	char text[256], reason[300];
	int rc, ret = 0;

	if (r->chunked) {
		struct httpreq_chunk ch = { 0 };

		(void)httpreq_chunk_data(&ch, keep->data, keep->len, data, PKTLINE_HEAD_MAX, &dl);
	} else {
		dl = keep->len < PKTLINE_HEAD_MAX ? keep->len : PKTLINE_HEAD_MAX;
		memcpy(data, keep->data, dl);
	}
	rc = pktline_commands(data, dl, cmds, &n, &used, &sideband, &why);
	if (rc != 1) {
		snprintf(reason, sizeof reason, "push refused: %s", rc == 0 ? "commands cut short" : why);
		side_broker_answer(fd, 400, reason);
		side_broker_report(c, false, 400, "PUSH", "", 0, keep->len, 0, side_now_ms() - t0, reason);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		refused[i] = cmds[i].is_delete || !pktline_ref_allowed(cmds[i].ref, c->refs, c->nrefs);
		any = any || refused[i];
	}
	/* one audit row a ref: name, old and new ids, verdict */
	for (size_t i = 0; i < n; i++) {
		snprintf(text, sizeof text, "%s %.12s..%.12s", cmds[i].ref, cmds[i].old_id,
		    cmds[i].new_id);
		side_broker_report(c, !any, any ? 403 : 0, "PUSH", text, strlen(text), 0, 0,
		    side_now_ms() - t0, refused[i] ? (cmds[i].is_delete ? "delete refused" :
		    "ref outside refs:") : any ? "another ref refused" : NULL);
	}
	if (!any) {
		ret = 1;
		goto out;
	}
	{
		char pats[200] = "";

		for (size_t i = 0; i < c->nrefs && strlen(pats) < 150; i++)
			snprintf(pats + strlen(pats), sizeof pats - strlen(pats), "%s%s", i ? " " : "",
			    c->refs[i]);
		snprintf(reason, sizeof reason, "lazaret: credential %s pushes only %s, never deletes",
		    c->name, pats);
	}
	out = xmalloc(65536);
	olen = pktline_refusal(cmds, n, refused, reason, sideband, out, 65536);
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
	free(cmds);
	free(data);
	return ret;
}

