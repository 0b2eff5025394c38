/* review-audit.c - audit rows of the review gate (see review-audit.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/ctl-server.h"
#include "review/review-audit.h"
#include "store/audit.h"
#include "store/store.h"
#include "xmalloc.h"

void
review_audit_encode(struct proto_buf *b, const char *kind, const char *detail)
{
	proto_encode_pair(b, REVIEW_CTL_AUDIT, kind, detail);
}

int
review_audit_decode(const uint8_t *p, size_t len, char **kind, char **detail, lz_err_t *err)
{
	char *k = NULL, *d = NULL;
	size_t i;

	if (proto_decode_pair(p, len, &k, &d) < 0)
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "REVIEW_AUDIT: bad payload");
	if (strncmp(k, "review.", 7) != 0 || k[7] == '\0' || strlen(k) > AUDIT_KIND_MAX)
		goto bad_kind;
	for (i = 7; k[i] != '\0'; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || k[i] == '-'))
			goto bad_kind;
	if (strlen(d) > AUDIT_DETAIL_MAX) {
		free(k);
		free(d);
		return lz_err_set(err, PROTO_E_BAD_PAYLOAD, "REVIEW_AUDIT: detail over %u bytes",
		    AUDIT_DETAIL_MAX);
	}
	*kind = k;
	*detail = d;
	return 0;
bad_kind:
	lz_err_set(err, PROTO_E_BAD_PAYLOAD, "REVIEW_AUDIT: kind must be review.[a-z-]+");
	free(k);
	free(d);
	return -1;
}

struct review_audit_job {
	struct ctl_server_client *cl;
};

static void
review_audit_done(void *arg, int status, int64_t seq, lz_err_t *err)
{
	struct review_audit_job *j = arg;
	struct proto_buf b = { NULL, 0, 0 };

	if (!j->cl->closing) {
		if (status < 0) {
			ctl_server_send_error(j->cl, PROTO_E_BAD_PAYLOAD, "audit: %s",
			    err != NULL && err->msg != NULL ? err->msg : "failed");
		} else {
			proto_encode_ok(&b, (uint32_t)seq);
			ctl_server_send(j->cl, &b);
		}
	}
	ctl_server_client_unref(j->cl);
	free(j);
}

void
review_audit_serve(uv_loop_t *loop, struct store *st, struct ctl_server_client *cl,
    const uint8_t *p, size_t len)
{
	struct review_audit_job *j;
	struct audit_rec rec = { 0 };
	lz_err_t err = LZ_ERR_INIT;
	char *kind = NULL, *detail = NULL;

	if (review_audit_decode(p, len, &kind, &detail, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	if (st == NULL) {
		ctl_server_send_error(cl, PROTO_E_STATE, "this coordinator has no state store");
		goto out;
	}
	j = xcalloc(1, sizeof *j);
	j->cl = cl;
	ctl_server_client_ref(cl);
	rec.kind = kind;
	rec.actor = "user";
	rec.detail = detail;
	audit_submit(loop, st, &rec, review_audit_done, j);	/* rec is copied */
out:
	free(kind);
	free(detail);
}

int
review_audit_direct(const struct anchor *a, const char *kind, const char *detail,
    int64_t *seq, lz_err_t *err)
{
	struct audit_rec rec = { 0 };
	struct store *st = NULL;
	int ret;

	if (mkdir(a->domain_root, 0700) < 0 && errno != EEXIST) {
		/* The parents too: a domain that never ran. */
		char *s, *path = xstrdup(a->domain_root);

		for (s = path + 1; (s = strchr(s, '/')) != NULL; s++) {
			*s = '\0';
			(void)mkdir(path, 0700);
			*s = '/';
		}
		free(path);
		if (mkdir(a->domain_root, 0700) < 0 && errno != EEXIST)
			return lz_err_sys(err, errno, "cannot create %s", a->domain_root);
	}
	if (store_open(a->state_db, &st, err) < 0)
		return err->code == EBUSY ? -1 : lz_err_wrap(err, "cannot write the audit row");
	rec.kind = kind;
	rec.actor = "user";
	rec.detail = detail;
	ret = audit_append(st, &rec, seq, err);
	store_close(st);
	return ret;
}
