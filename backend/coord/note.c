/* note.c - audit what clients saw around escalation prompts (see note.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord/note.h"
#include "jsonw.h"
#include "proto.h"
#include "store/audit.h"
#include "xmalloc.h"

static const char *const note_kinds[] = { "esc.decision-how" };

static bool
note_kind_known(const char *kind)
{
	size_t i;

	for (i = 0; i < sizeof note_kinds / sizeof note_kinds[0]; i++)
		if (strcmp(kind, note_kinds[i]) == 0)
			return true;
	return false;
}

static void
note_done(void *arg, int status, int64_t seq, lz_err_t *err)
{
	(void)arg;
	(void)seq;
	if (status < 0)
		fprintf(stderr, "lazaret: coordinator: audit of a NOTE: %s\n",
		    err != NULL && err->msg != NULL ? err->msg : "failed");
}

void
note_serve(uv_loop_t *loop, struct store *st, struct ctl_server_client *cl, const uint8_t *p,
    size_t len, note_session_fn find, void *arg)
{
	struct proto_note n;
	struct audit_rec rec;
	struct lz_jsonw w;
	struct session *s;
	lz_err_t err = LZ_ERR_INIT;
	char *actor = NULL, *detail = NULL;

	if (proto_decode_note(p, len, &n, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if (!note_kind_known(n.kind)) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "NOTE: unknown kind '%s' (known: "
		    "esc.decision-how)", n.kind);
		goto out;
	}
	if ((s = find(arg, cl, n.session)) == NULL)
		goto out;	/* find sent the ERROR */
	if (st == NULL)
		goto out;	/* no store (a test coordinator): nothing to record in */
	actor = xasprintf("uid %ld pid %ld", (long)cl->uid, (long)cl->pid);
	lz_jsonw_init(&w);
	lz_jsonw_obj_open(&w);
	lz_jsonw_key(&w, "text");
	lz_jsonw_str(&w, n.text);
	lz_jsonw_obj_close(&w);
	detail = lz_jsonw_steal(&w);
	memset(&rec, 0, sizeof rec);
	rec.kind = n.kind;
	rec.actor = actor;
	rec.session_id = s->uuid;
	rec.request_id = n.request_id[0] != '\0' ? n.request_id : NULL;
	rec.detail = detail;
	audit_submit(loop, st, &rec, note_done, NULL);
out:
	free(actor);
	free(detail);
	proto_note_clear(&n);
}
