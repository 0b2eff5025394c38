/* runsc-call.h - calls on runsc's sandbox control socket (runsc-ctl.h builds
 * and reads the messages). System calls and libc only: linked into the
 * static lazaret-exec too.
 */
#ifndef LZ_RUNSC_CALL_H
#define LZ_RUNSC_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Connected to the control socket of sandbox id (abstract
 * "runsc-sandbox.ID"): the fd, or -1 with err. */
int runsc_call_connect(const char *sandbox_id, lz_err_t *err);
/* Send msg, with fds attached (SCM_RIGHTS) when nfds > 0. */
int runsc_call_send(int fd, const char *msg, const int *fds, size_t nfds, lz_err_t *err);

/* A reply being read. */
struct runsc_reply {
	char *buf;
	size_t len;	/* bytes read; once whole, the reply's length */
	size_t cap;
};
/* One read of fd into r: 1 when the reply is whole, 0 when more is to
 * come, -1 with err (closed early, over the limit, read error). */
int runsc_call_read(int fd, struct runsc_reply *r, lz_err_t *err);
void runsc_reply_clear(struct runsc_reply *);

/* A whole call: connect, send (with fds), read the reply within timeout_ms
 * (-1: none), close. 0 with *result (runsc_ctl_reply's), -1 with err. */
int runsc_call(const char *sandbox_id, const char *msg, const int *fds, size_t nfds,
    int timeout_ms, char **result, lz_err_t *err);

#endif
