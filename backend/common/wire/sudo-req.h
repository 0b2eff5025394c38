/* sudo-req.h - the request Lazaret's in-sandbox `sudo` sends to the
 * session's holder (escalate/sudo.c, escalate/hold.c): argv, environment and
 * working directory; stdio and the reply socket travel beside it as fds.
 *
 * Wire: u32 length (little-endian, <= SUDO_REQ_MAX) of the rest, then u32
 * argc, u32 envc, then 1 + argc + envc NUL-terminated strings: cwd, argv,
 * env, filling the length exactly. argc >= 1.
 */
#ifndef LZ_SUDO_REQ_H
#define LZ_SUDO_REQ_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define SUDO_REQ_MAX	(4u << 20)	/* argv + environ: Linux's own ARG_MAX order */
#define SUDO_REQ_ARGS	65536u

struct sudo_req {
	char *cwd;
	char **argv;	/* NULL-terminated */
	char **env;	/* NULL-terminated */
};

/* The whole frame, length prefix included (caller frees *out). */
int sudo_req_encode(const char *cwd, char *const *argv, char *const *env, uint8_t **out,
    size_t *len, lz_err_t *err);
/* The body after the length prefix (len bytes): fills r (sudo_req_clear
 * frees it), or < 0 with err saying what is wrong. */
int sudo_req_parse(const uint8_t *buf, size_t len, struct sudo_req *r, lz_err_t *err);
void sudo_req_clear(struct sudo_req *r);

#endif
