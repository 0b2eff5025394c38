/* coord-base.c - what every file of the coordinator calls: its log, its
 * clock and its audit rows. It calls none of them back, so the files above
 * (coord.c, coord-dispatch.c, coord-limits.c, coord-net*.c, coord-status.c,
 * coord-user.c) do not loop through each other for these. */
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <uv.h>

#include "coord/coord-int.h"
#include "jsonw.h"
#include "store/audit.h"
#include "trace.h"
#include "xmalloc.h"

void
coord_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lz_logv("coordinator", fmt, ap);
	va_end(ap);
}

int64_t
coord_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
coord_audit_done(void *arg, int status, int64_t seq, lz_err_t *err)
{
	(void)arg;
	(void)seq;
	if (status < 0)
		coord_log("audit: %s", err != NULL && err->msg != NULL ? err->msg : "failed");
}

void
coord_audit(struct coord *c, const char *kind, const char *actor, const char *session_id,
    struct lz_jsonw *w)
{
	_cleanup_free_ char *detail = NULL;
	struct audit_rec rec = { 0, kind, actor, session_id, NULL, NULL };

	lz_jsonw_obj_close(w);
	detail = lz_jsonw_steal(w);
	rec.detail = detail;
	if (c->store != NULL)
		audit_submit(c->loop, c->store, &rec, coord_audit_done, c);
}
