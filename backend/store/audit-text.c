/* audit-text.c - render the audit trail (see audit-text.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "store/audit.h"
#include "store/audit-text.h"
#include "store/audit-words.h"
#include "audit-line.h"
#include "esc-ctl.h"
#include "jsonw.h"
#include "xmalloc.h"

struct audit_text_acc {
	char *buf;
	size_t len, cap;
	bool json, lines;
	struct audit_words_ctx *words;	/* --words: in words (audit-words.h) */
};

static void
audit_text_add(struct audit_text_acc *a, const char *s)
{
	size_t n = strlen(s);

	if (a->len + n + 1 > a->cap) {
		a->cap = (a->len + n + 1) * 2;
		a->buf = xrealloc(a->buf, a->cap);
	}
	memcpy(a->buf + a->len, s, n + 1);
	a->len += n;
}

static int
audit_text_row_cb(const struct audit_row *r, void *arg)
{
	struct audit_text_acc *a = arg;
	struct lz_jsonw w;
	char ts[32], *line, hex[2 * AUDIT_HASH_LEN + 1];
	struct tm tm;
	time_t t = (time_t)(r->rec.ts / 1000);

	if (a->json) {
		/* One JSON object per line; detail is embedded as it was stored. */
		lz_jsonw_init(&w);
		lz_jsonw_obj_open(&w);
		lz_jsonw_key(&w, "seq"); lz_jsonw_int(&w, r->seq);
		lz_jsonw_key(&w, "ts"); lz_jsonw_int(&w, r->rec.ts);
		lz_jsonw_key(&w, "kind"); lz_jsonw_str(&w, r->rec.kind);
		lz_jsonw_key(&w, "actor"); lz_jsonw_str(&w, r->rec.actor);
		lz_jsonw_key(&w, "session_id"); lz_jsonw_str(&w, r->rec.session_id);
		lz_jsonw_key(&w, "request_id"); lz_jsonw_str(&w, r->rec.request_id);
		sodium_bin2hex(hex, sizeof hex, r->prev_hash, AUDIT_HASH_LEN);
		lz_jsonw_key(&w, "prev_hash"); lz_jsonw_str(&w, hex);
		sodium_bin2hex(hex, sizeof hex, r->hash, AUDIT_HASH_LEN);
		lz_jsonw_key(&w, "hash"); lz_jsonw_str(&w, hex);
		lz_jsonw_obj_close(&w);
		line = lz_jsonw_steal(&w);
		/* splice "detail": <stored JSON> before the closing brace */
		line[strlen(line) - 1] = '\0';
		audit_text_add(a, line);
		audit_text_add(a, ",\"detail\":");
		audit_text_add(a, r->rec.detail != NULL ? r->rec.detail : "{}");
		audit_text_add(a, "}\n");
		free(line);
		return 0;
	}
	if (a->words != NULL) {
		struct audit_words aw;

		/* SEQ TIME (UTC) KIND WHO WHAT, as the workbench's Audit list */
		strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
		audit_words_render(a->words, r->rec.kind, r->rec.actor, r->rec.request_id,
		    r->rec.detail, &aw);
		line = xasprintf("%5lld  %s  %-8s  %-7s  %s\n", (long long)r->seq, ts, aw.kind,
		    aw.actor, aw.summary);
		audit_words_clear(&aw);
		audit_text_add(a, line);
		free(line);
		return 0;
	}
	if (a->lines) {
		line = audit_line_format(r->seq, r->rec.ts, r->rec.kind, r->rec.actor,
		    r->rec.request_id, r->rec.detail);
		audit_text_add(a, line);
		free(line);
		return 0;
	}
	/* the raw form: the workbench's panel reads it */
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	line = xasprintf("%6lld %s %-14s %-24s %s\n", (long long)r->seq, ts, r->rec.kind,
	    r->rec.actor != NULL ? r->rec.actor : "-",
	    r->rec.detail != NULL ? r->rec.detail : "{}");
	audit_text_add(a, line);
	free(line);
	return 0;
}

