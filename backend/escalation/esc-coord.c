/* esc-coord.c - Host Escalation in the coordinator (see esc-coord.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "store/audit.h"
#include "escalation/esc-coord.h"
#include "escalation/esc-reserve.h"
#include "escalation/esc-server.h"
#include "policy.h"
#include "prefix.h"
#include "sign.h"
#include "strv.h"
#include "trust.h"
#include "xmalloc.h"

#define ESC_COORD_CA_LIFETIME	(30 * 24 * 3600)
#define ESC_COORD_CERT_LIFETIME	(7 * 24 * 3600)

struct esc_coord {
	struct esc_coord_opts o;
	struct trust_ca *ca;
	struct policy *policy;
	struct esc_server *srv;
	char *tls_dir, *esc_bin, *exec_path, *home;
	char *reserve;		/* state.db.reserve; NULL without a store */
	bool reserve_spent;	/* released for a failed row, not made again yet */
	bool closed;
};

static void
esc_coord_log(struct esc_coord *ec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
esc_coord_log(struct esc_coord *ec, const char *fmt, ...)
{
	va_list ap;
	char *m = NULL;

	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		m = NULL;
	va_end(ap);
	if (m != NULL && ec->o.log_cb != NULL)
		ec->o.log_cb(m, ec->o.arg);
	free(m);
}

static const char *const esc_coord_tls_files[] = { "ca.pem", "cert.pem", "key.pem" };

static int
esc_coord_write(const char *dir, const char *name, const char *text, lz_err_t *err)
{
	char *p = xasprintf("%s/%s", dir, name), *tmp = xasprintf("%s/.%s.tmp", dir, name);
	size_t n = strlen(text);
	int fd, ret = -1;

	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		lz_err_sys(err, errno, "cannot create %s", tmp);
		goto out;
	}
	if (write(fd, text, n) != (ssize_t)n || fsync(fd) < 0) {
		lz_err_sys(err, errno, "cannot write %s", tmp);
		close(fd);
		goto out;
	}
	close(fd);
	/* Rename: a running sandbox that mounts the directory sees the new file. */
	if (rename(tmp, p) < 0) {
		lz_err_sys(err, errno, "cannot rename %s", tmp);
		goto out;
	}
	ret = 0;
out:
	free(p);
	free(tmp);
	return ret;
}

/* A 0700 directory of ours on tmpfs: the key must never reach a disk. */
static int
esc_coord_tls_dir(struct esc_coord *ec, lz_err_t *err)
{
	const char *sock = ec->o.a->esc_socket;
	char *sdir = xstrndup(sock, (size_t)(strrchr(sock, '/') - sock)), *base = NULL;
	struct statfs fs;
	int ret = -1;

	if (statfs(sdir, &fs) == 0 && (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC))
		base = xstrdup(sdir);
	else {
		base = xasprintf("/dev/shm/lazaret-%ld", (long)getuid());
		if (statfs("/dev/shm", &fs) < 0 || fs.f_type != TMPFS_MAGIC) {
			lz_err_set(err, ENOTSUP, "no memory-backed directory for the sandbox's TLS "
			    "key: %s is not tmpfs and /dev/shm is missing", sdir);
			goto out;
		}
		if (ctl_server_dir_check(base, true, err) < 0)
			goto out;
	}
	ec->tls_dir = xasprintf("%s/%s.tls", base, ec->o.a->hash);
	if (ctl_server_dir_check(ec->tls_dir, true, err) < 0)
		goto out;
	ret = 0;
out:
	free(base);
	free(sdir);
	return ret;
}

static void
esc_coord_remove_tls_dir(const char *dir)
{
	size_t i;

	for (i = 0; i < 3; i++) {
		char *p = xasprintf("%s/%s", dir, esc_coord_tls_files[i]);

		(void)unlink(p);
		free(p);
	}
	(void)rmdir(dir);
}

static void
esc_coord_remove_tls(struct esc_coord *ec)
{
	if (ec->tls_dir != NULL)
		esc_coord_remove_tls_dir(ec->tls_dir);
}