/* The second line of --verify: how much of the trail the anchor file holds. */
static char *
audit_text_anchor(const struct audit_verify_result *vr)
{
	if (!vr->anchor_present)
		return xasprintf("not anchored: no %s (scripts/setup-host creates it, as root)\n",
		    vr->anchor_file);
	if (!vr->anchor_append_only)
		return xasprintf("%lld of %lld rows anchored in %s, which is NOT append-only: it "
		    "protects nothing (scripts/setup-host sets chattr +a, as root)\n",
		    (long long)vr->anchored, (long long)vr->rows, vr->anchor_file);
	return xasprintf("%lld of %lld rows anchored in %s (append-only)\n",
	    (long long)vr->anchored, (long long)vr->rows, vr->anchor_file);
}

int
audit_text_render(struct store *st, uint8_t flags, char **text, int *code, lz_err_t *err)
{
	struct audit_text_acc a = { NULL, 0, 0, (flags & ESC_CTL_AUDIT_JSON) != 0,
	    (flags & (ESC_CTL_AUDIT_JSON | ESC_CTL_AUDIT_LINES)) == ESC_CTL_AUDIT_LINES };
	struct audit_verify_result vr;
	char *an_text = NULL;

	*code = 0;
	if (flags & ESC_CTL_AUDIT_VERIFY) {
		memset(&vr, 0, sizeof vr);
		if (audit_verify(st, &vr, err) < 0)
			return -1;
		if (vr.ok)
			*text = xasprintf("audit trail intact (%lld rows)\n%s", (long long)vr.rows,
			    an_text = audit_text_anchor(&vr));
		else {
			*text = xasprintf("audit trail broken at row %lld: %s\n",
			    (long long)vr.bad_seq, vr.why != NULL ? vr.why : "?");
			*code = 1;
		}
		free(an_text);
		audit_verify_result_clear(&vr);
		return 0;
	}
	audit_text_add(&a, "");
	if (!a.json && (flags & ESC_CTL_AUDIT_WORDS))
		a.words = audit_words_ctx_new();
	if (a.lines && a.words == NULL) {
		char *h = audit_line_header();

		audit_text_add(&a, h);
		free(h);
	}
	if (audit_list(st, 0, 0, audit_text_row_cb, &a, err) < 0) {
		audit_words_ctx_free(a.words);
		free(a.buf);
		return -1;
	}
	audit_words_ctx_free(a.words);
	*text = a.buf;
	return 0;
}

struct audit_text_job {
	struct ctl_server_client *cl;
	uint8_t flags;
	char *text;
	int code;
};

static int
audit_text_work(struct store *st, void *arg, lz_err_t *err)
{
	struct audit_text_job *j = arg;

	return audit_text_render(st, j->flags, &j->text, &j->code, err);
}

static void
audit_text_done(void *arg, int status, lz_err_t *err)
{
	struct audit_text_job *j = arg;
	struct proto_buf b = { NULL, 0, 0 };

	if (!j->cl->closing) {
		if (status < 0)
			ctl_server_send_error(j->cl, PROTO_E_BAD_PAYLOAD, "audit: %s",
			    err != NULL && err->msg != NULL ? err->msg : "failed");
		else {
			esc_ctl_encode_audit(&b, (uint32_t)j->code, j->text);
			ctl_server_send(j->cl, &b);
		}
	}
	ctl_server_client_unref(j->cl);
	free(j->text);
	free(j);
}

void
audit_text_serve(uv_loop_t *loop, struct store *st, struct ctl_server_client *cl,
    const uint8_t *p, size_t len)
{
	struct audit_text_job *j;
	lz_err_t err = LZ_ERR_INIT;
	uint8_t flags;

	if (esc_ctl_decode_audit_req(p, len, &flags, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if (st == NULL) {
		ctl_server_send_error(cl, PROTO_E_STATE, "this coordinator has no state store");
		return;
	}
	j = xcalloc(1, sizeof *j);
	j->cl = cl;
	j->flags = flags;
	ctl_server_client_ref(cl);
	store_submit(loop, st, audit_text_work, audit_text_done, j);
}