int
esc_coord_reap(const struct anchor *a)
{
	const char *sock = a->esc_socket;
	char *sdir = xstrndup(sock, (size_t)(strrchr(sock, '/') - sock));
	char *dirs[2] = {
		xasprintf("%s/%s.tls", sdir, a->hash),
		xasprintf("/dev/shm/lazaret-%ld/%s.tls", (long)getuid(), a->hash),
	};
	struct stat st;
	int i, left = 0;

	if (lstat(sock, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == geteuid())
		(void)unlink(sock);
	left += lstat(sock, &st) == 0;
	for (i = 0; i < 2; i++) {
		/* Only a directory of ours: never follow a symlink planted there. */
		if (lstat(dirs[i], &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
			esc_coord_remove_tls_dir(dirs[i]);
		left += lstat(dirs[i], &st) == 0;
		free(dirs[i]);
	}
	free(sdir);
	return left > 0 ? -1 : 0;
}

static void
esc_coord_prompt_cb(struct esc_server *s, const struct esc_server_req *r, void *arg)
{
	struct esc_coord *ec = arg;
	struct esc_ctl_prompt q;

	(void)s;
	memset(&q, 0, sizeof q);
	q.ticket = r->ticket;
	q.request_id = (char *)r->request_id;
	q.profile = (char *)ec->o.a->profile;
	q.justification = (char *)r->justification;
	q.cwd = (char *)r->cwd;
	q.command = (char *)r->command;
	q.reason = (char *)(r->reason != NULL ? r->reason : "");
	esc_coord_log(ec, "escalation %.8s of session %.8s waits: %s", r->request_id,
	    r->session_id, q.reason);
	ec->o.prompt_cb(r->session_id, &q, ec->o.arg);
}

static void
esc_coord_withdraw_cb(struct esc_server *s, const struct esc_server_req *r, void *arg)
{
	struct esc_coord *ec = arg;
	struct proto_buf b = { NULL, 0, 0 };

	(void)s;
	esc_ctl_encode_withdrawn(&b, r->ticket);
	ec->o.route_cb(r->session_id, &b, ec->o.arg);
	proto_buf_clear(&b);
}

/* Rows in flight (one transaction) and who waits for each. */
struct esc_coord_wait {
	struct esc_coord *ec;
	size_t n;
	struct { void (*done)(void *, int); void *arg; } w[];
};

static void
esc_coord_audit_done(void *arg, int status, int64_t seq, lz_err_t *err)
{
	struct esc_coord_wait *cw = arg;
	struct esc_coord *ec = cw->ec;
	size_t i;

	(void)seq;
	if (status < 0) {
		esc_coord_log(ec, "audit: %s", err != NULL && err->msg != NULL ? err->msg : "failed");
		/* Room for the refusal and what follows; escalations stay refused
		 * until the reserve can be made again (esc_coord_audit_ok_cb). */
		if (ec->reserve != NULL && !ec->reserve_spent) {
			esc_reserve_release(ec->reserve);
			ec->reserve_spent = true;
			esc_coord_log(ec, "audit: released the reserve %s; host commands are refused "
			    "until there is room for it again", ec->reserve);
		}
	}
	for (i = 0; i < cw->n; i++)
		if (cw->w[i].done != NULL)
			cw->w[i].done(cw->w[i].arg, status);
	free(cw);
}

/* rows as one transaction; each done(done_arg, status) when it is answered. */
static void
esc_coord_audit_rows(struct esc_coord *ec, const struct esc_server_row *rows, size_t n)
{
	struct audit_rec *recs;
	struct esc_coord_wait *cw;
	size_t i;

	for (i = 0; i < n; i++)
		esc_coord_log(ec, "audit %s %s", rows[i].kind, rows[i].detail != NULL ?
		    rows[i].detail : "");
	if (ec->o.store == NULL) {
		for (i = 0; i < n; i++)
			if (rows[i].done != NULL)
				rows[i].done(rows[i].done_arg, 0);
		return;
	}
	recs = xcalloc(n, sizeof *recs);
	cw = xcalloc(1, sizeof *cw + n * sizeof cw->w[0]);
	cw->ec = ec;
	cw->n = n;
	for (i = 0; i < n; i++) {
		recs[i] = (struct audit_rec){ 0, rows[i].kind, rows[i].actor, rows[i].session_id,
		    rows[i].request_id, rows[i].detail };
		cw->w[i].done = rows[i].done;
		cw->w[i].arg = rows[i].done_arg;
	}
	audit_submit_n(ec->o.loop, ec->o.store, recs, n, esc_coord_audit_done, cw);
	free(recs);	/* copied */
}

void
esc_coord_audit(struct esc_coord *ec, const char *kind, const char *actor,
    const char *session_id, const char *request_id, const char *detail)
{
	struct esc_server_row r = { kind, actor, session_id, request_id, detail, NULL, NULL };

	esc_coord_audit_rows(ec, &r, 1);
}

static void
esc_coord_audit_cb(const struct esc_server_row *rows, size_t n, void *arg)
{
	esc_coord_audit_rows(arg, rows, n);
}

static bool
esc_coord_audit_ok_cb(void *arg)
{
	struct esc_coord *ec = arg;
	lz_err_t err = LZ_ERR_INIT;

	if (ec->reserve == NULL || !ec->reserve_spent)
		return true;
	if (esc_reserve_make(ec->reserve, &err) < 0) {
		lz_err_clear(&err);
		return false;
	}
	ec->reserve_spent = false;
	esc_coord_log(ec, "audit: the reserve %s is back; host commands may run again",
	    ec->reserve);
	return true;
}

static void
esc_coord_quit_cb(void *arg)
{
	struct esc_coord *ec = arg;

	ec->o.quit_cb(ec->o.arg);
}

int
esc_coord_new(const struct esc_coord_opts *o, struct esc_coord **out, lz_err_t *err)
{
	static const struct esc_server_cbs cbs = {
		esc_coord_prompt_cb, esc_coord_withdraw_cb, esc_coord_audit_cb, esc_coord_quit_cb,
		esc_coord_audit_ok_cb,
	};
	struct esc_coord *ec = xcalloc(1, sizeof *ec);
	struct esc_server_opts so;
	struct trust_cert cert = { NULL, NULL };
	char *ca_pem = NULL;
	const char *t = getenv(ESC_COORD_TIMEOUT_ENV), *path = getenv("PATH"), *home;
	long timeout_s = o->cfg->esc_timeout > 0 ? o->cfg->esc_timeout : 0;	/* 0: server default */

	ec->o = *o;
	trust_init();
	/* PREFIX/libexec/lazaret installed, next to lazaret in a build tree. */
	if (lz_prefix_helper("lazaret-escalate", &ec->esc_bin, err) < 0) {
		_cleanup_free_ char *why = lz_steal_ptr(&err->msg);

		lz_err_set(err, ENOENT, "%s (the sandbox's escalation client): build it with 'make' "
		    "or install it with 'make install', or set escalation.enabled: false", why);
		goto fail;
	}
	ec->exec_path = xstrdup(path != NULL && *path != '\0' ? path : "/usr/local/bin:/usr/bin:/bin");
	home = getenv("HOME");
	ec->home = xstrdup(home != NULL && *home == '/' ? home : "/");
	if (policy_new(o->cfg->esc_auto_approve, o->cfg->n_esc_auto_approve, ec->exec_path,
	    &ec->policy, err) < 0) {
		lz_err_wrap(err, "escalation.auto_approve");
		goto fail;
	}
	/* The environment overrides escalation.timeout (the tests shorten it). */
	if (t != NULL && *t != '\0') {
		char *end;

		errno = 0;
		timeout_s = strtol(t, &end, 10);
		if (errno != 0 || *end != '\0' || timeout_s <= 0 || timeout_s > 86400) {
			lz_err_set(err, EINVAL, "%s=%s: expected seconds (1..86400)",
			    ESC_COORD_TIMEOUT_ENV, t);
			goto fail;
		}
	}
	/* No room for the reserve: the coordinator starts, but host commands are
	 * refused until there is (audit first, fail closed). */
	if (o->store != NULL) {
		lz_err_t rerr = LZ_ERR_INIT;

		ec->reserve = xasprintf("%s.reserve", store_path(o->store));
		if (esc_reserve_make(ec->reserve, &rerr) < 0) {
			esc_coord_log(ec, "%s", rerr.msg);
			ec->reserve_spent = true;
			lz_err_clear(&rerr);
		}
	}
	if (trust_ca_new(ESC_COORD_CA_LIFETIME, &ec->ca, err) < 0 ||
	    trust_issue_client(ec->ca, o->a->profile, o->a->hash, ESC_COORD_CERT_LIFETIME, &cert,
	    err) < 0)
		goto fail;
	if (esc_coord_tls_dir(ec, err) < 0)
		goto fail;
	ca_pem = trust_ca_cert_pem(ec->ca);
	if (esc_coord_write(ec->tls_dir, "ca.pem", ca_pem, err) < 0 ||
	    esc_coord_write(ec->tls_dir, "cert.pem", cert.cert_pem, err) < 0 ||
	    esc_coord_write(ec->tls_dir, "key.pem", cert.key_pem, err) < 0)
		goto fail;
	memset(&so, 0, sizeof so);
	so.path = o->a->esc_socket;
	so.profile = o->a->profile;
	so.sandbox_id = o->a->hash;
	so.ca = ec->ca;
	so.policy = ec->policy;
	so.host_workspace = o->host_workspace;
	so.review_repo = o->a->workspace;
	so.exec_path = ec->exec_path;
	so.exec_home = ec->home;
	so.timeout_ms = (int)timeout_s * 1000;
	so.audit_down = ec->reserve_spent;
	if (esc_server_new(o->loop, &so, &cbs, ec, &ec->srv, err) < 0)
		goto fail;
	esc_coord_log(ec, "escalation socket %s (TLS files in %s, decisions time out after %ld s)",
	    so.path, ec->tls_dir, timeout_s > 0 ? timeout_s : ESC_SERVER_TIMEOUT_MS / 1000);
	trust_cert_clear(&cert);
	free(ca_pem);
	*out = ec;
	return 0;
fail:
	trust_cert_clear(&cert);
	free(ca_pem);
	ec->closed = true;
	esc_coord_free(ec);
	return -1;
}

int
esc_coord_spec(struct esc_coord *ec, struct drv_spec *sp, lz_err_t *err)
{
	(void)err;
	drv_spec_add_bind(sp, ec->tls_dir, ESC_COORD_TLS_DST, true);
	drv_spec_add_bind(sp, ec->o.a->esc_socket, ESC_COORD_SOCK_DST, false);
	drv_spec_add_bind(sp, ec->esc_bin, ESC_COORD_BIN_DST, true);
	sp->runtime_flags = xreallocarray(sp->runtime_flags, sp->n_runtime_flags + 1,
	    sizeof *sp->runtime_flags);
	sp->runtime_flags[sp->n_runtime_flags++] = xstrdup("host-uds=open");
	return 0;
}

int
esc_coord_session(struct esc_coord *ec, const struct esc_ctl_anchor *anc, char **secret,
    lz_err_t *err)
{
	if (esc_server_register(ec->srv, anc->session_id, anc->pk, err) < 0)
		return -1;
	*secret = xasprintf("%s=%s\n", LZ_SIGN_ENV_CRED, anc->cred_env);
	return 0;
}

void
esc_coord_session_end(struct esc_coord *ec, const char *uuid)
{
	if (ec != NULL && !ec->closed)
		esc_server_unregister(ec->srv, uuid);
}

size_t
esc_coord_attach(struct esc_coord *ec, const char *uuid)
{
	if (ec != NULL && !ec->closed)
		return esc_server_pending(ec->srv, uuid);
	return 0;
}

size_t
esc_coord_waiting(struct esc_coord *ec, const char *uuid)
{
	return ec != NULL && !ec->closed ? esc_server_waiting(ec->srv, uuid) : 0;
}

void
esc_coord_decision(struct esc_coord *ec, struct ctl_server_client *cl, const uint8_t *p,
    size_t len, bool answer)
{
	struct esc_ctl_decision d;
	lz_err_t err = LZ_ERR_INIT;
	const char *uuid;
	char *actor;

	if (esc_ctl_decode_decision(p, len, &d, &err) < 0) {
		ctl_server_send_error(cl, PROTO_E_BAD_PAYLOAD, "%s", err.msg);
		lz_err_clear(&err);
		return;
	}
	/* Late decisions (timed out, decided by another client) are only logged:
	 * an ERROR frame would end the client's session. ESC_DECIDE (the CLI)
	 * is answered either way. */
	if (ec->closed || (uuid = esc_server_ticket_session(ec->srv, d.ticket)) == NULL) {
		esc_coord_log(ec, "client %u: decision on ticket %u comes too late", cl->id,
		    d.ticket);
		if (answer)
			ctl_server_send_error(cl, PROTO_E_NO_SESSION, "no request waits under ticket "
			    "%u: it was decided elsewhere or timed out", d.ticket);
		goto out;
	}
	/* Any client of the user may answer with ESC_DECIDE (the socket is
	 * ours alone); the human's deliberate code is the CLI's to ask. */
	if (!answer && !ec->o.attached_cb(uuid, cl, ec->o.arg)) {
		esc_coord_log(ec, "client %u is not attached to session %.8s: decision on ticket "
		    "%u ignored", cl->id, uuid, d.ticket);
		goto out;
	}
	actor = xasprintf("uid %ld pid %ld", (long)cl->uid, (long)cl->pid);
	if (esc_server_decide(ec->srv, d.ticket, d.action, d.command, actor, &err) < 0) {
		esc_coord_log(ec, "%s", err.msg);
		if (answer)
			ctl_server_send_error(cl, PROTO_E_NO_SESSION, "%s", err.msg);
	} else if (answer) {
		struct proto_buf b = { NULL, 0, 0 };

		proto_encode_ok(&b, d.ticket);
		ctl_server_send(cl, &b);
	}
	free(actor);
out:
	lz_err_clear(&err);
	esc_ctl_decision_clear(&d);
}

void
esc_coord_close(struct esc_coord *ec)
{
	if (ec == NULL || ec->closed)
		return;
	ec->closed = true;
	esc_server_close(ec->srv);
}

void
esc_coord_free(struct esc_coord *ec)
{
	if (ec == NULL)
		return;
	if (!ec->closed && ec->srv != NULL)
		esc_server_close(ec->srv);
	esc_coord_remove_tls(ec);
	free(ec->tls_dir);
	policy_free(ec->policy);
	trust_ca_free(ec->ca);
	free(ec->esc_bin);
	free(ec->exec_path);
	free(ec->home);
	free(ec->reserve);
	free(ec);
}
